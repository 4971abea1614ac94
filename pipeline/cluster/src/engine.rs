//! The Ballista engine: a [`PassEngine`] that runs a pass's DataFusion text on a Ballista cluster
//! reading the lake's bucket.
//!
//! For one pass:
//! 1. the small tables the pass ships are written as Parquet to a scratch folder of the bucket
//!    (`<lake>/_scratch/<run>/`), and each lake input becomes a table over exactly the partitions
//!    the rebuild reads (`s3://` addresses of its pinned view);
//! 2. each `CREATE TABLE <name> AS <query>` runs on the cluster, whose executors write the result
//!    to the scratch folder, where the next statements read it;
//! 3. each output's files are fetched from the bucket and imported into the rebuild's connection;
//! 4. the scratch folder is removed, whatever happened.
//!
//! Any failure (the scheduler unreachable, a statement that fails, a statement over its time
//! limit: Ballista itself retries a lost executor's work without end) fails the pass and with it
//! the rebuild, which then publishes nothing.

use std::path::PathBuf;
use std::sync::Arc;
use std::time::{Duration, Instant};

use agentrep_lake::{Bucket, Dataset};
use agentrep_pipeline::{LocalTables, Pass, PassEngine, PipelineError};
use arrow::datatypes::SchemaRef;
use arrow::record_batch::RecordBatch;
use ballista::extension::SessionContextExt;
use ballista_core::extension::SessionConfigExt;
use datafusion::dataframe::DataFrameWriteOptions;
use datafusion::datasource::file_format::parquet::ParquetFormat;
use datafusion::datasource::listing::{ListingOptions, ListingTable, ListingTableConfig, ListingTableUrl};
use datafusion::execution::object_store::ObjectStoreRegistry;
use datafusion::prelude::{SessionConfig, SessionContext};
use parquet::arrow::ArrowWriter;

use crate::process::{PLANNER_STACK_BYTES, session_state};
use crate::stores::BucketStores;

/// What went wrong on the cluster, with its causes.
type Failure = Box<dyn std::error::Error + Send + Sync>;

/// A Ballista cluster, reached through its scheduler.
#[derive(Debug)]
pub struct Ballista {
    scheduler: String,
    statement_timeout: Duration,
    runtime: tokio::runtime::Runtime,
}

impl Ballista {
    /// An engine submitting to the scheduler at `scheduler` (`df://host:port`); each statement may
    /// take up to `statement_timeout`.
    pub fn new(scheduler: &str, statement_timeout: Duration) -> Result<Self, std::io::Error> {
        let runtime = tokio::runtime::Builder::new_multi_thread()
            .worker_threads(2)
            .thread_name("ballista-client")
            .thread_stack_size(PLANNER_STACK_BYTES)
            .enable_all()
            .build()?;
        Ok(Self { scheduler: scheduler.to_owned(), statement_timeout, runtime })
    }

    fn fail(&self, pass: &Pass, message: impl std::fmt::Display) -> PipelineError {
        PipelineError::Engine {
            engine: format!("ballista ({})", self.scheduler),
            pass: pass.name,
            message: message.to_string(),
        }
    }
}

impl PassEngine for Ballista {
    fn name(&self) -> &str {
        "ballista"
    }

