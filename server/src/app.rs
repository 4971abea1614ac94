//! The server's shared state: the served snapshot, swapped atomically when a new one is
//! published, the job-run log and source status `/status` shows, and the endpoints the service
//! describes itself with (the route table hands them in; nothing here knows a handler).

use std::collections::HashMap;
use std::path::PathBuf;
use std::sync::{Arc, Mutex, OnceLock};

use agentrep_store::{FetchCount, Store};

use agentrep_publish::wire::{JobRunV1, SourceStatusV1};
use agentrep_publish::{LoadedSnapshot, SnapshotStore};
use arc_swap::{ArcSwap, ArcSwapOption};
use bytes::Bytes;
use tracing::{info, warn};

use crate::attest::Operator;
use crate::blob::Blob;
use crate::endpoints::Endpoint;
use crate::index::ServedSnapshot;
use crate::payment::{Payments, PaymentsOff};
use crate::{ApiError, ServerConfig, ServiceIdentity, openapi};

/// Job runs `/status` lists.
const RECENT_RUNS: usize = 20;

/// Shared state of the server: the current snapshot, swapped atomically.
#[derive(Debug)]
pub struct App {
    pub(crate) base_path: String,
    store: SnapshotStore,
    /// The snapshot as published (what an overlay amends).
    published: ArcSwapOption<ServedSnapshot>,
    /// The snapshot served: the published one, or the published one lowered by its overlay.
    current: ArcSwapOption<ServedSnapshot>,
    /// The (overlay, snapshot digest) pair last considered.
    overlay_checked: Mutex<Option<(String, String)>>,
    loaded_dir: Mutex<Option<(PathBuf, u64)>>,
    /// The last folder that failed to load; not retried until `current` moves again.
    failed_dir: Mutex<Option<(PathBuf, u64)>>,
    /// Recent job runs from the run log, refreshed on the reload tick when the log grows (a failed
    /// rebuild publishes no snapshot but must still show in `/status`).
    runs: ArcSwap<Vec<JobRunV1>>,
    runs_log_len: Mutex<Option<u64>>,
    /// The ingest sources' status, re-read on every reload tick when its file changed.
    sources: ArcSwap<Vec<SourceStatusV1>>,
    sources_mtime: Mutex<Option<std::time::SystemTime>>,
    /// A rebuild filling the history while the snapshots are served, re-read on every reload tick.
    backfill: ArcSwapOption<agentrep_publish::wire::BackfillV1>,
    loaded_at: Mutex<String>,
    pub(crate) unindexed_badge: Blob,
    pub(crate) openapi: Blob,
    endpoints: &'static [&'static Endpoint],
    /// Who runs this deployment.
    pub identity: ServiceIdentity,
    /// Payments, once started; without them paid routes answer 503 with `payments_off`.
    payments: OnceLock<Arc<Payments>>,
    payments_off: Mutex<PaymentsOff>,
    /// The operator's signing key, if configured.
    operator: Option<Operator>,
    /// The key trust-provider answers are signed with, if configured or derivable.
    trust_signer: Option<crate::trust::TrustSigner>,
    /// The write store, once opened.
    write_store: OnceLock<Arc<Store>>,
    /// Attestation fetches counted since the last flush: address → (count, last Unix second).
    fetches: Mutex<HashMap<String, (u64, i64)>>,
    /// The live re-score's sources, when configured.
    live: Option<crate::live::LiveSources>,
    /// The operator's Farcaster signer and hub, when configured.
    caster: Option<crate::cast::Caster>,
    /// The business-review source, when configured.
    places: Option<crate::places::PlacesSource>,
    /// How writes are taken and webhooks delivered.
    pub(crate) writes: crate::writes::WriteSettings,
    /// The in-memory write limits.
    pub(crate) limits: crate::writes::limits::WriteLimits,
    /// Raised when a new snapshot is served: its events are due.
    pub(crate) snapshot_changed: tokio::sync::Notify,
    /// Raised when a delivery was enqueued.
    pub(crate) deliveries_due: tokio::sync::Notify,
}

