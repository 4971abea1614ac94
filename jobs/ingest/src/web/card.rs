//! ERC-8004 registration files (`onchain.md` §2): fetched from an agent's URI and read into an
//! `AgentCardRow`.
//!
//! - `https://` and `http://` go through [`SafeClient`];
//! - `ipfs://<cid>/<path>` (or `ipfs://ipfs/<cid>/…`) through `cfg.ipfs_gateway` (the result must
//!   stay under the gateway's URL), also through [`SafeClient`];
//! - `data:application/json;base64,…` and `data:application/json,<percent-encoded>` are decoded
//!   here (also `+json` media types, `text/plain` and none), within `max_body_bytes`.
//!
//! The document gives `name`, `description`, endpoint strings from `services[]` and the older
//! `endpoints[]` (entries' `endpoint`, or plain strings), and the wallets it declares: every 0x
//! address in `wallets`, in a top-level `agentWallet`, and in the `services`/`endpoints` entries
//! named `agentWallet` (`eip155:8453:0x…`), lowercase, sorted; those entries are wallets, not
//! endpoints. `links_back` is true when the document's text mentions any of `cfg.self_urls` (any
//! letter case). `digest` is the SHA-256 of the bytes fetched, hex.
//!
//! On failure `error` holds a class and the document's fields stay empty: a
//! [`FetchError::class`](super::safe::FetchError::class), `http-<status>` for a non-2xx answer,
//! `bad-url` for a URI that cannot be fetched (another scheme, a malformed `data:` or `ipfs:` URI,
//! a `data:` media type that is not JSON or text), `bad-json` for bytes that are not a JSON object
//! (then `digest` is still set).

use std::collections::BTreeSet;

use agentrep_lake::Timestamp;
use agentrep_lake::datasets::AgentCardRow;
use serde_json::Value;
use sha2::{Digest, Sha256};
use url::Url;

use super::offer::decode_base64;
use super::safe::{FetchError, SafeClient};
use crate::config::ProbeConfig;

/// Endpoints and wallets kept per card at most; characters per endpoint and description.
const MAX_ENTRIES: usize = 64;
const MAX_ENDPOINT_CHARS: usize = 2_048;
const MAX_TEXT_CHARS: usize = 2_000;

/// Fetches and reads agent `agent_id`'s registration file at `uri`. Never fails: a failure is in
/// the row's `error`.
pub async fn fetch_card(
    client: &SafeClient,
    agent_id: u64,
    uri: &str,
    cfg: &ProbeConfig,
    now: Timestamp,
) -> AgentCardRow {
    let mut row = AgentCardRow {
        agent_id,
        uri: uri.to_owned(),
        fetched_at: now,
        name: None,
        description: None,
        endpoints: Vec::new(),
        wallets: Vec::new(),
        links_back: false,
        digest: None,
        error: None,
    };
    let bytes = match load(client, uri, cfg).await {
        Ok(bytes) => bytes,
        Err(e) => {
            row.error = Some(e.to_string());
            return row;
        }
    };
    row.digest = Some(hex::encode(Sha256::digest(&bytes)));
    match parse_card(&bytes, &cfg.self_urls) {
        Ok(card) => {
            row.name = card.name;
            row.description = card.description;
            row.endpoints = card.endpoints;
            row.wallets = card.wallets;
            row.links_back = card.links_back;
        }
        Err(class) => row.error = Some(class.to_owned()),
    }
    row
}

