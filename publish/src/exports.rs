//! The analyst exports, each declared once as a table of typed columns: `scores.parquet` and
//! `scores.csv` (one table: the CSV carries every Parquet column by the same name, after the
//! original service's columns), `history.parquet` and `counterparties.csv`.
//!
//! The same declarations write the files and the data dictionary (`DATA_DICTIONARY.md`, with the
//! lake's datasets), so a column cannot be published without its type, unit and meaning.
//!
//! Types: dates are `DATE`, instants `TIMESTAMP` (UTC), lists are lists (JSON arrays in the CSV),
//! money is integer micro-USDC with the unit in the column's name (the original service's CSV
//! columns keep their names and USDC decimals, for its clients).

use std::borrow::Cow;
use std::io::Write;
use std::sync::Arc;

use agentrep_lake::dictionary::{ColumnDoc, markdown_row};
use agentrep_model::score::Component;
use agentrep_model::{HistoryPoint, METHODOLOGY_VERSION, SellerRecord, usdc};
use arrow::array::{
    Array, ArrayRef, BooleanArray, Date32Array, Float64Array, ListBuilder, StringArray, StringBuilder,
    TimestampMicrosecondArray, UInt8Array, UInt32Array, UInt64Array,
};
use arrow::datatypes::{DataType, Field, Schema, TimeUnit};
use arrow::record_batch::RecordBatch;
use chrono::NaiveDate;
use parquet::arrow::ArrowWriter;
use parquet::basic::Compression;
use parquet::file::properties::WriterProperties;

use crate::PublishError;
use crate::payloads::{self, CategoryIndex, round4};

/// How a column reads its value from a row.
pub enum Cells<R> {
    /// Text.
    Text(fn(&R) -> Option<String>),
    /// 0..=255.
    U8(fn(&R) -> Option<u8>),
    /// Unsigned 32-bit.
    U32(fn(&R) -> Option<u32>),
    /// Unsigned 64-bit.
    U64(fn(&R) -> Option<u64>),
    /// Floating point.
    F64(fn(&R) -> Option<f64>),
    /// True or false.
    Bool(fn(&R) -> Option<bool>),
    /// A calendar day (UTC).
    Date(fn(&R) -> Option<NaiveDate>),
    /// An instant, Unix seconds (written as a UTC timestamp, µs precision).
    Instant(fn(&R) -> Option<i64>),
    /// A list of text values.
    TextList(fn(&R) -> Vec<String>),
    /// A number about one score component (one function for every component's column).
    PerComponent(Component, fn(&R, Component) -> Option<f64>),
}

impl<R> Cells<R> {
    fn data_type(&self) -> DataType {
        match self {
            Cells::Text(_) => DataType::Utf8,
            Cells::U8(_) => DataType::UInt8,
            Cells::U32(_) => DataType::UInt32,
            Cells::U64(_) => DataType::UInt64,
            Cells::F64(_) | Cells::PerComponent(..) => DataType::Float64,
            Cells::Bool(_) => DataType::Boolean,
            Cells::Date(_) => DataType::Date32,
            Cells::Instant(_) => DataType::Timestamp(TimeUnit::Microsecond, None),
            Cells::TextList(_) => DataType::List(Arc::new(Field::new_list_field(DataType::Utf8, true))),
        }
    }

    fn array(&self, rows: &[R]) -> ArrayRef {
        match self {
            Cells::Text(f) => Arc::new(rows.iter().map(f).collect::<StringArray>()),
            Cells::U8(f) => Arc::new(rows.iter().map(f).collect::<UInt8Array>()),
            Cells::U32(f) => Arc::new(rows.iter().map(f).collect::<UInt32Array>()),
            Cells::U64(f) => Arc::new(rows.iter().map(f).collect::<UInt64Array>()),
            Cells::F64(f) => Arc::new(rows.iter().map(f).collect::<Float64Array>()),
            Cells::PerComponent(c, f) => Arc::new(rows.iter().map(|r| f(r, *c)).collect::<Float64Array>()),
            Cells::Bool(f) => Arc::new(rows.iter().map(f).collect::<BooleanArray>()),
            Cells::Date(f) => Arc::new(rows.iter().map(|r| f(r).map(days_since_epoch)).collect::<Date32Array>()),
            Cells::Instant(f) => {
                Arc::new(rows.iter().map(|r| f(r).map(|s| s * 1_000_000)).collect::<TimestampMicrosecondArray>())
            }
            Cells::TextList(f) => {
                let mut builder = ListBuilder::new(StringBuilder::new());
                for r in rows {
                    for v in f(r) {
                        builder.values().append_value(v);
                    }
                    builder.append(true);
                }
                Arc::new(builder.finish())
            }
        }
    }

    /// The value of one cell.
    fn cell(&self, row: &R) -> Option<Cell> {
        match self {
            Cells::Text(f) => f(row).map(Cell::Text),
            Cells::U8(f) => f(row).map(|v| Cell::Unsigned(u64::from(v))),
            Cells::U32(f) => f(row).map(|v| Cell::Unsigned(u64::from(v))),
            Cells::U64(f) => f(row).map(Cell::Unsigned),
            Cells::F64(f) => f(row).map(Cell::Float),
            Cells::PerComponent(c, f) => f(row, *c).map(Cell::Float),
            Cells::Bool(f) => f(row).map(Cell::Bool),
            Cells::Date(f) => f(row).map(Cell::Date),
            Cells::Instant(f) => f(row).map(Cell::Instant),
            Cells::TextList(f) => Some(Cell::TextList(f(row))),
        }
    }
}

