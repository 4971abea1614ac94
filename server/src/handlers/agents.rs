//! One wallet: score, preflight, shield, history, badges, and batch lookups.

use std::sync::Arc;

use agentrep_model::{Address, SellerProfile, SellerRecord};
use agentrep_publish::layout::WalletDoc;
use agentrep_publish::live::{LiveContextV1, LiveSellerV1};
use agentrep_publish::payloads::{self, PayloadContext};
use agentrep_publish::wire::{PreflightV1, ScorePayloadV1};
use hyper::StatusCode;

use super::{computed, serve, snapshot};
use crate::blob::Blob;
use crate::http::respond::{self, mime};
use crate::http::{HandlerResult, Request};
use crate::payment::flow::sell;
use crate::payment::prices::{AUDIT, LIVE_RESCORE};
use crate::query::agents as q;
use crate::query::{audit, resource};
use crate::read::{Answer, Either};
use crate::{ApiError, App, ServedSnapshot, Upstream};

/// `GET /score/{address}`.
pub async fn score(app: Arc<App>, req: Request) -> HandlerResult {
    let a = req.address("address")?;
    let query: q::ScoreQuery = req.query()?;
    if query.live.0 {
        return live_rescore(&app, &req, &a).await;
    }
    if query.full.0 {
        return full_profile(&app, &req, &a);
    }
    let snap = snapshot(&app)?;
    let answer: Answer<'_, Either<ScorePayloadV1, _>> = q::score(&snap, app.base_path(), &a)?.into();
    answer.respond(&req)
}

/// `?live=1` (paid): the seller's evidence newer than the snapshot, read now and folded into the
/// snapshot's features, assessed by the rebuild's model. An unindexed wallet, a snapshot without
/// live bases, or a deployment without live sources or a signing key (the receipt that unlocks
/// `?full=1`) is refused before any terms.
async fn live_rescore(app: &Arc<App>, req: &Request, a: &Address) -> HandlerResult {
    let snap = snapshot(app)?;
    audit::auditable(&snap, a)?;
    has_live_basis(&snap, a)?;
    sell(app, req, &LIVE_RESCORE, |_| async {
        let live = app.live().expect("sell refuses the route without live sources");
        let snap = snapshot(app)?;
        let (line, context) = read_live_basis(&snap, a).await?;
        let published: ScorePayloadV1 = parse(snap.wallet(WalletDoc::Score, a.as_str())?, "score")?;
        let rescore =
            live.rescore(a.as_str(), &line, &context, snap.date()).await.map_err(|e| ApiError::SourceUnavailable {
                code: "live_source_unavailable",
                message: format!("{}; nothing was charged", Upstream::LiveSources.failed(&e)),
            })?;
        let record = SellerRecord {
            address: a.to_string(),
            listing: line.listing,
            features: rescore.features,
            assessment: rescore.assessment,
            history: Vec::new(),
            sources: line.sources,
            profile: SellerProfile { last_probe: rescore.last_probe, ..SellerProfile::default() },
            live: Default::default(),
        };
        let ctx = PayloadContext {
            base_path: app.base_path().to_owned(),
            date: snap.date().to_owned(),
            snapshot_id: snap.id.clone(),
            generated_at: rescore.report.as_of.clone(),
            verifier_contract: published.verify.verifier_contract.clone(),
        };
        let mut rescored = payloads::rescored(&published, &ctx, &record, rescore.report);
        // The live evidence re-scores; the operator's own fast evidence (its paid calls, its
        // denylist) still lowers what it says, as on every other read.
        crate::overlay::lower_score_in(&snap, a.as_str(), &mut rescored);
        Ok(respond::json(StatusCode::OK, &rescored))
    })
    .await
}

fn parse<T: serde::de::DeserializeOwned>(blob: Option<Arc<Blob>>, what: &str) -> Result<T, ApiError> {
    let blob = blob.ok_or_else(|| ApiError::NotAvailable {
        code: "snapshot_without_live_basis",
        message: format!("the served snapshot has no {what} for this wallet; nothing was charged"),
    })?;
    serde_json::from_slice(&blob.body).map_err(|e| ApiError::snapshot_unreadable(what, &e))
}

fn no_live_context() -> ApiError {
    ApiError::NotAvailable {
        code: "snapshot_without_live_basis",
        message: "the served snapshot carries no live basis this server reads (it was published before live \
                  re-scores, or before their bases were columns); rebuild it. Nothing was charged"
            .to_owned(),
    }
}

/// Whether the snapshot carries what a live re-score of `a` builds on: checked before any terms,
/// without reading it.
fn has_live_basis(snap: &ServedSnapshot, a: &Address) -> Result<(), ApiError> {
    match (&snap.live_context, &snap.live_bases) {
        (Some(_), Some(bases)) if bases.contains(a.as_str()) => Ok(()),
        _ => Err(no_live_context()),
    }
}

