//! Wire types of every published payload, versioned (`agentrep-<name>-v1`). These structs are the
//! only definition of the JSON, CSV and Parquet shapes: writers serialise them, the server's
//! reader deserialises them.

use serde::{Deserialize, Serialize};

/// Service name in payload versions.
pub const SERVICE: &str = "agentrep";

/// `agentrep-<name>-v1`.
pub fn version(name: &str) -> String {
    format!("{SERVICE}-{name}-v1")
}

/// One raised flag (seed §2.4 `trustShield.flags[]`).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct FlagV1 {
    /// Flag key.
    pub key: String,
    /// `positive`, `info`, `low`, `medium`, `high` or `critical`.
    pub severity: String,
    /// What was measured.
    pub detail: String,
}

/// Trust shield (seed §2.4).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct TrustShieldV1 {
    /// `green`, `yellow` or `red`.
    pub color: String,
    /// Raised flags.
    pub flags: Vec<FlagV1>,
    /// `<severity>:<key>` of the weightiest flag.
    pub reason_short: String,
    /// What the weightiest flag means.
    pub explainer: String,
    /// On the allowlist.
    pub allowlisted: bool,
    /// Allowlist label, empty when not allowlisted.
    pub allowlist_label: String,
}

/// SLA of the health probes (seed §2.3).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct SlaV1 {
    /// Probes in the window.
    pub samples: u32,
    /// Alive share, 0..=1.
    pub ok_rate: f64,
    /// Median latency of alive probes; null when no probe was alive (never a fake 0 ms).
    #[serde(rename = "latencyP50ms")]
    pub latency_p50_ms: Option<u32>,
    /// 95th percentile latency.
    #[serde(rename = "latencyP95ms")]
    pub latency_p95_ms: Option<u32>,
    /// Mean latency.
    pub avg_latency_ms: Option<u32>,
    /// Warning about few samples.
    pub note: Option<String>,
}

/// Settlement totals (seed §2.3).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct SettlementsV1 {
    /// Settlements.
    pub count: u64,
    /// Volume, USDC.
    pub volume_usdc: f64,
}

/// Leaderboard metrics (seed §2.3).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct MetricsV1 {
    /// Success rate, null without enough evidence.
    pub success_rate: Option<f64>,
    /// Settled jobs.
    pub job_count: u64,
    /// Volume, USDC.
    pub usdc_volume: f64,
    /// Days since the last settlement (0 = today); null when there never was one.
    pub days_since_last_job: Option<u32>,
    /// Settlement totals.
    pub settlements: SettlementsV1,
    /// Probe SLA.
    pub sla: SlaV1,
}

/// Price of a paid endpoint (seed §2.2).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct PriceV1 {
    /// Integer amount in the asset's smallest unit, as a string.
    pub amount: String,
    /// Asset contract.
    pub asset: String,
    /// Network.
    #[serde(skip_serializing_if = "Option::is_none", default)]
    pub network: Option<String>,
}

/// One sparkline point (`sparkline7d[]`).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct SparkPointV1 {
    /// `YYYY-MM-DD`.
    pub snapshot_date: String,
    /// Score, null when degraded.
    pub score: Option<u8>,
}

/// Leaderboard entry (seed §2.2).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
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
    pub sources: Vec<String>,
    /// ERC-8004 registered.
    pub erc8004_registered: bool,
    /// Has at least one identity proof.
    pub verified: bool,
    /// Identity proofs.
    pub proof_count: u32,
    /// Preflight decision (agentrep addition).
    pub decision: String,
    /// Last 7 daily scores, only with `sparkline=1`.
    #[serde(rename = "sparkline7d", skip_serializing_if = "Option::is_none", default)]
    pub sparkline_7d: Option<Vec<SparkPointV1>>,
}

/// Leaderboard filters (seed §2.1).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
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
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
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
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct RebuildCountsV1 {
    /// Sellers scored.
    pub sellers: u32,
    /// Deployers scored.
    pub deployers: u32,
    /// Sellers with a degraded score.
    pub degraded: u32,
}

