//! The paid reports (each refused before any payment when it cannot be produced) and the
//! service's own revenue, read from its payment ledger.

use std::sync::Arc;

use agentrep_publish::wire::{AuditBatchRequestV1, RevenueBuyersV1, RevenueV1, RouteRevenueV1, version};
use agentrep_store::RevenueTotals;
use hyper::StatusCode;
use schemars::JsonSchema;
use serde::Deserialize;

use super::attestations::{attestation_of, verify_url};
use super::snapshot;
use crate::http::{HandlerResult, Request, respond};
use crate::payment::flow::sell;
use crate::payment::now;
use crate::payment::prices::{AUDIT_BATCH, CLAWD_EXPORT, CREATOR_AUDIT, PLACE_SNAPSHOT, PROOFS_EXPORT, RISK_REPORT};
use crate::query::attestations as aq;
use crate::query::directory::ProofsQuery;
use crate::query::reports as q;
use crate::store_task::read_store;
use crate::{ApiError, App};

fn now_iso() -> String {
    chrono::Utc::now().to_rfc3339_opts(chrono::SecondsFormat::Secs, true)
}

/// `GET /risk-report/{address}` (paid): verdict, heuristic flags, signed attestation.
pub async fn risk_report(app: Arc<App>, req: Request) -> HandlerResult {
    let a = req.address("address")?;
    q::risk_available(&*snapshot(&app)?, &a)?;
    sell(&app, &req, &RISK_REPORT, |_| async {
        let snap = snapshot(&app)?;
        let attestation = match aq::attestable(&snap, &a) {
            Ok(_) => attestation_of(&app, &snap, &a, verify_url(&app, &req)).await?,
            Err(_) => aq::refusal(
                &snap,
                &a,
                "not-a-seller",
                "the address sells nothing indexed: there is no seller score to attest".to_owned(),
                None,
                Vec::new(),
                app.operator().is_some_and(|o| o.demo),
            ),
        };
        Ok(respond::json(StatusCode::OK, &q::risk_report(&snap, &a, attestation)?))
    })
    .await
}

/// `POST /audit-batch` (paid): audits of up to 10 wallets.
pub async fn audit_batch(app: Arc<App>, mut req: Request) -> HandlerResult {
    let body: AuditBatchRequestV1 = req.json().await?;
    let wallets = q::audit_batch_wallets(&*snapshot(&app)?, &body.addresses)?;
    sell(&app, &req, &AUDIT_BATCH, |_| async {
        Ok(respond::json(StatusCode::OK, &q::audit_batch(&*snapshot(&app)?, &wallets, &now_iso())?))
    })
    .await
}

/// `GET /proofs/export` (paid): every verified proof, without a page cap.
pub async fn proofs_export(app: Arc<App>, req: Request) -> HandlerResult {
    let query: ProofsQuery = req.query()?;
    snapshot(&app)?;
    sell(&app, &req, &PROOFS_EXPORT, |_| async {
        Ok(respond::json(StatusCode::OK, &q::proofs_export(&*snapshot(&app)?, &query)))
    })
    .await
}

/// `GET /clawd/export` query.
#[derive(Debug, Default, Deserialize, JsonSchema)]
pub struct ClawdExportQuery {
    /// The launch platform (`clanker`, through whose factory the claw launchpads launch; or
    /// another the snapshot knows). Default `clanker`.
    pub platform: Option<String>,
}

/// `GET /clawd/export` (paid): every indexed token of one launch platform.
pub async fn clawd_export(app: Arc<App>, req: Request) -> HandlerResult {
    let query: ClawdExportQuery = req.query()?;
    let platform = query.platform.unwrap_or_else(|| "clanker".to_owned()).to_ascii_lowercase();
    q::clawd_export(&*snapshot(&app)?, &platform)?;
    sell(&app, &req, &CLAWD_EXPORT, |_| async {
        Ok(respond::json(StatusCode::OK, &q::clawd_export(&*snapshot(&app)?, &platform)?))
    })
    .await
}

/// `GET /clawd/creator-audit/{address}` (paid): a token creator's profile.
pub async fn creator_audit(app: Arc<App>, req: Request) -> HandlerResult {
    let a = req.address("address")?;
    q::creator_available(&*snapshot(&app)?, &a)?;
    sell(&app, &req, &CREATOR_AUDIT, |_| async {
        Ok(respond::json(StatusCode::OK, &q::creator_audit(&*snapshot(&app)?, &a)?))
    })
    .await
}

/// `GET /snapshot/{placeId}` (paid): the place read from the operator's business-review source
/// at the moment of sale. A malformed id is refused before any terms; a deployment without a
/// source answers 503 `no_business_source` (the route's need); a place the source does not know,
/// or a source that fails, releases the payment.
pub async fn place_snapshot(app: Arc<App>, req: Request) -> HandlerResult {
    let id = crate::places::place_id(req.param("placeId"))?.to_owned();
    crate::payment::needs::check(&app, PLACE_SNAPSHOT.needs)?;
    let source = app.places().cloned().expect("the route's needs include the business-review source");
    sell(&app, &req, &PLACE_SNAPSHOT, |_| async {
        let now = chrono::Utc::now().to_rfc3339_opts(chrono::SecondsFormat::Secs, true);
        Ok(respond::json(StatusCode::OK, &source.snapshot(&id, now).await?))
    })
    .await
}

async fn totals(app: &App) -> Result<(RevenueTotals, u64), ApiError> {
    let Some(store) = app.store().cloned() else { return Ok((RevenueTotals::default(), 0)) };
    let since = now() - 30 * 86_400;
    read_store(&store, move |s| Ok((s.revenue()?, s.buyers_since(since)?))).await
}

/// `GET /revenue`.
pub async fn revenue(app: Arc<App>, _req: Request) -> HandlerResult {
    let (t, _) = totals(&app).await?;
    let payments = app.payments().ok();
    Ok(respond::json(
        StatusCode::OK,
        &RevenueV1 {
            version: version("revenue"),
            payments_enabled: payments.is_some(),
            pay_to: app.identity.pay_to.clone(),
            network: payments.map(|p| p.network.caip2.clone()),
            settled_payments: t.settled,
            settled_usdc: t.settled_amount as f64 / 1e6,
            unique_buyers: t.buyers,
            failed_payments: t.failed,
            pending_payments: t.unknown,
            routes: t
                .routes
                .into_iter()
                .map(|r| RouteRevenueV1 { route: r.route, payments: r.payments, usdc: r.amount as f64 / 1e6 })
                .collect(),
            note: "From this deployment's payment ledger: every settled payment is a USDC transfer to payTo on \
                   network, confirmed from its receipt before the paid answer was sent."
                .to_owned(),
        },
    ))
}

/// `GET /revenue/buyers`.
pub async fn revenue_buyers(app: Arc<App>, _req: Request) -> HandlerResult {
    let (t, buyers_30d) = totals(&app).await?;
    Ok(respond::json(
        StatusCode::OK,
        &RevenueBuyersV1 {
            version: version("revenue-buyers"),
            unique_buyers: t.buyers,
            settled_payments: t.settled,
            payments_per_buyer: (t.buyers > 0).then(|| t.settled as f64 / t.buyers as f64),
            buyers_30d,
        },
    ))
}
