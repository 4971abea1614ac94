//! The engine interface: where a rebuild's distributable passes run.
//!
//! A [`Pass`] is a relational pass whose input grows with the lake's history (today one: the
//! settlement pass). It reads lake datasets and a few small tables the rebuild computed before it,
//! and leaves named output tables that the rest of the rebuild reads on the embedded DuckDB
//! connection. A [`PassEngine`] runs it:
//! - [`Embedded`] (the default) runs its DuckDB text on the rebuild's own connection;
//! - a cluster engine (`agentrep-cluster`'s Ballista engine) runs its DataFusion text where the
//!   lake lives, and brings each output back as Arrow through [`LocalTables::import`].
//!
//! Either way the outputs are the same tables with the same types, so everything after the pass is
//! the same code, and the identity test (`tests/cluster`) holds the two to the same snapshot.

use std::fmt;
use std::path::PathBuf;

use agentrep_lake::{Dataset, Lake};
use arrow::datatypes::SchemaRef;
use arrow::record_batch::RecordBatch;
use chrono::NaiveDate;

use crate::PipelineError;
use crate::engine::{Engine, quote};

/// A relational pass an engine may run away from the rebuild's machine.
#[derive(Debug)]
pub struct Pass {
    /// For logs, timings and errors.
    pub name: &'static str,
    /// The pass in DuckDB's dialect, run by [`Embedded`].
    pub duckdb: &'static str,
    /// The pass in DataFusion's dialect: `CREATE TABLE <name> AS <query>` statements, each
    /// difference from the DuckDB text written down beside it.
    pub datafusion: &'static str,
    /// The lake datasets it reads, as tables of their names (the rebuild's partitions up to its day).
    pub lake_inputs: &'static [Dataset],
    /// Those of [`Pass::lake_inputs`] nothing else in the rebuild reads: with an engine that reads
    /// the lake where it lives, the rebuilding machine never fetches them.
    pub remote_only: &'static [Dataset],
    /// What it reads of the rebuild's connection (tables the DuckDB text reads as they are),
    /// shipped to an engine that runs elsewhere.
    pub shipped: &'static [Shipped],
    /// The tables it leaves for the rest of the rebuild.
    pub outputs: &'static [Output],
}

/// A table shipped to a pass that runs elsewhere: a query over the rebuild's connection.
#[derive(Debug)]
pub struct Shipped {
    /// Its name on the engine.
    pub table: &'static str,
    /// Its rows, a DuckDB query on the rebuild's connection.
    pub query: &'static str,
}

/// One table a pass leaves.
#[derive(Debug)]
pub struct Output {
    /// The table's name, on the engine and on the rebuild's connection.
    pub table: &'static str,
    /// The table's columns on the rebuild's connection, as a DuckDB select list over the columns
    /// the DataFusion text gives it: the DuckDB text's exact types, and the 64-bit hashes DuckDB
    /// joins by (DataFusion has no `hash` that gives DuckDB's values, so the port joins strings).
    pub columns: &'static str,
}

/// The settlement pass: every transfer to a listed seller, attributed, aggregated per seller, per
/// (seller, payer) and per payer.
pub const SETTLEMENTS: Pass = Pass {
    name: "settlements",
    duckdb: include_str!("sql/settlements.sql"),
    datafusion: include_str!("sql/settlements.datafusion.sql"),
    lake_inputs: &[Dataset::Settlements, Dataset::Receipts],
    remote_only: &[Dataset::Settlements],
    shipped: &[
        Shipped { table: "seller_ids", query: "SELECT address, sid FROM seller_ids" },
        Shipped {
            table: "price_bounds",
            query: "SELECT address, net, asset, from_day, until_day, min_price FROM price_bounds",
        },
        // The advertised prices one row each: Ballista's executors have no list functions.
        Shipped {
            table: "price_points",
            query: "SELECT address, net, asset, from_day, unnest(prices) AS price FROM price_bounds",
        },
        Shipped { table: "facilitators", query: "SELECT address FROM facilitators" },
        Shipped { table: "oracle_payers", query: "SELECT address FROM oracle_payers" },
    ],
    outputs: &[
        Output {
            table: "nonq",
            columns: "address, unattributed::BIGINT AS unattributed, below_price::BIGINT AS below_price",
        },
        Output {
            table: "pp",
            columns: "sid::UINTEGER AS sid, hash(payer) AS payer_h, payer, n::BIGINT AS n, spend::UBIGINT AS spend, \
                      first_t::BIGINT AS first_t, last_t::BIGINT AS last_t, mask30::UBIGINT AS mask30",
        },
        Output {
            table: "settle",
            columns: "address, settlements::BIGINT AS settlements, settlements_30d::BIGINT AS settlements_30d, \
                      volume::UBIGINT AS volume, exact_price_share::DOUBLE AS exact_price_share, \
                      exact_settlements::BIGINT AS exact_settlements",
        },
        Output { table: "cadence", columns: "address, interval_cv::DOUBLE AS interval_cv" },
        Output { table: "cited", columns: "tx_hash, sid::UINTEGER AS sid, payer" },
        Output {
            table: "seller_recent",
            columns: "sid::UINTEGER AS sid, earned_7d::UBIGINT AS earned_7d, settlements_7d::BIGINT AS settlements_7d, \
                      buyers_7d::BIGINT AS buyers_7d, last_t::BIGINT AS last_t",
        },
        Output { table: "seller_days", columns: "sid::UINTEGER AS sid, day::BIGINT AS day, n::UBIGINT AS n" },
        Output {
            table: "payer_recent",
            columns: "payer, spent_7d::UBIGINT AS spent_7d, payments_7d::BIGINT AS payments_7d, \
                      sellers_7d::BIGINT AS sellers_7d",
        },
        Output { table: "seller_forms", columns: "address, form, app, wallet, services, n::BIGINT AS n" },
    ],
};

