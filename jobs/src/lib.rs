//! The `agentrep` program as a library: the command-line contract, the commands and the
//! evaluation, so end-to-end tests drive exactly what operators run.

pub mod bench;
pub mod bench_live_basis;
pub mod cli;
pub mod commands;
pub mod env_table;
pub mod eval;
pub mod eval_real;
pub mod ingest;
pub mod local_chain;
pub mod overlay;
pub mod paid_demo;
pub mod progress;
pub mod realdata;
