//! Whether each source has fresh data for the rebuild day. Every source has a rule. A stale
//! required source makes every score it feeds `degraded` (score null, decision fails closed); a
//! stale optional source is reported in `missingSignals` and `DEGRADED:` sources, and caps the
//! decision at `PROCEED_LOW_VALUE`, because the checks it feeds cannot be trusted to be complete.
//! Nothing stale silently turns a check off.

use agentrep_lake::{Dataset, Lake, LakeError};
use chrono::NaiveDate;

/// Who a source's freshness matters to.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Scope {
    /// Required for every seller score: stale means no score.
    Required,
    /// Feeds seller checks: stale caps seller decisions.
    Sellers,
    /// Feeds deployer verdicts only.
    Deployers,
}

/// One source's freshness rule: its newest partition may be at most `max_age_days` old.
#[derive(Debug, Clone, Copy)]
pub struct SourceRule {
    /// The dataset.
    pub dataset: Dataset,
    /// Days its newest partition may lag the rebuild day.
    pub max_age_days: i64,
    /// `DEGRADED:` key when stale.
    pub key: &'static str,
    /// Who it matters to.
    pub scope: Scope,
}

const fn rule(dataset: Dataset, max_age_days: i64, key: &'static str, scope: Scope) -> SourceRule {
    SourceRule { dataset, max_age_days, key, scope }
}

/// Every source's rule (listings are crawled weekly at the largest scale; the daily jobs write a
/// partition every day, empty when nothing happened).
pub const SOURCE_RULES: &[SourceRule] = &[
    rule(Dataset::Listings, 7, "marketplace-stale", Scope::Required),
    rule(Dataset::Settlements, 1, "settlements-stale", Scope::Required),
    rule(Dataset::Probes, 6, "probes-stale", Scope::Required),
    rule(Dataset::FundingEdges, 2, "funding-stale", Scope::Sellers),
    rule(Dataset::Erc8004Registrations, 2, "erc8004-stale", Scope::Sellers),
    rule(Dataset::Erc8004Feedback, 2, "erc8004-stale", Scope::Sellers),
    rule(Dataset::IdentityProofs, 7, "identity-proofs-stale", Scope::Sellers),
    rule(Dataset::AddressLists, 2, "denylist-stale", Scope::Sellers),
    rule(Dataset::EntityLabels, 30, "entity-labels-stale", Scope::Sellers),
    rule(Dataset::Receipts, 2, "receipts-stale", Scope::Sellers),
    rule(Dataset::TokenLaunches, 2, "launches-stale", Scope::Deployers),
    rule(Dataset::LaunchObservations, 2, "launches-stale", Scope::Deployers),
];

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

pub(crate) fn check(lake: &Lake, day: NaiveDate) -> Result<SourceFreshness, LakeError> {
    let mut out = SourceFreshness::default();
    for r in SOURCE_RULES {
        let newest = lake.partition_days(r.dataset)?.into_iter().rfind(|d| *d <= day);
        if newest.is_some_and(|d| (day - d).num_days() <= r.max_age_days) {
            continue;
        }
        let list = match r.scope {
            Scope::Required => &mut out.degraded,
            Scope::Sellers => &mut out.stale,
            Scope::Deployers => &mut out.deployers_stale,
        };
        if !list.iter().any(|k| k == r.key) {
            list.push(r.key.to_owned());
        }
    }
    Ok(out)
}
