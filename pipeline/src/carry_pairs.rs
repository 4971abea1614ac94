//! The settlement pass over carried state: the (seller, payer) pairs, the per-wallet counts of
//! rows that are no demand, and the receipts' matches, kept in `_carried/settlement_pairs` and
//! brought up to the day with the partitions since the stored day P, instead of attributing every
//! settlement of history again. It leaves the tables `settlements.sql` leaves, with the same rows
//! (`sql/settlements_carried.sql` says how each is made; `tests/e2e/carried.rs` compares every
//! published byte of a 30-day chain against rebuilds from scratch).
//!
//! Why a day's state is a fold of yesterday's (methodology 3.3 and 3.5, SCORING.md § 1): a
//! settlement is attributed against the claims in force on its own day, and a day's claims change
//! later only when a claim is crawled for the first time (its first span reaches back to the
//! chain's start) or a crawl arrives late. So the state keeps, per claimed wallet, a digest of its
//! attribution inputs for the days it covers, and a wallet whose digest for those days differs
//! today is *touched*: its state is dropped and all its rows attributed again (a targeted read of
//! one wallet's rows). A receipt cites a settlement only within the receipt window after it, so a
//! receipt received after P meets only rows of a bounded window before P (`cs_recent`), which the
//! day also reads for its 30- and 7-day figures.
//!
//! A stored state is the base of day D only if all of these hold, else every partition is folded
//! ([`Recompute`] names why): the definition (this file's SQL, the two datasets' schemas, the
//! methodology) is the one recorded; the facilitators and the oracle's own payers are those it was
//! folded with; the settlement and receipt partitions up to P are the ones it read; and no
//! partition it folded, nor any it folds now, holds a row of another day than its own (a row
//! earlier than the state's last payment could not be placed in the pairs' gap sums).

use std::path::{Path, PathBuf};

use agentrep_lake::{Dataset, PartitionFile};
use chrono::{Duration, NaiveDate};
use serde::{Deserialize, Serialize};
use sha2::{Digest, Sha256};

use crate::PipelineError;
use crate::carry::{self, Carried, Recompute, STORE_EVERY_DAYS};
use crate::engine::{Engine, read_partitions};
use crate::sql_files::SETTLEMENTS_CARRIED;

/// The state's folder under `_carried`, and its name in logs and timings.
pub(crate) const NAME: &str = "settlement_pairs";

/// Bumped when the stored form of the state changes.
const STATE_FORMAT: u32 = 1;

/// The stored tables: the table on the connection, its file, the select list it is written with
/// (Parquet has no 128-bit integer: the gap sums are DECIMAL(38, 0), read back as HUGEINT by
/// the `state` section), the view the `state` section reads it into, and that view's columns as
/// an empty relation (no stored state).
const TABLES: [StateTable; 4] = [
    StateTable {
        table: "cs_pairs",
        file: "pairs",
        store: "* REPLACE (gsum::DECIMAL(38, 0) AS gsum, gsq::DECIMAL(38, 0) AS gsq)",
        view: "cs_state_pairs",
        empty: "NULL::VARCHAR AS pay_to, NULL::VARCHAR AS payer, NULL::BIGINT AS n, NULL::UBIGINT AS spend, \
                NULL::BIGINT AS n_exact, NULL::BIGINT AS first_t, NULL::BIGINT AS last_t, NULL::BIGINT AS gaps, \
                NULL::HUGEINT AS gsum, NULL::HUGEINT AS gsq",
    },
    StateTable {
        table: "cs_payees",
        file: "payees",
        store: "*",
        view: "cs_state_payees",
        empty: "NULL::VARCHAR AS pay_to, NULL::BIGINT AS unattributed, NULL::BIGINT AS below_price",
    },
    StateTable {
        table: "cs_cited",
        file: "cited",
        store: "*",
        view: "cs_state_cited",
        empty: "NULL::VARCHAR AS tx_hash, NULL::VARCHAR AS pay_to, NULL::VARCHAR AS payer",
    },
    StateTable {
        table: "cs_claims",
        file: "claims",
        store: "*",
        view: "cs_state_claims",
        empty: "NULL::VARCHAR AS address, NULL::VARCHAR AS h",
    },
];

