//! HTTP transport: the request a handler sees, the router, typed parameters, responses, and the
//! one dispatch function every connection calls.

pub mod params;
pub mod respond;
pub mod router;

use std::future::Future;
use std::pin::Pin;
use std::sync::Arc;

use bytes::Bytes;
use http_body_util::BodyExt;
use http_body_util::combinators::BoxBody;
use hyper::header::{self, HeaderMap, HeaderValue};
use hyper::{Method, Response, StatusCode, Uri};
use serde::de::DeserializeOwned;

use crate::App;
use crate::endpoints::Endpoint;
use crate::error::ApiError;
use crate::index::ServedSnapshot;
pub use respond::Body;
pub use router::{Match, PathParams, Router};

/// Largest request body any route reads (`POST /scores` with 200 addresses is about 9 KB).
pub const MAX_BODY: usize = 64 * 1024;
/// Most of a refused body read and dropped before the refusal is sent; a larger one is cut off.
pub const DRAIN_LIMIT: usize = 1024 * 1024;

/// A request body, boxed so tests and the server share one request type.
pub type RequestBody = BoxBody<Bytes, Box<dyn std::error::Error + Send + Sync>>;

/// What a handler answers.
pub type HandlerResult = Result<Response<Body>, ApiError>;

/// A handler's future.
pub type HandlerFuture = Pin<Box<dyn Future<Output = HandlerResult> + Send>>;

/// A route's handler: async, owns its request, may read a bounded body.
pub type Handler = fn(Arc<App>, Request) -> HandlerFuture;

/// Wraps an `async fn(Arc<App>, Request) -> HandlerResult` as a table [`Handler`].
#[macro_export]
macro_rules! handler {
    ($f:path) => {
        |app, req| -> $crate::http::HandlerFuture { Box::pin($f(app, req)) }
    };
}

/// One request as a handler sees it.
#[derive(Debug)]
pub struct Request {
    /// Method.
    pub method: Method,
    /// URI.
    pub uri: Uri,
    /// Headers.
    pub headers: HeaderMap,
    /// Path parameters of the matched template.
    pub params: PathParams,
    /// The matched endpoint.
    pub route: &'static Endpoint,
    /// The connection's remote address, when known.
    pub peer: Option<std::net::SocketAddr>,
    body: Option<RequestBody>,
}

impl Request {
    /// A routed request: its head, the path parameters and the endpoint they matched.
    pub fn new(
        parts: hyper::http::request::Parts,
        params: PathParams,
        route: &'static Endpoint,
        body: RequestBody,
    ) -> Self {
        let peer = parts.extensions.get::<std::net::SocketAddr>().copied();
        Self { method: parts.method, uri: parts.uri, headers: parts.headers, params, route, peer, body: Some(body) }
    }

    /// The client this request comes from (a trusted proxy's `X-Forwarded-For`, else the
    /// connection's address).
    pub fn client_ip(&self, trusted: &[crate::writes::limits::Cidr]) -> Option<std::net::IpAddr> {
        // Every header line, in order: a proxy may add its own line after the client's.
        let lines: Vec<&str> = self.headers.get_all("x-forwarded-for").iter().filter_map(|v| v.to_str().ok()).collect();
        let forwarded = (!lines.is_empty()).then(|| lines.join(","));
        crate::writes::limits::client_ip(self.peer, forwarded.as_deref(), trusted)
    }

    /// Whether only headers are wanted.
    pub fn is_head(&self) -> bool {
        self.method == Method::HEAD
    }

    /// The query string parsed into `T`.
    pub fn query<T: DeserializeOwned>(&self) -> Result<T, ApiError> {
        params::query(self.uri.query())
    }

    /// The path parameter `{name}` (the table guarantees it exists for the matched row).
    pub fn param(&self, name: &str) -> &str {
        self.params.get(name).unwrap_or_default()
    }

    /// The path parameter `{name}` as an address.
    pub fn address(&self, name: &str) -> Result<agentrep_model::Address, ApiError> {
        params::address(self.param(name))
    }

    /// Reads the body (at most [`MAX_BODY`] bytes) and parses it as JSON into `T`.
    pub async fn json<T: DeserializeOwned>(&mut self) -> Result<T, ApiError> {
        let bytes = self.json_bytes().await?;
        if bytes.iter().all(u8::is_ascii_whitespace) {
            return Err(ApiError::InvalidBody("the body is empty; send a JSON object".to_owned()));
        }
        params::json(&bytes)
    }