/// Launch outcome counts (seed §2.4 `outcomeHistory`).
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct OutcomeHistoryV1 {
    /// Graduated.
    pub graduated: u32,
    /// Rugged.
    pub rugged: u32,
    /// Abandoned.
    pub abandoned: u32,
    /// Alive.
    pub alive: u32,
    /// Inconclusive.
    pub inconclusive: u32,
    /// All.
    pub total: u32,
}

/// Score payload metrics (seed §2.4 plus the leaderboard's).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ScoreMetricsV1 {
    /// The leaderboard's metrics.
    #[serde(flatten)]
    pub metrics: MetricsV1,
    /// Launch outcomes when the wallet also deploys tokens.
    pub outcome_history: OutcomeHistoryV1,
}

/// EAS attestations (seed §2.4).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct EasV1 {
    /// Attestations found.
    pub count: u32,
    /// Not revoked or expired.
    pub active: u32,
}

/// Category (seed §2.4).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct CategoryV1 {
    /// Primary category.
    pub primary: String,
    /// Tags.
    pub tags: Vec<String>,
    /// Rank among scored agents of the category.
    pub rank_in_category: u32,
    /// Scored agents of the category.
    pub total_in_category: u32,
    /// Browse URL.
    pub browse: String,
}

/// Health (seed §2.4).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct HealthV1 {
    /// Last probe alive.
    pub alive: bool,
    /// Probes in the window.
    pub samples: u32,
}

/// Verification hints (seed §2.4).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct VerifyV1 {
    /// Attestation URL.
    pub attestation_url: String,
    /// Verifier contract, null until one is deployed.
    pub verifier_contract: Option<String>,
    /// Network.
    pub network: String,
    /// How to verify.
    pub hint: String,
}

/// A related paid route.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct RelatedPaidV1 {
    /// URL.
    pub url: String,
    /// Price, USDC.
    pub price: String,
    /// Purpose.
    pub purpose: String,
}

/// Related attestation route.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct RelatedAttestationV1 {
    /// URL.
    pub url: String,
    /// Signature type.
    #[serde(rename = "type")]
    pub kind: String,
    /// Purpose.
    pub purpose: String,
}

/// Related routes (seed §2.4).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct RelatedV1 {
    /// Paid audit.
    pub audit: RelatedPaidV1,
    /// Catalog.
    pub catalog: String,
    /// Agents of interest.
    pub agents_of_interest: String,
    /// Revenue.
    pub revenue: String,
    /// Attestation.
    pub attestation: RelatedAttestationV1,
}

/// Score payload, the free preview of one agent (seed §2.4).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ScorePayloadV1 {
    /// `agentrep-score-v1`.
    pub version: String,
    /// Lowercase address.
    pub agent_address: String,
    /// Score 0..=100, null when not measured.
    pub score: Option<u8>,
    /// `measured`, `not-indexed` or `degraded`.
    #[serde(rename = "score_basis")]
    pub score_basis: String,
    /// Day of the row the score came from.
    #[serde(rename = "scored_at")]
    pub scored_at: Option<String>,
    /// Trust shield.
    pub trust_shield: TrustShieldV1,
    /// `SAFE`, `CAUTION` or `BLOCK`.
    pub verdict: String,
    /// Preflight decision.
    pub decision: String,
    /// Attestation tier.
    pub tier: String,
    /// Metrics.
    pub metrics: ScoreMetricsV1,
    /// EAS attestations.
    pub eas: EasV1,
    /// Category.
    pub category: CategoryV1,
    /// Description.
    pub description: String,
    /// `YYYY-MM-DD`.
    pub snapshot_date: String,
    /// Health.
    pub health: HealthV1,
    /// Snapshot the score came from.
    pub source: String,
    /// `free`.
    pub billed: String,
    /// Only the preview is returned.
    pub gated: bool,
    /// EOA/contract class, null when not checked.
    pub address_class: Option<String>,
    /// Paid endpoint.
    pub resource_path: String,
    /// Advertised price.
    pub price: Option<PriceV1>,
    /// Evidence sources.
    pub sources: Vec<String>,
    /// What the gate hides and how to lift it.
    pub note: String,
    /// Verification hints.
    pub verify: VerifyV1,
    /// Related routes.
    pub related: RelatedV1,
    /// 0..=1: how much evidence stands behind the score.
    pub confidence: f64,
    /// Signals with no evidence, and stale sources.
    pub missing_signals: Vec<String>,
    /// How the score was computed, by the code that computed it.
    pub score_breakdown: ScoreBreakdownV1,
    /// Methodology version.
    pub methodology: String,
}

