//! The overlay as served: the fast evidence a scheduler published between rebuilds
//! (`current-overlay`, `SnapshotStore::publish_overlay`), applied to the snapshot it amends.
//!
//! Applying one makes a new [`ServedSnapshot`] ([`lowered`]): for each seller the overlay names,
//! its index row, leaderboard entry, score, preflight and trust-shield documents and badge are
//! rewritten once, here; the claims crawled since the snapshot join the listings the URL
//! preflight reads; every cache starts empty. The server then serves that snapshot in place of the
//! published one, so every read that answers a decision (free or paid, JSON, HTML or SVG, HTTP or
//! MCP) answers the lowered one, and none can bypass it: there is no other snapshot to read.
//!
//! An overlay amends the snapshot whose id *and* digest it names, and only ever lowers what that
//! snapshot published: the decision is the lower of the two, the shield the darker, the flags the
//! union. A snapshot republished under the same id has another digest and gets no overlay of the
//! one it replaced.

use std::collections::HashMap;
use std::sync::Arc;
use std::time::Instant;

use agentrep_model::decision::{Decision, ShieldColor};
use agentrep_publish::layout::WalletDoc;
use agentrep_publish::store::SnapshotStore;
use agentrep_publish::wire::{
    AgentRowV1, LeaderboardEntryV1, OverlayNoteV1, OverlaySellerV1, OverlayV1, PreflightV1, ScorePayloadV1,
    ShieldPayloadV1, TrustShieldV1,
};
use bytes::Bytes;
use tracing::{info, warn};

use crate::ServedSnapshot;
use crate::blob::{Blob, EntryJson};

/// An overlay a served snapshot is lowered by.
#[derive(Debug)]
pub struct AppliedOverlay {
    /// The overlay file's name (what `current-overlay` pointed at).
    pub name: String,
    /// The overlay as published.
    pub overlay: OverlayV1,
}

impl AppliedOverlay {
    /// What the overlay says of `address`.
    pub fn seller(&self, address: &str) -> Option<&OverlaySellerV1> {
        self.overlay.sellers.get(address)
    }

    /// The note a lowered document carries.
    fn note(&self, seller: &OverlaySellerV1) -> OverlayNoteV1 {
        OverlayNoteV1 {
            as_of: self.overlay.as_of.clone(),
            published_decision: seller.published_decision,
            reason: seller.reason.clone(),
        }
    }
}

/// What the server should serve for `published` given the store's `current-overlay`: `None` when
/// that is what it serves already (`served`), else the snapshot to serve (the published one when
/// the overlay amends another snapshot or cannot be read, the lowered one when it amends this).
/// `checked` remembers the (overlay, snapshot digest) pair last read, so an overlay that amends
/// nothing is read once, not on every reload tick.
pub fn refresh(
    published: &Arc<ServedSnapshot>,
    served: &Arc<ServedSnapshot>,
    store: &SnapshotStore,
    checked: &mut Option<(String, String)>,
) -> Option<Arc<ServedSnapshot>> {
    let Some(name) = store.current_overlay_name() else {
        return served.overlay.is_some().then(|| published.clone());
    };
    let pair = (name.clone(), published.digest.clone());
    if checked.as_ref() == Some(&pair) {
        return None;
    }
    let Some(overlay) = store.current_overlay() else {
        warn!(target: "server::reload", overlay = %name, "Overlay not readable; keeping the one applied.");
        return None;
    };
    *checked = Some(pair);
    let amends = overlay.snapshot_id == published.id && overlay.snapshot_digest.as_deref() == Some(&published.digest);
    if !amends {
        // An overlay of another snapshot, or of this id as it was before it was republished (the
        // scheduler publishes the new snapshot's soon).
        return served.overlay.is_some().then(|| published.clone());
    }
    let started = Instant::now();
    let lowered = lowered(published, AppliedOverlay { name, overlay });
    info!(target: "server::reload", overlay = %lowered.overlay.as_ref().map_or("", |o| &o.name),
        sellers = lowered.overlay.as_ref().map_or(0, |o| o.overlay.sellers.len()),
        ms = started.elapsed().as_millis() as u64, "Overlay applied.");
    Some(Arc::new(lowered))
}

