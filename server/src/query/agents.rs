//! Per-wallet reads that are computed rather than served as published: the preliminary signals
//! of an unknown address, batch lookups, and the shields.io badge.

use agentrep_model::{Address, FlagKey, METHODOLOGY_VERSION};
use agentrep_publish::wire::*;
use schemars::JsonSchema;
use serde::Deserialize;

use std::sync::Arc;

use agentrep_publish::layout::WalletDoc;
use bytes::Bytes;

use crate::blob::Blob;
use crate::http::params::{Bounded, Flag, address};
use crate::{ApiError, ServedSnapshot};

/// `GET /score/{address}` query.
#[derive(Debug, Default, Deserialize, JsonSchema)]
pub struct ScoreQuery {
    /// `1` asks for a paid live re-score (402 until paid).
    #[serde(default)]
    pub live: Flag,
    /// `1` asks for the full profile a paid live re-score unlocked (its receipt in
    /// `X-Agentrep-Receipt`).
    #[serde(default)]
    pub full: Flag,
}

/// `GET /history/{address}` query.
#[derive(Debug, Default, Deserialize, JsonSchema)]
pub struct HistoryQuery {
    /// Days of history, newest last.
    #[serde(default)]
    pub days: Bounded<30, 1, 90>,
}

/// The last `days` days of an indexed seller's published history, kept until the snapshot is
/// replaced.
pub fn history(snap: &ServedSnapshot, a: &Address, q: &HistoryQuery) -> Result<Arc<Blob>, ApiError> {
    let days = q.days.get();
    let blob = snap.wallet(WalletDoc::History, a.as_str())?.ok_or_else(|| ApiError::NotIndexed(a.to_string()))?;
    snap.history_views.get_or_make(&(a.as_str().to_owned(), days), || {
        let mut view: HistoryV1 =
            serde_json::from_slice(&blob.body).map_err(|e| ApiError::snapshot_unreadable("history", &e))?;
        let keep = view.series.len().min(days as usize);
        view.series.drain(..view.series.len() - keep);
        view.days = days;
        view.count = view.series.len() as u32;
        Ok(Blob::new(Bytes::from(serde_json::to_vec(&view).expect("serialises"))))
    })
}

/// A per-wallet read: the published document of an indexed wallet, or one computed for any other.
#[derive(Debug)]
pub enum WalletRead<T> {
    /// The bytes as served (the overlay's rewrite when it lowers the seller), with their ETag.
    Published(Arc<Blob>),
    /// Computed now.
    Computed(T),
}

/// The score of an address: published for an indexed seller, preliminary signals otherwise.
pub fn score(snap: &ServedSnapshot, base: &str, a: &Address) -> Result<WalletRead<UnindexedScoreV1>, ApiError> {
    Ok(match snap.wallet(WalletDoc::Score, a.as_str())? {
        Some(blob) => WalletRead::Published(blob),
        None => WalletRead::Computed(unindexed_score(snap, base, a)),
    })
}

/// The preflight of an address: published for an indexed seller, computed otherwise.
pub fn preflight(snap: &ServedSnapshot, a: &Address) -> Result<WalletRead<UnindexedPreflightV1>, ApiError> {
    Ok(match snap.wallet(WalletDoc::Preflight, a.as_str())? {
        Some(blob) => WalletRead::Published(blob),
        None => WalletRead::Computed(unindexed_preflight(snap, a)),
    })
}

/// The trust shield of an indexed seller (as the overlay rewrote it, when it lowers the seller).
pub fn trust_shield(snap: &ServedSnapshot, a: &Address) -> Result<WalletRead<std::convert::Infallible>, ApiError> {
    snap.wallet(WalletDoc::Shield, a.as_str())?
        .map(WalletRead::Published)
        .ok_or_else(|| ApiError::NotIndexed(a.to_string()))
}

/// Largest `POST /scores` batch (seed §8).
pub const MAX_BATCH: usize = 200;

/// The known facts about an address that is not an indexed seller.
pub fn cross_references(snap: &ServedSnapshot, a: &Address) -> CrossReferencesV1 {
    let c = snap.counterparties.get(a.as_str());
    let c = c.as_ref();
    CrossReferencesV1 {
        payments_made: c.map_or(0, |c| c.payments),
        sellers_paid: c.map_or(0, |c| c.sellers_paid),
        addresses_funded: c.map_or(0, |c| c.funded),
        denylisted: c.is_some_and(|c| c.denylisted),
        deployer: snap.index.deployer(a.as_str()).is_some(),
    }
}

