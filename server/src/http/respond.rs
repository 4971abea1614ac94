//! Building responses: cached bodies with ETag/304, gzip when asked, JSON, errors, 402.

use bytes::Bytes;
use http_body_util::Full;
use hyper::header::{self, HeaderMap, HeaderValue};
use hyper::{Response, StatusCode};
use serde::Serialize;

use crate::error::ApiError;
use crate::index::Blob;
use agentrep_payments::PaymentNetwork;
use agentrep_payments::wire::{
    PaymentRequiredV1, PaymentRequiredV2, RequirementsV1, RequirementsV2, ResourceInfo, TokenDomain, encode_base64,
};
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
    resp
}

/// x402 `exact` payment requirements of a paid route.
#[derive(Debug, Clone)]
pub struct PaymentTerms {
    /// Absolute URL of the resource.
    pub resource: String,
    /// What is bought.
    pub description: String,
    /// Price in micro-USDC.
    pub amount: u64,
    /// Receiving address.
    pub pay_to: String,
}

/// Longest a payment for a paid answer may stay valid, seconds (`maxTimeoutSeconds`).
pub const MAX_TIMEOUT_SECONDS: u64 = 60;

/// 402 for both x402 v1 (JSON body) and v2 (`PAYMENT-REQUIRED` header) buyers, USDC on Base, with
/// the wire types of `agentrep-payments` (the ones its verifier reads back).
pub fn payment_required(terms: &PaymentTerms) -> Response<Body> {
    let n = PaymentNetwork::base();
    let asset = n.asset.to_string();
    let extra = || TokenDomain { name: n.token_name.clone(), version: n.token_version.clone() };
    let v1 = PaymentRequiredV1 {
        x402_version: 1,
        error: "X-PAYMENT header is required".to_owned(),
        accepts: n
            .v1_name
            .iter()
            .map(|network| RequirementsV1 {
                scheme: "exact".to_owned(),
                network: network.clone(),
                max_amount_required: terms.amount.to_string(),
                resource: terms.resource.clone(),
                description: terms.description.clone(),
                mime_type: mime::JSON.to_owned(),
                pay_to: terms.pay_to.clone(),
                max_timeout_seconds: MAX_TIMEOUT_SECONDS,
                asset: asset.clone(),
                extra: extra(),
            })
            .collect(),
    };
    let v2 = PaymentRequiredV2 {
        x402_version: 2,
        error: "PAYMENT-SIGNATURE header is required".to_owned(),
        resource: ResourceInfo {
            url: terms.resource.clone(),
            description: terms.description.clone(),
            mime_type: mime::JSON.to_owned(),
        },
        accepts: vec![RequirementsV2 {
            scheme: "exact".to_owned(),
            network: n.caip2.clone(),
            amount: terms.amount.to_string(),
            asset,
            pay_to: terms.pay_to.clone(),
            max_timeout_seconds: MAX_TIMEOUT_SECONDS,
            extra: extra(),
        }],
        extensions: Default::default(),
    };
    let header_value = encode_base64(&serde_json::to_vec(&v2).expect("serialises"));
    let mut resp = json(StatusCode::PAYMENT_REQUIRED, &v1);
    let h = resp.headers_mut();
    h.insert("payment-required", HeaderValue::from_str(&header_value).expect("base64 is a valid header"));
    h.insert(
        header::ACCESS_CONTROL_EXPOSE_HEADERS,
        HeaderValue::from_static("PAYMENT-REQUIRED, PAYMENT-RESPONSE, X-PAYMENT-RESPONSE"),
    );
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
