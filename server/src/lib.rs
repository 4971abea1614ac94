//! The agentrep HTTP server (hyper 1.x): free reads from the current snapshot held in memory,
//! swapped atomically when a new snapshot is published, under one route table.
//!
//! This crate links neither polars nor DuckDB; it reads snapshots through `agentrep-publish`.

mod app;
pub mod attest;
mod blob;
pub mod cast;
pub mod check;
pub mod config;
pub mod conn_limits;
pub mod endpoints;
pub mod env;
mod error;
pub mod events;
pub mod handlers;
pub mod http;
mod index;
pub mod live;
pub mod mcp;
pub mod openapi;
pub mod overlay;
mod pages;
pub mod payment;
pub mod places;
pub mod query;
pub mod read;
pub mod routes;
mod secret;
mod store_task;
pub mod trust;
pub mod writes;

use std::convert::Infallible;
use std::future::Future;
use std::net::SocketAddr;
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::time::Duration;

use http_body_util::BodyExt;
use hyper::Request;
use hyper::body::Incoming;
use hyper::service::service_fn;
use hyper_util::rt::{TokioExecutor, TokioIo, TokioTimer};
use hyper_util::server::conn::auto;
use tokio::net::TcpListener;
use tracing::{info, warn};

pub use crate::config::{BadConfiguration, BadVariable};
use crate::config::{Problem, Reader};

pub use app::App;
pub use error::{ApiError, Upstream};
pub use http::Body;
pub use index::ServedSnapshot;
pub use payment::PaymentSettings;
pub use secret::{KeyError, SecretKey};

/// The base path every API route lives under (the original service's, so its clients work).
pub const DEFAULT_BASE_PATH: &str = "/api/agent";

/// Who runs a deployment and how it presents itself (`/me`, `/status`, `/catalog`). Every field
/// reads an `AGENTREP_*` environment variable; unset ones are null in the payloads, never invented.
#[derive(Debug, Clone, Default)]
pub struct ServiceIdentity {
    /// Receiving address quoted in 402 terms (`AGENTREP_PAY_TO`, lowercase). Without one the
    /// deployment takes no payments: paid routes answer 503 `payments_not_configured` instead of
    /// terms a buyer could sign to an address nobody controls.
    pub pay_to: Option<String>,
    /// Operator name (`AGENTREP_OPERATOR_NAME`).
    pub operator_name: Option<String>,
    /// Contact URL or e-mail (`AGENTREP_CONTACT`).
    pub contact: Option<String>,
    /// Public domain (`AGENTREP_DOMAIN`).
    pub domain: Option<String>,
    /// Basename of the operator wallet (`AGENTREP_BASENAME`).
    pub basename: Option<String>,
    /// The project's token contract (`AGENTREP_TOKEN`).
    pub token: Option<String>,
    /// How the token's source is verified, free text (`AGENTREP_TOKEN_VERIFIED`).
    pub token_verified: Option<String>,
    /// ERC-8004 agent id of the service (`AGENTREP_ERC8004_AGENT_ID`).
    pub erc8004_agent_id: Option<u64>,
}

impl ServiceIdentity {
    /// Reads the environment.
    pub(crate) fn read(r: &mut Reader) -> Self {
        Self {
            pay_to: r.parse(&env::PAY_TO, |v| {
                agentrep_model::Address::parse(v)
                    .map(agentrep_model::Address::into_string)
                    .map_err(|_| Problem::NotAnAddress(v.to_owned()))
            }),
            operator_name: env::OPERATOR_NAME.get(),
            contact: env::CONTACT.get(),
            domain: env::DOMAIN.get(),
            basename: env::BASENAME.get(),
            token: env::TOKEN.get(),
            token_verified: env::TOKEN_VERIFIED.get(),
            erc8004_agent_id: r
                .parse(&env::ERC8004_AGENT_ID, |v| v.parse().map_err(|_| Problem::NotANumber(v.to_owned()))),
        }
    }
}

