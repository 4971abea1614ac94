//! Reading, split from transport: pure functions from a served snapshot (and typed parameters)
//! to typed payloads. The HTTP handlers and the MCP tools call the same functions.

pub mod agents;
pub mod attestations;
pub mod audit;
pub mod deployers;
pub mod directory;
pub mod directory_index;
pub mod index;
pub mod lists;
pub mod pages;
pub mod ranking;
pub mod reports;
pub mod resource;
pub mod search;
pub mod service;
pub mod text;
pub mod writes;

pub use index::AgentIndex;

use agentrep_publish::wire::AgentRowV1;

/// Whether a buyer may pay this seller at all: measured, and `PROCEED` or `PROCEED_LOW_VALUE`.
pub fn payable(row: &AgentRowV1) -> bool {
    row.rank.is_some()
}
