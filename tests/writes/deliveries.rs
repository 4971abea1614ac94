//! Score-change webhooks end to end: a new snapshot is served, the events are enqueued and
//! delivered, and a receiver verifies each with the official Standard Webhooks library; failing
//! and slow receivers are retried with the same `webhook-id`; a target that became private is
//! refused when the delivery is made.

use std::time::Duration;

use alloy::signers::local::PrivateKeySigner;
use serde_json::{Value, json};

use super::*;

fn allow_private() -> Vec<(&'static str, String)> {
    vec![("AGENTREP_WEBHOOK_ALLOW_PRIVATE", "1".to_owned()), ("AGENTREP_WEBHOOK_TIMEOUT_SECS", "2".to_owned())]
}

/// Subscribes `path` of the receiver to `wallet` (threshold 1) and tells the receiver its secret.
async fn subscribe(base: &str, receiver: &Receiver, subscriber: &str, wallet: &str, path: &str) -> Value {
    let body = json!({ "subscriberAddr": subscriber, "watchAddr": wallet, "webhookUrl": receiver.url(path), "thresholdDelta": 1 });
    let (status, subscribed, _) = post(&format!("{base}/webhook/subscribe"), &body).await;
    assert_eq!(status, 200, "{subscribed}");
    receiver.control("/_secret", json!({ "path": path, "secret": subscribed["secret"] })).await;
    subscribed
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_new_snapshot_delivers_signed_score_changes_and_retries_the_failures() {
    let snapshots = Snapshots::copied();
    // Wallets whose score moves on both of the next two days.
    let later: Vec<String> = snapshots.moved(1, 2).into_iter().map(|(a, _, _)| a).collect();
    let moved: Vec<(String, u8, u8)> =
        snapshots.moved(0, 1).into_iter().filter(|(a, _, _)| later.contains(a)).collect();
    assert!(moved.len() >= 3, "the demo's days move some scores twice");
    let receiver = Receiver::start();
    let (mut server, base) = snapshots.start(&allow_private());
    let subscriber = addr(&PrivateKeySigner::random());
    let paths = ["/ok", "/fail-once", "/slow-once"];
    for (path, (wallet, _, _)) in paths.iter().zip(&moved) {
        receiver.control("/_mode", json!({ "path": path, "mode": &path[1..] })).await;
        subscribe(&base, &receiver, &subscriber, wallet, path).await;
    }
    // A watchlist whose wallet moves gets a digest, delivered to the webhook its watcher signed
    // for; a subscription someone else made in the watcher's name (subscriptions are not signed)
    // gets none.
    let key = PrivateKeySigner::random();
    let watcher = addr(&key);
    let message =
        format!("agentrep watch\nwatch: {}\nwebhook: {}\ntimestamp={}", moved[0].0, receiver.url("/digest"), now_ms());
    let watch = json!({ "subscriberAddr": watcher, "watchAddr": moved[0].0, "message": message, "signature": sign(&key, &message) });
    assert_eq!(post(&format!("{base}/watchlist"), &watch).await.0, 200);
    subscribe(&base, &receiver, &watcher, &moved[1].0, "/digest").await;
    subscribe(&base, &receiver, &watcher, &moved[1].0, "/stranger").await;
    tokio::time::sleep(Duration::from_secs(1)).await;
    assert!(receiver.log().await.is_empty(), "nothing moves while the snapshot stays");

    snapshots.serve(1);
    let log = receiver
        .wait_until(Duration::from_secs(40), |log| {
            ["/ok", "/fail-once", "/slow-once"]
                .iter()
                .all(|p| log.iter().any(|e| e["path"] == *p && e["status"] == 204))
                && log.iter().any(|e| e["type"] == "watchlist.digest" && e["status"] == 204)
        })
        .await;
    assert!(log.iter().all(|e| e["verified"] == true), "every delivery verifies with standardwebhooks: {log:#?}");
    assert!(
        log.iter().filter(|e| e["type"] == "watchlist.digest").all(|e| e["path"] == "/digest"),
        "the digest goes only to the signed receiver: {log:#?}"
    );
    for path in ["/fail-once", "/slow-once"] {
        let tries: Vec<&Value> = log.iter().filter(|e| e["path"] == path).collect();
        assert!(
            tries.len() >= 2 && tries.iter().all(|e| e["id"] == tries[0]["id"]),
            "{path}: retried under one webhook-id: {tries:#?}"
        );
    }
    let ok: Vec<&Value> = log.iter().filter(|e| e["path"] == "/ok").collect();
    assert_eq!(ok.len(), 1, "delivered once: {ok:#?}");
    assert_eq!(ok[0]["type"], "score.changed");
    // Its subscriber sees the state of each delivery.
    let (_, list) = get(&format!("{base}/webhook/list?for={subscriber}")).await;
    let states: Vec<(String, u64)> = list["subscriptions"]
        .as_array()
        .unwrap()
        .iter()
        .map(|s| {
            (s["deliveries"][0]["state"].as_str().unwrap().to_owned(), s["deliveries"][0]["attempts"].as_u64().unwrap())
        })
        .collect();
    assert_eq!(states[0], ("delivered".to_owned(), 1), "{list}");
    assert!(states[1..].iter().all(|(s, n)| s == "delivered" && *n >= 2), "{list}");

    // The deployment restarts without private targets allowed: the next event's delivery is
    // refused at delivery time (the target is loopback), and the receiver sees nothing.
    server.kill_hard();
    let seen = receiver.log().await.len();
    let (_server, base) = snapshots.start(&[("AGENTREP_WEBHOOK_TIMEOUT_SECS", "2".to_owned())]);
    snapshots.serve(2);
    let started = std::time::Instant::now();
    let refused = loop {
        let (_, list) = get(&format!("{base}/webhook/list?for={subscriber}")).await;
        let errors: Vec<String> = list["subscriptions"]
            .as_array()
            .unwrap()
            .iter()
            .filter_map(|s| {
                s["deliveries"].as_array()?.iter().find_map(|d| d["last_error"].as_str().map(str::to_owned))
            })
            .collect();
        if errors.iter().any(|e| e.starts_with("refused-private")) {
            break errors;
        }
        assert!(started.elapsed() < Duration::from_secs(30), "no refused delivery: {list}");
        tokio::time::sleep(Duration::from_millis(300)).await;
    };
    assert!(!refused.is_empty());
    assert_eq!(receiver.log().await.len(), seen, "no connection reached the receiver");
}
