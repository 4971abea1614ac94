//! End-to-end tests: a generated world, real rebuilds into real snapshots, and the real server on
//! a random loopback port queried over HTTP.

mod analyst;
mod attested;
mod carried;
mod contracts;
mod determinism;
mod discovery;
mod docs;
mod eval_floors;
mod live;
mod lowered_everywhere;
mod overlay;
mod pages;
mod robustness;
mod routes;
mod static_export;
mod swap;
mod trust_tolerance;
mod url_preflight;
