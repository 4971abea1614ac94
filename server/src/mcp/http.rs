//! Streamable HTTP: `POST /mcp` (at the origin and under the base path). One JSON-RPC request or
//! notification per POST; a notification gets 202 and no body; a request gets its response as
//! `application/json`, or as one `event: message` of a `text/event-stream` when the client's
//! `Accept` prefers it. GET and DELETE get 405 from the router (no session, no standalone stream).
//!
//! A request naming 2026-07-28 (in `_meta`, or by an `MCP-Protocol-Version` header that is not
//! an initialize-based revision) goes through that revision's checks in the order the Python
//! SDK applies them: the two required `_meta` keys (400, -32602), the headers mirroring the body
//! (400, -32020), a supported version (400, -32022); an unknown method is then 404 with -32601.
//! Any other request is an initialize-based one, answered under the revision of its
//! `MCP-Protocol-Version` header (2025-03-26 without one); its JSON-RPC errors come with 200 so
//! every client delivers them as errors of that request. `Mcp-Session-Id` is ignored: no session
//! is minted or required.

use std::sync::Arc;

use base64::Engine;
use bytes::Bytes;
use hyper::header::{self, HeaderMap, HeaderValue};
use hyper::{Response, StatusCode};
use serde_json::{Value, json};

use super::{Ctx, Message, Revision, RpcError, code};
use crate::http::{Body, HandlerResult, Request};
use crate::{ApiError, App};

/// How a 200 answer is framed.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Framing {
    /// `application/json`: the response object.
    Json,
    /// `text/event-stream`: one `message` event holding the response, then the end of the stream.
    Sse,
}

/// The quality the `Accept` header gives a media type: that of the most specific range matching it.
fn quality(accept: &str, kind: &str) -> f32 {
    let (main, _) = kind.split_once('/').unwrap_or((kind, ""));
    let mut best: Option<(u8, f32)> = None;
    for range in accept.split(',') {
        let mut parts = range.split(';');
        let media = parts.next().unwrap_or_default().trim().to_ascii_lowercase();
        let specificity = if media == kind {
            3
        } else if media.strip_suffix("/*") == Some(main) {
            2
        } else if media == "*/*" {
            1
        } else {
            continue;
        };
        let q = parts
            .filter_map(|p| p.trim().strip_prefix("q=").and_then(|q| q.trim().parse::<f32>().ok()))
            .next()
            .unwrap_or(1.0);
        if best.is_none_or(|(s, _)| specificity > s) {
            best = Some((specificity, q));
        }
    }
    best.map_or(0.0, |(_, q)| q)
}

/// The framing `Accept` asks for: JSON unless the event stream is preferred; `None` when it
/// accepts neither (406). No `Accept` header accepts anything.
pub fn framing(headers: &HeaderMap) -> Option<Framing> {
    let accept: Vec<&str> = headers.get_all(header::ACCEPT).iter().filter_map(|v| v.to_str().ok()).collect();
    if accept.is_empty() {
        return Some(Framing::Json);
    }
    let accept = accept.join(",");
    let (json, sse) = (quality(&accept, "application/json"), quality(&accept, "text/event-stream"));
    match (json, sse) {
        (j, s) if j <= 0.0 && s <= 0.0 => None,
        (j, s) if s > j => Some(Framing::Sse),
        _ => Some(Framing::Json),
    }
}

/// A response with a JSON-RPC body: errors (4xx) are always `application/json`.
fn reply(status: StatusCode, framing: Framing, message: &Value) -> Response<Body> {
    let json = serde_json::to_vec(message).expect("a JSON value serialises");
    let builder = Response::builder().status(status).header(header::CACHE_CONTROL, "no-store");
    let (builder, body) = if framing == Framing::Sse && status == StatusCode::OK {
        let mut event = Vec::with_capacity(json.len() + 24);
        event.extend_from_slice(b"event: message\ndata: ");
        event.extend_from_slice(&json);
        event.extend_from_slice(b"\n\n");
        (builder.header(header::CONTENT_TYPE, "text/event-stream").header("x-accel-buffering", "no"), event)
    } else {
        (builder.header(header::CONTENT_TYPE, "application/json"), json)
    };
    builder.body(Body::new(Bytes::from(body))).expect("valid response")
}

