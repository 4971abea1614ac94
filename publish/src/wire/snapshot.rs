//! The snapshot manifest and the CSV export rows.

use super::Decision;
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

/// One file in a manifest.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
pub struct ManifestFileV1 {
    /// Path relative to the snapshot folder.
    pub path: String,
    /// Bytes.
    pub size: u64,
    /// SHA-256, hex.
    pub sha256: String,
}

/// Counts of a snapshot.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
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
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
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
    /// The operator's deployed `ScoreVerifier` named to the publisher (the score payloads'
    /// `verify.verifierContract`); null when none is.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub verifier_contract: Option<String>,
    /// Every other file with size and hash, sorted by path.
    pub files: Vec<ManifestFileV1>,
}

/// What `agentrep eval` reads back from `scores.csv`: the original service's columns and the
/// decision (the file has more; `exports::scores` declares them all and writes the file).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
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
    pub decision: Decision,
}

/// Another known wallet (payer, funder, listed): the cross-references behind an unknown address's
/// preliminary signals.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
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
    /// Qualifying volume it paid, micro-USDC (`spentMicroUsdc`; `spent` in snapshots before 2026-11-25).
    #[serde(default, rename = "spentMicroUsdc", alias = "spent")]
    pub spent: u64,
    /// Qualifying volume it paid in the last 7 days, micro-USDC (`spent7dMicroUsdc`).
    #[serde(default, rename = "spent7dMicroUsdc", alias = "spent7d")]
    pub spent_7d: u64,
    /// Qualifying settlements it paid in the last 7 days.
    #[serde(default)]
    pub payments_7d: u64,
    /// Distinct sellers it paid in the last 7 days.
    #[serde(default)]
    pub sellers_paid_7d: u32,
    /// Day of its first qualifying payment (`YYYY-MM-DD`; absent in snapshots before 2026-12-04).
    #[serde(default, rename = "firstPaidDay", deserialize_with = "empty_is_none")]
    pub first_paid_day: Option<String>,
    /// Day of its last qualifying payment.
    #[serde(default, rename = "lastPaidDay", deserialize_with = "empty_is_none")]
    pub last_paid_day: Option<String>,
}

/// An empty CSV cell as `None`.
fn empty_is_none<'de, D: serde::Deserializer<'de>>(d: D) -> Result<Option<String>, D::Error> {
    let v: Option<String> = Option::deserialize(d)?;
    Ok(v.filter(|s| !s.is_empty()))
}
