//! The `attested` tier follows real attestations through the one-way flow: the server's store →
//! `agentrep export-store` → the lake → the rebuild → the published score. The published payloads
//! also name the operator's verifier contract when the publisher is given one.

use agentrep_publish::{PublishConfig, SnapshotStore};
use agentrep_store::{AttestationRecord, Store};
use agentrep_tests::shared_world;
use serde_json::Value;

#[test]
fn an_attestation_signed_on_the_day_makes_the_seller_attested_in_the_snapshot() {
    let world = shared_world();
    let day = *world.days().last().expect("days");
    let dir = tempfile::tempdir().expect("temp dir");
    agentrep_tests::copy_dir(world.lake().root(), &dir.path().join("lake")).expect("copy");
    let lake = agentrep_lake::Lake::new(dir.path().join("lake"));
    let snapshots = SnapshotStore::new(dir.path().join("snapshots"));
    let verifier = "0x00000000000000000000000000000000000b0a1d".to_owned();
    let config = PublishConfig { verifier_contract: Some(verifier.clone()), ..PublishConfig::default() };
    agentrep_jobs::commands::rebuild_days(&lake, &snapshots, &config, &[day]).expect("rebuild");
    let score = |address: &str| -> Value {
        let tree = agentrep_tests::static_tree(&snapshots.current_dir().expect("current"));
        let path = tree.join(format!("score/{address}.json"));
        serde_json::from_slice(&std::fs::read(path).expect("score file")).expect("json")
    };
    let board: Value = serde_json::from_slice(
        &std::fs::read(snapshots.current_dir().expect("current").join("leaderboard.json")).expect("leaderboard"),
    )
    .expect("json");
    let indexed: Vec<String> = board["results"]
        .as_array()
        .expect("results")
        .iter()
        .filter_map(|e| e["payTo"].as_str().map(str::to_owned))
        .filter(|a| score(a)["tier"] == "indexed")
        .take(2)
        .collect();
    let (attested, other) = (&indexed[0], &indexed[1]);
    assert_eq!(score(attested)["verify"]["verifierContract"], verifier.as_str());

    // The server signed an attestation of one of them during the day (and one the day before,
    // which is no longer fresh at the day's end).
    let midnight = day.and_hms_opt(0, 0, 0).expect("midnight").and_utc().timestamp();
    let store_path = dir.path().join("agentrep-store.sqlite");
    let store = Store::open(&store_path).expect("store");
    let record = |address: &str, timestamp: i64| AttestationRecord {
        address: address.to_owned(),
        score: score(address)["score"].as_u64().unwrap_or(0) as u8,
        timestamp,
        nonce: 0,
        snapshot: score(address)["source"].as_str().unwrap_or_default().to_owned(),
        signer: "0x00000000000000000000000000000000000000ee".to_owned(),
        signature: format!("0x{}", "11".repeat(65)),
    };
    store.add_attestation(&record(attested, midnight + 12 * 3_600)).expect("attestation");
    store.add_attestation(&record(other, midnight - 3_600)).expect("attestation");
    drop(store);

    let report = agentrep_ingest::sources::export_store(&lake, &store_path, midnight + 86_399).expect("export");
    assert_eq!(report.attestations, 2);
    agentrep_jobs::commands::rebuild_days(&lake, &snapshots, &config, &[day]).expect("rebuild");
    assert_eq!(score(attested)["tier"], "attested");
    assert_eq!(score(other)["tier"], "indexed", "an attestation older than 24 hours at the day's end");
}
