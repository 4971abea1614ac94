//! Wire types of every published payload, versioned (`agentrep-<name>-v1`). These structs are the
//! only definition of the JSON, CSV and Parquet shapes: writers serialise them, the server's
//! reader deserialises them.

/// The closed sets payloads carry: the model's own enums, serialised as their wire names, with
/// their JSON Schemas (the model's `schemars` feature).
pub use agentrep_model::buyers::BuyerBaseVerdict;
pub use agentrep_model::decision::{Decision, EvidenceTier, ScoreBasis, ShieldColor, Tier, Verdict};
pub use agentrep_model::deployer::{DeployerBasis, DeployerVerdict, LaunchOutcome};
pub use agentrep_model::flags::{FlagKey, Severity};

/// Service name in payload versions.
pub const SERVICE: &str = "agentrep";

mod agent;
mod attestation;
mod audit;
mod deployer;
mod discovery;
mod history;
mod index;
pub mod integer;
mod leaderboard;
mod lists;
mod mcp;
mod place;
mod preflight;
mod score;
mod service;
mod snapshot;
mod token;
mod trust;
mod writes;

pub use agent::*;
pub use attestation::*;
pub use audit::*;
pub use deployer::*;
pub use discovery::*;
pub use history::*;
pub use index::*;
pub use leaderboard::*;
pub use lists::*;
pub use mcp::*;
pub use place::*;
pub use preflight::*;
pub use score::*;
pub use service::*;
pub use snapshot::*;
pub use token::*;
pub use trust::*;
pub use writes::*;

/// `agentrep-<name>-v1`.
pub fn version(name: &str) -> String {
    format!("{SERVICE}-{name}-v1")
}
