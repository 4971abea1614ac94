//! Carried state: aggregates over a dataset's whole history that a rebuild keeps in the lake's
//! `_carried` folder and the next rebuild brings up to its day with only the partitions added
//! since, instead of reading every partition again.
//!
//! A [`Fold`] is an aggregate whose merge is the aggregate itself: sums of integers, minima, and
//! arg-min under a total order. Folding the new rows into yesterday's state therefore gives exactly
//! what folding every row gives, and an incremental rebuild publishes the bytes a rebuild from
//! scratch publishes (the 30-day identity test in `tests/e2e/determinism.rs` holds it to that).
//!
//! A stored state (`_carried/<fold>/date=P/state.parquet` with `state.json`) is the base of day D
//! only if all of these hold, else the fold is computed again from every partition and the new
//! state replaces it ([`Recompute`] names which one failed):
//! - P is the newest stored day on or before D;
//! - it was computed by the same definition: the SHA-256 of the fold's SQL, the dataset's schema,
//!   the state format and the methodology version (any edit recomputes);
//! - the dataset's partitions up to P are still the ones it folded (their digests, read from the
//!   lake's sidecars): a partition that arrived late, was rewritten or was removed recomputes;
//! - none of those partitions held a row later than P's end (such a row counts on a later day, and
//!   a state that left it out cannot add it back).

use std::cell::RefCell;
use std::fs;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicU64, Ordering};

use agentrep_lake::{Dataset, PartitionFile};
use chrono::NaiveDate;
use serde::{Deserialize, Serialize};
use sha2::{Digest, Sha256};

use crate::PipelineError;
use crate::engine::{Engine, quote, read_partitions};

/// Bumped when the stored form of a state (its files or its metadata) changes.
const STATE_FORMAT: u32 = 1;

/// States kept per fold: the newest few, so that rebuilding one of the last days again still
/// starts from a state.
const KEPT_STATES: usize = 3;

/// A folded state is stored only once the state it was folded from is this many days old (a
/// recomputed one always is). Folding up to a week of partitions onto an older state gives the
/// same state, for little more than one day's partition costs, while storing rewrites every key
/// the state holds (the 7.2M token buys of the benchmark world, BENCHMARKS.md § 4k).
pub const STORE_EVERY_DAYS: i64 = 7;

const STATE_FILE: &str = "state.parquet";
const META_FILE: &str = "state.json";

/// One aggregate over a dataset's history, declared as SQL.
#[derive(Debug)]
pub(crate) struct Fold {
    /// The state's folder, and the table it is read into: `carried_<name>`.
    pub name: &'static str,
    /// The dataset folded.
    pub dataset: Dataset,
    /// A row counts from the day whose end is after this column.
    pub time_column: &'static str,
    /// The state's key: one state row per value.
    pub key: &'static str,
    /// The state's columns, computed from one of the dataset's rows.
    pub project: &'static str,
    /// The aggregate over `{input}` (rows with the projected columns, or states): the state. It
    /// must be its own merge: applied to states, it gives the state of all their rows.
    pub combine: &'static str,
}

/// Each wallet's first funding: who funded it first, when, and with how much (ties by funder,
/// then amount, so duplicate edges give one answer).
pub(crate) const FIRST_FUNDINGS: Fold = Fold {
    name: "first_fundings",
    dataset: Dataset::FundingEdges,
    time_column: "first_funded_at",
    key: "funded",
    project: "funded, funder, first_funded_at, amount",
    combine: "SELECT funded, arg_min(funder, (first_funded_at, funder, amount)) AS funder, \
              min(first_funded_at) AS first_funded_at, arg_min(amount, (first_funded_at, funder, amount)) AS amount \
              FROM {input} GROUP BY funded",
};

