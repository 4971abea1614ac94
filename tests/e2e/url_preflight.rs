//! The URL preflight (`GET /preflight?url=`, `POST /preflight`) and the original service's other
//! live forms (`/preflight?address=`, `flags`, `/audit-bulk`, `/verify-spec`, `/me`'s signer),
//! against the real server on the shared world: a listed URL resolves to its seller; a 402 that
//! pays another wallet is a decoy, one that asks more than the listing a price trap, another
//! network or asset a caution; an unlisted URL is answered with what can be known.

use agentrep_publish::wire::ListingRowV1;
use agentrep_tests::{RunningServer, shared_world};
use base64::Engine;
use reqwest::StatusCode;
use serde_json::{Value, json};

fn listings() -> Vec<ListingRowV1> {
    let current = shared_world().snapshots().join("current");
    std::fs::read_to_string(current.join("index/listings.jsonl"))
        .unwrap()
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect()
}

async fn get(url: &str) -> (StatusCode, Value) {
    let resp = reqwest::get(url).await.unwrap();
    (resp.status(), resp.json().await.unwrap_or(Value::Null))
}

async fn post(url: &str, body: &Value) -> (StatusCode, Value) {
    let resp = reqwest::Client::new().post(url).json(body).send().await.unwrap();
    (resp.status(), resp.json().await.unwrap_or(Value::Null))
}

/// A v2 `PaymentRequired` for `url` paying `pay_to` `amount` on `network` in `asset`.
fn v2(url: &str, pay_to: &str, amount: &str, network: &str, asset: &str) -> Value {
    json!({"x402Version": 2, "error": "PAYMENT-SIGNATURE header is required",
        "resource": {"url": url, "description": "", "mimeType": "application/json"},
        "accepts": [{"scheme": "exact", "network": network, "amount": amount, "asset": asset, "payTo": pay_to,
            "maxTimeoutSeconds": 60, "extra": {"name": "USD Coin", "version": "2"}}]})
}

fn codes(doc: &Value) -> Vec<&str> {
    doc["warnings"].as_array().unwrap().iter().map(|w| w["code"].as_str().unwrap()).collect()
}

#[tokio::test]
async fn a_listed_url_resolves_to_its_seller_and_its_402_is_checked_against_the_listing() {
    let s = RunningServer::start(&shared_world().snapshots());
    let all = listings();
    let l = all.iter().find(|l| l.price.parse::<u64>().unwrap() > 0).expect("a priced listing");
    let (status, doc) = get(&format!("{}/preflight?url={}", s.base, l.resource)).await;
    assert_eq!(status, StatusCode::OK, "{doc}");
    assert_eq!(doc["version"], "agentrep-url-preflight-v1");
    assert_eq!(doc["listed"], true);
    assert_eq!(doc["payTo"], l.seller.as_str());
    assert_eq!(doc["maxAmount"], l.price.as_str());
    let (_, by_address) = get(&format!("{}/preflight/{}", s.base, l.seller)).await;
    assert_eq!(doc["decision"], by_address["decision"], "an honest listing is its seller's decision");
    assert_eq!(doc["seller"]["flags"], by_address["flags"]);
    // The original's `flags` list is the shield's keys.
    let shield_keys: Vec<&Value> =
        by_address["trustShield"]["flags"].as_array().unwrap().iter().map(|f| &f["key"]).collect();
    assert_eq!(by_address["flags"].as_array().unwrap().iter().collect::<Vec<_>>(), shield_keys);
    // `?address=` is `/preflight/{address}`.
    assert_eq!(get(&format!("{}/preflight?address={}", s.base, l.seller)).await.1, by_address);

    let url = format!("{}/preflight", s.base);
    // The 402 the listing promises: nothing to warn about.
    let honest = v2(&l.resource, &l.pay_to, &l.price, &l.network, &l.asset);
    let (status, doc) = post(&url, &json!({"url": l.resource, "paymentRequired": honest})).await;
    assert_eq!(status, StatusCode::OK, "{doc}");
    assert!(codes(&doc).is_empty(), "{doc}");
    assert_eq!(doc["offers"][0]["acceptable"], true);
    // The same 402 as the v2 header the buyer received.
    let header = base64::engine::general_purpose::STANDARD.encode(honest.to_string());
    let (_, from_header) = post(&url, &json!({"url": l.resource, "paymentRequiredHeader": header})).await;
    assert_eq!(from_header, doc);
    // A decoy: another wallet than the listing's.
    let decoy = v2(&l.resource, "0x00000000000000000000000000000000000de0a1", &l.price, &l.network, &l.asset);
    let (_, doc) = post(&url, &json!({"url": l.resource, "paymentRequired": decoy})).await;
    assert_eq!((doc["decision"].as_str(), codes(&doc)), (Some("BLOCK"), vec!["decoy"]), "{doc}");
    assert_eq!(doc["payTo"], "0x00000000000000000000000000000000000de0a1", "the wallet judged is the one the 402 pays");
    // A price trap: more than the listing says.
    let more = (l.price.parse::<u64>().unwrap() * 3).to_string();
    let (_, doc) = post(
        &url,
        &json!({"url": l.resource, "paymentRequired": v2(&l.resource, &l.pay_to, &more, &l.network, &l.asset)}),
    )
    .await;
    assert_eq!((doc["decision"].as_str(), codes(&doc)), (Some("BLOCK"), vec!["price_trap"]), "{doc}");
    assert_eq!(doc["offers"][0]["acceptable"], false);
    // A network the listing does not name: caution at most.
    let (_, doc) = post(
        &url,
        &json!({"url": l.resource, "paymentRequired": v2(&l.resource, &l.pay_to, &l.price, "eip155:1", &l.asset)}),
    )
    .await;
    assert_eq!(codes(&doc), vec!["network_not_listed"], "{doc}");
    assert!(matches!(doc["decision"].as_str(), Some("CAUTION" | "BLOCK")), "{doc}");
    // The v1 body, with the network's v1 name.
    let v1 = json!({"x402Version": 1, "accepts": [{"scheme": "exact", "network": "base", "maxAmountRequired": l.price,
        "resource": l.resource, "payTo": l.pay_to, "asset": l.asset, "maxTimeoutSeconds": 60}]});
    let (_, doc) = post(&url, &json!({"url": l.resource, "paymentRequired": v1})).await;
    assert!(codes(&doc).is_empty(), "{doc}");
    // A 402 that names another resource than the URL asked: the URL asked is judged, and said so.
    let borrowed = v2("https://elsewhere.example/api", &l.pay_to, &l.price, &l.network, &l.asset);
    let (_, doc) = post(&url, &json!({"url": l.resource, "paymentRequired": borrowed})).await;
    assert_eq!(codes(&doc), vec!["resource_mismatch"], "{doc}");
    // Something that is no offer at all.
    let (_, doc) = post(&url, &json!({"url": l.resource, "paymentRequired": {"hello": 1}})).await;
    assert_eq!(codes(&doc), vec!["no_offer"], "{doc}");
}

