//! The command-line contract. Scripts and operators depend on these names and flags; every flag
//! can also come from an `AGENTREP_*` environment variable.

use std::net::SocketAddr;
use std::path::{Path, PathBuf};

use agentrep_lake::{BucketUrl, Lake, LakeLocation};
use anyhow::{Context, bail};
use chrono::NaiveDate;
use clap::{Parser, Subcommand, ValueEnum};

/// agentrep: the reputation oracle for the agent economy.
#[derive(Debug, Parser)]
#[command(name = "agentrep", version, about, propagate_version = true)]
pub struct Cli {
    /// More logs (`-v` debug, `-vv` trace); `RUST_LOG` overrides.
    #[arg(short, long, action = clap::ArgAction::Count, global = true)]
    pub verbose: u8,
    /// Log lines as text (colour only on a terminal) or as one JSON object per line, for log
    /// shippers.
    #[arg(long, env = "AGENTREP_LOG_FORMAT", value_enum, default_value = "text", global = true)]
    pub log_format: LogFormat,
    /// What to do.
    #[command(subcommand)]
    pub command: Command,
}

/// How log lines are written (to stderr).
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum LogFormat {
    /// Human-readable lines; ANSI colours only when stderr is a terminal.
    Text,
    /// One JSON object per line (timestamp, level, target, fields).
    Json,
}

/// World sizes.
#[derive(Debug, Clone, Copy, ValueEnum)]
pub enum ScaleArg {
    /// About 30 sellers, a few thousand settlements (replayed onto a local chain in tests).
    Tiny,
    /// About 2,000 sellers, 200k settlements (the default world).
    Small,
    /// 100k sellers, 10M settlements (benchmarks).
    Bench,
    /// 1M sellers, 100M settlements (the ten-times benchmark; a long generation and a large lake).
    Bench10,
    /// The real economy's shape (a census of Base's x402 settlements): 1,500 listed sellers among
    /// 163k receiving wallets, about 345k settlements a day; with `--days 540`, its age.
    Census,
}

/// Which generated world.
#[derive(Debug, Clone, Copy, ValueEnum)]
pub enum WorldArg {
    /// The default world: seed 8402, tuning knob ranges.
    Tune,
    /// The held-out test world: another seed, wider knob ranges.
    Test,
}

/// Where the lake is: `--lake` and, for a bucket, where its local copies go.
#[derive(Debug, Clone, clap::Args)]
pub struct LakeArg {
    /// The lake: a folder, or `s3://bucket/prefix` on an S3-compatible store (endpoint, region
    /// and credentials from `AWS_ENDPOINT_URL`, `AWS_REGION`, `AWS_ACCESS_KEY_ID`,
    /// `AWS_SECRET_ACCESS_KEY`; `AWS_ALLOW_HTTP=true` for a plain-HTTP endpoint).
    #[arg(long = "lake", env = "AGENTREP_LAKE")]
    pub location: LakeLocation,
    /// Where a bucket lake keeps the local copies it reads and the rebuild's carried state
    /// (default: `$XDG_CACHE_HOME/agentrep/lake/<bucket>/<prefix>`, or under `~/.cache`).
    #[arg(long, env = "AGENTREP_LAKE_CACHE")]
    pub lake_cache: Option<PathBuf>,
}

