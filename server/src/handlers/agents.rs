//! One wallet: score, preflight, shield, history, badges, and batch lookups.

use std::sync::Arc;

use agentrep_publish::layout::WalletDoc;
use hyper::StatusCode;

use super::{computed, serve, snapshot};
use crate::http::respond::{self, mime};
use crate::http::{HandlerResult, Request};
use crate::payment::flow::{Sale, quote_only, sell};
use crate::query::agents::{self as q, WalletRead};
use crate::query::audit;
use crate::routes::{AUDIT, LIVE_RESCORE};
use crate::{ApiError, App};

/// `GET /score/{address}`.
pub async fn score(app: Arc<App>, req: Request) -> HandlerResult {
    let a = req.address("address")?;
    let query: q::ScoreQuery = req.query()?;
    if query.live.0 {
        return live_rescore(&app, &req).await;
    }
    let snap = snapshot(&app)?;
    match q::score(&snap, app.base_path(), &a) {
        WalletRead::Published(blob) => serve(&req, blob, mime::JSON),
        WalletRead::Computed(doc) => Ok(respond::json(StatusCode::OK, &doc)),
    }
}

/// `?live=1`: the terms, and a refusal of any paid retry before it is verified or settled: the
/// live sources are not built, so nothing could be sold.
async fn live_rescore(app: &Arc<App>, req: &Request) -> HandlerResult {
    let sale = Sale { price: LIVE_RESCORE.price, description: "agentrep live re-score" };
    let refusal = ApiError::NotAvailable {
        code: "live_rescore_unavailable",
        message: "the live re-score's sources are not built on this deployment; the payment was not verified, \
                  recorded or settled"
            .to_owned(),
    };
    quote_only(app, req, sale, refusal)
}

/// `GET /audit/{agentAddress}` (paid): every published document of an indexed wallet. An
/// unindexed wallet is refused before any payment is asked for.
pub async fn audit(app: Arc<App>, req: Request) -> HandlerResult {
    let a = req.address("agentAddress")?;
    audit::auditable(&*snapshot(&app)?, &a)?;
    let sale = Sale { price: AUDIT.price, description: "agentrep audit" };
    sell(&app, &req, sale, || async {
        let snap = snapshot(&app)?;
        let now = chrono::Utc::now().to_rfc3339_opts(chrono::SecondsFormat::Secs, true);
        Ok(respond::json(StatusCode::OK, &audit::audit(&snap, &a, now)?))
    })
    .await
}

/// `GET /preflight/{address}`.
pub async fn preflight(app: Arc<App>, req: Request) -> HandlerResult {
    let a = req.address("address")?;
    let snap = snapshot(&app)?;
    match q::preflight(&snap, &a) {
        WalletRead::Published(blob) => serve(&req, blob, mime::JSON),
        WalletRead::Computed(doc) => Ok(respond::json(StatusCode::OK, &doc)),
    }
}

/// `GET /trust-shield/{address}`.
pub async fn trust_shield(app: Arc<App>, req: Request) -> HandlerResult {
    let a = req.address("address")?;
    serve(&req, q::trust_shield(&*snapshot(&app)?, &a)?, mime::JSON)
}

/// `GET /history/{address}`.
pub async fn history(app: Arc<App>, req: Request) -> HandlerResult {
    let a = req.address("address")?;
    let query: q::HistoryQuery = req.query()?;
    serve(&req, &*q::history(&*snapshot(&app)?, &a, &query)?, mime::JSON)
}

/// `GET /badge/{address}.svg`.
pub async fn badge(app: Arc<App>, req: Request) -> HandlerResult {
    let a = req.address("address")?;
    let snap = snapshot(&app)?;
    match snap.wallet(WalletDoc::Badge, a.as_str()) {
        Some(blob) => serve(&req, blob, mime::SVG),
        None => serve(&req, &app.unindexed_badge, mime::SVG),
    }
}

/// `GET /shield/{address}.json`.
pub async fn shields_badge(app: Arc<App>, req: Request) -> HandlerResult {
    let a = req.address("address")?;
    computed(&q::shields_badge(&*snapshot(&app)?, &a))
}

/// `POST /scores`.
pub async fn batch_scores(app: Arc<App>, mut req: Request) -> HandlerResult {
    let body: q::BatchScoresRequest = req.json().await?;
    Ok(respond::json(StatusCode::OK, &q::batch_scores(&*snapshot(&app)?, &body)?))
}
