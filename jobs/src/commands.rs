//! What each subcommand does.

use std::path::{Path, PathBuf};
use std::time::Instant;

use agentrep_datasets::{Scale, WorldConfig};
use agentrep_lake::Lake;
use agentrep_pipeline::RebuildOptions;
use agentrep_publish::wire::{JobRunV1, SnapshotWritesV1};
use agentrep_publish::{PublishConfig, SnapshotStore};
use anyhow::{Context, bail};
use chrono::NaiveDate;
use tracing::{info, warn};

use crate::cli::{BenchCommand, Cli, Command, ScaleArg, WorldArg};
use crate::{eval, progress};

pub fn run(cli: Cli) -> anyhow::Result<()> {
    match cli.command {
        Command::World { lake, world: which, seed, no_griefing, scale, end, days, last_day_surge } => {
            let scale = match scale {
                ScaleArg::Tiny => Scale::Tiny,
                ScaleArg::Small => Scale::Small,
                ScaleArg::Bench => Scale::Bench,
                ScaleArg::Bench10 => Scale::Bench10,
                ScaleArg::Census => Scale::Census,
            };
            let base = match which {
                WorldArg::Tune => WorldConfig::new(scale),
                WorldArg::Test => WorldConfig::test_world(scale),
            };
            let config = WorldConfig {
                seed: seed.unwrap_or(base.seed),
                end,
                griefing: !no_griefing,
                days,
                settlement_days: (days != base.days).then_some(base.days),
                last_day_surge,
                ..base
            };
            world(&lake.open()?, config)
        }
        Command::Overlay { lake, snapshots, publish_to } => {
            let store = SnapshotStore::new(snapshots);
            let mirror = publish_to.as_ref().map(open_bucket).transpose()?;
            match crate::overlay::publish_overlay(&lake.open()?, &store, mirror.as_deref())? {
                Some(o) => println!(
                    "overlay of {}: {} probes, {} paid calls, {} denylist entries newer than the snapshot; {} sellers lowered",
                    o.snapshot_id,
                    o.probes,
                    o.paid_calls,
                    o.denylist_entries,
                    o.sellers.len()
                ),
                None => println!("no current snapshot with a live basis: no overlay"),
            }
            Ok(())
        }
        Command::Rebuild {
            lake,
            snapshots,
            date,
            all_days,
            retain,
            base_path,
            verifier_contract,
            publish_to,
            from_scratch,
            exact_trust,
            engine,
        } => {
            let mirror = publish_to.as_ref().map(open_bucket).transpose()?;
            let config = PublishConfig { base_path, retain, verifier_contract, mirror };
            let lake = lake.open()?;
            let store = SnapshotStore::new(snapshots);
            let days = days_to_rebuild(&lake, date, all_days)?;
            let options = RebuildOptions { from_scratch, exact_trust, engine: engine.open()? };
            rebuild_days_with(&lake, &store, &config, &days, options)
        }
        #[cfg(feature = "cluster")]
        Command::Cluster { role } => run_cluster_process(role),
        Command::StoreBackup { store, to } => {
            anyhow::ensure!(store.is_file(), "no store at {}", store.display());
            let opened = agentrep_store::Store::open(&store)
                .with_context(|| format!("opening the store {}", store.display()))?;
            opened.backup_to(&to).with_context(|| format!("backing the store up to {}", to.display()))?;
            println!("backed {} up to {}", store.display(), to.display());
            Ok(())
        }
        Command::ExportStatic { snapshots, snapshot, to } => export_static(&snapshots, snapshot.as_deref(), &to),
        Command::ExportStore { lake, store } => {
            let report = agentrep_ingest::sources::export_store(&lake.open()?, &store, chrono::Utc::now().timestamp())?;
            println!(
                "exported {} attestations, {} receipts, {} badge claims and {} discovery submissions into {} day partitions",
                report.attestations,
                report.receipts,
                report.badge_claims,
                report.submissions,
                report.days.len()
            );
            Ok(())
        }
        Command::Serve { snapshots, addr, base_path, snapshots_from, poll_secs, check: false } => {
            if let Some(url) = snapshots_from {
                follow_bucket(&snapshots, open_bucket(&url)?, std::time::Duration::from_secs(poll_secs))?;
            }
            serve(snapshots, addr, base_path)
        }
        Command::Serve { snapshots, base_path, check: true, .. } => {
            let (config, refused) = agentrep_server::ServerConfig::read_env(snapshots, base_path);
            let report = runtime()?.block_on(agentrep_server::check::run(&config, &refused));
            print!("{}", report.render());
            if report.failed() {
                bail!("the configuration would fail at the first sale (see the checks above)");
            }
            Ok(())
        }
        Command::Mcp { snapshots, base_path } => {
            let config = agentrep_server::ServerConfig::from_env(snapshots, base_path)?;
            agentrep_server::serve_mcp_stdio(&config).context("serving MCP on stdio")
        }
        Command::Eval { lake, snapshots, json, real: true } => {
            let report = crate::eval_real::evaluate(&lake, &snapshots)?;
            report.write(&snapshots)?;
            if json {
                println!("{}", serde_json::to_string_pretty(&report)?);
            } else {
                print!("{}", report.markdown());
            }
            Ok(())
        }
        Command::ImportReal { lake, payments, directory, facilitators, domain_ranks, domain_list, credits, day } => {
            let args = crate::realdata::ImportArgs {
                payments,
                directory,
                facilitators,
                domain_ranks,
                domain_list,
                credits,
                day,
            };
            let sidecar = crate::realdata::import(&Lake::new(&lake), &args)?;
            println!("{}", serde_json::to_string_pretty(&sidecar)?);
            Ok(())
        }
        Command::Eval { lake, snapshots, json, real: false } => {
            let report = eval::evaluate(&lake, &snapshots)?;
            eval::write(&report, &snapshots)?;
            if json {
                println!("{}", serde_json::to_string_pretty(&report)?);
            } else {
                print!("{}", report.render());
            }
            Ok(())
        }
        Command::Demo { dir, addr, fresh, no_serve, paid } => demo(&dir, addr, fresh, no_serve, paid),
        Command::Ingest { lake, rpc, config, source, dry_run, from_block, until_block, until, snapshots, clock } => {
            let snapshots = match snapshots {
                Some(snapshots) => snapshots,
                None => default_snapshots(lake.folder("ingest without --snapshots")?),
            };
            let args = crate::ingest::IngestArgs { lake: lake.open()?, rpc, config, snapshots };
            if dry_run {
                if source != crate::cli::SourceArg::One(agentrep_ingest::sources::SourceName::PaidProbes) {
                    anyhow::bail!("--dry-run goes with --source paid-probes (the only source that spends money)");
                }
                return runtime()?.block_on(crate::ingest::paid_probes_dry_run(&args, clock));
            }
            let bounds = agentrep_ingest::sources::Bounds { from_block, until_block, until_day: until };
            runtime()?.block_on(crate::ingest::ingest(&args, source, bounds, clock))
        }
        Command::Schedule {
            plan,
            lake,
            snapshots,
            rpc,
            config,
            serve,
            addr,
            base_path,
            stop_after,
            clock,
            verifier_contract,
            publish_to,
            engine,
        } => {
            if plan {
                return crate::ingest::plan(&crate::ingest::IngestArgs { lake: lake.open()?, rpc, config, snapshots });
            }
            let args = crate::ingest::ScheduleArgs {
                rebuild: RebuildOptions { engine: engine.open()?, ..RebuildOptions::default() },
                mirror: publish_to.as_ref().map(open_bucket).transpose()?,
                ingest: crate::ingest::IngestArgs { lake: lake.open()?, rpc, config, snapshots },
                serve: serve.then_some(addr),
                base_path,
                stop_after,
                clock,
                verifier_contract,
            };
            runtime()?.block_on(crate::ingest::schedule(args))
        }
        Command::Bench { what: BenchCommand::Floor { lake, date, runs } } => {
            let lake = Lake::new(lake);
            let day = days_to_rebuild(&lake, date, false)?[0];
            let mut times = Vec::new();
            let mut groups = 0;
            for _ in 0..runs.max(1) {
                let (g, elapsed) = agentrep_pipeline::floor_group_by(&lake, day)?;
                groups = g;
                times.push(elapsed.as_secs_f64() * 1000.0);
            }
            times.sort_by(f64::total_cmp);
            println!("{{\"groups\": {groups}, \"median_ms\": {:.1}, \"runs_ms\": {times:?}}}", times[times.len() / 2]);
            Ok(())
        }
        Command::Bench { what: BenchCommand::LiveBasis { snapshot, step } } => {
            let cost = crate::bench_live_basis::measure(&snapshot, step)?;
            println!("{}", serde_json::to_string(&cost)?);
            Ok(())
        }
        Command::Bench {
            what: BenchCommand::Logs { rpc, lake, from_block, to_block, log_window, max_log_window, topic_batch, usdc },
        } => {
            let scan = crate::bench::BareLogs {
                rpc,
                usdc,
                from: from_block,
                to: to_block,
                log_window,
                max_log_window,
                topic_batch,
            };
            let result = runtime()?.block_on(crate::bench::bare_logs(&scan, &Lake::new(lake)))?;
            println!("{}", serde_json::to_string(&result)?);
            Ok(())
        }
    }
}