/// The processes of a Ballista cluster.
#[cfg(feature = "cluster")]
#[derive(Debug, Clone, Subcommand)]
pub enum ClusterRole {
    /// The scheduler: plans each statement into stages and hands their tasks to executors.
    Scheduler {
        /// Address to listen on (gRPC); clients give it as `df://host:port`.
        #[arg(long, env = "AGENTREP_SCHEDULER_BIND", default_value = "127.0.0.1:50050")]
        bind: SocketAddr,
        /// An executor silent this long is dead: its tasks run again on the others, seconds.
        #[arg(long, default_value_t = 180)]
        executor_timeout_secs: u64,
    },
    /// An executor: runs tasks, serving their results to other executors and the client
    /// (Arrow Flight on `--bind`, gRPC on the next port).
    Executor {
        /// Address to serve results on; the next port takes the scheduler's calls.
        #[arg(long, env = "AGENTREP_EXECUTOR_BIND", default_value = "127.0.0.1:50051")]
        bind: SocketAddr,
        /// The scheduler to register with.
        #[arg(long, env = "AGENTREP_CLUSTER_SCHEDULER", default_value = "127.0.0.1:50050")]
        scheduler: SocketAddr,
        /// Tasks to run at once (default: the machine's cores).
        #[arg(long)]
        concurrent_tasks: Option<usize>,
        /// Folder for its shuffle files (default: a temporary folder).
        #[arg(long)]
        work_dir: Option<PathBuf>,
        /// How often it tells the scheduler it is alive, seconds (below the scheduler's
        /// `--executor-timeout-secs`).
        #[arg(long, default_value_t = 60)]
        heartbeat_secs: u64,
    },
}

/// Where the rebuild's settlement pass runs: `--engine` and, for a cluster, its scheduler.
#[derive(Debug, Clone, clap::Args)]
pub struct EngineArg {
    /// The engine of the settlement pass, the one pass whose input grows with the chain's history:
    /// the embedded DuckDB, or a Ballista cluster reading a bucket lake (`--scheduler`). The
    /// snapshot is the same either way.
    #[arg(long, env = "AGENTREP_ENGINE", value_enum, default_value = "duckdb")]
    pub engine: EngineKind,
    /// The Ballista scheduler, `df://host:port` (with `--engine ballista`).
    #[arg(long, env = "AGENTREP_SCHEDULER")]
    pub scheduler: Option<String>,
    /// The longest one statement of the pass may run on the cluster before the rebuild fails
    /// (and publishes nothing), seconds.
    #[arg(long, env = "AGENTREP_CLUSTER_TIMEOUT_SECS", default_value_t = 3600)]
    pub cluster_timeout_secs: u64,
}

/// The engines of `--engine`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum EngineKind {
    /// DuckDB, embedded in the rebuild (the default).
    Duckdb,
    /// An Apache DataFusion Ballista cluster (`agentrep cluster scheduler` and `executor`).
    Ballista,
}

impl EngineArg {
    /// The engine to hand the rebuild (`None`: the embedded DuckDB).
    pub fn open(&self) -> anyhow::Result<Option<std::sync::Arc<dyn agentrep_pipeline::PassEngine>>> {
        match self.engine {
            EngineKind::Duckdb => Ok(None),
            EngineKind::Ballista => {
                let scheduler =
                    self.scheduler.as_deref().context("--engine ballista needs --scheduler df://host:port")?;
                anyhow::ensure!(scheduler.starts_with("df://"), "--scheduler {scheduler}: expected df://host:port");
                ballista_engine(scheduler, std::time::Duration::from_secs(self.cluster_timeout_secs))
            }
        }
    }
}

#[cfg(feature = "cluster")]
fn ballista_engine(
    scheduler: &str,
    timeout: std::time::Duration,
) -> anyhow::Result<Option<std::sync::Arc<dyn agentrep_pipeline::PassEngine>>> {
    let engine = agentrep_cluster::Ballista::new(scheduler, timeout).context("starting the cluster client")?;
    Ok(Some(std::sync::Arc::new(engine)))
}

#[cfg(not(feature = "cluster"))]
fn ballista_engine(
    _scheduler: &str,
    _timeout: std::time::Duration,
) -> anyhow::Result<Option<std::sync::Arc<dyn agentrep_pipeline::PassEngine>>> {
    bail!(
        "this agentrep was built without the Ballista engine: build it with `make build-cluster` (cargo feature `cluster`)"
    )
}

