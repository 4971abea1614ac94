//! Featured casts bought with the official `@x402/fetch` buyer on anvil: the server signs a
//! Farcaster `CastAdd` with the operator's Ed25519 signer and submits it to a hub double on
//! loopback that decodes and validates it with Farcaster's own library (npm `@farcaster/core`) and
//! takes only the registered signer's messages. A cast the hub refuses charges nothing; what
//! cannot be featured is refused before any terms.

use std::io::{BufRead, BufReader};
use std::process::{Child, Command, Stdio};

use agentrep_ingest::web::reqwest::Url;
use agentrep_server::cast::Caster;
use agentrep_tests::buyers::pay_post;
use agentrep_tests::test_clients;

use super::*;

const FID: u64 = 4242;
const SIGNER_SEED: [u8; 32] = [0x5a; 32];

/// The hub double, registered with `FID` and the signer `SIGNER_SEED` makes; killed on drop.
struct Hub {
    child: Child,
    url: String,
}

impl Hub {
    fn start(signer: &str) -> Self {
        let script = Path::new(env!("CARGO_MANIFEST_DIR")).join("payments/clients/hub.mjs");
        let mut child = Command::new("node")
            .arg(script)
            .args([FID.to_string(), signer.to_owned()])
            .env("AGENTREP_CLIENTS_NODE_MODULES", test_clients().join("clients/node_modules"))
            .stdout(Stdio::piped())
            .spawn()
            .expect("node starts");
        let mut line = String::new();
        BufReader::new(child.stdout.take().unwrap()).read_line(&mut line).unwrap();
        let port = line.trim().strip_prefix("listening ").expect("the hub's port").to_owned();
        Self { child, url: format!("http://127.0.0.1:{port}/") }
    }

    async fn casts(&self) -> Vec<Value> {
        reqwest::get(format!("{}_casts", self.url)).await.unwrap().json().await.unwrap()
    }
}

impl Drop for Hub {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

fn caster(seed: [u8; 32], hub: &Hub) -> Caster {
    Caster::new(FID, seed, 1, Url::parse(&hub.url).unwrap()).unwrap()
}

fn cast_server(chain: &PayChain, dir: &Path, caster: Option<Caster>) -> RunningServer {
    let pay_to = alloy::hex::encode_prefixed(chain.pay_to);
    RunningServer::start_config(ServerConfig {
        snapshots: shared_world().snapshots(),
        reload_interval: Duration::from_millis(100),
        identity: ServiceIdentity { pay_to: Some(pay_to), ..ServiceIdentity::default() },
        payments: chain.direct_settings(dir.join("store.sqlite")),
        operator_key: Some(SecretKey::new(key_hex(&chain.operator))),
        caster,
        ..ServerConfig::default()
    })
}

/// (a token that may be featured, a rugged one), from the top deployers' launches.
async fn tokens(base: &str) -> (String, Option<String>) {
    let top: Value = reqwest::get(format!("{base}/deployers/top?limit=50")).await.unwrap().json().await.unwrap();
    let (mut fine, mut rugged) = (None, None);
    for d in top["deployers"].as_array().unwrap() {
        let address = d["address"].as_str().unwrap();
        let profile: Value = reqwest::get(format!("{base}/deployer/{address}")).await.unwrap().json().await.unwrap();
        for launch in profile["launches"].as_array().into_iter().flatten() {
            let token = launch["token"].as_str().unwrap().to_owned();
            match launch["outcome"].as_str() {
                Some("rugged") => rugged = rugged.or(Some(token)),
                _ if d["verdict"] != "AVOID" => fine = fine.or(Some(token)),
                _ => {}
            }
        }
    }
    (fine.expect("a token that can be featured"), rugged)
}

async fn post_empty(url: &str) -> (u16, Value, bool) {
    let resp = reqwest::Client::new().post(url).json(&json!({})).send().await.unwrap();
    let (status, terms) = (resp.status().as_u16(), resp.headers().contains_key("payment-required"));
    (status, resp.json().await.unwrap_or(Value::Null), terms)
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_featured_cast_is_signed_taken_by_the_hub_and_paid_once() {
    let chain = PayChain::start().await.unwrap();
    let dir = tempfile::tempdir().unwrap();
    let probe = Caster::new(FID, SIGNER_SEED, 1, Url::parse("http://127.0.0.1:1/").unwrap()).unwrap();
    let hub = Hub::start(&probe.signer());
    let server = cast_server(&chain, dir.path(), Some(caster(SIGNER_SEED, &hub)));
    let base = server.base.clone();
    let payer = funded_payer(&chain, 20_000_000).await;
    let (token, rugged) = tokens(&base).await;

    let out = pay_post(&format!("{base}/clawd/featured-cast/{token}"), &json!({}), &payer).await;
    assert_eq!((out["status"].clone(), out["settlement"]["success"].clone()), (json!(200), json!(true)), "{out}");
    let casts = hub.casts().await;
    assert_eq!(casts.len(), 1, "{casts:?}");
    assert_eq!(out["body"]["castHash"], casts[0]["hash"], "the hash the hub computed");
    assert_eq!(casts[0]["fid"], json!(FID));
    let text = casts[0]["text"].as_str().unwrap();
    assert!(text.contains(&token) && text.contains("(paid)"), "{text}");
    assert_eq!(out["body"]["text"], text);
    assert_eq!(chain.balance(chain.pay_to).await.unwrap(), U256::from(5_000_000));

    // What cannot be featured is refused before any terms.
    if let Some(rugged) = rugged {
        let (status, refusal, terms) = post_empty(&format!("{base}/clawd/featured-cast/{rugged}")).await;
        assert_eq!((status, refusal["error"]["code"].as_str(), terms), (409, Some("already_rugged"), false));
    }
    let unknown = alloy::hex::encode_prefixed(PrivateKeySigner::random().address());
    let (status, refusal, terms) = post_empty(&format!("{base}/clawd/featured-cast/{unknown}")).await;
    assert_eq!((status, refusal["error"]["code"].as_str(), terms), (404, Some("unknown_token"), false));
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_cast_the_hub_refuses_charges_nothing_and_no_signer_sells_nothing() {
    let chain = PayChain::start().await.unwrap();
    let dir = tempfile::tempdir().unwrap();
    let registered = Caster::new(FID, SIGNER_SEED, 1, Url::parse("http://127.0.0.1:1/").unwrap()).unwrap();
    let hub = Hub::start(&registered.signer());
    // Signed with a key the hub's registry does not list.
    let server = cast_server(&chain, dir.path(), Some(caster([0x11; 32], &hub)));
    let base = server.base.clone();
    let payer = funded_payer(&chain, 20_000_000).await;
    let (token, _) = tokens(&base).await;
    let out = pay_post(&format!("{base}/clawd/featured-cast/{token}"), &json!({}), &payer).await;
    assert_eq!(out["status"], 503, "{out}");
    assert_eq!(out["body"]["error"]["code"], "cast_not_taken", "{out}");
    assert!(hub.casts().await.is_empty());
    assert_eq!(chain.balance(chain.pay_to).await.unwrap(), U256::ZERO, "nothing settled");

    // Without a Farcaster signer and hub the route quotes no terms.
    let plain = cast_server(&chain, &dir.path().join("plain"), None);
    let (status, refusal, terms) = post_empty(&format!("{}/clawd/featured-cast/{token}", plain.base)).await;
    assert_eq!((status, refusal["error"]["code"].as_str(), terms), (503, Some("paid_route_unavailable"), false));
}