/// One cell's value, whether read from a row or from a column of the Parquet file: what its CSV
/// text is made from, so a CSV written from the rows and one converted from the Parquet file are
/// the same bytes.
#[derive(Debug, Clone, PartialEq)]
enum Cell {
    Text(String),
    Unsigned(u64),
    Float(f64),
    Bool(bool),
    Date(NaiveDate),
    /// Unix seconds.
    Instant(i64),
    TextList(Vec<String>),
}

/// The CSV text of one cell: empty for null, numbers as written by `serde_json`, dates
/// `YYYY-MM-DD`, instants RFC 3339 UTC, lists as JSON arrays.
fn csv_text(cell: Option<Cell>) -> String {
    match cell {
        None => String::new(),
        Some(Cell::Text(v)) => v,
        Some(Cell::Unsigned(v)) => v.to_string(),
        Some(Cell::Float(v)) => serde_json::Number::from_f64(v).map(|n| n.to_string()).unwrap_or_default(),
        Some(Cell::Bool(v)) => v.to_string(),
        Some(Cell::Date(d)) => d.format("%Y-%m-%d").to_string(),
        Some(Cell::Instant(s)) => chrono::DateTime::from_timestamp(s, 0)
            .map(|t| t.format("%Y-%m-%dT%H:%M:%SZ").to_string())
            .unwrap_or_default(),
        Some(Cell::TextList(v)) => serde_json::to_string(&v).unwrap_or_default(),
    }
}

/// Row `i` of a column of an export's Parquet file, as the declared type `expected` reads it.
fn column_cell(column: &dyn Array, expected: &DataType, i: usize) -> Option<Cell> {
    use arrow::array::AsArray as _;
    use arrow::datatypes::{Date32Type, Float64Type, TimestampMicrosecondType, UInt8Type, UInt32Type, UInt64Type};
    if column.is_null(i) {
        return None;
    }
    Some(match expected {
        DataType::Utf8 => Cell::Text(column.as_string::<i32>().value(i).to_owned()),
        DataType::UInt8 => Cell::Unsigned(u64::from(column.as_primitive::<UInt8Type>().value(i))),
        DataType::UInt32 => Cell::Unsigned(u64::from(column.as_primitive::<UInt32Type>().value(i))),
        DataType::UInt64 => Cell::Unsigned(column.as_primitive::<UInt64Type>().value(i)),
        DataType::Float64 => Cell::Float(column.as_primitive::<Float64Type>().value(i)),
        DataType::Boolean => Cell::Bool(column.as_boolean().value(i)),
        DataType::Date32 => Cell::Date(NaiveDate::from_epoch_days(column.as_primitive::<Date32Type>().value(i))?),
        DataType::Timestamp(TimeUnit::Microsecond, None) => {
            Cell::Instant(column.as_primitive::<TimestampMicrosecondType>().value(i).div_euclid(1_000_000))
        }
        DataType::List(_) => {
            let values = column.as_list::<i32>().value(i);
            let values = values.as_string::<i32>();
            Cell::TextList((0..values.len()).map(|j| values.value(j).to_owned()).collect())
        }
        _ => return None,
    })
}

impl<R> std::fmt::Debug for Cells<R> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "Cells({})", self.data_type())
    }
}

fn days_since_epoch(d: NaiveDate) -> i32 {
    (d - NaiveDate::from_ymd_opt(1970, 1, 1).expect("epoch")).num_days() as i32
}

/// One column of an export.
#[derive(Debug)]
pub struct ExportColumn<R> {
    /// Column name (the same in the CSV and the Parquet file).
    pub name: Cow<'static, str>,
    cells: Cells<R>,
    nullable: bool,
    unit: Option<&'static str>,
    meaning: Cow<'static, str>,
    csv_only: bool,
}

impl<R> ExportColumn<R> {
    fn new(name: impl Into<Cow<'static, str>>, cells: Cells<R>, meaning: impl Into<Cow<'static, str>>) -> Self {
        Self { name: name.into(), cells, nullable: false, unit: None, meaning: meaning.into(), csv_only: false }
    }
    fn nullable(mut self) -> Self {
        self.nullable = true;
        self
    }
    fn unit(mut self, unit: &'static str) -> Self {
        self.unit = Some(unit);
        self
    }
    /// One of the original service's CSV columns: in the CSV only (the Parquet file has the same
    /// fact typed, under our name).
    fn csv_only(mut self) -> Self {
        self.csv_only = true;
        self
    }

    /// The column as the data dictionary lists it.
    pub fn doc(&self) -> ColumnDoc {
        let data_type = self.cells.data_type();
        ColumnDoc {
            name: self.name.to_string(),
            unit: self.unit.or(ColumnDoc::implied_unit(&data_type)).map(str::to_owned),
            nullable: self.nullable,
            meaning: self.meaning.to_string(),
            data_type,
        }
    }
}