/// How to serve.
#[derive(Debug, Clone)]
pub struct ServerConfig {
    /// Snapshots root (with its `current` pointer).
    pub snapshots: PathBuf,
    /// Base path of every route.
    pub base_path: String,
    /// How often to look for a new snapshot.
    pub reload_interval: Duration,
    /// Who runs it.
    pub identity: ServiceIdentity,
    /// How it takes payments.
    pub payments: PaymentSettings,
    /// The operator's signing key (`AGENTREP_SIGNING_KEY`): score attestations, x402 offers and
    /// receipts. Without one nothing is signed.
    pub operator_key: Option<SecretKey>,
    /// The trust-provider answers' Ed25519 seed (`AGENTREP_TRUST_SIGNING_KEY`); without one it is
    /// derived from `operator_key` (`trust::sign`).
    pub trust_key: Option<SecretKey>,
    /// The key was generated for a demo (`make run`); attestations say so.
    pub operator_key_is_demo: bool,
    /// The live re-score's sources: the ingest jobs' configuration (`AGENTREP_LIVE_SOURCES` names
    /// its file). Without them `?live=1` quotes its terms and refuses a paid retry.
    pub live_sources: Option<agentrep_ingest::config::IngestConfig>,
    /// How writes are taken and webhooks delivered.
    pub writes: writes::WriteSettings,
    /// The operator's Farcaster signer and hub (`AGENTREP_FARCASTER_*`), for featured casts.
    pub caster: Option<cast::Caster>,
    /// The business-review source (`AGENTREP_PLACES_*`) `/snapshot/{placeId}` sells.
    pub places: Option<places::PlacesSource>,
    /// What a slow or idle client may hold (`AGENTREP_HEADER_READ_TIMEOUT_SECS`,
    /// `AGENTREP_REQUEST_TIMEOUT_SECS`, `AGENTREP_MAX_CONNECTIONS`).
    pub connections: conn_limits::ConnectionLimits,
}

/// The live sources `AGENTREP_LIVE_SOURCES` names (the jobs' `agentrep.toml`, with its
/// `AGENTREP_*` overrides); `None` when unset.
fn read_live_sources(r: &mut Reader) -> Option<agentrep_ingest::config::IngestConfig> {
    r.parse(&env::LIVE_SOURCES, |path| {
        agentrep_ingest::config::IngestConfig::load(Some(Path::new(path))).map_err(|e| Problem::Unreadable(Box::new(e)))
    })
}

/// A server of `snapshots` with nothing configured: no payments, no keys, no live sources, the
/// default limits. What the environment configures is [`ServerConfig::from_env`].
impl Default for ServerConfig {
    fn default() -> Self {
        Self {
            snapshots: PathBuf::from("snapshots"),
            base_path: DEFAULT_BASE_PATH.to_owned(),
            reload_interval: Duration::from_millis(500),
            identity: ServiceIdentity::default(),
            payments: PaymentSettings::default(),
            operator_key: None,
            trust_key: None,
            operator_key_is_demo: false,
            live_sources: None,
            writes: writes::WriteSettings::default(),
            caster: None,
            places: None,
            connections: conn_limits::ConnectionLimits::default(),
        }
    }
}

impl ServerConfig {
    /// The server of `snapshots` under `base_path` as the environment configures it, read once.
    ///
    /// # Errors
    /// Every variable whose value cannot be used, each named (a secret's value is never echoed).
    pub fn from_env(snapshots: PathBuf, base_path: String) -> Result<Self, BadConfiguration> {
        let (config, refused) = Self::read_env(snapshots, base_path);
        if refused.is_empty() { Ok(config) } else { Err(BadConfiguration(refused)) }
    }

    /// The server the environment configures with every refused value left unset, and the
    /// refusals: what `serve --check` reports before it checks the rest.
    pub fn read_env(snapshots: PathBuf, base_path: String) -> (Self, Vec<BadVariable>) {
        let mut r = Reader::default();
        let config = Self {
            snapshots,
            base_path,
            identity: ServiceIdentity::read(&mut r),
            payments: PaymentSettings::read(&mut r),
            operator_key: env::SIGNING_KEY.get().map(SecretKey::new),
            trust_key: env::TRUST_SIGNING_KEY.get().map(SecretKey::new),
            live_sources: read_live_sources(&mut r),
            writes: writes::WriteSettings::read(&mut r),
            caster: cast::Caster::read(&mut r),
            places: places::PlacesSource::read(&mut r),
            connections: conn_limits::ConnectionLimits::read(&mut r),
            ..Self::default()
        };
        (config, r.into_refused())
    }

    /// The write store's file: `AGENTREP_STORE`, else beside the snapshots folder.
    pub fn store_path(&self) -> PathBuf {
        store_path(&self.snapshots, self.payments.store.as_deref())
    }
}