/// [`live_basis`] on a blocking thread: decoding the seller's row group (zstd, a few milliseconds,
/// BENCHMARKS.md § 4h) would otherwise stall one of the runtime's few threads and every request
/// waiting on it.
async fn read_live_basis(snap: &Arc<ServedSnapshot>, a: &Address) -> Result<(LiveSellerV1, LiveContextV1), ApiError> {
    let (snap, a) = (snap.clone(), a.clone());
    tokio::task::spawn_blocking(move || live_basis(&snap, &a))
        .await
        .map_err(|e| ApiError::snapshot_unreadable("live basis", &e))?
}

/// The wallet's live basis and the snapshot's live context; refused when the snapshot predates
/// the live re-score.
fn live_basis(snap: &ServedSnapshot, a: &Address) -> Result<(LiveSellerV1, LiveContextV1), ApiError> {
    let context = snap.live_context.clone().ok_or_else(no_live_context)?;
    let bases = snap.live_bases.as_ref().ok_or_else(no_live_context)?;
    let line = bases
        .get(a.as_str())
        .map_err(|e| ApiError::snapshot_unreadable("live basis", &e))?
        .ok_or_else(no_live_context)?;
    Ok((line, context))
}

/// `?full=1`: the full profile of a wallet whose live re-score the caller paid for in the last
/// 24 hours, proven by the payment's signed receipt (`X-Agentrep-Receipt`).
fn full_profile(app: &Arc<App>, req: &Request, a: &Address) -> HandlerResult {
    let snap = snapshot(app)?;
    audit::auditable(&snap, a)?;
    let locked = |why: &dyn std::fmt::Display| ApiError::Forbidden {
        code: "full_profile_locked",
        message: format!(
            "{why}. The full profile unlocks for {} hours after a paid live re-score (GET /score/{a}?live=1): send its \
             PAYMENT-RESPONSE receipt back in the X-Agentrep-Receipt header",
            crate::live::UNLOCK_SECS / 3600
        ),
    };
    let payments = app.payments().map_err(|_| locked(&"this deployment takes no payments"))?;
    let signer = payments.signer.as_ref().ok_or_else(|| locked(&"this deployment signs no receipts"))?;
    let header = req
        .headers
        .get(crate::live::RECEIPT_HEADER)
        .and_then(|h| h.to_str().ok())
        .ok_or_else(|| locked(&"no X-Agentrep-Receipt header"))?;
    let now = u64::try_from(crate::payment::now()).unwrap_or(0);
    let receipt = crate::live::unlocked_by(header, signer.address(), &payments.network.caip2, a.as_str(), now)
        .map_err(|why| locked(&why))?;
    let mut doc = audit::audit(&snap, a, payloads::iso(now as i64))?;
    doc.score.note = format!(
        "Full profile, unlocked by the receipt of a live re-score paid by {} at {}, until {}.",
        receipt.payer,
        payloads::iso(receipt.issued_at as i64),
        payloads::iso((receipt.issued_at + crate::live::UNLOCK_SECS) as i64)
    );
    Ok(respond::json(StatusCode::OK, &doc))
}

/// `GET /audit/{agentAddress}` (paid): every published document of an indexed wallet. An
/// unindexed wallet is refused before any payment is asked for.
pub async fn audit(app: Arc<App>, req: Request) -> HandlerResult {
    let a = req.address("agentAddress")?;
    audit::auditable(&*snapshot(&app)?, &a)?;
    sell(&app, &req, &AUDIT, |_| async {
        let snap = snapshot(&app)?;
        let now = chrono::Utc::now().to_rfc3339_opts(chrono::SecondsFormat::Secs, true);
        Ok(respond::json(StatusCode::OK, &audit::audit(&snap, &a, now)?))
    })
    .await
}

/// `GET /preflight?url=` or `?address=`: a resource URL's preflight, or the original's form of
/// `/preflight/{address}`.
pub async fn preflight_query(app: Arc<App>, req: Request) -> HandlerResult {
    let query: resource::PreflightQuery = req.query()?;
    let snap = snapshot(&app)?;
    match (query.url, query.address) {
        (Some(url), None) => computed(&resource::url_preflight(&snap, app.base_path(), &url, None, None)?),
        (None, Some(address)) => {
            let read = q::preflight(&snap, &crate::http::params::address(&address)?)?;
            let answer: Answer<'_, Either<PreflightV1, _>> = read.into();
            answer.respond(&req)
        }
        _ => Err(ApiError::param("url", "give exactly one of url (a resource URL) and address (a wallet)")),
    }
}

/// `GET /badge/{address}.svg`.
pub async fn badge(app: Arc<App>, req: Request) -> HandlerResult {
    let a = req.address("address")?;
    let snap = snapshot(&app)?;
    match snap.wallet(WalletDoc::Badge, a.as_str())? {
        Some(blob) => serve(&req, &blob, mime::SVG),
        None => serve(&req, &app.unindexed_badge, mime::SVG),
    }
}

/// `GET /shield/{address}.json`.
pub async fn shields_badge(app: Arc<App>, req: Request) -> HandlerResult {
    let a = req.address("address")?;
    computed(&q::shields_badge(&*snapshot(&app)?, &a))
}
