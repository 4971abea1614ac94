//! URLs users hand the server to call later (webhook receivers, agent description files): http
//! or https, no credentials, and no private target. A literal address is checked as it is; a name
//! is resolved now and refused when any of its addresses is not public. The call itself checks
//! again, inside its resolver (`SafeClient`), so a name that later resolves elsewhere is refused
//! at delivery too.

use std::time::Duration;

use agentrep_ingest::web::safe::{FetchError, is_public_ip, parse_checked};
use url::{Host, Url};

use crate::ApiError;

/// Longest URL taken.
pub const MAX_URL: usize = 2048;
/// How long a name may take to resolve.
const RESOLVE_TIMEOUT: Duration = Duration::from_secs(3);

/// Checks a URL the server will call; `field` names it in a refusal.
///
/// # Errors
/// 400 `invalid_<field>` for a URL that is not http(s), carries credentials, names a private,
/// loopback, link-local, multicast or metadata target, or does not resolve.
pub async fn check(url: &str, field: &str, allow_private: bool) -> Result<Url, ApiError> {
    if url.len() > MAX_URL {
        return Err(ApiError::param(field, format!("longer than {MAX_URL} characters")));
    }
    let parsed = parse_checked(url, allow_private).map_err(|e| match e {
        FetchError::RefusedPrivate(host) => ApiError::param(field, format!("blocked: {host} is a private target")),
        other => ApiError::param(field, other.to_string()),
    })?;
    if allow_private {
        return Ok(parsed);
    }
    if let Some(Host::Domain(name)) = parsed.host() {
        let port = parsed.port_or_known_default().unwrap_or(443);
        let lookup = tokio::time::timeout(RESOLVE_TIMEOUT, tokio::net::lookup_host((name, port))).await;
        let addrs: Vec<_> = match lookup {
            Ok(Ok(addrs)) => addrs.collect(),
            Ok(Err(_)) => return Err(ApiError::param(field, format!("{name} does not resolve"))),
            Err(_) => return Err(ApiError::param(field, format!("{name} did not resolve in time"))),
        };
        if addrs.is_empty() {
            return Err(ApiError::param(field, format!("{name} does not resolve")));
        }
        // The refusal does not say which address: the server's resolver is not a lookup service
        // for names inside its network.
        if addrs.iter().any(|a| !is_public_ip(a.ip())) {
            return Err(ApiError::param(field, format!("blocked: {name} resolves to a private target")));
        }
    }
    Ok(parsed)
}

/// A URL as shown to anyone who lists it: scheme, host and port only (its path and query may
/// carry the receiver's own token).
pub fn redacted(url: &str) -> String {
    match Url::parse(url) {
        Ok(u) => match (u.host_str(), u.port()) {
            (Some(h), Some(p)) => format!("{}://{h}:{p}/…", u.scheme()),
            (Some(h), None) => format!("{}://{h}/…", u.scheme()),
            _ => "…".to_owned(),
        },
        Err(_) => "…".to_owned(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[tokio::test]
    async fn private_and_odd_targets_are_refused_before_any_call() {
        for (url, why) in [
            ("ftp://example.com/x", "scheme"),
            ("http://user:pw@example.com/", "credentials"),
            ("http://127.0.0.1:9/hook", "loopback"),
            ("http://10.0.0.5/hook", "private"),
            ("http://169.254.169.254/latest/meta-data", "metadata"),
            ("http://[::1]/hook", "loopback v6"),
            ("http://[::ffff:192.168.0.1]/hook", "mapped private"),
            ("http://2130706433/hook", "decimal loopback"),
            ("http://metadata.google.internal/", "metadata name"),
            ("http://localhost:9/hook", "a name resolving to loopback"),
        ] {
            let err = check(url, "webhookUrl", false).await.unwrap_err();
            assert_eq!(err.code(), "invalid_webhookUrl", "{why}: {url}");
        }
        assert!(check("http://127.0.0.1:9/hook", "webhookUrl", true).await.is_ok(), "allowed for tests");
        assert_eq!(redacted("https://hooks.example.com/t/SECRET?k=1"), "https://hooks.example.com/…");
    }
}
