//! The DuckDB connection of one rebuild: offline settings, and one view per dataset over exactly
//! the partition files up to the rebuild day (an empty table when a dataset has none).

use agentrep_lake::{Dataset, Lake, PartitionFile};
use arrow::datatypes::DataType;
use chrono::{Duration, NaiveDate};
use duckdb::Connection;

use agentrep_model::trust;

use crate::carry::CarryLog;
use crate::sql_files::SqlFile;
use crate::{ADMIN_PATH_SEGMENTS, PipelineError, SUSPICIOUS_TLDS};

/// Functions every SQL file of the rebuild may call. `caip2`: a listing's network as CAIP-2
/// (marketplaces list Base by its name or by its chain id).
const SQL_MACROS: &str = "CREATE MACRO caip2(network) AS \
    CASE network WHEN 'base' THEN 'eip155:8453' WHEN 'base-sepolia' THEN 'eip155:84532' ELSE network END;";

pub(crate) struct Engine {
    pub conn: Connection,
    pub lake: Lake,
    pub day: NaiveDate,
    /// Fold every carried state from all partitions instead of the stored state.
    pub from_scratch: bool,
    /// How each carried fold was read.
    pub carried: CarryLog,
    /// Where DuckDB writes what does not fit its memory; removed after the connection closes
    /// (fields drop in order).
    _spill: tempfile::TempDir,
}

/// DuckDB's share of the machine's memory. Its own default, 80 %, leaves the rebuild's own
/// structures (the wallet graph, the features, the records it publishes) too little once the
/// temporary tables are large: at ten times the benchmark scale the rebuild went over 22 GiB
/// loading the wallet graph (BENCHMARKS.md § 4l). Past its share DuckDB spills to disk.
const DUCKDB_MEMORY_SHARE: f64 = 0.5;

/// DuckDB's share of the machine once the rebuild's Rust side holds the most: from the wallet graph
/// on (at ten times the benchmark scale the deployers pass, beside the graph, took the rebuild to
/// 21.7 GiB while DuckDB kept its half; BENCHMARKS.md § 4n), then every seller's inputs and record.
/// DuckDB writes what its temporary tables hold past it to its spill folder; the passes after it
/// read them from there.
pub(crate) const DUCKDB_SCORING_SHARE: f64 = 0.2;

/// The machine's memory in bytes (`MemTotal`), when the system says.
fn machine_memory() -> Option<u64> {
    let meminfo = std::fs::read_to_string("/proc/meminfo").ok()?;
    let line = meminfo.lines().find(|l| l.starts_with("MemTotal:"))?;
    let kib: u64 = line.split_whitespace().nth(1)?.parse().ok()?;
    Some(kib * 1024)
}

/// The settings that bound DuckDB's memory: its share of the machine and the folder it spills to
/// (under the system's temporary folder, `TMPDIR`; not the working directory, DuckDB's default).
fn memory_settings(spill: &std::path::Path) -> String {
    let mut sql = format!("SET temp_directory = {};", quote(&spill.to_string_lossy()));
    if let Some(limit) = memory_limit(DUCKDB_MEMORY_SHARE) {
        sql.push_str(&limit);
    }
    sql
}

/// The statement that limits DuckDB to `share` of the machine, when the machine's memory is known.
fn memory_limit(share: f64) -> Option<String> {
    let limit_mib = (machine_memory()? as f64 * share / (1024.0 * 1024.0)) as u64;
    Some(format!(" SET memory_limit = '{limit_mib}MiB';"))
}

/// This process's resident memory in bytes (`VmRSS`), when the system says.
fn resident_memory() -> Option<u64> {
    let status = std::fs::read_to_string("/proc/self/status").ok()?;
    let line = status.lines().find(|l| l.starts_with("VmRSS:"))?;
    let kib: u64 = line.split_whitespace().nth(1)?.parse().ok()?;
    Some(kib * 1024)
}

