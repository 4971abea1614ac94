//! Paid answers end to end, on loopback: agentrep serving the shared world with payments on,
//! anvil as the payment network (Base's chain id, the USDC double at Base's USDC address) and
//! settlement straight on chain with a relayer key.
//!
//! - The official buyers pay for an audit and get it: npm `@x402/fetch` + `@x402/evm` (v2),
//!   npm `x402-fetch` (v1), PyPI `x402` (v2, and its v1 path: `x402_buyer_v1.py`). Each payer's
//!   balance moves exactly once. `live.rs`: each of them pays for a live re-score. `mcp.rs`: the
//!   official x402 MCP client (PyPI `x402.mcp`) buys the audit tool over MCP.
//! - The attack cases: tampered amount, recipient, network, accepted terms and signature,
//!   underpayment, expired and not-yet-valid authorizations, a nonce already used on chain, an
//!   unfunded payer, a replay, concurrent copies, a reused payment-identifier. None gets an
//!   answer without a valid unused payment; none is charged without an answer.
//! - The ledger survives a restart: a replay after it is still refused.
//! - Smart wallets (`smart_wallet.rs`): `@x402/fetch` pays from an ERC-1271 wallet that does not
//!   exist yet (ERC-6492: the relayer deploys it, then settles), and from it once it exists; the
//!   official facilitator does the same; the smart-wallet attacks move nothing.
//! - Signed attestations (`attestations.rs`): viem, the verifier contract and `POST /verify`.
//! - Settlement through the official facilitator (npm `@x402/core` + `@x402/evm`, v1 and v2),
//!   and through one that goes silent after settling (unknown → reconciled as settled, charged
//!   once) or fails mid-settle (unknown → expired unsettled, nothing charged).

mod attestations;
mod casts;
mod guards;
mod live;
mod mcp;
mod paid_probes;
mod smart_wallet;
mod writes;

use std::path::Path;
use std::time::{Duration, SystemTime, UNIX_EPOCH};

use agentrep_payments::receipt::{OfferPayload, ReceiptPayload, Signed, offer_signer, receipt_signer};
use agentrep_payments::verify::TransferWithAuthorization;
use agentrep_payments::wire::{decode_base64, encode_base64};
use agentrep_server::{PaymentSettings, SecretKey, ServerConfig, ServiceIdentity};
use agentrep_store::PaymentState;
use agentrep_tests::buyers::OfficialBuyer;
use agentrep_tests::chain::paychain::{Facilitator, FacilitatorFault, PayChain, key_hex, sign_authorization};
use agentrep_tests::{RunningServer, shared_world};
use alloy::primitives::{Address, B256, U256};
use alloy::signers::local::PrivateKeySigner;
use reqwest::StatusCode;
use serde_json::{Value, json};

/// The audit's price, micro-USDC.
const PRICE: u64 = 250_000;

fn now() -> u64 {
    SystemTime::now().duration_since(UNIX_EPOCH).unwrap().as_secs()
}

/// A server over the shared world taking payments on `chain` as `payments` says, signing with
/// the chain's operator key.
fn server_with(chain: &PayChain, payments: PaymentSettings) -> RunningServer {
    let pay_to = alloy::hex::encode_prefixed(chain.pay_to);
    RunningServer::start_config(ServerConfig {
        snapshots: shared_world().snapshots(),
        reload_interval: Duration::from_millis(100),
        identity: ServiceIdentity { pay_to: Some(pay_to), ..ServiceIdentity::default() },
        payments,
        operator_key: Some(SecretKey::new(key_hex(&chain.operator))),
        ..ServerConfig::default()
    })
}

/// A server settling directly on `chain`, its ledger in `dir`.
fn paid_server(chain: &PayChain, dir: &Path) -> RunningServer {
    server_with(chain, chain.direct_settings(dir.join("store.sqlite")))
}

/// How a test deployment settles.
enum Settle {
    /// With the relayer key.
    Direct,
    /// Through the official facilitator, failing as said, with this settle timeout.
    Facilitator(FacilitatorFault, Duration),
}

/// A deployment on a fresh anvil selling the top seller's audit, and a payer with 1 USDC.
struct Audit {
    chain: PayChain,
    _facilitator: Option<Facilitator>,
    _dir: tempfile::TempDir,
    store: std::path::PathBuf,
    _server: RunningServer,
    url: String,
    accepted: Value,
    payer: PrivateKeySigner,
}

