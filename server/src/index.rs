//! The served snapshot: everything a free read needs, built once when a snapshot is loaded and
//! held in memory (bytes with their ETags, pre-serialised leaderboard entries, cross-references).

use std::collections::HashMap;
use std::sync::Arc;

use agentrep_publish::LoadedSnapshot;
use agentrep_publish::counterparties::Counterparties;
use agentrep_publish::layout::{FileKind, WalletDoc, WholeDoc, classify, keyed_lines};
use agentrep_publish::wire::{LeaderboardStats, ManifestV1};

use agentrep_publish::payloads::CategoryIndex;
use agentrep_publish::static_export::{DocumentRenderer, context_of};

use crate::ApiError;
use crate::blob::{Blob, EntryJson, LeaderboardKey, ViewCache};
use crate::query::AgentIndex;
use bytes::Bytes;

/// Rendered per-wallet documents kept per snapshot: at about 5 KB a score document, a full cache
/// holds about 160 MB.
const RENDERED_DOCUMENTS: usize = 32_768;

/// The per-wallet documents of a snapshot.
#[derive(Debug)]
enum Documents {
    /// Rendered from the snapshot's record tables on first request (with the payload code that
    /// renders the published files), kept in a bounded cache.
    Rendered { renderer: Box<DocumentRenderer>, cache: ViewCache<(WalletDoc, String)> },
    /// Held as published: a snapshot older than its record tables.
    Files(HashMap<WalletDoc, HashMap<String, Arc<Blob>>>),
}

/// The snapshot as the server serves it: the published one, or the published one lowered by an
/// overlay ([`crate::overlay`]). The parts an overlay never changes are shared between the two
/// (`Arc`), and every cache is the served snapshot's own, so no view built before an overlay is
/// served after it.
#[derive(Debug)]
pub struct ServedSnapshot {
    /// Snapshot id.
    pub id: String,
    /// The snapshot's digest ([`agentrep_publish::layout::snapshot_digest`]).
    pub digest: String,
    /// Manifest.
    pub manifest: Arc<ManifestV1>,
    /// Per-wallet documents as published.
    documents: Arc<Documents>,
    /// The documents the overlay rewrote, served instead of the published ones.
    lowered_docs: HashMap<(WalletDoc, String), Arc<Blob>>,
    /// Whole-snapshot documents.
    pub whole: Arc<HashMap<WholeDoc, Blob>>,
    /// Ranked entries in order.
    pub entries: Arc<Vec<EntryJson>>,
    /// Snapshot-wide counts.
    pub stats: LeaderboardStats,
    /// Generation time.
    pub generated_at: String,
    /// Known non-seller wallets.
    pub counterparties: Arc<Counterparties>,
    /// Snapshots retained on disk.
    pub retained: Vec<String>,
    /// What every live re-score of this snapshot shares; `None` for a snapshot published before
    /// the live re-score existed.
    pub live_context: Option<agentrep_publish::live::LiveContextV1>,
    /// Every seller's live basis, compressed, decoded one seller at a time by a paid re-score;
    /// `None` for a snapshot published before its columns.
    pub live_bases: Option<Arc<agentrep_publish::live::LiveBases>>,
    /// Every seller and deployer with the lookups the queries read.
    pub index: Arc<AgentIndex>,
    /// Proofs, lists, identities, crawl sources, funding chains and top buyers.
    pub directory: Arc<crate::query::directory_index::DirectoryIndex>,
    /// Filtered leaderboard views.
    pub leaderboard_views: ViewCache<LeaderboardKey>,
    /// History views shorter than the published series: (address, days).
    pub history_views: ViewCache<(String, u32)>,
    /// Rendered pages by path and query.
    pub page_views: ViewCache<String>,
    /// The overlay this snapshot is served with, when one lowers it.
    pub overlay: Option<Arc<crate::overlay::AppliedOverlay>>,
}