fn sql_type(dt: &DataType) -> &'static str {
    match dt {
        DataType::Utf8 => "VARCHAR",
        DataType::UInt32 => "UINTEGER",
        DataType::UInt64 => "UBIGINT",
        DataType::Int64 => "BIGINT",
        DataType::Float64 => "DOUBLE",
        DataType::Boolean => "BOOLEAN",
        DataType::Timestamp(..) => "TIMESTAMP",
        DataType::List(_) => "VARCHAR[]",
        other => unreachable!("lake column type {other} has no SQL mapping"),
    }
}

/// A SQL string literal.
pub(crate) fn quote(s: &str) -> String {
    format!("'{}'", s.replace('\'', "''"))
}

fn ts(day: NaiveDate) -> String {
    format!("TIMESTAMP '{day} 00:00:00'")
}

/// A table function reading exactly `files` (at least one), with their `date` partition column.
/// Columns are matched by name, so partitions written before a column was added to their dataset
/// read it as null (`offer_pay_tos` of `probes`, methodology 3.1).
pub(crate) fn read_partitions(files: &[PartitionFile]) -> String {
    let list: Vec<String> = files.iter().map(|f| quote(&f.path.to_string_lossy())).collect();
    format!(
        "read_parquet([{}], hive_partitioning = true, hive_types = {{'date': DATE}}, union_by_name = true)",
        list.join(", ")
    )
}

impl Engine {
    pub fn open(lake: &Lake, day: NaiveDate, from_scratch: bool) -> Result<Self, PipelineError> {
        let err = |source| PipelineError::Duckdb { pass: "open", source };
        let conn = Connection::open_in_memory().map_err(err)?;
        // Offline: never fetch extensions (parquet and json are built into libduckdb).
        conn.execute_batch(
            "SET autoinstall_known_extensions = false; SET autoload_known_extensions = false; \
             SET preserve_insertion_order = false;",
        )
        .map_err(err)?;
        let spill = tempfile::Builder::new()
            .prefix("agentrep-duckdb-")
            .tempdir()
            .map_err(|source| PipelineError::Spill { path: std::env::temp_dir(), source })?;
        conn.execute_batch(&memory_settings(spill.path())).map_err(err)?;
        conn.execute_batch(SQL_MACROS).map_err(err)?;
        for dataset in Dataset::ALL {
            // A dataset the engine reads where it lives gets no table here: a read of it on this
            // connection fails loudly instead of seeing no rows.
            if lake.is_remote(*dataset) {
                continue;
            }
            let files = lake.partitions_up_to(*dataset, day)?;
            let sql = if files.is_empty() {
                let schema = dataset.schema();
                let columns: Vec<String> = schema
                    .fields()
                    .iter()
                    .map(|f| format!("{} {}", f.name(), sql_type(f.data_type())))
                    .chain(std::iter::once("date DATE".to_owned()))
                    .collect();
                format!("CREATE TABLE {} ({})", dataset.name(), columns.join(", "))
            } else {
                let source = read_partitions(&files);
                // A column added to the dataset after every one of these partitions was written
                // reads as null.
                let present: std::collections::HashSet<String> = {
                    let mut stmt = conn.prepare(&format!("DESCRIBE SELECT * FROM {source}")).map_err(err)?;
                    stmt.query_map([], |r| r.get("column_name")).map_err(err)?.collect::<Result<_, _>>().map_err(err)?
                };
                let added: String = dataset
                    .schema()
                    .fields()
                    .iter()
                    .filter(|f| !present.contains(f.name()))
                    .map(|f| format!(", NULL::{} AS {}", sql_type(f.data_type()), f.name()))
                    .collect();
                format!("CREATE VIEW {} AS SELECT *{added} FROM {source}", dataset.name())
            };
            conn.execute_batch(&sql).map_err(err)?;
        }
        Ok(Self { conn, lake: lake.clone(), day, from_scratch, carried: CarryLog::default(), _spill: spill })
    }