/// The score read of an address that is not an indexed seller: preliminary signals, never null.
pub fn unindexed_score(snap: &ServedSnapshot, base: &str, a: &Address) -> UnindexedScoreV1 {
    let xref = cross_references(snap, a);
    let mut next_actions = vec!["not a low score: this wallet sells nothing agentrep has indexed".to_owned()];
    if xref.deployer {
        next_actions.push(format!("see the deployer profile at {base}/deployer/{a}"));
    }
    if xref.denylisted {
        next_actions.push("do not pay: the address is on the denylist".to_owned());
    } else {
        let price = crate::payment::prices::LIVE_RESCORE.price_text();
        next_actions.push(format!("a paid live re-score (?live=1, {price} USDC) reads its sources now"));
    }
    UnindexedScoreV1 {
        version: version("score"),
        agent_address: a.to_string(),
        score: None,
        score_basis: ScoreBasis::NotIndexed,
        decision: agentrep_model::decision::unindexed(xref.denylisted).0,
        preliminary: PreliminaryV1 {
            address_class: None,
            proxy_implementation: None,
            code_check:
                "EOA/contract detection and ERC-1167 unwrap need a chain RPC, which this deployment does not configure"
                    .to_owned(),
            cross_references: xref,
            next_actions,
        },
        metrics: UnmeasuredMetricsV1::default(),
        description: None,
        resource_path: None,
        price: None,
        health: None,
        snapshot_date: snap.date().to_owned(),
        source: snap.id.clone(),
        billed: "free".to_owned(),
        methodology: METHODOLOGY_VERSION.to_owned(),
    }
}

/// The preflight read of an address that is not an indexed seller.
pub fn unindexed_preflight(snap: &ServedSnapshot, a: &Address) -> UnindexedPreflightV1 {
    let xref = cross_references(snap, a);
    let mut signals = vec!["not indexed: no score (not a low score)".to_owned()];
    if xref.payments_made > 0 {
        signals.push(format!("paid {} settlements to {} indexed sellers", xref.payments_made, xref.sellers_paid));
    }
    if xref.denylisted {
        signals.push("denylisted".to_owned());
    }
    let (decision, color) = agentrep_model::decision::unindexed(xref.denylisted);
    UnindexedPreflightV1 {
        version: version("preflight"),
        address: a.to_string(),
        decision,
        score: None,
        score_basis: ScoreBasis::NotIndexed,
        color,
        flags: if xref.denylisted { vec![FlagKey::Denylisted] } else { Vec::new() },
        signals,
        snapshot_date: snap.date().to_owned(),
        methodology: METHODOLOGY_VERSION.to_owned(),
    }
}

/// `POST /scores` body.
#[derive(Debug, Deserialize, JsonSchema)]
pub struct BatchScoresRequest {
    /// Addresses to look up (1 to 200; duplicates and letter case are folded).
    #[schemars(length(min = 1, max = 200), inner(pattern(r"^0x[a-fA-F0-9]{40}$")))]
    pub addresses: Vec<String>,
}

/// Scores of up to 200 addresses at once.
pub fn batch_scores(snap: &ServedSnapshot, req: &BatchScoresRequest) -> Result<BatchScoresV1, ApiError> {
    if req.addresses.is_empty() || req.addresses.len() > MAX_BATCH {
        return Err(ApiError::param(
            "addresses",
            format!("addresses must hold 1 to {MAX_BATCH} addresses, got {}", req.addresses.len()),
        ));
    }
    let mut seen = std::collections::HashSet::new();
    let mut results = Vec::with_capacity(req.addresses.len());
    for (i, raw) in req.addresses.iter().enumerate() {
        let a = address(raw).map_err(|e| ApiError::param("addresses", format!("addresses[{i}]: {e}")))?;
        if !seen.insert(a.as_str().to_owned()) {
            continue;
        }
        let agent = snap.index.agent(a.as_str());
        let deployer = snap.index.deployer(a.as_str());
        let proofs: std::collections::BTreeSet<&str> = agent
            .map(|r| r.proofs.iter().map(String::as_str).collect::<Vec<_>>())
            .into_iter()
            .chain(deployer.map(|d| d.proofs.iter().map(String::as_str).collect()))
            .flatten()
            .collect();
        let registered = agent.is_some_and(|r| r.erc8004_registered);
        results.push(BatchScoreV1 {
            address: a.to_string(),
            agent_score: agent.and_then(|r| r.score),
            deployer_score: deployer.and_then(|d| d.score),
            proof_count: proofs.len() as u32,
            has_any_trust: !proofs.is_empty() || registered || agent.is_some_and(super::payable),
            decision: agent.map(|r| r.decision),
        });
    }
    Ok(BatchScoresV1 {
        version: version("scores"),
        count: results.len() as u32,
        results,
        snapshot_date: snap.date().to_owned(),
    })
}

/// The shields.io endpoint badge of an address.
pub fn shields_badge(snap: &ServedSnapshot, a: &Address) -> ShieldsEndpointV1 {
    let (message, color) = match snap.index.agent(a.as_str()) {
        Some(row) => (
            row.score.map_or_else(|| "unscored".to_owned(), |s| format!("{s}/100")),
            match row.shield.color {
                ShieldColor::Green => "brightgreen",
                ShieldColor::Yellow => "yellow",
                ShieldColor::Red => "red",
            },
        ),
        None => ("not indexed".to_owned(), "lightgrey"),
    };
    ShieldsEndpointV1 {
        schema_version: 1,
        label: "agentrep".to_owned(),
        message,
        color: color.to_owned(),
        cache_seconds: 300,
    }
}
