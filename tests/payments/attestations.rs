//! Signed score attestations: the operator signs, and three verifiers agree: viem off chain, the
//! project's `ScoreVerifier` contract on anvil (called through the original SDK's
//! `buildOnchainCall`), and `POST /verify`. Tampered, stale and future-dated attestations are
//! refused by all that judge them.

use std::path::Path;
use std::process::Command;
use std::time::Duration;

use agentrep_server::{SecretKey, ServerConfig, ServiceIdentity};
use agentrep_tests::chain::paychain::{PayChain, key_hex};
use agentrep_tests::{RunningServer, shared_world, test_clients};
use alloy::primitives::Address;
use alloy::signers::SignerSync;
use alloy::sol_types::SolValue;
use reqwest::StatusCode;
use serde_json::{Value, json};

use super::{now, top_seller};

/// Deploys `contracts/artifacts/ScoreVerifier.json` for `operator` (max age: the default day).
async fn deploy_verifier(chain: &PayChain, operator: Address) -> Address {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("..");
    let artifact: Value =
        serde_json::from_slice(&std::fs::read(root.join("contracts/artifacts/ScoreVerifier.json")).unwrap()).unwrap();
    let mut code = alloy::hex::decode(artifact["bytecode"].as_str().unwrap()).unwrap();
    code.extend((operator, 0u64).abi_encode_params());
    let hash: String = chain
        .anvil
        .rpc(
            "eth_sendTransaction",
            [json!({"from": chain.relayer.address(), "data": alloy::hex::encode_prefixed(&code)})],
        )
        .await
        .unwrap();
    for _ in 0..100 {
        let receipt: Value = chain.anvil.rpc("eth_getTransactionReceipt", [&hash]).await.unwrap();
        if let Some(addr) = receipt["contractAddress"].as_str() {
            assert_eq!(receipt["status"], "0x1");
            return addr.parse().unwrap();
        }
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
    panic!("the verifier was not deployed")
}

/// viem and the on-chain verifier (through the original SDK's call) on `attestation`.
fn outside_verifiers(chain: &PayChain, verifier: Address, attestation: &Value, min_score: u8) -> Value {
    let tools = test_clients();
    let script = Path::new(env!("CARGO_MANIFEST_DIR")).join("payments/clients/verify_attestation.mjs");
    let out = Command::new("timeout")
        .args(["60", "node"])
        .arg(script)
        .args([
            chain.anvil.url(),
            &alloy::hex::encode_prefixed(verifier),
            &attestation.to_string(),
            &min_score.to_string(),
        ])
        .env("AGENTREP_CLIENTS_NODE_MODULES", tools.join("clients/node_modules"))
        .output()
        .unwrap();
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(out.status.success(), "{stdout}{}", String::from_utf8_lossy(&out.stderr));
    serde_json::from_str(stdout.lines().last().unwrap()).unwrap()
}

/// An attestation re-signed by the operator with another timestamp (what a stale or
/// future-dated one looks like).
fn resigned(chain: &PayChain, attestation: &Value, timestamp: u64) -> Value {
    let mut att = attestation.clone();
    att["payload"]["timestamp"] = json!(timestamp);
    let payload: agentrep_publish::wire::AttestationPayloadV1 = serde_json::from_value(att["payload"].clone()).unwrap();
    let hash = agentrep_server::attest::signing_hash(&payload).unwrap();
    att["signature"] = json!(alloy::hex::encode_prefixed(chain.operator.sign_hash_sync(&hash).unwrap().as_bytes()));
    att
}

async fn verify(base: &str, attestation: &Value, min_score: Option<u8>) -> Value {
    let body = json!({"payload": attestation["payload"], "signature": attestation["signature"], "minScore": min_score});
    let resp = reqwest::Client::new().post(format!("{base}/verify")).json(&body).send().await.unwrap();
    assert_eq!(resp.status(), StatusCode::OK);
    resp.json().await.unwrap()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn attestations_verify_off_chain_on_chain_and_server_side() {
    let chain = PayChain::start().await.unwrap();
    let operator = chain.operator.address();
    let verifier = deploy_verifier(&chain, operator).await;
    let dir = tempfile::tempdir().unwrap();
    let server = RunningServer::start_config(ServerConfig {
        snapshots: shared_world().snapshots(),
        reload_interval: Duration::from_millis(100),
        identity: ServiceIdentity::default(),
        operator_key: Some(SecretKey::new(key_hex(&chain.operator))),
        payments: agentrep_server::PaymentSettings {
            store: Some(dir.path().join("store.sqlite")),
            ..Default::default()
        },
        ..ServerConfig::default()
    });
    let seller = top_seller(&server.base).await;
    let score: Value = reqwest::get(format!("{}/score/{seller}", server.base)).await.unwrap().json().await.unwrap();
    let att: Value = reqwest::get(format!("{}/attestation/{seller}", server.base)).await.unwrap().json().await.unwrap();
    assert_eq!(att["signed"], true, "{att}");
    assert_eq!(att["payload"]["score"], score["score"]);
    assert_eq!(att["payload"]["operator"], alloy::hex::encode_prefixed(operator));
    assert_eq!(att["payload"]["version"], "agentrep-v1");
    assert_eq!(att["eip712"]["domain"], json!({"name": "agentrep", "version": "1", "chainId": 8453}));
    let subject = format!("0x{:0>64}", seller.trim_start_matches("0x"));
    assert_eq!(att["payload"]["subject"], subject, "the wallet, left-padded");
    assert_eq!(att["demoKey"], false);
    let score = att["payload"]["score"].as_u64().unwrap() as u8;

    // Three verifiers agree on the genuine one.
    let outside = outside_verifiers(&chain, verifier, &att, score);
    assert_eq!(outside["recovered"], alloy::hex::encode_prefixed(operator), "viem");
    assert_eq!(outside["onchain"]["ok"], true, "the contract: {outside}");
    let v = verify(&server.base, &att, Some(score)).await;
    assert_eq!(
        (v["valid"].clone(), v["signerMatch"].clone(), v["passesThreshold"].clone()),
        (json!(true), json!(true), json!(true)),
        "{v}"
    );
    // A threshold above the score: the contract reverts, the server says it does not pass.
    assert_eq!(outside_verifiers(&chain, verifier, &att, score + 1)["onchain"]["ok"], false);
    assert_eq!(verify(&server.base, &att, Some(score + 1)).await["passesThreshold"], false);

    // Tampered, stale and future-dated: refused everywhere.
    let mut tampered = att.clone();
    tampered["payload"]["score"] = json!(100);
    assert_ne!(outside_verifiers(&chain, verifier, &tampered, 0)["recovered"], alloy::hex::encode_prefixed(operator));
    assert_eq!(outside_verifiers(&chain, verifier, &tampered, 0)["onchain"]["ok"], false);
    assert_eq!(verify(&server.base, &tampered, None).await["valid"], false);
    let stale = resigned(&chain, &att, now() - 90_000);
    assert_eq!(outside_verifiers(&chain, verifier, &stale, 0)["onchain"]["ok"], false, "stale on chain");
    let v = verify(&server.base, &stale, None).await;
    assert_eq!(
        (v["valid"].clone(), v["signerMatch"].clone(), v["fresh"].clone()),
        (json!(false), json!(true), json!(false))
    );
    let future = resigned(&chain, &att, now() + 3_600);
    assert_eq!(outside_verifiers(&chain, verifier, &future, 0)["onchain"]["ok"], false, "future on chain");
    assert_eq!(verify(&server.base, &future, None).await["valid"], false);

    // Within the hour the same signature is served again; the store knows it.
    let again: Value =
        reqwest::get(format!("{}/attestation/{seller}", server.base)).await.unwrap().json().await.unwrap();
    assert_eq!(again["signature"], att["signature"]);
    let status: Value =
        reqwest::get(format!("{}/auto-attest-status/{seller}", server.base)).await.unwrap().json().await.unwrap();
    assert_eq!(
        (status["attested"].clone(), status["fresh"].clone(), status["tier"].clone()),
        (json!(true), json!(true), json!("attested"))
    );
    let other: Value =
        reqwest::get(format!("{}/auto-attest-status/0x00000000000000000000000000000000000000aa", server.base))
            .await
            .unwrap()
            .json()
            .await
            .unwrap();
    assert_eq!((other["attested"].clone(), other["action"].clone()), (json!(false), json!("refetch")));
    let feed: Value = reqwest::get(format!("{}/attestations.json", server.base)).await.unwrap().json().await.unwrap();
    assert_eq!(feed["version"], "https://jsonfeed.org/version/1.1");
    assert!(feed["items"].as_array().unwrap().iter().any(|i| i["url"].as_str().unwrap().ends_with(&seller)));
    let engagement: Value =
        reqwest::get(format!("{}/attestation-engagement", server.base)).await.unwrap().json().await.unwrap();
    assert_eq!(engagement["ranking"][0]["address"], seller);
    assert_eq!(engagement["ranking"][0]["fetches"], 2);

    // A deployment without an operator key signs nothing and says why.
    let unsigned = RunningServer::start(&shared_world().snapshots());
    let refusal: Value =
        reqwest::get(format!("{}/attestation/{seller}", unsigned.base)).await.unwrap().json().await.unwrap();
    assert_eq!((refusal["signed"].clone(), refusal["reason"].clone()), (json!(false), json!("signing-not-configured")));
    assert!(refusal.get("signature").is_none());
}
