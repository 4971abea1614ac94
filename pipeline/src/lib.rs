//! The daily rebuild: DuckDB passes over the Parquet lake turn one day's data into per-wallet
//! features, the scoring model (`agentrep-model`) assesses them in parallel (rayon), and the day's
//! scores are written back to the lake's derived `daily_scores` dataset for history.
//!
//! The result is a [`SnapshotInput`](agentrep_model::SnapshotInput): plain domain records, no
//! DuckDB types, ready for the publisher.

mod buyers;
mod carry;
mod carry_pairs;
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
mod settlement_mix;
mod sql_files;
mod stages;
mod trust;

use std::time::Instant;

use agentrep_lake::{Lake, LakeError};
use agentrep_model::SnapshotInput;
use chrono::NaiveDate;

pub use carry::{Carried, Recompute, STORE_EVERY_DAYS};
pub use engine::statements;
pub use freshness::{SourceFreshness, window_days};
pub use passes::{Embedded, LocalTables, Output, Pass, PassEngine, SETTLEMENTS, Shipped};
pub use stages::markdown as stage_table;

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
    /// A section a rebuild's code runs is not in its SQL file: a defect of one or the other.
    #[error("{file} has no section '{section}'")]
    MissingSection {
        /// The file.
        file: &'static str,
        /// The section's name.
        section: &'static str,
    },
    /// A stage ran without a value an earlier stage makes, or did not make one it declares it
    /// makes (`stages::STAGES`): a defect of the stage or of its row.
    #[error("stage '{stage}': no {product}, which its row in the stage table says an earlier stage makes or it makes")]
    StageOrder {
        /// The stage (`undeclared` for a stage reading a value its row does not name).
        stage: &'static str,
        /// The value.
        product: &'static str,
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
    pub(crate) fn record(&mut self, pass: &'static str, since: Instant) {
        self.passes.push((pass, since.elapsed().as_millis()));
    }
}

/// Rebuilds one day: features, scores, history and deployers, and records the day's scores in the
/// lake so later days have history. Carried state is folded onto the stored states.
pub fn rebuild(lake: &Lake, day: NaiveDate) -> Result<(SnapshotInput, RebuildTimings), PipelineError> {
    rebuild_with(lake, day, RebuildOptions::default())
}

/// [`rebuild`] with options: the stages of `stages::STAGES`, in order.
pub fn rebuild_with(
    lake: &Lake,
    day: NaiveDate,
    options: RebuildOptions,
) -> Result<(SnapshotInput, RebuildTimings), PipelineError> {
    let engine: &dyn PassEngine = options.engine.as_deref().unwrap_or(&Embedded);
    // One listing of each dataset for the whole rebuild (a bucket lake; a folder is read as is).
    // With an engine that reads the bucket itself, the datasets only it reads are never fetched.
    let lake = &if engine.reads_lake_remotely() { lake.pinned_remote(SETTLEMENTS.remote_only) } else { lake.pinned() };
    stages::run(lake, day, &options, engine)
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
