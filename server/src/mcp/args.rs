//! The tools' arguments: one struct per shape, whose schemars schema is the `inputSchema`. The
//! shapes the reads share with their routes are `crate::read`'s; where the original's tools differ
//! from the HTTP reads (a leaderboard of 10 on Base), a struct here says so.

use schemars::JsonSchema;
use serde::Deserialize;

use crate::http::params::{Bounded, NetworkFilter, Text, UsdcAmount};

pub use crate::read::{AddressArgs, At, CategoryArgs, NoArgs, TagArgs, TokenAddressArgs, TokenArgs};

fn base_network() -> NetworkFilter {
    NetworkFilter { given: "base".to_owned(), prefix: Some(agentrep_model::chain::BASE_CAIP2) }
}

/// `mainstreet_leaderboard` (the original's defaults: 10 entries, Base).
#[derive(Debug, Deserialize, JsonSchema)]
pub struct MsLeaderboardArgs {
    /// Entries to return.
    #[serde(default)]
    pub limit: Bounded<10, 1, 100>,
    /// The network (`base` unless given).
    #[serde(default = "base_network")]
    pub network: NetworkFilter,
}

/// `mainstreet_search` (the original's default: 10 results).
#[derive(Debug, Deserialize, JsonSchema)]
pub struct MsSearchArgs {
    /// An address or its prefix, a tag, or words of a description (at least 2 characters).
    pub q: Text<2>,
    /// Results to return.
    #[serde(default)]
    pub limit: Bounded<10, 1, 100>,
}

pub use crate::query::directory::InterestFilter;

/// `mainstreet_agents_of_interest`.
#[derive(Debug, Deserialize, JsonSchema)]
pub struct MsInterestArgs {
    /// Which shortlist.
    #[serde(default)]
    pub filter: InterestFilter,
    /// Agents to return.
    #[serde(default)]
    pub limit: Bounded<20, 1, 100>,
}

fn yes() -> bool {
    true
}

/// `mainstreet_pick`: `mainstreet_match`'s filters, the best match only.
#[derive(Debug, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct PickArgs {
    /// What the caller wants done, in words (at least 3 characters).
    pub intent: Text<3>,
    /// Highest price per call.
    pub max_price: Option<UsdcAmount>,
    /// Lowest score.
    #[serde(default)]
    pub min_score: Bounded<0, 0, 100>,
    /// Only ERC-8004 registered agents.
    #[serde(default)]
    pub only_registered: bool,
    /// Only agents with an identity proof.
    #[serde(default)]
    pub only_verified: bool,
    /// Accept a weak match (one covering less than half of the intent).
    #[serde(default)]
    pub allow_weak: bool,
}

/// `mainstreet_vet`.
#[derive(Debug, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct VetArgs {
    /// Wallet address: 0x and 40 hex characters, any letter case.
    #[schemars(regex(pattern = r"^0x[a-fA-F0-9]{40}$"))]
    pub address: String,
    /// Lowest acceptable score.
    #[serde(default)]
    pub min_score: Bounded<30, 0, 100>,
    /// Require an endpoint whose last probe answered.
    #[serde(default = "yes")]
    pub require_alive: bool,
}
