//! The agentrep HTTP server (hyper 1.x): free reads from the current snapshot held in memory,
//! swapped atomically when a new snapshot is published, under one route table.
//!
//! This crate links neither polars nor DuckDB; it reads snapshots through `agentrep-publish`.

mod error;
pub mod handlers;
mod index;
pub mod openapi;
mod respond;
pub mod routes;

use std::convert::Infallible;
use std::future::Future;
use std::net::SocketAddr;
use std::path::PathBuf;
use std::sync::Arc;
use std::sync::Mutex;
use std::time::Duration;

use agentrep_publish::wire::JobRunV1;
use agentrep_publish::{LoadedSnapshot, SnapshotStore};
use arc_swap::{ArcSwap, ArcSwapOption};
use bytes::Bytes;
use hyper::body::Incoming;
use hyper::service::service_fn;
use hyper::{Request, Response};
use hyper_util::rt::{TokioExecutor, TokioIo};
use hyper_util::server::conn::auto;
use tokio::net::TcpListener;
use tracing::{info, warn};

pub use error::ApiError;
pub use index::ServedSnapshot;
pub use respond::Body;

/// Job runs `/status` lists.
const RECENT_RUNS: usize = 20;

/// How to serve.
#[derive(Debug, Clone)]
pub struct ServerConfig {
    /// Snapshots root (with its `current` pointer).
    pub snapshots: PathBuf,
    /// Base path of every route.
    pub base_path: String,
    /// How often to look for a new snapshot.
    pub reload_interval: Duration,
    /// Receiving address quoted in 402 terms.
    pub pay_to: String,
}

impl Default for ServerConfig {
    fn default() -> Self {
        Self {
            snapshots: PathBuf::from("snapshots"),
            base_path: "/api/agent".to_owned(),
            reload_interval: Duration::from_millis(500),
            pay_to: std::env::var("AGENTREP_PAY_TO")
                .unwrap_or_else(|_| "0x0000000000000000000000000000000000000402".to_owned()),
        }
    }
}

/// Shared state of the server: the current snapshot, swapped atomically.
#[derive(Debug)]
pub struct App {
    base_path: String,
    pay_to: String,
    store: SnapshotStore,
    current: ArcSwapOption<ServedSnapshot>,
    loaded_dir: Mutex<Option<(PathBuf, u64)>>,
    /// The last folder that failed to load; not retried until `current` moves again.
    failed_dir: Mutex<Option<(PathBuf, u64)>>,
    /// Recent job runs from the run log, refreshed on the reload tick when the log grows (a failed
    /// rebuild publishes no snapshot but must still show in `/status`).
    runs: ArcSwap<Vec<JobRunV1>>,
    runs_log_len: Mutex<Option<u64>>,
    /// The ingest sources' status, re-read on every reload tick when its file changed.
    sources: ArcSwap<Vec<agentrep_publish::wire::SourceStatusV1>>,
    sources_mtime: Mutex<Option<std::time::SystemTime>>,
    loaded_at: Mutex<String>,
    unindexed_badge: index::Blob,
    openapi: index::Blob,
}

impl App {
    /// State for a config; no snapshot is loaded yet.
    pub fn new(config: &ServerConfig) -> Self {
        let badge = agentrep_publish::svg::badge("not indexed", None);
        Self {
            base_path: config.base_path.trim_end_matches('/').to_owned(),
            pay_to: config.pay_to.clone(),
            store: SnapshotStore::new(&config.snapshots),
            current: ArcSwapOption::empty(),
            loaded_dir: Mutex::new(None),
            failed_dir: Mutex::new(None),
            runs: ArcSwap::from_pointee(Vec::new()),
            runs_log_len: Mutex::new(None),
            sources: ArcSwap::from_pointee(Vec::new()),
            sources_mtime: Mutex::new(None),
            loaded_at: Mutex::new(String::new()),
            unindexed_badge: index::Blob::new(Bytes::from(badge)),
            openapi: index::Blob::new(Bytes::from(openapi::document(config.base_path.trim_end_matches('/')))),
        }
    }

    /// The snapshot requests are answered from.
    pub fn snapshot(&self) -> Option<Arc<ServedSnapshot>> {
        self.current.load_full()
    }

    fn loaded_at(&self) -> String {
        self.loaded_at.lock().expect("loaded_at lock").clone()
    }

    /// The recent job runs.
    pub fn runs(&self) -> Arc<Vec<JobRunV1>> {
        self.runs.load_full()
    }

    /// The ingest sources' status.
    pub fn sources(&self) -> Arc<Vec<agentrep_publish::wire::SourceStatusV1>> {
        self.sources.load_full()
    }