/// Why a registration file could not be loaded: its text is the class the row records.
#[derive(Debug, thiserror::Error)]
enum LoadError {
    /// Not a `data:`, `ipfs:`, `http:` or `https:` URI, or a malformed one.
    #[error("bad-url")]
    BadUrl,
    /// A `data:` URL that does not decode (its class).
    #[error("{0}")]
    DataUrl(&'static str),
    /// The fetch failed (its class: `refused-private`, `dns`, `timeout`, …).
    #[error("{}", .0.class())]
    Fetch(#[source] FetchError),
    /// An answer other than success.
    #[error("http-{0}")]
    Status(u16),
}

async fn load(client: &SafeClient, uri: &str, cfg: &ProbeConfig) -> Result<Vec<u8>, LoadError> {
    let uri = uri.trim();
    let scheme = uri.split_once(':').map(|(s, _)| s.to_ascii_lowercase()).unwrap_or_default();
    let url = match scheme.as_str() {
        "data" => return decode_data_url(uri, cfg.max_body_bytes).map_err(LoadError::DataUrl),
        "ipfs" => ipfs_url(uri, &cfg.ipfs_gateway).ok_or(LoadError::BadUrl)?.to_string(),
        "http" | "https" => uri.to_owned(),
        _ => return Err(LoadError::BadUrl),
    };
    let response = client.get(&url).await.map_err(LoadError::Fetch)?;
    if !(200..300).contains(&response.status) {
        return Err(LoadError::Status(response.status));
    }
    Ok(response.body)
}

/// `ipfs://<cid>[/path]` (or `ipfs://ipfs/<cid>…`) on `gateway`; `None` when malformed or when the
/// result would leave the gateway's URL.
pub fn ipfs_url(uri: &str, gateway: &Url) -> Option<Url> {
    let rest =
        uri.get("ipfs://".len()..).filter(|_| uri.get(..7).is_some_and(|p| p.eq_ignore_ascii_case("ipfs://")))?;
    let rest = rest.strip_prefix("ipfs/").unwrap_or(rest);
    if !rest.chars().next().is_some_and(|c| c.is_ascii_alphanumeric()) {
        return None;
    }
    let mut base = gateway.clone();
    if !base.path().ends_with('/') {
        base.set_path(&format!("{}/", base.path()));
    }
    let url = base.join(rest).ok()?;
    url.as_str().starts_with(base.as_str()).then_some(url)
}

/// Decodes a `data:` URI holding JSON (or text): base64 or percent-encoded.
///
/// # Errors
/// `bad-url` when malformed or of another media type, `too-large` past `max` bytes.
pub fn decode_data_url(uri: &str, max: usize) -> Result<Vec<u8>, &'static str> {
    let rest =
        uri.get(5..).filter(|_| uri.get(..5).is_some_and(|p| p.eq_ignore_ascii_case("data:"))).ok_or("bad-url")?;
    let (meta, data) = rest.split_once(',').ok_or("bad-url")?;
    let mut parts = meta.split(';').map(|p| p.trim().to_ascii_lowercase());
    let media = parts.next().unwrap_or_default();
    let params: Vec<String> = parts.collect();
    let json_or_text = media.is_empty()
        || media == "application/json"
        || media == "text/plain"
        || (media.starts_with("application/") && media.ends_with("+json"));
    if !json_or_text {
        return Err("bad-url");
    }
    // Either encoding at most triples the size: refuse early what cannot fit.
    if data.len() > max.saturating_mul(3) {
        return Err("too-large");
    }
    let bytes = if params.last().is_some_and(|p| p == "base64") {
        let compact: String = percent_decode(data).into_iter().map(char::from).filter(|c| !c.is_whitespace()).collect();
        decode_base64(&compact).ok_or("bad-url")?
    } else {
        percent_decode(data)
    };
    if bytes.len() > max {
        return Err("too-large");
    }
    Ok(bytes)
}

/// `%XX` escapes decoded; anything else (including malformed escapes) kept as is.
fn percent_decode(s: &str) -> Vec<u8> {
    let b = s.as_bytes();
    let mut out = Vec::with_capacity(b.len());
    let mut i = 0;
    while i < b.len() {
        let hex = |c: u8| char::from(c).to_digit(16);
        if b[i] == b'%'
            && let (Some(hi), Some(lo)) = (b.get(i + 1).and_then(|c| hex(*c)), b.get(i + 2).and_then(|c| hex(*c)))
        {
            out.push(u8::try_from(hi * 16 + lo).unwrap_or(b'?'));
            i += 3;
        } else {
            out.push(b[i]);
            i += 1;
        }
    }
    out
}

/// What a registration file says.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Card {
    /// `name`.
    pub name: Option<String>,
    /// `description`.
    pub description: Option<String>,
    /// Service endpoints, in the document's order, deduplicated.
    pub endpoints: Vec<String>,
    /// Declared wallets, lowercase, sorted.
    pub wallets: Vec<String>,
    /// The document mentions one of the self URLs.
    pub links_back: bool,
}

