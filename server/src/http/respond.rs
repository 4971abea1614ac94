//! Building responses: cached bodies with ETag/304, gzip when asked, JSON, errors (402s are
//! [`crate::payment::terms`]').

use bytes::Bytes;
use http_body_util::Full;
use hyper::header::{self, HeaderMap, HeaderValue};
use hyper::{Response, StatusCode};
use serde::Serialize;

use crate::blob::Blob;
use crate::error::ApiError;
use agentrep_publish::wire::{ErrorBodyV1, ErrorV1};

/// The body type of every response.
pub type Body = Full<Bytes>;

/// Cache-Control of free reads: snapshots change daily; 5 minutes keeps edges fresh.
pub const CACHE_PUBLIC: &str = "public, max-age=300";

/// Content types.
pub mod mime {
    /// JSON.
    pub const JSON: &str = "application/json";
    /// SVG.
    pub const SVG: &str = "image/svg+xml";
    /// CSV.
    pub const CSV: &str = "text/csv; charset=utf-8";
    /// Parquet.
    pub const PARQUET: &str = "application/vnd.apache.parquet";
    /// HTML.
    pub const HTML: &str = "text/html; charset=utf-8";
}

fn base(status: StatusCode, content_type: &str) -> hyper::http::response::Builder {
    Response::builder()
        .status(status)
        .header(header::CONTENT_TYPE, content_type)
        .header(header::ACCESS_CONTROL_ALLOW_ORIGIN, "*")
}

fn accepts_gzip(headers: &HeaderMap) -> bool {
    headers.get_all(header::ACCEPT_ENCODING).iter().filter_map(|v| v.to_str().ok()).flat_map(|v| v.split(',')).any(
        |enc| {
            let mut parts = enc.trim().split(';');
            let name = parts.next().unwrap_or_default().trim();
            let q_zero = parts.any(|p| p.trim().replace(' ', "") == "q=0");
            (name == "gzip" || name == "*") && !q_zero
        },
    )
}

fn etag_matches(headers: &HeaderMap, etag: &str) -> bool {
    headers.get(header::IF_NONE_MATCH).and_then(|v| v.to_str().ok()).is_some_and(|v| {
        v.split(',').any(|t| {
            let t = t.trim();
            t == "*" || t.trim_start_matches("W/") == etag
        })
    })
}

/// A cached body: 304 when the client's ETag matches, gzip when accepted and worth it.
pub fn blob(req_headers: &HeaderMap, blob: &Blob, content_type: &str, head: bool) -> Response<Body> {
    let builder = base(StatusCode::OK, content_type)
        .header(header::ETAG, blob.etag.clone())
        .header(header::CACHE_CONTROL, HeaderValue::from_static(CACHE_PUBLIC))
        .header(header::VARY, HeaderValue::from_static("accept-encoding"));
    if etag_matches(req_headers, blob.etag.to_str().unwrap_or_default()) {
        return builder.status(StatusCode::NOT_MODIFIED).body(Body::default()).expect("valid response");
    }
    let (body, gzipped) = if blob.body.len() > 1024 && accepts_gzip(req_headers) {
        (blob.gzip().clone(), true)
    } else {
        (blob.body.clone(), false)
    };
    let builder = if gzipped { builder.header(header::CONTENT_ENCODING, "gzip") } else { builder };
    let builder = builder.header(header::CONTENT_LENGTH, body.len());
    builder.body(if head { Body::default() } else { Body::new(body) }).expect("valid response")
}

/// A JSON body computed from the snapshot for this request: cacheable like the snapshot's files.
pub fn computed(status: StatusCode, value: &impl Serialize) -> Response<Body> {
    let bytes = serde_json::to_vec(value).expect("payload serialises");
    base(status, mime::JSON)
        .header(header::CACHE_CONTROL, CACHE_PUBLIC)
        .body(Body::new(Bytes::from(bytes)))
        .expect("valid response")
}

/// A body of another type computed for this request.
pub fn text(content_type: &str, body: impl Into<Bytes>) -> Response<Body> {
    base(StatusCode::OK, content_type)
        .header(header::CACHE_CONTROL, CACHE_PUBLIC)
        .body(Body::new(body.into()))
        .expect("valid response")
}

/// A JSON body computed for this request (not cached by clients).
pub fn json(status: StatusCode, value: &impl Serialize) -> Response<Body> {
    let bytes = serde_json::to_vec(value).expect("payload serialises");
    base(status, mime::JSON)
        .header(header::CACHE_CONTROL, "no-store")
        .body(Body::new(Bytes::from(bytes)))
        .expect("valid response")
}

/// The error body of an API error.
pub fn error(err: &ApiError) -> Response<Body> {
    let body = ErrorBodyV1 { error: ErrorV1 { code: err.code(), message: err.to_string() } };
    let mut resp = json(err.status(), &body);
    if let ApiError::MethodNotAllowed(allowed) = err
        && let Ok(value) = HeaderValue::from_str(allowed)
    {
        resp.headers_mut().insert(header::ALLOW, value);
    }
    if let ApiError::RateLimited { retry_after, .. } = err {
        resp.headers_mut().insert(header::RETRY_AFTER, HeaderValue::from(*retry_after));
    }
    resp
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn gzip_negotiation() {
        let mut h = HeaderMap::new();
        h.insert(header::ACCEPT_ENCODING, HeaderValue::from_static("br, gzip;q=0.8"));
        assert!(accepts_gzip(&h));
        h.insert(header::ACCEPT_ENCODING, HeaderValue::from_static("gzip;q=0, br"));
        assert!(!accepts_gzip(&h));
    }

    #[test]
    fn if_none_match_handles_lists_and_weak_tags() {
        let mut h = HeaderMap::new();
        h.insert(header::IF_NONE_MATCH, HeaderValue::from_static("\"a\", W/\"b\""));
        assert!(etag_matches(&h, "\"b\""));
        assert!(!etag_matches(&h, "\"c\""));
    }
}
