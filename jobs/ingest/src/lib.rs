//! The ingest jobs: each source pulls one kind of evidence into the lake from its checkpoint.

pub mod chain;
pub mod config;
pub mod sources;
pub mod web;
