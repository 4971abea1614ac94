//! The settlement pass's two texts, statement by statement: the same generated inputs go through
//! the DuckDB text on DuckDB and the DataFusion text on an in-process DataFusion (the engine
//! Ballista's executors run), and after each statement the two tables it creates must hold the
//! same rows (the DataFusion one converted by `passes::SETTLEMENTS`'s output columns, as the
//! rebuild imports it). A change to one text that the other does not follow fails here, at the
//! statement that drifted, without a cluster.

use std::sync::Arc;

use agentrep_pipeline::{SETTLEMENTS, statements};
use arrow::record_batch::RecordBatch;
use datafusion::datasource::MemTable;
use datafusion::prelude::SessionContext;
use duckdb::Connection;

const DAY_END: &str = "TIMESTAMP '2026-11-21 00:00:00'";
const DAY_END_EPOCH: i64 = 1_795_219_200;

fn fill(text: &str) -> String {
    text.replace("{day_end}", DAY_END)
        .replace("{d30_epoch}", &(DAY_END_EPOCH - 30 * 86_400).to_string())
        .replace("{d7_epoch}", &(DAY_END_EPOCH - 7 * 86_400).to_string())
        // Inside the 55 days of transfers (the rebuild's is 400 days), so the pairs whose last
        // payment is older than the horizon are dropped by both dialects alike.
        .replace("{horizon_epoch}", &(DAY_END_EPOCH - 40 * 86_400).to_string())
        // The rebuild's receipt window: the receipts of 2026-11-10 cite some transfers and are
        // too late for the others.
        .replace("{receipt_window}", &(30 * 86_400).to_string())
        .replace("{x402_forms}", &agentrep_lake::SettlementForm::x402_sql_list())
        .replace("{d30}", "TIMESTAMP '2026-10-22 00:00:00'")
}

/// Thirty sellers (every seventh without a price bound; the others' prices in force in two pieces,
/// doubled from 2026-10-22 for every other seller, with two days of no price between them for
/// every fifth), two facilitators, two of the oracle's own
/// wallets (whose payments both dialects leave out), six thousand transfers
/// spread over 55 days with every attribution case (non-sellers, other assets and networks,
/// missing facilitators, non-EIP-3009, prices below, at and above the bounds), a seller paid at
/// clockwork intervals, its only payments (the cadence statement's case), and receipts citing some
/// transfers (received in fractions of a second, within the receipt window of some and too late
/// for others).
const INPUTS: &str = "
CREATE TABLE seller_ids AS SELECT printf('0x%040x', i) AS address, (i + 1)::UINTEGER AS sid FROM range(30) t(i);
CREATE TABLE price_bounds AS
SELECT hash(address, 'eip155:8453', '0xusdc') AS k, address, 'eip155:8453' AS net, '0xusdc' AS asset,
       from_day, CASE WHEN from_day = 0 AND sid % 5 = 0 THEN 20746 ELSE until_day END AS until_day,
       (price * step)::UBIGINT AS min_price, [(price * step)::UBIGINT, (5 * price * step)::UBIGINT] AS prices
FROM (
    SELECT s.*, p.*, 1000 * (1 + sid % 3) AS price,
           CASE WHEN p.from_day > 0 AND sid % 2 = 0 THEN 2 ELSE 1 END AS step
    FROM seller_ids s, (VALUES (0::BIGINT, 20748::BIGINT), (20748, 100000)) p(from_day, until_day)
    WHERE sid % 7 <> 0
);
CREATE TABLE facilitators AS SELECT * FROM (VALUES ('0xfac1'), ('0xfac2')) t(address);
CREATE TABLE oracle_payers AS SELECT printf('0x%040x', 1000 + i) AS address FROM range(2) t(i);
CREATE TABLE settlements AS
SELECT printf('0x%064x', i) AS tx_hash, 0::UINTEGER AS log_index, i::UBIGINT AS block_number,
       TIMESTAMP '2026-09-27 00:00:00' + to_seconds((hash(i, 't') % (55 * 86400))::BIGINT) AS block_time,
       printf('0x%040x', 1000 + hash(i, 'p') % 60) AS payer,
       printf('0x%040x', 1 + hash(i, 's') % 32) AS pay_to,
       [500, 1000, 2000, 3000, 5000, 10000, 15000][(1 + hash(i, 'v') % 7)::BIGINT]::UBIGINT AS value,
       CASE WHEN hash(i, 'a') % 10 = 0 THEN '0xother' ELSE '0xusdc' END AS asset,
       CASE hash(i, 'f') % 4 WHEN 0 THEN NULL WHEN 1 THEN '0xfac2' ELSE '0xfac1' END AS facilitator,
       hash(i, 'e') % 8 <> 0 AS eip3009,
       CASE WHEN hash(i, 'n') % 12 = 0 THEN 'eip155:84532' ELSE 'eip155:8453' END AS network,
       -- Every form, and no form (rows written before forms were read).
       [NULL, 'eip3009', 'permit2', 'upto', 'auth_capture', 'batch_claim', 'transfer'][(1 + hash(i, 'm') % 7)::BIGINT] AS form,
       NULL::VARCHAR AS channel,
       CASE WHEN hash(i, 'b') % 3 = 0 THEN 'app_' || (hash(i, 'c') % 3)::VARCHAR END AS builder_app,
       CASE WHEN hash(i, 'b') % 5 = 0 THEN 'fac_1' END AS builder_wallet,
       CASE WHEN hash(i, 'b') % 4 = 0 THEN 'client_a,client_b' END AS builder_services