    /// Fills the placeholders of a SQL text for this rebuild's day.
    pub fn sql(&self, text: &str) -> String {
        let day_end = self.day + Duration::days(1);
        let epoch = |d: NaiveDate| d.and_hms_opt(0, 0, 0).expect("midnight").and_utc().timestamp().to_string();
        text.replace("{day_end_epoch}", &epoch(day_end))
            .replace("{d30_epoch}", &epoch(day_end - Duration::days(30)))
            .replace("{d7_epoch}", &epoch(day_end - Duration::days(7)))
            .replace("{horizon_epoch}", &epoch(day_end - Duration::days(trust::RELATIONSHIP_HORIZON_DAYS)))
            .replace("{receipt_window}", &(trust::RECEIPT_WINDOW_DAYS * 86_400).to_string())
            .replace("{x402_forms}", &agentrep_lake::SettlementForm::x402_sql_list())
            .replace("{day_end}", &ts(day_end))
            .replace("{d30}", &ts(day_end - Duration::days(30)))
            .replace("{d7}", &ts(day_end - Duration::days(7)))
            .replace("{d1}", &ts(day_end - Duration::days(1)))
            .replace("{d90}", &format!("DATE '{}'", self.day - Duration::days(89)))
            .replace("{listing_cutoff}", &ts(day_end - Duration::days(30)))
            .replace(
                "{ranks_cutoff}",
                &ts(day_end - Duration::days(crate::window_days(agentrep_lake::Dataset::DomainRanks))),
            )
            .replace("{domain_proven_rank}", &agentrep_model::decision::params::DOMAIN_PROVEN_RANK.to_string())
            .replace("{hub_min_fanout}", &trust::HUB_MIN_FANOUT.to_string())
            .replace("{hub_min_amount}", &trust::HUB_MIN_AMOUNT.to_string())
            .replace("{hub_min_days}", &trust::HUB_MIN_DAYS.to_string())
            .replace("{suspicious_tlds}", &SUSPICIOUS_TLDS.join("|"))
            .replace(
                "{admin_segments}",
                &ADMIN_PATH_SEGMENTS.iter().map(|s| s.replace('.', "\\.")).collect::<Vec<_>>().join("|"),
            )
    }

    /// Runs one of the rebuild's SQL script files whole (the stage runner checks its declaration).
    pub(crate) fn run_file(&self, file: &SqlFile) -> Result<(), PipelineError> {
        self.execute(file.name, file.text)
    }

    /// The end of the rebuild's day, in seconds since the epoch.
    pub fn day_end(&self) -> i64 {
        (self.day + Duration::days(1)).and_hms_opt(0, 0, 0).expect("midnight").and_utc().timestamp()
    }

    /// Checks that the tables `file` declares it `reads` (tables or views) or `leaves` exist on
    /// this connection, but those named in `elsewhere` (read where the lake lives).
    pub(crate) fn require(&self, file: &SqlFile, role: &'static str, elsewhere: &[&str]) -> Result<(), PipelineError> {
        let tables = if role == "reads" { file.reads } else { file.leaves };
        let sql = "SELECT table_name AS name FROM duckdb_tables() UNION SELECT view_name FROM duckdb_views()";
        let err = |source| PipelineError::Duckdb { pass: file.name, source };
        let mut stmt = self.conn.prepare(sql).map_err(err)?;
        let existing: std::collections::HashSet<String> =
            stmt.query_map([], |r| r.get("name")).map_err(err)?.collect::<Result<_, _>>().map_err(err)?;
        match tables.iter().find(|t| !existing.contains(**t) && !elsewhere.contains(t)) {
            Some(table) => Err(PipelineError::UndeclaredTable { file: file.name, table, role }),
            None => Ok(()),
        }
    }

    /// Runs a script statement by statement, logging each statement's duration at debug level.
    pub fn execute(&self, pass: &'static str, text: &str) -> Result<(), PipelineError> {
        for statement in &statements(&self.sql(text)) {
            let started = std::time::Instant::now();
            self.conn.execute_batch(statement).map_err(|source| PipelineError::Duckdb { pass, source })?;
            let head = statement.lines().next().unwrap_or_default();
            tracing::debug!(target: "pipeline::sql", pass, ms = started.elapsed().as_millis() as u64, statement = head, "Statement done.");
        }
        Ok(())
    }
}