async fn audit_deployment(settle: Settle) -> Audit {
    let chain = PayChain::start().await.unwrap();
    let dir = tempfile::tempdir().unwrap();
    let store = dir.path().join("store.sqlite");
    let (facilitator, server) = match settle {
        Settle::Direct => (None, paid_server(&chain, dir.path())),
        Settle::Facilitator(fault, timeout) => {
            let facilitator = Facilitator::start(&chain, fault).await.unwrap();
            let server = server_with(&chain, facilitator.settings(&chain, store.clone(), timeout));
            (Some(facilitator), server)
        }
    };
    let url = format!("{}/audit/{}", server.base, top_seller(&server.base).await);
    let accepted = terms(&url).await["accepts"][0].clone();
    let payer = funded_payer(&chain, 1_000_000).await;
    Audit { chain, _facilitator: facilitator, _dir: dir, store, _server: server, url, accepted, payer }
}

async fn top_seller(base: &str) -> String {
    let lb: Value = reqwest::get(format!("{base}/leaderboard?limit=1")).await.unwrap().json().await.unwrap();
    lb["results"][0]["payTo"].as_str().unwrap().to_owned()
}

/// The v2 terms of a 402.
async fn terms(url: &str) -> Value {
    let resp = reqwest::get(url).await.unwrap();
    assert_eq!(resp.status(), StatusCode::PAYMENT_REQUIRED);
    let header = resp.headers()["payment-required"].to_str().unwrap().to_owned();
    serde_json::from_slice(&decode_base64(&header).unwrap()).unwrap()
}

/// A nonce no other payment of this process uses (a wallet draws 32 random bytes; this is as
/// unique and repeatable enough for tests).
fn fresh_nonce() -> B256 {
    static NEXT: std::sync::atomic::AtomicU64 = std::sync::atomic::AtomicU64::new(0);
    let n = NEXT.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
    alloy::primitives::keccak256(format!("{}-{n}-{}", std::process::id(), now()))
}

/// What a buyer signs, before any tampering.
#[derive(Debug, Clone)]
struct Payment {
    from: Address,
    to: Address,
    value: u64,
    valid_after: u64,
    valid_before: u64,
    nonce: B256,
}

impl Payment {
    fn new(from: Address, to: Address) -> Self {
        Self { from, to, value: PRICE, valid_after: 0, valid_before: now() + 60, nonce: fresh_nonce() }
    }

    fn message(&self) -> TransferWithAuthorization {
        TransferWithAuthorization {
            from: self.from,
            to: self.to,
            value: U256::from(self.value),
            validAfter: U256::from(self.valid_after),
            validBefore: U256::from(self.valid_before),
            nonce: self.nonce,
        }
    }

    fn authorization(&self) -> Value {
        json!({
            "from": self.from, "to": self.to, "value": self.value.to_string(),
            "validAfter": self.valid_after.to_string(), "validBefore": self.valid_before.to_string(),
            "nonce": self.nonce,
        })
    }
}

/// A v2 `PAYMENT-SIGNATURE` for `accepted`, signed by `signer`.
fn v2_header(signer: &PrivateKeySigner, p: &Payment, accepted: &Value, extensions: Option<Value>) -> String {
    v2_header_with(&sign_authorization(signer, &p.message()), p, accepted, extensions)
}

/// A v2 `PAYMENT-SIGNATURE` for `accepted` carrying `signature` as it is.
fn v2_header_with(signature: &[u8], p: &Payment, accepted: &Value, extensions: Option<Value>) -> String {
    let signature = alloy::hex::encode_prefixed(signature);
    let mut payload = json!({
        "x402Version": 2,
        "payload": {"signature": signature, "authorization": p.authorization()},
        "accepted": accepted,
    });
    if let Some(ext) = extensions {
        payload["extensions"] = ext;
    }
    encode_base64(&serde_json::to_vec(&payload).unwrap())
}

/// A v1 `X-PAYMENT` on `network`.
fn v1_header(signer: &PrivateKeySigner, p: &Payment, network: &str) -> String {
    let signature = alloy::hex::encode_prefixed(sign_authorization(signer, &p.message()));
    let payload = json!({
        "x402Version": 1, "scheme": "exact", "network": network,
        "payload": {"signature": signature, "authorization": p.authorization()},
    });
    encode_base64(&serde_json::to_vec(&payload).unwrap())
}

struct Answer {
    status: StatusCode,
    body: Value,
    settlement: Option<Value>,
    error: Option<String>,
}

async fn pay(url: &str, header: (&str, &str)) -> Answer {
    let resp = reqwest::Client::new().get(url).header(header.0, header.1).send().await.unwrap();
    let status = resp.status();
    let decode = |name: &str| {
        resp.headers()
            .get(name)
            .map(|v| serde_json::from_slice::<Value>(&decode_base64(v.to_str().unwrap()).unwrap()).unwrap())
    };
    let settlement = decode("payment-response");
    let error = decode("payment-required").and_then(|t| t["error"].as_str().map(str::to_owned));
    let body: Value = resp.json().await.unwrap_or(Value::Null);
    Answer { status, body, settlement, error }
}

