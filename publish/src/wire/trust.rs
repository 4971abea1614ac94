//! The x402 trust-provider protocol (`SCORING.md` § 5e): the query in both drafts' forms, the
//! evaluation with its typed basis and signed envelope, the evidence it is content-addressed by,
//! the discovery document and the key set.
//!
//! Field names are the drafts' (snake_case); where draft 0.1 and draft-02 name one thing twice
//! (`ttl_seconds` / `ttl`, `evaluated_at` / `issued_at`), both are written with the same value.

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use serde_json::Value;

pub use agentrep_model::trust_provider::{EvidenceClass, NullReason, ReasonCode, TrustDecision};

use super::Decision;

/// `schema` of a query.
pub const TRUST_QUERY_SCHEMA: &str = "x402-trust-query-v0.1";
/// `schema` of an evaluation (draft-02 keeps 0.1's identifier).
pub const TRUST_EVALUATION_SCHEMA: &str = "x402-trust-evaluation-v0.1";
/// The envelope's canonicalisation (RFC 8785).
pub const JCS_CANONICALISATION: &str = "urn:x402:canonicalisation:jcs-rfc8785-v1";
/// The envelope's signature algorithm.
pub const ENVELOPE_ALG: &str = "Ed25519";
/// `version` of an evidence document.
pub const TRUST_EVIDENCE_VERSION: &str = "agentrep-trust-evidence-v1";

/// Which side of a payment the query asks about.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "lowercase")]
pub enum TrustDirection {
    /// Should a buyer pay this seller? (draft-02 `seller`; Aegis calls it the resource mode.)
    #[serde(alias = "resource")]
    Seller,
    /// Should a seller accept this payer? (draft-02 `buyer`; 0.1's query without a direction.)
    #[serde(alias = "payer")]
    Buyer,
}

impl TrustDirection {
    /// Both directions.
    pub const ALL: [TrustDirection; 2] = [TrustDirection::Seller, TrustDirection::Buyer];

    /// The wire name.
    pub fn as_str(self) -> &'static str {
        match self {
            TrustDirection::Seller => "seller",
            TrustDirection::Buyer => "buyer",
        }
    }
}

/// A wallet or agent a query names (0.1's `payer`, draft-02's `subject`).
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct TrustPartyV1 {
    /// Chain-native address (`0x…` on Base).
    pub wallet: Option<String>,
    /// Agent identifier (string or number); agentrep answers wallets only.
    pub agent_id: Option<Value>,
    /// x402 session id; agentrep answers wallets only.
    pub session_id: Option<Value>,
    /// Chain (`base`, `eip155:8453`); the resource amount's chain when absent, else Base.
    pub chain: Option<String>,
}

/// What the payment is for.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct TrustResourceV1 {
    /// The resource URL; in the seller direction it goes through the URL preflight (§ 5d).
    pub url: Option<String>,
    /// HTTP method.
    pub method: Option<String>,
    /// The payment's amount.
    pub amount: Option<TrustAmountV1>,
    /// agentrep's extension: the 402 the buyer received (the v2 `PaymentRequired` object or the
    /// v1 body), judged like `POST /preflight`'s `paymentRequired`.
    #[serde(alias = "paymentRequired")]
    pub payment_required: Option<Value>,
}

/// An amount: `value` in whole units of `currency` (draft 0.1: `"0.001"` USDC).
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct TrustAmountV1 {
    /// Decimal amount in whole units (a string or a number).
    pub value: Option<Value>,
    /// Currency (`USDC`, or USDC's contract address on Base).
    pub currency: Option<String>,
    /// Chain.
    pub chain: Option<String>,
}

/// `POST /trust/evaluate`: draft 0.1's query (`payer`, `resource`, `context`) or draft-02's
/// (`subject`, `direction`). Without `direction`, a query naming only a `payer` asks about the
/// payer (0.1's mode) and any other asks about the seller.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct TrustQueryV1 {
    /// `x402-trust-query-v0.1` (optional).
    pub schema: Option<String>,
    /// `seller` or `buyer`.
    pub direction: Option<TrustDirection>,
    /// The wallet asked about (draft-02).
    pub subject: Option<TrustPartyV1>,
    /// The paying wallet (draft 0.1).
    pub payer: Option<TrustPartyV1>,
    /// What is paid for.
    pub resource: Option<TrustResourceV1>,
    /// The server's context (`category`, `risk_band`): echoed in nothing, read by nothing.
    pub context: Option<Value>,
    /// When the query was made (RFC 3339).
    pub requested_at: Option<String>,
}

