//! `POST /discover`'s queue as the operator's jobs carry it: `agentrep export-store` takes the
//! store's submissions into the lake, and `agentrep ingest --source agent-cards` fetches each
//! submitted file once, with the probe's safety rules, into `submitted_cards`.

use agentrep_lake::Lake;
use agentrep_lake::datasets::{DiscoverySubmissionRow, SubmittedCardRow};
use agentrep_store::Store;
use agentrep_tests::agentrep_binary;
use agentrep_tests::fixtures::{Behaviour, SellerFixture};

fn agentrep(args: &[&str], lake: &Lake, config: Option<&std::path::Path>) {
    let mut cmd = std::process::Command::new(agentrep_binary());
    cmd.args(args).arg("--lake").arg(lake.root());
    if let Some(config) = config {
        cmd.arg("--config").arg(config);
    }
    let out = cmd.output().unwrap();
    assert!(out.status.success(), "{args:?}: {}", String::from_utf8_lossy(&out.stderr));
}

#[test]
fn submitted_files_reach_the_lake_and_are_fetched_once() {
    let fixture = SellerFixture::start(vec![(
        "/agent.json".into(),
        Behaviour::Document { content_type: "application/json".into(), body: super::card::document() },
    )]);
    let dir = tempfile::tempdir().unwrap();
    let lake = Lake::new(dir.path().join("lake"));
    let store_path = dir.path().join("store.sqlite");
    let now = chrono::Utc::now().timestamp();
    {
        let store = Store::open(&store_path).unwrap();
        store.submit_discovery(&fixture.url("/agent.json"), "client", now).unwrap();
        store.submit_discovery(&fixture.url("/missing.json"), "client", now).unwrap();
    }
    let store_arg = store_path.display().to_string();
    agentrep(&["export-store", "--store", &store_arg], &lake, None);
    let today = chrono::Utc::now().date_naive();
    let queued: Vec<DiscoverySubmissionRow> = lake.read_partition(today).unwrap();
    assert_eq!(queued.len(), 2);

    let config = dir.path().join("agentrep.toml");
    std::fs::write(&config, "[probes]\nallow_private_targets = true\ntimeout_ms = 2000\n").unwrap();
    for _ in 0..2 {
        agentrep(&["ingest", "--source", "agent-cards"], &lake, Some(&config));
    }
    let cards: Vec<SubmittedCardRow> = lake.read_partition(today).unwrap();
    let fetched: Vec<(&str, Option<&str>, Option<&str>)> = cards
        .iter()
        .map(|c| (c.url.rsplit('/').next().unwrap(), c.name.as_deref(), c.error.as_deref().map(|_| "error")))
        .collect();
    assert_eq!(
        fetched,
        vec![("agent.json", Some("Fixture Agent"), None), ("missing.json", None, Some("error"))],
        "each submission fetched once, failures recorded"
    );
    assert_eq!(fixture.hits("/agent.json"), 1, "a second run fetches nothing again");
    assert!(cards[0].wallets.iter().any(|w| w.starts_with("0x")), "{:?}", cards[0].wallets);
}
