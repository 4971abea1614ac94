//! `agentrep ingest` (every selected source once) and `agentrep schedule` (every source on its
//! cadence, and the rebuild of each day once every required source has covered it).

use std::net::SocketAddr;
use std::path::{Path, PathBuf};
use std::time::Duration;

use agentrep_ingest::chain::Chain;
use agentrep_ingest::config::IngestConfig;
use agentrep_ingest::sources::plan::Deployment;
use agentrep_ingest::sources::{self, Bounds, Need, Progress, RunContext, SourceName, SourceStatus};
use agentrep_ingest::web;
use agentrep_lake::Lake;
use agentrep_publish::wire::{PaidProbeSpendV1, SourceStatusV1};
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
    paid: web::safe::SafeClient,
    plain: reqwest::Client,
    chain: Option<Chain>,
}

async fn connect(config: &IngestConfig, chain_needed: bool) -> anyhow::Result<Clients> {
    web::install_crypto_provider();
    let safe = web::safe::SafeClient::new(&config.probes).context("probe client")?;
    let customer = web::safe::Identity::customer(&config.paid_probes.user_agent, config.paid_probes.proxy.clone());
    let paid = web::safe::SafeClient::with_identity(&config.probes, &customer).context("paid probe client")?;
    let plain = web::plain_client(Duration::from_millis(config.marketplace.timeout_ms)).context("HTTP client")?;
    let chain = if chain_needed { Some(Chain::connect(&config.chain).await?) } else { None };
    Ok(Clients { safe, paid, plain, chain })
}

fn iso(t: DateTime<Utc>) -> String {
    t.to_rfc3339_opts(chrono::SecondsFormat::Secs, true)
}

/// Who a source's status is shown to.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Audience {
    /// `/status` (and every replica following a bucket): a private schedule shows no time.
    Public,
    /// The operator's own `--plan`: everything.
    Operator,
}

/// One source as `/status` and `--plan` show it: on or off and why, its cadence, when it is next
/// due, and its last run's state.
fn to_wire(source: SourceName, status: Option<&SourceStatus>, plan: &Plan, audience: Audience) -> SourceStatusV1 {
    let off_reason = plan.deployment().off_reason(source);
    let every = plan.config.schedule.every(source);
    let next_due = match (&off_reason, status) {
        (Some(_), _) => None,
        (None, None) => Some(Utc::now()),
        (None, Some(s)) => Some(due_after(s, every)),
    };
    // A private schedule (the paid probe's) shows no time: when its calls come is what a seller
    // that serves the oracle and robs everyone else would want to know.
    let public = audience == Audience::Operator || source.schedule() == agentrep_lake::sources::Schedule::Public;
    let when = |t: Option<DateTime<Utc>>| t.filter(|_| public).map(iso);
    SourceStatusV1 {
        source: source.to_string(),
        on: off_reason.is_none(),
        off_reason,
        every_secs: if public { every.as_secs() } else { 0 },
        next_due_at: when(next_due),
        covered_until: when(status.and_then(|s| s.covered_until)),
        last_block: status.and_then(|s| s.last_block),
        lag_seconds: status.and_then(|s| s.lag_seconds).filter(|_| public),
        last_run_at: when(status.map(|s| s.last_run_at)),
        last_success_at: when(status.and_then(|s| s.last_success_at)),
        last_error: status.and_then(|s| s.last_error.clone()),
        notes: status.and_then(|s| s.last_report.as_ref()).map(|r| r.notes.clone()).unwrap_or_default(),
        spend: status.and_then(|s| s.last_report.as_ref()).and_then(|r| r.spend.clone()).map(|s| PaidProbeSpendV1 {
            day: s.day.to_string(),
            budget: s.budget,
            max_price: s.max_price,
            spent: s.spent,
            calls: s.calls,
            delivered: s.delivered,
            undelivered: s.undelivered,
            unpaid_failures: s.unpaid_failures,
            pending: s.pending,
            over_cap_sellers: s.over_cap_sellers,
            waiting_sellers: s.waiting_sellers,
        }),
    }
}

