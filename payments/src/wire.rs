//! The x402 wire format, v1 and v2 (x402.md §1–3): the terms of a 402, the payload of a paid
//! retry, and the settlement answer. Field names and quirks are the ones the official clients
//! accept: v1 entries carry `mimeType` as a string and a named network, v2 moves the resource out
//! of each entry and names networks by CAIP-2.

use std::collections::BTreeMap;

use base64::Engine as _;
use serde::{Deserialize, Serialize};

use crate::verify::InvalidReason;

/// The EIP-712 domain values of the token, as the terms' `extra` carries them.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct TokenDomain {
    /// Domain `name`.
    pub name: String,
    /// Domain `version`.
    pub version: String,
}

/// One v1 `accepts` entry.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct RequirementsV1 {
    /// `exact`.
    pub scheme: String,
    /// Network name (`base`).
    pub network: String,
    /// Price in atomic units, decimal.
    pub max_amount_required: String,
    /// Absolute URL of the resource.
    pub resource: String,
    /// What is bought.
    pub description: String,
    /// Media type of the answer.
    pub mime_type: String,
    /// Receiving address.
    pub pay_to: String,
    /// Longest a payment may stay valid, seconds.
    pub max_timeout_seconds: u64,
    /// Token address.
    pub asset: String,
    /// Token domain.
    pub extra: TokenDomain,
}

/// One v2 `accepts` entry (also the `accepted` a v2 payload echoes).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct RequirementsV2 {
    /// `exact`.
    pub scheme: String,
    /// CAIP-2 network.
    pub network: String,
    /// Price in atomic units, decimal.
    pub amount: String,
    /// Token address.
    pub asset: String,
    /// Receiving address.
    pub pay_to: String,
    /// Longest a payment may stay valid, seconds.
    pub max_timeout_seconds: u64,
    /// Token domain (and whatever else the seller put there).
    pub extra: TokenDomain,
}

/// The resource a v2 402 is about.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ResourceInfo {
    /// Absolute URL.
    pub url: String,
    /// What is bought.
    pub description: String,
    /// Media type of the answer.
    pub mime_type: String,
}

/// The v1 402 body.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct PaymentRequiredV1 {
    /// 1.
    pub x402_version: u8,
    /// Why payment is required (or why the last one failed).
    pub error: String,
    /// The terms.
    pub accepts: Vec<RequirementsV1>,
}

/// The v2 402, sent base64-encoded in the `PAYMENT-REQUIRED` header.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct PaymentRequiredV2 {
    /// 2.
    pub x402_version: u8,
    /// Why payment is required (or why the last one failed).
    pub error: String,
    /// The resource.
    pub resource: ResourceInfo,
    /// The terms.
    pub accepts: Vec<RequirementsV2>,
    /// Extensions offered (none yet).
    pub extensions: BTreeMap<String, serde_json::Value>,
}

/// An EIP-3009 `TransferWithAuthorization` as a payload carries it (numbers as decimal text).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Authorization {
    /// Payer.
    pub from: String,
    /// Recipient.
    pub to: String,
    /// Amount in atomic units.
    pub value: String,
    /// Unix seconds after which it is valid.
    pub valid_after: String,
    /// Unix seconds before which it is valid.
    pub valid_before: String,
    /// 32 random bytes, hex.
    pub nonce: String,
}

/// The `exact` EVM payload: a signed authorization.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct ExactEvmPayload {
    /// Hex signature (65 bytes for an EOA; longer for smart wallets).
    pub signature: String,
    /// What was signed.
    pub authorization: Authorization,
}

/// A v1 payment (`X-PAYMENT`).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct PaymentPayloadV1 {
    /// 1.
    pub x402_version: u8,
    /// `exact`.
    pub scheme: String,
    /// Network name.
    pub network: String,
    /// The signed authorization.
    pub payload: ExactEvmPayload,
}

/// A v2 payment (`PAYMENT-SIGNATURE`).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct PaymentPayloadV2 {
    /// 2.
    pub x402_version: u8,
    /// The signed authorization.
    pub payload: ExactEvmPayload,
    /// The terms the buyer accepted.
    pub accepted: RequirementsV2,
    /// The resource, as the buyer saw it.
    #[serde(default)]
    pub resource: Option<ResourceInfo>,
    /// Extensions echoed back.
    #[serde(default)]
    pub extensions: Option<serde_json::Value>,
}

/// The protocol version of a paid retry.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum X402Version {
    /// `X-PAYMENT`, JSON body terms.
    V1,
    /// `PAYMENT-SIGNATURE`, header terms.
    V2,
}

/// A decoded paid retry.
#[derive(Debug, Clone, PartialEq)]
pub enum PaidRetry {
    /// From `X-PAYMENT`.
    V1(Box<PaymentPayloadV1>),
    /// From `PAYMENT-SIGNATURE`.
    V2(Box<PaymentPayloadV2>),
}

/// The `X-PAYMENT-RESPONSE` / `PAYMENT-RESPONSE` body.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct SettlementResponse {
    /// Whether the payment settled.
    pub success: bool,
    /// Settlement transaction hash (empty on failure).
    pub transaction: String,
    /// Network, as the buyer named it.
    pub network: String,
    /// Payer.
    pub payer: String,
    /// Why it failed.
    #[serde(skip_serializing_if = "Option::is_none", default)]
    pub error_reason: Option<String>,
    /// Extensions' results (the offer-and-receipt extension's signed receipt).
    #[serde(skip_serializing_if = "Option::is_none", default)]
    pub extensions: Option<serde_json::Value>,
}

