//! `SafeClient`: GET for URLs that come from untrusted data (listings, agent registration URIs).
//!
//! The rules, all lifted only by `allow_private_targets` (tests on loopback):
//! - only `http` and `https`, no credentials in the URL;
//! - no non-public target: private, loopback, link-local, unique-local, CGNAT, multicast,
//!   unspecified, broadcast, reserved, benchmarking and documentation ranges, IPv4-mapped,
//!   -compatible, NAT64 and 6to4 IPv6 forms of those, and cloud metadata names and addresses
//!   (`169.254.169.254`, `fd00:ec2::254`, `metadata.google.internal`, any `*.internal`);
//! - names are checked *after* resolution, inside the client's own resolver, so the addresses
//!   checked are the addresses connected to (no gap between check and connect); URL hosts that are
//!   IP literals (in any spelling the URL parser accepts: `2130706433`, `0x7f.1`, `[::ffff:…]`)
//!   never reach a resolver and are checked before the request;
//! - redirects are followed by hand, up to `max_redirects`, each target checked again;
//! - one deadline for the whole request (every hop and the body), bodies read as a stream and
//!   refused past `max_body_bytes`, no proxy from the environment, agentrep's User-Agent.
//!
//! Errors are [`FetchError`]s; [`FetchError::class`] is the short stable string written into
//! `ProbeRow.error` and `AgentCardRow.error`.

use std::future::Future;
use std::net::{IpAddr, Ipv4Addr, Ipv6Addr, SocketAddr};
use std::pin::Pin;
use std::sync::Arc;
use std::time::{Duration, Instant};

use reqwest::dns::{Addrs, Name, Resolve, Resolving};
use reqwest::header::{HeaderMap, HeaderValue, LOCATION};
use url::{Host, Url};

use super::{ClientError, USER_AGENT, install_crypto_provider, root_cause};
use crate::config::ProbeConfig;

/// Why a fetch failed. Messages carry no credentials (URLs with credentials are refused) and no
/// request headers.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum FetchError {
    /// The target (a literal address, a refused name, or every address a name resolves to) is not
    /// public.
    #[error("refused non-public target: {0}")]
    RefusedPrivate(String),
    /// The name could not be resolved.
    #[error("name resolution failed: {0}")]
    Dns(String),
    /// No connection could be made.
    #[error("connection failed: {0}")]
    Connect(String),
    /// The whole request took longer than the timeout, milliseconds.
    #[error("timed out after {0} ms")]
    Timeout(u64),
    /// The TLS handshake failed (certificate, protocol).
    #[error("TLS failed: {0}")]
    Tls(String),
    /// The body is larger than the limit, bytes.
    #[error("body larger than {0} bytes")]
    TooLarge(usize),
    /// The URL (or a redirect target) is not an acceptable http(s) URL.
    #[error("bad URL: {0}")]
    BadUrl(String),
    /// More redirects than allowed.
    #[error("redirects: {0}")]
    Redirects(String),
    /// Any other HTTP failure (protocol error, broken body).
    #[error("HTTP failure: {0}")]
    Http(String),
}

impl FetchError {
    /// The short stable class: `refused-private`, `dns`, `connect`, `timeout`, `tls`,
    /// `too-large`, `bad-url`, `redirects` or `http`.
    pub fn class(&self) -> &'static str {
        match self {
            FetchError::RefusedPrivate(_) => "refused-private",
            FetchError::Dns(_) => "dns",
            FetchError::Connect(_) => "connect",
            FetchError::Timeout(_) => "timeout",
            FetchError::Tls(_) => "tls",
            FetchError::TooLarge(_) => "too-large",
            FetchError::BadUrl(_) => "bad-url",
            FetchError::Redirects(_) => "redirects",
            FetchError::Http(_) => "http",
        }
    }
}

/// True when `ip` is a public unicast address (the only kind [`SafeClient`] connects to).
pub fn is_public_ip(ip: IpAddr) -> bool {
    match ip {
        IpAddr::V4(v4) => is_public_v4(v4),
        IpAddr::V6(v6) => is_public_v6(v6),
    }
}

fn is_public_v4(ip: Ipv4Addr) -> bool {
    let [a, b, c, _] = ip.octets();
    let refused = a == 0 // "this network", including 0.0.0.0
        || a == 10 // private
        || a == 127 // loopback
        || a >= 224 // multicast, reserved, 255.255.255.255 broadcast
        || (a == 100 && (64..128).contains(&b)) // CGNAT (also Alibaba's metadata 100.100.100.200)
        || (a == 169 && b == 254) // link-local, including 169.254.169.254 metadata
        || (a == 172 && (16..32).contains(&b)) // private
        || (a == 192 && b == 168) // private
        || (a == 192 && b == 0 && c == 0) // IETF protocol assignments
        || (a == 192 && b == 0 && c == 2) // TEST-NET-1
        || (a == 192 && b == 88 && c == 99) // 6to4 relay anycast
        || (a == 198 && (b == 18 || b == 19)) // benchmarking
        || (a == 198 && b == 51 && c == 100) // TEST-NET-2
        || (a == 203 && b == 0 && c == 113); // TEST-NET-3
    !refused
}

