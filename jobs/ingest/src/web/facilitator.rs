//! A facilitator's signers: `GET <base>/supported` → `signers: {"eip155:*": [..], "eip155:8453":
//! [..]}` (`x402.md` §4). The wallets that broadcast its settlements.

use std::collections::BTreeSet;

use alloy::primitives::Address;
use serde_json::Value;
use url::Url;

use super::{WebError, get_trusted, parse_address, with_segment};

/// The EVM signers a facilitator publishes, from every `eip155:` list, deduplicated and sorted.
/// A facilitator without `signers` (v1 answers only `kinds`) has none; lists of other namespaces
/// (`solana:*`) are skipped.
///
/// # Errors
/// A transport error, a non-2xx status, a body that is not JSON, or a `signers` that is not an
/// object of lists of 0x addresses.
pub async fn supported_signers(http: &reqwest::Client, base: &Url) -> Result<Vec<Address>, WebError> {
    let url = with_segment(base, "supported")?;
    let what = format!("GET {}{}", url.host_str().unwrap_or_default(), url.path());
    let (status, body) = get_trusted(http, url, &what).await?;
    if !(200..300).contains(&status) {
        return Err(WebError::Status(status).within(what));
    }
    signers_from(&body).map_err(|e| e.within(what))
}

/// Reads the `signers` of a `/supported` body.
///
/// # Errors
/// As [`supported_signers`].
pub fn signers_from(body: &[u8]) -> Result<Vec<Address>, WebError> {
    let v: Value = serde_json::from_slice(body).map_err(WebError::NotJson)?;
    let Some(signers) = v.get("signers").filter(|s| !s.is_null()) else {
        return Ok(Vec::new());
    };
    let lists = signers.as_object().ok_or_else(|| WebError::Unexpected("`signers` is not an object".to_owned()))?;
    let mut out = BTreeSet::new();
    for (network, list) in lists {
        let list = list.as_array().ok_or_else(|| WebError::Unexpected(format!("`signers.{network}` is not a list")))?;
        if !network.to_ascii_lowercase().starts_with("eip155:") {
            continue;
        }
        for s in list {
            let address = s
                .as_str()
                .and_then(parse_address)
                .ok_or_else(|| WebError::Unexpected(format!("`signers.{network}` holds {s}, not an address")))?;
            out.insert(address);
        }
    }
    Ok(out.into_iter().collect())
}

#[cfg(test)]
mod tests {
    use alloy::primitives::address;

    use super::*;

    #[test]
    fn every_evm_list_is_read_deduplicated_and_sorted() {
        let body = br#"{"kinds":[{"x402Version":2,"scheme":"exact","network":"eip155:8453"}],"extensions":[],
            "signers":{"eip155:*":["0xdbdf3d8ed80f84c35d01c6c9f9271761bad90ba6","0x0000000000000000000000000000000000000001"],
                       "eip155:8453":["0xDBDF3D8ED80F84C35D01C6C9F9271761BAD90BA6"],
                       "solana:*":["2wKupLR9q6wXYppw8Gr2NvWxKBUqm4PPJKkQfoxHDBg4"]}}"#;
        assert_eq!(
            signers_from(body).unwrap(),
            vec![
                address!("0x0000000000000000000000000000000000000001"),
                address!("0xdbdf3d8ed80f84c35d01c6c9f9271761bad90ba6"),
            ]
        );
    }

    #[test]
    fn v1_answers_have_no_signers_and_bad_lists_are_errors() {
        assert_eq!(
            signers_from(br#"{"kinds":[{"x402Version":1,"scheme":"exact","network":"base"}]}"#).unwrap(),
            Vec::<Address>::new()
        );
        assert!(matches!(signers_from(b"not json"), Err(WebError::NotJson(_))));
        let shape = |body: &[u8]| match signers_from(body) {
            Err(WebError::Unexpected(what)) => what,
            other => panic!("{other:?}"),
        };
        assert!(shape(br#"{"signers":["0x0000000000000000000000000000000000000001"]}"#).contains("object"));
        assert!(shape(br#"{"signers":{"eip155:*":"0x0000000000000000000000000000000000000001"}}"#).contains("list"));
        let e = shape(br#"{"signers":{"eip155:*":["0x12"]}}"#);
        assert!(e.contains("eip155:*") && e.contains("0x12"), "{e}");
    }

    #[test]
    fn the_supported_url_extends_the_base_path() {
        let u = |s: &str| with_segment(&Url::parse(s).unwrap(), "supported").unwrap().to_string();
        assert_eq!(
            u("https://api.cdp.coinbase.com/platform/v2/x402"),
            "https://api.cdp.coinbase.com/platform/v2/x402/supported"
        );
        assert_eq!(u("https://facilitator.payai.network"), "https://facilitator.payai.network/supported");
        assert_eq!(u("http://127.0.0.1:9/base/"), "http://127.0.0.1:9/base/supported");
    }
}
