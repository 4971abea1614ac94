//! The fuzz targets: every parser that takes bytes from anyone on the internet, driven as the code
//! that serves or ingests them drives it, with the properties each must keep besides not panicking.
//!
//! [`TARGETS`] is the one list. Three things read it:
//! - `fuzz/libfuzzer`, cargo-fuzz's crate: one binary that runs the target named by
//!   `AGENTREP_FUZZ_TARGET` under libFuzzer's coverage guidance (`make fuzz`);
//! - `make fuzz` (`scripts/fuzz.sh`), through the corpus folders, one per target;
//! - this crate's tests (the short run inside `make test`): each target's corpus in
//!   `fuzz/corpus/<name>/`, then a bounded, seeded run of mutations of it.
//!
//! A target panics only when it finds a defect: a parser that panics, or a property broken.

use agentrep_ingest::web::{bazaar, card, offer, safe};
use agentrep_server::endpoints::Endpoint;
use agentrep_server::writes::{message::Message, signature};

/// One fuzz target.
#[derive(Debug)]
pub struct Target {
    /// Its name: the corpus folder (`fuzz/corpus/<name>`) and `AGENTREP_FUZZ_TARGET`.
    pub name: &'static str,
    /// What it drives, for `list` and the reliability report.
    pub drives: &'static str,
    /// Runs one input.
    pub run: fn(&[u8]),
}

/// Every target.
pub const TARGETS: &[Target] = &[
    Target {
        name: "x402_payment_header",
        drives: "`PAYMENT-SIGNATURE` (v2) and `X-PAYMENT` (v1) headers of a paid retry (`PaidRetry::from_headers`)",
        run: x402_payment_header,
    },
    Target {
        name: "receipt_header",
        drives: "`X-Agentrep-Receipt`, the signed receipt that unlocks `?full=1` (`live::unlocked_by`): JSON or base64, at any of the paths clients put it",
        run: receipt_header,
    },
    Target {
        name: "signed_message",
        drives: "the signed messages of receipts, badges, watchlists and webhooks: the message lines, the signature's hex, its ERC-6492 wrapper and the EOA recovery",
        run: signed_message,
    },
    Target {
        name: "route_query",
        drives: "every route's query string, read as its handler reads it (the route table's `query` type)",
        run: route_query,
    },
    Target {
        name: "route_body",
        drives: "every route's JSON body, read as its handler reads it (the route table's `body` type)",
        run: route_body,
    },
    Target { name: "mcp_message", drives: "a JSON-RPC message to `/mcp` and `agentrep mcp`", run: mcp_message },
    Target {
        name: "callback_url",
        drives: "webhook receivers and discovery submissions: the URL check before any resolution, and the redacted form",
        run: callback_url,
    },
    Target {
        name: "resource_url",
        drives: "the URL preflight's resource key (`ResourceKey::parse`)",
        run: resource_url,
    },
    Target {
        name: "offer_402",
        drives: "a 402 the probes and the paid probes read: the `PAYMENT-REQUIRED` header and the v1 JSON body",
        run: offer_402,
    },
    Target { name: "bazaar_page", drives: "one page of a Bazaar discovery listing", run: bazaar_page },
    Target {
        name: "agent_card",
        drives: "an ERC-8004 agent card, fetched or inline as a `data:` URL",
        run: agent_card,
    },
    Target { name: "ranked_domain_list", drives: "a ranked-domain list (CSV, plain or gzip)", run: ranked_domain_list },
];

/// The target named `name`.
pub fn target(name: &str) -> Option<&'static Target> {
    TARGETS.iter().find(|t| t.name == name)
}

/// The clock the message target reads messages against (2026-11-18T17:06:40Z): its corpus signs
/// at that time, so the freshness rule passes and the fields behind it are reached.
pub const NOW_MS: i64 = 1_795_021_600_000;

/// Splits an input at its first NUL: two fields from one input, so one corpus file can hold both.
fn split_nul(data: &[u8]) -> (&[u8], &[u8]) {
    match data.iter().position(|b| *b == 0) {
        Some(at) => (&data[..at], &data[at + 1..]),
        None => (data, &[]),
    }
}

/// The first byte picks one of `n` choices; the rest is the input.
fn pick(data: &[u8], n: usize) -> Option<(usize, &[u8])> {
    let (first, rest) = data.split_first()?;
    (n > 0).then(|| (usize::from(*first) % n, rest))
}

fn x402_payment_header(data: &[u8]) {
    let Some((which, rest)) = pick(data, 3) else { return };
    let Ok(text) = std::str::from_utf8(rest) else { return };
    let (v2, v1) = match which {
        0 => (Some(text), None),
        1 => (None, Some(text)),
        _ => (Some(text), Some("not read: v2 wins")),
    };
    let decoded = agentrep_payments::wire::PaidRetry::from_headers(v2, v1).expect("a header was given");
    // The same header decodes the same way twice (no hidden state, no clock).
    let again = agentrep_payments::wire::PaidRetry::from_headers(v2, v1).expect("a header was given");
    assert_eq!(decoded.is_ok(), again.is_ok());
}

fn signed_message(data: &[u8]) {
    let (message, sig) = split_nul(data);
    let (Ok(message), Ok(sig)) = (std::str::from_utf8(message), std::str::from_utf8(sig)) else { return };
    if let Err(e) = Message::parse(message, NOW_MS) {
        assert!(e.status().is_client_error(), "a message is refused as the client's fault: {e:?}");
    }
    match signature::decode(sig) {
        Ok(bytes) => {
            let hash = signature::message_hash(message);
            if bytes.len() == 65 {
                let _ = agentrep_payments::recover::recover_signer(&hash, &bytes);
            }
            let _ = agentrep_payments::verify::unwrap_erc6492(bytes);
        }
        Err(e) => assert!(e.status().is_client_error(), "a signature is refused as the client's fault: {e:?}"),
    }
}

