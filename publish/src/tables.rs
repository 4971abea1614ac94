//! The snapshot's record tables: every scored seller, deployer and token as the rebuild handed it
//! to the publisher, in three keyed Parquet files, so a per-wallet document can be rendered from
//! them with the payload code that renders the static tree.
//!
//! | File                | Key       | What a row holds                                           |
//! |---------------------|-----------|------------------------------------------------------------|
//! | `sellers.parquet`   | `seller`  | assessment, profile and history (listing, features, live basis and sources are `live-basis.parquet`'s) |
//! | `deployers.parquet` | `deployer`| the whole [`DeployerRecord`]                               |
//! | `tokens.parquet`    | `token`   | the whole [`BuyerTrust`]                                   |
//!
//! A row is one JSON text (the record's serde form, so it reads back equal) beside its key;
//! zstd over row groups of [`ROW_GROUP_RECORDS`] takes out the repeated field names. A
//! [`SellerRecord`] is the live basis row and the sellers row together ([`SnapshotRecords`]).

use std::marker::PhantomData;
use std::path::Path;
use std::sync::Arc;

use agentrep_model::buyers::BuyerTrust;
use agentrep_model::{Assessment, DeployerRecord, HistoryPoint, SellerProfile, SellerRecord};
use arrow::array::{ArrayRef, StringArray};
use arrow::record_batch::RecordBatch;
use bytes::Bytes;
use serde::{Deserialize, Serialize};

use crate::PublishError;
use crate::keyed::{self, KeyedFile, RowCodec};
use crate::layout::{DEPLOYERS_TABLE, LIVE_BASIS, SELLERS_TABLE, TOKENS_TABLE};
use crate::live::{LiveBases, LiveSellerV1};

/// Rows per row group of a record table: what rendering one wallet's document decodes.
pub const ROW_GROUP_RECORDS: usize = 1024;

/// One record table: its file, key column and row types.
pub trait RecordTable {
    /// A row as the writer reads it.
    type Row<'a>: Serialize + Sync;
    /// A row as the reader returns it.
    type Decoded: serde::de::DeserializeOwned;
    /// File name in a snapshot.
    const FILE: &'static str;
    /// Name of the key column.
    const KEY: &'static str;
    /// The key of a row.
    fn key<'r>(row: &'r Self::Row<'_>) -> &'r str;
}

/// The codec of a record table: the key column and the row's JSON text.
#[derive(Debug)]
pub struct JsonRows<T>(PhantomData<T>);

impl<T: RecordTable> RowCodec for JsonRows<T> {
    type Row<'a> = T::Row<'a>;
    type Decoded = T::Decoded;
    const FILE: &'static str = T::FILE;
    const ROW_GROUP: usize = ROW_GROUP_RECORDS;

    fn key<'r>(row: &'r T::Row<'_>) -> &'r str {
        T::key(row)
    }