/// Each token's first launch: its deployer and time (ties by deployer).
pub(crate) const TOKEN_DEPLOYERS: Fold = Fold {
    name: "token_deployers",
    dataset: Dataset::TokenLaunches,
    time_column: "launched_at",
    key: "token",
    project: "token, deployer, launched_at",
    combine: "SELECT token, arg_min(deployer, (launched_at, deployer)) AS deployer, min(launched_at) AS launched_at \
              FROM {input} GROUP BY token",
};

/// Each (token, buyer): buys, tokens bought as exact milli-tokens (integers, so the sum does not
/// depend on the order it is taken in) and the first buy.
pub(crate) const TOKEN_BUYS: Fold = Fold {
    name: "token_buys",
    dataset: Dataset::TokenBuys,
    time_column: "first_at",
    key: "token, buyer",
    project: "token, buyer, buys::UBIGINT AS buys, round(tokens * 1e3)::BIGINT AS milli, first_at",
    combine: "SELECT token, buyer, sum(buys)::UBIGINT AS buys, sum(milli)::BIGINT AS milli, min(first_at) AS first_at \
              FROM {input} GROUP BY token, buyer",
};

/// How a rebuild got a fold's state.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Carried {
    /// The state of day `base` brought up to the day with the `added` partitions since.
    Folded {
        /// The stored state's day.
        base: NaiveDate,
        /// Partitions folded into it.
        added: usize,
    },
    /// Folded from every partition.
    Recomputed(Recompute),
}

/// Why a fold was computed from every partition.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Recompute {
    /// The rebuild was asked to (`agentrep rebuild --from-scratch`).
    Requested,
    /// No state is stored for a day on or before the rebuild day.
    NoState,
    /// The state's metadata or file could not be read.
    Unreadable,
    /// The fold's definition (SQL, schema, methodology) changed since the state was stored.
    DefinitionChanged,
    /// The dataset's partitions up to the state's day are not the ones it folded.
    InputChanged,
    /// Those partitions held rows later than the state's day.
    LaterRows,
    /// A partition held rows of another day (the settlement pairs' state folds only partitions
    /// whose rows are all of their own day).
    MisdatedRows,
    /// The facilitators or the oracle's own paying wallets are not those the state was folded with
    /// (a newly labelled facilitator re-attributes its own rows, all history of them).
    ListsChanged,
}

/// What `state.json` records beside a state.
#[derive(Debug, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
struct StateMeta {
    fold: String,
    /// [`Fold::definition`] of the fold that computed it.
    definition: String,
    date: NaiveDate,
    /// `Lake::dataset_digest` of the folded dataset up to `date`, taken before it was read.
    input: String,
    rows: u64,
    /// Rows of the folded partitions later than the day's end, left out.
    later_rows: u64,
}

/// The fold outcomes of one rebuild, in the order the folds ran.
#[derive(Debug, Default)]
pub(crate) struct CarryLog(RefCell<Vec<(&'static str, Carried)>>);

impl CarryLog {
    pub fn take(&self) -> Vec<(&'static str, Carried)> {
        std::mem::take(&mut self.0.borrow_mut())
    }

    pub fn push(&self, name: &'static str, outcome: Carried) {
        self.0.borrow_mut().push((name, outcome));
    }
}

impl Fold {
    /// The table the state is read into.
    pub fn table(&self) -> String {
        format!("carried_{}", self.name)
    }

    /// SHA-256 over everything that decides the state's content besides the rows.
    fn definition(&self) -> String {
        let mut hasher = Sha256::new();
        let text = format!(
            "{STATE_FORMAT}\n{}\n{}\n{}\n{:?}\n{}\n{}\n{}\n",
            agentrep_model::METHODOLOGY_VERSION,
            self.name,
            self.dataset.name(),
            self.dataset.schema(),
            self.time_column,
            self.project,
            self.combine
        );
        hasher.update(text.as_bytes());
        hex::encode(hasher.finalize())
    }
}

pub(crate) fn io_err(path: &Path) -> impl FnOnce(std::io::Error) -> PipelineError + '_ {
    move |source| PipelineError::Carried { path: path.to_owned(), source }
}

fn duckdb(fold: &Fold) -> impl Fn(duckdb::Error) -> PipelineError + '_ {
    move |source| PipelineError::Duckdb { pass: fold.name, source }
}

