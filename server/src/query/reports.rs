//! The paid reports, read from one snapshot: the risk report's verdict, batch audits, a
//! creator's audit, a platform's token export and the full proofs export. Each says before any
//! payment whether it can be produced (`*_available`), so nothing is charged for an empty answer.

use agentrep_model::{Address, risk_verdict};
use agentrep_publish::layout::WalletDoc;
use agentrep_publish::wire::{
    AttestationV1, AuditBatchV1, AuditV1, ClawdExportV1, CreatorAuditV1, DeployerV1, ExportTokenV1, FlagV1,
    ProofsExportV1, RiskReportV1, ScorePayloadV1, ShieldPayloadV1, version,
};

use super::audit;
use super::directory::ProofsQuery;
use crate::{ApiError, ServedSnapshot};

/// Largest `POST /audit-batch`.
pub const MAX_AUDIT_BATCH: usize = 10;

fn doc<T: serde::de::DeserializeOwned>(snap: &ServedSnapshot, kind: WalletDoc, a: &Address) -> Option<T> {
    snap.wallet(kind, a.as_str()).ok().flatten().and_then(|b| serde_json::from_slice(&b.body).ok())
}

/// Whether `a` has anything to report on (it sells, or it launched tokens).
///
/// # Errors
/// `not_indexed` otherwise.
pub fn risk_available(snap: &ServedSnapshot, a: &Address) -> Result<(), ApiError> {
    if snap.wallet(WalletDoc::Score, a.as_str())?.is_some() || snap.wallet(WalletDoc::Deployer, a.as_str())?.is_some() {
        Ok(())
    } else {
        Err(ApiError::NotIndexed(a.to_string()))
    }
}

/// The risk report of `a`, with `attestation` (signed or refused) attached.
///
/// # Errors
/// `not_indexed` for an address that neither sells nor launched.
pub fn risk_report(snap: &ServedSnapshot, a: &Address, attestation: AttestationV1) -> Result<RiskReportV1, ApiError> {
    risk_available(snap, a)?;
    let score: Option<ScorePayloadV1> = doc(snap, WalletDoc::Score, a);
    let shield: Option<ShieldPayloadV1> = doc(snap, WalletDoc::Shield, a);
    let deployer: Option<DeployerV1> = doc(snap, WalletDoc::Deployer, a);
    let mut reasons = Vec::new();
    if let Some(s) = &score {
        reasons.push(format!(
            "as a seller: decision {} (score {}, shield {})",
            s.decision,
            s.score.map_or("unmeasured".to_owned(), |v| v.to_string()),
            s.trust_shield.color
        ));
    }
    if let Some(d) = &deployer {
        reasons.push(format!(
            "as a token deployer: {} ({} launches{})",
            d.verdict,
            d.launches.len(),
            if d.sketchy { ", sketchy" } else { "" }
        ));
        reasons.extend(d.reasons.iter().map(|r| format!("deployer: {r}")));
    }
    // The policy is the model's; the documents carry wire names, which name its closed sets.
    let verdict = risk_verdict(score.as_ref().map(|s| s.decision), deployer.as_ref().map(|d| d.verdict));
    let mut flags: Vec<FlagV1> = shield.map(|s| s.shield.flags).unwrap_or_default();
    flags.extend(deployer.iter().flat_map(|d| d.flags.iter().cloned()));
    Ok(RiskReportV1 {
        version: version("risk-report"),
        address: a.to_string(),
        verdict,
        reasons,
        score: score.as_ref().and_then(|s| s.score),
        decision: score.map(|s| s.decision),
        flags,
        deployer_verdict: deployer.map(|d| d.verdict),
        attestation,
        snapshot: snap.id.clone(),
        billed: "paid".to_owned(),
    })
}

/// The wallets of a batch, checked: 1 to [`MAX_AUDIT_BATCH`] addresses, at least one indexed.
///
/// # Errors
/// `invalid_addresses` for a bad list; `not_indexed` when none is indexed (nothing to sell).
pub fn audit_batch_wallets(snap: &ServedSnapshot, addresses: &[String]) -> Result<Vec<Address>, ApiError> {
    if addresses.is_empty() || addresses.len() > MAX_AUDIT_BATCH {
        return Err(ApiError::param("addresses", format!("send 1 to {MAX_AUDIT_BATCH} addresses")));
    }
    let mut wallets = Vec::with_capacity(addresses.len());
    for raw in addresses {
        let a = Address::parse(raw).map_err(|_| {
            ApiError::param("addresses", format!("'{raw}' is not an address matching ^0x[a-fA-F0-9]{{40}}$"))
        })?;
        if !wallets.contains(&a) {
            wallets.push(a);
        }
    }
    if !wallets.iter().any(|a| audit::auditable(snap, a).is_ok()) {
        return Err(ApiError::NotIndexed("none of the addresses".to_owned()));
    }
    Ok(wallets)
}