/// One piece of evidence an answer rests on (draft-02's `basis[]`).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct BasisEntryV1 {
    /// `curated`, `behavioral`, `community` or `attested`.
    pub class: EvidenceClass,
    /// What it is: a flag key (`denylisted`, `paid-call-undelivered`), `score`, `evidence-tier`,
    /// a URL-preflight warning (`url-preflight:decoy`), `payments`.
    pub kind: String,
    /// Where agentrep serves the document it comes from (a path under the deployment's origin).
    #[serde(rename = "ref")]
    pub reference: Option<String>,
    /// When it was observed (the snapshot's time, or the overlay's).
    pub observed_at: Option<String>,
}

/// The wallet an answer is about.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct TrustSubjectV1 {
    /// Lowercase address, null when the query named none agentrep reads.
    pub wallet: Option<String>,
    /// CAIP-2 chain.
    pub chain: String,
}

/// The signed envelope (draft-02): `card_ref` is the SHA-256 of the JCS (RFC 8785) bytes of the
/// evaluation without `envelope`, and `signature` the Ed25519 signature of those bytes.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct TrustEnvelopeV1 {
    /// `urn:x402:canonicalisation:jcs-rfc8785-v1`.
    pub canonicalisation: String,
    /// `Ed25519`.
    pub alg: String,
    /// The key's id in `/.well-known/jwks.json` (its RFC 7638 thumbprint).
    pub kid: String,
    /// `sha256:<hex>` of the canonical bytes.
    pub card_ref: String,
    /// The signature, base64url without padding.
    pub signature: String,
    /// Where the key set is served.
    pub public_key_url: String,
}

/// What agentrep itself said, beside the protocol's answer.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct TrustAgentrepV1 {
    /// The wallet `decision` is about (the subject's, or the one the URL's 402 asks to be paid).
    pub wallet: Option<String>,
    /// The seller's preflight decision (the URL preflight's when a URL was given); null in the
    /// buyer direction and for a wallet nobody indexes.
    pub decision: Option<Decision>,
    /// The amount the answer was judged for, micro-USDC, null when the query gave none in USDC.
    pub amount_micro_usdc: Option<u64>,
    /// Snapshot day.
    pub snapshot_date: String,
    /// Methodology version.
    pub methodology: String,
}

/// The answer to `POST /trust/evaluate` (draft 0.1's evaluation with draft-02's fields).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct TrustEvaluationV1 {
    /// `x402-trust-evaluation-v0.1`.
    pub schema: String,
    /// `agentrep`.
    pub provider: String,
    /// The discovery document's path.
    pub provider_url: String,
    /// Which side was judged.
    pub direction: TrustDirection,
    /// The wallet judged.
    pub subject: TrustSubjectV1,
    /// `PASS`, `FAIL` or `UNCERTAIN`.
    pub decision: TrustDecision,
    /// 0..=1, null with `null_reason` when agentrep has no measure of the wallet.
    pub score: Option<f64>,
    /// Why `score` is null; absent when it is not.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub null_reason: Option<NullReason>,
    /// Why the decision is what it is.
    pub reason_code: ReasonCode,
    /// The evidence it rests on, each entry with its class.
    pub basis: Vec<BasisEntryV1>,
    /// `sha256:<hex>` of the JCS bytes of the evidence document, served at `evidence_url`.
    pub evidence_uri: String,
    /// Where the evidence document is served.
    pub evidence_url: String,
    /// When the answer was made (RFC 3339, UTC).
    pub issued_at: String,
    /// Draft 0.1's name for `issued_at`.
    pub evaluated_at: String,
    /// `issued_at` + `ttl`: the overlay may lower any answer within one probe cycle.
    pub expires_at: String,
    /// When a newer snapshot is due (never after `expires_at`).
    pub recheck_after: String,
    /// Seconds the answer may be cached (draft-02's name).
    pub ttl: u64,
    /// Draft 0.1's name for `ttl`.
    pub ttl_seconds: u64,
    /// What agentrep itself said.
    pub agentrep: TrustAgentrepV1,
    /// What a `PASS` means.
    pub disclaimer: String,
    /// The signature; absent when the deployment has no signing key.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub envelope: Option<TrustEnvelopeV1>,
}

/// The facts about the wallet an evidence document records.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(tag = "kind", rename_all = "snake_case")]
pub enum TrustFactsV1 {
    /// An indexed seller's published standing.
    Seller {
        /// Preflight decision (as served: lowered by the overlay when it lowers the seller).
        decision: Decision,
        /// Score, null when degraded.
        score: Option<u8>,
        /// `proven` or `unproven`.
        evidence_tier: String,
        /// The shield's flag keys.
        flags: Vec<String>,
        /// What proves it.
        proven_by: Vec<String>,
    },
    /// A paying wallet's record.
    Payer {
        /// Qualifying settlements it paid.
        payments: u64,
        /// Distinct sellers it paid.
        sellers_paid: u32,
        /// Qualifying volume it paid, micro-USDC.
        spent_micro_usdc: u64,
        /// On a denylist.
        denylisted: bool,
        /// Addresses it funded first.
        funded: u32,
        /// Day of its first qualifying payment (`YYYY-MM-DD`), null when it paid nothing.
        first_paid_day: Option<String>,
        /// Day of its last qualifying payment.
        last_paid_day: Option<String>,
    },
    /// A wallet no snapshot record describes.
    Unknown {
        /// On a denylist.
        denylisted: bool,
    },
}