const META_FILE: &str = "state.json";

/// One table of the stored state.
struct StateTable {
    table: &'static str,
    /// Its file is `<file>.parquet`; the `state` section's placeholder `{<file>_file}`.
    file: &'static str,
    store: &'static str,
    view: &'static str,
    empty: &'static str,
}

impl StateTable {
    fn path(&self, dir: &Path) -> PathBuf {
        dir.join(format!("{}.parquet", self.file))
    }
}

/// What `state.json` records beside the state.
#[derive(Debug, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
struct StateMeta {
    definition: String,
    date: NaiveDate,
    /// `Lake::dataset_digest` of the settlements and the receipts up to `date`, taken before either
    /// was read.
    settlements: String,
    receipts: String,
    /// SHA-256 of the facilitators and of the oracle's paying wallets it was folded with.
    lists: String,
}

/// The state's base: the stored day and its folder.
struct Base {
    date: NaiveDate,
    dir: PathBuf,
}

/// Runs the settlement pass over the carried state, leaving `settlements.sql`'s tables, and stores
/// the state when due. Returns how the state was read (also in the engine's carry log).
pub(crate) fn run(db: &Engine) -> Result<Carried, PipelineError> {
    let dir = db.lake.carried_dir().join(NAME);
    let definition = definition();
    let lists = lists_digest(db)?;
    // Taken before any file is read (as `carry::materialise` does).
    let settlements_digest = db.lake.dataset_digest(Dataset::Settlements, db.day)?;
    let receipts_digest = db.lake.dataset_digest(Dataset::Receipts, db.day)?;
    let files = db.lake.partitions_up_to(Dataset::Settlements, db.day)?;
    let misdated_receipts = misdated(db, &db.lake.partitions_up_to(Dataset::Receipts, db.day)?, "received_at")?;

    let mut base = match db.from_scratch {
        true => Err(Recompute::Requested),
        false => find_base(db, &dir, &definition, &lists)?,
    };
    if base.is_ok() && misdated_receipts > 0 {
        base = Err(Recompute::MisdatedRows);
    }
    let mut added: Vec<PartitionFile> = match &base {
        Ok(b) => files.iter().filter(|f| f.date > b.date).cloned().collect(),
        Err(_) => files.clone(),
    };
    let mut misdated_added = misdated(db, &added, "block_time")?;
    if base.is_ok() && misdated_added > 0 {
        base = Err(Recompute::MisdatedRows);
        added = files.clone();
        misdated_added = misdated(db, &added, "block_time")?;
    }
    if base.is_err() && misdated_added > 0 {
        tracing::warn!(
            fold = NAME,
            rows = misdated_added,
            "Settlement partitions hold rows of other days: the pairs are folded from every partition and not stored."
        );
    }
    let outcome = match base {
        Ok(base) => {
            fold_onto(db, &base)?;
            Carried::Folded { base: base.date, added: added.len() }
        }
        Err(reason) => {
            fold_all(db)?;
            Carried::Recomputed(reason)
        }
    };
    section(db, "outputs", &[])?;
    // A state whose partitions are not all of their own days cannot be folded onto: it is not
    // stored (every later day folds every partition until they are).
    let storable = misdated_added == 0 && misdated_receipts == 0;
    let due = match outcome {
        Carried::Folded { base, added } => added > 0 && (db.day - base).num_days() >= STORE_EVERY_DAYS,
        Carried::Recomputed(_) => true,
    };
    if storable && due {
        let meta =
            StateMeta { definition, date: db.day, settlements: settlements_digest, receipts: receipts_digest, lists };
        store(db, &dir, &meta)?;
    }
    tracing::debug!(target: "pipeline::carry", fold = NAME, ?outcome, "Carried state read.");
    section(db, "cleanup", &[])?;
    db.carried.push(NAME, outcome);
    Ok(outcome)
}