fn receipt_header(data: &[u8]) {
    let Ok(header) = std::str::from_utf8(data) else { return };
    // An operator whose key nobody holds: no input may unlock anything.
    let operator = alloy::primitives::Address::repeat_byte(0x42);
    let unlocked = agentrep_server::live::unlocked_by(header, operator, "eip155:8453", OPERATOR_SELLER, 1_795_021_600);
    assert!(unlocked.is_err(), "a receipt the operator never signed unlocked a full profile: {header:?}");
}

/// The wallet the receipt target asks to unlock.
const OPERATOR_SELLER: &str = "0x1111111111111111111111111111111111111111";

/// The endpoints with a query type, or with a body type, in the table's order.
fn endpoints_with(has: fn(&Endpoint) -> bool) -> Vec<&'static Endpoint> {
    agentrep_server::routes::endpoints().iter().copied().filter(|e| has(e)).collect()
}

fn route_query(data: &[u8]) {
    thread_local! {
        static ROUTES: Vec<&'static Endpoint> = endpoints_with(|e| e.parse_query.is_some());
    }
    ROUTES.with(|routes| {
        let Some((i, rest)) = pick(data, routes.len()) else { return };
        let parse = routes[i].parse_query.expect("filtered");
        let raw = String::from_utf8_lossy(rest);
        if let Err(e) = parse(Some(&raw)) {
            assert!(
                e.status().is_client_error(),
                "{} {}: a query is refused as a 4xx: {e:?}",
                routes[i].method.as_str(),
                routes[i].path
            );
        }
    });
}

fn route_body(data: &[u8]) {
    thread_local! {
        static ROUTES: Vec<&'static Endpoint> = endpoints_with(|e| e.parse_body.is_some());
    }
    ROUTES.with(|routes| {
        let Some((i, rest)) = pick(data, routes.len()) else { return };
        let parse = routes[i].parse_body.expect("filtered");
        if let Err(e) = parse(rest) {
            assert!(
                e.status().is_client_error(),
                "{} {}: a body is refused as a 4xx: {e:?}",
                routes[i].method.as_str(),
                routes[i].path
            );
        }
    });
}

fn mcp_message(data: &[u8]) {
    let _ = agentrep_server::mcp::parse(data);
}

fn callback_url(data: &[u8]) {
    let Ok(text) = std::str::from_utf8(data) else { return };
    if let Ok(url) = safe::parse_checked(text, false) {
        assert!(matches!(url.scheme(), "http" | "https"), "only http(s) is called: {url}");
        assert!(url.username().is_empty() && url.password().is_none(), "no credentials: {url}");
        let literal = match url.host() {
            Some(url::Host::Ipv4(ip)) => Some(std::net::IpAddr::V4(ip)),
            Some(url::Host::Ipv6(ip)) => Some(std::net::IpAddr::V6(ip)),
            _ => None,
        };
        if let Some(ip) = literal {
            assert!(safe::is_public_ip(ip), "a private literal passed the check: {url}");
        }
    }
    let shown = agentrep_server::writes::target::redacted(text);
    if let Ok(url) = url::Url::parse(text)
        && !url.query().unwrap_or("").is_empty()
    {
        assert!(!shown.contains('?'), "the redacted form drops the query: {shown}");
    }
}

fn resource_url(data: &[u8]) {
    let Ok(text) = std::str::from_utf8(data) else { return };
    let Some(key) = agentrep_server::query::resource::ResourceKey::parse(text) else { return };
    // A key is already normal: reading it again gives itself, so a listing and a buyer's URL that
    // name one resource meet whichever of them was normalised first.
    let again = agentrep_server::query::resource::ResourceKey::parse(&key.url)
        .unwrap_or_else(|| panic!("a key reads as a URL: {:?}", key.url));
    assert_eq!(again.url, key.url, "the key of {text:?} is not stable");
    assert_eq!(again.host, key.host);
}

fn offer_402(data: &[u8]) {
    let (header, body) = split_nul(data);
    let mut headers = hyper::HeaderMap::new();
    if let Ok(value) = hyper::header::HeaderValue::from_bytes(header) {
        headers.insert("payment-required", value);
    }
    let _ = offer::parse_offer(402, &headers, body);
    if let Ok(text) = std::str::from_utf8(header) {
        let _ = offer::offer_from_header(text);
    }
    if let Ok(v) = serde_json::from_slice::<serde_json::Value>(body) {
        let _ = offer::offer_from_json(&v);
    }
}

fn bazaar_page(data: &[u8]) {
    let _ = bazaar::parse_page(data, "fuzz", agentrep_lake::Timestamp(NOW_MS * 1000));
}

fn agent_card(data: &[u8]) {
    let self_urls = ["https://agent.example/.well-known/agent-card.json".to_owned()];
    let _ = card::parse_card(data, &self_urls);
    if let Ok(text) = std::str::from_utf8(data) {
        const MAX: usize = 64 * 1024;
        if let Ok(bytes) = card::decode_data_url(text, MAX) {
            assert!(bytes.len() <= MAX, "a data URL decodes to at most its limit");
        }
    }
}

fn ranked_domain_list(data: &[u8]) {
    if let Ok(ranks) = agentrep_ingest::sources::parse_ranked_domain_list(data) {
        assert!(ranks.iter().all(|(rank, _)| *rank >= 1), "ranks start at 1");
    }
}

#[cfg(test)]
mod tests;