/// Rows of an export encoded into one Arrow batch at a time (a multiple of the Parquet writer's
/// 1,024-row mini-batches, so the pages are those of a single batch).
pub const EXPORT_BATCH_ROWS: usize = 64 * 1024;

/// An export: its file names and columns.
#[derive(Debug)]
pub struct Export<R> {
    /// The Parquet file, if the export has one.
    pub parquet: Option<&'static str>,
    /// The CSV file, if the export has one.
    pub csv: Option<&'static str>,
    /// What one row is.
    pub row: &'static str,
    /// The columns, in CSV order (the Parquet file leaves out the CSV-only ones).
    pub columns: Vec<ExportColumn<R>>,
}

impl<R> Export<R> {
    fn parquet_columns(&self) -> impl Iterator<Item = &ExportColumn<R>> {
        self.columns.iter().filter(|c| !c.csv_only)
    }

    /// Writes the Parquet file (snappy) into `w`, its rows encoded [`EXPORT_BATCH_ROWS`] at a time.
    pub fn write_parquet<W: Write + Send>(&self, w: W, rows: &[R]) -> Result<(), PublishError> {
        let fields: Vec<Field> =
            self.parquet_columns().map(|c| Field::new(c.name.as_ref(), c.cells.data_type(), c.nullable)).collect();
        let schema = Arc::new(Schema::new(fields));
        let props = WriterProperties::builder().set_compression(Compression::SNAPPY).build();
        let mut writer = ArrowWriter::try_new(w, Arc::clone(&schema), Some(props)).map_err(PublishError::Parquet)?;
        for slice in rows.chunks(EXPORT_BATCH_ROWS) {
            let arrays: Vec<ArrayRef> = self.parquet_columns().map(|c| c.cells.array(slice)).collect();
            let batch =
                RecordBatch::try_new(Arc::clone(&schema), arrays).map_err(|e| PublishError::Export(e.to_string()))?;
            writer.write(&batch).map_err(PublishError::Parquet)?;
        }
        writer.close().map_err(PublishError::Parquet)?;
        Ok(())
    }

    /// Writes the CSV file into `w`: a header of every column's name, then one line per row.
    pub fn write_csv<W: Write>(&self, w: W, rows: &[R]) -> Result<(), PublishError> {
        let csv_err = |e: csv::Error| PublishError::Csv(e.to_string());
        let mut w = csv::Writer::from_writer(w);
        w.write_record(self.columns.iter().map(|c| c.name.as_ref())).map_err(csv_err)?;
        for row in rows {
            w.write_record(self.columns.iter().map(|c| csv_text(c.cells.cell(row)))).map_err(csv_err)?;
        }
        w.flush().map_err(|e| PublishError::Csv(e.to_string()))
    }

    /// Writes the CSV file from the export's Parquet file (as [`Self::write_parquet`] wrote it):
    /// the bytes [`Self::write_csv`] writes from the rows the file was written from.
    ///
    /// # Errors
    /// When the export has columns only its CSV holds, or the file lacks a column of the declared
    /// name and type, or it does not decode.
    pub fn write_csv_from_parquet<W: Write>(&self, parquet: bytes::Bytes, w: W) -> Result<(), PublishError> {
        use parquet::arrow::arrow_reader::ParquetRecordBatchReaderBuilder;
        if let Some(c) = self.columns.iter().find(|c| c.csv_only) {
            return Err(PublishError::Export(format!(
                "{} is only in the CSV: it cannot come from the Parquet file",
                c.name
            )));
        }
        let csv_err = |e: csv::Error| PublishError::Csv(e.to_string());
        let mut w = csv::Writer::from_writer(w);
        w.write_record(self.columns.iter().map(|c| c.name.as_ref())).map_err(csv_err)?;
        let batches = ParquetRecordBatchReaderBuilder::try_new(parquet)
            .and_then(|b| b.with_batch_size(EXPORT_BATCH_ROWS).build())
            .map_err(PublishError::Parquet)?;
        let types: Vec<DataType> = self.columns.iter().map(|c| c.cells.data_type()).collect();
        for batch in batches {
            let batch = batch.map_err(|e| PublishError::Export(e.to_string()))?;
            let columns = self
                .columns
                .iter()
                .zip(&types)
                .map(|(c, expected)| match batch.column_by_name(&c.name) {
                    Some(column) if column.data_type() == expected => Ok(column.as_ref()),
                    _ => Err(PublishError::Export(format!("the Parquet file has no {expected} column {}", c.name))),
                })
                .collect::<Result<Vec<&dyn Array>, _>>()?;
            for i in 0..batch.num_rows() {
                let cells =
                    columns.iter().zip(&types).map(|(column, expected)| csv_text(column_cell(*column, expected, i)));
                w.write_record(cells).map_err(csv_err)?;
            }
        }
        w.flush().map_err(|e| PublishError::Csv(e.to_string()))
    }