    /// Reads a JSON body's bytes (at most [`MAX_BODY`]), refusing other content types.
    pub async fn json_bytes(&mut self) -> Result<Vec<u8>, ApiError> {
        if let Some(ct) = self.headers.get(header::CONTENT_TYPE) {
            let ct = ct.to_str().unwrap_or_default();
            let essence = ct.split(';').next().unwrap_or_default().trim().to_ascii_lowercase();
            if essence != "application/json" && !essence.ends_with("+json") && essence != "text/plain" {
                return Err(self.refuse(ApiError::UnsupportedMediaType(ct.to_owned())).await);
            }
        }
        let declared = self
            .headers
            .get(header::CONTENT_LENGTH)
            .and_then(|v| v.to_str().ok())
            .and_then(|v| v.parse::<usize>().ok());
        if declared.is_some_and(|n| n > MAX_BODY) {
            return Err(self.refuse(ApiError::PayloadTooLarge(MAX_BODY)).await);
        }
        let Some(mut body) = self.body.take() else {
            return Err(ApiError::InvalidBody("the body was already read".to_owned()));
        };
        let mut bytes = Vec::new();
        while let Some(frame) = body.frame().await {
            let frame = frame.map_err(|e| ApiError::InvalidBody(format!("the body could not be read: {e}")))?;
            if let Ok(data) = frame.into_data() {
                if bytes.len() + data.len() > MAX_BODY {
                    self.body = Some(body);
                    return Err(self.refuse(ApiError::PayloadTooLarge(MAX_BODY)).await);
                }
                bytes.extend_from_slice(&data);
            }
        }
        Ok(bytes)
    }

    /// Reads and drops what is left of a refused body (up to [`DRAIN_LIMIT`]) before the refusal
    /// is answered, so the client, still sending, reads the answer instead of a reset connection.
    async fn refuse(&mut self, err: ApiError) -> ApiError {
        if let Some(mut body) = self.body.take() {
            let mut drained = 0;
            while drained <= DRAIN_LIMIT {
                match body.frame().await {
                    Some(Ok(frame)) => drained += frame.data_ref().map_or(0, |d| d.len()),
                    _ => break,
                }
            }
        }
        err
    }

    /// The absolute URL of this request as the client addressed it.
    pub fn absolute_url(&self) -> String {
        let host = self.headers.get(header::HOST).and_then(|h| h.to_str().ok()).unwrap_or("127.0.0.1");
        format!("http://{host}{}", self.uri.path_and_query().map_or("/", |p| p.as_str()))
    }
}

impl App {
    /// The snapshot to answer from, or 503 before the first one loads.
    pub fn require_snapshot(&self) -> Result<Arc<ServedSnapshot>, ApiError> {
        self.snapshot().ok_or(ApiError::NoSnapshot)
    }
}

/// Headers a browser may send on a cross-origin call.
const CORS_ALLOW_HEADERS: &str = "content-type, accept, authorization, if-none-match, payment-signature, x-payment, x-agentrep-receipt, mcp-protocol-version, mcp-session-id, mcp-method, mcp-name, last-event-id";

/// The answer to a CORS preflight (`OPTIONS`) of a known path.
pub fn preflight(allowed: &str) -> Response<Body> {
    Response::builder()
        .status(StatusCode::NO_CONTENT)
        .header(header::ACCESS_CONTROL_ALLOW_ORIGIN, "*")
        .header(header::ACCESS_CONTROL_ALLOW_METHODS, format!("{allowed}, OPTIONS"))
        .header(header::ACCESS_CONTROL_ALLOW_HEADERS, CORS_ALLOW_HEADERS)
        .header(header::ACCESS_CONTROL_MAX_AGE, "86400")
        .header(header::ALLOW, format!("{allowed}, OPTIONS"))
        .body(Body::default())
        .expect("valid response")
}

/// Logs a refused request: a client's mistake at DEBUG, a feature this deployment has turned off
/// (503 `payments_not_configured`, 501) at INFO, both with their code; a failure here (a node or
/// the ledger unreachable) as a warning.
fn log_refusal(path: &str, err: &ApiError) {
    let (status, code) = (err.status().as_u16(), err.code());
    if !err.is_expected() {
        tracing::warn!(target: "server::http", path, status, code, %err, "Request failed.");
    } else if err.status().is_server_error() {
        tracing::info!(target: "server::http", path, status, code, "Refused: not offered by this deployment.");
    } else {
        tracing::debug!(target: "server::http", path, status, code, "Refused.");
    }
}

/// Runs a routed request's handler: its error becomes its JSON body, a `HEAD` loses the body,
/// and every answer allows any origin.
pub async fn run(app: Arc<App>, handler: Handler, request: Request) -> Response<Body> {
    let path = request.uri.path().to_owned();
    let head = request.is_head();
    let mut response = handler(app, request).await.unwrap_or_else(|err| {
        log_refusal(&path, &err);
        respond::error(&err)
    });
    if head {
        *response.body_mut() = Body::default();
    }
    response.headers_mut().entry(header::ACCESS_CONTROL_ALLOW_ORIGIN).or_insert(HeaderValue::from_static("*"));
    response
}
