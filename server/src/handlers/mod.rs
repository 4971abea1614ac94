//! HTTP adapters, one module per resource: parse the request, call a query, shape the response.
//! No reading logic lives here.

pub mod agents;
pub mod attestations;
pub mod exports;
pub mod pages;
pub mod paid;
pub mod service;
pub mod slots;
pub mod trust;
pub mod webhooks;
pub mod writes;

use std::sync::Arc;

use hyper::StatusCode;
use serde::Serialize;

use crate::App;
use crate::blob::Blob;
use crate::http::{HandlerResult, Request, respond};

/// A payload computed from the snapshot: cacheable for as long as the snapshot.
fn computed(value: &impl Serialize) -> HandlerResult {
    Ok(respond::computed(StatusCode::OK, value))
}

/// A held body served with its validator.
fn serve(req: &Request, blob: &Blob, content_type: &str) -> HandlerResult {
    Ok(respond::blob(&req.headers, blob, content_type, req.is_head()))
}

/// The snapshot, or 503.
fn snapshot(app: &Arc<App>) -> Result<Arc<crate::ServedSnapshot>, crate::ApiError> {
    app.require_snapshot()
}