/// One component of a seller's score.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct BreakdownComponentV1 {
    /// `demand`, `reputation`, `reliability`, `recency` or `longevity`.
    pub name: String,
    /// Points, null when there is no evidence for the component.
    pub points: Option<f64>,
    /// Maximum points of the evidence present.
    pub max: f64,
    /// 0..=1: how much evidence stands behind the points.
    pub confidence: f64,
    /// Evidence counts behind the points (null: not measured).
    pub evidence: std::collections::BTreeMap<String, Option<f64>>,
}

/// Points a raised flag takes off.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct BreakdownPenaltyV1 {
    /// Flag key.
    pub key: String,
    /// Points taken off.
    pub points: f64,
}

/// How a seller's score was computed.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ScoreBreakdownV1 {
    /// The formula in words.
    pub formula: String,
    /// The components, each with its points (null when missing) and evidence.
    pub components: Vec<BreakdownComponentV1>,
    /// Sum of the maxima of the components with evidence.
    pub available_max: f64,
    /// Penalties of raised flags.
    pub penalties: Vec<BreakdownPenaltyV1>,
    /// The resulting score (null when degraded).
    pub score: Option<u8>,
    /// 0..=1 confidence.
    pub confidence: f64,
    /// Signals with no evidence, and stale sources.
    pub missing_signals: Vec<String>,
}

/// One term of a deployer's score.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct BreakdownTermV1 {
    /// Term name.
    pub name: String,
    /// Points it adds (negative for rugs).
    pub points: f64,
}

/// How a deployer's score was computed.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct DeployerBreakdownV1 {
    /// The formula in words.
    pub formula: String,
    /// Its terms.
    pub terms: Vec<BreakdownTermV1>,
    /// The resulting score, null without a decided launch.
    pub score: Option<u8>,
}

/// Preflight decision payload.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct PreflightV1 {
    /// `agentrep-preflight-v1`.
    pub version: String,
    /// Lowercase address.
    pub address: String,
    /// `BLOCK`, `CAUTION`, `PROCEED` or `PROCEED_LOW_VALUE`.
    pub decision: String,
    /// Score, null when not measured.
    pub score: Option<u8>,
    /// `measured`, `not-indexed` or `degraded`.
    #[serde(rename = "score_basis")]
    pub score_basis: String,
    /// `SAFE`, `CAUTION` or `BLOCK`.
    pub verdict: String,
    /// Shield.
    pub trust_shield: TrustShieldV1,
    /// Category.
    pub category: PreflightCategoryV1,
    /// Human-readable signals.
    pub signals: Vec<String>,
    /// `YYYY-MM-DD`.
    pub snapshot_date: String,
    /// 0..=1: how much evidence stands behind the score.
    pub confidence: f64,
    /// Signals with no evidence, and stale sources.
    pub missing_signals: Vec<String>,
    /// How the score was computed, by the code that computed it.
    pub score_breakdown: ScoreBreakdownV1,
    /// Methodology version.
    pub methodology: String,
}

/// Category in a preflight.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct PreflightCategoryV1 {
    /// Primary category.
    pub primary: String,
    /// Tags.
    pub tags: Vec<String>,
}

/// Trust-shield-only payload.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ShieldPayloadV1 {
    /// `agentrep-trust-shield-v1`.
    pub version: String,
    /// Lowercase address.
    pub address: String,
    /// Shield.
    #[serde(flatten)]
    pub shield: TrustShieldV1,
    /// `YYYY-MM-DD`.
    pub snapshot_date: String,
    /// Methodology version.
    pub methodology: String,
}

