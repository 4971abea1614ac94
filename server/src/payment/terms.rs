//! The terms of a paid answer, as one 402 for x402 v1 buyers (JSON body) and v2 buyers
//! (`PAYMENT-REQUIRED` header), built from `agentrep-payments`' wire types (the ones its verifier
//! reads back), and the settlement headers of a paid answer.

use agentrep_payments::receipt::{OFFER_RECEIPT, OfferPayload, ReceiptPayload, Signed};
use agentrep_payments::wire::{
    PaymentRequiredV1, PaymentRequiredV2, RequirementsV1, RequirementsV2, ResourceInfo, SettlementResponse,
    TokenDomain, encode_base64,
};
use agentrep_payments::{Offer, PaymentNetwork, X402Version};
use alloy::signers::local::PrivateKeySigner;
use hyper::header::{self, HeaderValue};
use hyper::{Response, StatusCode};

use crate::http::Body;
use crate::http::respond::{json, mime};

/// Longest a payment for a paid answer may stay valid, seconds (`maxTimeoutSeconds`).
pub const MAX_TIMEOUT_SECONDS: u64 = 60;

/// The x402 `payment-identifier` extension's name.
pub const PAYMENT_IDENTIFIER: &str = "payment-identifier";

/// Headers a buyer's browser may read.
const EXPOSED: &str =
    "PAYMENT-REQUIRED, PAYMENT-RESPONSE, X-PAYMENT-RESPONSE, EXTENSION-RESPONSES, X-AGENTREP-SETTLEMENT, RETRY-AFTER";

/// The terms of one paid answer.
#[derive(Debug, Clone)]
pub struct Terms {
    /// Absolute URL of the resource.
    pub resource: String,
    /// What is bought.
    pub description: String,
    /// Price, atomic units.
    pub amount: u64,
    /// Receiving address.
    pub pay_to: String,
    /// Network and asset.
    pub network: PaymentNetwork,
    /// The operator's key signing offers (x402 offer-and-receipt), when configured.
    pub signer: Option<PrivateKeySigner>,
}

impl Terms {
    /// What the verifier checks a payment against.
    pub fn offer(&self) -> Offer {
        Offer {
            network: self.network.clone(),
            pay_to: self.pay_to.parse().expect("pay_to is a checked address"),
            amount: self.amount,
            max_timeout_seconds: MAX_TIMEOUT_SECONDS,
        }
    }

    fn extra(&self) -> TokenDomain {
        TokenDomain { name: self.network.token_name.clone(), version: self.network.token_version.clone() }
    }

    /// The v1 `accepts` entries (one per v1 name of the network; none when v1 clients cannot name
    /// it).
    pub fn v1(&self) -> Vec<RequirementsV1> {
        self.network
            .v1_name
            .iter()
            .map(|network| RequirementsV1 {
                scheme: "exact".to_owned(),
                network: network.clone(),
                max_amount_required: self.amount.to_string(),
                resource: self.resource.clone(),
                description: self.description.clone(),
                mime_type: mime::JSON.to_owned(),
                pay_to: self.pay_to.clone(),
                max_timeout_seconds: MAX_TIMEOUT_SECONDS,
                asset: self.network.asset.to_string(),
                extra: self.extra(),
            })
            .collect()
    }

    /// The v2 `accepts` entry.
    pub fn v2(&self) -> RequirementsV2 {
        RequirementsV2 {
            scheme: "exact".to_owned(),
            network: self.network.caip2.clone(),
            amount: self.amount.to_string(),
            asset: self.network.asset.to_string(),
            pay_to: self.pay_to.clone(),
            max_timeout_seconds: MAX_TIMEOUT_SECONDS,
            extra: self.extra(),
        }
    }

    /// The v2 terms, signed as an x402 offer.
    fn signed_offer(&self, key: &PrivateKeySigner) -> Signed<OfferPayload> {
        OfferPayload {
            resource_url: self.resource.clone(),
            scheme: "exact".to_owned(),
            network: self.network.caip2.clone(),
            asset: self.network.asset.to_string(),
            pay_to: self.pay_to.clone(),
            amount: self.amount.to_string(),
            max_timeout_seconds: MAX_TIMEOUT_SECONDS,
            issued_at: u64::try_from(super::now()).unwrap_or(0),
        }
        .sign(key)
        .expect("the terms' network is eip155 and payTo an address")
    }