#[tokio::test]
async fn an_unlisted_url_is_answered_with_what_can_be_known_and_bad_input_is_refused() {
    let s = RunningServer::start(&shared_world().snapshots());
    let l = listings().into_iter().next().unwrap();
    let host = reqwest::Url::parse(&l.resource).unwrap();
    let unlisted = format!("{}://{}/not-a-listed-path", host.scheme(), host.host_str().unwrap());
    let (status, doc) = get(&format!("{}/preflight?url={unlisted}", s.base)).await;
    assert_eq!(status, StatusCode::OK, "{doc}");
    assert_eq!((doc["listed"].as_bool(), codes(&doc)), (Some(false), vec!["unlisted"]), "{doc}");
    assert_eq!(doc["decision"], "CAUTION", "no payee named: the unindexed policy");
    assert!(doc["hostListings"].as_array().unwrap().iter().any(|h| h["resource"] == l.resource.as_str()), "{doc}");
    // With its 402, the wallet it names is judged (not indexed here: CAUTION, never PROCEED).
    let (_, doc) = post(
        &format!("{}/preflight", s.base),
        &json!({"url": unlisted, "paymentRequired": v2(&unlisted, "0x00000000000000000000000000000000000000b1", "1000", "eip155:8453", &l.asset)}),
    )
    .await;
    assert_eq!(doc["seller"]["indexed"], false, "{doc}");
    assert_eq!(doc["decision"], "CAUTION", "an unindexed payee: the unindexed policy");
    // An unlisted URL whose 402 pays an indexed seller: that seller's decision stands.
    let (_, doc) = post(
        &format!("{}/preflight", s.base),
        &json!({"url": unlisted, "paymentRequired": v2(&unlisted, &l.pay_to, "1000", "eip155:8453", &l.asset)}),
    )
    .await;
    let (_, by_address) = get(&format!("{}/preflight/{}", s.base, l.seller)).await;
    assert_eq!(doc["decision"], by_address["decision"], "{doc}");
    for bad in
        ["/preflight", "/preflight?url=ftp://x.example/a", "/preflight?url=x&address=0x1", "/preflight?address=0x12"]
    {
        let (status, doc) = get(&format!("{}{bad}", s.base)).await;
        assert_eq!(status, StatusCode::BAD_REQUEST, "{bad}: {doc}");
        assert!(doc["error"]["message"].as_str().is_some_and(|m| !m.is_empty()), "{doc}");
    }
    let (status, _) = post(&format!("{}/preflight", s.base), &json!({"paymentRequired": {}})).await;
    assert_eq!(status, StatusCode::BAD_REQUEST);
}