    fn run(&self, pass: &Pass, local: &LocalTables<'_>) -> Result<(), PipelineError> {
        let bucket = local.lake().bucket().cloned().ok_or_else(|| {
            self.fail(
                pass,
                "the Ballista engine reads the lake from its bucket: give `--lake s3://bucket/prefix` \
                 (executors on other machines cannot read this machine's folder)",
            )
        })?;
        // What the pass reads of this machine is taken here, on the rebuild's thread (its DuckDB
        // connection stays on it); the cluster work below needs none of it.
        let mut shipped = Vec::with_capacity(pass.shipped.len());
        for table in pass.shipped {
            shipped.push((table.table, local.export(table)?));
        }
        let mut inputs = Vec::with_capacity(pass.lake_inputs.len());
        for dataset in pass.lake_inputs {
            let urls = local.partition_urls(*dataset)?.ok_or_else(|| self.fail(pass, "the lake is not a bucket"))?;
            inputs.push((*dataset, urls));
        }
        let run_id = format!(
            "{}-{}-{}",
            local.day(),
            std::process::id(),
            std::time::SystemTime::now().duration_since(std::time::UNIX_EPOCH).map(|d| d.as_nanos()).unwrap_or(0)
        );
        let fetched = tempfile::tempdir().map_err(|e| self.fail(pass, format!("a folder for the results: {e}")))?;
        let job = Job {
            pass: pass.name,
            sql: local.sql(pass.datafusion),
            shipped,
            inputs,
            outputs: pass.outputs.iter().map(|o| o.table).collect(),
            scratch: Scratch { bucket, dir: format!("_scratch/{run_id}") },
            fetched: fetched.path().to_owned(),
        };
        // The client runs on a thread of its own, so the rebuild may itself be part of an async
        // runtime (the scheduler's) without the client's runtime nesting in it.
        let outcome = std::thread::scope(|scope| {
            std::thread::Builder::new()
                .name("ballista-job".to_owned())
                .stack_size(PLANNER_STACK_BYTES)
                .spawn_scoped(scope, || self.runtime.block_on(job.run(&self.scheduler, self.statement_timeout)))
                .map_err(|e| self.fail(pass, format!("starting the client's thread: {e}")))
                .map(|client| client.join())
        })?;
        let cleaned = job.scratch.bucket.delete_all(&job.scratch.dir);
        let files = match outcome {
            Ok(Ok(files)) => files,
            Ok(Err(failure)) => return Err(self.fail(pass, chain(&*failure))),
            Err(_) => return Err(self.fail(pass, "the cluster client panicked")),
        };
        for (output, files) in pass.outputs.iter().zip(&files) {
            local.import(output, files)?;
        }
        cleaned.map_err(|e| self.fail(pass, format!("removing the scratch folder: {e}")))
    }
}

/// A run's folder of the bucket, for shipped tables and statement results.
struct Scratch {
    bucket: Arc<Bucket>,
    dir: String,
}

impl Scratch {
    fn relative(&self, table: &str) -> String {
        format!("{}/{table}", self.dir)
    }

    fn url(&self, table: &str) -> String {
        format!("{}/", self.bucket.object_url(&self.relative(table)))
    }
}

