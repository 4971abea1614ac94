//! `agentrep ingest` (every selected source once) and `agentrep schedule` (every source on its
//! cadence, and the rebuild of each day once every required source has covered it).

use std::net::SocketAddr;
use std::path::{Path, PathBuf};
use std::time::Duration;

use agentrep_ingest::chain::Chain;
use agentrep_ingest::config::IngestConfig;
use agentrep_ingest::sources::{self, Bounds, Progress, RunContext, SourceName, SourceStatus};
use agentrep_ingest::web;
use agentrep_lake::Lake;
use agentrep_publish::wire::SourceStatusV1;
use agentrep_publish::{PublishConfig, SnapshotStore};
use anyhow::{Context, bail};
use chrono::{DateTime, Days, NaiveDate, Utc};
use indicatif::ProgressBar;
use tracing::{info, warn};

use crate::cli::SourceArg;

/// What `ingest` and `schedule` share.
#[derive(Debug)]
pub struct IngestArgs {
    /// The lake (a folder or a bucket).
    pub lake: Lake,
    /// RPC override.
    pub rpc: Option<url::Url>,
    /// Config file.
    pub config: Option<PathBuf>,
    /// Where `sources.json` goes.
    pub snapshots: PathBuf,
}

/// The loaded config with the command line's RPC override.
fn load_config(args: &IngestArgs) -> anyhow::Result<IngestConfig> {
    let mut config = IngestConfig::load(args.config.as_deref())?;
    if let Some(rpc) = &args.rpc {
        config.chain.rpc_urls = vec![rpc.clone()];
    }
    Ok(config)
}

/// indicatif bars for the sources' phases (hidden when stderr is not a terminal).
#[derive(Debug, Default)]
struct Bars(std::sync::Mutex<Option<ProgressBar>>);

impl Progress for Bars {
    fn start(&self, label: &str, len: u64) {
        let bar = crate::progress::bar(len, "ingest");
        bar.set_message(label.to_owned());
        *self.0.lock().expect("bar") = Some(bar);
    }
    fn set(&self, pos: u64) {
        if let Some(bar) = self.0.lock().expect("bar").as_ref() {
            bar.set_position(pos);
        }
    }
    fn finish(&self) {
        if let Some(bar) = self.0.lock().expect("bar").take() {
            bar.finish_and_clear();
        }
    }
}

/// The HTTP clients and (when needed) the node.
struct Clients {
    safe: web::safe::SafeClient,
    plain: reqwest::Client,
    chain: Option<Chain>,
}

async fn connect(config: &IngestConfig, chain_needed: bool) -> anyhow::Result<Clients> {
    web::install_crypto_provider();
    let safe = web::safe::SafeClient::new(&config.probes).map_err(|e| anyhow::anyhow!("probe client: {e}"))?;
    let plain = web::plain_client(Duration::from_millis(config.marketplace.timeout_ms))
        .map_err(|e| anyhow::anyhow!("HTTP client: {e}"))?;
    let chain = if chain_needed { Some(Chain::connect(&config.chain).await?) } else { None };
    Ok(Clients { safe, plain, chain })
}

fn to_wire(s: &SourceStatus) -> SourceStatusV1 {
    let iso = |t: DateTime<Utc>| t.to_rfc3339_opts(chrono::SecondsFormat::Secs, true);
    SourceStatusV1 {
        source: s.source.to_string(),
        covered_until: s.covered_until.map(iso),
        last_block: s.last_block,
        lag_seconds: s.lag_seconds,
        last_run_at: iso(s.last_run_at),
        last_success_at: s.last_success_at.map(iso),
        last_error: s.last_error.clone(),
        notes: s.last_report.as_ref().map(|r| r.notes.clone()).unwrap_or_default(),
    }
}

/// Publishes every source's status beside the snapshots, for `/status`.
fn publish_status(lake: &Lake, snapshots: &Path) -> anyhow::Result<()> {
    let mut all = Vec::new();
    for source in SourceName::ALL {
        if let Some(status) = sources::read_status(lake, *source)? {
            all.push(to_wire(&status));
        }
    }
    SnapshotStore::new(snapshots).write_sources(&all)?;
    Ok(())
}

/// The clock off-chain sources stamp their rows with.
#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
pub enum Clock {
    /// Wall-clock time (production).
    Wall,
    /// The safe head's block time (replays of a world onto a local chain).
    Chain,
}

async fn now(clock: Clock, chain: Option<&Chain>) -> anyhow::Result<DateTime<Utc>> {
    match (clock, chain) {
        (Clock::Wall, _) => Ok(Utc::now()),
        (Clock::Chain, Some(chain)) => {
            let head = chain.safe_head().await?;
            let t = chain.block_time(head).await?;
            DateTime::from_timestamp(t, 0).context("block time out of range")
        }
        (Clock::Chain, None) => bail!("--clock chain needs an RPC endpoint"),
    }
}

