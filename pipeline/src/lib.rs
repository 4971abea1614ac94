//! The daily rebuild: DuckDB passes over the Parquet lake turn one day's data into per-wallet
//! features, the scoring model (`agentrep-model`) assesses them in parallel (rayon), and the day's
//! scores are written back to the lake's derived `daily_scores` dataset for history.
//!
//! The result is a [`SnapshotInput`](agentrep_model::SnapshotInput): plain domain records, no
//! DuckDB types, ready for the publisher.

mod buyers;
mod carry;
mod demand;
mod deployers;
mod directory;
mod domains;
mod engine;
mod freshness;
mod graph;
mod history;
mod live_basis;
mod passes;
mod sellers;
mod sql_files;
mod trust;

use std::time::Instant;

use agentrep_lake::datasets::DailyScoreRow;
use agentrep_lake::{Lake, LakeError};
use agentrep_model::SnapshotInput;
use chrono::NaiveDate;

pub use carry::{Carried, Recompute, STORE_EVERY_DAYS};
pub use engine::statements;
pub use freshness::{SourceFreshness, window_days};
pub use passes::{Embedded, LocalTables, Output, Pass, PassEngine, SETTLEMENTS, Shipped};

/// TLDs counted as suspicious for the `suspicious-tld` flag: the free, abandoned Freenom registries
/// (a domain there costs nothing, so nobody's standing is at stake) and the two that mimic file
/// names (`.zip`, `.mov`). Paid TLDs that many legitimate sellers use (`.xyz`, `.top`, `.click`,
/// `.work`, … all seen on real x402 listings) are not on it: a TLD alone is no evidence.
pub const SUSPICIOUS_TLDS: &[&str] = &["tk", "ml", "ga", "cf", "gq", "zip", "mov"];

/// Path segments no public paid API has: a web server's secrets and admin panels (`admin-path`).
/// Words such as `admin`, `debug` or `secret` are not on it: real x402 tools sell
/// `/v1/payment/debug` and `/secret/scan`.
pub const ADMIN_PATH_SEGMENTS: &[&str] =
    &["wp-admin", "wp-login.php", "phpmyadmin", ".env", ".git", ".aws", ".ssh", "server-status"];

