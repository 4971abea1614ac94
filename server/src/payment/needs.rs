//! What a paid route needs, beyond taking payments, to deliver what it sells; and whether this
//! deployment has it. A route whose needs are missing is refused before any terms are quoted, so
//! no buyer signs an authorization for an answer (a signed receipt, a live read) the deployment
//! cannot produce (DESIGN invariant 10).

use crate::{ApiError, App};

pub use super::prices::Need;

/// Whether this deployment has `need`.
fn met_by(need: Need, app: &App) -> bool {
    match need {
        Need::SigningKey => app.operator().is_some(),
        Need::LiveSources => app.live().is_some(),
        Need::BusinessReviews => app.places().is_some(),
        Need::Farcaster => app.caster().is_some(),
    }
}

/// What of `needs` this deployment lacks (payments aside).
pub fn unmet(app: &App, needs: &[Need]) -> Vec<Need> {
    needs.iter().copied().filter(|n| !met_by(*n, app)).collect()
}

/// Why a paid route cannot be sold here, or `Ok` when it can.
///
/// # Errors
/// 503 before any terms: `no_business_source` when the route needs what no configuration
/// provides, `payments_not_configured` when the deployment takes no payments,
/// `paid_route_unavailable` naming every other missing need.
pub fn check(app: &App, needs: &[Need]) -> Result<(), ApiError> {
    let missing = unmet(app, needs);
    if missing.contains(&Need::BusinessReviews) {
        return Err(ApiError::PaidRouteUnavailable {
            code: "no_business_source",
            message: format!(
                "this deployment has no business-review source: this route needs {}; no terms are quoted and nothing is charged",
                Need::BusinessReviews.describe()
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

/// Every paid endpoint, on or off on this deployment and why (the startup log, `/status`,
/// `serve --check`).
pub fn paid_route_states(app: &App) -> Vec<PaidRouteState> {
    app.endpoints()
        .iter()
        .filter_map(|def| {
            let paid = def.paid.as_ref()?;
            Some(PaidRouteState {
                route: format!("{} {}", def.method.as_str(), paid.path(def.path)),
                price: paid.price,
                off_because: check(app, paid.needs).err().map(|e| e.to_string()),
            })
        })
        .collect()
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