impl ServedSnapshot {
    /// Indexes a loaded snapshot.
    pub fn build(loaded: LoadedSnapshot, retained: Vec<String>) -> Self {
        let LoadedSnapshot {
            id,
            manifest,
            manifest_bytes,
            leaderboard,
            counterparties,
            agents,
            deployers,
            directory,
            live_context,
            live_bases,
            records,
            mut files,
            ..
        } = loaded;
        let sha: HashMap<&str, &str> = manifest.files.iter().map(|f| (f.path.as_str(), f.sha256.as_str())).collect();
        let mut wallet_docs: HashMap<WalletDoc, HashMap<String, Arc<Blob>>> = HashMap::new();
        let mut whole = HashMap::new();
        for (path, bytes) in files.drain() {
            let hash = sha.get(path.as_str()).copied().unwrap_or_default();
            match classify(&path) {
                FileKind::Whole(doc) => {
                    whole.insert(doc, Blob::with_sha(Bytes::from(bytes), hash));
                }
                FileKind::Bundle(doc) => {
                    let bundle = Bytes::from(bytes);
                    let docs = wallet_docs.entry(doc).or_default();
                    for (address, json) in keyed_lines(&bundle) {
                        docs.insert(address.to_owned(), Arc::new(Blob::new(bundle.slice_ref(json))));
                    }
                }
                FileKind::Wallet(doc, address) => {
                    let address = address.to_owned();
                    let blob = Arc::new(Blob::with_sha(Bytes::from(bytes), hash));
                    wallet_docs.entry(doc).or_default().insert(address, blob);
                }
                FileKind::Data | FileKind::ServerOnly => {}
            }
        }
        drop(sha);
        let documents = match records {
            Some(records) => Documents::Rendered {
                renderer: Box::new(DocumentRenderer::new(
                    records,
                    context_of(&manifest),
                    CategoryIndex::from_agent_rows(&agents),
                )),
                cache: ViewCache::new(RENDERED_DOCUMENTS),
            },
            None => Documents::Files(wallet_docs),
        };
        let entries = leaderboard.entries.iter().map(EntryJson::of).collect();
        // Whole-snapshot files can be megabytes: compress them here, on the loading thread, so no
        // request ever compresses a large body on a server worker.
        for blob in whole.values() {
            blob.gzip();
        }
        let directory = crate::query::directory_index::DirectoryIndex::build(directory, &counterparties);
        Self {
            id,
            digest: agentrep_publish::layout::snapshot_digest(&manifest_bytes),
            manifest: Arc::new(manifest),
            directory: Arc::new(directory),
            documents: Arc::new(documents),
            lowered_docs: HashMap::new(),
            whole: Arc::new(whole),
            entries: Arc::new(entries),
            stats: leaderboard.stats,
            generated_at: leaderboard.generated_at,
            counterparties: Arc::new(counterparties),
            retained,
            live_context,
            live_bases,
            index: Arc::new(AgentIndex::build(agents, deployers)),
            leaderboard_views: ViewCache::new(512),
            history_views: ViewCache::new(16_384),
            page_views: ViewCache::new(4_096),
            overlay: None,
        }
    }

    /// This snapshot served with `overlay`: the rows, entries and documents it rewrote in place of
    /// the published ones, everything else shared, every cache empty.
    pub(crate) fn lowered(
        &self,
        overlay: Arc<crate::overlay::AppliedOverlay>,
        index: AgentIndex,
        entries: Vec<EntryJson>,
        lowered_docs: HashMap<(WalletDoc, String), Arc<Blob>>,
        directory: Option<crate::query::directory_index::DirectoryIndex>,
    ) -> Self {
        Self {
            id: self.id.clone(),
            digest: self.digest.clone(),
            manifest: self.manifest.clone(),
            documents: self.documents.clone(),
            lowered_docs,
            whole: self.whole.clone(),
            entries: Arc::new(entries),
            stats: self.stats.clone(),
            generated_at: self.generated_at.clone(),
            counterparties: self.counterparties.clone(),
            retained: self.retained.clone(),
            live_context: self.live_context.clone(),
            live_bases: self.live_bases.clone(),
            index: Arc::new(index),
            directory: directory.map_or_else(|| self.directory.clone(), Arc::new),
            leaderboard_views: ViewCache::new(512),
            history_views: ViewCache::new(16_384),
            page_views: ViewCache::new(4_096),
            overlay: Some(overlay),
        }
    }

    /// A per-wallet document as served: the overlay's rewrite when it lowers that wallet, else
    /// the published one. The only way to a wallet's document, so no read can skip the overlay.
    ///
    /// # Errors
    /// When the snapshot's tables cannot render it (501 `snapshot_unreadable`).
    pub fn wallet(&self, doc: WalletDoc, address: &str) -> Result<Option<Arc<Blob>>, ApiError> {
        if !self.lowered_docs.is_empty()
            && let Some(lowered) = self.lowered_docs.get(&(doc, address.to_owned()))
        {
            return Ok(Some(lowered.clone()));
        }
        self.published(doc, address)
    }

    /// A per-wallet document as the snapshot published it (what an overlay rewrites).
    ///
    /// # Errors
    /// As [`ServedSnapshot::wallet`].
    pub(crate) fn published(&self, doc: WalletDoc, address: &str) -> Result<Option<Arc<Blob>>, ApiError> {
        match &*self.documents {
            Documents::Files(files) => Ok(files.get(&doc).and_then(|docs| docs.get(address)).cloned()),
            Documents::Rendered { renderer, cache } => cache
                .get_or_try_build(&(doc, address.to_owned()), || {
                    Ok(renderer.render(doc, address)?.map(|body| Blob::new(Bytes::from(body))))
                })
                .map_err(|e: agentrep_publish::PublishError| ApiError::snapshot_unreadable("wallet document", &e)),
        }
    }

    /// What the overlay this snapshot is served with says of `address`, when it lowers it.
    pub fn lowering(&self, address: &str) -> Option<&agentrep_publish::wire::OverlaySellerV1> {
        self.overlay.as_ref()?.seller(address)
    }

    /// A whole-snapshot document.
    pub fn document(&self, doc: WholeDoc) -> Option<&Blob> {
        self.whole.get(&doc)
    }

    /// Snapshot day.
    pub fn date(&self) -> &str {
        &self.manifest.snapshot_date
    }
}
