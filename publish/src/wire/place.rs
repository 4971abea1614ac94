//! `GET /snapshot/{placeId}`: a real-world business's reviews, read from the operator's
//! business-review source when sold.

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

/// One review of a place.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct PlaceReviewV1 {
    /// Stars, 1..=5.
    pub rating: Option<f64>,
    /// The review's text (in its language).
    pub text: Option<String>,
    /// Its language code.
    pub language: Option<String>,
    /// The author's display name.
    pub author: Option<String>,
    /// ISO 8601 time it was published.
    pub published_at: Option<String>,
    /// As the source words it, e.g. `a week ago`.
    pub relative_time: Option<String>,
}

/// A place's review snapshot.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct PlaceSnapshotV1 {
    /// `agentrep-place-snapshot-v1`.
    pub version: String,
    /// The place id asked for.
    pub place_id: String,
    /// The place's name.
    pub name: Option<String>,
    /// Its formatted address.
    pub address: Option<String>,
    /// Mean rating, 1..=5; null when it has none.
    pub rating: Option<f64>,
    /// Ratings the mean is over.
    pub rating_count: u64,
    /// The most relevant recent reviews the source returns (at most 5).
    pub reviews: Vec<PlaceReviewV1>,
    /// The place on the source's map.
    pub maps_url: Option<String>,
    /// The source, e.g. `google-places`.
    pub source: String,
    /// ISO 8601 time the source was read.
    pub read_at: String,
}
