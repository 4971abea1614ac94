//! Pieces shared by the per-agent payloads: trust shield, metrics, SLA, price, category.

use super::{FlagKey, Severity, ShieldColor};
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

/// One raised flag (seed §2.4 `trustShield.flags[]`).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct FlagV1 {
    /// Flag key.
    pub key: FlagKey,
    /// `positive`, `info`, `low`, `medium`, `high` or `critical`.
    pub severity: Severity,
    /// What was measured.
    pub detail: String,
}

/// Trust shield (seed §2.4).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct TrustShieldV1 {
    /// `green`, `yellow` or `red`.
    pub color: ShieldColor,
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
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
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
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct SettlementsV1 {
    /// Settlements.
    pub count: u64,
    /// Volume, USDC.
    pub volume_usdc: f64,
}

/// Leaderboard metrics (seed §2.3).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
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
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct PriceV1 {
    /// Integer amount in the asset's smallest unit, as a string.
    pub amount: String,
    /// Asset contract.
    pub asset: String,
    /// Network.
    #[serde(skip_serializing_if = "Option::is_none", default)]
    pub network: Option<String>,
}

/// Launch outcome counts (seed §2.4 `outcomeHistory`).
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize, JsonSchema)]
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

/// Category (seed §2.4).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
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