    /// The export's section of the data dictionary.
    pub fn markdown(&self) -> String {
        let files: Vec<String> = [self.parquet, self.csv].into_iter().flatten().map(|f| format!("`{f}`")).collect();
        let mut out = format!("### {}\n\nOne row per {}.", files.join(" and "), self.row);
        if self.parquet.is_some() && self.csv.is_some() {
            out.push_str(
                " The CSV has every column below, in this order; the Parquet file has those marked `both`. \
                 In the CSV a list is a JSON array, a date `YYYY-MM-DD`, an instant RFC 3339 UTC, a null an empty field.",
            );
        }
        out.push_str("\n\n| column | type | nullable | unit | in | meaning |\n|---|---|---|---|---|---|\n");
        let both = self.parquet.is_some() && self.csv.is_some();
        for c in &self.columns {
            let place = match (c.csv_only, both, self.parquet.is_some()) {
                (true, _, _) | (false, false, false) => "CSV",
                (false, true, _) => "both",
                (false, false, true) => "Parquet",
            };
            out.push_str(&markdown_row(&c.doc(), Some(place)));
        }
        out.push('\n');
        out
    }
}

type ScoreColumn<'a> = ExportColumn<ScoreRow<'a>>;
type HistoryColumn<'a> = ExportColumn<HistoryRow<'a>>;
type CounterpartyColumn = ExportColumn<CounterpartyRow>;

/// One seller as `scores.csv` and `scores.parquet` see it.
#[derive(Debug)]
pub struct ScoreRow<'a> {
    /// Leaderboard rank, `None` when not ranked.
    pub rank: Option<u32>,
    /// The seller.
    pub seller: &'a SellerRecord,
    /// The snapshot day.
    pub date: NaiveDate,
    /// Base path of the payloads' links.
    pub base_path: &'a str,
    /// Category ranks of the snapshot.
    pub categories: &'a CategoryIndex,
}

fn component<'r>(r: &'r ScoreRow<'_>, c: Component) -> Option<&'r agentrep_model::score::ComponentScore> {
    r.seller.assessment.breakdown.components.iter().find(|s| s.component == c)
}
fn component_points(r: &ScoreRow<'_>, c: Component) -> Option<f64> {
    component(r, c).and_then(|s| s.points).map(round4)
}
fn component_max(r: &ScoreRow<'_>, c: Component) -> Option<f64> {
    Some(component(r, c).map_or(c.max(), |s| s.max))
}
fn component_confidence(r: &ScoreRow<'_>, c: Component) -> Option<f64> {
    Some(component(r, c).map_or(0.0, |s| round4(s.confidence)))
}

/// Three columns per score component, in breakdown order ([`Component::ALL`]): its points, its
/// maximum and its confidence, named by its wire name.
fn component_columns<'a>() -> impl Iterator<Item = ExportColumn<ScoreRow<'a>>> {
    Component::ALL.into_iter().flat_map(|c| {
        let name = c.as_str();
        [
            ExportColumn::new(
                format!("{name}_points"),
                Cells::PerComponent(c, component_points),
                format!("Points of the {name} component (SCORING.md); null when it had no evidence"),
            )
            .nullable()
            .unit("points"),
            ExportColumn::new(
                format!("{name}_max"),
                Cells::PerComponent(c, component_max),
                format!("Maximum points of the {name} component for the evidence present"),
            )
            .unit("points"),
            ExportColumn::new(
                format!("{name}_confidence"),
                Cells::PerComponent(c, component_confidence),
                format!("How much evidence stands behind the {name} component"),
            )
            .unit("0..=1"),
        ]
    })
}

