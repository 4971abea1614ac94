//! Signed writes as their signers make them, and every way one is refused without a trace.

use alloy::signers::local::PrivateKeySigner;
use serde_json::json;

use super::*;

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn receipts_badges_and_watchlists_are_the_signers_word_and_nothing_else() {
    let snapshots = Snapshots::copied();
    let (_server, base) = snapshots.start(&[]);
    let scores = snapshots.scores(0);
    let (agent, agent_score) = scores.iter().next().map(|(a, s)| (a.clone(), *s)).expect("a scored seller");
    let buyer = PrivateKeySigner::random();

    // A receipt as the original SDK builds it, signed by the buyer: stored, and the same message
    // again answers the same record.
    let body = receipt(&buyer, &agent, Some(90), now_ms());
    let (status, first, _) = post(&format!("{base}/receipt"), &body).await;
    assert_eq!(status, 200, "{first}");
    assert_eq!(
        (first["ok"].clone(), first["created"].clone(), first["countedInScore"].clone()),
        (json!(true), json!(true), json!(false))
    );
    let (status, again, _) = post(&format!("{base}/receipt"), &body).await;
    assert_eq!((status, again["id"].clone(), again["created"].clone()), (200, first["id"].clone(), json!(false)));

    // Every refusal changes nothing.
    let stranger = PrivateKeySigner::random();
    let mut forged = receipt(&buyer, &agent, Some(10), now_ms());
    forged["signature"] = json!(sign(&stranger, forged["message"].as_str().unwrap()));
    let mut unsigned_rating = receipt(&buyer, &agent, Some(90), now_ms() + 1);
    unsigned_rating["rating"] = json!(5);
    let mut no_marker = receipt(&buyer, &agent, None, now_ms() + 2);
    let text = no_marker["message"].as_str().unwrap().replace("MainStreet receipt", "a note");
    no_marker["signature"] = json!(sign(&buyer, &text));
    no_marker["message"] = json!(text);
    let stale = receipt(&buyer, &agent, None, now_ms() - 25 * 3_600_000);
    let mut other_agent = receipt(&buyer, &agent, None, now_ms() + 3);
    other_agent["agentAddr"] = json!(addr(&stranger));
    let mut bad_address = receipt(&buyer, &agent, None, now_ms() + 4);
    bad_address["buyerAddr"] = json!("0x1234");
    for (what, body, status, code) in [
        ("signed by another key", forged, 401, "signature_mismatch"),
        ("a rating the message does not say", unsigned_rating, 401, "message_mismatch"),
        ("no receipt marker", no_marker, 401, "message_mismatch"),
        ("older than 24 hours", stale, 401, "stale_message"),
        ("another seller than signed", other_agent, 401, "message_mismatch"),
        ("not an address", bad_address, 400, "invalid_buyerAddr"),
    ] {
        let (got, answer, _) = post(&format!("{base}/receipt"), &body).await;
        assert_eq!((got, answer["error"]["code"].as_str()), (status, Some(code)), "{what}: {answer}");
    }
    let (status, listed) = get(&format!("{base}/receipts?for={agent}")).await;
    assert_eq!(status, 200);
    assert_eq!(listed["summary"]["total"], 1, "only the signed receipt is kept: {listed}");
    assert_eq!(listed["receipts"][0]["rating"], 90);
    assert_eq!(listed["receipts"][0]["signerKind"], "eoa");

    // A badge claim by the wallet itself.
    let wallet = PrivateKeySigner::random();
    let message = format!("agentrep badge claim\naddress: {}\ntimestamp={}", addr(&wallet), now_ms());
    let claim = json!({ "address": addr(&wallet), "message": message, "signature": sign(&wallet, &message) });
    let (status, claimed, _) = post(&format!("{base}/badge/claim"), &claim).await;
    assert_eq!(status, 200, "{claimed}");
    assert!(claimed["badgeUrl"].as_str().unwrap().ends_with(&format!("/badge/{}.svg", addr(&wallet))));
    assert!(claimed["embed"].as_str().unwrap().contains("<img"));
    let mut by_other = claim.clone();
    by_other["signature"] = json!(sign(&stranger, &message));
    let (status, refused, _) = post(&format!("{base}/badge/claim"), &by_other).await;
    assert_eq!(status, 401, "{refused}");
    let (_, badges) = get(&format!("{base}/badges")).await;
    assert_eq!(badges["count"], 1, "{badges}");

    // A watchlist entry: the label is the signed one; the current score is the snapshot's.
    let subscriber = PrivateKeySigner::random();
    let message = format!("agentrep watch\nwatch: {agent}\nlabel: my seller\ntimestamp={}", now_ms());
    let watch = json!({
        "subscriberAddr": addr(&subscriber), "watchAddr": agent, "label": "my seller",
        "message": message, "signature": sign(&subscriber, &message),
    });
    let (status, added, _) = post(&format!("{base}/watchlist"), &watch).await;
    assert_eq!(status, 200, "{added}");
    let mut relabelled = watch.clone();
    relabelled["label"] = json!("someone else's words");
    let (status, _, _) = post(&format!("{base}/watchlist"), &relabelled).await;
    assert_eq!(status, 401);
    let (_, list) = get(&format!("{base}/watchlist?for={}", addr(&subscriber))).await;
    assert_eq!((list["count"].clone(), list["addresses"][0].clone()), (json!(1), json!(agent)), "{list}");
    assert_eq!(list["watching"][0]["current_score"], agent_score);
    assert_eq!(list["watching"][0]["label"], "my seller");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn webhook_targets_and_the_hourly_limit() {
    let snapshots = Snapshots::copied();
    let (mut server, base) = snapshots.start(&[]);
    let (agent, _) = snapshots.scores(0).into_iter().next().expect("a seller");
    let subscriber = addr(&PrivateKeySigner::random());
    let subscribe = |url: &str| json!({ "subscriberAddr": subscriber, "watchAddr": agent, "webhookUrl": url });
    // Private and odd targets are refused before anything is stored (and nothing is counted).
    for url in [
        "http://127.0.0.1:9/hook",
        "http://10.1.2.3/hook",
        "http://169.254.169.254/latest",
        "http://[::1]/hook",
        "http://localhost:9/hook",
        "ftp://93.184.215.14/hook",
        "not a url",
    ] {
        let (status, refused, _) = post(&format!("{base}/webhook/subscribe"), &subscribe(url)).await;
        assert_eq!((status, refused["error"]["code"].as_str()), (400, Some("invalid_webhookUrl")), "{url}: {refused}");
    }
    let (status, refused, _) =
        post(&format!("{base}/discover"), &json!({ "url": "http://192.168.1.1/agent.json" })).await;
    assert_eq!((status, refused["error"]["code"].as_str()), (400, Some("invalid_url")), "{refused}");
    // Public IP literals (no name to resolve, and no event fires while the snapshot stays: nothing
    // is ever sent to them): five an hour from one client, the sixth refused with Retry-After.
    for i in 0..5 {
        let (status, ok, _) =
            post(&format!("{base}/webhook/subscribe"), &subscribe(&format!("http://93.184.215.14/hook/{i}"))).await;
        assert_eq!(status, 200, "{ok}");
        assert!(ok["secret"].as_str().unwrap().starts_with("whsec_"));
    }
    let (status, limited, headers) =
        post(&format!("{base}/webhook/subscribe"), &subscribe("http://93.184.215.14/hook/5")).await;
    assert_eq!((status, limited["error"]["code"].as_str()), (429, Some("rate_limited")), "{limited}");
    let retry: u64 = headers["retry-after"].to_str().unwrap().parse().unwrap();
    assert!((3000..=3600).contains(&retry), "{retry}");
    // The limit survives a restart (the hits are in the store).
    server.kill_hard();
    let (_server, base) = snapshots.start(&[]);
    let (status, _, _) = post(&format!("{base}/webhook/subscribe"), &subscribe("http://93.184.215.14/hook/6")).await;
    assert_eq!(status, 429);
    let (_, list) = get(&format!("{base}/webhook/list?for={subscriber}")).await;
    assert_eq!(list["count"], 5, "{list}");
    assert_eq!(list["subscriptions"][0]["webhook_url"], "http://93.184.215.14/…", "listed without its path");
}
