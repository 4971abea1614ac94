//! Every integration test of the workspace, in one test binary. Each folder is one area (its
//! `main.rs` says what it proves); they share one process so that what they share is built once
//! (the small world `shared_world` rebuilds, the demo folder the process tests start from), the
//! two test threads stay busy across areas instead of idling at the end of each binary, and the
//! tests and their dependencies are compiled and linked once rather than once per area.
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
