//! The web sources: what the ingest jobs read over HTTP.
//!
//! - [`safe`]: [`safe::SafeClient`], the only client allowed to fetch URLs taken from untrusted
//!   data (listings, registration URIs); it refuses non-public targets after DNS resolution and on
//!   every redirect hop.
//! - [`offer`]: a 402 answer parsed into an x402 offer, and whether it matches a listing.
//! - [`bazaar`]: the x402 Bazaar discovery crawler (operator-configured URLs, plain client).
//! - [`probe`]: unpaid health probes of listed resources.
//! - [`card`]: ERC-8004 registration files.
//! - [`ownership`]: the ownership proofs an origin serves (`/.well-known/x402`).
//! - [`facilitator`]: a facilitator's `/supported` signers.
//! - [`farcaster`]: a Farcaster hub's custody and verification lookups.

pub mod bazaar;
pub mod card;
pub mod facilitator;
pub mod farcaster;
pub mod offer;
pub mod ownership;
pub mod pay;
pub mod probe;
pub mod safe;

/// The HTTP client crate these sources take clients of (so callers name the same version).
pub use reqwest;

use std::time::Duration;

use agentrep_lake::Timestamp;
use alloy::primitives::Address;
use url::Url;

/// The User-Agent of every request agentrep makes.
pub const USER_AGENT: &str = concat!("agentrep-ingest/", env!("CARGO_PKG_VERSION"), " (x402 seller reputation)");

/// Largest body read from an operator-configured source (discovery pages, `/supported`, hubs).
pub const MAX_TRUSTED_BODY: usize = 32 * 1024 * 1024;

/// Installs rustls' `ring` provider as the process default, once (reqwest is built without a
/// provider). An already installed provider is kept.
pub fn install_crypto_provider() {
    static ONCE: std::sync::Once = std::sync::Once::new();
    ONCE.call_once(|| {
        // Err means another provider is installed already, which serves as well.
        let _ = rustls::crypto::ring::default_provider().install_default();
    });
}