/// The statements of a SQL script, comments removed. The scripts hold no `;` or `--` inside
/// string literals, so comments are cut at `--` and statements split at `;`.
pub fn statements(script: &str) -> Vec<String> {
    let code: Vec<&str> = script.lines().map(|l| l.split("--").next().unwrap_or_default()).collect();
    code.join("\n").split(';').map(str::trim).filter(|s| !s.is_empty()).map(str::to_owned).collect()
}

/// Runs a query and maps each row with `row`.
pub(crate) fn query<T>(
    db: &Engine,
    pass: &'static str,
    sql: &str,
    row: impl FnMut(&duckdb::Row<'_>) -> duckdb::Result<T>,
) -> Result<Vec<T>, PipelineError> {
    let err = |source| PipelineError::Duckdb { pass, source };
    let started = std::time::Instant::now();
    let mut stmt = db.conn.prepare(&db.sql(sql)).map_err(err)?;
    let rows = stmt.query_map([], row).map_err(err)?.collect::<Result<Vec<T>, _>>().map_err(err)?;
    tracing::debug!(target: "pipeline::sql", pass, ms = started.elapsed().as_millis() as u64, rows = rows.len(), "Query done.");
    Ok(rows)
}

/// Typed access to the columns of a query result, one batch at a time.
pub(crate) mod columns {
    use arrow::array::{BooleanArray, Float64Array, Int64Array, StringArray, UInt32Array, UInt64Array};
    use arrow::record_batch::RecordBatch;

    /// The column the query names `name`: a query's columns are read by name, so a column added
    /// to its `SELECT` cannot shift the others. A missing or mistyped column is a defect of the
    /// query beside the code that reads it, which every rebuild in the tests runs.
    fn col<'a, T: 'static>(batch: &'a RecordBatch, name: &str) -> &'a T {
        let column = batch.column_by_name(name).unwrap_or_else(|| {
            let names: Vec<_> = batch.schema().fields().iter().map(|f| f.name().clone()).collect();
            panic!("the query has no column {name:?}: it has {names:?}")
        });
        column
            .as_any()
            .downcast_ref::<T>()
            .unwrap_or_else(|| panic!("column {name:?} is {}, not {}", column.data_type(), std::any::type_name::<T>()))
    }

    /// A `UINTEGER` column.
    pub fn u32s<'a>(batch: &'a RecordBatch, name: &str) -> &'a UInt32Array {
        col(batch, name)
    }

    /// A `BIGINT` column.
    pub fn i64s<'a>(batch: &'a RecordBatch, name: &str) -> &'a Int64Array {
        col(batch, name)
    }

    /// A `UBIGINT` column.
    pub fn u64s<'a>(batch: &'a RecordBatch, name: &str) -> &'a UInt64Array {
        col(batch, name)
    }

    /// A `BOOLEAN` column.
    pub fn bools<'a>(batch: &'a RecordBatch, name: &str) -> &'a BooleanArray {
        col(batch, name)
    }

    /// A `DOUBLE` column.
    pub fn f64s<'a>(batch: &'a RecordBatch, name: &str) -> &'a Float64Array {
        col(batch, name)
    }

    /// A `VARCHAR` column.
    pub fn strs<'a>(batch: &'a RecordBatch, name: &str) -> &'a StringArray {
        col(batch, name)
    }
}

impl Engine {
    /// Runs a query and returns its result as Arrow batches.
    pub fn batches(
        &self,
        pass: &'static str,
        text: &str,
    ) -> Result<Vec<arrow::record_batch::RecordBatch>, PipelineError> {
        let err = |source| PipelineError::Duckdb { pass, source };
        let mut stmt = self.conn.prepare(&self.sql(text)).map_err(err)?;
        Ok(stmt.query_arrow([]).map_err(err)?.collect())
    }

    /// Runs a query and hands its result to `each` one Arrow batch at a time, as DuckDB streams it
    /// out, so a large result (the (seller, payer) pairs, every counterparty: tens of millions of
    /// rows on the census world) is never held whole, neither in DuckDB's memory, where a
    /// materialised result cannot be spilled, nor in Rust beside what it is read into.
    pub fn each_batch(
        &self,
        pass: &'static str,
        text: &str,
        mut each: impl FnMut(&arrow::record_batch::RecordBatch),
    ) -> Result<(), PipelineError> {
        let err = |source| PipelineError::Duckdb { pass, source };
        let mut stmt = self.conn.prepare(&self.sql(text)).map_err(err)?;
        stmt.stream_arrow([]).map_err(err)?.for_each(|batch| each(&batch));
        Ok(())
    }

