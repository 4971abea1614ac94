//! The rebuild's carried state (`agentrep-pipeline`'s `carry`): a chain of daily rebuilds, each
//! folding only the new partitions into the newest stored state (stored again once it is a week
//! old), publishes exactly what
//! rebuilding every day from scratch publishes; and a state that no longer describes the lake (a
//! late partition, another definition, a damaged file) is recomputed, never reused.

use std::path::Path;

use agentrep_datasets::{Scale, WorldConfig};
use agentrep_lake::Lake;
use agentrep_lake::Timestamp;
use agentrep_lake::datasets::{FundingRow, ListingRow};
use agentrep_model::FundingRecord;
use agentrep_pipeline::{Carried, RebuildOptions, Recompute, STORE_EVERY_DAYS, rebuild_with};
use agentrep_publish::{PublishConfig, SnapshotStore};
use agentrep_tests::copy_dir;
use agentrep_tests::process::base_command;
use chrono::NaiveDate;

const FOLDS: [&str; 4] = ["first_fundings", "settlement_pairs", "token_deployers", "token_buys"];

fn tiny_world(dir: &Path, days: u32) -> WorldConfig {
    let config = WorldConfig { days, ..WorldConfig::new(Scale::Tiny) };
    agentrep_datasets::generate(&config, &dir.join("lake"), &|_, _| {}).expect("world generates");
    config
}

/// A snapshot's files, by path.
type Tree = Vec<(String, Vec<u8>)>;

/// Runs `agentrep rebuild` with `flags` as an operator does; returns its output (logs at info).
fn agentrep_rebuild(lake: &Lake, snapshots: &Path, flags: &[&str]) -> String {
    let out = base_command()
        .env("RUST_LOG", "info")
        .args(["rebuild", "--retain", "2", "--lake"])
        .arg(lake.root())
        .arg("--snapshots")
        .arg(snapshots)
        .args(flags)
        .output()
        .unwrap();
    let logs = format!("{}{}", String::from_utf8_lossy(&out.stdout), String::from_utf8_lossy(&out.stderr));
    assert!(out.status.success(), "agentrep rebuild {flags:?} failed: {logs}");
    logs
}

