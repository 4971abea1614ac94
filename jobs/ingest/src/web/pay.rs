//! The buyer's side of x402 `exact` on an EIP-3009 token, as the paid probe needs it: pick the
//! terms of a 402 that pay exactly what the listing says, sign the `TransferWithAuthorization` an
//! official client signs, and carry it in the header of the paid retry (`PAYMENT-SIGNATURE` for
//! v2, `X-PAYMENT` for v1). Nothing here sends money: the seller settles, or does not.

use agentrep_payments::PaymentNetwork;
use agentrep_payments::verify::{TransferWithAuthorization, signing_hash};
use agentrep_payments::wire::encode_base64;
use alloy::primitives::{Address, B256, U256};
use alloy::signers::SignerSync;
use alloy::signers::local::PrivateKeySigner;
use reqwest::header::HeaderMap;
use serde_json::{Value, json};

use super::offer::{PAYMENT_REQUIRED, decode_base64};

/// What a listing promises: where to pay, in what, and how much.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Expected {
    /// The listing's payTo.
    pub pay_to: Address,
    /// The token.
    pub asset: Address,
    /// The most the call may cost, atomic units.
    pub max_amount: u64,
}

/// Terms picked from a 402, ready to sign.
#[derive(Debug, Clone, PartialEq)]
pub struct Picked {
    /// 1 or 2.
    pub version: u32,
    /// The accepted requirement as offered (echoed in a v2 payload).
    pub accepted: Value,
    /// The network name as offered (`base` or `eip155:8453`).
    pub network: String,
    /// The amount to authorize.
    pub amount: u64,
    /// The offer's `maxTimeoutSeconds`, when it states one.
    pub max_timeout_secs: Option<u64>,
    /// A v2 offer's `resource`, echoed in the payload as the official clients echo it.
    pub resource: Option<Value>,
    /// A v2 offer's `extensions`, echoed likewise.
    pub extensions: Option<Value>,
}

/// Why a 402 is not paid.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Refusal {
    /// No well-formed x402 offer.
    NoOffer,
    /// The offer asks to pay another wallet, token or network than the listing says.
    OfferMismatch,
    /// It costs more than the paid probe may spend.
    TooExpensive,
}

impl Refusal {
    /// As recorded in `paid_probes.error`.
    pub fn as_str(&self) -> &'static str {
        match self {
            Refusal::NoOffer => "no-offer",
            Refusal::OfferMismatch => "offer-mismatch",
            Refusal::TooExpensive => "too-expensive",
        }
    }
}

fn amount_of(v: &Value) -> Option<u64> {
    let a = v.get("amount").or_else(|| v.get("maxAmountRequired"))?;
    a.as_str().and_then(|s| s.parse().ok()).or_else(|| a.as_u64())
}

fn address_of(v: &Value, key: &str) -> Option<Address> {
    v.get(key)?.as_str()?.trim().parse().ok()
}

/// The `exact` terms of a 402 on `network` that pay `expected` (v2 header first, then the v1 body).
///
/// # Errors
/// Why nothing can be paid.
pub fn pick(
    headers: &HeaderMap,
    body: &[u8],
    network: &PaymentNetwork,
    expected: &Expected,
) -> Result<Picked, Refusal> {
    let v2 = headers
        .get(PAYMENT_REQUIRED)
        .and_then(|v| v.to_str().ok())
        .and_then(decode_base64)
        .and_then(|json| serde_json::from_slice::<Value>(&json).ok())
        .map(|v| (2u32, v));
    let v1 = serde_json::from_slice::<Value>(body).ok().map(|v| (1u32, v));
    let mut seen_offer = false;
    let mut too_expensive = false;
    for (version, doc) in v2.into_iter().chain(v1) {
        if doc.get("x402Version").and_then(Value::as_u64) != Some(u64::from(version)) {
            continue;
        }
        for accept in doc.get("accepts").and_then(Value::as_array).into_iter().flatten() {
            let (Some(scheme), Some(net), Some(amount)) = (
                accept.get("scheme").and_then(Value::as_str),
                accept.get("network").and_then(Value::as_str),
                amount_of(accept),
            ) else {
                continue;
            };
            seen_offer = true;
            let ours = scheme == "exact"
                && network.is_named(net)
                && address_of(accept, "asset") == Some(expected.asset)
                && address_of(accept, "payTo") == Some(expected.pay_to);
            if !ours {
                continue;
            }
            if amount > expected.max_amount {
                too_expensive = true;
                continue;
            }
            return Ok(Picked {
                version,
                accepted: accept.clone(),
                network: net.to_owned(),
                amount,
                max_timeout_secs: accept.get("maxTimeoutSeconds").and_then(Value::as_u64),
                resource: (version == 2).then(|| doc.get("resource").cloned()).flatten(),
                extensions: (version == 2).then(|| doc.get("extensions").cloned()).flatten(),
            });
        }
    }
    Err(if too_expensive {
        Refusal::TooExpensive
    } else if seen_offer {
        Refusal::OfferMismatch
    } else {
        Refusal::NoOffer
    })
}