/// Audits of every indexed wallet of the batch.
///
/// # Errors
/// When a published document cannot be read.
pub fn audit_batch(snap: &ServedSnapshot, wallets: &[Address], now: &str) -> Result<AuditBatchV1, ApiError> {
    let mut audits: Vec<AuditV1> = Vec::new();
    let mut not_indexed = Vec::new();
    for a in wallets {
        match audit::auditable(snap, a) {
            Ok(()) => audits.push(audit::audit(snap, a, now.to_owned())?),
            Err(_) => not_indexed.push(a.to_string()),
        }
    }
    Ok(AuditBatchV1 { version: version("audit-batch"), audits, not_indexed, billed: "paid".to_owned() })
}

/// Whether `a` launched tokens.
///
/// # Errors
/// `not_indexed` otherwise.
pub fn creator_available(snap: &ServedSnapshot, a: &Address) -> Result<(), ApiError> {
    snap.wallet(WalletDoc::Deployer, a.as_str())?.map(|_| ()).ok_or_else(|| ApiError::NotIndexed(a.to_string()))
}

/// The creator audit of a deployer.
///
/// # Errors
/// `not_indexed` for an address that launched nothing.
pub fn creator_audit(snap: &ServedSnapshot, a: &Address) -> Result<CreatorAuditV1, ApiError> {
    let deployer: DeployerV1 = doc(snap, WalletDoc::Deployer, a).ok_or_else(|| ApiError::NotIndexed(a.to_string()))?;
    let mut proofs = snap.directory.proofs_of(a.as_str());
    proofs.extend(deployer.proofs.iter().cloned());
    proofs.sort();
    proofs.dedup();
    let mut launches = deployer.launches.clone();
    launches.sort_by_key(|l| l.age_days);
    Ok(CreatorAuditV1 {
        version: version("creator-audit"),
        address: a.to_string(),
        tokens_launched: deployer.launches.len() as u32,
        sample_tokens: launches.iter().take(10).map(|l| l.token.clone()).collect(),
        trader_tier: None,
        proofs,
        deployer,
        billed: "paid".to_owned(),
    })
}

/// The launch platforms the snapshot knows.
pub fn platforms(snap: &ServedSnapshot) -> Vec<String> {
    let mut all: Vec<String> = snap.index.deployers.iter().flat_map(|d| d.platforms.keys().cloned()).collect();
    all.sort();
    all.dedup();
    all
}

/// Every indexed token of `platform`.
///
/// # Errors
/// `unknown_name` for a platform with no indexed launch (before any payment).
pub fn clawd_export(snap: &ServedSnapshot, platform: &str) -> Result<ClawdExportV1, ApiError> {
    let known = platforms(snap);
    if !known.iter().any(|p| p == platform) {
        return Err(ApiError::UnknownName(format!(
            "no indexed launch on platform '{platform}'; platforms: {}",
            known.join(", ")
        )));
    }
    let tokens: Vec<ExportTokenV1> = snap
        .index
        .deployers
        .iter()
        .flat_map(|d| {
            d.tokens.iter().filter(|t| t.platform == platform).map(move |t| ExportTokenV1 {
                token: t.token.clone(),
                creator: d.address.clone(),
                platform: t.platform.clone(),
                outcome: t.outcome,
                age_days: t.age_days,
                creator_score: d.score,
                creator_verdict: d.verdict,
            })
        })
        .collect();
    Ok(ClawdExportV1 {
        version: version("clawd-export"),
        platform: platform.to_owned(),
        count: tokens.len() as u32,
        tokens,
        snapshot: snap.id.clone(),
        billed: "paid".to_owned(),
    })
}

/// Every verified proof (of one type, or all), without a page cap.
pub fn proofs_export(snap: &ServedSnapshot, q: &ProofsQuery) -> ProofsExportV1 {
    let dir = &snap.directory;
    let kind = q.kind.map(|k| k.0.as_str().to_owned());
    let proofs: Vec<_> =
        dir.rows.proofs.iter().filter(|p| kind.as_ref().is_none_or(|k| &p.kind == k)).cloned().collect();
    ProofsExportV1 {
        version: version("proofs-export"),
        kind,
        count: proofs.len() as u32,
        proofs,
        snapshot: snap.id.clone(),
        billed: "paid".to_owned(),
    }
}
