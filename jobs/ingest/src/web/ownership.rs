//! Ownership proofs: which wallets an origin proves it belongs to.
//!
//! The convention is the one x402scan verifies: the origin serves the x402 discovery document at
//! `/.well-known/x402`, and its `ownershipProofs` array holds signatures of the origin's text
//! (`https://api.example.com`: the URL's origin as a browser serializes it, so no path, no
//! trailing `/`, no default port) made with a payTo's key by EIP-191 `personal_sign`. A signature
//! only the wallet's key can make, over the text of one origin, is the wallet's owner saying "this
//! origin is mine"; served by that origin, it is the origin's operator saying the same, so copying
//! a seller's proof to another host binds nothing (it signs the seller's origin, not the host's).
//!
//! [`fetch_proofs`] reads the document through the [`SafeClient`] and recovers each proof's signer
//! ([`signers_of`]). Only an EOA's signature is recovered: a smart-wallet payTo would need its
//! ERC-1271 check on chain, which this job does not run (such a wallet's proofs recover to
//! addresses that are not it, so they bind nothing).

use std::collections::BTreeSet;

use agentrep_lake::Timestamp;
use agentrep_lake::datasets::OriginProofRow;
use alloy::primitives::eip191_hash_message;
use serde_json::Value;
use sha2::{Digest, Sha256};
use url::Url;

use super::safe::{FetchError, SafeClient};

/// Proofs read from one document at most (a document holds one per payTo of the origin).
pub const MAX_PROOFS: usize = 32;

/// Where an origin's discovery document is.
pub const WELL_KNOWN_PATH: &str = "/.well-known/x402";

/// The text a payTo signs for `origin` (the lake's form, `scheme://authority` lowercase): the
/// origin as a browser serializes it (`new URL(u).origin`), so the default port is dropped and an
/// internationalized host is in its ASCII form. `None` for what is not an HTTP(S) origin.
pub fn signed_text(origin: &str) -> Option<String> {
    let url = Url::parse(origin).ok()?;
    if !matches!(url.scheme(), "http" | "https") || url.host().is_none() {
        return None;
    }
    Some(url.origin().ascii_serialization())
}

/// The wallets whose proofs a discovery document holds for `signed_text`, lowercase, sorted and
/// deduplicated, and how many proofs it held. A proof that is no 65-byte hex signature recovers
/// nobody; a well-formed signature of another text recovers an address nobody controls the key of
/// for this text, which binds that address to nothing it listed.
///
/// # Errors
/// `bad-json` when the bytes are not a JSON object; `bad-proofs` when `ownershipProofs` is there
/// and is not an array of strings.
pub fn signers_of(document: &[u8], signed_text: &str) -> Result<(Vec<String>, u32), &'static str> {
    let value: Value = serde_json::from_slice(document).map_err(|_| "bad-json")?;
    let object = value.as_object().ok_or("bad-json")?;
    let proofs: Vec<&str> = match object.get("ownershipProofs") {
        None | Some(Value::Null) => Vec::new(),
        Some(Value::Array(items)) => items.iter().map(|p| p.as_str().ok_or("bad-proofs")).collect::<Result<_, _>>()?,
        Some(_) => return Err("bad-proofs"),
    };
    let hash = eip191_hash_message(signed_text.as_bytes());
    let signers: BTreeSet<String> = proofs
        .iter()
        .take(MAX_PROOFS)
        .filter_map(|proof| {
            let hex = proof.trim();
            let hex = hex.strip_prefix("0x").or_else(|| hex.strip_prefix("0X")).unwrap_or(hex);
            let bytes = hex::decode(hex).ok().filter(|b| b.len() == 65)?;
            agentrep_payments::recover::recover_signer(&hash, &bytes)
        })
        .map(|signer| format!("{signer:#x}"))
        .collect();
    Ok((signers.into_iter().collect(), u32::try_from(proofs.len()).unwrap_or(u32::MAX)))
}