/// A signed authorization and the header that carries it.
#[derive(Debug, Clone)]
pub struct Signed {
    /// The header's name.
    pub header: &'static str,
    /// Its value (base64 JSON).
    pub value: String,
    /// The authorization's nonce.
    pub nonce: B256,
    /// Unix seconds after which it can never be used.
    pub valid_before: u64,
}

/// How long before the signing time a v1 authorization is valid from, as the official v1 clients
/// sign it (v2 clients sign `validAfter = 0`; `x402.md`, "Values the clients actually sign").
const V1_VALID_AFTER_LEAD_SECS: u64 = 600;

impl Picked {
    /// The authorization's validity, signed at `now` (Unix seconds), as the official clients sign
    /// it: from 0 (v2) or ten minutes before `now` (v1), until `now` plus the offer's
    /// `maxTimeoutSeconds`; never longer than `cap` seconds (the paid probe's
    /// `authorization_secs`, which bounds how long it waits to know whether the money moved), and
    /// `cap` when the offer states no timeout.
    pub fn validity(&self, now: u64, cap: u64) -> (u64, u64) {
        let after = if self.version == 2 { 0 } else { now.saturating_sub(V1_VALID_AFTER_LEAD_SECS) };
        let before = now + self.max_timeout_secs.map_or(cap, |t| t.clamp(1, cap.max(1)));
        (after, before)
    }
}

/// Signs `picked` from `payer`, valid over `validity` (`(validAfter, validBefore)`, Unix
/// seconds: [`Picked::validity`]), with a fresh random nonce; the payload carries what the official
/// clients send (a v2 payload echoes the offer's `accepted`, `resource` and `extensions`).
///
/// # Errors
/// When the key cannot sign.
pub fn sign(
    payer: &PrivateKeySigner,
    network: &PaymentNetwork,
    picked: &Picked,
    to: Address,
    validity: (u64, u64),
) -> Result<Signed, alloy::signers::Error> {
    let (valid_after, valid_before) = validity;
    // 32 random bytes (a fresh key's, from the OS's generator): a nonce no other payment uses.
    let nonce = B256::from(PrivateKeySigner::random().to_bytes());
    let message = TransferWithAuthorization {
        from: payer.address(),
        to,
        value: U256::from(picked.amount),
        validAfter: U256::from(valid_after),
        validBefore: U256::from(valid_before),
        nonce,
    };
    let signature = payer.sign_hash_sync(&signing_hash(network, &message))?;
    let authorization = json!({
        "from": format!("{:#x}", payer.address()),
        "to": format!("{to:#x}"),
        "value": picked.amount.to_string(),
        "validAfter": valid_after.to_string(),
        "validBefore": valid_before.to_string(),
        "nonce": format!("{nonce:#x}"),
    });
    let payload =
        json!({"signature": alloy::hex::encode_prefixed(signature.as_bytes()), "authorization": authorization});
    let (header, body) = if picked.version == 2 {
        let mut body = json!({"x402Version": 2, "payload": payload, "accepted": picked.accepted});
        if let Some(resource) = &picked.resource {
            body["resource"] = resource.clone();
        }
        if let Some(extensions) = &picked.extensions {
            body["extensions"] = extensions.clone();
        }
        ("payment-signature", body)
    } else {
        ("x-payment", json!({"x402Version": 1, "scheme": "exact", "network": picked.network, "payload": payload}))
    };
    Ok(Signed { header, value: encode_base64(body.to_string().as_bytes()), nonce, valid_before })
}

/// The transaction a `PAYMENT-RESPONSE` (or `X-PAYMENT-RESPONSE`) names, when it does.
pub fn settlement_tx(headers: &HeaderMap) -> Option<String> {
    let raw = headers.get("payment-response").or_else(|| headers.get("x-payment-response"))?.to_str().ok()?;
    let v: Value = serde_json::from_slice(&decode_base64(raw)?).ok()?;
    let tx = v.get("transaction")?.as_str()?;
    (tx.len() == 66 && tx.starts_with("0x")).then(|| tx.to_ascii_lowercase())
}

#[cfg(test)]
mod tests {
    use reqwest::header::HeaderValue;

    use super::*;