#[tokio::test]
async fn the_originals_live_forms_are_served() {
    let s = RunningServer::start(&shared_world().snapshots());
    let (status, spec) = get(&format!("{}/verify-spec", s.base)).await;
    assert_eq!(status, StatusCode::OK, "{spec}");
    assert_eq!(spec["eip712"]["domain"]["name"], "agentrep");
    assert_eq!(spec["eip712"]["primaryType"], "Attestation");
    assert_eq!(
        spec["typeString"],
        "Attestation(string version,string subjectType,bytes32 subject,uint8 score,uint64 timestamp,address operator,uint64 nonce)"
    );
    assert!(spec["verifyUrl"].as_str().unwrap().ends_with("/verify"));
    // `/audit-bulk` is `/audit-batch`: this deployment takes no payments, and both say so alike.
    let body = json!({"addresses": ["0x0000000000000000000000000000000000000001"]});
    let (bulk_status, bulk) = post(&format!("{}/audit-bulk", s.base), &body).await;
    let (batch_status, batch) = post(&format!("{}/audit-batch", s.base), &body).await;
    assert_eq!((bulk_status, &bulk["error"]["code"]), (batch_status, &batch["error"]["code"]), "{bulk} {batch}");
    let (_, me) = get(&format!("{}/me", s.base)).await;
    assert!(me["operator"].as_object().unwrap().contains_key("signedBy"), "{me}");
}

/// Every offer a client could pay is judged, and the answer is the lowest of them: an offer of an
/// unknown scheme naming a top seller lends it no standing (issue 52: a 402 that carried one beside
/// an `exact` offer paying a stranger 5 USDC was answered with the top seller's `PROCEED`).
#[tokio::test]
async fn every_offer_a_client_could_pay_is_judged_and_an_unreadable_one_lends_nothing() {
    let s = RunningServer::start(&shared_world().snapshots());
    let (_, board) = get(&format!("{}/leaderboard?limit=1", s.base)).await;
    let top = board["results"][0]["payTo"].as_str().expect("a ranked seller").to_owned();
    let (_, top_preflight) = get(&format!("{}/preflight/{top}", s.base)).await;
    assert_eq!(top_preflight["decision"], "PROCEED", "the test needs a seller with something to lend");
    let l = listings().into_iter().next().unwrap();
    let host = reqwest::Url::parse(&l.resource).unwrap();
    let unlisted = format!("{}://{}/never-listed", host.scheme(), host.host_str().unwrap());
    let stranger = "0x00000000000000000000000000000000005a1e57";
    let payment = json!({"x402Version": 2, "resource": {"url": unlisted},
        "accepts": [
            {"scheme": "deferred-magic", "network": "eip155:8453", "amount": "1", "asset": &l.asset, "payTo": top},
            {"scheme": "exact", "network": "eip155:8453", "amount": "5000000", "asset": &l.asset, "payTo": stranger,
             "maxTimeoutSeconds": 60}]});
    let (status, doc) =
        post(&format!("{}/preflight", s.base), &json!({"url": unlisted, "paymentRequired": payment})).await;
    assert_eq!(status, StatusCode::OK, "{doc}");
    assert_eq!(doc["decision"], "CAUTION", "the stranger is what a client would pay: {doc}");
    assert_eq!(doc["payTo"], stranger, "{doc}");
    assert_eq!(doc["offers"][0]["payable"], false);
    assert_eq!(doc["offers"][0]["decision"], Value::Null);
    assert_eq!(doc["offers"][1]["payable"], true);
    assert_eq!(doc["offers"][1]["decision"], "CAUTION");
    assert!(codes(&doc).contains(&"unreadable_offer"), "{doc}");
    assert_eq!(doc["maxAmount"], Value::Null, "an unlisted URL carries no maximum");

    // The top seller's own URL with its listed offer and a second, payable offer to the stranger:
    // the lowest decision of the two.
    let (_, top_doc) = get(&format!("{}/score/{top}", s.base)).await;
    let own = listings().into_iter().find(|r| r.seller == top).expect("the top seller's listing");
    let two = json!({"x402Version": 2, "accepts": [
        {"scheme": "exact", "network": &own.network, "amount": &own.price, "asset": &own.asset, "payTo": &own.pay_to},
        {"scheme": "exact", "network": &own.network, "amount": &own.price, "asset": &own.asset, "payTo": stranger}]});
    let (_, doc) = post(&format!("{}/preflight", s.base), &json!({"url": own.resource, "paymentRequired": two})).await;
    assert_eq!(doc["decision"], "BLOCK", "the second offer is a decoy: {doc} ({top_doc})");
    assert_eq!(doc["payTo"], stranger);
}
