//! Signed score attestations and their reads: `/attestation/{address}`, `/auto-attest-status`,
//! `POST /verify`, `/attestations.json` (JSON Feed 1.1) and `/attestation-engagement`.

use agentrep_model::sources::SourceNote;
use std::collections::BTreeMap;

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

/// The signed message: the original service's `Attestation` struct, field for field.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct AttestationPayloadV1 {
    /// `agentrep-v1`.
    pub version: String,
    /// `agent-onchain`.
    pub subject_type: String,
    /// The wallet, left-padded to 32 bytes (`bytes32(uint256(uint160(address)))`), hex.
    pub subject: String,
    /// Score 0–100.
    #[serde(deserialize_with = "integral::de")]
    pub score: u8,
    /// Unix seconds when signed.
    #[serde(deserialize_with = "integral::de")]
    #[schemars(range(max = 18_446_744_073_709_551_615_u64))]
    pub timestamp: u64,
    /// The operator address that signs.
    pub operator: String,
    /// The snapshot's day as `YYYYMMDD`.
    #[serde(deserialize_with = "integral::de")]
    #[schemars(range(max = 18_446_744_073_709_551_615_u64))]
    pub nonce: u64,
}

/// Integers as JSON carries them: `64` and `64.0` alike (JSON Schema's `integer` admits both).
mod integral {
    use serde::Deserialize;
    use serde::de::{Deserializer, Error};

    pub fn de<'de, D: Deserializer<'de>, T: TryFrom<u64>>(d: D) -> Result<T, D::Error> {
        let n = serde_json::Number::deserialize(d)?;
        let v = match (n.as_u64(), n.as_f64()) {
            (Some(v), _) => v,
            // `u64::MAX as f64` is 2^64, one past the largest u64: excluded.
            (None, Some(f)) if f.fract() == 0.0 && (0.0..u64::MAX as f64).contains(&f) => f as u64,
            _ => return Err(D::Error::custom(format!("expected a non-negative integer, got {n}"))),
        };
        T::try_from(v).map_err(|_| D::Error::custom(format!("{v} is out of range")))
    }

    pub fn de_opt<'de, D: Deserializer<'de>, T: TryFrom<u64>>(d: D) -> Result<Option<T>, D::Error> {
        let n = Option::<serde_json::Number>::deserialize(d)?;
        match n {
            None => Ok(None),
            Some(n) => de(serde_json::Value::Number(n)).map(Some).map_err(D::Error::custom),
        }
    }
}

/// One EIP-712 field.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
pub struct Eip712FieldV1 {
    /// Name.
    pub name: String,
    /// Solidity type.
    #[serde(rename = "type")]
    pub kind: String,
}

/// The EIP-712 domain.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct Eip712DomainV1 {
    /// `agentrep`.
    pub name: String,
    /// `1`.
    pub version: String,
    /// The chain id (Base, 8453).
    pub chain_id: u64,
}

/// What a verifier needs besides the message.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct Eip712V1 {
    /// The domain (no `verifyingContract`: portable).
    pub domain: Eip712DomainV1,
    /// `{"Attestation": [...]}`.
    pub types: BTreeMap<String, Vec<Eip712FieldV1>>,
    /// `Attestation`.
    pub primary_type: String,
}

/// `GET /verify-spec`: everything a verifier needs to check this deployment's attestations.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct VerifySpecV1 {
    /// `agentrep-verify-spec-v1`.
    pub version: String,
    /// The EIP-712 domain, types and primary type signed.
    pub eip712: Eip712V1,
    /// The primary type's encoding, e.g. `Attestation(string version,…)`.
    pub type_string: String,
    /// keccak256 of `typeString`.
    pub type_hash: String,
    /// The `version` field of every attestation.
    pub attestation_version: String,
    /// The `subjectType` field of every attestation.
    pub subject_type: String,
    /// How `subject`, `nonce` and `timestamp` are formed.
    pub fields: BTreeMap<String, String>,
    /// The address a valid signature recovers to; null when this deployment signs nothing.
    pub operator: Option<String>,
    /// The key was generated for a demo: its signatures name nobody.
    pub demo_key: bool,
    /// The operator's deployed `ScoreVerifier` (`verify(Attestation, signature)`), null when none
    /// is named.
    pub verifier_contract: Option<String>,
    /// Longest an attestation is fresh, seconds.
    pub max_age_sec: u64,
    /// Largest clock skew into the future accepted, seconds.
    pub future_skew_sec: u64,
    /// `POST` here with `{payload, signature, minScore?}` to verify server-side.
    pub verify_url: String,
}

/// How to check an attestation.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct VerifyHintsV1 {
    /// The operator address a valid signature recovers to.
    pub operator: String,
    /// Longest an attestation is fresh, seconds.
    pub max_age_sec: u64,
    /// `POST` here with `{payload, signature, minScore?}`.
    pub verify_url: String,
    /// What the signature is, and how to check it off chain and on chain.
    pub how: String,
}