    fn headers(accepts: Value) -> HeaderMap {
        let mut h = HeaderMap::new();
        let doc = json!({"x402Version": 2, "accepts": accepts, "resource": {"url": "https://x"}});
        h.insert(PAYMENT_REQUIRED, HeaderValue::from_str(&encode_base64(doc.to_string().as_bytes())).unwrap());
        h
    }

    #[test]
    fn only_the_listings_own_terms_within_budget_are_paid() {
        let base = PaymentNetwork::base();
        let pay_to: Address = "0x00000000000000000000000000000000000000aa".parse().unwrap();
        let want = Expected { pay_to, asset: base.asset, max_amount: 50_000 };
        let accept = |to: &str, amount: &str| {
            json!({"scheme": "exact", "network": "eip155:8453", "amount": amount, "asset": format!("{:#x}", base.asset),
                   "payTo": to, "maxTimeoutSeconds": 60, "extra": {"name": "USD Coin", "version": "2"}})
        };
        let ours = "0x00000000000000000000000000000000000000aa";
        let picked = pick(&headers(json!([accept(ours, "10000")])), b"", &base, &want).unwrap();
        assert_eq!((picked.version, picked.amount), (2, 10_000));
        let other = "0x00000000000000000000000000000000000000bb";
        assert_eq!(pick(&headers(json!([accept(other, "10000")])), b"", &base, &want), Err(Refusal::OfferMismatch));
        assert_eq!(pick(&headers(json!([accept(ours, "60000")])), b"", &base, &want), Err(Refusal::TooExpensive));
        assert_eq!(pick(&HeaderMap::new(), b"not json", &base, &want), Err(Refusal::NoOffer));
        let signer = PrivateKeySigner::random();
        let signed = sign(&signer, &base, &picked, pay_to, (0, 1_900_000_000)).unwrap();
        assert_eq!(signed.header, "payment-signature");
        let decoded: Value = serde_json::from_slice(&decode_base64(&signed.value).unwrap()).unwrap();
        assert_eq!(decoded["accepted"], picked.accepted);
        assert_eq!(decoded["payload"]["authorization"]["value"], "10000");
    }

    /// What the paid probe signs is what the official clients sign (`x402.md`, "Values the clients
    /// actually sign"): nothing in the authorization or the payload tells the oracle's call apart.
    #[test]
    fn the_authorization_and_payload_are_the_official_clients() {
        let base = PaymentNetwork::base();
        let pay_to: Address = "0x00000000000000000000000000000000000000aa".parse().unwrap();
        let want = Expected { pay_to, asset: base.asset, max_amount: 50_000 };
        let accept = json!({"scheme": "exact", "network": "eip155:8453", "amount": "10000",
            "asset": format!("{:#x}", base.asset), "payTo": format!("{pay_to:#x}"), "maxTimeoutSeconds": 60,
            "extra": {"name": "USD Coin", "version": "2"}});
        let picked = pick(&headers(json!([accept])), b"", &base, &want).unwrap();
        let now = 1_800_000_000;
        assert_eq!(picked.validity(now, 120), (0, now + 60), "v2: from 0, for the offer's maxTimeoutSeconds");
        assert_eq!(picked.validity(now, 30), (0, now + 30), "never longer than the probe's cap");
        let signed = sign(&PrivateKeySigner::random(), &base, &picked, pay_to, picked.validity(now, 120)).unwrap();
        let decoded: Value = serde_json::from_slice(&decode_base64(&signed.value).unwrap()).unwrap();
        assert_eq!(decoded["resource"], json!({"url": "https://x"}), "the v2 payload echoes the resource");
        assert_eq!(decoded["payload"]["authorization"]["validAfter"], "0");
        assert_eq!(decoded["payload"]["authorization"]["validBefore"], (now + 60).to_string());

        let v1_body = json!({"x402Version": 1, "accepts": [{"scheme": "exact", "network": "base",
            "maxAmountRequired": "10000", "asset": format!("{:#x}", base.asset), "payTo": format!("{pay_to:#x}"),
            "resource": "https://x", "maxTimeoutSeconds": 300}]});
        let v1 = pick(&HeaderMap::new(), v1_body.to_string().as_bytes(), &base, &want).unwrap();
        assert_eq!(v1.validity(now, 600), (now - 600, now + 300), "v1: from ten minutes before");
        let signed = sign(&PrivateKeySigner::random(), &base, &v1, pay_to, v1.validity(now, 600)).unwrap();
        let decoded: Value = serde_json::from_slice(&decode_base64(&signed.value).unwrap()).unwrap();
        assert_eq!(decoded["payload"]["authorization"]["validAfter"], (now - 600).to_string());
        assert!(decoded.get("resource").is_none(), "a v1 payload has no resource");
    }
}
