//! The operator's backup as the operators' guide tells it: `agentrep store-backup` while the server takes
//! writes, then a restore (stop the server, put the copy in the store's place, start it): every
//! write acknowledged before the backup began is there.

use std::collections::BTreeSet;
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};

use super::*;
use alloy::signers::local::PrivateKeySigner;

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_backup_taken_under_writes_restores_every_acknowledged_write() {
    let snapshots = Snapshots::copied();
    let (mut server, base) = snapshots.start(&[]);
    let (agent, _) = snapshots.scores(0).into_iter().next().expect("a seller");
    let key = PrivateKeySigner::random();
    let mut before = BTreeSet::new();
    for i in 0..20 {
        let (status, answer, _) =
            post(&format!("{base}/receipt"), &receipt(&key, &agent, Some(90), now_ms() + i)).await;
        assert_eq!(status, 200, "{answer}");
        before.insert(answer["id"].as_i64().unwrap());
    }
    // Writes go on while the copy is taken.
    let stop = Arc::new(AtomicBool::new(false));
    let writer = {
        let (stop, base, agent) = (stop.clone(), base.clone(), agent.clone());
        tokio::spawn(async move {
            let key = PrivateKeySigner::random();
            let mut i = 0;
            while !stop.load(Ordering::SeqCst) {
                let _ = post(&format!("{base}/receipt"), &receipt(&key, &agent, Some(50), now_ms() + i)).await;
                i += 1;
            }
        })
    };
    let store = snapshots.home().join("store.sqlite");
    let copy = snapshots.home().join("backup.sqlite");
    let backup = || {
        Command::new(agentrep_tests::agentrep_binary())
            .args(["store-backup", "--to"])
            .arg(&copy)
            .env("AGENTREP_STORE", &store)
            .output()
            .unwrap()
    };
    let out = backup();
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    assert!(!backup().status.success(), "a backup never overwrites a file");
    stop.store(true, Ordering::SeqCst);
    writer.await.unwrap();
    server.kill_hard();

    // Restore: the copy in the store's place (its journal files go with the old store).
    for suffix in ["", "-wal", "-shm"] {
        let _ = std::fs::remove_file(format!("{}{suffix}", store.display()));
    }
    std::fs::copy(&copy, &store).unwrap();
    let (_server, base) = snapshots.start(&[]);
    let (_, listed) = get(&format!("{base}/receipts?for={agent}")).await;
    let ids: BTreeSet<i64> = listed["receipts"].as_array().unwrap().iter().map(|r| r["id"].as_i64().unwrap()).collect();
    assert!(before.is_subset(&ids), "every receipt acknowledged before the backup: {listed}");
    let total = listed["summary"]["total"].as_u64().unwrap();
    assert!(total >= before.len() as u64, "{total}");
}
