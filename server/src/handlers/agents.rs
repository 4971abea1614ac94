//! One wallet: score, preflight, shield, history, badges, and batch lookups.

use std::sync::Arc;

use agentrep_publish::layout::WalletDoc;
use hyper::StatusCode;

use super::{computed, serve, snapshot};
use crate::http::respond::{self, PaymentTerms, mime};
use crate::http::{HandlerResult, Request};
use crate::query::agents::{self as q, WalletRead};
use crate::routes::LIVE_RESCORE;
use crate::{ApiError, App};

/// `GET /score/{address}`.
pub async fn score(app: Arc<App>, req: Request) -> HandlerResult {
    let a = req.address("address")?;
    let query: q::ScoreQuery = req.query()?;
    if query.live.0 {
        let pay_to = app.identity.pay_to.clone().ok_or(ApiError::PaymentsNotConfigured)?;
        return Ok(respond::payment_required(&PaymentTerms {
            resource: req.absolute_url(),
            description: "agentrep live re-score".to_owned(),
            amount: LIVE_RESCORE.price,
            pay_to,
        }));
    }
    let snap = snapshot(&app)?;
    match q::score(&snap, app.base_path(), &a) {
        WalletRead::Published(blob) => serve(&req, blob, mime::JSON),
        WalletRead::Computed(doc) => Ok(respond::json(StatusCode::OK, &doc)),
    }
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