fn is_public_v6(ip: Ipv6Addr) -> bool {
    if let Some(v4) = ip.to_ipv4_mapped() {
        return is_public_v4(v4);
    }
    let s = ip.segments();
    let embedded = |hi: u16, lo: u16| Ipv4Addr::from((u32::from(hi) << 16) | u32::from(lo));
    // NAT64 64:ff9b::/96 reaches the embedded IPv4 address.
    if s[..6] == [0x64, 0xff9b, 0, 0, 0, 0] {
        return is_public_v4(embedded(s[6], s[7]));
    }
    // 6to4 2002::/16 embeds an IPv4 address in bits 16..48.
    if s[0] == 0x2002 {
        return is_public_v4(embedded(s[1], s[2]));
    }
    // Only global unicast 2000::/3: this excludes ::/8 (unspecified, loopback, IPv4-compatible),
    // 64:ff9b:1::/48, 100::/64, fc00::/7 (unique-local, fd00:ec2::254), fe80::/10, ff00::/8.
    if s[0] & 0xe000 != 0x2000 {
        return false;
    }
    let ietf = s[0] == 0x2001 && s[1] < 0x0200; // 2001::/23: Teredo, benchmarking, ORCHID
    let documentation = (s[0] == 0x2001 && s[1] == 0x0db8) || (s[0] == 0x3fff && s[1] < 0x1000);
    !(ietf || documentation)
}

/// True for names refused whatever they resolve to: cloud metadata names, `localhost` and the
/// `.localhost` and `.internal` zones.
pub fn is_refused_name(host: &str) -> bool {
    const NAMES: &[&str] =
        &["localhost", "metadata", "metadata.goog", "metadata.google.internal", "instance-data", "metadata.azure.com"];
    let h = host.trim_end_matches('.').to_ascii_lowercase();
    NAMES.contains(&h.as_str()) || h.ends_with(".localhost") || h.ends_with(".internal")
}

/// Checks a URL against the rules that do not need DNS: scheme, credentials, and the host when it
/// is an IP literal or a refused name (`allow_private` lifts the host rules only).
///
/// # Errors
/// [`FetchError::BadUrl`] or [`FetchError::RefusedPrivate`].
pub fn check_url(url: &Url, allow_private: bool) -> Result<(), FetchError> {
    if !matches!(url.scheme(), "http" | "https") {
        return Err(FetchError::BadUrl(format!("scheme `{}` is not http or https", url.scheme())));
    }
    if !url.username().is_empty() || url.password().is_some() {
        return Err(FetchError::BadUrl("credentials in the URL".to_owned()));
    }
    let host = url.host().ok_or_else(|| FetchError::BadUrl("no host".to_owned()))?;
    if allow_private {
        return Ok(());
    }
    match host {
        Host::Ipv4(ip) if !is_public_v4(ip) => Err(FetchError::RefusedPrivate(ip.to_string())),
        Host::Ipv6(ip) if !is_public_v6(ip) => Err(FetchError::RefusedPrivate(ip.to_string())),
        Host::Domain(name) if is_refused_name(name) => Err(FetchError::RefusedPrivate(name.to_owned())),
        _ => Ok(()),
    }
}

/// Parses a URL taken from data and checks it ([`check_url`]).
///
/// # Errors
/// [`FetchError::BadUrl`] when it does not parse, or what [`check_url`] refuses.
pub fn parse_checked(url: &str, allow_private: bool) -> Result<Url, FetchError> {
    let parsed = Url::parse(url.trim()).map_err(|e| FetchError::BadUrl(e.to_string()))?;
    check_url(&parsed, allow_private)?;
    Ok(parsed)
}

/// Where a response redirects to: `None` unless the status is 301, 302, 303, 307 or 308 with a
/// `Location` header; the target resolved against `current` and checked ([`check_url`]).
///
/// # Errors
/// [`FetchError::BadUrl`] for an unreadable or non-http(s) target, [`FetchError::RefusedPrivate`]
/// for a refused host.
pub fn redirect_target(
    current: &Url,
    status: u16,
    location: Option<&HeaderValue>,
    allow_private: bool,
) -> Result<Option<Url>, FetchError> {
    if !matches!(status, 301 | 302 | 303 | 307 | 308) {
        return Ok(None);
    }
    let Some(location) = location else { return Ok(None) };
    let text =
        location.to_str().map_err(|_| FetchError::BadUrl("redirect Location is not visible ASCII".to_owned()))?;
    let next = current.join(text.trim()).map_err(|e| FetchError::BadUrl(format!("redirect Location: {e}")))?;
    check_url(&next, allow_private).map_err(|e| match e {
        FetchError::BadUrl(m) => FetchError::BadUrl(format!("redirect target: {m}")),
        other => other,
    })?;
    Ok(Some(next))
}

/// A name lookup: host → addresses. Production uses the system resolver; tests inject fakes.
type LookupFuture = Pin<Box<dyn Future<Output = std::io::Result<Vec<IpAddr>>> + Send>>;
type Lookup = Arc<dyn Fn(String) -> LookupFuture + Send + Sync>;

fn system_lookup() -> Lookup {
    Arc::new(|host: String| {
        Box::pin(async move { Ok(tokio::net::lookup_host((host.as_str(), 0)).await?.map(|a| a.ip()).collect()) })
    })
}

/// The configured `probes.hosts` first (lowercase names), then the system resolver.
fn hosts_then_system(hosts: std::collections::BTreeMap<String, IpAddr>) -> Lookup {
    if hosts.is_empty() {
        return system_lookup();
    }
    let system = system_lookup();
    let hosts: std::collections::BTreeMap<String, IpAddr> =
        hosts.into_iter().map(|(name, ip)| (name.trim_end_matches('.').to_ascii_lowercase(), ip)).collect();
    Arc::new(move |host: String| match hosts.get(&host.trim_end_matches('.').to_ascii_lowercase()) {
        Some(ip) => {
            let ip = *ip;
            Box::pin(async move { Ok(vec![ip]) })
        }
        None => system(host),
    })
}