/// `GET /attestation/{address}`: a signed attestation, or a refusal (`signed: false`).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct AttestationV1 {
    /// `1`.
    pub version: String,
    /// The wallet.
    pub address: String,
    /// Whether a signature is given.
    pub signed: bool,
    /// The score (null when unmeasured).
    pub score: Option<u8>,
    /// The snapshot it is read from.
    pub snapshot: String,
    /// The signed message (signed attestations only).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub payload: Option<AttestationPayloadV1>,
    /// 65-byte r‖s‖v, hex (signed attestations only).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub signature: Option<String>,
    /// Domain and types (signed attestations only).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub eip712: Option<Eip712V1>,
    /// How to verify (signed attestations only).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub verify_hints: Option<VerifyHintsV1>,
    /// The signing key was generated for a demo: it proves nothing about who runs this.
    pub demo_key: bool,
    /// Why no signature (refusals only): `score-unmeasured`, `score-built-on-incomplete-read`,
    /// `signing-not-configured`.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub reason: Option<String>,
    /// The refusal in words.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub detail: Option<String>,
    /// When asking again may help (refusals only).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub retry: Option<String>,
    /// The score's sources, with `BASIS:` annotations and `DEGRADED:` stale sources.
    #[schemars(with = "Vec<String>")]
    pub sources: Vec<SourceNote>,
}

/// `GET /auto-attest-status/{address}`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct AutoAttestStatusV1 {
    /// `agentrep-auto-attest-status-v1`.
    pub version: String,
    /// The wallet.
    pub address: String,
    /// An attestation of it was ever signed.
    pub attested: bool,
    /// The newest one is under 24 hours old.
    pub fresh: bool,
    /// Its score.
    pub score: Option<u8>,
    /// When it was signed (ISO 8601).
    pub attested_at: Option<String>,
    /// Its age, seconds.
    pub age_sec: Option<u64>,
    /// The attested tier holds while fresh.
    pub tier: String,
    /// Fetch a new one here.
    pub attestation_url: String,
    /// `refetch` when not fresh, `ok` otherwise.
    pub action: String,
}

/// `POST /verify` body.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct VerifyRequestV1 {
    /// The signed message.
    pub payload: AttestationPayloadV1,
    /// The signature, hex.
    pub signature: String,
    /// The score it must reach.
    #[serde(default, deserialize_with = "integral::de_opt")]
    pub min_score: Option<u8>,
}

/// `POST /verify`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct VerifyResponseV1 {
    /// Signed by the operator, of this service's type and domain, fresh and not future-dated.
    pub valid: bool,
    /// The signature recovers to the operator.
    pub signer_match: bool,
    /// The recovered signer.
    pub signer: Option<String>,
    /// Age, seconds (negative: future-dated).
    pub age_sec: i64,
    /// Under 24 hours old and not more than 5 minutes in the future.
    pub fresh: bool,
    /// The attested score.
    pub score: u8,
    /// `score ≥ minScore` (true without `minScore`).
    pub passes_threshold: bool,
    /// The threshold asked for.
    pub min_score: Option<u8>,
    /// Why it is not valid, or what was checked.
    pub hint: String,
}

/// A JSON Feed 1.1 author.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
pub struct FeedAuthorV1 {
    /// Name.
    pub name: String,
}

/// A JSON Feed 1.1 item: one newly attested agent.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
pub struct FeedItemV1 {
    /// `attestation:<address>:<timestamp>`.
    pub id: String,
    /// The agent's attestation.
    pub url: String,
    /// `<address> attested at <score>`.
    pub title: String,
    /// Score, snapshot and signer.
    pub content_text: String,
    /// ISO 8601.
    pub date_published: String,
    /// `attested`, and the score band.
    pub tags: Vec<String>,
}

/// `GET /attestations.json`: JSON Feed 1.1.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
pub struct AttestationFeedV1 {
    /// `https://jsonfeed.org/version/1.1`.
    pub version: String,
    /// Title.
    pub title: String,
    /// This feed's URL.
    pub feed_url: String,
    /// What it lists.
    pub description: String,
    /// The operator.
    pub authors: Vec<FeedAuthorV1>,
    /// Newest first, one per agent.
    pub items: Vec<FeedItemV1>,
}

/// One row of `/attestation-engagement`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct EngagementEntryV1 {
    /// Rank, 1 first.
    pub rank: u32,
    /// The wallet.
    pub address: String,
    /// Fetches of its attestation.
    pub fetches: u64,
    /// The last one (ISO 8601).
    pub last_fetched_at: String,
}

/// `GET /attestation-engagement`: ranking by attestation fetches.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct AttestationEngagementV1 {
    /// `agentrep-attestation-engagement-v1`.
    pub version: String,
    /// Rows.
    pub count: u32,
    /// Most fetched first.
    pub ranking: Vec<EngagementEntryV1>,
    /// What the count means.
    pub note: String,
}