    fn batch(rows: &[T::Row<'_>]) -> Result<RecordBatch, PublishError> {
        let records = rows.iter().map(serde_json::to_string).collect::<Result<Vec<_>, _>>();
        let columns: Vec<(&str, ArrayRef, bool)> = vec![
            (T::KEY, Arc::new(StringArray::from_iter_values(rows.iter().map(T::key))), false),
            ("record", Arc::new(StringArray::from_iter_values(records.map_err(PublishError::Encode)?)), false),
        ];
        RecordBatch::try_from_iter_with_nullable(columns).map_err(|e| keyed::table_error::<Self>(e.to_string()))
    }

    fn decode(batch: &RecordBatch, row: usize) -> Result<T::Decoded, PublishError> {
        let text = keyed::column::<Self, StringArray>(batch, "record")?.value(row);
        serde_json::from_str(text).map_err(|e| keyed::table_error::<Self>(format!("row {row}: {e}")))
    }
}

/// A record table as written into a snapshot.
pub type Table<T> = KeyedFile<JsonRows<T>>;

/// Writes `rows` as the table `T` into `out`.
///
/// # Errors
/// When a row cannot be encoded or `out` fails.
pub fn write_to<T: RecordTable, W: std::io::Write + Send>(out: W, rows: &[T::Row<'_>]) -> Result<(), PublishError> {
    keyed::write_to::<JsonRows<T>, W>(out, rows)
}

/// What `sellers.parquet` holds of a seller (borrowed from its record to be written).
#[derive(Debug, Clone, Copy, Serialize)]
pub struct SellerRow<'a> {
    /// Lowercase address (the key, not in the JSON text).
    #[serde(skip)]
    pub address: &'a str,
    /// [`SellerRecord::assessment`].
    pub assessment: &'a Assessment,
    /// [`SellerRecord::profile`].
    pub profile: &'a SellerProfile,
    /// [`SellerRecord::history`].
    pub history: &'a [HistoryPoint],
}

impl<'a> SellerRow<'a> {
    /// The row of a rebuilt seller.
    pub fn of(s: &'a SellerRecord) -> Self {
        Self { address: &s.address, assessment: &s.assessment, profile: &s.profile, history: &s.history }
    }
}

/// A row of `sellers.parquet`, decoded.
#[derive(Debug, Clone, PartialEq, Deserialize)]
pub struct SellerRowV1 {
    /// [`SellerRecord::assessment`].
    pub assessment: Assessment,
    /// [`SellerRecord::profile`].
    pub profile: SellerProfile,
    /// [`SellerRecord::history`].
    pub history: Vec<HistoryPoint>,
}

/// `sellers.parquet`.
#[derive(Debug)]
pub struct Sellers;

impl RecordTable for Sellers {
    type Row<'a> = SellerRow<'a>;
    type Decoded = SellerRowV1;
    const FILE: &'static str = SELLERS_TABLE;
    const KEY: &'static str = "seller";

    fn key<'r>(row: &'r SellerRow<'_>) -> &'r str {
        row.address
    }
}

/// `deployers.parquet`.
#[derive(Debug)]
pub struct Deployers;

impl RecordTable for Deployers {
    type Row<'a> = &'a DeployerRecord;
    type Decoded = DeployerRecord;
    const FILE: &'static str = DEPLOYERS_TABLE;
    const KEY: &'static str = "deployer";

    fn key<'r>(row: &'r &DeployerRecord) -> &'r str {
        &row.address
    }
}

/// `tokens.parquet`.
#[derive(Debug)]
pub struct Tokens;

impl RecordTable for Tokens {
    type Row<'a> = &'a BuyerTrust;
    type Decoded = BuyerTrust;
    const FILE: &'static str = TOKENS_TABLE;
    const KEY: &'static str = "token";

    fn key<'r>(row: &'r &BuyerTrust) -> &'r str {
        &row.token
    }
}

/// A seller's record from its two rows.
pub fn seller_record(address: String, live: LiveSellerV1, row: SellerRowV1) -> SellerRecord {
    SellerRecord {
        address,
        listing: live.listing,
        features: live.features,
        assessment: row.assessment,
        history: row.history,
        sources: live.sources,
        profile: row.profile,
        live: live.basis,
    }
}

/// A snapshot's record tables, indexed (each held compressed; a record is decoded when read).
#[derive(Debug)]
pub struct SnapshotRecords {
    /// `live-basis.parquet` (shared with the live re-score).
    pub live: Arc<LiveBases>,
    /// `sellers.parquet`.
    pub sellers: Table<Sellers>,
    /// `deployers.parquet`.
    pub deployers: Table<Deployers>,
    /// `tokens.parquet`.
    pub tokens: Table<Tokens>,
}

impl SnapshotRecords {
    /// Indexes the tables of the snapshot folder `dir` (whose files the caller has verified).
    ///
    /// # Errors
    /// When a table is missing or not this version's.
    pub fn open(dir: &Path) -> Result<Self, PublishError> {
        let read = |name: &str| -> Result<Bytes, PublishError> {
            let path = dir.join(name);
            std::fs::read(&path).map(Bytes::from).map_err(PublishError::io(&path))
        };
        let live = Arc::new(LiveBases::read(read(LIVE_BASIS)?)?);
        Self::from_bytes(live, read(SELLERS_TABLE)?, read(DEPLOYERS_TABLE)?, read(TOKENS_TABLE)?)
    }