/// One day of history.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct HistoryPointV1 {
    /// `YYYY-MM-DD`.
    pub date: String,
    /// Score.
    pub score: Option<u8>,
    /// Settlements up to the day.
    pub job_count: u64,
    /// Methodology version that computed the score.
    pub methodology: String,
}

/// Score history payload (reference/mainstreet.md `count, series, note`).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct HistoryV1 {
    /// `agentrep-history-v1`.
    pub version: String,
    /// Lowercase address.
    pub address: String,
    /// Days requested (all available, at most 90, in the static file).
    pub days: u32,
    /// Points in the series.
    pub count: u32,
    /// Daily points, oldest first.
    pub series: Vec<HistoryPointV1>,
    /// Explains gaps.
    pub note: Option<String>,
    /// `YYYY-MM-DD`.
    pub snapshot_date: String,
    /// Methodology version of the snapshot (each point carries its own).
    pub methodology: String,
}

/// One launch in a deployer payload.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct LaunchV1 {
    /// Token.
    pub token: String,
    /// Platform.
    pub platform: String,
    /// Outcome bucket.
    pub outcome: String,
    /// Peak pool liquidity, USDC.
    pub peak_liquidity_usdc: f64,
    /// Days since launch.
    pub age_days: u32,
}

/// Deployer metrics.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct DeployerMetricsV1 {
    /// Launches.
    pub launches: u32,
    /// Graduated or alive over decided launches, percent.
    pub survival_pct: Option<f64>,
    /// Rugged over decided launches, percent.
    pub rug_rate_pct: Option<f64>,
    /// Median peak liquidity of launches, USDC.
    pub median_peak_liquidity_usdc: f64,
    /// Days since the first launch.
    pub age_days: u32,
    /// Outcomes.
    pub outcome_history: OutcomeHistoryV1,
}

/// Deployer payload (seed §4.2).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct DeployerV1 {
    /// `agentrep-deployer-v1`.
    pub version: String,
    /// Lowercase address.
    pub address: String,
    /// Score 0..=100, null without a decided launch.
    pub score: Option<u8>,
    /// `measured` or `insufficient-history`.
    #[serde(rename = "score_basis")]
    pub score_basis: String,
    /// `OK`, `CAUTION` or `AVOID`.
    pub verdict: String,
    /// Why the verdict is what it is.
    pub reasons: Vec<String>,
    /// The denylisted or rugging funder that taints this wallet, if any.
    pub tainted_by: Option<String>,
    /// Serial deployer with mostly rugged launches.
    pub sketchy: bool,
    /// How the score was computed, by the code that computed it.
    pub score_breakdown: DeployerBreakdownV1,
    /// Metrics.
    pub metrics: DeployerMetricsV1,
    /// Identity proofs.
    pub proofs: Vec<String>,
    /// Launches, newest first.
    pub launches: Vec<LaunchV1>,
    /// `YYYY-MM-DD` of the first launch.
    pub first_launch: String,
    /// `YYYY-MM-DD`.
    pub snapshot_date: String,
    /// Methodology version.
    pub methodology: String,
}

/// One mover (reference/mainstreet.md fixture).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
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
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
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
    /// Explanation.
    pub note: String,
    /// Largest rises.
    pub gainers: Vec<MoverV1>,
    /// Largest falls.
    pub losers: Vec<MoverV1>,
    /// Methodology version.
    pub methodology: String,
}

/// One file in a manifest.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct ManifestFileV1 {
    /// Path relative to the snapshot folder.
    pub path: String,
    /// Bytes.
    pub size: u64,
    /// SHA-256, hex.
    pub sha256: String,
}

/// Counts of a snapshot.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct SnapshotCountsV1 {
    /// Sellers.
    pub sellers: u32,
    /// Sellers on the leaderboard.
    pub ranked: u32,
    /// Deployers.
    pub deployers: u32,
    /// Other known wallets.
    pub counterparties: u32,
}