/// `agentrep ingest`: the selected sources once, in order; every failure is reported, and the
/// command fails if any source failed.
pub async fn ingest(args: &IngestArgs, which: SourceArg, bounds: Bounds, clock: Clock) -> anyhow::Result<()> {
    let config = load_config(args)?;
    let selected: Vec<SourceName> = match which {
        SourceArg::All => SourceName::ALL.to_vec(),
        SourceArg::One(s) => vec![s],
    };
    let clients = connect(&config, selected.iter().any(|s| s.reads_chain()) || clock == Clock::Chain).await?;
    let lake = &args.lake;
    let bars = Bars::default();
    let now = now(clock, clients.chain.as_ref()).await?;
    let ctx = RunContext {
        lake,
        config: &config,
        chain: clients.chain.as_ref(),
        safe_http: &clients.safe,
        http: &clients.plain,
        bounds,
        now,
        progress: &bars,
    };
    let mut failures = Vec::new();
    for source in selected {
        match sources::run(source, &ctx).await {
            Ok(report) => info!(
                source = %source,
                rows = report.rows,
                days = report.days.len(),
                logs = report.logs,
                pages = report.pages,
                blocks = ?report.blocks,
                "Source ingested."
            ),
            Err(e) => {
                warn!(source = %source, "{e:#}");
                failures.push(format!("{e:#}"));
            }
        }
    }
    publish_status(lake, &args.snapshots)?;
    if !failures.is_empty() {
        bail!("{} source(s) failed: {}", failures.len(), failures.join("; "));
    }
    Ok(())
}

/// The scheduler's own checkpoint: the last day it rebuilt.
#[derive(Debug, Default, serde::Serialize, serde::Deserialize)]
struct SchedulerCheckpoint {
    last_rebuilt: Option<NaiveDate>,
}

/// The next day to rebuild, if every required source has covered it.
fn ready_day(lake: &Lake, last: Option<NaiveDate>) -> anyhow::Result<Option<NaiveDate>> {
    let day = match last {
        Some(d) => d.checked_add_days(Days::new(1)).context("day out of range")?,
        // The first day a rebuild can score: it needs listings (older facts are history for it).
        None => match lake.partitions(agentrep_lake::Dataset::Listings)?.first() {
            Some(p) => p.date,
            None => return Ok(None),
        },
    };
    let end_of_day = day
        .checked_add_days(Days::new(1))
        .context("day out of range")?
        .and_hms_opt(0, 0, 0)
        .expect("midnight")
        .and_utc();
    for source in SourceName::ALL.iter().filter(|s| s.required()) {
        // Chain sources cover up to their last block's time; off-chain sources up to their last
        // run (their rows describe the world as it was then).
        let covered = sources::read_status(lake, *source)?.and_then(|s| s.covered_until);
        // `covered_until` is the last second covered, inclusive: the day's last second will do.
        let covers = covered.is_some_and(|c| c >= end_of_day - chrono::Duration::seconds(1));
        if !covers {
            return Ok(None);
        }
    }
    Ok(Some(day))
}

/// Arguments of `agentrep schedule`.
#[derive(Debug)]
pub struct ScheduleArgs {
    /// Shared with ingest.
    pub ingest: IngestArgs,
    /// Serve while scheduling.
    pub serve: Option<SocketAddr>,
    /// Base path.
    pub base_path: String,
    /// Stop after rebuilding this day.
    pub stop_after: Option<NaiveDate>,
    /// Clock of the off-chain sources.
    pub clock: Clock,
    /// The operator's deployed ScoreVerifier (lowercase), named in every score payload.
    pub verifier_contract: Option<String>,
    /// A bucket each published snapshot is also pushed to.
    pub mirror: Option<std::sync::Arc<agentrep_lake::Bucket>>,
    /// How each day is rebuilt (its engine).
    pub rebuild: agentrep_pipeline::RebuildOptions,
}

