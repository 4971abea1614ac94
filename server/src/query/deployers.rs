//! Deployer lists: the best scored, the sketchy serial deployers, and per-platform rug rates.

use std::collections::BTreeMap;
use std::sync::Arc;

use agentrep_publish::wire::*;
use schemars::JsonSchema;
use serde::Deserialize;

use agentrep_model::Address;
use agentrep_publish::layout::WalletDoc;

use crate::blob::Blob;
use crate::http::params::Bounded;
use crate::{ApiError, ServedSnapshot};

/// `GET /deployers/top` and `/deployers/sketchy` query.
#[derive(Debug, Default, Deserialize, JsonSchema)]
pub struct DeployersQuery {
    /// Deployers to return.
    #[serde(default)]
    pub limit: Bounded<20, 1, 100>,
}

use agentrep_model::deployer::params::SERIAL_LAUNCHES;

fn pct(part: u32, whole: u32) -> Option<f64> {
    (whole > 0).then(|| (f64::from(part) * 1000.0 / f64::from(whole)).round() / 10.0)
}

fn entry(base: &str, d: &DeployerRowV1) -> DeployerListEntryV1 {
    DeployerListEntryV1 {
        address: d.address.clone(),
        score: d.score,
        verdict: d.verdict,
        launches: d.launches,
        rugged: d.rugged,
        rug_rate_pct: pct(d.rugged, d.decided),
        proof_count: d.proofs.len() as u32,
        profile: format!("{base}/deployer/{}", d.address),
    }
}

/// The published profile of a deployer.
pub fn deployer(snap: &ServedSnapshot, a: &Address) -> Result<Arc<Blob>, ApiError> {
    snap.wallet(WalletDoc::Deployer, a.as_str())?.ok_or_else(|| ApiError::NotIndexed(a.to_string()))
}

/// The published buyer-trust verdict of a launched token.
pub fn buyer_trust(snap: &ServedSnapshot, token: &Address) -> Result<Arc<Blob>, ApiError> {
    snap.wallet(WalletDoc::BuyerTrust, token.as_str())?.ok_or_else(|| ApiError::NotIndexed(format!("token {token}")))
}

/// Scored deployers, score descending, then more launches, then address.
pub fn top(snap: &ServedSnapshot, base: &str, q: &DeployersQuery) -> DeployersTopV1 {
    let mut rows: Vec<&DeployerRowV1> = snap.index.deployers.iter().filter(|d| d.score.is_some()).collect();
    rows.sort_by(|a, b| {
        b.score.cmp(&a.score).then(b.launches.cmp(&a.launches)).then_with(|| a.address.cmp(&b.address))
    });
    let deployers: Vec<_> = rows.into_iter().take(q.limit.get() as usize).map(|d| entry(base, d)).collect();
    DeployersTopV1 { version: version("deployers-top"), count: deployers.len() as u32, deployers }
}

/// Serial deployers whose decided launches are mostly rugged (the model's `sketchy` rule),
/// most rugs first.
pub fn sketchy(snap: &ServedSnapshot, base: &str, q: &DeployersQuery) -> DeployersSketchyV1 {
    let mut rows: Vec<&DeployerRowV1> =
        snap.index.deployers.iter().filter(|d| d.sketchy && d.launches >= SERIAL_LAUNCHES).collect();
    rows.sort_by(|a, b| {
        b.rugged.cmp(&a.rugged).then(b.launches.cmp(&a.launches)).then_with(|| a.address.cmp(&b.address))
    });
    let sketchy: Vec<_> = rows.into_iter().take(q.limit.get() as usize).map(|d| entry(base, d)).collect();
    DeployersSketchyV1 {
        version: version("deployers-sketchy"),
        count: sketchy.len() as u32,
        sketchy,
        rule: format!("{SERIAL_LAUNCHES} or more launches, and more than half of the decided ones rugged"),
    }
}

/// Per platform: deployers, launches, the decided sample, and its rug rate.
pub fn stats(snap: &ServedSnapshot) -> DeployersStatsV1 {
    #[derive(Default)]
    struct Acc {
        deployers: u32,
        launches: u32,
        decided: u32,
        rugged: u32,
    }
    let mut by: BTreeMap<&str, Acc> = BTreeMap::new();
    for d in &snap.index.deployers {
        for (platform, launches) in &d.platforms {
            let acc = by.entry(platform.as_str()).or_default();
            acc.deployers += 1;
            acc.launches += launches;
            acc.decided += d.decided_by_platform.get(platform).copied().unwrap_or_default();
            acc.rugged += d.rugged_by_platform.get(platform).copied().unwrap_or_default();
        }
    }
    DeployersStatsV1 {
        version: version("deployers-stats"),
        total: snap.index.deployers.len() as u32,
        platforms: by
            .into_iter()
            .map(|(platform, a)| PlatformStatsV1 {
                platform: platform.to_owned(),
                deployers: a.deployers,
                launches: a.launches,
                sample_size: a.decided,
                rugged: a.rugged,
                rug_rate_pct: pct(a.rugged, a.decided),
            })
            .collect(),
    }
}

/// An agent token's operator (the wallet that launched it) and the operator's reputation as a
/// deployer and, when it sells an indexed service, as a seller.
pub fn token_rep(
    snap: &ServedSnapshot,
    base: &str,
    token: &agentrep_model::Address,
) -> Result<TokenRepV1, crate::ApiError> {
    let (deployer, launch) =
        snap.index.launch_of(token.as_str()).ok_or_else(|| crate::ApiError::NotIndexed(format!("token {token}")))?;
    let seller = snap.index.agent(&deployer.address);
    Ok(TokenRepV1 {
        version: version("virtuals-rep"),
        token: token.to_string(),
        platform: launch.platform.clone(),
        outcome: launch.outcome,
        age_days: launch.age_days,
        operator: deployer.address.clone(),
        deployer_score: deployer.score,
        deployer_verdict: deployer.verdict,
        agent_score: seller.and_then(|s| s.score),
        agent_decision: seller.map(|s| s.decision),
        profile: format!("{base}/deployer/{}", deployer.address),
        note: format!(
            "the operator is the wallet that launched the token on {}; the launches indexed today come from the Clanker and Zora factories (Virtuals bonding launches are not read yet), and the signed attestation comes with payments",
            launch.platform
        ),
    })
}
