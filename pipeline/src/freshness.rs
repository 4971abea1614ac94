//! Whether each source has fresh data for the rebuild day, by the sources table's freshness rules
//! (`agentrep_lake::sources`: every dataset a source feeds the rebuild has one). A stale dataset
//! whose absence leaves no score makes every score it feeds `degraded` (score null, decision fails
//! closed); one that feeds seller checks is reported in `missingSignals` and `DEGRADED:` sources,
//! and caps the decision at `PROCEED_LOW_VALUE`, because the checks it feeds cannot be trusted to
//! be complete; one that proves (ranked domains) lapses in its own pass (the rows older than its
//! window prove nothing); one that is evidence only when present changes nothing by its absence.
//! Nothing stale silently turns a check off.

use agentrep_lake::sources::{self, WhenStale};
use agentrep_lake::{Dataset, Lake, LakeError};
use chrono::NaiveDate;

/// The stale sources on the day.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct SourceFreshness {
    /// Required sources that are stale, e.g. `settlements-stale`.
    pub degraded: Vec<String>,
    /// Other seller sources that are stale, e.g. `funding-stale`.
    pub stale: Vec<String>,
    /// Deployer sources that are stale.
    pub deployers_stale: Vec<String>,
}

/// Days the rows of `dataset` count for after they were written: its freshness window in the
/// sources table (how the ranked-domain proof lapses).
///
/// # Panics
/// When the table has no rule for `dataset` (a test keeps every source's datasets covered).
pub fn window_days(dataset: Dataset) -> i64 {
    sources::max_age_days(dataset).unwrap_or_else(|| panic!("the sources table has a rule for {}", dataset.name()))
}

pub(crate) fn check(lake: &Lake, day: NaiveDate) -> Result<SourceFreshness, LakeError> {
    let mut out = SourceFreshness::default();
    for (_, r) in sources::freshness_rules() {
        let list = match r.when_stale {
            WhenStale::NoScore => &mut out.degraded,
            WhenStale::CapsSellers => &mut out.stale,
            WhenStale::CapsDeployers => &mut out.deployers_stale,
            WhenStale::Lapses | WhenStale::EvidenceOnly => continue,
        };
        let newest = lake.partition_days(r.dataset)?.into_iter().rfind(|d| *d <= day);
        if newest.is_some_and(|d| (day - d).num_days() <= r.max_age_days) {
            continue;
        }
        if !list.iter().any(|k| k == r.key) {
            list.push(r.key.to_owned());
        }
    }
    Ok(out)
}