/// Fetches `origin`'s discovery document and reads its proofs. Never fails: a failure is in the
/// row's `error` (a [`FetchError::class`], `http-<status>` for a non-2xx answer, `bad-url` for an
/// origin that is not HTTP(S), or a [`signers_of`] error), and `answered` says whether the origin
/// answered at all.
pub async fn fetch_proofs(client: &SafeClient, origin: &str, now: Timestamp) -> OriginProofRow {
    let mut row = OriginProofRow {
        origin: origin.to_owned(),
        url: String::new(),
        fetched_at: now,
        answered: false,
        signers: Vec::new(),
        proofs: 0,
        digest: None,
        error: None,
    };
    let Some(text) = signed_text(origin) else {
        row.error = Some("bad-url".to_owned());
        return row;
    };
    row.url = format!("{text}{WELL_KNOWN_PATH}");
    let response = match client.get(&row.url).await {
        Ok(response) => response,
        Err(e) => {
            // A refused redirect or an oversized body is still an answer from the origin: what
            // it serves there is no document.
            row.answered = matches!(e, FetchError::TooLarge(_) | FetchError::Redirects(_));
            row.error = Some(e.class().to_owned());
            return row;
        }
    };
    row.answered = true;
    if !(200..300).contains(&response.status) {
        row.error = Some(format!("http-{}", response.status));
        return row;
    }
    row.digest = Some(hex::encode(Sha256::digest(&response.body)));
    match signers_of(&response.body, &text) {
        Ok((signers, proofs)) => {
            row.signers = signers;
            row.proofs = proofs;
        }
        Err(class) => row.error = Some(class.to_owned()),
    }
    row
}

#[cfg(test)]
mod tests {
    use alloy::signers::SignerSync;
    use alloy::signers::local::PrivateKeySigner;

    use super::*;

    fn proof(signer: &PrivateKeySigner, text: &str) -> String {
        format!("0x{}", hex::encode(signer.sign_message_sync(text.as_bytes()).unwrap().as_bytes()))
    }

    fn key(byte: u8) -> PrivateKeySigner {
        PrivateKeySigner::from_slice(&[byte; 32]).unwrap()
    }

    #[test]
    fn the_signed_text_is_the_browser_origin() {
        assert_eq!(signed_text("https://api.example.com").as_deref(), Some("https://api.example.com"));
        assert_eq!(signed_text("https://api.example.com:443").as_deref(), Some("https://api.example.com"));
        assert_eq!(signed_text("http://api.example.com:8080").as_deref(), Some("http://api.example.com:8080"));
        assert_eq!(signed_text("https://bücher.example").as_deref(), Some("https://xn--bcher-kva.example"));
        assert_eq!(signed_text("ftp://api.example.com"), None);
        assert_eq!(signed_text("not a url"), None);
    }

    #[test]
    fn a_proof_names_its_signer_only_for_the_origin_it_signed() {
        let seller = key(7);
        let document = serde_json::json!({
            "version": 1,
            "resources": ["https://api.seller.example/quote"],
            "ownershipProofs": [proof(&seller, "https://api.seller.example")],
        })
        .to_string();
        let me = format!("{:#x}", seller.address());
        assert_eq!(signers_of(document.as_bytes(), "https://api.seller.example"), Ok((vec![me.clone()], 1)));
        // The same document copied to a stranger's host proves nothing about the stranger's host.
        let (elsewhere, _) = signers_of(document.as_bytes(), "https://trap.example").unwrap();
        assert!(!elsewhere.contains(&me), "{elsewhere:?}");
    }

    #[test]
    fn several_payees_each_prove_and_junk_recovers_nobody() {
        let (a, b) = (key(1), key(2));
        let text = "https://api.seller.example";
        let document = serde_json::json!({
            "ownershipProofs": [proof(&b, text), "0x1234", "not hex", proof(&a, text), proof(&a, text).to_uppercase().replacen("0X", "", 1)],
        })
        .to_string();
        let (signers, proofs) = signers_of(document.as_bytes(), text).unwrap();
        let mut want = vec![format!("{:#x}", a.address()), format!("{:#x}", b.address())];
        want.sort();
        assert_eq!(signers, want);
        assert_eq!(proofs, 5);
    }

    #[test]
    fn a_document_without_proofs_binds_nobody_and_a_malformed_one_is_an_error() {
        assert_eq!(signers_of(br#"{"version":1,"resources":[]}"#, "https://a.example"), Ok((Vec::new(), 0)));
        assert_eq!(signers_of(b"[1,2]", "https://a.example"), Err("bad-json"));
        assert_eq!(signers_of(b"<html>", "https://a.example"), Err("bad-json"));
        assert_eq!(signers_of(br#"{"ownershipProofs":"0xab"}"#, "https://a.example"), Err("bad-proofs"));
        assert_eq!(signers_of(br#"{"ownershipProofs":[1]}"#, "https://a.example"), Err("bad-proofs"));
    }
}
