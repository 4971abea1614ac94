//! `GET /.well-known/x402-trust-provider`: what this deployment answers, how, and with which key.

use agentrep_publish::wire::{
    ENVELOPE_ALG, EvidenceClass, JCS_CANONICALISATION, NullReason, TRUST_EVALUATION_SCHEMA, TRUST_QUERY_SCHEMA,
    TrustDecision, TrustDirection, TrustEndpointV1, TrustEnvelopeSpecV1, TrustFreshnessV1, TrustPricingV1,
    TrustProviderCardV1, TrustScoreSpecV1,
};

use super::evaluate::{JWKS_PATH, PROVIDER, TRUST_TTL_SECS};
use super::sign::TrustSigner;

/// Where the drafts are discussed.
pub const SPEC_URL: &str = "https://github.com/x402-foundation/x402/issues/2299";

/// The discovery document of a deployment serving `POST {base}/trust/evaluate`.
pub fn card(base: &str, signer: Option<&TrustSigner>, snapshot_date: Option<String>) -> TrustProviderCardV1 {
    TrustProviderCardV1 {
        provider: PROVIDER.to_owned(),
        description: "agentrep, a reputation oracle for x402 sellers on Base: should a buyer pay this seller (direction seller), should a seller accept this payer (direction buyer). Answers come from the daily snapshot and the overlay of the operator's own probes, paid calls and lists.".to_owned(),
        endpoint: TrustEndpointV1 {
            method: "POST".to_owned(),
            url: format!("{base}/trust/evaluate"),
            request_schema: TRUST_QUERY_SCHEMA.to_owned(),
            response_schema: TRUST_EVALUATION_SCHEMA.to_owned(),
        },
        directions: TrustDirection::ALL.to_vec(),
        evidence_classes: EvidenceClass::ALL.to_vec(),
        decisions: TrustDecision::ALL.to_vec(),
        score: TrustScoreSpecV1 {
            range: [0.0, 1.0],
            null_reasons: vec![NullReason::UnknownSubject, NullReason::InsufficientSignal, NullReason::UnsupportedChain],
            meaning: "seller: agentrep's 0-100 score / 100; buyer: the payer's own qualifying payments to listed sellers (volume, breadth, repeats); null, never low, for a wallet agentrep does not know".to_owned(),
        },
        freshness: TrustFreshnessV1 {
            ttl_seconds: TRUST_TTL_SECS,
            basis: "a daily snapshot; the operator's probes, paid calls and denylist lower answers within one probe cycle (15 minutes) through the overlay".to_owned(),
            snapshot_date,
        },
        spec_url: SPEC_URL.to_owned(),
        docs: format!("{base}/catalog"),
        pricing: TrustPricingV1 { model: "free".to_owned(), note: "free and rate-limited like the other free reads".to_owned() },
        chains: vec![agentrep_model::chain::BASE_CAIP2.to_owned()],
        envelope: signer.map(|_| TrustEnvelopeSpecV1 {
            canonicalisation: JCS_CANONICALISATION.to_owned(),
            alg: ENVELOPE_ALG.to_owned(),
            jwks_url: JWKS_PATH.to_owned(),
        }),
    }
}