/// Runs [`Pass`]es. Implementations must leave every output of a pass on the rebuild's connection
/// with the columns [`Output::columns`] gives, or fail and leave the rebuild to fail (a rebuild
/// that fails publishes nothing).
pub trait PassEngine: fmt::Debug + Send + Sync {
    /// A short name for logs and timings (`duckdb`, `ballista`).
    fn name(&self) -> &str;

    /// Whether it reads the lake where it lives (a bucket), so that the rebuild need not fetch a
    /// pass's [`Pass::remote_only`] datasets.
    fn reads_lake_remotely(&self) -> bool {
        true
    }

    /// Runs `pass` for the rebuild `local` belongs to.
    fn run(&self, pass: &Pass, local: &LocalTables<'_>) -> Result<(), PipelineError>;
}

/// The embedded DuckDB: the pass's DuckDB text on the rebuild's own connection.
#[derive(Debug, Clone, Copy, Default)]
pub struct Embedded;

impl PassEngine for Embedded {
    fn name(&self) -> &str {
        "duckdb"
    }

    fn reads_lake_remotely(&self) -> bool {
        false
    }

    fn run(&self, pass: &Pass, local: &LocalTables<'_>) -> Result<(), PipelineError> {
        local.db.execute(pass.name, pass.duckdb)
    }
}

/// What a [`PassEngine`] may see of a rebuild: its day, its lake and partitions, its SQL
/// placeholders, and its connection's tables, read and written as Arrow.
pub struct LocalTables<'a> {
    db: &'a Engine,
}

impl fmt::Debug for LocalTables<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("LocalTables").field("day", &self.db.day).field("lake", &self.db.lake.location()).finish()
    }
}

impl<'a> LocalTables<'a> {
    pub(crate) fn new(db: &'a Engine) -> Self {
        Self { db }
    }

    /// The rebuild's day.
    pub fn day(&self) -> NaiveDate {
        self.db.day
    }

    /// The lake the rebuild reads (its pinned view).
    pub fn lake(&self) -> &Lake {
        &self.db.lake
    }

    /// The `s3://` addresses of the partitions of `dataset` the rebuild reads (every one up to its
    /// day, as its pinned view lists them); `None` for a folder lake.
    pub fn partition_urls(&self, dataset: Dataset) -> Result<Option<Vec<String>>, PipelineError> {
        let (lake, day) = (&self.db.lake, self.db.day);
        if lake.is_remote(dataset) {
            return Ok(lake.remote_partitions_up_to(dataset, day)?.map(|p| p.into_iter().map(|p| p.url).collect()));
        }
        let files = lake.partitions_up_to(dataset, day)?;
        Ok(files.iter().map(|f| lake.partition_url(dataset, f.date)).collect())
    }

    /// `text` with the rebuild's placeholders (`{day_end}`, `{d30_epoch}`, …) filled in; they are
    /// literals both dialects read the same way.
    pub fn sql(&self, text: &str) -> String {
        self.db.sql(text)
    }

    /// A shipped table's rows, as Arrow: its schema (also when it has no rows) and its batches.
    pub fn export(&self, shipped: &Shipped) -> Result<(SchemaRef, Vec<RecordBatch>), PipelineError> {
        let err = |source| PipelineError::Duckdb { pass: "export", source };
        let mut stmt = self.db.conn.prepare(shipped.query).map_err(err)?;
        let arrow = stmt.query_arrow([]).map_err(err)?;
        let schema = arrow.get_schema();
        Ok((schema, arrow.collect()))
    }

    /// Creates `output`'s table on the rebuild's connection from the Parquet files (at least one)
    /// holding the engine's result, converted by [`Output::columns`].
    pub fn import(&self, output: &Output, parquet: &[PathBuf]) -> Result<(), PipelineError> {
        let files: Vec<String> = parquet.iter().map(|p| quote(&p.to_string_lossy())).collect();
        let sql = format!(
            "CREATE OR REPLACE TEMP TABLE {} AS SELECT {} FROM read_parquet([{}])",
            output.table,
            output.columns,
            files.join(", ")
        );
        self.db.conn.execute_batch(&sql).map_err(|source| PipelineError::Duckdb { pass: "import", source })
    }
}
