//! The server killed with SIGKILL while it writes and while deliveries are in flight: after a
//! restart every acknowledged write is there, every due delivery is made, and a `webhook-id` is
//! delivered twice only when its first attempt was still unanswered at the kill.

use std::collections::{BTreeMap, BTreeSet};
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::Duration;

use alloy::signers::local::PrivateKeySigner;
use serde_json::{Value, json};
use tokio::sync::Mutex;

use super::*;

fn through_a_proxy() -> Vec<(&'static str, String)> {
    vec![
        ("AGENTREP_WEBHOOK_ALLOW_PRIVATE", "1".to_owned()),
        ("AGENTREP_WEBHOOK_TIMEOUT_SECS", "2".to_owned()),
        // The test is the proxy: each subscription names another client, so the seed's 5 an hour
        // per client is not what stops it.
        ("AGENTREP_TRUSTED_PROXIES", "127.0.0.1".to_owned()),
        ("AGENTREP_WRITE_LIMIT_PER_HOUR", "100000".to_owned()),
    ]
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn every_acknowledged_write_survives_a_kill() {
    let snapshots = Snapshots::copied();
    let (mut server, base) = snapshots.start(&through_a_proxy());
    let (agent, _) = snapshots.scores(0).into_iter().next().expect("a seller");
    let subscriber = addr(&PrivateKeySigner::random());
    let stop = Arc::new(AtomicBool::new(false));
    let receipts: Arc<Mutex<BTreeSet<i64>>> = Arc::default();
    let subscriptions: Arc<Mutex<BTreeSet<i64>>> = Arc::default();
    let mut writers = Vec::new();
    for w in 0..3u64 {
        let (stop, acked, base, agent) = (stop.clone(), receipts.clone(), base.clone(), agent.clone());
        writers.push(tokio::spawn(async move {
            let key = PrivateKeySigner::random();
            let mut i = 0;
            while !stop.load(Ordering::SeqCst) {
                let body = receipt(&key, &agent, Some((i % 100) as u8), now_ms() + i * 3 + w as i64);
                i += 1;
                match reqwest::Client::new().post(format!("{base}/receipt")).json(&body).send().await {
                    Ok(r) if r.status() == 200 => {
                        let v: Value = r.json().await.unwrap_or_default();
                        acked.lock().await.insert(v["id"].as_i64().expect("an id"));
                    }
                    _ => {}
                }
            }
        }));
    }
    {
        let (stop, acked, base, agent, subscriber) =
            (stop.clone(), subscriptions.clone(), base.clone(), agent.clone(), subscriber.clone());
        writers.push(tokio::spawn(async move {
            let mut i = 0u32;
            while !stop.load(Ordering::SeqCst) {
                let body = json!({ "subscriberAddr": subscriber, "watchAddr": agent, "webhookUrl": format!("http://127.0.0.1:9/hook/{i}") });
                let client = format!("198.51.{}.{}", i / 250, i % 250 + 1);
                i += 1;
                let (status, v, _) = match reqwest::Client::new().post(format!("{base}/webhook/subscribe")).header("x-forwarded-for", client).json(&body).send().await {
                    Ok(r) => {
                        let status = r.status().as_u16();
                        (status, r.json::<Value>().await.unwrap_or_default(), ())
                    }
                    Err(_) => (0, Value::Null, ()),
                };
                if status == 200 {
                    acked.lock().await.insert(v["id"].as_i64().expect("an id"));
                }
            }
        }));
    }
    tokio::time::sleep(Duration::from_millis(1500)).await;
    server.kill_hard();
    stop.store(true, Ordering::SeqCst);
    for w in writers {
        w.await.expect("writer");
    }
    let (receipts, subscriptions) = (receipts.lock().await.clone(), subscriptions.lock().await.clone());
    assert!(receipts.len() >= 10 && !subscriptions.is_empty(), "writes were acknowledged before the kill");

    let (_server, base) = snapshots.start(&through_a_proxy());
    let (_, listed) = get(&format!("{base}/receipts?for={agent}")).await;
    let total = listed["summary"]["total"].as_u64().unwrap();
    assert!(total >= receipts.len() as u64, "{total} stored, {} acknowledged", receipts.len());
    // The newest 100 are listed; every acknowledged id up to the highest is stored.
    let listed_ids: BTreeSet<i64> =
        listed["receipts"].as_array().unwrap().iter().map(|r| r["id"].as_i64().unwrap()).collect();
    let newest: Vec<&i64> = receipts.iter().rev().take(50).collect();
    assert!(newest.iter().all(|id| listed_ids.contains(id)), "acknowledged receipts are all there");
    let (_, list) = get(&format!("{base}/webhook/list?for={subscriber}")).await;
    let stored: BTreeSet<i64> =
        list["subscriptions"].as_array().unwrap().iter().map(|s| s["id"].as_i64().unwrap()).collect();
    assert!(subscriptions.is_subset(&stored), "acknowledged subscriptions are all there");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn deliveries_in_flight_at_a_kill_are_made_after_the_restart() {
    let snapshots = Snapshots::copied();
    let (wallet, _, _) = snapshots.moved(0, 1).into_iter().next().expect("a score moves");
    let receiver = Receiver::start();
    let (mut server, base) = snapshots.start(&through_a_proxy());
    let subscriber = addr(&PrivateKeySigner::random());
    let n = 12;
    for i in 0..n {
        let path = format!("/slow/{i}");
        receiver.control("/_mode", json!({ "path": path, "mode": "slow" })).await;
        let body = json!({ "subscriberAddr": subscriber, "watchAddr": wallet, "webhookUrl": receiver.url(&path), "thresholdDelta": 1 });
        let (status, subscribed, _) =
            post_as(&format!("{base}/webhook/subscribe"), &body, Some(&format!("198.51.100.{}", i + 1))).await;
        assert_eq!(status, 200, "{subscribed}");
        receiver.control("/_secret", json!({ "path": path, "secret": subscribed["secret"] })).await;
    }
    snapshots.serve(1);
    // Every first attempt reaches the receiver, which holds its answer for 2 s: kill now.
    receiver.wait_until(Duration::from_secs(30), |log| log.len() >= n).await;
    server.kill_hard();
    let killed_at = now_ms();
    for i in 0..n {
        receiver.control("/_mode", json!({ "path": format!("/slow/{i}"), "mode": "ok" })).await;
    }
    let (_server, _base) = snapshots.start(&through_a_proxy());
    let log = receiver
        .wait_until(Duration::from_secs(60), |log| {
            (0..n).all(|i| log.iter().any(|e| e["path"] == format!("/slow/{i}") && e["status"] == 204))
        })
        .await;
    let mut by_id: BTreeMap<String, Vec<&Value>> = BTreeMap::new();
    for e in &log {
        by_id.entry(e["id"].as_str().unwrap().to_owned()).or_default().push(e);
    }
    assert_eq!(by_id.len(), n, "one webhook-id per event: {log:#?}");
    for (id, tries) in &by_id {
        assert!(tries.iter().all(|e| e["verified"] == true));
        if tries.len() > 1 {
            let first = tries[0];
            let answered_before_kill = first["answeredAt"].as_i64().is_some_and(|t| t < killed_at);
            assert!(
                !answered_before_kill,
                "{id} was delivered again although its first attempt was answered before the kill: {tries:#?}"
            );
        }
    }
}