/// `published` served with `applied`: the one function every lowered answer comes from.
pub fn lowered(published: &ServedSnapshot, applied: AppliedOverlay) -> ServedSnapshot {
    let applied = Arc::new(applied);
    let sellers = &applied.overlay.sellers;
    let mut index = (*published.index).clone();
    index.lower_rows(|row| {
        if let Some(seller) = sellers.get(&row.address) {
            lower_row(row, seller);
        }
    });
    // Only the entries of lowered sellers are parsed and written again.
    let entries = published
        .entries
        .iter()
        .map(|e| {
            sellers.contains_key(&e.pay_to).then(|| lowered_entry(e, &index)).flatten().unwrap_or_else(|| e.clone())
        })
        .collect();
    let mut docs = HashMap::new();
    for (address, seller) in sellers {
        let note = applied.note(seller);
        for doc in [WalletDoc::Score, WalletDoc::Preflight, WalletDoc::Shield] {
            let Some(body) = published.published(doc, address).ok().flatten() else { continue };
            if let Some(body) = rewrite(doc, &body.body, seller, &note) {
                docs.insert((doc, address.clone()), Arc::new(Blob::new(Bytes::from(body))));
            }
        }
        if let Some(row) = index.agent(address) {
            let value = row.score.map_or_else(|| "unscored".to_owned(), |v| format!("{v}/100"));
            let svg = agentrep_publish::svg::badge(&value, Some(row.shield.color));
            docs.insert((WalletDoc::Badge, address.clone()), Arc::new(Blob::new(Bytes::from(svg))));
        }
    }
    let directory =
        (!applied.overlay.listings.is_empty()).then(|| published.directory.with_listings(&applied.overlay.listings));
    published.lowered(applied, index, entries, docs, directory)
}

/// The published decision lowered by the overlay's (never raised).
fn lower(published: Decision, seller: &OverlaySellerV1) -> Decision {
    published.min(seller.decision)
}

/// The darker of the published colour and the overlay's.
fn darker(published: ShieldColor, seller: &OverlaySellerV1) -> ShieldColor {
    published.max(seller.color)
}

/// An index row as the overlay says it now.
fn lower_row(row: &mut AgentRowV1, seller: &OverlaySellerV1) {
    row.decision = lower(row.decision, seller);
    darken(&mut row.shield, seller);
}

/// A leaderboard entry of a seller the overlay lowered, with the lowered decision.
fn lowered_entry(entry: &EntryJson, index: &crate::query::AgentIndex) -> Option<EntryJson> {
    let mut e: LeaderboardEntryV1 = serde_json::from_str(entry.with_sparkline.get()).ok()?;
    let row = index.agent(&e.pay_to.to_ascii_lowercase())?;
    if row.decision == e.decision {
        return None;
    }
    e.decision = row.decision;
    Some(EntryJson::of(&e))
}

/// One published document of `seller` as the overlay says it now; `None` for a kind it does not
/// rewrite or a body that does not parse (then the published one stays served).
fn rewrite(doc: WalletDoc, body: &[u8], seller: &OverlaySellerV1, note: &OverlayNoteV1) -> Option<Vec<u8>> {
    match doc {
        WalletDoc::Score => {
            let mut d: ScorePayloadV1 = serde_json::from_slice(body).ok()?;
            lower_score(&mut d, seller, note);
            serde_json::to_vec(&d).ok()
        }
        WalletDoc::Preflight => {
            let mut d: PreflightV1 = serde_json::from_slice(body).ok()?;
            d.decision = lower(d.decision, seller);
            darken(&mut d.trust_shield, seller);
            d.flags = d.trust_shield.flags.iter().map(|f| f.key).collect();
            d.signals.push(format!("since the snapshot: {}", seller.reason));
            d.overlay = Some(note.clone());
            serde_json::to_vec(&d).ok()
        }
        WalletDoc::Shield => {
            let mut d: ShieldPayloadV1 = serde_json::from_slice(body).ok()?;
            darken(&mut d.shield, seller);
            d.overlay = Some(note.clone());
            serde_json::to_vec(&d).ok()
        }
        _ => None,
    }
}

/// A score document (the published one, or a live re-score of it) as the overlay says it now.
pub fn lower_score(d: &mut ScorePayloadV1, seller: &OverlaySellerV1, note: &OverlayNoteV1) {
    d.decision = lower(d.decision, seller);
    darken(&mut d.trust_shield, seller);
    d.overlay = Some(note.clone());
}

/// [`lower_score`] with the overlay `snap` is served with, when it lowers `address`.
pub fn lower_score_in(snap: &ServedSnapshot, address: &str, d: &mut ScorePayloadV1) {
    if let Some(applied) = &snap.overlay
        && let Some(seller) = applied.seller(address)
    {
        lower_score(d, seller, &applied.note(seller));
    }
}

/// The shield darkened by the overlay, with its flags added (raised flags first: they are the
/// news).
fn darken(shield: &mut TrustShieldV1, seller: &OverlaySellerV1) {
    shield.color = darker(shield.color, seller);
    let mut flags = seller.flags.clone();
    flags.extend(shield.flags.drain(..).filter(|f| !seller.flags.iter().any(|n| n.key == f.key)));
    shield.flags = flags;
    if let Some(top) = seller.flags.first() {
        shield.reason_short = format!("{}:{}", top.severity, top.key);
    }
}
