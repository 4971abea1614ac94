//! Token deployers.

use std::sync::Arc;

use agentrep_publish::layout::WalletDoc;

use super::{computed, serve, snapshot};
use crate::http::respond::mime;
use crate::http::{HandlerResult, Request};
use crate::query::deployers as dq;
use crate::{ApiError, App};

/// `GET /deployer/{address}`.
pub async fn deployer(app: Arc<App>, req: Request) -> HandlerResult {
    let a = req.address("address")?;
    let snap = snapshot(&app)?;
    let blob = snap.wallet(WalletDoc::Deployer, a.as_str()).ok_or_else(|| ApiError::NotIndexed(a.to_string()))?;
    serve(&req, blob, mime::JSON)
}

/// `GET /deployers/top`.
pub async fn top(app: Arc<App>, req: Request) -> HandlerResult {
    computed(&dq::top(&*snapshot(&app)?, app.base_path(), &req.query()?))
}

/// `GET /deployers/sketchy`.
pub async fn sketchy(app: Arc<App>, req: Request) -> HandlerResult {
    computed(&dq::sketchy(&*snapshot(&app)?, app.base_path(), &req.query()?))
}

/// `GET /deployers/stats`.
pub async fn stats(app: Arc<App>, _req: Request) -> HandlerResult {
    computed(&dq::stats(&*snapshot(&app)?))
}
