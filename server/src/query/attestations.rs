//! What an attestation of a wallet says, read from the snapshot: its measured score, or why none
//! can be signed (the original's refusal shape). Signing and keeping them is the handler's.

use agentrep_model::Address;
use agentrep_model::sources::SourceNote;
use agentrep_publish::layout::WalletDoc;
use agentrep_publish::wire::{AttestationPayloadV1, AttestationV1, ScoreBasis, ScorePayloadV1, VerifyHintsV1};

use crate::attest::{self, MAX_AGE_SECS, Operator};
use crate::{ApiError, ServedSnapshot};

/// A wallet's score as an attestation would state it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Attestable {
    /// A measured score: signable.
    Measured {
        /// The score.
        score: u8,
        /// Its sources.
        sources: Vec<SourceNote>,
    },
    /// Nothing to sign, and why (`reason`, `detail`).
    Refused {
        /// Machine-readable reason.
        reason: &'static str,
        /// In words.
        detail: String,
        /// The score, if any.
        score: Option<u8>,
        /// Its sources.
        sources: Vec<SourceNote>,
    },
}

/// The snapshot's day as the attestation nonce (`2026-11-19` → `20261119`).
pub fn nonce_of(snap: &ServedSnapshot) -> u64 {
    snap.manifest.snapshot_date.replace('-', "").parse().unwrap_or(0)
}

/// What can be attested of `a`.
///
/// # Errors
/// `not_indexed` for a wallet the snapshot does not score.
pub fn attestable(snap: &ServedSnapshot, a: &Address) -> Result<Attestable, ApiError> {
    let blob = snap.wallet(WalletDoc::Score, a.as_str())?.ok_or_else(|| ApiError::NotIndexed(a.to_string()))?;
    let doc: ScorePayloadV1 = serde_json::from_slice(&blob.body)
        .map_err(|e| ApiError::NotAvailable { code: "snapshot_unreadable", message: e.to_string() })?;
    let degraded = doc.sources.iter().any(SourceNote::is_degraded) || doc.score_basis == ScoreBasis::Degraded;
    Ok(match doc.score {
        Some(score) if doc.score_basis == ScoreBasis::Measured && !degraded => {
            Attestable::Measured { score, sources: doc.sources }
        }
        score if degraded => Attestable::Refused {
            reason: "score-built-on-incomplete-read",
            detail: "a required source failed for this snapshot: the score is not signed until it is read whole"
                .to_owned(),
            score,
            sources: doc.sources,
        },
        score => Attestable::Refused {
            reason: "score-unmeasured",
            detail: format!("the score is not measured (basis {}): nothing to attest", doc.score_basis),
            score,
            sources: doc.sources,
        },
    })
}

/// The refusal body (HTTP 200, `signed: false`, as the original).
pub fn refusal(
    snap: &ServedSnapshot,
    a: &Address,
    reason: &str,
    detail: String,
    score: Option<u8>,
    sources: Vec<SourceNote>,
    demo_key: bool,
) -> AttestationV1 {
    AttestationV1 {
        version: "1".to_owned(),
        address: a.to_string(),
        signed: false,
        score,
        snapshot: snap.id.clone(),
        payload: None,
        signature: None,
        eip712: None,
        verify_hints: None,
        demo_key,
        reason: Some(reason.to_owned()),
        retry: Some(match reason {
            "signing-not-configured" => "not on this deployment: it has no operator key".to_owned(),
            _ => "after the next daily rebuild".to_owned(),
        }),
        detail: Some(detail),
        sources,
    }
}

/// A signed attestation's body.
pub fn signed(
    snap: &ServedSnapshot,
    a: &Address,
    operator: &Operator,
    payload: AttestationPayloadV1,
    signature: String,
    sources: Vec<SourceNote>,
    verify_url: String,
) -> AttestationV1 {
    AttestationV1 {
        version: "1".to_owned(),
        address: a.to_string(),
        signed: true,
        score: Some(payload.score),
        snapshot: snap.id.clone(),
        payload: Some(payload),
        signature: Some(signature),
        eip712: Some(attest::eip712()),
        verify_hints: Some(VerifyHintsV1 {
            operator: operator.address(),
            max_age_sec: MAX_AGE_SECS,
            verify_url,
            how: "EIP-712 typed data (domain and types above; primaryType Attestation): recover the signer \
                  (viem recoverTypedDataAddress) and compare it with the operator, or call \
                  verifiedScore/requireMinScore on a ScoreVerifier contract deployed with this operator \
                  (contracts/src/ScoreVerifier.sol), or POST it to verifyUrl. Fresh for 24 hours."
                .to_owned(),
        }),
        demo_key: operator.demo,
        reason: None,
        detail: None,
        retry: None,
        sources,
    }
}