/// `scores.csv` and `scores.parquet`: every seller of the snapshot, ranked ones first.
pub fn scores<'a>() -> Export<ScoreRow<'a>> {
    let mut columns: Vec<ExportColumn<ScoreRow<'a>>> = vec![
        ScoreColumn::new("rank", Cells::U32(|r| r.rank), "Leaderboard rank (1 is best); null when the seller is not ranked (not measured, or a decision a buyer should not pay)").nullable(),
        ScoreColumn::new("address", Cells::Text(|r| Some(r.seller.address.clone())), "Seller wallet (payTo), lowercase 0x-hex"),
        ScoreColumn::new("score", Cells::U8(|r| r.seller.assessment.score), "Score 0..=100; null when a required source failed (score_basis `degraded`)").nullable().unit("0..=100"),
        ScoreColumn::new("jobCount", Cells::U64(|r| Some(r.seller.features.demand.settlements)), "The original service's column: qualifying settlements up to the day (= `settlements`)").csv_only(),
        ScoreColumn::new("successRate", Cells::F64(|r| r.seller.assessment.success_rate), "The original service's column: shown success rate (= `success_rate`)").csv_only().nullable().unit("0..=1"),
        ScoreColumn::new("usdcVolume", Cells::F64(|r| Some(usdc(r.seller.features.demand.volume))), "The original service's column: qualifying volume in USDC, decimal (= `volume_micro_usdc` / 1e6)").csv_only().unit("USDC"),
        ScoreColumn::new("daysSinceLastJob", Cells::U32(|r| r.seller.features.demand.days_since_last_trusted), "The original service's column: days since the last trusted settlement (= `days_since_last_trusted`)").csv_only().nullable().unit("days"),
        ScoreColumn::new("description", Cells::Text(|r| r.seller.listing.description.clone()), "Listing description as the marketplace gave it").nullable(),
        ScoreColumn::new("serviceUrl", Cells::Text(|r| Some(r.seller.listing.resource.clone())), "The original service's column: the paid endpoint (= `resource`)").csv_only(),
        ScoreColumn::new("priceUsdc", Cells::F64(|r| r.seller.listing.price.map(usdc)), "The original service's column: advertised price in USDC, decimal (= `price_micro_usdc` / 1e6)").csv_only().nullable().unit("USDC"),
        ScoreColumn::new("network", Cells::Text(|r| Some(r.seller.listing.network.clone())), "Network of the listing (`base`, `eip155:8453`, …)"),
        ScoreColumn::new("snapshotDate", Cells::Text(|r| Some(r.date.format("%Y-%m-%d").to_string())), "The original service's column: the snapshot day as text (= `snapshot_date`)").csv_only(),
        ScoreColumn::new("profileUrl", Cells::Text(|r| Some(format!("{}/score/{}", r.base_path, r.seller.address))), "The original service's column: the seller's score route").csv_only(),
        ScoreColumn::new("snapshot_date", Cells::Date(|r| Some(r.date)), "The day the snapshot scores (evidence up to its end)"),
        ScoreColumn::new("methodology", Cells::Text(|_| Some(METHODOLOGY_VERSION.to_owned())), "Methodology version that computed the score (SCORING.md)"),
        ScoreColumn::new("score_basis", Cells::Text(|r| Some(r.seller.assessment.basis.as_str().to_owned())), "`measured`, or `degraded` when a required source was stale or failed"),
        ScoreColumn::new("decision", Cells::Text(|r| Some(r.seller.assessment.decision.as_str().to_owned())), "Preflight decision: BLOCK, CAUTION, PROCEED or PROCEED_LOW_VALUE"),
        ScoreColumn::new("verdict", Cells::Text(|r| Some(r.seller.assessment.verdict.as_str().to_owned())), "Score verdict: SAFE, CAUTION or BLOCK"),
        ScoreColumn::new("tier", Cells::Text(|r| Some(r.seller.assessment.tier.as_str().to_owned())), "Attestation tier (seed §2.7) from external verifiers: indexed, attested, silver-verified or gold-verified"),
        ScoreColumn::new("evidence_tier", Cells::Text(|r| Some(r.seller.assessment.evidence_tier().as_str().to_owned())), "`proven` when something costly to fake proves the seller (`proven_by`), else `unproven`"),
        ScoreColumn::new("proven_by", Cells::TextList(|r| r.seller.assessment.proven_by.iter().map(agentrep_model::Proof::describe).collect()), "What proves the seller, in words; empty when unproven"),
        ScoreColumn::new("shield", Cells::Text(|r| Some(r.seller.assessment.color.as_str().to_owned())), "Trust-shield colour: green, yellow or red (the weightiest raised flag's severity)"),
        ScoreColumn::new("flags", Cells::TextList(|r| r.seller.assessment.flags.iter().map(|h| h.key.as_str().to_owned()).collect()), "Raised flag keys, in the flag table's order (SCORING.md)"),
        ScoreColumn::new("reason_short", Cells::Text(|r| Some(r.seller.assessment.reason_short.clone())), "`<severity>:<key>` of the weightiest raised flag"),
        ScoreColumn::new("confidence", Cells::F64(|r| Some(round4(r.seller.assessment.confidence))), "How much evidence stands behind the score").unit("0..=1"),
        ScoreColumn::new("missing_signals", Cells::TextList(|r| r.seller.assessment.missing_signals.clone()), "Signals with no evidence, and stale sources"),
        ScoreColumn::new("penalty_points", Cells::F64(|r| Some(r.seller.assessment.flags.iter().map(|h| f64::from(h.def().penalty)).sum())), "Points the raised flags took off").unit("points"),
        ScoreColumn::new("available_max_points", Cells::F64(|r| Some(r.seller.assessment.breakdown.components.iter().filter(|c| c.points.is_some()).map(|c| c.max).sum())), "Sum of the maxima of the components with evidence (the score rescales their points to 100)").unit("points"),
    ];
    columns.extend(component_columns());
    columns.extend([
        ScoreColumn::new("settlements", Cells::U64(|r| Some(r.seller.features.demand.settlements)), "Qualifying settlements up to the day (facilitator-settled USDC on Base in one of x402's settlement forms, at an advertised price or above)"),
        ScoreColumn::new("settlements_30d", Cells::U64(|r| Some(r.seller.features.demand.settlements_30d)), "Qualifying settlements in the 30 days up to the day"),
        ScoreColumn::new("volume_micro_usdc", Cells::U64(|r| Some(r.seller.features.demand.volume)), "Qualifying volume up to the day").unit("micro-USDC"),
        ScoreColumn::new("distinct_payers", Cells::U32(|r| Some(r.seller.features.demand.payers)), "Distinct qualifying payers"),
        ScoreColumn::new("paying_entities", Cells::U32(|r| Some(r.seller.features.demand.entities)), "Distinct paying entities (payers grouped by first funder)"),
        ScoreColumn::new("trusted_entities", Cells::U32(|r| Some(r.seller.features.demand.trusted_entities)), "Paying entities whose trust reaches the trusted threshold"),
        ScoreColumn::new("weighted_entities", Cells::F64(|r| Some(round4(r.seller.features.demand.weighted_entities))), "Trust-weighted count of paying entities").unit("entities"),
        ScoreColumn::new("repeat_ratio", Cells::F64(|r| Some(round4(r.seller.features.demand.repeat_ratio))), "Trusted entities that paid on two or more days, over trusted entities").unit("0..=1"),
        ScoreColumn::new("top_entity_share", Cells::F64(|r| Some(round4(r.seller.features.demand.top_entity_share))), "The largest trusted entity's share of trusted qualifying settlements").unit("0..=1"),
        ScoreColumn::new("days_since_last_trusted", Cells::U32(|r| r.seller.features.demand.days_since_last_trusted), "Days since the last qualifying settlement of a trusted entity; null when none").nullable().unit("days"),
        ScoreColumn::new("active_days_30d", Cells::U32(|r| Some(r.seller.features.demand.active_days_30d)), "Days with a trusted qualifying settlement, in the last 30").unit("days"),
        ScoreColumn::new("unattributed_transfers", Cells::U64(|r| Some(r.seller.features.demand.unattributed)), "Transfers to the seller that do not qualify (not facilitator-settled, not in an x402 settlement form, another network or asset); never demand"),
        ScoreColumn::new("below_price_settlements", Cells::U64(|r| Some(r.seller.features.demand.below_price)), "Facilitator settlements below every advertised price; never demand"),
        ScoreColumn::new("self_payments", Cells::U64(|r| Some(r.seller.features.demand.self_payments)), "Qualifying settlements the seller paid itself"),
        ScoreColumn::new("success_rate", Cells::F64(|r| r.seller.assessment.success_rate), "Shown success rate, when there is enough evidence").nullable().unit("0..=1"),
        ScoreColumn::new("probe_samples", Cells::U32(|r| Some(r.seller.features.sla.samples)), "Health probes of the current endpoints in the last 7 days"),
        ScoreColumn::new("probe_ok_rate", Cells::F64(|r| r.seller.features.sla.ok_rate()), "Share of those probes that answered as listed; null without probes").nullable().unit("0..=1"),
        ScoreColumn::new("latency_p50_ms", Cells::U32(|r| r.seller.features.sla.latency_p50_ms), "Median latency of the successful probes").nullable().unit("ms"),
        ScoreColumn::new("volume_7d_micro_usdc", Cells::U64(|r| Some(r.seller.profile.earned_7d)), "Qualifying volume in the 7 days up to the day").unit("micro-USDC"),
        ScoreColumn::new("settlements_7d", Cells::U64(|r| Some(r.seller.profile.settlements_7d)), "Qualifying settlements in the 7 days up to the day"),
        ScoreColumn::new("payers_7d", Cells::U32(|r| Some(r.seller.profile.buyers_7d)), "Distinct qualifying payers in the 7 days up to the day"),
        ScoreColumn::new("last_settlement_at", Cells::Instant(|r| r.seller.profile.last_settlement_at), "The last qualifying settlement; null when none").nullable(),
        ScoreColumn::new("resource", Cells::Text(|r| Some(r.seller.listing.resource.clone())), "The paid endpoint of the seller's current listing"),
        ScoreColumn::new("price_micro_usdc", Cells::U64(|r| r.seller.listing.price), "Advertised price of that endpoint; null when not in USDC").nullable().unit("micro-USDC"),
        ScoreColumn::new("category", Cells::Text(|r| Some(payloads::primary_category(r.seller).to_owned())), "Primary category (one of 30, from the listing's tags and description)"),
        ScoreColumn::new("category_rank", Cells::U32(|r| r.categories.rank_of(&r.seller.address)), "Rank within the primary category; null when not ranked").nullable(),
        ScoreColumn::new("tags", Cells::TextList(|r| r.seller.listing.tags.clone()), "The listing's tags"),
        ScoreColumn::new("erc8004_registered", Cells::Bool(|r| Some(r.seller.features.erc8004_registered)), "An ERC-8004 registration names the seller as its agent wallet"),
        ScoreColumn::new("allowlist_label", Cells::Text(|r| r.seller.assessment.allowlist_label.clone()), "Label of the allowlist entry, when allowlisted").nullable(),
    ]);
    Export {
        parquet: Some("scores.parquet"),
        csv: Some("scores.csv"),
        row: "seller of the snapshot: ranked sellers first, in rank order, then the unranked ones",
        columns,
    }
}

