//! The overlay as served: the fast evidence a scheduler published between rebuilds
//! (`current-overlay`, `SnapshotStore::publish_overlay`), applied to the snapshot it amends. For
//! each seller it names, the score, preflight and trust-shield documents are rewritten once, when
//! the overlay is loaded: the decision lowered, the shield darkened, the raised flags added and an
//! `overlay` note saying what changed. Every read of those documents (HTTP and MCP) and the URL
//! preflight take them from here, so no request rewrites a document.

use std::collections::HashMap;

use agentrep_publish::layout::WalletDoc;
use agentrep_publish::store::SnapshotStore;
use agentrep_publish::wire::{
    OverlayNoteV1, OverlaySellerV1, OverlayV1, PreflightV1, ScorePayloadV1, ShieldPayloadV1, TrustShieldV1,
};
use bytes::Bytes;
use tracing::{info, warn};

use crate::ServedSnapshot;
use crate::index::Blob;

/// An overlay applied to its snapshot.
#[derive(Debug, Default)]
pub struct AppliedOverlay {
    /// The overlay file's name (what `current-overlay` pointed at).
    pub name: String,
    /// The overlay as published.
    pub overlay: Option<OverlayV1>,
    /// Rewritten documents by kind and seller.
    docs: HashMap<(WalletDoc, String), Blob>,
}

impl AppliedOverlay {
    /// The rewritten `doc` of `address`, when the overlay lowers that seller.
    pub fn doc(&self, doc: WalletDoc, address: &str) -> Option<Blob> {
        self.docs.get(&(doc, address.to_owned())).cloned()
    }

    /// What the overlay says of `address`.
    pub fn seller(&self, address: &str) -> Option<(&OverlayV1, &OverlaySellerV1)> {
        let overlay = self.overlay.as_ref()?;
        overlay.sellers.get(address).map(|s| (overlay, s))
    }
}

/// Loads the overlay `current-overlay` names into `snap` when it is new and amends `snap`.
pub fn refresh(snap: &ServedSnapshot, store: &SnapshotStore) {
    let Some(name) = store.current_overlay_name() else { return };
    if snap.overlay.load().as_ref().is_some_and(|o| o.name == name) {
        return;
    }
    let Some(overlay) = store.current_overlay() else {
        warn!(target: "server::reload", overlay = %name, "Overlay not readable; keeping the one applied.");
        return;
    };
    if overlay.snapshot_id != snap.id {
        // An overlay of another snapshot (the scheduler publishes the new snapshot's soon).
        snap.overlay.store(Some(std::sync::Arc::new(AppliedOverlay { name, ..AppliedOverlay::default() })));
        return;
    }
    let applied = apply(snap, name, overlay);
    info!(target: "server::reload", overlay = %applied.name, sellers = applied.overlay.as_ref().map_or(0, |o| o.sellers.len()), "Overlay applied.");
    snap.overlay.store(Some(std::sync::Arc::new(applied)));
}

/// Rewrites the documents of every seller the overlay names.
fn apply(snap: &ServedSnapshot, name: String, overlay: OverlayV1) -> AppliedOverlay {
    let mut docs = HashMap::new();
    for (address, seller) in &overlay.sellers {
        let note = OverlayNoteV1 {
            as_of: overlay.as_of.clone(),
            published_decision: seller.published_decision,
            reason: seller.reason.clone(),
        };
        for doc in [WalletDoc::Score, WalletDoc::Preflight, WalletDoc::Shield] {
            let Some(published) = snap.wallet(doc, address) else { continue };
            if let Some(body) = rewrite(doc, &published.body, seller, &note) {
                docs.insert((doc, address.clone()), Blob::new(Bytes::from(body)));
            }
        }
    }
    AppliedOverlay { name, overlay: Some(overlay), docs }
}

/// One published document of `seller` as the overlay says it now; `None` for a kind it does not
/// rewrite or a body that does not parse (then the published one stays served).
fn rewrite(doc: WalletDoc, body: &[u8], seller: &OverlaySellerV1, note: &OverlayNoteV1) -> Option<Vec<u8>> {
    match doc {
        WalletDoc::Score => {
            let mut d: ScorePayloadV1 = serde_json::from_slice(body).ok()?;
            d.decision = seller.decision;
            darken(&mut d.trust_shield, seller);
            d.overlay = Some(note.clone());
            serde_json::to_vec(&d).ok()
        }
        WalletDoc::Preflight => {
            let mut d: PreflightV1 = serde_json::from_slice(body).ok()?;
            d.decision = seller.decision;
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

/// The shield with the overlay's colour and flags (raised flags first: they are the news).
fn darken(shield: &mut TrustShieldV1, seller: &OverlaySellerV1) {
    shield.color = seller.color;
    let mut flags = seller.flags.clone();
    flags.extend(shield.flags.drain(..).filter(|f| !seller.flags.iter().any(|n| n.key == f.key)));
    shield.flags = flags;
    if let Some(top) = seller.flags.first() {
        shield.reason_short = format!("{}:{}", top.severity, top.key);
    }
}