/// A name that resolves only to refused addresses (or is refused by name).
#[derive(Debug, thiserror::Error)]
#[error("{host} resolves only to non-public addresses")]
struct RefusedName {
    host: String,
}

/// A name that does not resolve.
#[derive(Debug, thiserror::Error)]
#[error("{host}: {reason}")]
struct ResolveFailed {
    host: String,
    reason: String,
}

/// The client's resolver: resolves, then drops every refused address; a name left without
/// addresses is refused. The connector connects only to what this returns.
struct SafeResolver {
    allow_private: bool,
    lookup: Lookup,
}

impl Resolve for SafeResolver {
    fn resolve(&self, name: Name) -> Resolving {
        let host = name.as_str().to_owned();
        let allow_private = self.allow_private;
        let lookup = Arc::clone(&self.lookup);
        Box::pin(async move {
            // Errors are boxed by unsizing (`.into()` on the bare value): boxing a `Box<E>` again
            // would hide `E` from the downcasts in `classify`.
            if !allow_private && is_refused_name(&host) {
                return Err(RefusedName { host }.into());
            }
            let ips = match lookup(host.clone()).await {
                Ok(ips) => ips,
                Err(e) => return Err(ResolveFailed { host, reason: e.to_string() }.into()),
            };
            if ips.is_empty() {
                return Err(ResolveFailed { host, reason: "no addresses".to_owned() }.into());
            }
            let kept: Vec<SocketAddr> = ips
                .into_iter()
                .filter(|ip| allow_private || is_public_ip(*ip))
                .map(|ip| SocketAddr::new(ip, 0))
                .collect();
            if kept.is_empty() {
                return Err(RefusedName { host }.into());
            }
            Ok(Box::new(kept.into_iter()) as Addrs)
        })
    }
}

/// Who a client's requests say they come from, and where they leave from.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Identity {
    /// The `User-Agent` header.
    pub user_agent: String,
    /// The egress proxy (`http://`, `https://`), none: direct.
    pub proxy: Option<Url>,
    /// Headers sent with every request besides the user agent.
    pub headers: Vec<(&'static str, &'static str)>,
}

impl Default for Identity {
    /// agentrep's own: its user agent, direct.
    fn default() -> Self {
        Self { user_agent: USER_AGENT.to_owned(), proxy: None, headers: Vec::new() }
    }
}

impl Identity {
    /// What Node's `fetch` sends with every request besides its `User-Agent: node`, and so the
    /// official `@x402/fetch` buyer (reqwest sends `accept: */*` and its encodings itself).
    pub const NODE_FETCH_HEADERS: [(&'static str, &'static str); 2] =
        [("accept-language", "*"), ("sec-fetch-mode", "cors")];

    /// A customer's client as the official TypeScript buyer on Node makes it: `user_agent`, Node's
    /// `fetch` headers, leaving through `proxy`.
    pub fn customer(user_agent: &str, proxy: Option<Url>) -> Self {
        Self { user_agent: user_agent.to_owned(), proxy, headers: Self::NODE_FETCH_HEADERS.to_vec() }
    }
}

/// The client for untrusted URLs. Cheap to clone (one connection pool).
#[derive(Clone)]
pub struct SafeClient {
    http: reqwest::Client,
    /// Through a proxy: the lookup each target is checked with before the request.
    proxied: Option<Lookup>,
    allow_private: bool,
    timeout: Duration,
    max_redirects: usize,
    max_body: usize,
}

/// A response head after redirects; the body is read with [`SafeHead::body`] under the same
/// deadline and size limit.
#[derive(Debug)]
pub struct SafeHead {
    /// The final URL (after redirects).
    pub url: Url,
    /// HTTP status.
    pub status: u16,
    /// Response headers.
    pub headers: HeaderMap,
    /// Time from the start of the request to the final response head.
    pub latency: Duration,
    response: reqwest::Response,
    deadline: Instant,
    timeout: Duration,
    max_body: usize,
}

/// A whole response.
#[derive(Debug, Clone)]
pub struct SafeResponse {
    /// The final URL (after redirects).
    pub url: Url,
    /// HTTP status.
    pub status: u16,
    /// Response headers.
    pub headers: HeaderMap,
    /// Time from the start of the request to the final response head.
    pub latency: Duration,
    /// The body (at most `max_body_bytes`).
    pub body: Vec<u8>,
}

impl std::fmt::Debug for SafeClient {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("SafeClient")
            .field("allow_private", &self.allow_private)
            .field("proxied", &self.proxied.is_some())
            .field("timeout", &self.timeout)
            .field("max_redirects", &self.max_redirects)
            .field("max_body", &self.max_body)
            .finish_non_exhaustive()
    }
}

impl SafeClient {
    /// A client following `cfg`'s timeout, redirect, body and address rules.
    ///
    /// # Errors
    /// When the TLS backend cannot be set up.
    pub fn new(cfg: &ProbeConfig) -> Result<Self, ClientError> {
        Self::with_lookup(cfg, hosts_then_system(cfg.hosts.clone()), &Identity::default())
    }