/// `agentrep export-static`: the static file tree of snapshot `id` (default: the current one).
pub fn export_static(snapshots: &Path, id: Option<&str>, to: &Path) -> anyhow::Result<()> {
    let store = SnapshotStore::new(snapshots);
    let dir = match id {
        Some(id) => {
            anyhow::ensure!(
                store.list()?.iter().any(|s| s == id),
                "no snapshot {id} under {} (published: {})",
                snapshots.display(),
                store.list()?.join(", ")
            );
            snapshots.join(id)
        }
        None => store.current_dir()?,
    };
    let started = Instant::now();
    let export = agentrep_publish::static_export::export_static(&dir, to)
        .with_context(|| format!("exporting {} into {}", dir.display(), to.display()))?;
    println!(
        "exported {} into {}: {} files rendered from its tables, {} linked, {:.1} MB, in {:.1} s",
        dir.file_name().map_or_else(|| dir.display().to_string(), |n| n.to_string_lossy().into_owned()),
        to.display(),
        export.rendered,
        export.linked,
        export.bytes as f64 / 1e6,
        started.elapsed().as_secs_f64()
    );
    Ok(())
}

pub fn world(lake: &Lake, config: WorldConfig) -> anyhow::Result<()> {
    let started = Instant::now();
    let bar = progress::bar(u64::from(config.days) + 2, "world");
    let stats = agentrep_datasets::generate_into(&config, lake, &|done, total| {
        bar.set_length(total);
        bar.set_position(done);
    })
    .with_context(|| format!("generating the world into {}", lake.location()))?;
    bar.finish_and_clear();
    info!(
        lake = %lake.location(), scale = config.scale.as_str(), seed = config.seed,
        settlements = stats.settlements, probes = stats.probes, feedback = stats.feedback,
        listings = stats.listings, launches = stats.launches, observations = stats.observations,
        seconds = started.elapsed().as_secs_f64(), "World generated."
    );
    Ok(())
}