impl LakeArg {
    /// Opens the lake (a bucket's client is configured here; nothing is fetched yet).
    pub fn open(&self) -> anyhow::Result<Lake> {
        let cache = match (&self.location, &self.lake_cache) {
            (_, Some(cache)) => cache.clone(),
            (LakeLocation::Folder(_), None) => PathBuf::new(),
            (LakeLocation::Bucket(url), None) => {
                let home = std::env::var_os("XDG_CACHE_HOME")
                    .map(PathBuf::from)
                    .or_else(|| std::env::var_os("HOME").map(|h| PathBuf::from(h).join(".cache")))
                    .context("no XDG_CACHE_HOME or HOME for a bucket lake's cache: pass --lake-cache")?;
                home.join("agentrep").join("lake").join(&url.bucket).join(&url.prefix)
            }
        };
        Lake::open(&self.location, &cache).with_context(|| format!("opening the lake at {}", self.location))
    }

    /// The folder, for commands that only work on a folder lake.
    pub fn folder(&self, command: &str) -> anyhow::Result<&Path> {
        match &self.location {
            LakeLocation::Folder(path) => Ok(path),
            LakeLocation::Bucket(url) => bail!("`{command}` works on a folder lake, not on {url}"),
        }
    }
}

/// Subcommands.
#[derive(Debug, Subcommand)]
pub enum Command {
    /// What `make run` does: generate the default world, rebuild each of its 30 days, publish,
    /// and serve the newest snapshot.
    Demo {
        /// Working folder (lake in DIR/lake, snapshots in DIR/snapshots).
        #[arg(long, env = "AGENTREP_DIR", default_value = "demo")]
        dir: PathBuf,
        /// Address to listen on.
        #[arg(long, env = "AGENTREP_ADDR", default_value = "127.0.0.1:8402")]
        addr: SocketAddr,
        /// Regenerate and rebuild even if the folder already holds the world.
        #[arg(long)]
        fresh: bool,
        /// Build only; do not serve.
        #[arg(long)]
        no_serve: bool,
        /// Take payments on a local chain: start anvil (installed by `make run-paid`), place USDC,
        /// fund a relayer and a buyer, sign with the demo key, read live re-scores from that chain,
        /// and print a buy an official x402 client makes.
        #[arg(long, conflicts_with = "no_serve")]
        paid: bool,
    },
    /// Generate a world into a lake folder.
    World {
        #[command(flatten)]
        lake: LakeArg,
        /// Which world: `tune` (the default world, seed 8402, the knob ranges the model may be
        /// tuned on) or `test` (the held-out world: another seed, wider knob ranges).
        #[arg(long, value_enum, default_value = "tune")]
        world: WorldArg,
        /// Seed of the world (default: the chosen world's seed).
        #[arg(long)]
        seed: Option<u64>,
        /// Leave out the outsiders' griefing evidence (the evaluation's counterfactual).
        #[arg(long)]
        no_griefing: bool,
        /// Size of the world.
        #[arg(long, value_enum, default_value = "small")]
        scale: ScaleArg,
        /// Last day of the world.
        #[arg(long, default_value_t = agentrep_datasets::DEFAULT_END)]
        end: NaiveDate,
        /// Days of history. Longer than 30, the world keeps the 30-day world's daily settlement
        /// rate, so it holds proportionally more (the history-length benchmarks).
        #[arg(long, default_value_t = 30, value_parser = clap::value_parser!(u32).range(2..=3650))]
        days: u32,
        /// Multiplier of the last day's settlements: 10 makes a news day with ten times the usual
        /// new settlements.
        #[arg(long, default_value_t = 1, value_parser = clap::value_parser!(u32).range(1..=1000))]
        last_day_surge: u32,
    },
    /// Publish the overlay of the current snapshot: probes, the operator's paid calls and
    /// denylist entries newer than it, which can only lower a seller's decision (the scheduler
    /// publishes one after every round of ingest).
    Overlay {
        #[command(flatten)]
        lake: LakeArg,
        /// Snapshots folder.
        #[arg(long, env = "AGENTREP_SNAPSHOTS")]
        snapshots: PathBuf,
        /// The snapshot bucket (`s3://bucket/prefix`; `AWS_*` as for a bucket lake): every snapshot and
        /// overlay published is pushed there too, and the bucket's `current` pointed at the
        /// snapshot: what `serve --snapshots-from` replicas and a CDN in front of the bucket serve.
        #[arg(long, env = "AGENTREP_PUBLISH_TO")]
        publish_to: Option<BucketUrl>,
    },
    /// Rebuild one day from the lake into a new snapshot and make it current.
    Rebuild {
        #[command(flatten)]
        lake: LakeArg,
        /// Snapshots folder.
        #[arg(long, env = "AGENTREP_SNAPSHOTS")]
        snapshots: PathBuf,
        /// Day to rebuild (default: the newest day in the lake).
        #[arg(long)]
        date: Option<NaiveDate>,
        /// Rebuild every day from DATE (or the lake's first day) up to the newest.
        #[arg(long)]
        all_days: bool,
        /// Snapshots to keep.
        #[arg(long, env = "AGENTREP_RETAIN", default_value_t = 7)]
        retain: usize,
        /// Base path of links in payloads.
        #[arg(long, env = "AGENTREP_BASE_PATH", default_value = "/api/agent")]
        base_path: String,
        /// The operator's deployed ScoreVerifier, named in every score payload.
        #[arg(long, env = "AGENTREP_VERIFIER_CONTRACT", value_parser = parse_address)]
        verifier_contract: Option<String>,
        /// The snapshot bucket (`s3://bucket/prefix`; `AWS_*` as for a bucket lake): every snapshot and
        /// overlay published is pushed there too, and the bucket's `current` pointed at the
        /// snapshot: what `serve --snapshots-from` replicas and a CDN in front of the bucket serve.
        #[arg(long, env = "AGENTREP_PUBLISH_TO")]
        publish_to: Option<BucketUrl>,
        /// Fold the carried state (first fundings, token deployers, token buys) from every
        /// partition instead of the state the previous rebuild stored; the snapshot is the same.
        #[arg(long)]
        from_scratch: bool,
        /// Iterate trust to its exact fixed point instead of stopping at the methodology's
        /// tolerance: slower, for checking what the tolerance changes (BENCHMARKS.md § 4d).
        #[arg(long)]
        exact_trust: bool,
        #[command(flatten)]
        engine: EngineArg,
    },
    /// Run a process of a Ballista cluster for `rebuild --engine ballista`: its scheduler, or
    /// one of its executors. Each reads the lake's bucket with the `AWS_*` variables and runs
    /// until stopped.
    #[cfg(feature = "cluster")]
    Cluster {
        #[command(subcommand)]
        role: ClusterRole,
    },
    /// Carry the server's store records the rebuild and the ingest jobs read (signed
    /// attestations, receipts, badge claims, discovery submissions) into the lake; `schedule`
    /// runs it before each rebuild.
    ExportStore {
        #[command(flatten)]
        lake: LakeArg,
        /// The server's store (the file `serve` writes: `agentrep-store.sqlite` beside the
        /// snapshots folder, or `AGENTREP_STORE`).
        #[arg(long, env = "AGENTREP_STORE")]
        store: PathBuf,
    },
    /// Write a consistent copy of the server's store while the server runs (SQLite `VACUUM
    /// INTO`: every write acknowledged before the copy began is in it). Restore by stopping the
    /// server and putting the copy in the store's place.
    StoreBackup {
        /// The server's store.
        #[arg(long, env = "AGENTREP_STORE")]
        store: PathBuf,
        /// The copy to write; it must not exist.
        #[arg(long)]
        to: PathBuf,
    },
    /// Write a snapshot's static file tree (every score document, badge, deployer document and
    /// bundle rendered from its record tables, its other files linked beside them, and its
    /// manifest) into a new folder, for deployments that serve snapshots with nginx or a CDN.
    ExportStatic {
        /// Snapshots folder.
        #[arg(long, env = "AGENTREP_SNAPSHOTS")]
        snapshots: PathBuf,
        /// Snapshot id (default: the current snapshot).
        #[arg(long)]
        snapshot: Option<String>,
        /// Folder to write; it must not exist or be empty.
        #[arg(long)]
        to: PathBuf,
    },
    /// Serve a snapshots folder, picking up new snapshots without a restart.
    Serve {
        /// Snapshots folder.
        #[arg(long, env = "AGENTREP_SNAPSHOTS")]
        snapshots: PathBuf,
        /// Address to listen on.
        #[arg(long, env = "AGENTREP_ADDR", default_value = "127.0.0.1:8402")]
        addr: SocketAddr,
        /// Base path of the routes.
        #[arg(long, env = "AGENTREP_BASE_PATH", default_value = "/api/agent")]
        base_path: String,
        /// Serve as a replica of a publisher's bucket (`s3://bucket/prefix`, the one its `rebuild
        /// --publish-to` names; `AWS_*` as for a bucket lake): the snapshot the bucket calls current
        /// is fetched into the snapshots folder, checked against its manifest and served, and the
        /// bucket is looked at again every `--poll-secs`.
        #[arg(long, env = "AGENTREP_SNAPSHOTS_FROM")]
        snapshots_from: Option<BucketUrl>,
        /// Seconds between two looks at the bucket's current snapshot (with `--snapshots-from`).
        #[arg(long, env = "AGENTREP_SNAPSHOTS_POLL_SECS", default_value_t = 30, value_parser = clap::value_parser!(u64).range(1..=86_400))]
        poll_secs: u64,
        /// Do not serve: print the effective configuration (secrets redacted), try the snapshot,
        /// the store, the keys, the payment node, the way to settle and the live sources, and
        /// exit non-zero if anything would fail at the first sale.
        #[arg(long)]
        check: bool,
    },
    /// Serve the MCP tools on stdin and stdout (newline-delimited JSON-RPC; logs on stderr), from
    /// a snapshots folder, picking up new snapshots without a restart. For MCP clients that
    /// start their servers as processes; `serve` answers MCP over HTTP at `/mcp`.
    Mcp {
        /// Snapshots folder.
        #[arg(long, env = "AGENTREP_SNAPSHOTS")]
        snapshots: PathBuf,
        /// Base path of the routes that links in answers point at.
        #[arg(long, env = "AGENTREP_BASE_PATH", default_value = "/api/agent")]
        base_path: String,
    },
    /// Run the ingest sources once, each from its checkpoint, into a lake.
    Ingest {
        #[command(flatten)]
        lake: LakeArg,
        /// JSON-RPC endpoint (overrides the config's `chain.rpc_urls`).
        #[arg(long, env = "AGENTREP_RPC")]
        rpc: Option<url::Url>,
        /// Configuration file (`agentrep.toml`; see `agentrep.example.toml`).
        #[arg(long, env = "AGENTREP_CONFIG")]
        config: Option<PathBuf>,
        /// Which source (`all`: every source that is on, in the sources table's order).
        #[arg(long, default_value = "all")]
        source: SourceArg,
        /// With `--source paid-probes`: print the calls it would buy now (seller, resource, price,
        /// paying wallet) and the pool's wallets with their balances; pay nothing, write nothing.
        #[arg(long)]
        dry_run: bool,
        /// Where a chain source without a checkpoint starts.
        #[arg(long)]
        from_block: Option<u64>,
        /// Last block to read.
        #[arg(long, conflicts_with = "until")]
        until_block: Option<u64>,
        /// Last day to read (UTC), found by a block-by-timestamp search.
        #[arg(long)]
        until: Option<NaiveDate>,
        /// Where the sources' status is written for `/status` (default: LAKE/../snapshots for a
        /// folder lake; required for a bucket lake).
        #[arg(long, env = "AGENTREP_SNAPSHOTS")]
        snapshots: Option<PathBuf>,
        /// Clock of the off-chain sources' rows: `wall`, or `chain` (the safe head's block time,
        /// for replays of a world onto a local chain).
        #[arg(long, value_enum, default_value = "wall")]
        clock: crate::ingest::Clock,
    },
    /// Run until stopped: every source on its cadence, and the rebuild and publication of each
    /// day once every required source has covered it.
    Schedule {
        /// Print the plan (every source, its cadence, on or off and why, when it is next due, how
        /// stale its data may get) and exit without running anything.
        #[arg(long)]
        plan: bool,
        #[command(flatten)]
        lake: LakeArg,
        /// Snapshots folder.
        #[arg(long, env = "AGENTREP_SNAPSHOTS")]
        snapshots: PathBuf,
        /// JSON-RPC endpoint (overrides the config's `chain.rpc_urls`).
        #[arg(long, env = "AGENTREP_RPC")]
        rpc: Option<url::Url>,
        /// Configuration file.
        #[arg(long, env = "AGENTREP_CONFIG")]
        config: Option<PathBuf>,
        /// Also serve the snapshots.
        #[arg(long)]
        serve: bool,
        /// Address to listen on with `--serve`.
        #[arg(long, env = "AGENTREP_ADDR", default_value = "127.0.0.1:8402")]
        addr: SocketAddr,
        /// Base path of links and routes.
        #[arg(long, env = "AGENTREP_BASE_PATH", default_value = "/api/agent")]
        base_path: String,
        /// Stop after rebuilding this day (for replays and tests; default: run until stopped).
        #[arg(long)]
        stop_after: Option<NaiveDate>,
        /// Clock of the off-chain sources' rows (`wall` or `chain`).
        #[arg(long, value_enum, default_value = "wall")]
        clock: crate::ingest::Clock,
        /// The operator's deployed ScoreVerifier, named in every score payload.
        #[arg(long, env = "AGENTREP_VERIFIER_CONTRACT", value_parser = parse_address)]
        verifier_contract: Option<String>,
        /// Also push each published snapshot and overlay to this bucket (as `rebuild --publish-to`).
        #[arg(long, env = "AGENTREP_PUBLISH_TO")]
        publish_to: Option<BucketUrl>,
        #[command(flatten)]
        engine: EngineArg,
    },
    /// Benchmark helpers used by `make bench`.
    Bench {
        /// Which measurement.
        #[command(subcommand)]
        what: BenchCommand,
    },
    /// Verdict quality of the current snapshot against the world's labels: per attack family,
    /// per honest pattern, griefing and cost to fake; also written to SNAPSHOTS/eval.json. With
    /// `--real`, what the snapshot of a lake imported from real records says about real sellers
    /// (SNAPSHOTS/eval-real.json).
    Eval {
        /// Lake folder (holds labels.json, or realdata.json with `--real`).
        #[arg(long, env = "AGENTREP_LAKE")]
        lake: PathBuf,
        /// Snapshots folder.
        #[arg(long, env = "AGENTREP_SNAPSHOTS")]
        snapshots: PathBuf,
        /// Print the report as JSON.
        #[arg(long)]
        json: bool,
        /// The lake was imported from real records (`agentrep import-real`).
        #[arg(long)]
        real: bool,
    },
    /// Import public records of real x402 payments into a new lake (see `jobs/src/realdata.rs`
    /// for the formats), under the friendliest reading of what they do not say; then `rebuild` and
    /// `eval --real`.
    ImportReal {
        /// New lake folder.
        #[arg(long)]
        lake: PathBuf,
        /// A payment database (SQLite, plain or gzipped, table `settlements`); repeat for several.
        #[arg(long = "payments", required = true)]
        payments: Vec<PathBuf>,
        /// The sellers' directory JSON (`payee`, `resources`, `networks`, `min_price`).
        #[arg(long)]
        directory: PathBuf,
        /// x402scan's facilitator files (a folder of `*.ts`), or a CSV `address,operator`.
        #[arg(long)]
        facilitators: PathBuf,
        /// A ranked-domain list, CSV `rank,domain`.
        #[arg(long)]
        domain_ranks: Option<PathBuf>,
        /// The ranked list's name and id, as recorded (`tranco V3JQN`).
        #[arg(long, default_value = "ranked unknown")]
        domain_list: String,
        /// Credits of the inputs (`owner/repo@commit:path (licence)`); repeat for several.
        #[arg(long = "credit")]
        credits: Vec<String>,
        /// Day to score (default: the newest payment's day).
        #[arg(long)]
        day: Option<NaiveDate>,
    },
}