    /// Re-reads the run log when its length changed, and the sources' status when its file did.
    fn refresh_runs(&self) {
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

    /// Loads the snapshot `current` points at if it is not the one being served; returns whether
    /// a new snapshot was swapped in. A snapshot that fails to load is logged and skipped, and the
    /// previous one stays served.
    pub fn reload(&self) -> bool {
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
                let served = ServedSnapshot::build(loaded, retained);
                info!(target: "server::reload", snapshot = %served.id, wallets = served.wallet_files.get(agentrep_publish::writer::layout::SCORE).map_or(0, |m| m.len()), "Snapshot loaded.");
                self.current.store(Some(Arc::new(served)));
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

    /// Answers one request.
    pub fn respond(&self, req: &Request<impl Sized>) -> Response<Body> {
        let parts = handlers::RequestParts { method: req.method(), uri: req.uri(), headers: req.headers() };
        handlers::handle(self, &parts)
    }
}

/// A bound server.
#[derive(Debug)]
pub struct Server {
    listener: TcpListener,
    app: Arc<App>,
    reload_interval: Duration,
}

impl Server {
    /// Binds `addr` and loads the current snapshot, if any.
    pub async fn bind(addr: SocketAddr, config: ServerConfig) -> std::io::Result<Self> {
        let listener = TcpListener::bind(addr).await?;
        let app = Arc::new(App::new(&config));
        let loader = app.clone();
        tokio::task::spawn_blocking(move || loader.reload()).await.map_err(std::io::Error::other)?;
        Ok(Self { listener, app, reload_interval: config.reload_interval })
    }

    /// The bound address.
    pub fn local_addr(&self) -> SocketAddr {
        self.listener.local_addr().expect("bound listener has an address")
    }

    /// The base path.
    pub fn base_path(&self) -> &str {
        &self.app.base_path
    }

    /// The shared state.
    pub fn app(&self) -> Arc<App> {
        self.app.clone()
    }

    /// A few paths worth trying, for the startup message.
    pub fn example_paths(&self) -> Vec<String> {
        let mut paths = vec!["/leaderboard?limit=5".to_owned(), "/health".to_owned(), "/status".to_owned()];
        if let Some(snap) = self.app.snapshot() {
            if let Some(top) = snap.entries.first() {
                let entry: serde_json::Value = serde_json::from_str(top.plain.get()).unwrap_or_default();
                if let Some(addr) = entry.get("payTo").and_then(|v| v.as_str()) {
                    paths.push(format!("/score/{addr}"));
                    paths.push(format!("/preflight/{addr}"));
                    paths.push(format!("/history/{addr}?days=7"));
                    paths.push(format!("/badge/{addr}.svg"));
                }
            }
            paths.push("/scores.csv".to_owned());
        }
        paths
    }

    /// Serves until `shutdown` resolves, then lets open connections finish.
    pub async fn run_until(self, shutdown: impl Future<Output = ()>) -> std::io::Result<()> {
        let reloader = self.app.clone();
        let interval = self.reload_interval;
        let reload_task = tokio::spawn(async move {
            let mut tick = tokio::time::interval(interval);
            tick.set_missed_tick_behavior(tokio::time::MissedTickBehavior::Delay);
            loop {
                tick.tick().await;
                let app = reloader.clone();
                let _ = tokio::task::spawn_blocking(move || app.reload()).await;
            }
        });
        let graceful = hyper_util::server::graceful::GracefulShutdown::new();
        tokio::pin!(shutdown);
        loop {
            tokio::select! {
                accepted = self.listener.accept() => {
                    let (stream, _) = match accepted {
                        Ok(conn) => conn,
                        Err(err) => {
                            warn!(target: "server::http", %err, "Accept failed.");
                            continue;
                        }
                    };
                    let _ = stream.set_nodelay(true);
                    let app = self.app.clone();
                    let service = service_fn(move |req: Request<Incoming>| {
                        let app = app.clone();
                        async move { Ok::<_, Infallible>(app.respond(&req)) }
                    });
                    let conn = auto::Builder::new(TokioExecutor::new()).serve_connection(TokioIo::new(stream), service).into_owned();
                    let conn = graceful.watch(conn);
                    tokio::spawn(async move {
                        let _ = conn.await;
                    });
                }
                () = &mut shutdown => break,
            }
        }
        reload_task.abort();
        tokio::select! {
            () = graceful.shutdown() => {}
            () = tokio::time::sleep(Duration::from_secs(5)) => {}
        }
        Ok(())
    }
}