/// One day of one seller's history.
#[derive(Debug)]
pub struct HistoryRow<'a> {
    /// The seller.
    pub address: &'a str,
    /// The day.
    pub point: &'a HistoryPoint,
}

/// `history.parquet`: every seller's score on each retained day (up to 90) up to the snapshot's.
pub fn history<'a>() -> Export<HistoryRow<'a>> {
    Export {
        parquet: Some("history.parquet"),
        csv: None,
        row: "(seller, day) of the retained history, oldest day first per seller",
        columns: vec![
            HistoryColumn::new(
                "address",
                Cells::Text(|r| Some(r.address.to_owned())),
                "Seller wallet, lowercase 0x-hex",
            ),
            HistoryColumn::new(
                "date",
                Cells::Date(|r| NaiveDate::parse_from_str(&r.point.date, "%Y-%m-%d").ok()),
                "The day scored",
            ),
            HistoryColumn::new("score", Cells::U8(|r| r.point.score), "Score that day; null when degraded")
                .nullable()
                .unit("0..=100"),
            HistoryColumn::new(
                "job_count",
                Cells::U64(|r| Some(r.point.job_count)),
                "Qualifying settlements up to that day",
            ),
            HistoryColumn::new(
                "methodology",
                Cells::Text(|r| Some(r.point.methodology.clone())),
                "Methodology version that computed that day's score",
            ),
        ],
    }
}

