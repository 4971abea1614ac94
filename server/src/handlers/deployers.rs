//! Token deployers.

use std::sync::Arc;

use super::{computed, serve, snapshot};
use crate::App;
use crate::http::respond::mime;
use crate::http::{HandlerResult, Request};
use crate::query::deployers as dq;

/// `GET /deployer/{address}`.
pub async fn deployer(app: Arc<App>, req: Request) -> HandlerResult {
    let a = req.address("address")?;
    serve(&req, dq::deployer(&*snapshot(&app)?, &a)?, mime::JSON)
}

/// `GET /token/{address}/buyer-trust`.
pub async fn buyer_trust(app: Arc<App>, req: Request) -> HandlerResult {
    let token = req.address("address")?;
    serve(&req, dq::buyer_trust(&*snapshot(&app)?, &token)?, mime::JSON)
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

/// `GET /virtuals-rep/{tokenAddress}`.
pub async fn token_rep(app: Arc<App>, req: Request) -> HandlerResult {
    let token = req.address("tokenAddress")?;
    computed(&dq::token_rep(&*snapshot(&app)?, app.base_path(), &token)?)
}
