//! Token-deployer profiles.

use super::agent::{FlagV1, OutcomeHistoryV1};
use super::score::BreakdownTermV1;
use super::{Decision, DeployerBasis, DeployerVerdict, LaunchOutcome};
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

/// How a deployer's score was computed.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct DeployerBreakdownV1 {
    /// The formula in words.
    pub formula: String,
    /// Its terms.
    pub terms: Vec<BreakdownTermV1>,
    /// The resulting score, null without a decided launch.
    pub score: Option<u8>,
}

/// One launch in a deployer payload.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct LaunchV1 {
    /// Token.
    pub token: String,
    /// Platform.
    pub platform: String,
    /// Outcome bucket.
    pub outcome: LaunchOutcome,
    /// Peak pool liquidity, USDC.
    pub peak_liquidity_usdc: f64,
    /// Days since launch.
    pub age_days: u32,
}

/// Deployer metrics.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
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
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
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
    pub score_basis: DeployerBasis,
    /// `OK`, `CAUTION` or `AVOID`.
    pub verdict: DeployerVerdict,
    /// Why the verdict is what it is.
    pub reasons: Vec<String>,
    /// The denylisted or rugging funder that taints this wallet, if any.
    pub tainted_by: Option<String>,
    /// The deployer flags raised (`deployer-tainted`), from the flag table; absent when none.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub flags: Vec<FlagV1>,
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

/// A deployer in a ranked list.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct DeployerListEntryV1 {
    /// Address.
    pub address: String,
    /// Score, null without a decided launch.
    pub score: Option<u8>,
    /// `OK`, `CAUTION` or `AVOID`.
    pub verdict: DeployerVerdict,
    /// Launches.
    pub launches: u32,
    /// Rugged launches.
    pub rugged: u32,
    /// Rugged share of decided launches, percent; null without one.
    pub rug_rate_pct: Option<f64>,
    /// Identity proofs.
    pub proof_count: u32,
    /// `/deployer/{address}` URL.
    pub profile: String,
}

/// `GET /deployers/top`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct DeployersTopV1 {
    /// `agentrep-deployers-top-v1`.
    pub version: String,
    /// Entries.
    pub count: u32,
    /// Scored deployers, score descending.
    pub deployers: Vec<DeployerListEntryV1>,
}

/// `GET /deployers/sketchy`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct DeployersSketchyV1 {
    /// `agentrep-deployers-sketchy-v1`.
    pub version: String,
    /// Entries.
    pub count: u32,
    /// Serial deployers (3 or more launches) whose decided launches are mostly rugged, most rugs first.
    pub sketchy: Vec<DeployerListEntryV1>,
    /// The rule.
    pub rule: String,
}

/// One launch platform's record.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct PlatformStatsV1 {
    /// Platform.
    pub platform: String,
    /// Deployers with a launch on it.
    pub deployers: u32,
    /// Launches.
    pub launches: u32,
    /// Launches with a decided outcome: the sample the rate is computed on.
    pub sample_size: u32,
    /// Rugged launches.
    pub rugged: u32,
    /// Rugged share of decided launches, percent; null without one.
    pub rug_rate_pct: Option<f64>,
}

/// `GET /deployers/stats`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct DeployersStatsV1 {
    /// `agentrep-deployers-stats-v1`.
    pub version: String,
    /// Scored deployers.
    pub total: u32,
    /// Per platform.
    pub platforms: Vec<PlatformStatsV1>,
}

/// `GET /virtuals-rep/{tokenAddress}`: an agent token's creator and the creator's reputation.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct TokenRepV1 {
    /// `agentrep-virtuals-rep-v1`.
    pub version: String,
    /// The token (lowercase).
    pub token: String,
    /// The platform it launched on.
    pub platform: String,
    /// The token's outcome so far.
    pub outcome: LaunchOutcome,
    /// Days since launch.
    pub age_days: u32,
    /// The wallet that launched it: the agent's operator.
    pub operator: String,
    /// The operator's deployer score, null without a decided launch.
    pub deployer_score: Option<u8>,
    /// The operator's deployer verdict.
    pub deployer_verdict: DeployerVerdict,
    /// The operator's seller score when it also sells an indexed x402 service.
    pub agent_score: Option<u8>,
    /// The operator's preflight decision as a seller, null when it sells nothing indexed.
    pub agent_decision: Option<Decision>,
    /// `/deployer/{operator}` URL.
    pub profile: String,
    /// What the answer rests on.
    pub note: String,
}