async fn funded_payer(chain: &PayChain, amount: u64) -> PrivateKeySigner {
    let signer = PrivateKeySigner::random();
    chain.fund(signer.address(), amount).await.unwrap();
    signer
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_paid_audit_settles_once_on_chain_and_a_replay_is_refused() {
    let chain = PayChain::start().await.unwrap();
    let dir = tempfile::tempdir().unwrap();
    let server = paid_server(&chain, dir.path());
    let seller = top_seller(&server.base).await;
    let url = format!("{}/audit/{seller}", server.base);

    // The terms: v1 in the body, v2 in the header, both the configured network and address.
    let resp = reqwest::get(&url).await.unwrap();
    assert_eq!(resp.status(), StatusCode::PAYMENT_REQUIRED);
    let v1: Value = resp.json().await.unwrap();
    assert_eq!(v1["accepts"][0]["network"], "base");
    assert_eq!(v1["accepts"][0]["maxAmountRequired"], PRICE.to_string());
    let t = terms(&url).await;
    let accepted = &t["accepts"][0];
    assert_eq!(accepted["network"], "eip155:8453");
    assert_eq!(accepted["payTo"], alloy::hex::encode_prefixed(chain.pay_to));
    assert!(t["extensions"]["payment-identifier"].is_object(), "payment-identifier is offered");
    // The terms are a signed x402 offer, by the operator's key, of exactly these terms.
    let offer: Signed<OfferPayload> =
        serde_json::from_value(t["extensions"]["offer-receipt"]["info"]["offers"][0].clone()).unwrap();
    assert_eq!(offer_signer(&offer), Ok(chain.operator.address()));
    assert_eq!((offer.payload.amount.as_str(), offer.payload.network.as_str()), ("250000", "eip155:8453"));
    assert_eq!(offer.payload.pay_to, alloy::hex::encode_prefixed(chain.pay_to));

    let payer = funded_payer(&chain, 1_000_000).await;
    let p = Payment::new(payer.address(), chain.pay_to);
    let header = v2_header(&payer, &p, accepted, None);
    let paid = pay(&url, ("payment-signature", &header)).await;
    assert_eq!(paid.status, StatusCode::OK, "{}", paid.body);
    assert_eq!(paid.body["agentAddress"], seller);
    assert_eq!(paid.body["billed"], "paid");
    assert_eq!(paid.body["score"]["gated"], false);
    let settlement = paid.settlement.expect("a PAYMENT-RESPONSE");
    assert_eq!(settlement["success"], true);
    assert_eq!(settlement["network"], "eip155:8453");
    assert_eq!(settlement["payer"], alloy::hex::encode_prefixed(payer.address()));
    assert!(settlement["transaction"].as_str().unwrap().len() == 66);
    // A signed x402 receipt: the operator's key, this payer, this resource, this transaction.
    let receipt: Signed<ReceiptPayload> =
        serde_json::from_value(settlement["extensions"]["offer-receipt"]["info"]["receipt"].clone()).unwrap();
    assert_eq!(receipt_signer(&receipt), Ok(chain.operator.address()));
    assert_eq!(receipt.payload.payer, alloy::hex::encode_prefixed(payer.address()));
    assert_eq!(receipt.payload.resource_url, url);
    assert_eq!(receipt.payload.transaction, settlement["transaction"].as_str().unwrap());
    assert!(receipt.payload.issued_at.abs_diff(now()) < 60);
    assert_eq!(chain.balance(payer.address()).await.unwrap(), U256::from(1_000_000 - PRICE));
    assert_eq!(chain.balance(chain.pay_to).await.unwrap(), U256::from(PRICE));

    // The same payment again: refused, nothing moves.
    let replay = pay(&url, ("payment-signature", &header)).await;
    assert_eq!(replay.status, StatusCode::PAYMENT_REQUIRED);
    assert_eq!(replay.error.as_deref(), Some("duplicate_settlement"));
    assert_eq!(chain.balance(payer.address()).await.unwrap(), U256::from(1_000_000 - PRICE));

    let status: Value = reqwest::get(format!("{}/status", server.base)).await.unwrap().json().await.unwrap();
    assert_eq!(status["payments"]["x402Enabled"], true, "{status}");

    // The ledger is durable: after a restart the replay is still refused.
    drop(server);
    let server = paid_server(&chain, dir.path());
    let replay = pay(&format!("{}/audit/{seller}", server.base), ("payment-signature", &header)).await;
    assert_eq!(replay.status, StatusCode::PAYMENT_REQUIRED);
    assert_eq!(replay.error.as_deref(), Some("duplicate_settlement"));
    assert_eq!(chain.balance(chain.pay_to).await.unwrap(), U256::from(PRICE));
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn attacks_get_no_answer_and_move_no_money() {
    let audit = audit_deployment(Settle::Direct).await;
    let Audit { chain, url, accepted, payer, .. } = &audit;
    let attacker = PrivateKeySigner::random();
    let fresh = || Payment::new(payer.address(), chain.pay_to);

    // Each case: (name, header name and value, expected x402 reason).
    let mut cases: Vec<(&str, (&str, String), &str)> = Vec::new();
    let p = Payment { value: 1, ..fresh() };
    cases.push((
        "amount lowered",
        ("payment-signature", v2_header(payer, &p, accepted, None)),
        "invalid_exact_evm_payload_authorization_value_mismatch",
    ));
    let mut cheap = accepted.clone();
    cheap["amount"] = json!("1");
    cases.push((
        "accepted terms lowered",
        ("payment-signature", v2_header(payer, &Payment { value: 1, ..fresh() }, &cheap, None)),
        "invalid_payment_requirements",
    ));
    let p = Payment { to: attacker.address(), ..fresh() };
    cases.push((
        "payTo redirected",
        ("payment-signature", v2_header(payer, &p, accepted, None)),
        "invalid_exact_evm_payload_recipient_mismatch",
    ));
    let mut elsewhere = accepted.clone();
    elsewhere["network"] = json!("eip155:84532");
    cases.push((
        "network switched",
        ("payment-signature", v2_header(payer, &fresh(), &elsewhere, None)),
        "invalid_network",
    ));
    let p = fresh();
    let mut forged: Value =
        serde_json::from_slice(&decode_base64(&v2_header(payer, &p, accepted, None)).unwrap()).unwrap();
    forged["payload"]["authorization"]["value"] = json!("2500000");
    forged["accepted"]["amount"] = json!("2500000");
    cases.push((
        "signed amount changed after signing",
        ("payment-signature", encode_base64(&serde_json::to_vec(&forged).unwrap())),
        "invalid_payment_requirements",
    ));
    let p = fresh();
    let mut forged: Value =
        serde_json::from_slice(&decode_base64(&v2_header(payer, &p, accepted, None)).unwrap()).unwrap();
    forged["payload"]["authorization"]["from"] = json!(attacker.address());
    cases.push((
        "someone else's payer named",
        ("payment-signature", encode_base64(&serde_json::to_vec(&forged).unwrap())),
        "invalid_exact_evm_payload_signature",
    ));
    cases.push((
        "signed by another key",
        ("payment-signature", v2_header(&attacker, &fresh(), accepted, None)),
        "invalid_exact_evm_payload_signature",
    ));
    let p = Payment { value: PRICE - 1, ..fresh() };
    cases.push((
        "v1 underpayment",
        ("x-payment", v1_header(payer, &p, "base")),
        "invalid_exact_evm_payload_authorization_value",
    ));
    let p = Payment { valid_before: now() - 1, ..fresh() };
    cases.push((
        "expired",
        ("payment-signature", v2_header(payer, &p, accepted, None)),
        "invalid_exact_evm_payload_authorization_valid_before",
    ));
    let p = Payment { valid_before: now() + 3, ..fresh() };
    cases.push((
        "expiring before it could settle",
        ("payment-signature", v2_header(payer, &p, accepted, None)),
        "invalid_exact_evm_payload_authorization_valid_before",
    ));
    let p = Payment { valid_after: now() + 600, valid_before: now() + 660, ..fresh() };
    cases.push((
        "not yet valid",
        ("payment-signature", v2_header(payer, &p, accepted, None)),
        "invalid_exact_evm_payload_authorization_valid_after",
    ));
    let broke = PrivateKeySigner::random();
    let p = Payment::new(broke.address(), chain.pay_to);
    cases.push(("unfunded payer", ("payment-signature", v2_header(&broke, &p, accepted, None)), "insufficient_funds"));
    // A nonce the payer already used on chain (settled elsewhere).
    let used = fresh();
    chain.settle_signed(payer, &Payment { to: chain.pay_to, ..used.clone() }.message()).await.unwrap();
    let spent = chain.balance(payer.address()).await.unwrap();
    cases.push((
        "nonce already used on chain",
        ("payment-signature", v2_header(payer, &used, accepted, None)),
        "invalid_transaction_state",
    ));
    cases.push(("not base64 JSON", ("payment-signature", "bm90IGpzb24".to_owned()), "invalid_payload"));

    for (name, (header, value), reason) in &cases {
        let answer = pay(url, (header, value)).await;
        assert_eq!(answer.status, StatusCode::PAYMENT_REQUIRED, "{name}: {}", answer.body);
        assert_eq!(answer.error.as_deref(), Some(*reason), "{name}");
        assert!(answer.body["agentAddress"].is_null(), "{name}: no answer");
    }
    assert_eq!(chain.balance(payer.address()).await.unwrap(), spent, "no attack moved the payer's money");
    assert_eq!(chain.balance(chain.pay_to).await.unwrap(), U256::from(used.value), "only the direct transfer");
    assert_eq!(chain.balance(attacker.address()).await.unwrap(), U256::ZERO);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn concurrent_copies_of_one_payment_get_one_answer_and_identifiers_recover_it() {
    let audit = audit_deployment(Settle::Direct).await;
    let Audit { chain, url, accepted, payer, .. } = &audit;

    let header = v2_header(payer, &Payment::new(payer.address(), chain.pay_to), accepted, None);
    let mut copies = tokio::task::JoinSet::new();
    for _ in 0..12 {
        let (url, header) = (url.clone(), header.clone());
        copies.spawn(async move { pay(&url, ("payment-signature", &header)).await });
    }
    let answers: Vec<Answer> = copies.join_all().await;
    let ok = answers.iter().filter(|a| a.status == StatusCode::OK).count();
    assert_eq!(ok, 1, "exactly one paid answer");
    assert!(
        answers
            .iter()
            .filter(|a| a.status != StatusCode::OK)
            .all(|a| a.status == StatusCode::PAYMENT_REQUIRED && a.error.as_deref() == Some("duplicate_settlement"))
    );
    assert_eq!(chain.balance(payer.address()).await.unwrap(), U256::from(1_000_000 - PRICE));

    // payment-identifier: the same payment and id again gets the same answer, charged once.
    let id = json!({"payment-identifier": {"info": {"required": false, "id": "order_0001_abcdefghij"}}});
    let header = v2_header(payer, &Payment::new(payer.address(), chain.pay_to), accepted, Some(id.clone()));
    let first = pay(url, ("payment-signature", &header)).await;
    let again = pay(url, ("payment-signature", &header)).await;
    assert_eq!((first.status, again.status), (StatusCode::OK, StatusCode::OK));
    assert_eq!(first.body, again.body);
    assert_eq!(first.settlement, again.settlement);
    assert_eq!(chain.balance(payer.address()).await.unwrap(), U256::from(1_000_000 - 2 * PRICE));
    // Concurrent copies carrying one payment-identifier: each gets the one answer, or 409 with
    // Retry-After while it is being produced; charged once.
    let busy = json!({"payment-identifier": {"info": {"required": false, "id": "order_0003_concurrent"}}});
    let header = v2_header(payer, &Payment::new(payer.address(), chain.pay_to), accepted, Some(busy));
    let mut copies = tokio::task::JoinSet::new();
    for _ in 0..8 {
        let (url, header) = (url.clone(), header.clone());
        copies.spawn(async move {
            let resp = reqwest::Client::new().get(&url).header("payment-signature", &header).send().await.unwrap();
            let retry_after = resp.headers().contains_key("retry-after");
            (resp.status(), retry_after, resp.text().await.unwrap())
        });
    }
    let answers = copies.join_all().await;
    let bodies: std::collections::BTreeSet<&String> =
        answers.iter().filter(|(s, _, _)| *s == StatusCode::OK).map(|(_, _, b)| b).collect();
    assert_eq!(bodies.len(), 1, "one answer, however many copies got it");
    for (status, retry_after, body) in &answers {
        assert!(
            *status == StatusCode::OK
                || (*status == StatusCode::CONFLICT && *retry_after && body.contains("payment_in_progress")),
            "{status} {body}"
        );
    }
    assert_eq!(chain.balance(payer.address()).await.unwrap(), U256::from(1_000_000 - 3 * PRICE));
    // A lost answer is recovered with its payment-identifier even after the authorization expired.
    let lost_id = json!({"payment-identifier": {"info": {"required": false, "id": "order_0002_lost_answer"}}});
    let short = Payment { valid_before: now() + 9, ..Payment::new(payer.address(), chain.pay_to) };
    let header = v2_header(payer, &short, accepted, Some(lost_id));
    let paid = pay(url, ("payment-signature", &header)).await;
    assert_eq!(paid.status, StatusCode::OK);
    tokio::time::sleep(Duration::from_secs(10)).await;
    let recovered = pay(url, ("payment-signature", &header)).await;
    assert_eq!(
        (recovered.status, &recovered.body, &recovered.settlement),
        (StatusCode::OK, &paid.body, &paid.settlement)
    );
    assert_eq!(chain.balance(payer.address()).await.unwrap(), U256::from(1_000_000 - 4 * PRICE));
    // The same id on another payment: a conflict, nothing charged.
    let other = v2_header(payer, &Payment::new(payer.address(), chain.pay_to), accepted, Some(id));
    let conflict = pay(url, ("payment-signature", &other)).await;
    assert_eq!(conflict.status, StatusCode::CONFLICT);
    assert_eq!(conflict.body["error"]["code"], "payment_identifier_reused");
    assert_eq!(chain.balance(payer.address()).await.unwrap(), U256::from(1_000_000 - 4 * PRICE));
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn unanswerable_requests_are_refused_before_payment() {
    let chain = PayChain::start().await.unwrap();
    let dir = tempfile::tempdir().unwrap();
    let server = paid_server(&chain, dir.path());
    let payer = funded_payer(&chain, 1_000_000).await;
    // An unindexed wallet: 404, no terms.
    let resp = reqwest::get(format!("{}/audit/0x00000000000000000000000000000000000000aa", server.base)).await.unwrap();
    assert_eq!(resp.status(), StatusCode::NOT_FOUND);
    assert!(!resp.headers().contains_key("payment-required"));
    // The live re-score on a deployment without live sources: no terms (it could not deliver),
    // and a payment sent anyway is neither verified nor settled.
    let seller = top_seller(&server.base).await;
    let url = format!("{}/score/{seller}?live=1", server.base);
    let resp = reqwest::get(&url).await.unwrap();
    assert_eq!(resp.status(), StatusCode::SERVICE_UNAVAILABLE);
    assert!(!resp.headers().contains_key("payment-required"));
    let body: Value = resp.json().await.unwrap();
    assert_eq!(body["error"]["code"], "paid_route_unavailable");
    assert!(body["error"]["message"].as_str().unwrap().contains("AGENTREP_LIVE_SOURCES"), "{body}");
    let audit_terms = terms(&format!("{}/audit/{seller}", server.base)).await["accepts"][0].clone();
    let p = Payment { value: 50_000, ..Payment::new(payer.address(), chain.pay_to) };
    let answer = pay(&url, ("payment-signature", &v2_header(&payer, &p, &audit_terms, None))).await;
    assert_eq!(answer.status, StatusCode::SERVICE_UNAVAILABLE);
    assert_eq!(answer.body["error"]["code"], "paid_route_unavailable");
    assert_eq!(chain.balance(payer.address()).await.unwrap(), U256::from(1_000_000));
}

/// Runs a buyer script; returns its one JSON line.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn official_buyers_pay_for_an_audit() {
    let chain = PayChain::start().await.unwrap();
    let dir = tempfile::tempdir().unwrap();
    let server = paid_server(&chain, dir.path());
    let seller = top_seller(&server.base).await;
    let url = format!("{}/audit/{seller}", server.base);
    let mut received = U256::ZERO;
    for official in OfficialBuyer::ALL {
        let name = official.name();
        let payer = funded_payer(&chain, 1_000_000).await;
        let out = official.pay(&url, &payer, PRICE).await;
        assert_eq!(out["status"], 200, "{name}: {out}");
        assert_eq!(out["body"]["agentAddress"], seller, "{name}");
        assert_eq!(out["settlement"]["success"], true, "{name}: {out}");
        assert_eq!(
            out["settlement"]["payer"].as_str().map(str::to_lowercase),
            Some(alloy::hex::encode_prefixed(payer.address())),
            "{name}"
        );
        assert_eq!(chain.balance(payer.address()).await.unwrap(), U256::from(1_000_000 - PRICE), "{name} paid once");
        received += U256::from(PRICE);
        assert_eq!(chain.balance(chain.pay_to).await.unwrap(), received, "{name}");
    }
}

/// Polls the ledger file until `payment`'s row leaves the open states, up to `limit`.
async fn settled_state(store: &Path, limit: Duration) -> Vec<PaymentState> {
    let deadline = std::time::Instant::now() + limit;
    loop {
        let ledger = agentrep_store::Store::open(store).unwrap();
        let open = ledger.open_payments().unwrap();
        let revenue = ledger.revenue().unwrap();
        if open.is_empty() || std::time::Instant::now() > deadline {
            let mut states = vec![PaymentState::Settled; revenue.settled as usize];
            states.extend(std::iter::repeat_n(PaymentState::Failed, revenue.failed as usize));
            states.extend(open.iter().map(|r| r.state));
            return states;
        }
        tokio::time::sleep(Duration::from_millis(200)).await;
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_official_facilitator_settles_v1_and_v2_payments() {
    let audit = audit_deployment(Settle::Facilitator(FacilitatorFault::None, Duration::from_secs(10))).await;
    let Audit { chain, store, url, accepted, payer, .. } = &audit;

    let v2 = v2_header(payer, &Payment::new(payer.address(), chain.pay_to), accepted, None);
    let paid = pay(url, ("payment-signature", &v2)).await;
    assert_eq!(paid.status, StatusCode::OK, "{}", paid.body);
    assert_eq!(paid.settlement.as_ref().unwrap()["success"], true);
    let v1 = v1_header(payer, &Payment::new(payer.address(), chain.pay_to), "base");
    let paid = pay(url, ("x-payment", &v1)).await;
    assert_eq!(paid.status, StatusCode::OK, "{}", paid.body);
    assert_eq!(chain.balance(payer.address()).await.unwrap(), U256::from(1_000_000 - 2 * PRICE));
    // The facilitator's own /verify refuses what it would not settle: an unfunded payer.
    let broke = PrivateKeySigner::random();
    let refused = pay(
        url,
        ("payment-signature", &v2_header(&broke, &Payment::new(broke.address(), chain.pay_to), accepted, None)),
    )
    .await;
    assert_eq!(refused.status, StatusCode::PAYMENT_REQUIRED);
    assert_eq!(settled_state(store, Duration::ZERO).await, vec![PaymentState::Settled; 2]);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_facilitator_that_goes_silent_after_settling_charges_once_and_is_reconciled() {
    let audit = audit_deployment(Settle::Facilitator(FacilitatorFault::SettleHangs, Duration::from_secs(3))).await;
    let Audit { chain, store, url, accepted, payer, .. } = &audit;
    let header = v2_header(payer, &Payment::new(payer.address(), chain.pay_to), accepted, None);

    // Unknown is not failed: the answer is delivered, marked pending, and not asked for again.
    let resp = reqwest::Client::new().get(url).header("payment-signature", &header).send().await.unwrap();
    assert_eq!(resp.status(), StatusCode::OK);
    assert_eq!(resp.headers()["x-agentrep-settlement"], "pending");
    assert!(resp.headers()["access-control-expose-headers"].to_str().unwrap().contains("X-AGENTREP-SETTLEMENT"));
    assert!(!resp.headers().contains_key("payment-response"));
    let again = pay(url, ("payment-signature", &header)).await;
    assert_eq!((again.status, again.error.as_deref()), (StatusCode::PAYMENT_REQUIRED, Some("duplicate_settlement")));
    assert_eq!(chain.balance(payer.address()).await.unwrap(), U256::from(1_000_000 - PRICE), "charged once");
    // Reconciliation finds the facilitator's transaction on chain.
    assert_eq!(settled_state(store, Duration::from_secs(20)).await, vec![PaymentState::Settled]);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_facilitator_failing_mid_settle_charges_nothing_and_expires_unsettled() {
    let audit = audit_deployment(Settle::Facilitator(FacilitatorFault::Settle500, Duration::from_secs(3))).await;
    let Audit { chain, store, url, accepted, payer, .. } = &audit;
    // Valid for 8 seconds: long enough to pass verification, short enough to expire in the test.
    let p = Payment { valid_before: now() + 8, ..Payment::new(payer.address(), chain.pay_to) };
    let answer = pay(url, ("payment-signature", &v2_header(payer, &p, accepted, None))).await;
    assert_eq!(answer.status, StatusCode::OK, "a 5xx from the facilitator is unknown, not failed");
    assert_eq!(settled_state(store, Duration::from_secs(25)).await, vec![PaymentState::Failed]);
    assert_eq!(chain.balance(payer.address()).await.unwrap(), U256::from(1_000_000), "nothing was charged");
}

/// Pays for `url` (its own terms) with a fresh authorization from `payer`; returns the answer.
async fn buy(url: &str, payer: &PrivateKeySigner, to: Address, body: Option<&Value>) -> (StatusCode, Value) {
    let client = reqwest::Client::new();
    let request = |header: Option<String>| {
        let mut r = match body {
            Some(b) => client.post(url).json(b),
            None => client.get(url),
        };
        if let Some(h) = header {
            r = r.header("payment-signature", h);
        }
        r
    };
    let first = request(None).send().await.unwrap();
    assert_eq!(first.status(), StatusCode::PAYMENT_REQUIRED, "{url}");
    let terms: Value =
        serde_json::from_slice(&decode_base64(first.headers()["payment-required"].to_str().unwrap()).unwrap()).unwrap();
    let accepted = terms["accepts"][0].clone();
    let value: u64 = accepted["amount"].as_str().unwrap().parse().unwrap();
    let p = Payment { value, ..Payment::new(payer.address(), to) };
    let resp = request(Some(v2_header(payer, &p, &accepted, None))).send().await.unwrap();
    (resp.status(), resp.json().await.unwrap_or(Value::Null))
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_paid_reports_are_sold_and_the_revenue_counts_them() {
    let chain = PayChain::start().await.unwrap();
    let dir = tempfile::tempdir().unwrap();
    let server = paid_server(&chain, dir.path());
    let base = &server.base;
    let seller = top_seller(base).await;
    let top: Value = reqwest::get(format!("{base}/deployers/top?limit=1")).await.unwrap().json().await.unwrap();
    let deployer = top["deployers"][0]["address"].as_str().unwrap().to_owned();
    let (alice, bob) = (funded_payer(&chain, 10_000_000).await, funded_payer(&chain, 10_000_000).await);
    let to = chain.pay_to;

    let (status, risk) = buy(&format!("{base}/risk-report/{seller}"), &alice, to, None).await;
    assert_eq!(status, StatusCode::OK, "{risk}");
    assert!(["AVOID", "CAUTION", "OK"].contains(&risk["verdict"].as_str().unwrap()));
    assert_eq!(risk["attestation"]["signed"], true, "a signed attestation: {risk}");
    assert_eq!(risk["attestation"]["payload"]["operator"], alloy::hex::encode_prefixed(chain.operator.address()));
    let (status, risk) = buy(&format!("{base}/risk-report/{deployer}"), &bob, to, None).await;
    assert_eq!(status, StatusCode::OK, "{risk}");
    assert_eq!(risk["deployerVerdict"], top["deployers"][0]["verdict"]);

    let unknown = "0x00000000000000000000000000000000000000aa";
    let batch = json!({"addresses": [seller, unknown, deployer]});
    let (status, audits) = buy(&format!("{base}/audit-batch"), &alice, to, Some(&batch)).await;
    assert_eq!(status, StatusCode::OK, "{audits}");
    assert_eq!(audits["audits"][0]["agentAddress"], seller);
    assert!(audits["notIndexed"].as_array().unwrap().contains(&json!(unknown)));
    // Nothing indexed, or too many: refused before any terms.
    let none = reqwest::Client::new()
        .post(format!("{base}/audit-batch"))
        .json(&json!({"addresses": [unknown]}))
        .send()
        .await
        .unwrap();
    assert_eq!(none.status(), StatusCode::NOT_FOUND);
    let eleven: Vec<String> = (0..11).map(|i| format!("0x{:040x}", i + 1)).collect();
    let many = reqwest::Client::new()
        .post(format!("{base}/audit-batch"))
        .json(&json!({"addresses": eleven}))
        .send()
        .await
        .unwrap();
    assert_eq!(many.status(), StatusCode::BAD_REQUEST);

    let (status, proofs) = buy(&format!("{base}/proofs/export"), &bob, to, None).await;
    assert_eq!(status, StatusCode::OK);
    let free: Value = reqwest::get(format!("{base}/proofs")).await.unwrap().json().await.unwrap();
    let listed: u64 = free["availableTypes"].as_array().unwrap().iter().map(|t| t["count"].as_u64().unwrap()).sum();
    assert_eq!(proofs["count"].as_u64().unwrap(), listed, "every proof, uncapped");

    let (status, export) = buy(&format!("{base}/clawd/export"), &alice, to, None).await;
    assert_eq!(status, StatusCode::OK);
    assert_eq!(export["platform"], "clanker");
    assert!(export["count"].as_u64().unwrap() > 0);
    let nowhere = reqwest::get(format!("{base}/clawd/export?platform=nowhere")).await.unwrap();
    assert_eq!(nowhere.status(), StatusCode::NOT_FOUND, "an unknown platform quotes no terms");
    let (status, creator) = buy(&format!("{base}/clawd/creator-audit/{deployer}"), &bob, to, None).await;
    assert_eq!(status, StatusCode::OK);
    assert_eq!(
        creator["tokensLaunched"].as_u64().unwrap() as usize,
        creator["deployer"]["launches"].as_array().unwrap().len()
    );

    // A place snapshot: this build has no business source, so no terms are quoted.
    let url = format!("{base}/snapshot/ChIJN1t_tDeuEmsRUsoyG83frY4");
    let refused = reqwest::get(&url).await.unwrap();
    assert_eq!(refused.status(), StatusCode::SERVICE_UNAVAILABLE);
    assert!(!refused.headers().contains_key("payment-required"));
    assert_eq!(refused.json::<Value>().await.unwrap()["error"]["code"], "no_business_source");

    let spent = 500_000 * 2 + 1_000_000 * 2 + 500_000 * 2;
    assert_eq!(chain.balance(to).await.unwrap(), U256::from(spent), "six answers paid");
    let revenue: Value = reqwest::get(format!("{base}/revenue")).await.unwrap().json().await.unwrap();
    assert_eq!(revenue["settledPayments"], 6);
    assert_eq!(revenue["uniqueBuyers"], 2);
    assert!((revenue["settledUsdc"].as_f64().unwrap() - spent as f64 / 1e6).abs() < 1e-9);
    let buyers: Value = reqwest::get(format!("{base}/revenue/buyers")).await.unwrap().json().await.unwrap();
    assert_eq!((buyers["uniqueBuyers"].clone(), buyers["buyers30d"].clone()), (json!(2), json!(2)));
}