/// The write store's file: `explicit` (`AGENTREP_STORE`) when given, else beside the snapshots
/// folder. The server opens it; `agentrep export-store` reads it.
pub fn store_path(snapshots: &Path, explicit: Option<&Path>) -> PathBuf {
    explicit.map(Path::to_path_buf).unwrap_or_else(|| {
        let parent = snapshots.parent().filter(|p| !p.as_os_str().is_empty()).unwrap_or(Path::new("."));
        parent.join(agentrep_store::FILE_NAME)
    })
}

/// Serves the MCP tools on stdin and stdout (`agentrep mcp`) until stdin ends.
///
/// # Errors
/// When stdin or stdout fail.
pub fn serve_mcp_stdio(config: &ServerConfig) -> std::io::Result<()> {
    mcp::stdio::run(Arc::new(routes::app(config)), config)
}

/// A bound server.
#[derive(Debug)]
pub struct Server {
    listener: TcpListener,
    app: Arc<App>,
    reload_interval: Duration,
    reconcile_interval: Duration,
    connections: conn_limits::ConnectionLimits,
}

impl Server {
    /// Binds `addr` and loads the current snapshot, if any.
    pub async fn bind(addr: SocketAddr, config: ServerConfig) -> std::io::Result<Self> {
        let listener = TcpListener::bind(addr).await?;
        let app = Arc::new(routes::app(&config));
        let loader = app.clone();
        tokio::task::spawn_blocking(move || loader.reload()).await.map_err(std::io::Error::other)?;
        let store_path = config.store_path();
        let store = match tokio::task::spawn_blocking(move || agentrep_store::Store::open(&store_path)).await {
            Ok(Ok(store)) => Some(Arc::new(store)),
            Ok(Err(err)) => {
                warn!(%err, "The write store could not be opened: no payments, attestations are not kept.");
                None
            }
            Err(err) => {
                warn!(%err, "Opening the write store failed.");
                None
            }
        };
        if let Some(store) = &store {
            app.set_store(store.clone());
        }
        let signer = app.operator().map(|o| o.signer().clone());
        app.set_payments(
            payment::Payments::start(config.identity.pay_to.as_deref(), &config.payments, store, signer).await,
        );
        if app.takes_payments() {
            for route in payment::needs::paid_route_states(&app) {
                let price = route.price as f64 / 1e6;
                match &route.off_because {
                    None => info!(target: "server::payments", route = %route.route, price, "Paid route on."),
                    Some(why) => info!(target: "server::payments", route = %route.route, %why, "Paid route off."),
                }
            }
        }
        Ok(Self {
            listener,
            app,
            reload_interval: config.reload_interval,
            reconcile_interval: config.payments.reconcile_interval,
            connections: config.connections,
        })
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

    /// The top of the served leaderboard, if a snapshot is loaded.
    pub fn top_seller(&self) -> Option<String> {
        let snap = self.app.snapshot()?;
        let entry: serde_json::Value = serde_json::from_str(snap.entries.first()?.plain.get()).ok()?;
        entry.get("payTo").and_then(|v| v.as_str()).map(str::to_owned)
    }

    /// A few paths worth trying, for the startup message.
    pub fn example_paths(&self) -> Vec<String> {
        let mut paths = vec!["/leaderboard?limit=5".to_owned(), "/health".to_owned(), "/status".to_owned()];
        if let Some(addr) = self.top_seller() {
            paths.push(format!("/score/{addr}"));
            paths.push(format!("/preflight/{addr}"));
            paths.push(format!("/history/{addr}?days=7"));
            paths.push(format!("/badge/{addr}.svg"));
        }
        if self.app.snapshot().is_some() {
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
        let reconciler = self.app.clone();
        let every = self.reconcile_interval;
        let reconcile_task = tokio::spawn(async move {
            let Ok(payments) = reconciler.payments() else { return };
            let mut tick = tokio::time::interval(every);
            tick.set_missed_tick_behavior(tokio::time::MissedTickBehavior::Delay);
            loop {
                tick.tick().await;
                payments.reconcile_open().await;
            }
        });
        let events_task = tokio::spawn(events::run(self.app.clone()));
        let delivery_task = tokio::spawn(events::deliver::run(self.app.clone()));
        let limits = self.app.clone();
        let shrink_task = tokio::spawn(async move {
            let mut tick = tokio::time::interval(Duration::from_secs(600));
            loop {
                tick.tick().await;
                limits.limits.shrink();
            }
        });
        let counter = self.app.clone();
        let flush_task = tokio::spawn(async move {
            let mut tick = tokio::time::interval(Duration::from_secs(10));
            loop {
                tick.tick().await;
                let app = counter.clone();
                let _ = tokio::task::spawn_blocking(move || app.flush_fetches()).await;
            }
        });
        let graceful = hyper_util::server::graceful::GracefulShutdown::new();
        let limits = self.connections;
        let open = Arc::new(tokio::sync::Semaphore::new(limits.max_connections.max(1)));
        let mut builder = auto::Builder::new(TokioExecutor::new());
        builder.http1().timer(TokioTimer::new()).header_read_timeout(limits.header_read_timeout);
        builder.http2().timer(TokioTimer::new());
        let mut accept_failures = 0u32;
        tokio::pin!(shutdown);
        loop {
            // At the cap, wait for a connection to close before accepting another (newcomers
            // wait in the kernel's backlog).
            let permit = tokio::select! {
                permit = open.clone().acquire_owned() => permit.expect("the semaphore is never closed"),
                () = &mut shutdown => break,
            };
            tokio::select! {
                accepted = self.listener.accept() => {
                    let (stream, peer) = match accepted {
                        Ok(conn) => {
                            accept_failures = 0;
                            conn
                        }
                        Err(err) => {
                            // Out of descriptors, say: back off rather than spin.
                            let pause = conn_limits::accept_backoff(accept_failures);
                            accept_failures = accept_failures.saturating_add(1);
                            warn!(target: "server::http", %err, pause_ms = pause.as_millis() as u64, "Accept failed.");
                            tokio::time::sleep(pause).await;
                            continue;
                        }
                    };
                    let _ = stream.set_nodelay(true);
                    let app = self.app.clone();
                    let request_timeout = limits.request_timeout;
                    let service = service_fn(move |mut req: Request<Incoming>| {
                        req.extensions_mut().insert(peer);
                        let req = req.map(|body| body.map_err(Into::into).boxed());
                        let app = app.clone();
                        async move {
                            let answer = tokio::time::timeout(request_timeout, routes::dispatch(app, req)).await;
                            Ok::<_, Infallible>(answer.unwrap_or_else(|_| {
                                crate::http::respond::error(&crate::error::ApiError::SourceUnavailable {
                                    code: "request_timeout",
                                    message: format!(
                                        "the answer took longer than {} s; nothing was charged",
                                        request_timeout.as_secs()
                                    ),
                                })
                            }))
                        }
                    });
                    let builder = builder.clone();
                    let watcher = graceful.watcher();
                    let (header_read_timeout, idle_timeout) = (limits.header_read_timeout, limits.idle_timeout);
                    tokio::spawn(async move {
                        // The protocol is told apart by the first bytes, before hyper's header-read
                        // timer runs: a client that sends nothing is let go after the same timeout.
                        let mut first = [0u8; 1];
                        let first_bytes = tokio::time::timeout(header_read_timeout, stream.peek(&mut first)).await;
                        if matches!(first_bytes, Ok(Ok(n)) if n > 0) {
                            let (stream, activity) = conn_limits::Stamped::new(stream);
                            let conn = builder.serve_connection(TokioIo::new(stream), service).into_owned();
                            let served = watcher.watch(conn);
                            tokio::pin!(served);
                            // A connection on which no byte moved for the idle timeout is dropped
                            // (closed): an idle HTTP/2 connection would otherwise stay for ever.
                            loop {
                                let left = idle_timeout.saturating_sub(activity.idle_for());
                                tokio::select! {
                                    _ = &mut served => break,
                                    () = tokio::time::sleep(left.max(Duration::from_millis(50))) => {
                                        if activity.idle_for() >= idle_timeout {
                                            break;
                                        }
                                    }
                                }
                            }
                        }
                        drop(permit);
                    });
                }
                () = &mut shutdown => break,
            }
        }
        reload_task.abort();
        reconcile_task.abort();
        events_task.abort();
        delivery_task.abort();
        shrink_task.abort();
        flush_task.abort();
        let app = self.app.clone();
        let _ = tokio::task::spawn_blocking(move || app.flush_fetches()).await;
        tokio::select! {
            () = graceful.shutdown() => {}
            () = tokio::time::sleep(Duration::from_secs(5)) => {}
        }
        Ok(())
    }
}
