//! What a snapshot carries for the server's paid live re-score: per seller, the features the model
//! read and the [`LiveBasis`] newer evidence is folded into (`live-basis.parquet`, typed columns:
//! [`columns`]); per snapshot, what every re-score shares (`live-context.json`). Data the server
//! reads, never served as files (they name every payer's standing).

pub mod columns;

use agentrep_model::live::LiveBasis;
use agentrep_model::sources::SourceNote;
use agentrep_model::{ListingInfo, ProbeSummary, SellerFeatures, SellerRecord};
use serde::{Deserialize, Serialize};

pub use columns::LiveBases;

/// Version tag of [`LiveContextV1`].
pub const LIVE_CONTEXT_VERSION: &str = "agentrep-live-context-v1";

/// One seller's row of `live-basis.parquet`, decoded.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct LiveSellerV1 {
    /// The marketplace listing the snapshot read.
    pub listing: ListingInfo,
    /// The features the rebuild's model read.
    pub features: SellerFeatures,
    /// What newer evidence is folded into.
    pub basis: LiveBasis,
    /// The snapshot's evidence sources, the components' bases and the stale sources.
    pub sources: Vec<SourceNote>,
    /// The snapshot's most recent probe.
    pub last_probe: Option<ProbeSummary>,
}

/// One seller's live basis as the writer reads it: borrowed, so a snapshot's 100k sellers are not
/// copied to be written.
#[derive(Debug, Clone, Copy)]
pub struct LiveRow<'a> {
    /// Lowercase seller address.
    pub seller: &'a str,
    /// [`LiveSellerV1::listing`].
    pub listing: &'a ListingInfo,
    /// [`LiveSellerV1::features`].
    pub features: &'a SellerFeatures,
    /// [`LiveSellerV1::basis`].
    pub basis: &'a LiveBasis,
    /// [`LiveSellerV1::sources`].
    pub sources: &'a [SourceNote],
    /// [`LiveSellerV1::last_probe`].
    pub last_probe: Option<&'a ProbeSummary>,
}

impl<'a> LiveRow<'a> {
    /// The row of a rebuilt seller.
    pub fn of(s: &'a SellerRecord) -> Self {
        Self {
            seller: &s.address,
            listing: &s.listing,
            features: &s.features,
            basis: &s.live,
            sources: &s.sources,
            last_probe: s.profile.last_probe.as_ref(),
        }
    }

    /// The row of a decoded seller.
    pub fn decoded(seller: &'a str, s: &'a LiveSellerV1) -> Self {
        Self {
            seller,
            listing: &s.listing,
            features: &s.features,
            basis: &s.basis,
            sources: &s.sources,
            last_probe: s.last_probe.as_ref(),
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
    /// The oracle's own paying wallets (lowercase, sorted): their settlements are its paid calls,
    /// no seller's demand (absent in contexts published before it).
    #[serde(default)]
    pub oracle_payers: Vec<String>,
}