/// Decodes base64 as clients send it: the standard alphabet with or without padding, or the
/// URL-safe one.
pub fn decode_base64(text: &str) -> Option<Vec<u8>> {
    use base64::engine::general_purpose::{STANDARD, STANDARD_NO_PAD, URL_SAFE, URL_SAFE_NO_PAD};
    let text = text.trim();
    [STANDARD, STANDARD_NO_PAD, URL_SAFE, URL_SAFE_NO_PAD].iter().find_map(|e| e.decode(text).ok())
}

/// Standard base64 with padding, as the x402 headers carry JSON.
pub fn encode_base64(bytes: &[u8]) -> String {
    base64::engine::general_purpose::STANDARD.encode(bytes)
}

/// Longest payment header read (a payload is well under 2 KiB; anything far larger is refused
/// before decoding).
pub const MAX_HEADER_BYTES: usize = 16 * 1024;

impl PaidRetry {
    /// The paid retry a request carries: `PAYMENT-SIGNATURE` (v2) wins over `X-PAYMENT` (v1), as
    /// the spec's dispatch rule says. `None` when it carries neither.
    ///
    /// # Errors
    /// `invalid_payload` when the header is not base64 JSON of the version's payload, and
    /// `invalid_x402_version` when its `x402Version` is not the header's.
    pub fn from_headers(v2: Option<&str>, v1: Option<&str>) -> Option<Result<Self, InvalidReason>> {
        let (text, version) = match (v2, v1) {
            (Some(t), _) => (t, X402Version::V2),
            (None, Some(t)) => (t, X402Version::V1),
            (None, None) => return None,
        };
        Some(Self::decode(text, version))
    }

    fn decode(text: &str, version: X402Version) -> Result<Self, InvalidReason> {
        if text.len() > MAX_HEADER_BYTES {
            return Err(InvalidReason::InvalidPayload);
        }
        let bytes = decode_base64(text).ok_or(InvalidReason::InvalidPayload)?;
        #[derive(Deserialize)]
        #[serde(rename_all = "camelCase")]
        struct Version {
            x402_version: u8,
        }
        let v: Version = serde_json::from_slice(&bytes).map_err(|_| InvalidReason::InvalidPayload)?;
        match (version, v.x402_version) {
            (X402Version::V1, 1) => serde_json::from_slice(&bytes)
                .map(|p| PaidRetry::V1(Box::new(p)))
                .map_err(|_| InvalidReason::InvalidPayload),
            (X402Version::V2, 2) => serde_json::from_slice(&bytes)
                .map(|p| PaidRetry::V2(Box::new(p)))
                .map_err(|_| InvalidReason::InvalidPayload),
            _ => Err(InvalidReason::InvalidX402Version),
        }
    }

    /// Its protocol version.
    pub fn version(&self) -> X402Version {
        match self {
            PaidRetry::V1(_) => X402Version::V1,
            PaidRetry::V2(_) => X402Version::V2,
        }
    }

    /// The signed authorization.
    pub fn exact(&self) -> &ExactEvmPayload {
        match self {
            PaidRetry::V1(p) => &p.payload,
            PaidRetry::V2(p) => &p.payload,
        }
    }

    /// The network the buyer named.
    pub fn network(&self) -> &str {
        match self {
            PaidRetry::V1(p) => &p.network,
            PaidRetry::V2(p) => &p.accepted.network,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn v2_json() -> serde_json::Value {
        serde_json::json!({
            "x402Version": 2,
            "payload": {
                "authorization": {"from": "0xf39Fd6e51aad88F6F4ce6aB8827279cffFb92266", "to": "0x2096000000000000000000000000000000000000",
                    "value": "10000", "validAfter": "0", "validBefore": "1795246628",
                    "nonce": "0x1c5400000000000000000000000000000000000000000000000000000000a0a0"},
                "signature": "0x00"
            },
            "extensions": {"bazaar": {}},
            "resource": {"url": "http://127.0.0.1:4021/dual", "description": "d", "mimeType": "application/json"},
            "accepted": {"scheme": "exact", "network": "eip155:31337", "amount": "10000", "asset": "0x5FbDB2315678afecb367f032d93F642f64180aa3",
                "payTo": "0x2096000000000000000000000000000000000000", "maxTimeoutSeconds": 60, "extra": {"name": "USD Coin", "version": "2"}}
        })
    }

    #[test]
    fn v2_wins_over_v1_and_each_header_must_hold_its_version() {
        let v2 = encode_base64(&serde_json::to_vec(&v2_json()).unwrap());
        let retry = PaidRetry::from_headers(Some(&v2), Some("garbage")).unwrap().unwrap();
        assert_eq!(retry.version(), X402Version::V2);
        assert_eq!(retry.network(), "eip155:31337");
        assert_eq!(PaidRetry::from_headers(None, Some(&v2)).unwrap(), Err(InvalidReason::InvalidX402Version));
        assert!(PaidRetry::from_headers(None, None).is_none());
    }

    #[test]
    fn malformed_headers_are_invalid_payloads() {
        for bad in ["", "%%%", &encode_base64(b"not json"), &encode_base64(b"{\"x402Version\":2}"), &"A".repeat(20_000)]
        {
            assert_eq!(
                PaidRetry::from_headers(Some(bad), None).unwrap(),
                Err(InvalidReason::InvalidPayload),
                "{bad:.40}"
            );
        }
    }

    #[test]
    fn base64_is_read_leniently() {
        let json = serde_json::to_vec(&v2_json()).unwrap();
        let url = base64::engine::general_purpose::URL_SAFE_NO_PAD.encode(&json);
        assert_eq!(decode_base64(&url).unwrap(), json);
        assert_eq!(decode_base64(&format!(" {} ", encode_base64(&json))).unwrap(), json);
    }
}