/// An HTTP client that could not be built.
#[derive(Debug, thiserror::Error)]
pub enum ClientError {
    /// The egress proxy's URL was refused (the URL is not repeated: it may carry credentials).
    #[error("the egress proxy's URL is refused")]
    Proxy(#[source] reqwest::Error),
    /// The TLS backend or the client could not be set up.
    #[error("building the HTTP client: {0}")]
    Build(#[source] reqwest::Error),
}

/// A plain client for operator-configured URLs (discovery, facilitators, hubs): agentrep's
/// User-Agent, no proxy from the environment, and `timeout` for each whole request.
///
/// # Errors
/// When the TLS backend cannot be set up.
pub fn plain_client(timeout: Duration) -> Result<reqwest::Client, ClientError> {
    install_crypto_provider();
    reqwest::Client::builder().user_agent(USER_AGENT).timeout(timeout).no_proxy().build().map_err(ClientError::Build)
}

/// The current time as a lake timestamp.
pub(crate) fn now() -> Timestamp {
    let micros = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |d| i64::try_from(d.as_micros()).unwrap_or(i64::MAX));
    Timestamp(micros)
}

/// `0x` followed by exactly 40 hex digits, as an address (any letter case).
pub(crate) fn parse_address(s: &str) -> Option<Address> {
    let s = s.trim();
    let hex = s.strip_prefix("0x").or_else(|| s.strip_prefix("0X"))?;
    if hex.len() != 40 || !hex.bytes().all(|b| b.is_ascii_hexdigit()) {
        return None;
    }
    hex.parse().ok()
}

/// Why an operator-configured source (a discovery page, a facilitator's `/supported`, a hub, a
/// list) gave nothing usable. Its text is what the source's status and lake rows record: a request
/// error never names the URL (whose query may carry operator keys), only its cause.
#[derive(Debug, thiserror::Error)]
pub enum WebError {
    /// The request failed: `timed out`, `connect: …` or its innermost cause.
    #[error("{}", describe(.0))]
    Request(#[source] reqwest::Error),
    /// The body could not be read to its end.
    #[error("reading the body: {}", root_cause(.0))]
    Body(#[source] reqwest::Error),
    /// The body is larger than the source may send.
    #[error("body larger than {0} bytes")]
    TooLarge(usize),
    /// An answer other than success.
    #[error("HTTP {0}")]
    Status(u16),
    /// The body is not JSON.
    #[error("not JSON: {0}")]
    NotJson(#[source] serde_json::Error),
    /// The JSON is not what the source serves (which part, in words).
    #[error("{0}")]
    Unexpected(String),
    /// A base URL that cannot take a path segment.
    #[error("{0} cannot take a path")]
    NoPath(Url),
    /// What was being read (`GET host/supported`, `hub verificationsByFid`), and why it failed.
    #[error("{what}: {source}")]
    In {
        /// What was being read.
        what: String,
        /// Why it failed.
        #[source]
        source: Box<WebError>,
    },
}

impl WebError {
    /// This error, named by what was being read.
    pub fn within(self, what: impl Into<String>) -> Self {
        WebError::In { what: what.into(), source: Box::new(self) }
    }
}

/// Reads a response body, refusing one larger than `max` bytes (streamed: stops at the limit).
pub(crate) async fn read_capped(mut response: reqwest::Response, max: usize) -> Result<Vec<u8>, WebError> {
    if response.content_length().is_some_and(|len| len > max as u64) {
        return Err(WebError::TooLarge(max));
    }
    let mut body = Vec::new();
    while let Some(chunk) = response.chunk().await.map_err(WebError::Body)? {
        if body.len() + chunk.len() > max {
            return Err(WebError::TooLarge(max));
        }
        body.extend_from_slice(&chunk);
    }
    Ok(body)
}

/// GETs an operator-configured URL: its status and body (bounded by [`MAX_TRUSTED_BODY`]).
/// Errors name `what` (never the whole URL, whose query may carry operator keys).
pub(crate) async fn get_trusted(http: &reqwest::Client, url: Url, what: &str) -> Result<(u16, Vec<u8>), WebError> {
    let response = http
        .get(url)
        .header(reqwest::header::ACCEPT, "application/json")
        .send()
        .await
        .map_err(|e| WebError::Request(e).within(what))?;
    let status = response.status().as_u16();
    let body = read_capped(response, MAX_TRUSTED_BODY).await.map_err(|e| e.within(what))?;
    Ok((status, body))
}

/// `base` with one more path segment (`https://h/x402` → `https://h/x402/supported`).
pub(crate) fn with_segment(base: &Url, segment: &str) -> Result<Url, WebError> {
    let mut url = base.clone();
    url.set_fragment(None);
    url.path_segments_mut().map_err(|()| WebError::NoPath(base.clone()))?.pop_if_empty().push(segment);
    Ok(url)
}

/// A reqwest error without its URL (which may carry operator query parameters), as
/// `timed out`, `connect: …` or its innermost cause.
pub(crate) fn describe(e: &reqwest::Error) -> String {
    if e.is_timeout() {
        "timed out".to_owned()
    } else if e.is_connect() {
        format!("connect: {}", root_cause(e))
    } else {
        root_cause(e)
    }
}

/// The innermost error of a chain, as text.
pub(crate) fn root_cause(e: &(dyn std::error::Error + 'static)) -> String {
    let mut cur = e;
    while let Some(next) = cur.source() {
        cur = next;
    }
    cur.to_string()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn addresses_need_the_prefix_and_forty_hex_digits() {
        let a = parse_address("0x833589fCD6eDb6E08f4c7C32D4f71b54bdA02913").unwrap();
        assert_eq!(parse_address("0X833589FCD6EDB6E08F4C7C32D4F71B54BDA02913"), Some(a));
        assert_eq!(parse_address(" 0x833589fcd6edb6e08f4c7c32d4f71b54bda02913 "), Some(a));
        assert_eq!(parse_address("833589fcd6edb6e08f4c7c32d4f71b54bda02913"), None);
        assert_eq!(parse_address("0x833589fcd6edb6e08f4c7c32d4f71b54bda0291"), None);
        assert_eq!(parse_address("0x833589fcd6edb6e08f4c7c32d4f71b54bda0291g"), None);
        assert_eq!(parse_address("EPjFWdd5AufqSSqeM2qN1xzybapC8G4wEGGkZwyTDt1v"), None);
    }
}