    /// Indexes the tables from their files' bytes (verified by the caller), beside the indexed
    /// live basis.
    ///
    /// # Errors
    /// When a table is not this version's.
    pub fn from_bytes(
        live: Arc<LiveBases>,
        sellers: Bytes,
        deployers: Bytes,
        tokens: Bytes,
    ) -> Result<Self, PublishError> {
        Ok(Self {
            live,
            sellers: Table::read(sellers)?,
            deployers: Table::read(deployers)?,
            tokens: Table::read(tokens)?,
        })
    }

    /// Every seller's record, in address order.
    ///
    /// # Errors
    /// When a row cannot be decoded, or a seller has one of its two rows only.
    pub fn all_sellers(&self) -> Result<Vec<SellerRecord>, PublishError> {
        let mut live: std::collections::HashMap<String, LiveSellerV1> = self.live.decode_all()?.into_iter().collect();
        let mut records = self
            .sellers
            .decode_all()?
            .into_iter()
            .map(|(address, row)| {
                let basis = live.remove(&address).ok_or_else(|| unpaired(&address, LIVE_BASIS))?;
                Ok(seller_record(address, basis, row))
            })
            .collect::<Result<Vec<_>, PublishError>>()?;
        if let Some(address) = live.keys().next() {
            return Err(unpaired(address, SELLERS_TABLE));
        }
        records.sort_by(|a, b| a.address.cmp(&b.address));
        Ok(records)
    }

    /// Every deployer's record, in address order.
    ///
    /// # Errors
    /// When a row cannot be decoded.
    pub fn all_deployers(&self) -> Result<Vec<DeployerRecord>, PublishError> {
        let mut all: Vec<DeployerRecord> = self.deployers.decode_all()?.into_iter().map(|(_, d)| d).collect();
        all.sort_by(|a, b| a.address.cmp(&b.address));
        Ok(all)
    }

    /// Every token's buyer trust, in token order.
    ///
    /// # Errors
    /// When a row cannot be decoded.
    pub fn all_tokens(&self) -> Result<Vec<BuyerTrust>, PublishError> {
        let mut all: Vec<BuyerTrust> = self.tokens.decode_all()?.into_iter().map(|(_, t)| t).collect();
        all.sort_by(|a, b| a.token.cmp(&b.token));
        Ok(all)
    }
}

pub(crate) fn unpaired(address: &str, missing_from: &'static str) -> PublishError {
    PublishError::Table { file: missing_from, message: format!("seller {address} has no row here") }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn token(i: u32) -> BuyerTrust {
        serde_json::from_value(serde_json::json!({
            "token": format!("0x{i:040x}"),
            "deployer": format!("0x{:040x}", i / 3),
            "verdict": "MIXED",
            "buyers": i,
            "buys": u64::from(i) * 2,
            "tokens": f64::from(i) / 7.0,
            "parts": [],
            "reasons": [format!("reason {i}")],
            "top": [],
        }))
        .unwrap_or_else(|e| panic!("a token's buyer trust: {e}"))
    }

    #[test]
    fn a_table_reads_back_every_row_as_written_across_row_groups() {
        let tokens: Vec<BuyerTrust> = (0..ROW_GROUP_RECORDS as u32 * 2 + 5).map(token).collect();
        let rows: Vec<&BuyerTrust> = tokens.iter().collect();
        let mut file = Vec::new();
        write_to::<Tokens, _>(&mut file, &rows).expect("writes");
        let table = Table::<Tokens>::read(Bytes::from(file)).expect("reads");
        assert_eq!(table.len(), tokens.len());
        for t in tokens.iter().step_by(97) {
            assert_eq!(table.get(&t.token).expect("decodes").as_ref(), Some(t));
        }
        let all: Vec<BuyerTrust> = table.decode_all().expect("decodes").into_iter().map(|(_, t)| t).collect();
        assert_eq!(all, tokens);
        assert_eq!(table.get("0xnone").expect("no error"), None);
        // Another table's file is refused by its key column's name.
        let err = Table::<Deployers>::read(table_bytes(&rows)).expect_err("refused");
        assert!(err.to_string().contains("columns are not this version's"), "{err}");
    }

    fn table_bytes(rows: &[&BuyerTrust]) -> Bytes {
        let mut file = Vec::new();
        write_to::<Tokens, _>(&mut file, rows).expect("writes");
        Bytes::from(file)
    }
}
