//! The snapshot's query indexes (`index/*.jsonl`): one compact row per indexed seller and per
//! scored deployer, holding what the server's queries (search, match, compare, categories, …)
//! read. Static users can read them too; the per-wallet payloads stay the documents to serve.

use super::{Decision, DeployerVerdict, EvidenceTier, LaunchOutcome, ScoreBasis, Tier, Verdict};
use agentrep_model::sources::SourceNote;
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
    pub score_basis: ScoreBasis,
    /// Preflight decision.
    pub decision: Decision,
    /// `SAFE`, `CAUTION` or `BLOCK`.
    pub verdict: Verdict,
    /// Attestation tier.
    pub tier: Tier,
    /// `proven` when evidence that costs more to fake than it earns stands behind the seller (a
    /// ranked domain it controls, trusted paying entities, a Coinbase verification, a curated
    /// allowlist), else `unproven`: its evidence is counted, not proven, which alone is never a
    /// warning. Rankings put proven sellers first.
    pub evidence_tier: EvidenceTier,
    /// What proves it, in words (empty when unproven).
    pub proven_by: Vec<String>,
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
    #[schemars(with = "Vec<String>")]
    pub sources: Vec<SourceNote>,
    /// Name in the agent's ERC-8004 registration file.
    pub name: Option<String>,
    /// ERC-8004 agent id whose agentWallet is this seller.
    pub agent_id: Option<u64>,
    /// Qualifying volume in the last 7 days, USDC.
    pub earned_7d: f64,
    /// Qualifying settlements in the last 7 days.
    pub settlements_7d: u64,
    /// Distinct qualifying payers in the last 7 days.
    pub buyers_7d: u32,
    /// ISO 8601 time of the last qualifying settlement.
    pub last_settlement_at: Option<String>,
    /// ISO 8601 time of the last probe.
    pub probed_at: Option<String>,
    /// HTTP status of the last probe.
    pub probe_status: Option<u32>,
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
    pub verdict: DeployerVerdict,
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
    /// Its launches: token, platform and outcome, newest first.
    pub tokens: Vec<TokenLaunchV1>,
}

/// One launched token of a deployer row.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct TokenLaunchV1 {
    /// Token contract (lowercase).
    pub token: String,
    /// Launch platform.
    pub platform: String,
    /// Outcome bucket.
    pub outcome: LaunchOutcome,
    /// Days since launch.
    pub age_days: u32,
}

/// One identity proof (`index/proofs.jsonl`).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct ProofRowV1 {
    /// Lowercase address.
    pub address: String,
    /// Proof type.
    #[serde(rename = "type")]
    pub kind: String,
    /// Where it was read.
    pub source: String,
    /// ISO 8601 time it was first verified.
    pub verified_at: String,
}

/// One denylist or allowlist entry (`index/lists.jsonl`).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct ListRowV1 {
    /// Lowercase address.
    pub address: String,
    /// `deny` or `allow`.
    pub list: String,
    /// Where the entry comes from.
    pub source: String,
    /// Category, e.g. `scam:scammer`.
    pub category: String,
    /// ISO 8601 time it was added.
    pub added_at: String,
}

/// One ERC-8004 registered agent (`index/identities.jsonl`).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct IdentityRowV1 {
    /// Agent id.
    pub agent_id: u64,
    /// Owner of the agent NFT.
    pub owner: String,
    /// Declared agent wallet.
    pub agent_wallet: Option<String>,
    /// Registration file URI.
    pub uri: String,
    /// ISO 8601 registration time.
    pub registered_at: String,
    /// Name in the registration file.
    pub name: Option<String>,
    /// The registration file links back to this service.
    pub links_back: bool,
    /// ISO 8601 time of the last fetch of the file, null when never fetched.
    pub card_fetched_at: Option<String>,
    /// Why the last fetch failed.
    pub card_error: Option<String>,
}

/// One marketplace crawl source (`index/crawlers.jsonl`).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct CrawlerRowV1 {
    /// Discovery URL.
    pub source_url: String,
    /// Marketplace.
    pub ecosystem: String,
    /// Runs up to the day.
    pub runs: u32,
    /// Runs that failed.
    pub failed_runs: u32,
    /// ISO 8601 end of the last run.
    pub last_run_at: String,
    /// The last run's error.
    pub last_error: Option<String>,
    /// Items the last run read.
    pub last_items: u32,
    /// Distinct sellers among its marketplace's current listings.
    pub addresses: u32,
}

/// One current marketplace listing of a resource (`index/listings.jsonl`).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct ListingRowV1 {
    /// Endpoint URL, as listed.
    pub resource: String,
    /// Receiving wallet, as listed (case as observed).
    pub pay_to: String,
    /// The seller: `payTo` lowercase.
    pub seller: String,
    /// Network, CAIP-2.
    pub network: String,
    /// Asset contract, lowercase.
    pub asset: String,
    /// Advertised price in the asset's atomic units, as a decimal string (x402's form).
    pub price: String,
    /// Marketplace of the newest crawl.
    pub ecosystem: String,
    /// ISO 8601 time the listing was first seen.
    pub first_seen: String,
    /// ISO 8601 time the listing was last seen.
    pub last_seen: String,
}

/// A first USDC funding (`index/funding.jsonl`).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct FundingRowV1 {
    /// The funded wallet.
    pub funded: String,
    /// Its first funder.
    pub funder: String,
    /// Amount, USDC.
    pub amount_usdc: f64,
    /// ISO 8601 time.
    pub first_funded_at: String,
}