fn days_to_rebuild(lake: &Lake, date: Option<NaiveDate>, all_days: bool) -> anyhow::Result<Vec<NaiveDate>> {
    let days = lake.source_days().context("listing the lake's days")?;
    let Some(&newest) = days.last() else { bail!("the lake at {} holds no data", lake.location()) };
    Ok(match (date, all_days) {
        (Some(d), false) => vec![d],
        (None, false) => vec![newest],
        (from, true) => {
            let from = from.unwrap_or(days[0]);
            // Only days with settlements are rebuild days (a world's history starts there).
            let settled: Vec<NaiveDate> =
                lake.partition_days(agentrep_lake::Dataset::Settlements)?.into_iter().filter(|d| *d >= from).collect();
            settled
        }
    })
}

pub fn rebuild_days(
    lake: &Lake,
    store: &SnapshotStore,
    config: &PublishConfig,
    days: &[NaiveDate],
) -> anyhow::Result<()> {
    rebuild_days_with(lake, store, config, days, RebuildOptions::default())
}

/// Runs a cluster process until it is stopped.
#[cfg(feature = "cluster")]
fn run_cluster_process(role: crate::cli::ClusterRole) -> anyhow::Result<()> {
    use crate::cli::ClusterRole;
    match role {
        ClusterRole::Scheduler { bind, executor_timeout_secs } => {
            agentrep_cluster::run_scheduler(bind, std::time::Duration::from_secs(executor_timeout_secs))
                .with_context(|| format!("running the scheduler on {bind}"))
        }
        ClusterRole::Executor { bind, scheduler, concurrent_tasks, work_dir, heartbeat_secs } => {
            let concurrent_tasks =
                concurrent_tasks.unwrap_or_else(|| std::thread::available_parallelism().map_or(1, |n| n.get()));
            let heartbeat = std::time::Duration::from_secs(heartbeat_secs);
            let settings =
                agentrep_cluster::ExecutorSettings { bind, scheduler, concurrent_tasks, work_dir, heartbeat };
            agentrep_cluster::run_executor(&settings).with_context(|| format!("running the executor on {bind}"))
        }
    }
}

