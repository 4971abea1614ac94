//! The service itself: health, status, catalog, discovery, identity, OpenAPI.

use std::sync::Arc;

use hyper::StatusCode;

use super::serve;
use crate::App;
use crate::http::respond::{self, mime};
use crate::http::{HandlerResult, Request};
use crate::query::service as sq;

/// `GET /health`: answers before the first snapshot too.
pub async fn health(app: Arc<App>, _req: Request) -> HandlerResult {
    Ok(respond::json(StatusCode::OK, &sq::health(&app, app.snapshot().as_deref())))
}

/// `GET /openapi.json`.
pub async fn openapi(app: Arc<App>, req: Request) -> HandlerResult {
    serve(&req, &app.openapi, mime::JSON)
}
