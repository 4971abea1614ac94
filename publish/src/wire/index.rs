//! The snapshot's query indexes (`index/*.jsonl`): one compact row per indexed seller and per
//! scored deployer, holding what the server's queries (search, match, compare, categories, …)
//! read. Static users can read them too; the per-wallet payloads stay the documents to serve.

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

use super::agent::{MetricsV1, PriceV1, TrustShieldV1};
use super::leaderboard::SparkPointV1;

/// One indexed seller.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct AgentRowV1 {
    /// Lowercase address.
    pub address: String,
    /// Score 0..=100, null when degraded.
    pub score: Option<u8>,
    /// `measured` or `degraded`.
    pub score_basis: String,
    /// Preflight decision.
    pub decision: String,
    /// `SAFE`, `CAUTION` or `BLOCK`.
    pub verdict: String,
    /// Attestation tier.
    pub tier: String,
    /// Trust shield.
    pub shield: TrustShieldV1,
    /// Leaderboard rank (1 = top), null when not ranked.
    pub rank: Option<u32>,
    /// Primary category slug (one of the 30 of `/categories`).
    pub category: String,
    /// Rank among ranked agents of the category, null when not ranked.
    pub category_rank: Option<u32>,
    /// Description.
    pub description: Option<String>,
    /// Tags, sorted.
    pub tags: Vec<String>,
    /// Marketplace.
    pub ecosystem: String,
    /// Network as listed.
    pub network: String,
    /// Primary paid endpoint.
    pub resource_path: String,
    /// Every current endpoint.
    pub resources: Vec<String>,
    /// Lowest advertised price.
    pub price: Option<PriceV1>,
    /// Leaderboard metrics.
    pub metrics: MetricsV1,
    /// Last probe alive.
    pub endpoint_alive: bool,
    /// ERC-8004 registered.
    pub erc8004_registered: bool,
    /// Identity proof types.
    pub proofs: Vec<String>,
    /// On the denylist.
    pub denylisted: bool,
    /// Distinct qualifying payers.
    pub payers: u32,
    /// Paying entities whose trust reaches the trusted bar.
    pub trusted_entities: u32,
    /// Days since the seller's first listing.
    pub listing_age_days: u32,
    /// 0..=1: evidence behind the score.
    pub confidence: f64,
    /// The last 8 daily scores, oldest first (movers and trending read day-over-day and 7-day deltas).
    pub recent_scores: Vec<SparkPointV1>,
    /// Evidence sources with `BASIS:`/`DEGRADED:` annotations.
    pub sources: Vec<String>,
}

/// One scored deployer.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct DeployerRowV1 {
    /// Lowercase address.
    pub address: String,
    /// Score 0..=100, null without a decided launch.
    pub score: Option<u8>,
    /// `OK`, `CAUTION` or `AVOID`.
    pub verdict: String,
    /// Serial deployer whose decided launches are mostly rugged.
    pub sketchy: bool,
    /// Launches.
    pub launches: u32,
    /// Rugged launches.
    pub rugged: u32,
    /// Launches with a decided outcome (graduated, rugged, abandoned).
    pub decided: u32,
    /// Launches per platform.
    pub platforms: std::collections::BTreeMap<String, u32>,
    /// Decided launches per platform.
    pub decided_by_platform: std::collections::BTreeMap<String, u32>,
    /// Rugged launches per platform.
    pub rugged_by_platform: std::collections::BTreeMap<String, u32>,
    /// Identity proof types.
    pub proofs: Vec<String>,
    /// `YYYY-MM-DD` of the first launch.
    pub first_launch: String,
}