/// A source name or `all`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum SourceArg {
    /// Every source, in order.
    All,
    /// One source.
    One(agentrep_ingest::sources::SourceName),
}

impl std::str::FromStr for SourceArg {
    type Err = String;
    fn from_str(s: &str) -> Result<Self, String> {
        if s == "all" { Ok(SourceArg::All) } else { s.parse().map(SourceArg::One) }
    }
}

/// Benchmark measurements.
#[derive(Debug, Subcommand)]
pub enum BenchCommand {
    /// DuckDB's bare `GROUP BY pay_to` over the settlements a rebuild reads (the floor a rebuild is
    /// compared with); prints the median of several runs in milliseconds.
    Floor {
        /// Lake folder.
        #[arg(long, env = "AGENTREP_LAKE")]
        lake: PathBuf,
        /// Day whose inputs to read (default: the newest).
        #[arg(long)]
        date: Option<NaiveDate>,
        /// Runs to take the median of.
        #[arg(long, default_value_t = 5)]
        runs: usize,
    },
    /// What a snapshot's live bases cost the server: the file's size, indexing it, and decoding one
    /// seller's basis (median, 99th percentile, slowest); prints JSON.
    LiveBasis {
        /// A snapshot folder (one `<day>-<digest>` folder, or `current`).
        #[arg(long)]
        snapshot: PathBuf,
        /// Decode every `step`-th seller.
        #[arg(long, default_value_t = 10)]
        step: usize,
    },
    /// The node's bare `eth_getLogs` rate (the floor the settlements ingest is compared with):
    /// the USDC `Transfer` logs to the lake's listed payTos over `[from, to]`, raw JSON-RPC, the
    /// same topic batches and the same adaptive windows as the ingest's pager, logs counted and
    /// dropped; prints logs, blocks, pages and seconds as JSON.
    Logs {
        /// JSON-RPC endpoint.
        #[arg(long)]
        rpc: url::Url,
        /// Lake whose listings give the payTos (as `ingest --source settlements` takes them).
        #[arg(long)]
        lake: PathBuf,
        /// First block.
        #[arg(long)]
        from_block: u64,
        /// Last block.
        #[arg(long)]
        to_block: u64,
        /// First window in blocks (the config's `chain.log_window`).
        #[arg(long, default_value_t = 2_000)]
        log_window: u64,
        /// Largest window (`chain.max_log_window`).
        #[arg(long, default_value_t = 100_000)]
        max_log_window: u64,
        /// Addresses per topic list (`chain.topic_batch`).
        #[arg(long, default_value_t = 100)]
        topic_batch: usize,
        /// The token (`contracts.usdc`).
        #[arg(long, default_value = "0x833589fCD6eDb6E08f4c7C32D4f71b54bdA02913")]
        usdc: String,
    },
}

/// A contract address, lowercased.
fn parse_address(s: &str) -> Result<String, String> {
    agentrep_model::Address::parse(s.trim()).map(agentrep_model::Address::into_string).map_err(|e| e.to_string())
}