/// One pass's work on the cluster, with everything it needs from the rebuilding machine.
struct Job {
    pass: &'static str,
    /// The DataFusion text, placeholders filled.
    sql: String,
    /// Each shipped table: its name, schema and rows.
    shipped: Vec<(&'static str, (SchemaRef, Vec<RecordBatch>))>,
    /// Each lake input and the `s3://` addresses of its partitions.
    inputs: Vec<(Dataset, Vec<String>)>,
    outputs: Vec<&'static str>,
    scratch: Scratch,
    /// Where the outputs' files are fetched to.
    fetched: PathBuf,
}

impl Job {
    /// Runs the statements on the cluster; returns each output's files, in the order of `outputs`.
    async fn run(&self, scheduler: &str, statement_timeout: Duration) -> Result<Vec<Vec<PathBuf>>, Failure> {
        let scratch = &self.scratch;
        let stores = Arc::new(BucketStores::default());
        // The client reads the bucket with the lake's own client (its settings, its credentials).
        let bucket_url = url::Url::parse(&format!("s3://{}", scratch.bucket.url().bucket))?;
        stores.register_store(&bucket_url, scratch.bucket.object_store());
        let state = session_state(SessionConfig::new_with_ballista(), stores)?;
        let ctx = SessionContext::remote_with_state(scheduler, state).await?;

        for (dataset, urls) in &self.inputs {
            if urls.is_empty() {
                // No partition yet: an empty table of the dataset's columns.
                ship(&ctx, scratch, dataset.name(), dataset.schema(), &[])?;
            } else {
                register(&ctx, dataset.name(), urls.clone(), dataset.schema())?;
            }
        }
        for (table, (schema, batches)) in &self.shipped {
            ship(&ctx, scratch, table, Arc::clone(schema), batches)?;
        }

        for (name, query) in statements(&self.sql)? {
            let name = name.as_str();
            let started = Instant::now();
            let frame = ctx.sql(&query).await?;
            let schema = SchemaRef::new(frame.schema().as_arrow().clone());
            let url = scratch.url(name);
            let write = frame.write_parquet(&url, DataFrameWriteOptions::new(), None);
            tokio::time::timeout(statement_timeout, write)
                .await
                .map_err(|_| format!("statement {name} ran over {statement_timeout:?}"))??;
            register(&ctx, name, vec![scratch.url(name)], schema)?;
            tracing::debug!(target: "pipeline::sql", engine = "ballista", pass = self.pass, table = name,
                ms = started.elapsed().as_millis() as u64, "Statement done.");
        }

        let mut outputs = Vec::with_capacity(self.outputs.len());
        for table in &self.outputs {
            let objects = scratch.bucket.list(&format!("{}/", scratch.relative(table)))?;
            let keys: Vec<String> =
                objects.iter().filter(|o| o.key.ends_with(".parquet")).map(|o| o.key.clone()).collect();
            let mut files = Vec::new();
            for (i, bytes) in scratch.bucket.get_all(&keys, 8)?.into_iter().enumerate() {
                let bytes = bytes.ok_or_else(|| format!("{} vanished from the scratch folder", keys[i]))?;
                let path = self.fetched.join(format!("{table}-{i}.parquet"));
                std::fs::write(&path, bytes)?;
                files.push(path);
            }
            if files.is_empty() {
                // A result with no rows may leave no file: read its columns from the cluster.
                let schema = SchemaRef::new(ctx.table(*table).await?.schema().as_arrow().clone());
                let path = self.fetched.join(format!("{table}-empty.parquet"));
                std::fs::write(&path, parquet_bytes(schema, &[])?)?;
                files.push(path);
            }
            outputs.push(files);
        }
        Ok(outputs)
    }
}

/// The statements of a DataFusion text, each `CREATE TABLE <name> AS <query>`, as (name, query).
fn statements(text: &str) -> Result<Vec<(String, String)>, Failure> {
    let mut out = Vec::new();
    for statement in agentrep_pipeline::statements(text) {
        let rest = statement.strip_prefix("CREATE TABLE ").ok_or_else(|| format!("not a CREATE TABLE: {statement}"))?;
        let (name, query) = rest.split_once(" AS").ok_or_else(|| format!("no AS in: {statement}"))?;
        out.push((name.trim().to_owned(), query.trim().to_owned()));
    }
    Ok(out)
}

/// Registers a Parquet table over `urls` (files, or folders ending in `/`) with `schema`.
fn register(ctx: &SessionContext, name: &str, urls: Vec<String>, schema: SchemaRef) -> Result<(), Failure> {
    let urls = urls.iter().map(ListingTableUrl::parse).collect::<Result<Vec<_>, _>>()?;
    let options = ListingOptions::new(Arc::new(ParquetFormat::default())).with_file_extension(".parquet");
    let config = ListingTableConfig::new_with_multi_paths(urls).with_listing_options(options).with_schema(schema);
    ctx.register_table(name, Arc::new(ListingTable::try_new(config)?))?;
    Ok(())
}

/// Writes `batches` to the scratch folder as one Parquet file and registers it as `name`.
fn ship(
    ctx: &SessionContext,
    scratch: &Scratch,
    name: &str,
    schema: SchemaRef,
    batches: &[RecordBatch],
) -> Result<(), Failure> {
    scratch
        .bucket
        .put(&format!("{}/part-0.parquet", scratch.relative(name)), parquet_bytes(Arc::clone(&schema), batches)?)?;
    register(ctx, name, vec![scratch.url(name)], schema)
}

fn parquet_bytes(schema: SchemaRef, batches: &[RecordBatch]) -> Result<Vec<u8>, Failure> {
    let mut bytes = Vec::new();
    let mut writer = ArrowWriter::try_new(&mut bytes, schema, None)?;
    for batch in batches {
        writer.write(batch)?;
    }
    writer.close()?;
    Ok(bytes)
}

/// An error and its causes, on one line.
fn chain(error: &(dyn std::error::Error + 'static)) -> String {
    let mut text = error.to_string();
    let mut source = error.source();
    while let Some(cause) = source {
        let cause_text = cause.to_string();
        if !text.contains(&cause_text) {
            text.push_str(": ");
            text.push_str(&cause_text);
        }
        source = cause.source();
    }
    text
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_statement_of_the_settlement_pass_creates_a_named_table() {
        let names: Vec<String> =
            statements(agentrep_pipeline::SETTLEMENTS.datafusion).unwrap().into_iter().map(|(n, _)| n).collect();
        for output in agentrep_pipeline::SETTLEMENTS.outputs {
            assert!(names.iter().any(|n| n == output.table), "{} is never created: {names:?}", output.table);
        }
        assert_eq!(names[0], "s");
    }

    #[test]
    fn a_statement_that_creates_no_table_is_refused() {
        assert!(statements("-- a comment\nSELECT 1;").is_err());
        assert!(statements("-- only a comment;\n").unwrap().is_empty());
    }
}