/// Rebuilds and publishes one day; returns the snapshot's files and how each fold was read.
fn rebuild_and_publish(
    lake: &Lake,
    store: &SnapshotStore,
    day: NaiveDate,
    from_scratch: bool,
) -> (Tree, Vec<(&'static str, Carried)>) {
    let (input, timings) =
        rebuild_with(lake, day, RebuildOptions { from_scratch, ..Default::default() }).expect("rebuilds");
    let config = PublishConfig { retain: 2, ..PublishConfig::default() };
    let published = store.publish(&input, &config).expect("publishes");
    (agentrep_tests::read_snapshot(&published.dir), timings.carried)
}

fn assert_same_snapshot(a: &Tree, b: &Tree, what: &str) {
    assert_eq!(a.len(), b.len(), "{what}: file counts differ");
    for ((pa, ba), (pb, bb)) in a.iter().zip(b) {
        assert_eq!(pa, pb, "{what}: file lists differ");
        assert!(ba == bb, "{what}: {pa} differs");
    }
}

#[test]
fn thirty_days_of_incremental_rebuilds_publish_what_rebuilds_from_scratch_publish() {
    let dir = tempfile::tempdir().unwrap();
    let config = tiny_world(dir.path(), 30);
    copy_dir(&dir.path().join("lake"), &dir.path().join("lake-scratch")).unwrap();
    let (incremental, scratch) = (Lake::new(dir.path().join("lake")), Lake::new(dir.path().join("lake-scratch")));
    let (a, b) = (SnapshotStore::new(dir.path().join("a")), SnapshotStore::new(dir.path().join("b")));

    let (mut folded, mut stored) = (0, std::collections::BTreeSet::new());
    for (i, day) in config.days().into_iter().enumerate() {
        let (tree_a, carried) = rebuild_and_publish(&incremental, &a, day, false);
        let (tree_b, recomputed) = rebuild_and_publish(&scratch, &b, day, true);
        assert!(tree_a.len() > 50, "{day}: a snapshot of the tiny world holds per-wallet files");
        assert_same_snapshot(&tree_a, &tree_b, &format!("{day}: incremental against from scratch"));

        assert_eq!(carried.iter().map(|(f, _)| *f).collect::<Vec<_>>(), FOLDS, "{day}: every fold ran once");
        assert!(recomputed.iter().all(|(_, c)| *c == Carried::Recomputed(Recompute::Requested)));
        for (fold, how) in carried {
            match how {
                Carried::Recomputed(Recompute::NoState) => assert_eq!(i, 0, "{day}: {fold} found no state"),
                Carried::Folded { base, added } => {
                    let age = (day - base).num_days();
                    assert!((1..=STORE_EVERY_DAYS).contains(&age), "{day}: {fold} folded onto {base}");
                    assert_eq!(added as i64, age, "{day}: {fold} folded each day since {base} once");
                    folded += 1;
                }
                other => panic!("{day}: {fold} was {other:?}"),
            }
            if incremental.carried_dir().join(fold).join(format!("date={day}")).is_dir() {
                stored.insert(day);
            }
        }
    }
    assert_eq!(folded, 29 * FOLDS.len(), "every day after the first folds onto a stored state");
    // The first day's state, then one a week: the fold was not rewritten on the days between.
    let first = config.days()[0];
    let weekly: std::collections::BTreeSet<NaiveDate> =
        (0..30).step_by(STORE_EVERY_DAYS as usize).map(|d| first + chrono::Duration::days(d)).collect();
    assert_eq!(stored, weekly, "states were stored on the first day and then weekly");
}

/// A first funding one second before `known`'s, written into the partition of its day as if it
/// arrived late: it becomes the wallet's first, so a state that kept the old answer would
/// publish the old funder.
fn add_late_funding(lake: &Lake, known: &FundingRecord) -> String {
    let at = chrono::DateTime::from_timestamp(known.first_funded_at - 1, 0).unwrap();
    let day = at.date_naive();
    let mut rows: Vec<FundingRow> = lake.read_partition(day).unwrap_or_default();
    let funder = "0x1a7e00000000000000000000000000000000f00d".to_owned();
    rows.push(FundingRow {
        funded: known.funded.clone(),
        funder: funder.clone(),
        first_funded_at: Timestamp(at.timestamp_micros()),
        amount: 5_000_000,
    });
    lake.write_partition(day, &rows).unwrap();
    funder
}

#[test]
fn a_state_that_no_longer_describes_the_lake_is_recomputed() {
    let dir = tempfile::tempdir().unwrap();
    let config = tiny_world(dir.path(), 8);
    let lake = Lake::new(dir.path().join("lake"));
    let days = config.days();
    let (last, before) = (days[days.len() - 1], days[days.len() - 2]);

    // The operator's path: the real binary rebuilds every day, storing the states as it goes.
    let snapshots = dir.path().join("snapshots");
    agentrep_rebuild(&lake, &snapshots, &["--all-days"]);
    for fold in FOLDS {
        let meta = lake.carried_dir().join(fold).join(format!("date={last}")).join("state.json");
        assert!(meta.is_file(), "{} was stored", meta.display());
    }
    let store = SnapshotStore::new(dir.path().join("check"));
    let fold_of = |carried: &[(&'static str, Carried)], name: &str| carried.iter().find(|(f, _)| *f == name).unwrap().1;

    // A late partition: a published wallet's funding day gains an earlier first funding.
    let (input, _) = rebuild_with(&lake, last, RebuildOptions::default()).unwrap();
    let known = input.funding.iter().min_by_key(|f| (f.first_funded_at, f.funded.clone())).expect("published fundings");
    let funder = add_late_funding(&lake, known);
    let (tree, carried) = rebuild_and_publish(&lake, &store, last, false);
    let (scratch, _) = rebuild_and_publish(&lake, &store, last, true);
    assert_same_snapshot(&tree, &scratch, "after a late partition");
    assert_eq!(fold_of(&carried, "first_fundings"), Carried::Recomputed(Recompute::InputChanged));
    assert_eq!(fold_of(&carried, "token_buys"), Carried::Folded { base: last, added: 0 }, "other folds are untouched");
    let (input, _) = rebuild_with(&lake, last, RebuildOptions::default()).unwrap();
    let funding = input.funding.iter().find(|f| f.funded == known.funded).expect("the wallet's funding is published");
    assert_eq!(funding.funder, funder, "the late, earlier funding is the wallet's first");

    // Another definition: a state whose recorded definition differs is not used.
    let meta_path = lake.carried_dir().join("token_buys").join(format!("date={last}")).join("state.json");
    let meta = std::fs::read_to_string(&meta_path).unwrap();
    let definition = meta.split("\"definition\": \"").nth(1).unwrap().split('"').next().unwrap().to_owned();
    std::fs::write(&meta_path, meta.replace(&definition, &"0".repeat(64))).unwrap();
    let (tree, carried) = rebuild_and_publish(&lake, &store, last, false);
    assert_eq!(fold_of(&carried, "token_buys"), Carried::Recomputed(Recompute::DefinitionChanged));
    assert_same_snapshot(&tree, &scratch, "after a changed definition");

    // A damaged state file: recomputed, the same snapshot.
    let state = lake.carried_dir().join("token_deployers").join(format!("date={last}")).join("state.parquet");
    std::fs::write(&state, b"PAR1 not a parquet file").unwrap();
    let (tree, carried) = rebuild_and_publish(&lake, &store, last, false);
    assert_eq!(fold_of(&carried, "token_deployers"), Carried::Recomputed(Recompute::Unreadable));
    assert_same_snapshot(&tree, &scratch, "after a damaged state");

    // The day before the last: the newest state on or before it is the first day's (the 8th day's
    // was the first stored after it), still valid for the datasets nothing touched.
    assert_eq!(days.len() as i64, STORE_EVERY_DAYS + 1, "the last day is the first to store a folded state");
    let (_, carried) = rebuild_and_publish(&lake, &store, before, false);
    assert_eq!(fold_of(&carried, "token_buys"), Carried::Folded { base: days[0], added: days.len() - 2 });

    // `--from-scratch` on the command line recomputes every fold and logs it.
    let logs = agentrep_rebuild(&lake, &snapshots, &["--from-scratch"]);
    assert_eq!(logs.matches("Recomputed(Requested)").count(), FOLDS.len(), "every fold recomputed: {logs}");
}

/// A seller's claims crawled for the first time on the last day (every earlier crawl of its wallet
/// taken out of the lake): its first claim reaches back to the chain's start, so the state folded
/// up to the day before, which attributed none of its payments, must attribute them all again.
#[test]
fn a_wallet_listed_for_the_first_time_counts_the_payments_before_its_listing() {
    let dir = tempfile::tempdir().unwrap();
    let config = tiny_world(dir.path(), 10);
    let lake = Lake::new(dir.path().join("lake"));
    let days = config.days();
    let (last, before) = (days[days.len() - 1], days[days.len() - 2]);

    // The busiest seller still listed on the last day, and its crawls of the days before it gone.
    let (input, _) = rebuild_with(&lake, last, RebuildOptions { from_scratch: true, ..Default::default() }).unwrap();
    let listed_last: Vec<ListingRow> = lake.read_partition(last).unwrap();
    let seller = input
        .sellers
        .iter()
        .filter(|s| listed_last.iter().any(|l| l.pay_to.to_lowercase() == s.address))
        .max_by_key(|s| (s.features.demand.settlements, s.address.clone()))
        .expect("a seller crawled on the last day");
    assert!(seller.features.demand.settlements > 10, "{} has a history to attribute", seller.address);
    let (address, settlements) = (seller.address.clone(), seller.features.demand.settlements);
    for day in &days[..days.len() - 1] {
        let rows: Vec<ListingRow> = lake.read_partition(*day).unwrap_or_default();
        let kept: Vec<ListingRow> = rows.into_iter().filter(|l| l.pay_to.to_lowercase() != address).collect();
        lake.write_partition(*day, &kept).unwrap();
    }

    let store = SnapshotStore::new(dir.path().join("a"));
    for day in &days[..days.len() - 1] {
        rebuild_and_publish(&lake, &store, *day, false);
    }
    let (input, _) = rebuild_with(&lake, before, RebuildOptions::default()).unwrap();
    assert!(input.sellers.iter().all(|s| s.address != address), "not listed before the last day");

    let (tree, carried) = rebuild_and_publish(&lake, &store, last, false);
    let pairs = carried.iter().find(|(f, _)| *f == "settlement_pairs").unwrap().1;
    assert!(matches!(pairs, Carried::Folded { .. }), "folded onto the day before's state: {pairs:?}");
    let (scratch, _) = rebuild_and_publish(&lake, &store, last, true);
    assert_same_snapshot(&tree, &scratch, "a wallet listed for the first time");
    let (input, _) = rebuild_with(&lake, last, RebuildOptions::default()).unwrap();
    let listed = input.sellers.iter().find(|s| s.address == address).expect("listed on the last day");
    assert_eq!(listed.features.demand.settlements, settlements, "every payment before its listing counts");
}