/// Rebuilds and publishes each of `days` in turn, recording every run in `runs.jsonl`.
pub fn rebuild_days_with(
    lake: &Lake,
    store: &SnapshotStore,
    config: &PublishConfig,
    days: &[NaiveDate],
    options: RebuildOptions,
) -> anyhow::Result<()> {
    let bar = progress::bar(days.len() as u64, "rebuild");
    for day in days {
        let started_at = chrono::Utc::now().to_rfc3339_opts(chrono::SecondsFormat::Secs, true);
        let started = Instant::now();
        let result = rebuild_one(lake, store, config, *day, options.clone());
        // Every run is logged, failures too, so `/status` shows what the scheduler actually did.
        let (snapshot_id, outcome, passes, written) = match &result {
            Ok(day) => (day.snapshot_id.clone(), "ok".to_owned(), day.passes.clone(), Some(day.written)),
            Err(err) => (String::new(), format!("error: {err:#}"), Vec::new(), None),
        };
        store.record_run(&JobRunV1 {
            job: "rebuild".to_owned(),
            date: day.to_string(),
            snapshot_id,
            started_at,
            duration_ms: started.elapsed().as_millis() as u64,
            outcome,
            passes,
            written,
        })?;
        result?;
        bar.inc(1);
    }
    bar.finish_and_clear();
    Ok(())
}

/// One day rebuilt and published.
struct PublishedDay {
    snapshot_id: String,
    /// Each pass's duration, milliseconds.
    passes: Vec<(String, u64)>,
    written: SnapshotWritesV1,
}

/// Rebuilds and publishes one day.
fn rebuild_one(
    lake: &Lake,
    store: &SnapshotStore,
    config: &PublishConfig,
    day: NaiveDate,
    options: RebuildOptions,
) -> anyhow::Result<PublishedDay> {
    let started = Instant::now();
    let (input, timings) =
        agentrep_pipeline::rebuild_with(lake, day, options).with_context(|| format!("rebuilding {day}"))?;
    let t = Instant::now();
    let published = store.publish(&input, config).with_context(|| format!("publishing {day}"))?;
    let mut passes: Vec<(String, u64)> = timings.passes.iter().map(|(n, ms)| ((*n).to_owned(), *ms as u64)).collect();
    passes.push(("publish".to_owned(), t.elapsed().as_millis() as u64));
    let w = published.written;
    info!(day = %day, snapshot = %published.id, sellers = input.sellers.len(), deployers = input.deployers.len(),
        files = published.manifest.files.len(), files_written = w.files_written, bytes_written = w.bytes_written,
        files_kept = w.files_kept, ms = started.elapsed().as_millis() as u64, ?passes, carried = ?timings.carried,
        "Snapshot published.");
    Ok(PublishedDay { snapshot_id: published.id, passes, written: w })
}