/// Reads a registration file.
///
/// # Errors
/// `bad-json` when the bytes are not a JSON object.
pub fn parse_card(bytes: &[u8], self_urls: &[String]) -> Result<Card, &'static str> {
    let v: Value = serde_json::from_slice(bytes).map_err(|_| "bad-json")?;
    if !v.is_object() {
        return Err("bad-json");
    }
    let text = |key: &str| {
        v.get(key)
            .and_then(Value::as_str)
            .map(str::trim)
            .filter(|s| !s.is_empty())
            .map(|s| s.chars().take(MAX_TEXT_CHARS).collect::<String>())
    };
    let mut endpoints: Vec<String> = Vec::new();
    let mut wallets = BTreeSet::new();
    for key in ["services", "endpoints"] {
        for entry in v.get(key).and_then(Value::as_array).into_iter().flatten() {
            let named = entry.get("name").or_else(|| entry.get("type")).and_then(Value::as_str);
            let endpoint = match entry {
                Value::String(s) => Some(s.as_str()),
                _ if named.is_some_and(|n| n.trim().eq_ignore_ascii_case("agentWallet")) => {
                    scan_addresses(entry, &mut wallets, 0);
                    None
                }
                _ => entry.get("endpoint").or_else(|| entry.get("url")).and_then(Value::as_str),
            };
            if let Some(e) =
                endpoint.map(str::trim).filter(|e| !e.is_empty() && e.chars().count() <= MAX_ENDPOINT_CHARS)
                && endpoints.len() < MAX_ENTRIES
                && !endpoints.iter().any(|x| x == e)
            {
                endpoints.push(e.to_owned());
            }
        }
    }
    for key in ["wallets", "agentWallet"] {
        if let Some(w) = v.get(key) {
            scan_addresses(w, &mut wallets, 0);
        }
    }
    let lower = String::from_utf8_lossy(bytes).to_lowercase();
    let links_back = self_urls.iter().map(|u| u.trim().to_lowercase()).any(|u| !u.is_empty() && lower.contains(&u));
    Ok(Card {
        name: text("name"),
        description: text("description"),
        endpoints,
        wallets: wallets.into_iter().take(MAX_ENTRIES).collect(),
        links_back,
    })
}

/// Every `0x` + 40-hex-digit token in the strings of `v` (nested up to 8 levels), lowercase.
fn scan_addresses(v: &Value, out: &mut BTreeSet<String>, depth: usize) {
    if depth > 8 {
        return;
    }
    match v {
        Value::String(s) => {
            let b = s.as_bytes();
            for i in 0..b.len().saturating_sub(41) {
                let token = &b[i..i + 42];
                let starts_clean = i == 0 || !b[i - 1].is_ascii_alphanumeric();
                let ends_clean = b.get(i + 42).is_none_or(|c| !c.is_ascii_alphanumeric());
                if starts_clean
                    && ends_clean
                    && token[0] == b'0'
                    && (token[1] == b'x' || token[1] == b'X')
                    && token[2..].iter().all(u8::is_ascii_hexdigit)
                {
                    out.insert(format!("0x{}", String::from_utf8_lossy(&token[2..]).to_ascii_lowercase()));
                }
            }
        }
        Value::Array(a) => a.iter().for_each(|x| scan_addresses(x, out, depth + 1)),
        Value::Object(o) => o.values().for_each(|x| scan_addresses(x, out, depth + 1)),
        _ => {}
    }
}

#[cfg(test)]
mod tests {
    use base64::Engine;
    use base64::engine::general_purpose::STANDARD;
    use serde_json::json;

    use super::*;

    const WALLET: &str = "0x209693Bc6afc0C5328bA36FaF03C514EF312287C";

    fn current_card() -> Value {
        json!({
            "type": "https://eips.ethereum.org/EIPS/eip-8004#registration-v1",
            "name": "Weather Agent",
            "description": "Forecasts, paid per call. Scored at https://agentrep.example/agent/7",
            "image": "https://example.com/a.png",
            "services": [
                {"name": "web", "endpoint": "https://weather.example/"},
                {"name": "MCP", "endpoint": "https://weather.example/mcp", "version": "2025-06-18"},
                {"name": "agentWallet", "endpoint": format!("eip155:8453:{WALLET}")},
                {"name": "web", "endpoint": "https://weather.example/"}
            ],
            "x402Support": true,
            "active": true,
            "registrations": [{"agentId": 7, "agentRegistry": "eip155:8453:0x8004A169FB4a3325136EB29fA0ceB6D2e539a432"}],
            "supportedTrust": ["reputation"]
        })
    }