/// An error response to no particular request (`id` absent: it could not be read).
fn refusal(status: StatusCode, err: &RpcError) -> Response<Body> {
    reply(status, Framing::Json, &json!({ "jsonrpc": "2.0", "error": err.to_value() }))
}

/// Whether an `Origin` header is acceptable. The tools read public data only (what the REST API
/// serves to any origin with `Access-Control-Allow-Origin: *`), so a DNS-rebound page gains
/// nothing it could not read anyway: every well-formed http(s) origin is accepted, and anything
/// else (`null`, a path, another scheme) is refused with 403.
fn origin_ok(origin: &HeaderValue) -> bool {
    let Ok(origin) = origin.to_str() else { return false };
    let Some(host) = origin.strip_prefix("https://").or_else(|| origin.strip_prefix("http://")) else {
        return false;
    };
    !host.is_empty() && host.bytes().all(|b| b.is_ascii_alphanumeric() || b"-.:[]".contains(&b))
}

/// `scheme://host` of this deployment as the client reached it: `AGENTREP_DOMAIN` when set.
fn origin_of(app: &App, headers: &HeaderMap) -> Option<String> {
    if let Some(domain) = &app.identity.domain {
        return Some(format!("https://{domain}"));
    }
    headers.get(header::HOST).and_then(|h| h.to_str().ok()).map(|h| format!("http://{h}"))
}

fn mismatch(what: String) -> RpcError {
    RpcError::new(code::HEADER_MISMATCH, format!("Header mismatch: {what}"))
}

/// A header's value, decoded from the `=?base64?…?=` form when it uses it.
fn header_value(headers: &HeaderMap, name: &str) -> Result<Option<String>, RpcError> {
    let Some(raw) = headers.get(name) else { return Ok(None) };
    let text = raw.to_str().map_err(|_| mismatch(format!("{name} holds characters a header may not carry")))?;
    match text.strip_prefix("=?base64?").and_then(|t| t.strip_suffix("?=")) {
        Some(encoded) => base64::engine::general_purpose::STANDARD
            .decode(encoded)
            .ok()
            .and_then(|b| String::from_utf8(b).ok())
            .map(Some)
            .ok_or_else(|| mismatch(format!("{name} is not valid base64 UTF-8"))),
        None => Ok(Some(text.to_owned())),
    }
}

/// The 2026-07-28 header checks: `MCP-Protocol-Version` and `Mcp-Method` present and equal to
/// the body, and `Mcp-Name` for the methods that name something.
fn check_headers(headers: &HeaderMap, version: &str, method: &str, params: &Value) -> Result<(), RpcError> {
    let require = |name: &str, body: &str| -> Result<(), RpcError> {
        match header_value(headers, name)? {
            None => Err(mismatch(format!("the {name} header is required"))),
            Some(h) if h != body => {
                Err(mismatch(format!("{name} header value '{h}' does not match body value '{body}'")))
            }
            Some(_) => Ok(()),
        }
    };
    require("mcp-protocol-version", version)?;
    require("mcp-method", method)?;
    let named = match method {
        "tools/call" | "prompts/get" => params.get("name"),
        "resources/read" => params.get("uri"),
        _ => return Ok(()),
    };
    require("mcp-name", named.and_then(Value::as_str).unwrap_or_default())
}

fn modern_status(err: &RpcError) -> StatusCode {
    match err.code {
        code::METHOD_NOT_FOUND => StatusCode::NOT_FOUND,
        code::INTERNAL => StatusCode::INTERNAL_SERVER_ERROR,
        _ => StatusCode::BAD_REQUEST,
    }
}