    /// A client as [`SafeClient::new`] whose requests say they come from `identity.user_agent`
    /// and leave through `identity.proxy` when one is set (the paid probe's: a customer's client
    /// and egress, not agentrep's). Through a proxy the target is resolved and checked here
    /// before each request, as the proxy resolves it again.
    ///
    /// # Errors
    /// When the TLS backend cannot be set up or the proxy URL is refused.
    pub fn with_identity(cfg: &ProbeConfig, identity: &Identity) -> Result<Self, ClientError> {
        Self::with_lookup(cfg, hosts_then_system(cfg.hosts.clone()), identity)
    }

    fn with_lookup(cfg: &ProbeConfig, lookup: Lookup, identity: &Identity) -> Result<Self, ClientError> {
        install_crypto_provider();
        let timeout = Duration::from_millis(cfg.timeout_ms.max(1));
        let mut headers = HeaderMap::new();
        for (name, value) in &identity.headers {
            headers.insert(*name, HeaderValue::from_static(value));
        }
        let mut builder = reqwest::Client::builder()
            .user_agent(identity.user_agent.as_str())
            .default_headers(headers)
            .redirect(reqwest::redirect::Policy::none())
            .timeout(timeout)
            .dns_resolver(Arc::new(SafeResolver {
                allow_private: cfg.allow_private_targets,
                lookup: Arc::clone(&lookup),
            }));
        builder = match &identity.proxy {
            Some(proxy) => builder.proxy(reqwest::Proxy::all(proxy.as_str()).map_err(ClientError::Proxy)?),
            None => builder.no_proxy(),
        };
        let http = builder.build().map_err(ClientError::Build)?;
        Ok(Self {
            http,
            allow_private: cfg.allow_private_targets,
            timeout,
            max_redirects: cfg.max_redirects,
            max_body: cfg.max_body_bytes,
            proxied: identity.proxy.is_some().then_some(lookup),
        })
    }

    /// `url` checked for a request: the literal checks always, and through a proxy (which
    /// resolves names itself) every address its host resolves to here.
    async fn checked(&self, url: &str) -> Result<Url, FetchError> {
        let target = parse_checked(url, self.allow_private)?;
        self.resolved_public(&target).await?;
        Ok(target)
    }

    async fn resolved_public(&self, target: &Url) -> Result<(), FetchError> {
        let (Some(lookup), false) = (&self.proxied, self.allow_private) else { return Ok(()) };
        let Some(url::Host::Domain(host)) = target.host() else { return Ok(()) };
        let ips = lookup(host.to_owned()).await.map_err(|e| FetchError::Dns(format!("{host}: {e}")))?;
        if ips.is_empty() || !ips.iter().all(|ip| is_public_ip(*ip)) {
            return Err(FetchError::RefusedPrivate(host.to_owned()));
        }
        Ok(())
    }

    /// GETs `url` and reads the response head, following redirects.
    ///
    /// # Errors
    /// Any [`FetchError`] but `TooLarge`.
    pub async fn send(&self, url: &str) -> Result<SafeHead, FetchError> {
        let started = Instant::now();
        let deadline = started + self.timeout;
        let response = tokio::time::timeout_at(deadline.into(), self.follow(url))
            .await
            .map_err(|_| timeout_error(self.timeout))??;
        Ok(self.head(response, started, deadline))
    }

    fn head(&self, response: reqwest::Response, started: Instant, deadline: Instant) -> SafeHead {
        SafeHead {
            url: response.url().clone(),
            status: response.status().as_u16(),
            headers: response.headers().clone(),
            latency: started.elapsed(),
            response,
            deadline,
            timeout: self.timeout,
            max_body: self.max_body,
        }
    }

    /// GETs `url` and reads the whole body.
    ///
    /// # Errors
    /// Any [`FetchError`].
    pub async fn get(&self, url: &str) -> Result<SafeResponse, FetchError> {
        self.send(url).await?.read().await
    }

    /// GETs `url` once with `header` (a paid retry), following no redirect (the header is for
    /// this URL's seller only), and reads the whole body.
    ///
    /// # Errors
    /// Any [`FetchError`].
    pub async fn get_with_header(&self, url: &str, header: (&str, &str)) -> Result<SafeResponse, FetchError> {
        let started = Instant::now();
        let deadline = started + self.timeout;
        let target = self.checked(url).await?;
        let send = self.http.get(target).header(header.0, header.1).send();
        let response = tokio::time::timeout_at(deadline.into(), send)
            .await
            .map_err(|_| timeout_error(self.timeout))?
            .map_err(|e| classify(e, self.timeout))?;
        self.head(response, started, deadline).read().await
    }

    /// POSTs `body` to `url` once with `headers` (a webhook delivery), following no redirect (a
    /// 3xx is the answer), and reads at most `max_body` bytes of the answer. The target is checked
    /// as every URL is: before the request for literal addresses, inside the resolver for names,
    /// so the address connected to is the address checked.
    ///
    /// # Errors
    /// Any [`FetchError`] but `TooLarge` (a long answer is cut, not refused).
    pub async fn post(&self, url: &str, headers: HeaderMap, body: Vec<u8>) -> Result<SafeResponse, FetchError> {
        let started = Instant::now();
        let deadline = started + self.timeout;
        let target = self.checked(url).await?;
        let send = self.http.post(target).headers(headers).body(body).send();
        let response = tokio::time::timeout_at(deadline.into(), send)
            .await
            .map_err(|_| timeout_error(self.timeout))?
            .map_err(|e| classify(e, self.timeout))?;
        match self.head(response, started, deadline).read().await {
            Err(FetchError::TooLarge(_)) => Err(FetchError::Http("the answer was cut off".to_owned())),
            other => other,
        }
    }

