//! What a snapshot carries for the server's paid live re-score: per seller, the features the model
//! read and the [`LiveBasis`] newer evidence is folded into; per snapshot, what every re-score
//! shares. Data the server reads, never served as files (they name every payer's standing).

use agentrep_model::live::LiveBasis;
use agentrep_model::{ListingInfo, ProbeSummary, SellerFeatures, SellerRecord};
use serde::{Deserialize, Serialize};

/// Version tag of [`LiveContextV1`].
pub const LIVE_CONTEXT_VERSION: &str = "agentrep-live-context-v1";

/// One line of `bundles/live-basis.keyed.jsonl`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct LiveSellerV1 {
    /// The marketplace listing the snapshot read.
    pub listing: ListingInfo,
    /// The features the rebuild's model read.
    pub features: SellerFeatures,
    /// What newer evidence is folded into.
    pub basis: LiveBasis,
    /// The snapshot's evidence sources, with their annotations.
    pub sources: Vec<String>,
    /// The snapshot's most recent probe.
    pub last_probe: Option<ProbeSummary>,
}

impl LiveSellerV1 {
    /// The line of a seller.
    pub fn of(s: &SellerRecord) -> Self {
        Self {
            listing: s.listing.clone(),
            features: s.features.clone(),
            basis: s.live.clone(),
            sources: s.sources.clone(),
            last_probe: s.profile.last_probe.clone(),
        }
    }
}

/// `live-context.json`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct LiveContextV1 {
    /// [`LIVE_CONTEXT_VERSION`].
    pub version: String,
    /// Snapshot day.
    pub snapshot_date: String,
    /// Known facilitators as of the day (lowercase, sorted): whose EIP-3009 settlements are
    /// demand.
    pub facilitators: Vec<String>,
}