/// `POST /mcp`.
pub async fn post(app: Arc<App>, mut req: Request) -> HandlerResult {
    let Some(framing) = framing(&req.headers) else {
        let err = RpcError::new(code::INVALID_REQUEST, "Not Acceptable: accept application/json or text/event-stream");
        return Ok(refusal(StatusCode::NOT_ACCEPTABLE, &err));
    };
    if req.headers.get(header::ORIGIN).is_some_and(|o| !origin_ok(o)) {
        return Ok(refusal(StatusCode::FORBIDDEN, &RpcError::new(code::INVALID_REQUEST, "Forbidden: invalid Origin")));
    }
    let bytes = match req.json_bytes().await {
        Ok(bytes) => bytes,
        Err(err @ (ApiError::PayloadTooLarge(_) | ApiError::UnsupportedMediaType(_) | ApiError::InvalidBody(_))) => {
            return Ok(refusal(err.status(), &RpcError::new(code::INVALID_REQUEST, err.to_string())));
        }
        Err(err) => return Err(err),
    };
    let (id, method, params) = match super::parse(&bytes) {
        Ok(Message::Request { id, method, params }) => (id, method, params),
        Ok(Message::Notification { .. }) => {
            return Ok(Response::builder().status(StatusCode::ACCEPTED).body(Body::default()).expect("valid response"));
        }
        Err((err, id)) => {
            return Ok(reply(StatusCode::BAD_REQUEST, Framing::Json, &super::response(&id, &Err(err))));
        }
    };
    let header_version = header_value(&req.headers, "mcp-protocol-version").ok().flatten();
    let ctx = Ctx::new(&app, origin_of(&app, &req.headers));
    let host = req.headers.get(header::HOST).and_then(|h| h.to_str().ok());
    let modern =
        super::is_modern(&method, &params) || header_version.as_deref().is_some_and(|v| Revision::legacy(v).is_none());
    let (status, outcome) = if modern {
        let checked = super::check_meta(&params).and_then(|version| {
            check_headers(&req.headers, version, &method, &params)?;
            super::check_modern_version(version)
        });
        match checked {
            Err(err) => (StatusCode::BAD_REQUEST, Err(err)),
            Ok(()) => {
                let outcome = super::call_with_payments(&ctx, &app, host, Revision::Modern, &method, &params).await;
                (outcome.as_ref().err().map_or(StatusCode::OK, modern_status), outcome)
            }
        }
    } else {
        let rev = header_version.as_deref().and_then(Revision::legacy).unwrap_or(Revision::Legacy(super::HEADERLESS));
        (StatusCode::OK, super::call_with_payments(&ctx, &app, host, rev, &method, &params).await)
    };
    Ok(reply(status, framing, &super::response(&id, &outcome)))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn accept(v: &str) -> Option<Framing> {
        let mut h = HeaderMap::new();
        h.insert(header::ACCEPT, HeaderValue::from_str(v).unwrap());
        framing(&h)
    }

    #[test]
    fn accept_chooses_the_framing() {
        assert_eq!(framing(&HeaderMap::new()), Some(Framing::Json));
        assert_eq!(accept("application/json, text/event-stream"), Some(Framing::Json));
        assert_eq!(accept("text/event-stream"), Some(Framing::Sse));
        assert_eq!(accept("application/json;q=0.5, text/event-stream"), Some(Framing::Sse));
        assert_eq!(accept("*/*"), Some(Framing::Json));
        assert_eq!(accept("text/*, application/json;q=0.1"), Some(Framing::Sse));
        assert_eq!(accept("text/html"), None);
        assert_eq!(accept("application/json;q=0, text/html"), None);
    }

    #[test]
    fn origins() {
        let ok = |v: &str| origin_ok(&HeaderValue::from_str(v).unwrap());
        assert!(ok("https://example.org") && ok("http://127.0.0.1:8402") && ok("http://[::1]:80"));
        assert!(!ok("null") && !ok("file://") && !ok("https://a.b/path") && !ok("https://"));
    }

    #[test]
    fn headers_mirror_the_body() {
        let mut h = HeaderMap::new();
        let params = json!({ "name": "mainstreet_score" });
        let check = |h: &HeaderMap| check_headers(h, "2026-07-28", "tools/call", &params).map_err(|e| e.code);
        assert_eq!(check(&h), Err(code::HEADER_MISMATCH));
        h.insert("mcp-protocol-version", HeaderValue::from_static("2026-07-28"));
        h.insert("mcp-method", HeaderValue::from_static("tools/call"));
        assert_eq!(check(&h), Err(code::HEADER_MISMATCH), "Mcp-Name is required for tools/call");
        h.insert("mcp-name", HeaderValue::from_static("mainstreet_score"));
        assert_eq!(check(&h), Ok(()));
        let encoded = base64::engine::general_purpose::STANDARD.encode("mainstreet_score");
        h.insert("mcp-name", HeaderValue::from_str(&format!("=?base64?{encoded}?=")).unwrap());
        assert_eq!(check(&h), Ok(()));
        h.insert("mcp-method", HeaderValue::from_static("tools/list"));
        assert_eq!(check(&h), Err(code::HEADER_MISMATCH));
    }
}