    async fn follow(&self, url: &str) -> Result<reqwest::Response, FetchError> {
        let mut current = parse_checked(url, self.allow_private)?;
        let mut hops = 0;
        loop {
            self.resolved_public(&current).await?;
            let response = self.http.get(current.clone()).send().await.map_err(|e| classify(e, self.timeout))?;
            let location = response.headers().get(LOCATION);
            let Some(next) = redirect_target(&current, response.status().as_u16(), location, self.allow_private)?
            else {
                return Ok(response);
            };
            if hops >= self.max_redirects {
                return Err(FetchError::Redirects(format!("more than {} redirects", self.max_redirects)));
            }
            hops += 1;
            current = next;
        }
    }
}

impl SafeHead {
    /// Reads the body and keeps the head with it.
    ///
    /// # Errors
    /// As [`SafeHead::body`].
    pub async fn read(self) -> Result<SafeResponse, FetchError> {
        let (url, status, headers, latency) = (self.url.clone(), self.status, self.headers.clone(), self.latency);
        let body = self.body().await?;
        Ok(SafeResponse { url, status, headers, latency, body })
    }

    /// Reads the body: streamed, refused past the size limit, within the request's deadline.
    ///
    /// # Errors
    /// `TooLarge`, `Timeout`, or a transport error.
    pub async fn body(mut self) -> Result<Vec<u8>, FetchError> {
        let max = self.max_body;
        if self.response.content_length().is_some_and(|len| len > max as u64) {
            return Err(FetchError::TooLarge(max));
        }
        let timeout = self.timeout;
        let read = async {
            let mut body = Vec::new();
            while let Some(chunk) = self.response.chunk().await.map_err(|e| classify(e, timeout))? {
                if body.len() + chunk.len() > max {
                    return Err(FetchError::TooLarge(max));
                }
                body.extend_from_slice(&chunk);
            }
            Ok(body)
        };
        tokio::time::timeout_at(self.deadline.into(), read).await.map_err(|_| timeout_error(timeout))?
    }
}

fn timeout_error(timeout: Duration) -> FetchError {
    FetchError::Timeout(u64::try_from(timeout.as_millis()).unwrap_or(u64::MAX))
}

