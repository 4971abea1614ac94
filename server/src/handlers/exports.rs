//! The snapshot's exports, served as published.

use std::sync::Arc;

use agentrep_publish::layout::WholeDoc;

use super::{serve, snapshot};
use crate::http::respond::mime;
use crate::http::{HandlerResult, Request};
use crate::{ApiError, App};

async fn document(app: Arc<App>, req: Request, doc: WholeDoc, content_type: &str) -> HandlerResult {
    let snap = snapshot(&app)?;
    let blob = snap.document(doc).ok_or_else(|| ApiError::NotFound(req.uri.path().to_owned()))?;
    serve(&req, blob, content_type)
}

/// `GET /scores.csv`.
pub async fn scores_csv(app: Arc<App>, req: Request) -> HandlerResult {
    document(app, req, WholeDoc::ScoresCsv, mime::CSV).await
}

/// `GET /exports/scores.parquet`.
pub async fn scores_parquet(app: Arc<App>, req: Request) -> HandlerResult {
    document(app, req, WholeDoc::ScoresParquet, mime::PARQUET).await
}

/// `GET /exports/history.parquet`.
pub async fn history_parquet(app: Arc<App>, req: Request) -> HandlerResult {
    document(app, req, WholeDoc::HistoryParquet, mime::PARQUET).await
}

/// `GET /exports/settlement-forms.parquet`.
pub async fn settlement_forms_parquet(app: Arc<App>, req: Request) -> HandlerResult {
    document(app, req, WholeDoc::SettlementFormsParquet, mime::PARQUET).await
}