/// The manifest of a snapshot folder.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ManifestV1 {
    /// `agentrep-manifest-v1`.
    pub version: String,
    /// Snapshot id (also the folder name).
    pub snapshot_id: String,
    /// Snapshot day.
    pub snapshot_date: String,
    /// ISO 8601 UTC, derived from the day.
    pub generated_at: String,
    /// Methodology version.
    pub methodology: String,
    /// SHA-256 of the lake input.
    pub input_digest: String,
    /// Base path the payloads' links use.
    pub base_path: String,
    /// Counts.
    pub counts: SnapshotCountsV1,
    /// Every other file with size and hash, sorted by path.
    pub files: Vec<ManifestFileV1>,
}

/// One row of `scores.csv` (the columns of the original service's CSV export plus ours).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ScoreCsvRowV1 {
    /// Leaderboard rank, empty when not ranked.
    pub rank: Option<u32>,
    /// Wallet.
    pub address: String,
    /// Score, empty when not measured.
    pub score: Option<u8>,
    /// Settled jobs.
    pub job_count: u64,
    /// Success rate.
    pub success_rate: Option<f64>,
    /// Volume, USDC.
    pub usdc_volume: f64,
    /// Days since the last settlement.
    pub days_since_last_job: Option<u32>,
    /// Description.
    pub description: Option<String>,
    /// Paid endpoint.
    pub service_url: String,
    /// Advertised price, USDC.
    pub price_usdc: Option<f64>,
    /// Network.
    pub network: String,
    /// Snapshot day.
    pub snapshot_date: String,
    /// Profile URL.
    pub profile_url: String,
    /// Preflight decision.
    pub decision: String,
    /// Shield colour.
    pub shield: String,
    /// Raised flag keys, `|`-separated.
    pub flags: String,
    /// `measured` or `degraded`.
    pub score_basis: String,
    /// Methodology version.
    pub methodology: String,
}

/// Another known wallet (payer, funder, listed): the cross-references behind an unknown address's
/// preliminary signals.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct CounterpartyCsvRowV1 {
    /// Wallet.
    pub address: String,
    /// Settlements it paid.
    pub payments: u64,
    /// Distinct sellers it paid.
    pub sellers_paid: u32,
    /// Addresses it funded first.
    pub funded: u32,
    /// On the denylist.
    pub denylisted: bool,
}

/// An error body: `{"error": {"code", "message"}}`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ErrorBodyV1 {
    /// The error.
    pub error: ErrorV1,
}

/// Code and message of an error.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ErrorV1 {
    /// Stable machine-readable code.
    pub code: String,
    /// Human-readable message.
    pub message: String,
}

/// Database cross-references of an address that is not a scored seller.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct CrossReferencesV1 {
    /// Settlements it paid to indexed sellers.
    pub payments_made: u64,
    /// Distinct indexed sellers it paid.
    pub sellers_paid: u32,
    /// Addresses it funded first.
    pub addresses_funded: u32,
    /// On the denylist.
    pub denylisted: bool,
    /// It deploys tokens (see `/deployer/{address}`).
    pub deployer: bool,
}

/// Preliminary signals of an address with no score (seed §2.4, last paragraph).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct PreliminaryV1 {
    /// EOA / contract / 7702 class, null until a chain RPC is configured.
    pub address_class: Option<String>,
    /// ERC-1167 implementation behind a minimal proxy, null when not checked.
    pub proxy_implementation: Option<String>,
    /// Why class and proxy are null.
    pub code_check: String,
    /// What agentrep's datasets know of the address.
    pub cross_references: CrossReferencesV1,
    /// What the caller can do next.
    pub next_actions: Vec<String>,
}

/// Score read of an address that is not indexed: never a null body.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct UnindexedScoreV1 {
    /// `agentrep-score-v1`.
    pub version: String,
    /// Lowercase address.
    pub agent_address: String,
    /// Always null: not a low score.
    pub score: Option<u8>,
    /// `not-indexed`.
    #[serde(rename = "score_basis")]
    pub score_basis: String,
    /// `BLOCK` when denylisted, else `CAUTION` (unknown).
    pub decision: String,
    /// Preliminary signals.
    pub preliminary: PreliminaryV1,
    /// Snapshot day.
    pub snapshot_date: String,
    /// Snapshot id.
    pub source: String,
    /// `free`.
    pub billed: String,
    /// Methodology version.
    pub methodology: String,
}