/// The rebuild failed.
#[derive(Debug, thiserror::Error)]
pub enum PipelineError {
    /// The lake could not be read or written.
    #[error(transparent)]
    Lake(#[from] LakeError),
    /// A pass on a cluster engine failed (nothing of it is published).
    #[error("{engine} pass '{pass}': {message}")]
    Engine {
        /// Which engine.
        engine: String,
        /// Which pass.
        pass: &'static str,
        /// What went wrong, with its causes.
        message: String,
    },
    /// A DuckDB pass failed.
    #[error("duckdb pass '{pass}': {source}")]
    Duckdb {
        /// Which pass.
        pass: &'static str,
        /// The cause.
        source: duckdb::Error,
    },
    /// A SQL file of the rebuild ran without a table its declaration (`sql_files`) says it reads
    /// or leaves: a defect of the file or of the declaration beside it.
    #[error("{file}: the table {table} it declares it {role} does not exist")]
    UndeclaredTable {
        /// The file.
        file: &'static str,
        /// The table.
        table: &'static str,
        /// `reads` or `leaves`.
        role: &'static str,
    },
    /// The lake holds no listings up to the day: nothing to score.
    #[error("the lake has no listings up to {0}")]
    NoListings(NaiveDate),
    /// DuckDB's folder for what does not fit its memory could not be made.
    #[error("making DuckDB's spill folder under TMPDIR: {source}")]
    Spill {
        /// The system's temporary folder.
        path: std::path::PathBuf,
        /// The cause.
        source: std::io::Error,
    },
    /// A carried state could not be written.
    #[error("carried state {path}: {source}")]
    Carried {
        /// The file or folder.
        path: std::path::PathBuf,
        /// The cause.
        source: std::io::Error,
    },
}

/// Time spent in each pass, for logs and benchmarks, and how each carried state was read.
#[derive(Debug, Clone, Default)]
pub struct RebuildTimings {
    /// Pass name and milliseconds.
    pub passes: Vec<(&'static str, u128)>,
    /// Each carried fold (its name) and whether it was folded onto a stored state or recomputed.
    pub carried: Vec<(&'static str, Carried)>,
}

/// How to rebuild a day.
#[derive(Debug, Clone, Default)]
pub struct RebuildOptions {
    /// Where the settlement pass runs: the embedded DuckDB when `None`.
    pub engine: Option<std::sync::Arc<dyn PassEngine>>,
    /// Fold every carried state from all partitions, ignoring the stored states (they are
    /// replaced by the recomputed ones). The snapshot is the same either way.
    pub from_scratch: bool,
    /// Iterate trust to its exact fixed point instead of stopping at
    /// [`agentrep_model::trust::TOLERANCE`]: what the benchmark compares the tolerance with.
    pub exact_trust: bool,
}

impl RebuildTimings {
    fn record(&mut self, pass: &'static str, since: Instant) {
        self.passes.push((pass, since.elapsed().as_millis()));
    }
}

/// Rebuilds one day: features, scores, history and deployers, and records the day's scores in the
/// lake so later days have history. Carried state is folded onto the stored states.
pub fn rebuild(lake: &Lake, day: NaiveDate) -> Result<(SnapshotInput, RebuildTimings), PipelineError> {
    rebuild_with(lake, day, RebuildOptions::default())
}

/// [`rebuild`] with options.
pub fn rebuild_with(
    lake: &Lake,
    day: NaiveDate,
    options: RebuildOptions,
) -> Result<(SnapshotInput, RebuildTimings), PipelineError> {
    let mut timings = RebuildTimings::default();
    let engine: &dyn PassEngine = options.engine.as_deref().unwrap_or(&Embedded);
    // One listing of each dataset for the whole rebuild (a bucket lake; a folder is read as is).
    // With an engine that reads the bucket itself, the datasets only it reads are never fetched.
    let lake = &if engine.reads_lake_remotely() { lake.pinned_remote(SETTLEMENTS.remote_only) } else { lake.pinned() };
    let t = Instant::now();
    let input_digest = lake.input_digest(day)?;
    timings.record("digest", t);

    let t = Instant::now();
    let freshness = freshness::check(lake, day)?;
    let db = engine::Engine::open(lake, day, options.from_scratch)?;
    timings.record("register", t);

    let t = Instant::now();
    carry::materialise(&db, &carry::FIRST_FUNDINGS)?;
    timings.record("first fundings", t);
    db.log_memory("first fundings");

    let t = Instant::now();
    db.execute_file(&sql_files::LISTINGS)?;
    // An engine that reads the lake where it lives reads the pass's remote-only datasets there:
    // they are no views of this connection.
    let elsewhere: Vec<&str> = match engine.reads_lake_remotely() {
        true => SETTLEMENTS.remote_only.iter().map(|d| d.name()).collect(),
        false => Vec::new(),
    };
    db.require(&sql_files::SETTLEMENTS_DUCKDB, "reads", &elsewhere)?;
    engine.run(&SETTLEMENTS, &LocalTables::new(&db))?;
    db.require(&sql_files::SETTLEMENTS_DUCKDB, "leaves", &[])?;
    timings.record("settlement pass", t);
    db.log_memory("settlement pass");

    let t = Instant::now();
    db.execute_file(&sql_files::SELLERS)?;
    domains::prepare(&db)?;
    timings.record("seller sql", t);
    db.log_memory("seller sql");

    // From here Rust holds the most (the wallet graph, then every seller's inputs and records):
    // DuckDB's temporary tables move to its spill folder as far as they must.
    db.lower_memory_limit(engine::DUCKDB_SCORING_SHARE);

    let t = Instant::now();
    let day_end = (day + chrono::Duration::days(1)).and_hms_opt(0, 0, 0).expect("midnight").and_utc().timestamp();
    let tolerance = if options.exact_trust { 0.0 } else { agentrep_model::trust::TOLERANCE };
    let graph = graph::WalletGraph::load(&db, day_end, tolerance)?;
    timings.record("trust", t);
    db.log_memory("trust");

    let t = Instant::now();
    let (deployers, avoid) = deployers::assess(&db, day, &graph)?;
    timings.record("deployers", t);
    db.log_memory("deployers");

    let t = Instant::now();
    let live_basis::LiveInputs { window, sellers: live, facilitators, oracle_payers } =
        live_basis::LiveInputs::read(&db, lake, graph.seller_wid.len(), day_end)?;
    db.log_memory("live inputs");
    let mut sellers = sellers::assess(&db, &graph, &avoid, &freshness, window, live)?;
    // Nothing later reads the graph: its pairs and per-wallet vectors go before the other passes.
    drop(graph);
    if sellers.is_empty() && lake.partitions_up_to(agentrep_lake::Dataset::Listings, day)?.is_empty() {
        return Err(PipelineError::NoListings(day));
    }
    timings.record("sellers", t);
    db.log_memory("sellers");

    let t = Instant::now();
    history::attach(&db, day, &mut sellers)?;
    timings.record("history", t);
    db.log_memory("history");

    let t = Instant::now();
    let counterparties = sellers::counterparties(&db)?;
    timings.record("counterparties", t);
    db.log_memory("counterparties");

    let t = Instant::now();
    let directory = directory::read(&db, &mut sellers, &deployers)?;
    timings.record("directory", t);
    db.log_memory("directory");

    let t = Instant::now();
    let buyer_trust = buyers::assess(&db, &sellers, &deployers, &directory)?;
    timings.record("buyer trust", t);
    db.log_memory("buyer trust");

    let t = Instant::now();
    let rows: Vec<DailyScoreRow> = sellers
        .iter()
        .map(|s| DailyScoreRow {
            address: s.address.clone(),
            score: s.assessment.score.map(u32::from),
            decision: s.assessment.decision.as_str().to_owned(),
            settlements: s.features.demand.settlements,
            volume: s.features.demand.volume,
            methodology: agentrep_model::METHODOLOGY_VERSION.to_owned(),
        })
        .collect();
    lake.write_partition(day, &rows)?;
    timings.record("daily_scores", t);

    timings.carried = db.carried.take();
    let directory::Directory { proofs, lists, identities, crawlers, funding, listings } = directory;
    let input = SnapshotInput {
        date: day.to_string(),
        input_digest,
        sellers,
        deployers,
        counterparties,
        proofs,
        lists,
        identities,
        crawlers,
        funding,
        listings,
        buyer_trust,
        facilitators,
        oracle_payers,
    };
    Ok((input, timings))
}

/// The benchmark floor: DuckDB's bare `GROUP BY pay_to` (count and sum) over the same settlement
/// files a rebuild of `day` reads, fully materialised; returns the groups and the elapsed time.
pub fn floor_group_by(lake: &Lake, day: NaiveDate) -> Result<(usize, std::time::Duration), PipelineError> {
    let db = engine::Engine::open(lake, day, false)?;
    let err = |source| PipelineError::Duckdb { pass: "floor", source };
    let t = Instant::now();
    let mut stmt =
        db.conn.prepare("SELECT pay_to, count(*), sum(value) FROM settlements GROUP BY pay_to").map_err(err)?;
    let groups = stmt.query_map([], |r| r.get::<_, String>("pay_to")).map_err(err)?.count();
    Ok((groups, t.elapsed()))
}
