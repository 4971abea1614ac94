//! A Farcaster hub's HTTP API (Hubble or Snapchain, `onchain.md` §5): custody address → fid, and
//! an fid's verified addresses.

use std::collections::{BTreeSet, HashSet};

use alloy::primitives::Address;
use serde_json::Value;
use url::Url;

use super::{WebError, get_trusted, parse_address, with_segment};

/// Pages of verifications read per fid at most.
const MAX_PAGES: usize = 100;

fn v1_url(hub: &Url, method: &str) -> Result<Url, WebError> {
    with_segment(&with_segment(hub, "v1")?, method)
}

/// A hub's "not found": HTTP 404, or an error body whose `errCode` says `not_found` (Hubble
/// answers 400 with one).
fn not_found(status: u16, body: &[u8]) -> bool {
    status == 404
        || (status >= 400
            && serde_json::from_slice::<Value>(body)
                .ok()
                .and_then(|v| v.get("errCode").and_then(Value::as_str).map(|c| c.contains("not_found")))
                .unwrap_or(false))
}

fn as_u64(v: &Value) -> Option<u64> {
    v.as_u64().or_else(|| v.as_str().and_then(|s| s.trim().parse().ok()))
}

/// The fid whose custody address is `address` (`GET /v1/onChainIdRegistryEventByAddress`);
/// `None` when the hub knows none, or when its latest ID-registry event for the address moved the
/// fid to another address.
///
/// # Errors
/// A transport error, another error status, or a body that is not an ID-registry event.
pub async fn fid_by_custody(http: &reqwest::Client, hub: &Url, address: Address) -> Result<Option<u64>, WebError> {
    let mut url = v1_url(hub, "onChainIdRegistryEventByAddress")?;
    url.query_pairs_mut().append_pair("address", &format!("0x{}", hex::encode(address)));
    let what = "hub onChainIdRegistryEventByAddress";
    let (status, body) = get_trusted(http, url, what).await?;
    if not_found(status, &body) {
        return Ok(None);
    }
    if !(200..300).contains(&status) {
        return Err(WebError::Status(status).within(what));
    }
    let v: Value = serde_json::from_slice(&body).map_err(|e| WebError::NotJson(e).within(what))?;
    if !v.is_object() {
        return Err(WebError::Unexpected("not an event object".to_owned()).within(what));
    }
    let fid = v.get("fid").and_then(as_u64).filter(|f| *f > 0);
    let to = v.pointer("/idRegisterEventBody/to").and_then(Value::as_str).and_then(parse_address);
    Ok(fid.filter(|_| to.is_none_or(|to| to == address)))
}

/// The Ethereum addresses fid `fid` verified (`GET /v1/verificationsByFid`, every page),
/// lowercase, sorted; an fid the hub does not know has none.
///
/// # Errors
/// A transport error, another error status, a body without `messages`, a repeated page token, or
/// more than 100 pages.
pub async fn verified_addresses(http: &reqwest::Client, hub: &Url, fid: u64) -> Result<Vec<String>, WebError> {
    let what = "hub verificationsByFid";
    let mut out = BTreeSet::new();
    let mut token: Option<String> = None;
    let mut tokens = HashSet::new();
    for _ in 0..MAX_PAGES {
        let mut url = v1_url(hub, "verificationsByFid")?;
        {
            let mut q = url.query_pairs_mut();
            q.append_pair("fid", &fid.to_string());
            if let Some(t) = &token {
                q.append_pair("pageToken", t);
            }
        }
        let (status, body) = get_trusted(http, url, what).await?;
        if not_found(status, &body) {
            return Ok(out.into_iter().collect());
        }
        if !(200..300).contains(&status) {
            return Err(WebError::Status(status).within(what));
        }
        let v: Value = serde_json::from_slice(&body).map_err(|e| WebError::NotJson(e).within(what))?;
        let messages = v
            .get("messages")
            .and_then(Value::as_array)
            .ok_or_else(|| WebError::Unexpected("no `messages`".to_owned()).within(what))?;
        for m in messages {
            let data = m.get("data").unwrap_or(m);
            let body = data.get("verificationAddAddressBody").or_else(|| data.get("verificationAddEthAddressBody"));
            if let Some(a) = body.and_then(|b| b.get("address")).and_then(Value::as_str).and_then(parse_address) {
                out.insert(format!("0x{}", hex::encode(a)));
            }
        }
        match v.get("nextPageToken").and_then(Value::as_str).map(str::trim).filter(|t| !t.is_empty()) {
            None => return Ok(out.into_iter().collect()),
            Some(t) => {
                if !tokens.insert(t.to_owned()) {
                    return Err(WebError::Unexpected(format!("the hub repeated page token {t}")).within(what));
                }
                token = Some(t.to_owned());
            }
        }
    }
    Err(WebError::Unexpected(format!("more than {MAX_PAGES} pages for fid {fid}")).within(what))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn hub_urls_and_not_found_answers() {
        let hub = Url::parse("http://127.0.0.1:3381").unwrap();
        assert_eq!(v1_url(&hub, "verificationsByFid").unwrap().as_str(), "http://127.0.0.1:3381/v1/verificationsByFid");
        assert!(not_found(404, b""));
        assert!(not_found(400, br#"{"errCode":"not_found","presentable":false,"details":"no such fid"}"#));
        assert!(!not_found(400, br#"{"errCode":"bad_request.validation_failure"}"#));
        assert!(!not_found(500, b"oops"));
        assert!(!not_found(200, br#"{"errCode":"not_found"}"#));
    }
}