/// Every source of the table, as `audience` is shown it.
fn statuses(lake: &Lake, plan: &Plan, audience: Audience) -> anyhow::Result<Vec<SourceStatusV1>> {
    let mut all = Vec::new();
    for source in SourceName::ALL {
        let status = sources::read_status(lake, *source)?;
        all.push(to_wire(*source, status.as_ref(), plan, audience));
    }
    Ok(all)
}

/// Publishes every source's status beside the snapshots, for `/status`.
fn publish_status(lake: &Lake, snapshots: &Path, plan: &Plan) -> anyhow::Result<()> {
    SnapshotStore::new(snapshots).write_sources(&statuses(lake, plan, Audience::Public)?)?;
    Ok(())
}

/// The configuration, where the server's store is, and so which sources are on.
struct Plan {
    config: IngestConfig,
    store: PathBuf,
}

impl Plan {
    fn new(args: &IngestArgs) -> anyhow::Result<Self> {
        let config = load_config(args)?;
        let explicit = std::env::var_os("AGENTREP_STORE").filter(|s| !s.is_empty()).map(PathBuf::from);
        let store = agentrep_server::store_path(&args.snapshots, explicit.as_deref());
        Ok(Self { config, store })
    }

    /// The deployment as it is now (the store file appears once the server first writes).
    fn deployment(&self) -> Deployment<'_> {
        Deployment::from_env(&self.config, Some(&self.store))
    }

    /// Whether any source that is on reads the chain.
    fn needs_chain(&self) -> bool {
        self.deployment().sources_on().iter().any(|s| s.reads_chain() || s.needs().contains(&Need::Chain))
    }
}