/// `agentrep schedule`.
pub async fn schedule(args: ScheduleArgs) -> anyhow::Result<()> {
    let lake = &args.ingest.lake;
    // One scheduler per lake, on one machine or (bucket lake) many: a second one is refused.
    let lease = lake.lease("scheduler")?;
    let config = load_config(&args.ingest)?;
    let clients = connect(&config, true).await?;
    let store = SnapshotStore::new(&args.ingest.snapshots);
    let publish = PublishConfig {
        base_path: args.base_path.clone(),
        retain: config.schedule.retain,
        verifier_contract: args.verifier_contract.clone(),
        mirror: args.mirror.clone(),
    };
    if let Some(addr) = args.serve {
        let config = agentrep_server::ServerConfig {
            snapshots: args.ingest.snapshots.clone(),
            base_path: args.base_path.clone(),
            ..agentrep_server::ServerConfig::default()
        };
        let server = agentrep_server::Server::bind(addr, config).await?;
        info!(addr = %server.local_addr(), "Serving.");
        tokio::spawn(async move {
            if let Err(e) = server.run_until(std::future::pending::<()>()).await {
                warn!("server stopped: {e:#}");
            }
        });
    }
    let s = &config.schedule;
    let groups: [(&[SourceName], u64); 4] = [
        (&[SourceName::Labels, SourceName::Marketplace], s.marketplace_every_secs),
        (
            // Funding last: it follows every actor the others found.
            &[SourceName::Settlements, SourceName::Erc8004, SourceName::Launches, SourceName::Funding],
            s.chain_every_secs,
        ),
        (&[SourceName::Probes], s.probes_every_secs),
        (&[SourceName::Proofs, SourceName::AgentCards], s.proofs_every_secs),
    ];
    let mut due = [tokio::time::Instant::now(); 4];
    let bars = Bars::default();
    loop {
        // A scheduler that lost its lease (cut off from the bucket for a whole lease, and perhaps
        // taken over) stops before it writes again.
        lease.check()?;
        let now = now(args.clock, clients.chain.as_ref()).await?;
        let ctx = RunContext {
            lake,
            config: &config,
            chain: clients.chain.as_ref(),
            safe_http: &clients.safe,
            http: &clients.plain,
            bounds: Bounds::default(),
            now,
            progress: &bars,
        };
        for (i, (sources_of, every)) in groups.iter().enumerate() {
            if tokio::time::Instant::now() < due[i] {
                continue;
            }
            for source in *sources_of {
                if let Err(e) = sources::run(*source, &ctx).await {
                    warn!(source = %source, "{e:#}");
                }
            }
            due[i] = tokio::time::Instant::now() + Duration::from_secs(*every);
        }
        publish_status(lake, &args.ingest.snapshots)?;
        let mut checkpoint: SchedulerCheckpoint = lake.read_checkpoint("scheduler")?.unwrap_or_default();
        // The server's records (attestations, receipts, badge claims, discovery submissions) reach
        // the rebuild and the agent-card job through the lake.
        let explicit = std::env::var_os("AGENTREP_STORE").filter(|s| !s.is_empty()).map(std::path::PathBuf::from);
        let store_file = agentrep_server::store_path(&args.ingest.snapshots, explicit.as_deref());
        if store_file.is_file() && ready_day(lake, checkpoint.last_rebuilt)?.is_some() {
            let (l, f) = (lake.clone(), store_file.clone());
            let now = chrono::Utc::now().timestamp();
            match tokio::task::spawn_blocking(move || crate::export::export_store(&l, &f, now)).await? {
                Ok(r) => info!(
                    attestations = r.attestations,
                    receipts = r.receipts,
                    badge_claims = r.badge_claims,
                    submissions = r.submissions,
                    "Store exported into the lake."
                ),
                Err(e) => warn!("store export failed (the rebuild goes on without it): {e:#}"),
            }
        }
        while let Some(day) = ready_day(lake, checkpoint.last_rebuilt)? {
            lease.check()?;
            let (l, st, p, o) = (lake.clone(), store.clone(), publish.clone(), args.rebuild.clone());
            let outcome =
                tokio::task::spawn_blocking(move || crate::commands::rebuild_days_with(&l, &st, &p, &[day], o)).await?;
            match outcome {
                Ok(()) => info!(%day, "Day rebuilt and published."),
                Err(e) => {
                    warn!(%day, "rebuild failed: {e:#}");
                    break;
                }
            }
            checkpoint.last_rebuilt = Some(day);
            lake.write_checkpoint("scheduler", &checkpoint)?;
            if args.stop_after.is_some_and(|stop| day >= stop) {
                return Ok(());
            }
        }
        let next = due.iter().min().copied().unwrap_or_else(tokio::time::Instant::now);
        tokio::select! {
            _ = tokio::time::sleep_until(next.max(tokio::time::Instant::now() + Duration::from_millis(200))) => {}
            _ = tokio::signal::ctrl_c() => {
                info!("Stopping: checkpoints are stored; the next run resumes from them.");
                return Ok(());
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use agentrep_ingest::config::ChainConfig;

    /// The ingest follows funding chains as far back as the model's self-dealing check looks.
    #[test]
    fn funding_hops_default_is_the_models() {
        assert_eq!(ChainConfig::default().funding_hops, agentrep_model::trust::MAX_FUNDING_HOPS);
    }
}