/// Every partition attributed and folded: the state of the day from nothing.
fn fold_all(db: &Engine) -> Result<(), PipelineError> {
    for t in &TABLES {
        db.conn
            .execute_batch(&format!("CREATE OR REPLACE TEMP VIEW {} AS SELECT {} LIMIT 0", t.view, t.empty))
            .map_err(duckdb)?;
    }
    // No claims before day 0: no wallet is touched.
    section(db, "claims", &[("{clip_day}", "0".to_owned())])?;
    section(db, "touched", &[])?;
    rows(db, "DATE '0001-01-01'", "DATE '0001-01-01'", 0)?;
    section(db, "fold", &[])
}

/// The base's state, but the touched wallets', with the partitions after it, the touched wallets'
/// rows from every partition and the recent window before it: the day's 30-day window, and the
/// receipt window before the base (a receipt received after the base cites no older payment).
fn fold_onto(db: &Engine, base: &Base) -> Result<(), PipelineError> {
    let files: Vec<(&str, String)> = TABLES.iter().map(|t| (t.file, carry::quote_path(&t.path(&base.dir)))).collect();
    let placeholders: Vec<(String, String)> =
        files.into_iter().map(|(file, path)| (format!("{{{file}_file}}"), path)).collect();
    let placeholders: Vec<(&str, String)> = placeholders.iter().map(|(k, v)| (k.as_str(), v.clone())).collect();
    section(db, "state", &placeholders)?;
    let base_end = base.date + Duration::days(1);
    section(db, "claims", &[("{clip_day}", day_number(base_end).to_string())])?;
    section(db, "touched", &[])?;
    let window = agentrep_model::trust::RECEIPT_WINDOW_DAYS.max(30);
    let recent_from = (base_end - Duration::days(window)).min(db.day + Duration::days(1) - Duration::days(30));
    let from_epoch = day_number(recent_from) * 86_400;
    rows(db, &format!("DATE '{}'", base.date), &format!("DATE '{recent_from}'"), from_epoch)?;
    let touched: i64 = db.conn.query_row("SELECT count(*) AS n FROM cs_touched", [], |r| r.get("n")).map_err(duckdb)?;
    if touched > 0 {
        tracing::debug!(target: "pipeline::carry", fold = NAME, wallets = touched,
            "Wallets whose claims changed for the days of the state: all their rows attributed again.");
        section(db, "touched rows", &[])?;
    }
    section(db, "fold", &[])
}

/// The rows the day reads (`cs_rows`): after `base_date` (new), and from `from_date`/`from_epoch`.
fn rows(db: &Engine, base_date: &str, from_date: &str, from_epoch: i64) -> Result<(), PipelineError> {
    section(
        db,
        "attribute",
        &[
            ("{base_date}", base_date.to_owned()),
            ("{from_date}", from_date.to_owned()),
            ("{from_epoch}", from_epoch.to_string()),
        ],
    )
}

/// Runs the section `name` of the file with `placeholders` filled (the rebuild's own are filled by
/// [`Engine::execute`]).
fn section(db: &Engine, name: &'static str, placeholders: &[(&str, String)]) -> Result<(), PipelineError> {
    let mut sql = SETTLEMENTS_CARRIED.section(name)?.to_owned();
    for (key, value) in placeholders {
        sql = sql.replace(key, value);
    }
    db.execute(SETTLEMENTS_CARRIED.name, &sql)
}

fn duckdb(source: duckdb::Error) -> PipelineError {
    PipelineError::Duckdb { pass: NAME, source }
}

fn day_number(day: NaiveDate) -> i64 {
    day.and_hms_opt(0, 0, 0).expect("midnight").and_utc().timestamp() / 86_400
}