/// Preflight of an address that is not indexed.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct UnindexedPreflightV1 {
    /// `agentrep-preflight-v1`.
    pub version: String,
    /// Lowercase address.
    pub address: String,
    /// `BLOCK` when denylisted, else `CAUTION`.
    pub decision: String,
    /// Always null.
    pub score: Option<u8>,
    /// `not-indexed`.
    #[serde(rename = "score_basis")]
    pub score_basis: String,
    /// `red` when denylisted, else `yellow`.
    pub color: String,
    /// Human-readable signals.
    pub signals: Vec<String>,
    /// Snapshot day.
    pub snapshot_date: String,
    /// Methodology version.
    pub methodology: String,
}

/// One endpoint in `/health`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct EndpointV1 {
    /// Method.
    pub method: String,
    /// Full path.
    pub path: String,
    /// `none` or `x402`.
    pub auth: String,
    /// Price in USDC, null when free.
    pub price: Option<String>,
    /// What it answers.
    pub purpose: String,
}

/// `/health`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct HealthPayloadV1 {
    /// `agentrep-health-v1`.
    pub version: String,
    /// Service name.
    pub service: String,
    /// Server build version.
    pub server_version: String,
    /// `ok`, or `no-snapshot`.
    pub status: String,
    /// Current snapshot id.
    pub snapshot_id: Option<String>,
    /// Every endpoint.
    pub endpoints: Vec<EndpointV1>,
}

/// Payment state in `/status`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct PaymentsStatusV1 {
    /// Payments are accepted.
    pub x402_enabled: bool,
    /// Receiving address.
    pub pay_to: String,
    /// Explanation.
    pub note: String,
}

/// One job run: a line of `snapshots/runs.jsonl`, and an entry of `/status`'s `jobs`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct JobRunV1 {
    /// Job name (`rebuild`).
    pub job: String,
    /// Day processed.
    pub date: String,
    /// Snapshot produced.
    pub snapshot_id: String,
    /// Wall-clock start, ISO 8601 UTC.
    pub started_at: String,
    /// Duration, milliseconds.
    pub duration_ms: u64,
    /// `ok` or an error message.
    pub outcome: String,
    /// Per-pass durations, milliseconds.
    pub passes: Vec<(String, u64)>,
}

/// One ingest source's state: an entry of `snapshots/sources.json` and of `/status`'s `sources`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct SourceStatusV1 {
    /// Source name (`settlements`, `marketplace`, …).
    pub source: String,
    /// Up to when the source has read everything, ISO 8601 UTC.
    pub covered_until: Option<String>,
    /// Last block read (chain sources).
    pub last_block: Option<u64>,
    /// Seconds from `coveredUntil` to the last run.
    pub lag_seconds: Option<i64>,
    /// Last run, ISO 8601 UTC.
    pub last_run_at: String,
    /// Last success, ISO 8601 UTC.
    pub last_success_at: Option<String>,
    /// The last run's error.
    pub last_error: Option<String>,
    /// What the source cannot do with this node or configuration.
    pub notes: Vec<String>,
}

/// `/status`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct StatusV1 {
    /// `agentrep-status-v1`.
    pub version: String,
    /// Current snapshot id.
    pub snapshot_id: String,
    /// Snapshot day.
    pub snapshot_date: String,
    /// Snapshot generation time.
    pub generated_at: String,
    /// When this server loaded it (server clock).
    pub loaded_at: String,
    /// Methodology version.
    pub methodology: String,
    /// Lake input digest.
    pub input_digest: String,
    /// Counts.
    pub counts: SnapshotCountsV1,
    /// Snapshots retained on disk.
    pub retained_snapshots: Vec<String>,
    /// Payment state.
    pub payments: PaymentsStatusV1,
    /// Recent job runs, newest last.
    pub jobs: Vec<JobRunV1>,
    /// The ingest sources' checkpoints, lag and last errors (empty when the lake is not
    /// ingested, e.g. the demo world).
    pub sources: Vec<SourceStatusV1>,
}