FROM range(6000) t(i)
UNION ALL
SELECT printf('0x%064x', 100000 + i), 0, 100000 + i,
       TIMESTAMP '2026-10-25 00:00:00' + to_seconds(i * 3600 + (hash(i, 'j') % 90)::BIGINT),
       printf('0x%040x', 2000 + i % 3), printf('0x%040x', 0), 2000, '0xusdc', '0xfac1', true, 'eip155:8453',
       'eip3009', NULL, NULL, NULL, NULL
FROM range(240) t(i);
ALTER TABLE settlements ADD COLUMN date DATE;
UPDATE settlements SET date = block_time::DATE;
CREATE TABLE receipts AS
SELECT CASE WHEN block_number % 2 = 0 THEN upper(tx_hash) ELSE tx_hash END AS tx_hash,
       TIMESTAMP '2026-11-10 00:00:00' + to_milliseconds((block_number % 4) * 250) AS received_at
FROM settlements WHERE block_number % 9 = 0
UNION ALL SELECT NULL, TIMESTAMP '2026-11-10 00:00:00'
UNION ALL SELECT '0xnot-a-settlement', TIMESTAMP '2026-11-10 00:00:00'
UNION ALL SELECT printf('0x%064x', 18), TIMESTAMP '2026-11-22 00:00:00';
";

fn arrow_of(db: &Connection, query: &str) -> (arrow::datatypes::SchemaRef, Vec<RecordBatch>) {
    let mut stmt = db.prepare(query).expect("an input query");
    let arrow = stmt.query_arrow([]).expect("runs");
    let schema = arrow.get_schema();
    (schema, arrow.collect())
}

fn count(db: &Connection, query: &str) -> i64 {
    db.query_row(&format!("SELECT count(*) AS n FROM ({query})"), [], |r| r.get("n")).expect("counts")
}

/// The columns both dialects give the intermediate table `s` (DuckDB's also carries hashes, the
/// DataFusion one the transaction hash itself).
const S_COLUMNS: &str = "payer, sid, value, t, exact, q, below_price";

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_two_dialects_leave_the_same_rows_statement_by_statement() {
    let db = Connection::open_in_memory().unwrap();
    db.execute_batch(INPUTS).expect("the inputs");
    let ctx = SessionContext::new();
    let mut inputs: Vec<(&str, String)> = SETTLEMENTS.shipped.iter().map(|s| (s.table, s.query.to_owned())).collect();
    inputs.extend(SETTLEMENTS.lake_inputs.iter().map(|d| (d.name(), format!("SELECT * FROM {}", d.name()))));
    for (table, query) in inputs {
        let (schema, batches) = arrow_of(&db, &query);
        let mem = MemTable::try_new(schema, vec![batches]).expect("a table");
        ctx.register_table(table, Arc::new(mem)).expect("registered");
    }
    let duckdb = statements(&fill(SETTLEMENTS.duckdb));
    let datafusion = statements(&fill(SETTLEMENTS.datafusion));
    let dir = tempfile::tempdir().unwrap();
    let mut compared = 0;
    for (i, df_statement) in datafusion.iter().enumerate() {
        let duck_statement = &duckdb[i];
        let table = df_statement.strip_prefix("CREATE TABLE ").and_then(|r| r.split_whitespace().next()).unwrap();
        assert!(duck_statement.contains(&format!("TABLE {table} AS")), "statement {i}: {table} in both");
        db.execute_batch(duck_statement).unwrap_or_else(|e| panic!("DuckDB, {table}: {e}"));
        ctx.sql(df_statement).await.unwrap_or_else(|e| panic!("DataFusion, {table}: {e}")).collect().await.unwrap();
        let frame = ctx.table(table).await.unwrap();
        let schema = Arc::new(frame.schema().as_arrow().clone());
        let batches = frame.collect().await.unwrap();
        let path = dir.path().join(format!("{table}.parquet"));
        let file = std::fs::File::create(&path).unwrap();
        let mut writer = parquet::arrow::ArrowWriter::try_new(file, schema, None).unwrap();
        batches.iter().for_each(|b| writer.write(b).unwrap());
        writer.close().unwrap();
        let (ours, theirs) = match SETTLEMENTS.outputs.iter().find(|o| o.table == table) {
            Some(output) => (
                format!("SELECT * FROM {table}"),
                format!("SELECT {} FROM read_parquet('{}')", output.columns, path.display()),
            ),
            None => (
                format!("SELECT {S_COLUMNS} FROM {table}"),
                format!("SELECT {S_COLUMNS} FROM read_parquet('{}')", path.display()),
            ),
        };
        let rows = count(&db, &ours);
        assert!(rows > 0, "{table}: the inputs reach it");
        assert_eq!(count(&db, &theirs), rows, "{table}: the same number of rows");
        let only_duckdb = count(&db, &format!("{ours} EXCEPT ALL {theirs}"));
        let only_datafusion = count(&db, &format!("{theirs} EXCEPT ALL {ours}"));
        assert_eq!((only_duckdb, only_datafusion), (0, 0), "{table}: rows in one dialect's table only");
        compared += 1;
    }
    assert_eq!(compared, SETTLEMENTS.outputs.len() + 1, "every output, and the intermediate `s`");
    assert_eq!(duckdb.len(), datafusion.len() + 1, "the DuckDB text ends by dropping `s`");
}