/// Reads `fold`'s state for the engine's day into its table ([`Fold::table`]): the stored state
/// of an earlier day with the partitions since folded in, or every partition when no stored state
/// may be used; stores the new state for the days after. Returns how it went (also logged in
/// the engine's [`CarryLog`]).
pub(crate) fn materialise(db: &Engine, fold: &Fold) -> Result<Carried, PipelineError> {
    let dir = db.lake.carried_dir().join(fold.name);
    let definition = fold.definition();
    let base = if db.from_scratch { Err(Recompute::Requested) } else { find_base(db, fold, &dir, &definition)? };
    // Taken before any file is read: a partition rewritten during the rebuild leaves a digest
    // that no longer matches, so the next rebuild recomputes rather than trusting this state.
    let input = db.lake.dataset_digest(fold.dataset, db.day)?;
    let files = db.lake.partitions_up_to(fold.dataset, db.day)?;
    let (outcome, read) = match base {
        Ok((meta, state)) => {
            let added: Vec<PartitionFile> = files.iter().filter(|f| f.date > meta.date).cloned().collect();
            match fold_onto(db, fold, &state, &added) {
                Ok(()) => (Carried::Folded { base: meta.date, added: added.len() }, added),
                Err(err) => {
                    tracing::warn!(fold = fold.name, state = %state.display(), error = %err,
                        "Carried state unreadable; folding every partition.");
                    create_table(db, fold, &new_rows(db, fold, &files))?;
                    (Carried::Recomputed(Recompute::Unreadable), files)
                }
            }
        }
        Err(reason) => {
            create_table(db, fold, &new_rows(db, fold, &files))?;
            (Carried::Recomputed(reason), files)
        }
    };
    // With nothing added, the stored state is the day's and stays the base of the next days; a
    // state folded from a recent one is not worth rewriting yet.
    let worth_storing = match outcome {
        Carried::Folded { base, added } => added > 0 && (db.day - base).num_days() >= STORE_EVERY_DAYS,
        Carried::Recomputed(_) => true,
    };
    if worth_storing {
        store(db, fold, &dir, &definition, &input, later_rows(db, fold, &read)?)?;
    }
    tracing::debug!(target: "pipeline::carry", fold = fold.name, ?outcome, "Carried state read.");
    db.carried.push(fold.name, outcome);
    Ok(outcome)
}

/// The fold's table from a stored state and the rows of `added`: the state's rows whose key the
/// new rows do not name are kept as they are, the others combined with the new rows, so only the
/// day's keys are aggregated again, not the whole state.
fn fold_onto(db: &Engine, fold: &Fold, state: &Path, added: &[PartitionFile]) -> Result<(), PipelineError> {
    let (table, key, state) = (fold.table(), fold.key, quote_path(state));
    let touched = format!("(SELECT {key} FROM {table}_new)");
    let merged = format!(
        "(SELECT * FROM read_parquet({state}) SEMI JOIN {touched} USING ({key}) UNION ALL BY NAME SELECT * FROM {table}_new)"
    );
    let sql = format!(
        "CREATE OR REPLACE TEMP TABLE {table}_new AS {new};
         CREATE OR REPLACE TEMP TABLE {table} AS
         SELECT * FROM read_parquet({state}) ANTI JOIN {touched} USING ({key})
         UNION ALL BY NAME {merged};
         DROP TABLE {table}_new",
        new = fold.combine.replace("{input}", &new_rows(db, fold, added)),
        merged = fold.combine.replace("{input}", &merged),
    );
    db.conn.execute_batch(&sql).map_err(duckdb(fold))
}