/// The overlay an answer was made with.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct TrustOverlayRefV1 {
    /// The overlay file.
    pub name: String,
    /// Its newest evidence.
    pub as_of: String,
}

/// What an evaluation's `evidence_uri` addresses: the subject's standing in the served snapshot,
/// independent of the query's amount and URL and of the time of the request, so every answer
/// from one snapshot and overlay about one wallet in one direction has the same address.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct TrustEvidenceV1 {
    /// `agentrep-trust-evidence-v1`.
    pub version: String,
    /// Which side.
    pub direction: TrustDirection,
    /// Lowercase address, null when the query named none agentrep reads.
    pub wallet: Option<String>,
    /// CAIP-2 chain.
    pub chain: String,
    /// Snapshot id.
    pub snapshot_id: String,
    /// SHA-256 of the snapshot's manifest.
    pub snapshot_digest: String,
    /// Snapshot day.
    pub snapshot_date: String,
    /// Methodology version.
    pub methodology: String,
    /// The overlay applied, if any.
    pub overlay: Option<TrustOverlayRefV1>,
    /// The wallet's facts.
    pub facts: TrustFactsV1,
    /// The standing's basis.
    pub basis: Vec<BasisEntryV1>,
}

/// The endpoint in the discovery document.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct TrustEndpointV1 {
    /// `POST`.
    pub method: String,
    /// Path of `POST /trust/evaluate`.
    pub url: String,
    /// `x402-trust-query-v0.1`.
    pub request_schema: String,
    /// `x402-trust-evaluation-v0.1`.
    pub response_schema: String,
}

/// The score in the discovery document.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct TrustScoreSpecV1 {
    /// `[0, 1]`.
    pub range: [f64; 2],
    /// Why a score can be null.
    pub null_reasons: Vec<NullReason>,
    /// How it is made, in words.
    pub meaning: String,
}

/// Freshness in the discovery document.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct TrustFreshnessV1 {
    /// Seconds an answer may be cached.
    pub ttl_seconds: u64,
    /// How the evidence is refreshed, in words.
    pub basis: String,
    /// The served snapshot's day, null before one loads.
    pub snapshot_date: Option<String>,
}

/// Pricing in the discovery document.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct TrustPricingV1 {
    /// `free`.
    pub model: String,
    /// What it costs, in words.
    pub note: String,
}

/// The envelope in the discovery document.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct TrustEnvelopeSpecV1 {
    /// `urn:x402:canonicalisation:jcs-rfc8785-v1`.
    pub canonicalisation: String,
    /// `Ed25519`.
    pub alg: String,
    /// Path of the key set.
    pub jwks_url: String,
}

/// `GET /.well-known/x402-trust-provider`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct TrustProviderCardV1 {
    /// `agentrep`.
    pub provider: String,
    /// What it answers.
    pub description: String,
    /// Where to ask.
    pub endpoint: TrustEndpointV1,
    /// `seller`, `buyer`.
    pub directions: Vec<TrustDirection>,
    /// The four classes.
    pub evidence_classes: Vec<EvidenceClass>,
    /// `PASS`, `FAIL`, `UNCERTAIN`.
    pub decisions: Vec<TrustDecision>,
    /// The score.
    pub score: TrustScoreSpecV1,
    /// Freshness.
    pub freshness: TrustFreshnessV1,
    /// The drafts this answers.
    pub spec_url: String,
    /// agentrep's description of the mapping.
    pub docs: String,
    /// Pricing.
    pub pricing: TrustPricingV1,
    /// CAIP-2 chains.
    pub chains: Vec<String>,
    /// The signature scheme; absent when the deployment has no signing key.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub envelope: Option<TrustEnvelopeSpecV1>,
}

/// One key of `GET /.well-known/jwks.json` (RFC 8037: an Ed25519 `OKP` key).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct JwkV1 {
    /// `OKP`.
    pub kty: String,
    /// `Ed25519`.
    pub crv: String,
    /// The public key, base64url without padding.
    pub x: String,
    /// RFC 7638 thumbprint.
    pub kid: String,
    /// `sig`.
    #[serde(rename = "use")]
    pub key_use: String,
    /// `EdDSA`.
    pub alg: String,
}

/// `GET /.well-known/jwks.json`: the keys trust answers are signed with (none without a key).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct JwksV1 {
    /// The keys.
    pub keys: Vec<JwkV1>,
}
