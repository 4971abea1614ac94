//! A new snapshot is picked up without a restart and without a failed request, under load.

use std::sync::Arc;
use std::sync::atomic::{AtomicU32, Ordering};

use agentrep_publish::{PublishConfig, SnapshotStore};
use agentrep_tests::{RunningServer, build_world};

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn new_snapshot_is_swapped_in_under_load_without_errors() {
    let world = build_world(4, 3);
    let server = RunningServer::start(&world.snapshots());
    let base = server.base.clone();
    let client = reqwest::Client::new();
    let before: serde_json::Value = client.get(format!("{base}/status")).send().await.unwrap().json().await.unwrap();
    let top: serde_json::Value =
        client.get(format!("{base}/leaderboard?limit=20")).send().await.unwrap().json().await.unwrap();
    let addrs: Vec<String> =
        top["results"].as_array().unwrap().iter().map(|e| e["payTo"].as_str().unwrap().to_owned()).collect();

    let failures = Arc::new(AtomicU32::new(0));
    let done = Arc::new(AtomicU32::new(0));
    let mut load = Vec::new();
    for worker in 0..4 {
        let (client, base, addrs, failures, done) =
            (client.clone(), base.clone(), addrs.clone(), failures.clone(), done.clone());
        load.push(tokio::spawn(async move {
            // Bounded: 400 requests per worker.
            for i in 0..400usize {
                let path = match i % 3 {
                    0 => format!("/score/{}", addrs[(i + worker) % addrs.len()]),
                    1 => format!("/preflight/{}", addrs[(i * 7 + worker) % addrs.len()]),
                    _ => "/leaderboard?limit=50".to_owned(),
                };
                let ok = match client.get(format!("{base}{path}")).send().await {
                    Ok(r) => r.status().is_success() && r.bytes().await.is_ok(),
                    Err(_) => false,
                };
                if !ok {
                    failures.fetch_add(1, Ordering::Relaxed);
                }
                done.fetch_add(1, Ordering::Relaxed);
            }
        }));
    }
    let lake = world.lake();
    let next_day = world.days()[3];
    let snapshots = world.snapshots();
    tokio::task::spawn_blocking(move || {
        let (input, _) = agentrep_pipeline::rebuild(&lake, next_day).unwrap();
        SnapshotStore::new(snapshots).publish(&input, &PublishConfig::default()).unwrap();
    })
    .await
    .unwrap();
    for task in load {
        task.await.unwrap();
    }
    assert_eq!(done.load(Ordering::Relaxed), 1600);
    assert_eq!(failures.load(Ordering::Relaxed), 0, "no request failed during the swap");

    let mut after = before.clone();
    for _ in 0..50 {
        after = client.get(format!("{base}/status")).send().await.unwrap().json().await.unwrap();
        if after["snapshotId"] != before["snapshotId"] {
            break;
        }
        tokio::time::sleep(std::time::Duration::from_millis(100)).await;
    }
    assert_ne!(after["snapshotId"], before["snapshotId"], "the server picked up the new snapshot");
    assert_eq!(after["snapshotDate"], next_day.to_string());
}
