//! The leaderboard (seed §2.1–2.2) and the daily movers.

use super::agent::{MetricsV1, PriceV1};
use super::{Decision, EvidenceTier};
use agentrep_model::sources::SourceNote;
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

/// One sparkline point (`sparkline7d[]`).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct SparkPointV1 {
    /// `YYYY-MM-DD`.
    pub snapshot_date: String,
    /// Score, null when degraded.
    pub score: Option<u8>,
}

/// Leaderboard entry (seed §2.2).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct LeaderboardEntryV1 {
    /// Wallet, lowercase.
    pub pay_to: String,
    /// Network as listed.
    pub network: String,
    /// Marketplace.
    pub ecosystem: String,
    /// Score 0..=100.
    pub score: u8,
    /// Metrics.
    pub metrics: MetricsV1,
    /// Description.
    pub description: Option<String>,
    /// Paid endpoint.
    pub resource_path: String,
    /// Last probe alive.
    pub endpoint_alive: bool,
    /// Advertised price.
    pub price: Option<PriceV1>,
    /// Tags.
    pub tags: Vec<String>,
    /// Evidence sources with `BASIS:`/`DEGRADED:` annotations.
    #[schemars(with = "Vec<String>")]
    pub sources: Vec<SourceNote>,
    /// ERC-8004 registered.
    pub erc8004_registered: bool,
    /// Has at least one identity proof.
    pub verified: bool,
    /// Identity proofs.
    pub proof_count: u32,
    /// Preflight decision (agentrep addition).
    pub decision: Decision,
    /// `proven` when evidence that costs more to fake than it earns stands behind the seller (a
    /// ranked domain it controls, trusted paying entities, a Coinbase verification, a curated
    /// allowlist), else `unproven`: its evidence is counted, not proven, which alone is never a
    /// warning. Rankings put proven sellers first.
    pub evidence_tier: EvidenceTier,
    /// What proves it, in words (empty when unproven).
    pub proven_by: Vec<String>,
    /// Last 7 daily scores, only with `sparkline=1`.
    #[serde(rename = "sparkline7d", skip_serializing_if = "Option::is_none", default)]
    pub sparkline_7d: Option<Vec<SparkPointV1>>,
}

/// Leaderboard filters (seed §2.1).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct FiltersV1 {
    /// Ecosystem filter.
    pub ecosystem: Option<String>,
    /// Network filter.
    pub network: Option<String>,
    /// Limit.
    pub limit: u32,
    /// Sparklines included.
    pub with_sparkline: bool,
}

/// Leaderboard snapshot (seed §2.1); `E` is the entry type (the server splices pre-serialised
/// entries as `&RawValue`).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct LeaderboardV1<E = LeaderboardEntryV1> {
    /// `agentrep-leaderboard-v1`.
    pub version: String,
    /// Network filter, `all` when unfiltered.
    pub network: String,
    /// ISO 8601 UTC.
    pub generated_at: String,
    /// Entries in results.
    pub count: u32,
    /// Agents ranked in the current day.
    pub ranked_today: u32,
    /// All indexed agents.
    pub total_indexed: u32,
    /// Indexed agents per CAIP-2 network.
    pub network_breakdown: std::collections::BTreeMap<String, u32>,
    /// Whether the server regenerated it for this request.
    pub regenerated: bool,
    /// `fresh`.
    pub snapshot_state: String,
    /// Counts of the rebuild, null when not recorded.
    pub rebuild_counts: Option<RebuildCountsV1>,
    /// Filters applied.
    pub filters: FiltersV1,
    /// Entries, score descending.
    pub results: Vec<E>,
    /// Served from the snapshot.
    pub cached: bool,
    /// When the snapshot was made.
    pub cached_at: String,
    /// Snapshot day (agentrep addition).
    pub snapshot_date: String,
    /// Methodology version (agentrep addition).
    pub methodology: String,
}

/// Rebuild counts in a leaderboard.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct RebuildCountsV1 {
    /// Sellers scored.
    pub sellers: u32,
    /// Deployers scored.
    pub deployers: u32,
    /// Sellers with a degraded score.
    pub degraded: u32,
}

/// One mover (reference/mainstreet.md fixture).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct MoverV1 {
    /// Wallet.
    pub pay_to: String,
    /// Score on the snapshot day.
    pub score_today: u8,
    /// Score the day before.
    pub score_yesterday: u8,
    /// Difference.
    pub delta: i32,
    /// Settlements.
    pub job_count: u64,
    /// Description.
    pub description: Option<String>,
}

/// Daily movers.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct MoversV1 {
    /// `agentrep-movers-v1`.
    pub version: String,
    /// Snapshot day.
    pub as_of: String,
    /// Wallets scored today.
    pub total_scored: u32,
    /// Wallets scored on both days.
    pub with_delta: u32,
    /// The day compared against.
    pub compared_with: String,
    /// Most movers returned each way.
    pub limit: u32,
    /// Set only when there is no data (no wallet was scored on both days).
    pub note: Option<String>,
    /// Largest rises.
    pub gainers: Vec<MoverV1>,
    /// Largest falls.
    pub losers: Vec<MoverV1>,
    /// Methodology version.
    pub methodology: String,
}

impl<E> LeaderboardV1<E> {
    /// A leaderboard document around already-selected entries.
    pub fn assemble(
        generated_at: &str,
        snapshot_date: &str,
        stats: &LeaderboardStats,
        filters: FiltersV1,
        results: Vec<E>,
    ) -> Self {
        Self {
            version: super::version("leaderboard"),
            network: filters.network.clone().unwrap_or_else(|| "all".to_owned()),
            generated_at: generated_at.to_owned(),
            count: results.len() as u32,
            ranked_today: stats.ranked,
            total_indexed: stats.total_indexed,
            network_breakdown: stats.network_breakdown.clone(),
            regenerated: false,
            snapshot_state: "fresh".to_owned(),
            rebuild_counts: Some(stats.rebuild_counts.clone()),
            filters,
            results,
            cached: true,
            cached_at: generated_at.to_owned(),
            snapshot_date: snapshot_date.to_owned(),
            methodology: agentrep_model::METHODOLOGY_VERSION.to_owned(),
        }
    }
}

/// Snapshot-wide counts every leaderboard view carries.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct LeaderboardStats {
    /// Ranked sellers.
    pub ranked: u32,
    /// All indexed sellers.
    pub total_indexed: u32,
    /// Indexed sellers per network.
    pub network_breakdown: std::collections::BTreeMap<String, u32>,
    /// Rebuild counts.
    pub rebuild_counts: RebuildCountsV1,
}

/// The full leaderboard file: stats plus every ranked entry with its sparkline.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct LeaderboardFileV1 {
    /// `agentrep-leaderboard-full-v1`.
    pub version: String,
    /// Generation time.
    pub generated_at: String,
    /// Snapshot day.
    pub snapshot_date: String,
    /// Counts.
    pub stats: LeaderboardStats,
    /// Ranked entries with sparklines, in order.
    pub entries: Vec<LeaderboardEntryV1>,
}