    #[test]
    fn a_current_registration_file_is_read() {
        let bytes = serde_json::to_vec(&current_card()).unwrap();
        let card = parse_card(&bytes, &["AgentRep.example".to_owned()]).unwrap();
        assert_eq!(card.name.as_deref(), Some("Weather Agent"));
        assert_eq!(card.endpoints, vec!["https://weather.example/", "https://weather.example/mcp"]);
        assert_eq!(card.wallets, vec![WALLET.to_ascii_lowercase()], "the registry address is not a declared wallet");
        assert!(card.links_back);
        assert!(!parse_card(&bytes, &["other.example".to_owned(), String::new()]).unwrap().links_back);
    }

    #[test]
    fn an_older_file_with_endpoints_and_wallets_is_read() {
        let other = "0x00000000000000000000000000000000000000aB";
        let card = json!({
            "name": "  Old  ",
            "endpoints": [
                {"name": "A2A", "endpoint": "https://old.example/.well-known/agent-card.json"},
                "https://old.example/plain",
                {"name": "AGENTWALLET", "endpoint": format!("eip155:1:{WALLET}")},
                {"name": "empty", "endpoint": ""}
            ],
            "wallets": [{"chain": "eip155:8453", "address": other}, "not an address 0x1234", format!("{WALLET}ff")]
        });
        let card = parse_card(&serde_json::to_vec(&card).unwrap(), &[]).unwrap();
        assert_eq!(card.name.as_deref(), Some("Old"));
        assert_eq!(card.description, None);
        assert_eq!(
            card.endpoints,
            vec!["https://old.example/.well-known/agent-card.json", "https://old.example/plain"]
        );
        assert_eq!(card.wallets, vec![other.to_ascii_lowercase(), WALLET.to_ascii_lowercase()]);
    }

    #[test]
    fn non_objects_are_bad_json() {
        assert_eq!(parse_card(b"<html></html>", &[]), Err("bad-json"));
        assert_eq!(parse_card(b"[1,2]", &[]), Err("bad-json"));
        assert_eq!(parse_card(b"", &[]), Err("bad-json"));
    }

    #[test]
    fn data_uris_are_decoded_locally() {
        let doc = serde_json::to_vec(&current_card()).unwrap();
        let b64 = format!("data:application/json;base64,{}", STANDARD.encode(&doc));
        assert_eq!(decode_data_url(&b64, 1 << 20).unwrap(), doc);
        let with_charset = format!("DATA:application/json;charset=utf-8;base64,{}", STANDARD.encode(&doc));
        assert_eq!(decode_data_url(&with_charset, 1 << 20).unwrap(), doc);
        let encoded = "data:application/json,%7B%22name%22%3A%22A%20b%22%2C%22x%22%3A%22100%25%22%7D";
        assert_eq!(decode_data_url(encoded, 1024).unwrap(), br#"{"name":"A b","x":"100%"}"#);
        assert_eq!(decode_data_url(r#"data:,{"name":"plain"}"#, 1024).unwrap(), br#"{"name":"plain"}"#);
        assert_eq!(decode_data_url("data:image/png;base64,iVBORw0KGgo=", 1024), Err("bad-url"));
        assert_eq!(decode_data_url("data:application/json;base64", 1024), Err("bad-url"));
        assert_eq!(decode_data_url("data:application/json;base64,***", 1024), Err("bad-url"));
        assert_eq!(decode_data_url(&b64, 100), Err("too-large"));
    }

    #[test]
    fn ipfs_uris_stay_on_the_gateway() {
        let gw = Url::parse("https://ipfs.io/ipfs/").unwrap();
        let cid = "bafybeigdyrzt5sfp7udm7hu76uh7y26nf3efuylqabf3oclgtqy55fbzdi";
        assert_eq!(ipfs_url(&format!("ipfs://{cid}"), &gw).unwrap().as_str(), format!("https://ipfs.io/ipfs/{cid}"));
        assert_eq!(
            ipfs_url(&format!("ipfs://ipfs/{cid}/agent.json"), &gw).unwrap().as_str(),
            format!("https://ipfs.io/ipfs/{cid}/agent.json")
        );
        let no_slash = Url::parse("http://127.0.0.1:8080/ipfs").unwrap();
        assert_eq!(
            ipfs_url(&format!("ipfs://{cid}"), &no_slash).unwrap().as_str(),
            format!("http://127.0.0.1:8080/ipfs/{cid}")
        );
        for bad in
            ["ipfs://", "ipfs:////evil.example/x", "ipfs://../../etc/passwd", &format!("ipfs://{cid}/../../../x")]
        {
            assert_eq!(ipfs_url(bad, &gw), None, "{bad}");
        }
    }
}