/// The UTC day of a Unix time.
fn day_of(secs: i64) -> Option<NaiveDate> {
    chrono::DateTime::from_timestamp(secs, 0).map(|t| t.date_naive())
}

/// One known non-seller wallet.
pub type CounterpartyRow = agentrep_model::records::Counterparty;

/// The names of the counterparties' columns, which the server reads back by name
/// ([`crate::counterparties::Counterparties::from_parquet`]).
pub mod counterparty_column {
    /// The wallet.
    pub const ADDRESS: &str = "address";
    /// Settlements it paid.
    pub const PAYMENTS: &str = "payments";
    /// Distinct sellers it paid.
    pub const SELLERS_PAID: &str = "sellersPaid";
    /// Addresses it funded first.
    pub const FUNDED: &str = "funded";
    /// On the denylist.
    pub const DENYLISTED: &str = "denylisted";
    /// Qualifying volume it paid.
    pub const SPENT: &str = "spentMicroUsdc";
    /// Qualifying volume it paid in the last 7 days.
    pub const SPENT_7D: &str = "spent7dMicroUsdc";
    /// Qualifying settlements it paid in the last 7 days.
    pub const PAYMENTS_7D: &str = "payments7d";
    /// Distinct sellers it paid in the last 7 days.
    pub const SELLERS_PAID_7D: &str = "sellersPaid7d";
    /// Day of its first qualifying payment.
    pub const FIRST_PAID_DAY: &str = "firstPaidDay";
    /// Day of its last qualifying payment.
    pub const LAST_PAID_DAY: &str = "lastPaidDay";
}

/// `counterparties.parquet`: the wallets that paid, funded or are listed and are not sellers, in
/// address order (read back by the server for an unknown address's preliminary signals, by these
/// names). `export-static` writes `counterparties.csv` from it, the same columns as text.
pub fn counterparties() -> Export<CounterpartyRow> {
    use counterparty_column::*;
    Export {
        parquet: Some(crate::layout::COUNTERPARTIES),
        csv: Some(crate::layout::COUNTERPARTIES_CSV),
        row: "known wallet that is not a seller (a payer, a funder or a listed address), in address order",
        columns: vec![
            CounterpartyColumn::new(ADDRESS, Cells::Text(|c| Some(c.address.clone())), "Wallet, lowercase 0x-hex"),
            CounterpartyColumn::new(PAYMENTS, Cells::U64(|c| Some(c.payments)), "Settlements it paid"),
            CounterpartyColumn::new(SELLERS_PAID, Cells::U32(|c| Some(c.sellers_paid)), "Distinct sellers it paid"),
            CounterpartyColumn::new(FUNDED, Cells::U32(|c| Some(c.funded)), "Addresses it funded first"),
            CounterpartyColumn::new(DENYLISTED, Cells::Bool(|c| Some(c.denylisted)), "On the denylist"),
            CounterpartyColumn::new(SPENT, Cells::U64(|c| Some(c.spent)), "Qualifying volume it paid")
                .unit("micro-USDC"),
            CounterpartyColumn::new(
                SPENT_7D,
                Cells::U64(|c| Some(c.spent_7d)),
                "Qualifying volume it paid in the 7 days up to the day",
            )
            .unit("micro-USDC"),
            CounterpartyColumn::new(
                PAYMENTS_7D,
                Cells::U64(|c| Some(c.payments_7d)),
                "Qualifying settlements it paid in those 7 days",
            ),
            CounterpartyColumn::new(
                SELLERS_PAID_7D,
                Cells::U32(|c| Some(c.sellers_paid_7d)),
                "Distinct sellers it paid in those 7 days",
            ),
            CounterpartyColumn::new(
                FIRST_PAID_DAY,
                Cells::Date(|c| c.first_paid_at.and_then(day_of)),
                "Day of its first qualifying payment in a relationship within the horizon (empty: it paid nothing)",
            )
            .nullable(),
            CounterpartyColumn::new(
                LAST_PAID_DAY,
                Cells::Date(|c| c.last_paid_at.and_then(day_of)),
                "Day of its last qualifying payment (empty: it paid nothing)",
            )
            .nullable(),
        ],
    }
}

/// One seller's settlement mix.
pub type SettlementMixRow = agentrep_model::records::SettlementMix;
type MixColumn = ExportColumn<SettlementMixRow>;

/// The count and amount columns of one escrow outcome.
macro_rules! escrow_columns {
    ($($field:ident => $name:literal, $what:literal;)*) => {
        vec![$(
            MixColumn::new(concat!("escrow_", $name), Cells::U64(|m| Some(m.escrow.$field.count)),
                concat!("Escrow events in the 30 days: ", $what)),
            MixColumn::new(concat!("escrow_", $name, "_micro_usdc"), Cells::U64(|m| Some(m.escrow.$field.amount)),
                concat!("Amount of those events: ", $what)).unit("micro-USDC"),
        )*]
    };
}

