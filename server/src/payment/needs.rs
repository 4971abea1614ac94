//! What a paid route needs, beyond taking payments, to deliver what it sells; and whether this
//! deployment has it. A route whose needs are missing is refused before any terms are quoted, so
//! no buyer signs an authorization for an answer (a signed receipt, a live read) the deployment
//! cannot produce (DESIGN invariant 10).

use super::prices::PaidVariant;
use crate::{ApiError, App};

/// One thing a paid route's answer depends on.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Need {
    /// The operator's signing key (`AGENTREP_SIGNING_KEY`): signed receipts and attestations.
    SigningKey,
    /// The live sources (`AGENTREP_LIVE_SOURCES`): the chain and probe rules a live read uses.
    LiveSources,
    /// A source of real-world business reviews. This build has none, so no deployment meets it.
    BusinessReviews,
}

impl Need {
    /// What it is, for a refusal or a log line.
    pub fn describe(self) -> &'static str {
        match self {
            Need::SigningKey => {
                "the operator's signing key (AGENTREP_SIGNING_KEY), which signs what the answer promises"
            }
            Need::LiveSources => {
                "live sources (AGENTREP_LIVE_SOURCES, an agentrep.toml whose chain is the seller's network)"
            }
            Need::BusinessReviews => "a source of real-world business reviews, which this build does not have",
        }
    }

    /// What provides it, in a word (the README's table).
    pub fn variable(self) -> &'static str {
        match self {
            Need::SigningKey => "`AGENTREP_SIGNING_KEY`",
            Need::LiveSources => "`AGENTREP_LIVE_SOURCES`",
            Need::BusinessReviews => "a business-review source (none in this build: 503 `no_business_source`)",
        }
    }

    /// Whether an operator can provide it by configuration.
    pub fn configurable(self) -> bool {
        !matches!(self, Need::BusinessReviews)
    }

    fn met_by(self, app: &App) -> bool {
        match self {
            Need::SigningKey => app.operator().is_some(),
            Need::LiveSources => app.live().is_some(),
            Need::BusinessReviews => false,
        }
    }
}

/// What `paid` needs that this deployment lacks (payments aside).
pub fn unmet(app: &App, paid: &PaidVariant) -> Vec<Need> {
    paid.needs.iter().copied().filter(|n| !n.met_by(app)).collect()
}

/// Why a paid route cannot be sold here, or `Ok` when it can.
///
/// # Errors
/// 503 before any terms: `no_business_source` when the route needs what no configuration
/// provides, `payments_not_configured` when the deployment takes no payments,
/// `paid_route_unavailable` naming every other missing need.
pub fn check(app: &App, paid: &PaidVariant) -> Result<(), ApiError> {
    let missing = unmet(app, paid);
    if let Some(unconfigurable) = missing.iter().find(|n| !n.configurable()) {
        return Err(ApiError::PaidRouteUnavailable {
            code: "no_business_source",
            message: format!(
                "this route needs {}; no terms are quoted and nothing is charged",
                unconfigurable.describe()
            ),
        });
    }
    app.payments()?;
    if missing.is_empty() {
        return Ok(());
    }
    Err(ApiError::PaidRouteUnavailable {
        code: "paid_route_unavailable",
        message: format!(
            "this deployment cannot deliver this paid answer: it needs {}; no terms are quoted and nothing is charged",
            join(&missing)
        ),
    })
}

/// What is missing, in words.
pub fn join(needs: &[Need]) -> String {
    needs.iter().map(|n| n.describe()).collect::<Vec<_>>().join(", and ")
}

/// One paid route's state on this deployment.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PaidRouteState {
    /// `METHOD path`, with the query that selects a paid variant.
    pub route: String,
    /// Price, micro-USDC.
    pub price: u64,
    /// `None` when it is sold; otherwise why not.
    pub off_because: Option<String>,
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_route_that_signs_or_reads_live_says_so() {
        use crate::payment::prices::{LIVE_RESCORE, PLACE_SNAPSHOT, RISK_REPORT};
        assert!(LIVE_RESCORE.needs.contains(&Need::LiveSources));
        // Its receipt is what unlocks `?full=1`: without a key the buyer would pay for a promise.
        assert!(LIVE_RESCORE.needs.contains(&Need::SigningKey));
        assert!(RISK_REPORT.needs.contains(&Need::SigningKey));
        assert!(PLACE_SNAPSHOT.needs.contains(&Need::BusinessReviews));
    }
}
