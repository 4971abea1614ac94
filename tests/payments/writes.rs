//! Paid writes bought by the official `@x402/fetch` buyer on anvil (a sponsored slot, a webhook
//! extension, a rug alert, a creator slot), each refused before any terms when it cannot be sold;
//! and signed writes from smart wallets: an ERC-6492 signature of a wallet that does not exist
//! yet, and the ERC-1271 signature of the deployed wallet, checked on the payment node.

use agentrep_payments::verify::wrap_erc6492;
use agentrep_tests::buyers::pay_post;
use agentrep_tests::chain::paychain::WALLET_FACTORY;
use alloy::signers::SignerSync;

use super::*;

async fn post(url: &str, body: &Value) -> (u16, Value, bool) {
    let resp = reqwest::Client::new().post(url).json(body).send().await.unwrap();
    let (status, terms) = (resp.status().as_u16(), resp.headers().contains_key("payment-required"));
    (status, resp.json().await.unwrap_or(Value::Null), terms)
}

async fn get(url: &str) -> Value {
    reqwest::get(url).await.unwrap().json().await.unwrap()
}

/// The shared world's current scores file: (address, decision) of every scored seller.
fn decisions() -> Vec<(String, String)> {
    let csv = std::fs::read_to_string(shared_world().snapshots().join("current/scores.csv")).unwrap();
    let mut lines = csv.lines();
    let header: Vec<&str> = lines.next().unwrap().split(',').collect();
    let (a, d) =
        (header.iter().position(|h| *h == "address").unwrap(), header.iter().position(|h| *h == "decision").unwrap());
    lines
        .filter_map(|l| {
            let cols: Vec<&str> = l.split(',').collect();
            Some((cols.get(a)?.to_string(), cols.get(d)?.to_string()))
        })
        .collect()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn paid_writes_are_bought_with_the_official_buyer_and_change_no_score() {
    let chain = PayChain::start().await.unwrap();
    let dir = tempfile::tempdir().unwrap();
    let server = paid_server(&chain, dir.path());
    let base = server.base.clone();
    let payer = funded_payer(&chain, 100_000_000).await;
    let seller = top_seller(&base).await;
    let score_before = get(&format!("{base}/score/{seller}")).await;
    let board_before = get(&format!("{base}/leaderboard?limit=20")).await;

    // A sponsored slot: 25 USDC, listed apart, no score or rank moved.
    let out = pay_post(&format!("{base}/sponsor/{seller}"), &json!({}), &payer).await;
    assert_eq!((out["status"].clone(), out["settlement"]["success"].clone()), (json!(200), json!(true)), "{out}");
    assert!(out["body"]["sponsoredUntil"].is_string());
    assert_eq!(chain.balance(chain.pay_to).await.unwrap(), U256::from(25_000_000));
    let sponsored = get(&format!("{base}/sponsored")).await;
    assert_eq!(sponsored["sponsored"][0]["address"], seller, "{sponsored}");
    assert_eq!(get(&format!("{base}/score/{seller}")).await, score_before, "a slot changes no score");
    assert_eq!(get(&format!("{base}/leaderboard?limit=20")).await["results"], board_before["results"], "nor a rank");

    // A BLOCK wallet cannot buy one: refused before any terms.
    if let Some((blocked, _)) = decisions().into_iter().find(|(_, d)| d == "BLOCK") {
        let (status, refusal, terms) = post(&format!("{base}/sponsor/{blocked}"), &json!({})).await;
        assert_eq!(
            (status, refusal["error"]["code"].as_str(), terms),
            (409, Some("blocked_wallet"), false),
            "{refusal}"
        );
    }

    // A webhook extension: 30 more days after the free 30.
    let subscriber = alloy::hex::encode_prefixed(PrivateKeySigner::random().address());
    let hook = json!({ "subscriberAddr": subscriber, "watchAddr": seller, "webhookUrl": "http://93.184.215.14/hook" });
    let (status, subscribed, _) = post(&format!("{base}/webhook/subscribe"), &hook).await;
    assert_eq!(status, 200, "{subscribed}");
    let out = pay_post(&format!("{base}/webhook/extend"), &hook, &payer).await;
    assert_eq!(out["status"], 200, "{out}");
    let grace = chrono::DateTime::parse_from_rfc3339(subscribed["graceUntil"].as_str().unwrap()).unwrap();
    let paid = chrono::DateTime::parse_from_rfc3339(out["body"]["paidUntil"].as_str().unwrap()).unwrap();
    assert_eq!((paid - grace).num_days(), 30, "{out}");
    let list = get(&format!("{base}/webhook/list?for={subscriber}")).await;
    assert_eq!(list["subscriptions"][0]["paid_until"], out["body"]["paidUntil"], "{list}");
    let mut unknown = hook.clone();
    unknown["webhookUrl"] = json!("http://93.184.215.14/other");
    let (status, refusal, terms) = post(&format!("{base}/webhook/extend"), &unknown).await;
    assert_eq!((status, refusal["error"]["code"].as_str(), terms), (404, Some("unknown_subscription"), false));

    // A rug alert on an indexed token that is not rugged; a rugged one is refused unpaid.
    let top = get(&format!("{base}/deployers/top?limit=100")).await;
    let mut alive = None;
    let mut rugged = None;
    for d in top["deployers"].as_array().or(top["results"].as_array()).unwrap() {
        let profile = get(&format!("{base}/deployer/{}", d["address"].as_str().unwrap())).await;
        for t in profile["launches"].as_array().into_iter().flatten() {
            match t["outcome"].as_str() {
                Some("rugged") => rugged = rugged.or(t["token"].as_str().map(str::to_owned)),
                Some(_) => alive = alive.or(t["token"].as_str().map(str::to_owned)),
                None => {}
            }
        }
        if alive.is_some() && rugged.is_some() {
            break;
        }
    }
    let alert = json!({ "webhookUrl": "http://93.184.215.14/rug", "subscriberAddr": subscriber });
    let token = alive.expect("an indexed token that is not rugged");
    let out = pay_post(&format!("{base}/clawd/rug-alert/{token}"), &alert, &payer).await;
    assert_eq!(out["status"], 200, "{out}");
    assert_eq!(out["body"]["token"], token);
    assert!(out["body"]["secret"].as_str().unwrap().starts_with("whsec_"));
    if let Some(rugged) = rugged {
        let (status, refusal, terms) = post(&format!("{base}/clawd/rug-alert/{rugged}"), &alert).await;
        assert_eq!(
            (status, refusal["error"]["code"].as_str(), terms),
            (409, Some("already_rugged"), false),
            "{refusal}"
        );
    }
    let (status, refusal, _) = post(
        &format!("{base}/clawd/rug-alert/{token}"),
        &json!({ "webhookUrl": "http://10.0.0.1/", "subscriberAddr": subscriber }),
    )
    .await;
    assert_eq!(
        (status, refusal["error"]["code"].as_str()),
        (400, Some("invalid_webhookUrl")),
        "a private target, before terms"
    );

    // Every paid write settled once: 25 + 5 + 2.
    assert_eq!(chain.balance(chain.pay_to).await.unwrap(), U256::from(32_000_000));
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn smart_wallets_sign_receipts_before_and_after_they_exist() {
    let chain = PayChain::start().await.unwrap();
    let dir = tempfile::tempdir().unwrap();
    let server = paid_server(&chain, dir.path());
    let base = server.base.clone();
    let seller = top_seller(&base).await;
    let wallet = chain.smart_wallet(WALLET_FACTORY).await.unwrap();
    let buyer = alloy::hex::encode_prefixed(wallet.address);
    let receipt = |signature: Vec<u8>, message: &str| json!({ "buyerAddr": buyer, "agentAddr": seller, "success": true, "message": message, "signature": alloy::hex::encode_prefixed(signature) });
    let message = |n: u64| {
        format!("MainStreet receipt\nbuyer: {buyer}\nagent: {seller}\nsuccess: true\ntimestamp={}", now() * 1000 + n)
    };

    // Not deployed yet: the owner's signature wrapped with the factory call (ERC-6492).
    let m = message(1);
    let own = wallet.owner.sign_message_sync(m.as_bytes()).unwrap().as_bytes().to_vec();
    let (status, answer, _) =
        post(&format!("{base}/receipt"), &receipt(wrap_erc6492(&own, &wallet.deployment), &m)).await;
    assert_eq!(status, 200, "{answer}");
    // The plain signature proves nothing while the wallet has no code; a stranger's wrapped one
    // proves nothing ever.
    let (status, _, _) = post(&format!("{base}/receipt"), &receipt(own.clone(), &message(2))).await;
    assert_eq!(status, 401);
    let stranger = PrivateKeySigner::random().sign_message_sync(message(3).as_bytes()).unwrap().as_bytes().to_vec();
    let (status, _, _) =
        post(&format!("{base}/receipt"), &receipt(wrap_erc6492(&stranger, &wallet.deployment), &message(3))).await;
    assert_eq!(status, 401);
    assert!(!chain.has_code(wallet.address).await.unwrap(), "checking deployed nothing");

    // Deployed (the factory call sent as any account), its ERC-1271 signature.
    chain.send_to(chain.relayer.address(), wallet.deployment.factory, &wallet.deployment.calldata).await.unwrap();
    assert!(chain.has_code(wallet.address).await.unwrap());
    let m = message(4);
    let own = wallet.owner.sign_message_sync(m.as_bytes()).unwrap().as_bytes().to_vec();
    let (status, answer, _) = post(&format!("{base}/receipt"), &receipt(own, &m)).await;
    assert_eq!(status, 200, "{answer}");
    let listed = get(&format!("{base}/receipts?for={seller}")).await;
    let kinds: Vec<&str> =
        listed["receipts"].as_array().unwrap().iter().map(|r| r["signerKind"].as_str().unwrap()).collect();
    assert_eq!(kinds, vec!["erc1271", "erc6492"], "{listed}");
}
