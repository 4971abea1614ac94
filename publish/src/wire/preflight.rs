//! Preflight decisions and trust-shield payloads.

use super::agent::TrustShieldV1;
use super::score::ScoreBreakdownV1;
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

/// Preflight decision payload.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct PreflightV1 {
    /// `agentrep-preflight-v1`.
    pub version: String,
    /// Lowercase address.
    pub address: String,
    /// `BLOCK`, `CAUTION`, `PROCEED` or `PROCEED_LOW_VALUE`.
    pub decision: String,
    /// `proven` when evidence that costs more to fake than it earns stands behind the seller (a
    /// ranked domain it controls, trusted paying entities, a Coinbase verification, a curated
    /// allowlist), else `unproven`: its evidence is counted, not proven, which alone is never a
    /// warning. Rankings put proven sellers first.
    pub evidence_tier: String,
    /// What proves it, in words (empty when unproven).
    pub proven_by: Vec<String>,
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
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct PreflightCategoryV1 {
    /// Primary category.
    pub primary: String,
    /// Tags.
    pub tags: Vec<String>,
}

/// Trust-shield-only payload.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
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

/// Preflight of an address that is not indexed.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
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
