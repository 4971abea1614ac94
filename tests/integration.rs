//! Every integration test of the workspace, in one test binary. Each folder is one area (its
//! `main.rs` says what it proves); they share one process so that what they share is built once
//! (the small world `shared_world` rebuilds, the demo folder the process tests start from), the
//! two test threads stay busy across areas instead of idling at the end of each binary, and the
//! tests and their dependencies are compiled and linked once rather than once per area.
//!
//! libtest starts tests in name order, one per test thread (`scripts/test.sh` runs three).
//! [`a_head_start_builds_the_chain_and_the_demo_folder`] sorts first: it builds, side by side,
//! the fixtures that several tests of later areas would otherwise all wait for at once.
//!
//! Run one area with its module path, with the selection `make test` builds (so nothing is compiled
//! with other features): `cargo test --workspace --features agentrep-jobs/cluster --test integration -- e2e::docs`.

#[path = "clients/main.rs"]
mod clients;
#[path = "cluster/main.rs"]
mod cluster;
#[path = "e2e/main.rs"]
mod e2e;
#[path = "faults/main.rs"]
mod faults;
#[path = "feature_set/main.rs"]
mod feature_set;
#[path = "ingest/main.rs"]
mod ingest;
#[path = "mcp/main.rs"]
mod mcp;
#[path = "payments/main.rs"]
mod payments;
#[path = "process/main.rs"]
mod process;
#[path = "replay/main.rs"]
mod replay;
#[path = "web/main.rs"]
mod web;
#[path = "writes/main.rs"]
mod writes;

/// The replayed chain with its undisturbed ingest (the ingest and replay areas; about two
/// minutes, most of it anvil's one busy core) and the demo folder (the process and write areas;
/// `agentrep demo --no-serve`), built at the start of the run, at the same time, while the other
/// test threads run the areas before them. Built on first use instead, they held every test
/// thread of their areas waiting with one core busy (BENCHMARKS.md § 4p). A run filtered to one
/// area leaves this test out, and the area builds what it needs on first use as before.
#[test]
fn a_head_start_builds_the_chain_and_the_demo_folder() {
    std::thread::scope(|scope| {
        let demo = scope.spawn(agentrep_tests::process::demo_dir);
        let world = agentrep_tests::replayed::ReplayedWorld::shared();
        assert_eq!(world.replay.counts.unplayable, 0, "every row of the replayed world is played");
        let ingested = world.undisturbed_ingest();
        assert!(
            !ingested.partitions(agentrep_lake::Dataset::Settlements).expect("partitions").is_empty(),
            "the undisturbed ingest wrote settlements"
        );
        let demo = demo.join().expect("the demo folder builds");
        assert!(demo.join("snapshots/current").exists(), "the demo folder has a current snapshot");
    });
}