/// The fold's table, combined from `input`.
fn create_table(db: &Engine, fold: &Fold, input: &str) -> Result<(), PipelineError> {
    let sql = format!("CREATE OR REPLACE TEMP TABLE {} AS {}", fold.table(), fold.combine.replace("{input}", input));
    db.conn.execute_batch(&sql).map_err(duckdb(fold))
}

pub(crate) fn quote_path(path: &Path) -> String {
    quote(&path.to_string_lossy())
}

/// The projected rows of `files` up to the day's end (an empty relation of the right columns
/// when there are no files).
fn new_rows(db: &Engine, fold: &Fold, files: &[PartitionFile]) -> String {
    if files.is_empty() {
        format!("(SELECT {} FROM {} LIMIT 0)", fold.project, fold.dataset.name())
    } else {
        format!("(SELECT {} FROM {} WHERE {} < {{day_end}})", fold.project, read_partitions(files), fold.time_column)
            .replace("{day_end}", &db.sql("{day_end}"))
    }
}

/// Rows of `files` later than the day's end.
fn later_rows(db: &Engine, fold: &Fold, files: &[PartitionFile]) -> Result<u64, PipelineError> {
    if files.is_empty() {
        return Ok(0);
    }
    let sql = format!(
        "SELECT count(*) AS n FROM {} WHERE {} >= {}",
        read_partitions(files),
        fold.time_column,
        db.sql("{day_end}")
    );
    let n: i64 = db.conn.query_row(&sql, [], |r| r.get("n")).map_err(duckdb(fold))?;
    Ok(n.max(0) as u64)
}

/// The stored state that may be the base of the engine's day, or why none may.
fn find_base(
    db: &Engine,
    fold: &Fold,
    dir: &Path,
    definition: &str,
) -> Result<Result<(StateMeta, PathBuf), Recompute>, PipelineError> {
    let Some(date) = stored_days(dir)?.into_iter().rfind(|d| *d <= db.day) else {
        return Ok(Err(Recompute::NoState));
    };
    let state_dir = dir.join(format!("date={date}"));
    let meta = fs::read(state_dir.join(META_FILE)).ok().and_then(|b| serde_json::from_slice::<StateMeta>(&b).ok());
    let Some(meta) = meta.filter(|m| m.date == date && m.fold == fold.name) else {
        return Ok(Err(Recompute::Unreadable));
    };
    if meta.definition != definition {
        return Ok(Err(Recompute::DefinitionChanged));
    }
    if meta.later_rows > 0 {
        return Ok(Err(Recompute::LaterRows));
    }
    if db.lake.dataset_digest(fold.dataset, date)? != meta.input {
        return Ok(Err(Recompute::InputChanged));
    }
    Ok(Ok((meta, state_dir.join(STATE_FILE))))
}

/// Days with a stored state, oldest first.
pub(crate) fn stored_days(dir: &Path) -> Result<Vec<NaiveDate>, PipelineError> {
    let entries = match fs::read_dir(dir) {
        Ok(entries) => entries,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(Vec::new()),
        Err(e) => return Err(io_err(dir)(e)),
    };
    let mut days: Vec<NaiveDate> =
        entries.flatten().filter_map(|e| e.file_name().to_str()?.strip_prefix("date=")?.parse().ok()).collect();
    days.sort_unstable();
    Ok(days)
}