    /// A signed x402 receipt of a paid answer to `payer`, settled by `transaction`, as the
    /// settlement answer's `extensions`.
    pub fn receipt_extension(&self, key: &PrivateKeySigner, payer: &str, transaction: &str) -> serde_json::Value {
        let receipt = ReceiptPayload {
            network: self.network.caip2.clone(),
            resource_url: self.resource.clone(),
            payer: payer.to_owned(),
            issued_at: u64::try_from(super::now()).unwrap_or(0),
            transaction: transaction.to_owned(),
        }
        .sign(key)
        .expect("the terms' network is eip155");
        serde_json::json!({ OFFER_RECEIPT: {"info": {"version": 1, "receipt": receipt}} })
    }

    /// The accepts entry a payment of `version` answers (what a facilitator is asked about).
    pub fn requirements_json(&self, version: X402Version) -> serde_json::Value {
        match version {
            X402Version::V1 => serde_json::to_value(self.v1().into_iter().next()).expect("serialises"),
            X402Version::V2 => serde_json::to_value(self.v2()).expect("serialises"),
        }
    }
}

/// A 402 quoting `terms`, with `error` saying why an earlier payment was refused and
/// `settlement` the failed settlement's answer, when there was one.
pub fn payment_required(terms: &Terms, error: Option<&str>, settlement: Option<&SettlementResponse>) -> Response<Body> {
    let v1 = PaymentRequiredV1 {
        x402_version: 1,
        error: error.unwrap_or("X-PAYMENT header is required").to_owned(),
        accepts: terms.v1(),
    };
    let mut extensions = std::collections::BTreeMap::new();
    extensions.insert(
        PAYMENT_IDENTIFIER.to_owned(),
        serde_json::json!({
            "info": {"required": false},
            "schema": {
                "$schema": "https://json-schema.org/draft/2020-12/schema",
                "type": "object",
                "properties": {
                    "required": {"type": "boolean"},
                    "id": {"type": "string", "minLength": 16, "maxLength": 128, "pattern": "^[a-zA-Z0-9_-]+$"}
                },
                "required": ["required"]
            }
        }),
    );
    if let Some(key) = &terms.signer {
        let offer = terms.signed_offer(key);
        extensions.insert(OFFER_RECEIPT.to_owned(), serde_json::json!({"info": {"version": 1, "offers": [offer]}}));
    }
    let v2 = PaymentRequiredV2 {
        x402_version: 2,
        error: error.unwrap_or("PAYMENT-SIGNATURE header is required").to_owned(),
        resource: ResourceInfo {
            url: terms.resource.clone(),
            description: terms.description.clone(),
            mime_type: mime::JSON.to_owned(),
        },
        accepts: vec![terms.v2()],
        extensions,
    };
    let mut resp = json(StatusCode::PAYMENT_REQUIRED, &v1);
    let h = resp.headers_mut();
    h.insert("payment-required", header_value(&v2));
    if let Some(s) = settlement {
        h.insert("payment-response", header_value(s));
        h.insert("x-payment-response", header_value(s));
    }
    h.insert(header::ACCESS_CONTROL_EXPOSE_HEADERS, HeaderValue::from_static(EXPOSED));
    resp
}

/// Adds the settlement answer to a paid response, under both versions' header names (v2 clients
/// read `PAYMENT-RESPONSE` and fall back to `X-PAYMENT-RESPONSE`).
pub fn add_settlement(resp: &mut Response<Body>, settlement: &SettlementResponse) {
    let h = resp.headers_mut();
    h.insert("payment-response", header_value(settlement));
    h.insert("x-payment-response", header_value(settlement));
    h.insert(header::ACCESS_CONTROL_EXPOSE_HEADERS, HeaderValue::from_static(EXPOSED));
    h.insert(header::CACHE_CONTROL, HeaderValue::from_static("no-store"));
}

/// Marks a paid answer whose settlement is not known yet (it is reconciled; the buyer is not
/// asked to pay again): `X-Agentrep-Settlement: pending`, and no settlement header.
pub fn mark_pending(resp: &mut Response<Body>) {
    let h = resp.headers_mut();
    h.insert("x-agentrep-settlement", HeaderValue::from_static("pending"));
    h.insert(header::ACCESS_CONTROL_EXPOSE_HEADERS, HeaderValue::from_static(EXPOSED));
    h.insert(header::CACHE_CONTROL, HeaderValue::from_static("no-store"));
}

/// base64(JSON) as a header value.
pub fn header_value(value: &impl serde::Serialize) -> HeaderValue {
    let text = encode_base64(&serde_json::to_vec(value).expect("serialises"));
    HeaderValue::from_str(&text).expect("base64 is a valid header value")
}