/// Maps a reqwest error onto a [`FetchError`], looking through its chain of causes for the
/// resolver's refusals and rustls errors.
fn classify(e: reqwest::Error, timeout: Duration) -> FetchError {
    let mut cur: Option<&(dyn std::error::Error + 'static)> = Some(&e);
    while let Some(err) = cur {
        if let Some(r) = err.downcast_ref::<RefusedName>() {
            return FetchError::RefusedPrivate(r.host.clone());
        }
        if let Some(r) = err.downcast_ref::<ResolveFailed>() {
            return FetchError::Dns(r.to_string());
        }
        if let Some(t) = err.downcast_ref::<rustls::Error>() {
            return FetchError::Tls(t.to_string());
        }
        // `io::Error::source` skips the error it wraps (hyper-rustls wraps rustls' io::Error in
        // another one), so step into it instead.
        cur = match err.downcast_ref::<std::io::Error>().and_then(|io| io.get_ref()) {
            Some(inner) => Some(inner as &(dyn std::error::Error + 'static)),
            None => err.source(),
        };
    }
    if e.is_timeout() {
        timeout_error(timeout)
    } else if e.is_connect() {
        FetchError::Connect(root_cause(&e))
    } else if e.is_builder() {
        FetchError::BadUrl(root_cause(&e))
    } else {
        FetchError::Http(root_cause(&e))
    }
}

#[cfg(test)]
mod tests {
    use std::sync::atomic::{AtomicUsize, Ordering};

    use tokio::io::{AsyncReadExt, AsyncWriteExt};
    use tokio::net::TcpListener;

    use super::*;

    fn ip(s: &str) -> IpAddr {
        s.parse().unwrap()
    }

    #[test]
    fn non_public_addresses_are_refused_and_public_ones_kept() {
        let refused = [
            "127.0.0.1",
            "127.255.255.254",
            "0.0.0.0",
            "0.1.2.3",
            "10.0.0.1",
            "172.16.0.1",
            "172.31.255.255",
            "192.168.1.1",
            "100.64.0.1",
            "100.127.255.255",
            "100.100.100.200",
            "169.254.169.254",
            "169.254.0.1",
            "192.0.0.192",
            "192.0.2.1",
            "198.18.0.1",
            "198.19.255.255",
            "198.51.100.7",
            "203.0.113.9",
            "224.0.0.1",
            "239.255.255.250",
            "240.0.0.1",
            "255.255.255.255",
            "::",
            "::1",
            "::ffff:127.0.0.1",
            "::ffff:10.1.2.3",
            "::ffff:169.254.169.254",
            "::127.0.0.1",
            "::8.8.8.8",
            "64:ff9b::7f00:1",
            "64:ff9b::a9fe:a9fe",
            "64:ff9b:1::1",
            "2002:7f00:1::1",
            "2002:c0a8:101::1",
            "fe80::1",
            "fec0::1",
            "fc00::1",
            "fd00:ec2::254",
            "ff02::1",
            "100::1",
            "2001::1",
            "2001:2::1",
            "2001:db8::1",
            "3fff::1",
        ];
        for r in refused {
            assert!(!is_public_ip(ip(r)), "{r} must be refused");
        }
        let public = [
            "8.8.8.8",
            "1.1.1.1",
            "100.63.255.255",
            "100.128.0.1",
            "172.15.255.255",
            "172.32.0.1",
            "192.0.1.1",
            "198.20.0.1",
            "223.255.255.254",
            "::ffff:8.8.8.8",
            "64:ff9b::808:808",
            "2002:808:808::1",
            "2606:4700:4700::1111",
            "2a00:1450:4001:81b::200e",
        ];
        for p in public {
            assert!(is_public_ip(ip(p)), "{p} must be kept");
        }
    }

    #[test]
    fn the_ssrf_url_vectors_are_refused_before_any_request() {
        let private = [
            "http://127.0.0.1/",
            "http://2130706433/",
            "http://0x7f000001/",
            "http://0x7f.1/",
            "http://0177.0.0.1/",
            "http://017700000001/",
            "http://127.1/",
            "http://0/",
            "http://0.0.0.0:8080/",
            "http://[::1]/",
            "http://[::]/",
            "http://[::ffff:127.0.0.1]/",
            "http://[::ffff:7f00:1]/",
            "http://[0:0:0:0:0:ffff:127.0.0.1]/",
            "http://169.254.169.254/latest/meta-data/",
            "http://2852039166/",
            "http://[fd00:ec2::254]/latest/meta-data/",
            "http://100.64.0.1/",
            "http://198.18.0.1/",
            "https://10.0.0.1/",
            "http://192.168.0.1./",
            "http://metadata.google.internal/computeMetadata/v1/",
            "http://METADATA.GOOGLE.INTERNAL./",
            "http://metadata/",
            "http://localhost:8080/",
            "http://LocalHost./",
            "http://api.localhost/",
            "http://service.internal/",
        ];
        for u in private {
            let e = parse_checked(u, false).unwrap_err();
            assert_eq!(e.class(), "refused-private", "{u}: {e}");
            assert!(parse_checked(u, true).is_ok(), "{u} is allowed with allow_private");
        }
        let bad = [
            "ftp://example.com/",
            "file:///etc/passwd",
            "gopher://example.com/",
            "javascript:alert(1)",
            "data:text/plain,hi",
            "http://user:secret@example.com/",
            "http://user@example.com/",
            "not a url",
            "http://",
            "//example.com/",
        ];
        for u in bad {
            let e = parse_checked(u, true).unwrap_err();
            assert_eq!(e.class(), "bad-url", "{u}: {e}");
            assert!(!e.to_string().contains("secret"), "no credentials in messages: {e}");
        }
        assert!(parse_checked("https://example.com/x?y=1", false).is_ok());
        assert!(parse_checked("http://8.8.8.8:8080/", false).is_ok());
        assert!(parse_checked("http://[2606:4700:4700::1111]/", false).is_ok());
    }

    #[test]
    fn redirect_targets_are_checked_like_the_first_hop() {
        let here = Url::parse("https://seller.example/api/x").unwrap();
        let h = |s: &str| HeaderValue::from_str(s).unwrap();
        let next = redirect_target(&here, 302, Some(&h("/api/y")), false).unwrap().unwrap();
        assert_eq!(next.as_str(), "https://seller.example/api/y");
        assert_eq!(redirect_target(&here, 200, Some(&h("/elsewhere")), false).unwrap(), None);
        assert_eq!(redirect_target(&here, 304, Some(&h("/elsewhere")), false).unwrap(), None);
        assert_eq!(redirect_target(&here, 301, None, false).unwrap(), None);
        for target in ["http://169.254.169.254/latest/meta-data/", "http://[::ffff:127.0.0.1]/", "http://2130706433/"] {
            let e = redirect_target(&here, 307, Some(&h(target)), false).unwrap_err();
            assert_eq!(e.class(), "refused-private", "{target}");
        }
        for target in ["ftp://seller.example/", "file:///etc/passwd", "http://u:p@seller.example/"] {
            let e = redirect_target(&here, 308, Some(&h(target)), true).unwrap_err();
            assert_eq!(e.class(), "bad-url", "{target}");
        }
    }

    fn cfg(allow_private: bool) -> ProbeConfig {
        ProbeConfig {
            allow_private_targets: allow_private,
            timeout_ms: 2_000,
            max_redirects: 3,
            max_body_bytes: 1024,
            ..ProbeConfig::default()
        }
    }

    /// A raw HTTP/1.1 server on loopback: `answer(path)` gives the whole response, or `None` to
    /// hold the connection without answering. Counts accepted connections.
    async fn serve(answer: fn(&str, u16) -> Option<Vec<u8>>) -> (u16, Arc<AtomicUsize>) {
        let listener = TcpListener::bind("127.0.0.1:0").await.unwrap();
        let port = listener.local_addr().unwrap().port();
        let accepted = Arc::new(AtomicUsize::new(0));
        let count = Arc::clone(&accepted);
        tokio::spawn(async move {
            while let Ok((mut socket, _)) = listener.accept().await {
                count.fetch_add(1, Ordering::SeqCst);
                tokio::spawn(async move {
                    let mut buf = Vec::new();
                    let mut chunk = [0u8; 1024];
                    while !buf.windows(4).any(|w| w == b"\r\n\r\n") && buf.len() < 16 * 1024 {
                        match socket.read(&mut chunk).await {
                            Ok(0) | Err(_) => return,
                            Ok(n) => buf.extend_from_slice(&chunk[..n]),
                        }
                        if buf.first() == Some(&0x16) {
                            // A TLS ClientHello: answer in plain HTTP, as a plain server would.
                            let _ = socket.write_all(&response("400 Bad Request", "", "plain http")).await;
                            return;
                        }
                    }
                    let head = String::from_utf8_lossy(&buf);
                    let path = head.split_whitespace().nth(1).unwrap_or("/").to_owned();
                    match answer(&path, port) {
                        Some(bytes) => {
                            let _ = socket.write_all(&bytes).await;
                            let _ = socket.shutdown().await;
                        }
                        None => tokio::time::sleep(Duration::from_secs(30)).await,
                    }
                });
            }
        });
        (port, accepted)
    }

    fn response(status: &str, extra: &str, body: &str) -> Vec<u8> {
        format!("HTTP/1.1 {status}\r\n{extra}Content-Length: {}\r\nConnection: close\r\n\r\n{body}", body.len())
            .into_bytes()
    }

    fn routes(path: &str, port: u16) -> Option<Vec<u8>> {
        Some(match path {
            "/ok" => response("200 OK", "", "fine"),
            "/r1" => response("302 Found", "Location: /r2\r\n", ""),
            "/r2" => response("301 Moved Permanently", &format!("Location: http://127.0.0.1:{port}/ok\r\n"), ""),
            "/loop" => response("307 Temporary Redirect", "Location: /loop\r\n", ""),
            "/ftp" => response("302 Found", "Location: ftp://127.0.0.1/file\r\n", ""),
            "/big" => response("200 OK", "", &"x".repeat(4096)),
            "/chunked" => {
                let mut out = b"HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\nConnection: close\r\n\r\n".to_vec();
                for _ in 0..8 {
                    out.extend_from_slice(b"200\r\n");
                    out.extend_from_slice(&[b'y'; 0x200]);
                    out.extend_from_slice(b"\r\n");
                }
                out.extend_from_slice(b"0\r\n\r\n");
                out
            }
            "/garbage" => b"SMTP ready, not HTTP at all\r\n\r\n".to_vec(),
            "/hang" => return None,
            _ => response("404 Not Found", "", "no"),
        })
    }

    #[tokio::test]
    async fn loopback_targets_are_refused_before_connecting() {
        let (port, accepted) = serve(routes).await;
        let client = SafeClient::new(&cfg(false)).unwrap();
        for url in [
            format!("http://127.0.0.1:{port}/ok"),
            format!("http://2130706433:{port}/ok"),
            format!("http://0x7f.1:{port}/ok"),
            format!("http://[::ffff:127.0.0.1]:{port}/ok"),
            format!("http://localhost:{port}/ok"),
        ] {
            let e = client.get(&url).await.unwrap_err();
            assert_eq!(e.class(), "refused-private", "{url}: {e}");
        }
        assert_eq!(accepted.load(Ordering::SeqCst), 0, "no connection was made");
        // The same server is reachable when private targets are allowed.
        let open = SafeClient::new(&cfg(true)).unwrap();
        let r = open.get(&format!("http://127.0.0.1:{port}/ok")).await.unwrap();
        assert_eq!((r.status, r.body.as_slice()), (200, &b"fine"[..]));
        assert_eq!(accepted.load(Ordering::SeqCst), 1);
    }

    /// Through an egress proxy the proxy resolves names, so the client resolves and checks each
    /// target itself first: a name resolving to a private address is refused before the proxy is
    /// asked; a public one goes to the proxy (here a loopback double that answers every request),
    /// with the customer's headers.
    #[tokio::test]
    async fn through_a_proxy_targets_are_checked_before_the_proxy_is_asked() {
        let (port, accepted) = serve(routes).await;
        let fake: Lookup = Arc::new(|host: String| {
            Box::pin(async move {
                match host.as_str() {
                    "rebound.example" => Ok(vec![ip("10.0.0.7")]),
                    _ => Ok(vec![ip("93.184.216.34")]),
                }
            })
        });
        let proxy: Url = format!("http://127.0.0.1:{port}").parse().unwrap();
        let identity = Identity::customer("node", Some(proxy));
        let client = SafeClient::with_lookup(&cfg(false), fake, &identity).unwrap();
        let e = client.get("http://rebound.example/ok").await.unwrap_err();
        assert_eq!(e.class(), "refused-private", "{e}");
        let e = client.get_with_header("http://rebound.example/ok", ("payment-signature", "x")).await.unwrap_err();
        assert_eq!(e.class(), "refused-private", "{e}");
        assert_eq!(accepted.load(Ordering::SeqCst), 0, "the proxy was never asked");
        // A public target is asked through the proxy (the double answers the absolute-form request).
        let answered = client.get("http://public.example/ok").await;
        assert!(answered.is_ok() || !matches!(answered, Err(FetchError::RefusedPrivate(_))), "{answered:?}");
        assert_eq!(accepted.load(Ordering::SeqCst), 1, "the public target went through the proxy");
    }

    #[tokio::test]
    async fn names_are_checked_after_resolution_in_the_resolver() {
        let (port, accepted) = serve(routes).await;
        // A public-looking name that resolves to loopback (DNS rebinding), and one that resolves to
        // a mix: only the public address would be kept, so the connection goes nowhere local.
        let fake: Lookup = Arc::new(|host: String| {
            Box::pin(async move {
                match host.as_str() {
                    "rebound.example" => Ok(vec![ip("127.0.0.1"), ip("::1")]),
                    "metadata-alias.example" => Ok(vec![ip("169.254.169.254")]),
                    "empty.example" => Ok(vec![]),
                    _ => Err(std::io::Error::other("no such host")),
                }
            })
        });
        let client = SafeClient::with_lookup(&cfg(false), Arc::clone(&fake), &Identity::default()).unwrap();
        for name in ["rebound.example", "metadata-alias.example"] {
            let e = client.get(&format!("http://{name}:{port}/ok")).await.unwrap_err();
            assert_eq!(e.class(), "refused-private", "{name}: {e}");
        }
        for name in ["empty.example", "missing.example"] {
            let e = client.get(&format!("http://{name}:{port}/ok")).await.unwrap_err();
            assert_eq!(e.class(), "dns", "{name}: {e}");
        }
        // A POST (a webhook delivery) goes through the same resolver.
        let e = client.post(&format!("http://rebound.example:{port}/ok"), HeaderMap::new(), b"{}".to_vec()).await;
        assert_eq!(e.unwrap_err().class(), "refused-private");
        assert_eq!(accepted.load(Ordering::SeqCst), 0, "no connection was made");
        // With private targets allowed, the same resolver connects to what it resolved.
        let open = SafeClient::with_lookup(&cfg(true), fake, &Identity::default()).unwrap();
        let r = open.get(&format!("http://rebound.example:{port}/ok")).await.unwrap();
        assert_eq!(r.status, 200);
    }

    #[tokio::test]
    async fn configured_hosts_resolve_first_and_are_checked_like_any_address() {
        let (port, accepted) = serve(routes).await;
        let hosts = std::collections::BTreeMap::from([("Shop.Example.Test".to_owned(), ip("127.0.0.1"))]);
        let strict = SafeClient::new(&ProbeConfig { hosts: hosts.clone(), ..cfg(false) }).unwrap();
        let e = strict.get(&format!("http://shop.example.test:{port}/ok")).await.unwrap_err();
        assert_eq!(e.class(), "refused-private", "a hosts entry lifts no refusal: {e}");
        assert_eq!(accepted.load(Ordering::SeqCst), 0);
        let open = SafeClient::new(&ProbeConfig { hosts, ..cfg(true) }).unwrap();
        let r = open.get(&format!("http://shop.example.test:{port}/ok")).await.unwrap();
        assert_eq!((r.status, r.body.as_slice()), (200, &b"fine"[..]));
    }

    #[tokio::test]
    async fn redirects_are_followed_by_hand_and_bounded() {
        let (port, _) = serve(routes).await;
        let client = SafeClient::new(&cfg(true)).unwrap();
        let base = format!("http://127.0.0.1:{port}");
        let r = client.get(&format!("{base}/r1")).await.unwrap();
        assert_eq!((r.status, r.url.path(), r.body.as_slice()), (200, "/ok", &b"fine"[..]));
        let e = client.get(&format!("{base}/loop")).await.unwrap_err();
        assert_eq!(e.class(), "redirects", "{e}");
        let e = client.get(&format!("{base}/ftp")).await.unwrap_err();
        assert_eq!(e.class(), "bad-url", "{e}");
        let strict = SafeClient::new(&ProbeConfig { max_redirects: 1, ..cfg(true) }).unwrap();
        assert_eq!(strict.get(&format!("{base}/r1")).await.unwrap_err().class(), "redirects");
        let none = SafeClient::new(&ProbeConfig { max_redirects: 0, ..cfg(true) }).unwrap();
        assert_eq!(none.get(&format!("{base}/r2")).await.unwrap_err().class(), "redirects");
    }

    #[tokio::test]
    async fn bodies_are_bounded_and_requests_timed() {
        let (port, _) = serve(routes).await;
        let client = SafeClient::new(&ProbeConfig { timeout_ms: 300, ..cfg(true) }).unwrap();
        let base = format!("http://127.0.0.1:{port}");
        assert_eq!(client.get(&format!("{base}/big")).await.unwrap_err(), FetchError::TooLarge(1024));
        assert_eq!(client.get(&format!("{base}/chunked")).await.unwrap_err(), FetchError::TooLarge(1024));
        // The head alone is fine; only reading the body trips the limit.
        let head = client.send(&format!("{base}/big")).await.unwrap();
        assert_eq!(head.status, 200);
        assert_eq!(head.body().await.unwrap_err().class(), "too-large");
        let started = Instant::now();
        assert_eq!(client.get(&format!("{base}/hang")).await.unwrap_err(), FetchError::Timeout(300));
        assert!(started.elapsed() < Duration::from_secs(2));
        assert_eq!(client.get(&format!("{base}/garbage")).await.unwrap_err().class(), "http");
    }

    #[tokio::test]
    async fn transport_failures_get_their_class() {
        let client = SafeClient::new(&cfg(true)).unwrap();
        // A port nobody listens on.
        let closed = {
            let l = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
            l.local_addr().unwrap().port()
        };
        assert_eq!(client.get(&format!("http://127.0.0.1:{closed}/")).await.unwrap_err().class(), "connect");
        // TLS to a plain HTTP server.
        let (port, _) = serve(routes).await;
        let e = client.get(&format!("https://127.0.0.1:{port}/ok")).await.unwrap_err();
        assert_eq!(e.class(), "tls", "{e}");
    }
}
