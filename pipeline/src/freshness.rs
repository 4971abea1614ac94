//! Whether each required source has fresh data for the rebuild day. A stale or missing source
//! makes every score it feeds `degraded` (score null, decision fails closed) rather than low.

use agentrep_lake::{Dataset, Lake, LakeError};
use chrono::NaiveDate;

/// Sources the seller score cannot do without, and how many days old their newest partition may
/// be (listings are crawled weekly at the largest scale).
pub const REQUIRED_SOURCES: &[(Dataset, i64, &str)] = &[
    (Dataset::Listings, 7, "marketplace-stale"),
    (Dataset::Settlements, 1, "settlements-stale"),
    (Dataset::Probes, 6, "probes-stale"),
];

/// The required sources that are stale on the day, as `DEGRADED:` keys.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct SourceFreshness {
    /// Keys such as `settlements-stale`.
    pub degraded: Vec<String>,
}

pub(crate) fn check(lake: &Lake, day: NaiveDate) -> Result<SourceFreshness, LakeError> {
    let mut degraded = Vec::new();
    for (dataset, max_age, key) in REQUIRED_SOURCES {
        let newest = lake.partitions_up_to(*dataset, day)?.last().map(|p| p.date);
        if newest.is_none_or(|d| (day - d).num_days() > *max_age) {
            degraded.push((*key).to_owned());
        }
    }
    Ok(SourceFreshness { degraded })
}
