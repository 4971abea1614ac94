//! Daily score history.

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

/// One day of history.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
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
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
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
