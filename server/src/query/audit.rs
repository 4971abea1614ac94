//! The paid audit of one indexed wallet: every published document of it, read from one snapshot
//! and unlocked (`gated: false`, `billed: "paid"`).

use agentrep_model::{Address, METHODOLOGY_VERSION};
use agentrep_publish::layout::WalletDoc;
use agentrep_publish::wire::{AuditV1, version};
use serde::de::DeserializeOwned;

use crate::{ApiError, ServedSnapshot};

fn doc<T: DeserializeOwned>(snap: &ServedSnapshot, kind: WalletDoc, a: &Address) -> Result<Option<T>, ApiError> {
    snap.wallet(kind, a.as_str())?
        .map(|blob| {
            serde_json::from_slice(&blob.body)
                .map_err(|e| ApiError::snapshot_unreadable(&format!("{kind:?} document"), &e))
        })
        .transpose()
}

/// Whether `a` can be audited (an indexed seller): checked before any payment is asked for.
pub fn auditable(snap: &ServedSnapshot, a: &Address) -> Result<(), ApiError> {
    match snap.wallet(WalletDoc::Score, a.as_str())? {
        Some(_) => Ok(()),
        None => Err(ApiError::NotIndexed(a.to_string())),
    }
}

/// The audit of an indexed seller at `now` (ISO 8601).
///
/// # Errors
/// `not_indexed` for a wallet the snapshot does not score.
pub fn audit(snap: &ServedSnapshot, a: &Address, now: String) -> Result<AuditV1, ApiError> {
    let missing = || ApiError::NotIndexed(a.to_string());
    let mut score: agentrep_publish::wire::ScorePayloadV1 = doc(snap, WalletDoc::Score, a)?.ok_or_else(missing)?;
    score.billed = "paid".to_owned();
    score.gated = false;
    score.note = "Paid audit: the full profile, unlocked.".to_owned();
    Ok(AuditV1 {
        version: version("audit"),
        agent_address: a.to_string(),
        audited_at: now,
        snapshot: snap.id.clone(),
        methodology: METHODOLOGY_VERSION.to_owned(),
        billed: "paid".to_owned(),
        score,
        preflight: doc(snap, WalletDoc::Preflight, a)?.ok_or_else(missing)?,
        trust_shield: doc(snap, WalletDoc::Shield, a)?.ok_or_else(missing)?,
        history: doc(snap, WalletDoc::History, a)?.ok_or_else(missing)?,
        deployer: doc(snap, WalletDoc::Deployer, a)?,
        unavailable: vec![
            "receipts: buyer receipts (POST /receipt) are not stored by this deployment yet".to_owned(),
            "live evidence: every section is the snapshot's; GET /score/{address}?live=1 re-scores the seller from evidence read now".to_owned(),
        ],
    })
}