fn runtime() -> anyhow::Result<tokio::runtime::Runtime> {
    Ok(tokio::runtime::Builder::new_multi_thread().enable_all().build()?)
}

/// `snapshots` beside the lake folder.
/// The bucket at `url`, configured from the `AWS_*` variables.
fn open_bucket(url: &agentrep_lake::BucketUrl) -> anyhow::Result<std::sync::Arc<agentrep_lake::Bucket>> {
    Ok(std::sync::Arc::new(agentrep_lake::Bucket::new(url, &[]).with_context(|| format!("opening {url}"))?))
}

/// A replica's side of a snapshot bucket: fetches the bucket's current snapshot now (a failure
/// stops the start: a replica pointed at the wrong bucket should not come up empty), then looks
/// again every `every` on a thread of its own; the server picks each new `current` up itself.
fn follow_bucket(
    snapshots: &Path,
    bucket: std::sync::Arc<agentrep_lake::Bucket>,
    every: std::time::Duration,
) -> anyhow::Result<()> {
    use agentrep_publish::mirror;
    let store = SnapshotStore::new(snapshots);
    let retain = PublishConfig::default().retain;
    let url = bucket.url().to_string();
    match mirror::pull(&store, &bucket, retain).with_context(|| format!("fetching the current snapshot of {url}"))? {
        Some(id) => info!(bucket = %url, snapshot = %id, "Snapshot fetched from the bucket."),
        None => info!(bucket = %url, current = ?store.current_id(), "The bucket has no newer snapshot."),
    }
    std::thread::Builder::new().name("snapshot-follower".into()).spawn(move || {
        loop {
            std::thread::sleep(every);
            match mirror::pull(&store, &bucket, retain) {
                Ok(Some(id)) => info!(bucket = %url, snapshot = %id, "Snapshot fetched from the bucket."),
                Ok(None) => {}
                Err(e) => tracing::warn!(bucket = %url, "Fetching the bucket's current snapshot failed; serving the last one: {e}"),
            }
        }
    })?;
    Ok(())
}

fn default_snapshots(lake: &Path) -> PathBuf {
    lake.parent().map_or_else(|| PathBuf::from("snapshots"), |p| p.join("snapshots"))
}

fn serve(snapshots: PathBuf, addr: std::net::SocketAddr, base_path: String) -> anyhow::Result<()> {
    let config = agentrep_server::ServerConfig::from_env(snapshots, base_path)?;
    runtime()?.block_on(serve_config(config, addr, |_, _| String::new()))
}

/// Binds, prints where it serves (and `announce`'s text, given the base URL and the server),
/// serves until Ctrl-C.
async fn serve_config(
    config: agentrep_server::ServerConfig,
    addr: std::net::SocketAddr,
    announce: impl FnOnce(&str, &agentrep_server::Server) -> String,
) -> anyhow::Result<()> {
    let server = agentrep_server::Server::bind(addr, config).await?;
    let base = format!("http://{}{}", server.local_addr(), server.base_path());
    println!("agentrep is serving on {base}");
    for example in server.example_paths() {
        println!("  curl {base}{example}");
    }
    print!("{}", announce(&base, &server));
    use std::io::Write as _;
    let _ = std::io::stdout().flush();
    server.run_until(shutdown_signal()).await?;
    Ok(())
}

/// Ctrl-C, or SIGTERM (what a service manager sends): open connections then finish.
async fn shutdown_signal() {
    let terminate = async {
        match tokio::signal::unix::signal(tokio::signal::unix::SignalKind::terminate()) {
            Ok(mut term) => {
                term.recv().await;
            }
            Err(_) => std::future::pending::<()>().await,
        }
    };
    tokio::select! {
        _ = tokio::signal::ctrl_c() => {}
        () = terminate => {}
    }
}