/// `agentrep schedule --plan`: every source, its cadence, on or off and why, when it is next due,
/// and how stale its data may get.
fn print_plan(lake: &Lake, plan: &Plan) -> anyhow::Result<()> {
    println!(
        "{:<3} {:<13} {:<4} {:>8}  {:<22} {:<28} why off / what it does",
        "#", "source", "on", "every", "next due", "stale after"
    );
    for (i, status) in statuses(lake, plan, Audience::Operator)?.iter().enumerate() {
        let source: SourceName = status.source.parse().map_err(anyhow::Error::msg)?;
        let stale: Vec<String> =
            source.freshness().iter().map(|f| format!("{} {}d", f.dataset.name(), f.max_age_days)).collect();
        let next = match &status.next_due_at {
            Some(at) if status.last_run_at.is_none() => format!("now (never run: {})", &at[11..19]),
            Some(at) => at.clone(),
            None => "-".to_owned(),
        };
        println!(
            "{:<3} {:<13} {:<4} {:>8}  {:<22} {:<28} {}",
            i + 1,
            status.source,
            if status.on { "on" } else { "off" },
            agentrep_lake::sources::human_secs(status.every_secs),
            next,
            stale.join(", "),
            status.off_reason.clone().unwrap_or_else(|| source
                .summary()
                .split_whitespace()
                .collect::<Vec<_>>()
                .join(" ")),
        );
    }
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

/// The run's time and its offset from the wall clock.
async fn run_clock(clock: Clock, chain: Option<&Chain>) -> anyhow::Result<(DateTime<Utc>, chrono::Duration)> {
    let now = now(clock, chain).await?;
    Ok((now, if clock == Clock::Wall { chrono::Duration::zero() } else { now - Utc::now() }))
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

/// `agentrep ingest`: the selected sources once, in the table's order (`all`: every source that is
/// on; the others are named with why they are off); every failure is reported, and the command
/// fails if any source failed. A run that can pay (the paid probe, on) takes the lake's scheduler
/// lease first, so it is refused beside a scheduler or another such run: the day's budget, the
/// journal and the day's partition have one writer.
pub async fn ingest(args: &IngestArgs, which: SourceArg, bounds: Bounds, clock: Clock) -> anyhow::Result<()> {
    let plan = Plan::new(args)?;
    let config = &plan.config;
    let deployment = plan.deployment();
    let selected: Vec<SourceName> = match which {
        SourceArg::All => {
            for source in SourceName::ALL {
                if let Some(why) = deployment.off_reason(*source) {
                    info!(source = %source, "Source off: {why}.");
                }
            }
            deployment.sources_on()
        }
        SourceArg::One(s) => vec![s],
    };
    let pays = config.paid_probes.enabled && selected.contains(&SourceName::PaidProbes);
    let _lease = match pays {
        true => Some(args.lake.lease("scheduler").context("a run that can pay takes the lake's lease")?),
        false => None,
    };
    let chain_needed = selected.iter().any(|s| s.reads_chain()) || clock == Clock::Chain;
    let clients = connect(config, chain_needed).await?;
    let lake = &args.lake;
    let bars = Bars::default();
    let (now, clock_offset) = run_clock(clock, clients.chain.as_ref()).await?;
    let ctx = RunContext {
        lake,
        config,
        chain: clients.chain.as_ref(),
        safe_http: &clients.safe,
        paid_http: &clients.paid,
        http: &clients.plain,
        store: deployment.store,
        bounds,
        now,
        clock_offset,
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
    publish_status(lake, &args.snapshots, &plan)?;
    if !failures.is_empty() {
        bail!("{} source(s) failed: {}", failures.len(), failures.join("; "));
    }
    Ok(())
}

/// `agentrep ingest --source paid-probes --dry-run`: the calls the paid probe would buy now, in its
/// order and within today's remaining budget, and the pool's wallets with their balances.
pub async fn paid_probes_dry_run(args: &IngestArgs, clock: Clock) -> anyhow::Result<()> {
    let plan = Plan::new(args)?;
    let clients = connect(&plan.config, clock == Clock::Chain).await?;
    let (now, clock_offset) = run_clock(clock, clients.chain.as_ref()).await?;
    let ctx = RunContext {
        lake: &args.lake,
        config: &plan.config,
        chain: clients.chain.as_ref(),
        safe_http: &clients.safe,
        paid_http: &clients.paid,
        http: &clients.plain,
        store: None,
        bounds: Bounds::default(),
        now,
        clock_offset,
        progress: &sources::NoProgress,
    };
    let dry = sources::paid_probes_dry_run(&ctx).await?;
    if !plan.config.paid_probes.enabled {
        println!("paid_probes.enabled is false: the scheduler buys none of these");
    }
    println!("paying wallets (fund each; micro-USDC):");
    for (address, balance) in &dry.wallets {
        println!("  {address:#x}  {balance}");
    }
    let total: u64 = dry.calls.iter().map(|c| c.price).sum();
    println!(
        "{} calls for {total} micro-USDC now ({} of {} spent today); {} sellers wait for budget; {} are priced over the cap ({} micro-USDC)",
        dry.calls.len(),
        dry.spent_today,
        dry.budget,
        dry.waiting,
        dry.over_cap,
        plan.config.paid_probes.max_price,
    );
    for c in &dry.calls {
        let wallet = c.wallet.map(|w| format!("{w:#x}")).unwrap_or_default();
        let why = if c.new_listing { "new listing".to_owned() } else { format!("{} settlements in 7 days", c.demand) };
        println!("  {}  {}  {} micro-USDC  from {wallet}  ({why})", c.pay_to, c.resource, c.price);
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

/// `agentrep schedule --plan`: the plan, without running anything.
pub fn plan(args: &IngestArgs) -> anyhow::Result<()> {
    print_plan(&args.lake, &Plan::new(args)?)
}

/// When `source` is next due: its cadence after its last run (so a restart does not run every
/// source again at once), or now when it never ran.
fn next_due(lake: &Lake, config: &IngestConfig, source: SourceName) -> anyhow::Result<DateTime<Utc>> {
    let every = config.schedule.every(source);
    Ok(sources::read_status(lake, source)?.map_or_else(Utc::now, |s| due_after(&s, every)))
}

/// A source's next run: its last run plus its cadence (a cadence past the calendar's end: never).
fn due_after(status: &SourceStatus, every: Duration) -> DateTime<Utc> {
    chrono::Duration::from_std(every)
        .ok()
        .and_then(|every| status.last_run_at.checked_add_signed(every))
        .unwrap_or(DateTime::<Utc>::MAX_UTC)
}

/// `agentrep schedule`: every source that is on, on its cadence from the sources table, in the
/// table's order; then the store export and the rebuild of each day every required source covers.
pub async fn schedule(args: ScheduleArgs) -> anyhow::Result<()> {
    let lake = &args.ingest.lake;
    // One scheduler per lake, on one machine or (bucket lake) many: a second one is refused.
    let lease = lake.lease("scheduler")?;
    let plan = Plan::new(&args.ingest)?;
    let config = &plan.config;
    for source in SourceName::ALL {
        match plan.deployment().off_reason(*source) {
            None => info!(source = %source, every_secs = config.schedule.every(*source).as_secs(), "Source on."),
            Some(why) => info!(source = %source, "Source off: {why}."),
        }
    }
    let clients = connect(config, plan.needs_chain()).await?;
    let store = SnapshotStore::new(&args.ingest.snapshots);
    let publish = PublishConfig {
        base_path: args.base_path.clone(),
        retain: config.schedule.retain,
        verifier_contract: args.verifier_contract.clone(),
        mirror: args.mirror.clone(),
    };
    if let Some(addr) = args.serve {
        let config = agentrep_server::ServerConfig::from_env(args.ingest.snapshots.clone(), args.base_path.clone())?;
        let server = agentrep_server::Server::bind(addr, config).await?;
        info!(addr = %server.local_addr(), "Serving.");
        tokio::spawn(async move {
            if let Err(e) = server.run_until(std::future::pending::<()>()).await {
                warn!("server stopped: {e:#}");
            }
        });
    }
    let bars = Bars::default();
    loop {
        // A scheduler that lost its lease (cut off from the bucket for a whole lease, and perhaps
        // taken over) stops before it writes again.
        lease.check()?;
        let deployment = plan.deployment();
        let (now, clock_offset) = run_clock(args.clock, clients.chain.as_ref()).await?;
        let ctx = RunContext {
            lake,
            config,
            chain: clients.chain.as_ref(),
            safe_http: &clients.safe,
            paid_http: &clients.paid,
            http: &clients.plain,
            store: deployment.store,
            bounds: Bounds::default(),
            now,
            clock_offset,
            progress: &bars,
        };
        for source in deployment.sources_on() {
            if next_due(lake, config, source)? > Utc::now() {
                continue;
            }
            if let Err(e) = sources::run(source, &ctx).await {
                warn!(source = %source, "{e:#}");
            }
        }
        let mut checkpoint: SchedulerCheckpoint = lake.read_checkpoint("scheduler")?.unwrap_or_default();
        // The server's records (attestations, receipts, badge claims, discovery submissions) reach
        // the rebuild through the lake: exported once more right before a rebuild, whatever its
        // cadence, so the day's rebuild sees every record up to its start.
        if deployment.off_reason(SourceName::StoreExport).is_none()
            && ready_day(lake, checkpoint.last_rebuilt)?.is_some()
            && let Err(e) = sources::run(SourceName::StoreExport, &ctx).await
        {
            warn!("store export failed (the rebuild goes on without it): {e:#}");
        }
        publish_status(lake, &args.ingest.snapshots, &plan)?;
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
        // Fast evidence (probes, the operator's paid calls, its denylist) reaches answers between
        // rebuilds: the overlay of the current snapshot is published after every round.
        if let Err(e) = crate::overlay::publish_overlay(lake, &store, args.mirror.as_deref()) {
            warn!("overlay not published: {e:#}");
        }
        let mut next = Utc::now() + chrono::Duration::hours(1);
        for source in plan.deployment().sources_on() {
            next = next.min(next_due(lake, config, source)?);
        }
        let wait = (next - Utc::now()).to_std().unwrap_or_default().max(Duration::from_millis(200));
        tokio::select! {
            _ = tokio::time::sleep(wait) => {}
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