/// Rows of `files` whose `column` is not of their partition's day.
fn misdated(db: &Engine, files: &[PartitionFile], column: &str) -> Result<u64, PipelineError> {
    if files.is_empty() {
        return Ok(0);
    }
    let sql = format!("SELECT count(*) AS n FROM {} WHERE CAST({column} AS DATE) <> date", read_partitions(files));
    let n: i64 = db.conn.query_row(&sql, [], |r| r.get("n")).map_err(duckdb)?;
    Ok(n.max(0) as u64)
}

/// SHA-256 over the definition: the SQL, the datasets' schemas, the state format, the methodology.
fn definition() -> String {
    let text = format!(
        "{STATE_FORMAT}\n{}\n{}\n{:?}\n{:?}\n",
        agentrep_model::METHODOLOGY_VERSION,
        SETTLEMENTS_CARRIED.text,
        Dataset::Settlements.schema(),
        Dataset::Receipts.schema()
    );
    hex::encode(Sha256::digest(text.as_bytes()))
}

/// SHA-256 over the facilitators and the oracle's paying wallets of the day.
fn lists_digest(db: &Engine) -> Result<String, PipelineError> {
    let sql = "SELECT coalesce((SELECT string_agg(address, ',' ORDER BY address) FROM facilitators), '') || '/' || \
               coalesce((SELECT string_agg(address, ',' ORDER BY address) FROM oracle_payers), '') AS lists";
    let lists: String = db.conn.query_row(sql, [], |r| r.get("lists")).map_err(duckdb)?;
    Ok(hex::encode(Sha256::digest(lists.as_bytes())))
}

/// The stored state that may be the base of the engine's day, or why none may.
fn find_base(db: &Engine, dir: &Path, definition: &str, lists: &str) -> Result<Result<Base, Recompute>, PipelineError> {
    let Some(date) = carry::stored_days(dir)?.into_iter().rfind(|d| *d <= db.day) else {
        return Ok(Err(Recompute::NoState));
    };
    let state_dir = dir.join(format!("date={date}"));
    let meta = std::fs::read(state_dir.join(META_FILE)).ok().and_then(|b| serde_json::from_slice::<StateMeta>(&b).ok());
    let Some(meta) = meta.filter(|m| m.date == date) else {
        return Ok(Err(Recompute::Unreadable));
    };
    if TABLES.iter().any(|t| !t.path(&state_dir).is_file()) {
        return Ok(Err(Recompute::Unreadable));
    }
    if meta.definition != definition {
        return Ok(Err(Recompute::DefinitionChanged));
    }
    if meta.lists != lists {
        return Ok(Err(Recompute::ListsChanged));
    }
    if db.lake.dataset_digest(Dataset::Settlements, date)? != meta.settlements
        || db.lake.dataset_digest(Dataset::Receipts, date)? != meta.receipts
    {
        return Ok(Err(Recompute::InputChanged));
    }
    Ok(Ok(Base { date, dir: state_dir }))
}

/// Writes the day's state: the pairs, the payees, the receipts' matches and the claims' digests
/// for the days up to the day's end.
fn store(db: &Engine, dir: &Path, meta: &StateMeta) -> Result<(), PipelineError> {
    section(db, "claims", &[("{clip_day}", day_number(db.day + Duration::days(1)).to_string())])?;
    carry::store_folder(db, NAME, dir, |tmp| {
        let mut written = Vec::new();
        for t in &TABLES {
            let path = t.path(tmp);
            let copy =
                format!("COPY (SELECT {} FROM {}) TO {} (FORMAT parquet)", t.store, t.table, carry::quote_path(&path));
            db.conn.execute_batch(&copy).map_err(duckdb)?;
            written.push(path);
        }
        let meta_path = tmp.join(META_FILE);
        std::fs::write(&meta_path, serde_json::to_vec_pretty(meta).expect("state metadata serialises"))
            .map_err(carry::io_err(&meta_path))?;
        written.push(meta_path);
        Ok(written)
    })
}