/// `settlement-forms.parquet`: how each seller was paid in the 30 days up to the snapshot's day,
/// whether or not it counted as demand (x402.md § 8): transfers by settlement form, the
/// auth-capture escrow's outcomes for its payments, and the ERC-8021 builder codes on the settling
/// calls, which any client can write (hints of which stacks pay it, never evidence). No score,
/// flag or decision reads it (SCORING.md § 1).
pub fn settlement_forms() -> Export<SettlementMixRow> {
    let mut columns = vec![
        MixColumn::new("address", Cells::Text(|m| Some(m.address.clone())), "Seller wallet (payTo), lowercase 0x-hex"),
        MixColumn::new(
            "eip3009",
            Cells::U64(|m| Some(m.forms.eip3009)),
            "Transfers USDC's EIP-3009 authorization made",
        ),
        MixColumn::new(
            "permit2",
            Cells::U64(|m| Some(m.forms.permit2)),
            "Transfers the x402 exact Permit2 proxy settled",
        ),
        MixColumn::new("upto", Cells::U64(|m| Some(m.forms.upto)), "Transfers the x402 upto Permit2 proxy settled"),
        MixColumn::new(
            "auth_capture",
            Cells::U64(|m| Some(m.forms.auth_capture)),
            "Payouts of the auth-capture escrow (captures and charges), paid by the escrowed payment's payer",
        ),
        MixColumn::new(
            "batch_claim",
            Cells::U64(|m| Some(m.forms.batch_claim)),
            "Batch-settlement claims, one per payment channel a claim raised (not one per call)",
        ),
        MixColumn::new(
            "transfer",
            Cells::U64(|m| Some(m.forms.transfer)),
            "Plain transfers no signed authorization made",
        ),
    ];
    columns.extend(escrow_columns! {
        authorized => "authorized", "payer funds escrowed for the seller";
        charged => "charged", "authorized and captured in one call";
        captured => "captured", "the seller paid from escrowed funds";
        voided => "voided", "uncaptured funds the operator gave back";
        reclaimed => "reclaimed", "uncaptured funds the payer took back after expiry";
        refunded => "refunded", "captured funds the operator returned to the payer";
    });
    columns.extend([
        MixColumn::new(
            "builder_apps",
            Cells::TextList(|m| m.apps.clone()),
            "ERC-8021 app codes on the settling calls, most frequent first (at most 10): hints, any client writes any code",
        ),
        MixColumn::new(
            "builder_wallets",
            Cells::TextList(|m| m.wallets.clone()),
            "ERC-8021 wallet (facilitator) codes, the same way",
        ),
        MixColumn::new(
            "builder_services",
            Cells::TextList(|m| m.services.clone()),
            "ERC-8021 service codes (the client stacks that paid), the same way",
        ),
    ]);
    Export {
        parquet: Some(crate::layout::SETTLEMENT_FORMS_PARQUET),
        csv: None,
        row: "seller paid in the 30 days up to the snapshot's day, in address order",
        columns,
    }
}

/// `DATA_DICTIONARY.md`'s generated part: every export's columns, then every lake dataset's.
pub fn dictionary_markdown() -> String {
    let mut out = String::from("## Exports (in every snapshot folder)\n\n");
    out.push_str(&scores().markdown());
    out.push_str(&history().markdown());
    out.push_str(&counterparties().markdown());
    out.push_str(&settlement_forms().markdown());
    out.push_str("## Lake datasets (`<lake>/<dataset>/date=YYYY-MM-DD/part-0.parquet`)\n\n");
    for dataset in agentrep_lake::Dataset::ALL {
        let derived = if dataset.is_derived() { " (derived: written by the rebuild)" } else { "" };
        out.push_str(&format!("### `{}`{derived}\n\n", dataset.name()));
        out.push_str(&agentrep_lake::dictionary::markdown_table(&dataset.columns()));
        out.push('\n');
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn component_columns_follow_the_model_order() {
        let export = scores();
        let names: Vec<&str> = export
            .columns
            .iter()
            .map(|c| c.name.as_ref())
            .filter(|n| n.ends_with("_points") && !["penalty_points", "available_max_points"].contains(n))
            .collect();
        let expected: Vec<String> = Component::ALL.iter().map(|c| format!("{}_points", c.as_str())).collect();
        assert_eq!(names, expected);
    }

    #[test]
    fn column_names_are_unique_and_the_original_columns_come_first() {
        let export = scores();
        let names: Vec<&str> = export.columns.iter().map(|c| c.name.as_ref()).collect();
        let unique: std::collections::HashSet<&&str> = names.iter().collect();
        assert_eq!(unique.len(), names.len(), "{names:?}");
        assert_eq!(
            names[..13],
            [
                "rank",
                "address",
                "score",
                "jobCount",
                "successRate",
                "usdcVolume",
                "daysSinceLastJob",
                "description",
                "serviceUrl",
                "priceUsdc",
                "network",
                "snapshotDate",
                "profileUrl"
            ]
        );
    }

    #[test]
    fn money_columns_say_their_unit() {
        for c in scores().columns.iter().filter(|c| !c.csv_only) {
            let doc = c.doc();
            if doc.unit.as_deref() == Some("micro-USDC") {
                assert!(c.name.contains("micro_usdc"), "{} is money without its unit in the name", c.name);
                assert_eq!(doc.data_type, DataType::UInt64, "{}", c.name);
            }
        }
    }
}