impl App {
    /// State for a config, describing the service with `endpoints`; no snapshot is loaded yet.
    pub fn new(config: &ServerConfig, endpoints: &'static [&'static Endpoint]) -> Self {
        let badge = agentrep_publish::svg::badge("not indexed", None);
        Self {
            base_path: config.base_path.trim_end_matches('/').to_owned(),
            store: SnapshotStore::new(&config.snapshots),
            published: ArcSwapOption::empty(),
            current: ArcSwapOption::empty(),
            overlay_checked: Mutex::new(None),
            loaded_dir: Mutex::new(None),
            failed_dir: Mutex::new(None),
            runs: ArcSwap::from_pointee(Vec::new()),
            runs_log_len: Mutex::new(None),
            sources: ArcSwap::from_pointee(Vec::new()),
            sources_mtime: Mutex::new(None),
            backfill: ArcSwapOption::empty(),
            loaded_at: Mutex::new(String::new()),
            unindexed_badge: Blob::new(Bytes::from(badge)),
            openapi: Blob::new(Bytes::from(openapi::document(
                endpoints,
                config.base_path.trim_end_matches('/'),
                &config.payments.network.caip2,
            ))),
            endpoints,
            identity: config.identity.clone(),
            payments: OnceLock::new(),
            payments_off: Mutex::new(PaymentsOff::NotStarted),
            operator: config.operator_key.as_ref().and_then(|k| match k.signer("AGENTREP_SIGNING_KEY") {
                Ok(signer) => Some(Operator::new(signer, config.operator_key_is_demo)),
                Err(why) => {
                    warn!(%why, "Nothing will be signed.");
                    None
                }
            }),
            trust_signer: crate::trust::TrustSigner::from_config(
                config.trust_key.as_ref(),
                config.operator_key.as_ref(),
                config.operator_key_is_demo,
            )
            .unwrap_or_else(|why| {
                warn!(%why, "Trust-provider answers will be unsigned.");
                None
            }),
            write_store: OnceLock::new(),
            fetches: Mutex::new(HashMap::new()),
            limits: crate::writes::limits::WriteLimits::new(config.writes.per_hour),
            writes: config.writes.clone(),
            snapshot_changed: tokio::sync::Notify::new(),
            deliveries_due: tokio::sync::Notify::new(),
            caster: config.caster.clone(),
            places: config.places.clone(),
            live: config.live_sources.clone().and_then(|sources| match crate::live::LiveSources::new(sources) {
                Ok(live) => Some(live),
                Err(why) => {
                    warn!(%why, "The live sources could not be set up: live re-scores stay off.");
                    None
                }
            }),
        }
    }

    /// Every endpoint of the service, in the table's order.
    pub fn endpoints(&self) -> &'static [&'static Endpoint] {
        self.endpoints
    }

    /// The live re-score's sources, when configured.
    pub fn live(&self) -> Option<&crate::live::LiveSources> {
        self.live.as_ref()
    }

    /// The business-review source, when configured.
    pub fn places(&self) -> Option<&crate::places::PlacesSource> {
        self.places.as_ref()
    }

    /// The operator's Farcaster signer and hub, when configured.
    pub fn caster(&self) -> Option<&crate::cast::Caster> {
        self.caster.as_ref()
    }

    /// The operator's signing key.
    pub fn operator(&self) -> Option<&Operator> {
        self.operator.as_ref()
    }

    /// The key trust-provider answers are signed with.
    pub fn trust_signer(&self) -> Option<&crate::trust::TrustSigner> {
        self.trust_signer.as_ref()
    }

    /// The write store, if opened.
    pub fn store(&self) -> Option<&Arc<Store>> {
        self.write_store.get()
    }

    /// Sets the write store (once).
    pub fn set_store(&self, store: Arc<Store>) {
        let _ = self.write_store.set(store);
    }

    /// Counts one fetch of `address`'s attestation (in memory; [`App::flush_fetches`] keeps them).
    pub fn count_fetch(&self, address: &str, now: i64) {
        let mut fetches = self.fetches.lock().expect("fetches lock");
        let entry = fetches.entry(address.to_owned()).or_insert((0, now));
        entry.0 += 1;
        entry.1 = entry.1.max(now);
    }

    /// Adds the counted fetches to the store (blocking). A failed write keeps them for the next.
    pub fn flush_fetches(&self) {
        let Some(store) = self.store() else { return };
        let batch: Vec<FetchCount> = std::mem::take(&mut *self.fetches.lock().expect("fetches lock"))
            .into_iter()
            .map(|(address, (fetches, last_at))| FetchCount { address, fetches, last_at })
            .collect();
        if batch.is_empty() {
            return;
        }
        if let Err(err) = store.add_fetches(&batch) {
            warn!(target: "server::store", %err, "Attestation fetch counts not written; kept for the next flush.");
            let mut fetches = self.fetches.lock().expect("fetches lock");
            for f in batch {
                let entry = fetches.entry(f.address).or_insert((0, f.last_at));
                entry.0 += f.fetches;
            }
        }
    }

    /// Payments, or 503 `payments_not_configured` saying what is missing.
    pub fn payments(&self) -> Result<&Arc<Payments>, ApiError> {
        self.payments
            .get()
            .ok_or_else(|| ApiError::PaymentsNotConfigured(*self.payments_off.lock().expect("payments_off lock")))
    }

    /// How this deployment takes payments, in words (`/status`).
    pub fn payments_note(&self) -> String {
        match self.payments.get() {
            Some(p) => format!(
                "paid routes answer 402 with x402 v1 and v2 terms on {} ({}); payments are checked on chain, recorded in the ledger and settled {} before the answer is sent",
                p.network.caip2,
                p.network.asset,
                match p.settler {
                    agentrep_payments::Settler::Direct(_) => "directly with the operator's relayer key",
                    agentrep_payments::Settler::Facilitator(_) => "through the configured facilitator",
                }
            ),
            None => format!(
                "{}: paid routes answer 503 payments_not_configured and quote no terms",
                self.payments_off.lock().expect("payments_off lock")
            ),
        }
    }

    /// Whether paid answers can be bought here.
    pub fn takes_payments(&self) -> bool {
        self.payments.get().is_some()
    }

    /// Turns payments on, or records why they stay off.
    pub fn set_payments(&self, payments: Result<Payments, PaymentsOff>) {
        match payments {
            Ok(p) => {
                let _ = self.payments.set(Arc::new(p));
            }
            Err(why) => {
                // Taking no payments is a deployment's choice (the demo's); a half-configured one
                // is a mistake, and `serve --check` says which.
                if why.is_misconfiguration() {
                    warn!(target: "server::payments", %why, "Paid routes are off.");
                } else {
                    info!(target: "server::payments", %why, "Paid routes are off.");
                }
                *self.payments_off.lock().expect("payments_off lock") = why;
            }
        }
    }

    /// The snapshot requests are answered from.
    pub fn snapshot(&self) -> Option<Arc<ServedSnapshot>> {
        self.current.load_full()
    }

    /// The base path of every route.
    pub fn base_path(&self) -> &str {
        &self.base_path
    }

    /// When the current snapshot was loaded (server clock).
    pub fn loaded_at(&self) -> String {
        self.loaded_at.lock().expect("loaded_at lock").clone()
    }

    /// The recent job runs.
    pub fn runs(&self) -> Arc<Vec<JobRunV1>> {
        self.runs.load_full()
    }

    /// The ingest sources' status.
    pub fn sources(&self) -> Arc<Vec<SourceStatusV1>> {
        self.sources.load_full()
    }

    /// The day a rebuild is filling the history to, if one is.
    pub fn backfill_fills_to(&self) -> Option<String> {
        self.backfill.load().as_ref().map(|b| b.fills_to.clone())
    }

    /// How far the history has come while a rebuild fills it behind `snap` (null once complete).
    pub fn history_filling(&self, snap: &ServedSnapshot) -> Option<agentrep_publish::wire::HistoryFillingV1> {
        self.backfill.load().as_ref().and_then(|b| b.filling(&snap.manifest.snapshot_date))
    }

    /// Re-reads the run log when its length changed, the sources' status when its file did, and
    /// whether a rebuild is filling the history.
    fn refresh_runs(&self) {
        self.backfill.store(self.store.backfill().map(Arc::new));
        let mtime =
            std::fs::metadata(self.store.root().join(agentrep_publish::store::SOURCES)).and_then(|m| m.modified()).ok();
        let mut seen_sources = self.sources_mtime.lock().expect("sources_mtime lock");
        if *seen_sources != mtime {
            self.sources.store(Arc::new(self.store.sources()));
            *seen_sources = mtime;
        }
        drop(seen_sources);
        let len = std::fs::metadata(self.store.root().join(agentrep_publish::store::RUNS)).map(|m| m.len()).ok();
        let mut seen = self.runs_log_len.lock().expect("runs_log_len lock");
        if *seen != len {
            self.runs.store(Arc::new(self.store.recent_runs(RECENT_RUNS)));
            *seen = len;
        }
    }

    /// Loads the snapshot `current` points at if it is not the one being served, then the overlay
    /// `current-overlay` names if it amends that snapshot; returns whether a new snapshot was
    /// swapped in.
    pub fn reload(&self) -> bool {
        let swapped = self.reload_snapshot();
        let Some(published) = self.published.load_full() else { return swapped };
        // A new snapshot is served with its overlay from its first request (an overlay of the
        // snapshot it replaced amends nothing).
        let served = if swapped { published.clone() } else { self.snapshot().unwrap_or_else(|| published.clone()) };
        let mut checked = self.overlay_checked.lock().expect("overlay_checked lock");
        if swapped {
            *checked = None;
        }
        let next = crate::overlay::refresh(&published, &served, &self.store, &mut checked);
        drop(checked);
        match next {
            Some(next) => self.current.store(Some(next)),
            None if swapped => self.current.store(Some(published)),
            None => {}
        }
        if swapped {
            self.snapshot_changed.notify_one();
        }
        swapped
    }

    /// Loads the snapshot `current` points at if it is not the one being served; returns whether
    /// a new snapshot was swapped in. A snapshot that fails to load is logged and skipped, and the
    /// previous one stays served.
    fn reload_snapshot(&self) -> bool {
        self.refresh_runs();
        let Ok(dir) = self.store.current_dir() else { return false };
        // A folder replaced under the same id (the same day rebuilt by another version) has a new
        // inode, so the key is (path, inode).
        let Ok(meta) = std::fs::metadata(&dir) else { return false };
        let key = (dir.clone(), std::os::unix::fs::MetadataExt::ino(&meta));
        if self.loaded_dir.lock().expect("loaded_dir lock").as_ref() == Some(&key)
            || self.failed_dir.lock().expect("failed_dir lock").as_ref() == Some(&key)
        {
            return false;
        }
        match LoadedSnapshot::load(&dir) {
            Ok(loaded) => {
                let retained = self.store.list().unwrap_or_default();
                let served = Arc::new(ServedSnapshot::build(loaded, retained));
                info!(target: "server::reload", snapshot = %served.id, sellers = served.index.rows.len(), "Snapshot loaded.");
                // `reload` serves it, with its overlay if one amends it.
                self.published.store(Some(served));
                *self.loaded_dir.lock().expect("loaded_dir lock") = Some(key);
                *self.loaded_at.lock().expect("loaded_at lock") =
                    chrono::Utc::now().to_rfc3339_opts(chrono::SecondsFormat::Secs, true);
                true
            }
            Err(err) => {
                warn!(target: "server::reload", dir = %dir.display(), %err, "Snapshot not loaded; keeping the current one.");
                *self.failed_dir.lock().expect("failed_dir lock") = Some(key);
                false
            }
        }
    }
}