fn demo(dir: &Path, addr: std::net::SocketAddr, fresh: bool, no_serve: bool, paid: bool) -> anyhow::Result<()> {
    let lake_dir = dir.join("lake");
    let snapshots = dir.join("snapshots");
    let config = WorldConfig::new(Scale::Small);
    let lake = Lake::new(&lake_dir);
    let store = SnapshotStore::new(&snapshots);
    let lake_built = !fresh && lake_dir.join(agentrep_datasets::LABELS_FILE).is_file();
    // Snapshots written by an older version may lack files this one reads: they are republished
    // from the lake rather than served as a 503.
    let published = store
        .current_dir()
        .ok()
        .and_then(|d| agentrep_publish::LoadedSnapshot::load(&d).ok())
        .and_then(|s| NaiveDate::parse_from_str(&s.manifest.snapshot_date, "%Y-%m-%d").ok());
    let days = config.days();
    let started = Instant::now();
    let published = match published {
        Some(day) if lake_built => {
            info!(dir = %dir.display(), %day, "Demo world already built; use --fresh to rebuild it.");
            day
        }
        _ => {
            let stale: &[&Path] = if lake_built { &[&snapshots] } else { &[&lake_dir, &snapshots] };
            for stale in stale {
                if stale.exists() {
                    std::fs::remove_dir_all(stale).with_context(|| format!("clearing {}", stale.display()))?;
                }
            }
            if lake_built {
                info!(dir = %dir.display(), "The demo's snapshots do not load in this version; republishing them from the lake.");
            } else {
                world(&lake, config)?;
            }
            rebuild_days(&lake, &store, &PublishConfig::default(), &days[..1])?;
            days[0]
        }
    };
    // The days after the one served: all of them before returning with --no-serve; otherwise one
    // after the other while the server answers from the newest (a demo stopped half-way goes on
    // from there the next time).
    let to_fill: Vec<NaiveDate> = days.iter().copied().filter(|d| *d > published).collect();
    if no_serve || to_fill.is_empty() {
        rebuild_days(&lake, &store, &PublishConfig::default(), &to_fill)?;
        store.clear_backfill()?;
        info!(seconds = started.elapsed().as_secs_f64(), "Demo world built and its 30 daily snapshots published.");
    } else {
        let last = *to_fill.last().expect("a day to fill");
        store.write_backfill(&agentrep_publish::wire::BackfillV1 { fills_to: last.to_string() })?;
        info!(
            seconds = started.elapsed().as_secs_f64(),
            %published,
            days_left = to_fill.len(),
            "Demo serving its newest day; the days after it are rebuilt and published while it serves."
        );
        let (lake, store) = (lake.clone(), store.clone());
        // Each day is published as soon as it is rebuilt, and the server moves on to it.
        std::thread::spawn(move || {
            if let Err(e) = rebuild_days(&lake, &store, &PublishConfig::default(), &to_fill) {
                warn!("The demo's history stopped filling: {e:#}");
                return;
            }
            if let Err(e) = store.clear_backfill() {
                warn!("{e:#}");
            }
            info!(seconds = started.elapsed().as_secs_f64(), "Demo history filled: all 30 days published.");
        });
    }
    if no_serve {
        return Ok(());
    }
    let mut config = agentrep_server::ServerConfig::from_env(snapshots, "/api/agent".to_owned())?;
    if config.operator_key.is_none() {
        // The demo signs attestations with a key of its own, marked as a demo key.
        let path = dir.join("operator-demo.key");
        config.operator_key = Some(
            agentrep_server::attest::demo_key(&path)
                .with_context(|| format!("demo operator key {}", path.display()))?,
        );
        config.operator_key_is_demo = true;
    }
    let runtime = runtime()?;
    if !paid {
        return runtime.block_on(serve_config(config, addr, |_, _| String::new()));
    }
    runtime.block_on(async move {
        let root = std::env::current_dir().context("the working folder")?;
        let demo = crate::paid_demo::start(&root, dir, config.clone()).await.context("starting the paid demo")?;
        info!(chain = %demo.chain.url(), "Local payment chain ready.");
        serve_config(demo.config.clone(), addr, |base, server| {
            crate::paid_demo::instructions(&demo, &root, base, server.top_seller().as_deref())
        })
        .await
    })
}