/// Writes the fold's table as the state of the engine's day: a temporary folder, synced, renamed
/// over the day's folder; then only the newest [`KEPT_STATES`] are kept. A crash leaves either
/// the old folder or the new one (and at worst a temporary folder a later store removes).
/// Rebuilds of one lake may run at once (a scheduled one and an operator's, or tests): each
/// writes its own temporary folder, and a folder that disappears or appears under it is left to
/// the other writer, since a state is only ever a cache of what the partitions give.
fn store(
    db: &Engine,
    fold: &Fold,
    dir: &Path,
    definition: &str,
    input: &str,
    later_rows: u64,
) -> Result<(), PipelineError> {
    store_folder(db, fold.name, dir, |tmp| {
        let state = tmp.join(STATE_FILE);
        let copy = format!("COPY {} TO {} (FORMAT parquet)", fold.table(), quote_path(&state));
        db.conn.execute_batch(&copy).map_err(duckdb(fold))?;
        let rows: i64 = db
            .conn
            .query_row(&format!("SELECT count(*) AS n FROM {}", fold.table()), [], |r| r.get("n"))
            .map_err(duckdb(fold))?;
        let meta = StateMeta {
            fold: fold.name.to_owned(),
            definition: definition.to_owned(),
            date: db.day,
            input: input.to_owned(),
            rows: rows.max(0) as u64,
            later_rows,
        };
        let meta_path = tmp.join(META_FILE);
        fs::write(&meta_path, serde_json::to_vec_pretty(&meta).expect("state metadata serialises"))
            .map_err(io_err(&meta_path))?;
        Ok(vec![state, meta_path])
    })
}

/// Stores the engine's day's state of `name` in `dir`: `write` fills a temporary folder and names
/// the files it wrote, which are synced before the folder is renamed over the day's folder; then
/// only the newest [`KEPT_STATES`] are kept. A crash leaves either the old folder or the new one
/// (and at worst a temporary folder a later store removes). Rebuilds of one lake may run at once
/// (a scheduled one and an operator's, or tests): each writes its own temporary folder, and a
/// folder that disappears or appears under it is left to the other writer, since a state is only
/// ever a cache of what the partitions give.
pub(crate) fn store_folder(
    db: &Engine,
    name: &'static str,
    dir: &Path,
    write: impl FnOnce(&Path) -> Result<Vec<PathBuf>, PipelineError>,
) -> Result<(), PipelineError> {
    static WRITES: AtomicU64 = AtomicU64::new(0);
    fs::create_dir_all(dir).map_err(io_err(dir))?;
    remove_leftovers(dir);
    let unique = format!("{}-{}", std::process::id(), WRITES.fetch_add(1, Ordering::Relaxed));
    let tmp = dir.join(format!(".date={}.{unique}.tmp", db.day));
    fs::create_dir(&tmp).map_err(io_err(&tmp))?;
    for file in write(&tmp)? {
        fs::File::open(&file).and_then(|f| f.sync_all()).map_err(io_err(&file))?;
    }
    let target = dir.join(format!("date={}", db.day));
    let old = dir.join(format!(".date={}.{unique}.old", db.day));
    if fs::rename(&target, &old).is_ok() {
        let _ = fs::remove_dir_all(&old);
    }
    if let Err(err) = fs::rename(&tmp, &target) {
        // Another rebuild stored this day's state in between: keep it, drop ours.
        tracing::debug!(target: "pipeline::carry", fold = name, error = %err, "State stored by another rebuild.");
        let _ = fs::remove_dir_all(&tmp);
        return Ok(());
    }
    fs::File::open(dir).and_then(|d| d.sync_all()).map_err(io_err(dir))?;
    let days = stored_days(dir)?;
    for day in &days[..days.len().saturating_sub(KEPT_STATES)] {
        let _ = fs::remove_dir_all(dir.join(format!("date={day}")));
    }
    Ok(())
}

/// Temporary folders of stores that did not finish: any over an hour old (a store takes seconds;
/// younger ones may belong to a rebuild still running).
fn remove_leftovers(dir: &Path) {
    let Ok(entries) = fs::read_dir(dir) else { return };
    for entry in entries.flatten() {
        let stale = entry
            .metadata()
            .and_then(|m| m.modified())
            .is_ok_and(|t| t.elapsed().is_ok_and(|age| age > std::time::Duration::from_secs(3600)));
        if stale && entry.file_name().to_string_lossy().starts_with('.') {
            let _ = fs::remove_dir_all(entry.path());
        }
    }
}