    /// Lowers DuckDB's memory limit to `share` of the machine (see [`DUCKDB_SCORING_SHARE`]).
    /// DuckDB moves what no longer fits to its spill folder; when it cannot, the limit stays as it
    /// was and the rebuild goes on (it may then need more memory than the machine has).
    pub fn lower_memory_limit(&self, share: f64) {
        let Some(sql) = memory_limit(share) else { return };
        if let Err(e) = self.conn.execute_batch(&sql) {
            tracing::warn!(target: "pipeline::sql", share, error = %e, "DuckDB's memory limit could not be lowered.");
        }
    }

    /// Logs, at debug level, the process's resident memory and what DuckDB holds in memory and in
    /// its spill folder after `pass`: where a rebuild's memory goes, pass by pass.
    pub fn log_memory(&self, pass: &'static str) {
        if !tracing::enabled!(target: "pipeline::memory", tracing::Level::DEBUG) {
            return;
        }
        let mib = |b: i64| b.max(0) as u64 / (1024 * 1024);
        let duckdb = self.conn.query_row(
            "SELECT sum(memory_usage_bytes)::BIGINT AS memory, sum(temporary_storage_bytes)::BIGINT AS spilled \
             FROM duckdb_memory()",
            [],
            |r| Ok((r.get::<_, i64>("memory")?, r.get::<_, i64>("spilled")?)),
        );
        let (duckdb_mib, spilled_mib) = duckdb.map(|(m, t)| (mib(m), mib(t))).unwrap_or_default();
        let resident_mib = resident_memory().map_or(0, |b| b / (1024 * 1024));
        tracing::debug!(target: "pipeline::memory", pass, resident_mib, duckdb_mib, spilled_mib, "Memory after pass.");
    }

    /// The number of rows of a table or view.
    pub fn count(&self, pass: &'static str, table: &str) -> Result<usize, PipelineError> {
        let sql = format!("SELECT count(*) AS n FROM {table}");
        let rows: i64 =
            self.conn.query_row(&sql, [], |r| r.get("n")).map_err(|source| PipelineError::Duckdb { pass, source })?;
        Ok(usize::try_from(rows).unwrap_or(0))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn duckdb_gets_half_the_machine_and_spills_to_a_folder_removed_with_the_engine() {
        let lake_dir = tempfile::tempdir().unwrap();
        let lake = Lake::new(lake_dir.path());
        let engine = Engine::open(&lake, NaiveDate::from_ymd_opt(2026, 11, 20).unwrap(), false).unwrap();
        let spill = engine._spill.path().to_owned();
        assert!(spill.is_dir() && spill.starts_with(std::env::temp_dir()), "{}", spill.display());
        let setting = |name: &str| -> String {
            engine.conn.query_row(&format!("SELECT current_setting('{name}') AS v"), [], |row| row.get("v")).unwrap()
        };
        assert_eq!(setting("temp_directory"), spill.to_string_lossy());
        let machine = machine_memory().expect("/proc/meminfo on Linux");
        let shown = setting("memory_limit");
        let (number, unit) = shown.split_at(shown.find(|c: char| c.is_ascii_alphabetic()).unwrap_or(shown.len()));
        let number: f64 = number.trim().parse().unwrap_or_else(|_| panic!("memory_limit {shown}"));
        let unit_bytes = match unit.trim() {
            "GiB" => 1024.0 * 1024.0 * 1024.0,
            "MiB" => 1024.0 * 1024.0,
            "GB" => 1e9,
            "MB" => 1e6,
            other => panic!("memory_limit {shown}: unit {other}"),
        };
        let share = number * unit_bytes / machine as f64;
        assert!((share - DUCKDB_MEMORY_SHARE).abs() < 0.01, "memory_limit {shown} of {machine} bytes");
        drop(engine);
        assert!(!spill.exists(), "the spill folder outlived the rebuild");
    }
}
