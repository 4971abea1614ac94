//! Keyed Parquet files: one row per key (a seller, a deployer, a token), written in row groups
//! encoded in parallel, and read back one row (or a few) at a time without decoding the file.
//!
//! A [`RowCodec`] states a file's columns (the first is the key), how a slice of rows becomes one
//! row group's batch and how a row of a batch is decoded. [`write_to`] writes any codec's rows;
//! [`KeyedFile`] holds the compressed bytes, the metadata and where each key's row is, and decodes
//! the row group that holds a row when that row is asked for.

use std::collections::{BTreeMap, HashMap};
use std::marker::PhantomData;

use arrow::array::{Array, StringArray};
use arrow::datatypes::SchemaRef;
use arrow::record_batch::RecordBatch;
use bytes::Bytes;
use parquet::arrow::arrow_reader::{ArrowReaderMetadata, ParquetRecordBatchReaderBuilder, RowSelection, RowSelector};
use parquet::arrow::arrow_writer::{ArrowColumnChunk, compute_leaves};
use parquet::arrow::{ArrowWriter, ProjectionMask};
use parquet::basic::{Compression, ZstdLevel};
use parquet::file::properties::{EnabledStatistics, WriterProperties};
use rayon::prelude::*;

use crate::PublishError;

/// Row groups built at once while writing (in parallel), bounding the writer's memory.
pub(crate) const GROUPS_IN_FLIGHT: usize = 8;

/// What one keyed file holds and how its rows are encoded and decoded.
pub trait RowCodec {
    /// A row as the writer reads it (borrowed, so records are not copied to be written).
    type Row<'a>: Sync;
    /// A row as the reader returns it.
    type Decoded;
    /// The file's name in a snapshot (for errors).
    const FILE: &'static str;
    /// Rows per row group: what reading one row decodes.
    const ROW_GROUP: usize;
    /// The key of a row.
    fn key<'r>(row: &'r Self::Row<'_>) -> &'r str;
    /// One row group's columns; the key column is the first.
    fn batch(rows: &[Self::Row<'_>]) -> Result<RecordBatch, PublishError>;
    /// Row `row` of `batch`.
    fn decode(batch: &RecordBatch, row: usize) -> Result<Self::Decoded, PublishError>;
}

/// A codec's error about its file.
pub fn table_error<C: RowCodec>(message: impl Into<String>) -> PublishError {
    PublishError::Table { file: C::FILE, message: message.into() }
}

/// A column of `batch` by name and type.
pub fn column<'b, C: RowCodec, A: Array + 'static>(batch: &'b RecordBatch, name: &str) -> Result<&'b A, PublishError> {
    batch
        .column_by_name(name)
        .and_then(|c| c.as_any().downcast_ref::<A>())
        .ok_or_else(|| table_error::<C>(format!("column {name} is missing or of another type")))
}

/// The file's columns (those of an empty batch): the one definition the reader checks against.
pub(crate) fn schema<C: RowCodec>() -> Result<SchemaRef, PublishError> {
    Ok(C::batch(&[])?.schema())
}

/// Zstd, row groups of the codec's size, no statistics (nothing filters these files).
pub(crate) fn properties<C: RowCodec>() -> WriterProperties {
    WriterProperties::builder()
        .set_compression(Compression::ZSTD(ZstdLevel::default()))
        .set_max_row_group_row_count(Some(C::ROW_GROUP))
        .set_statistics_enabled(EnabledStatistics::None)
        .build()
}

/// Writes `rows` (in the order given) into `out`. Row groups are encoded and compressed in
/// parallel, [`GROUPS_IN_FLIGHT`] at a time, and appended in order, so the bytes are those of a
/// sequential writer.
///
/// # Errors
/// When a row cannot be encoded, the Parquet writer fails or `out` does.
pub fn write_to<C: RowCodec, W: std::io::Write + Send>(out: W, rows: &[C::Row<'_>]) -> Result<(), PublishError> {
    let schema = schema::<C>()?;
    let writer = ArrowWriter::try_new(out, schema.clone(), Some(properties::<C>())).map_err(PublishError::Parquet)?;
    let (mut file, groups) = writer.into_serialized_writer().map_err(PublishError::Parquet)?;
    for (w, window) in rows.chunks(C::ROW_GROUP * GROUPS_IN_FLIGHT).enumerate() {
        let encoded: Vec<Vec<ArrowColumnChunk>> = window
            .par_chunks(C::ROW_GROUP)
            .enumerate()
            .map(|(i, chunk)| {
                let batch = C::batch(chunk)?;
                let mut writers =
                    groups.create_column_writers(w * GROUPS_IN_FLIGHT + i).map_err(PublishError::Parquet)?;
                let mut leaves_of = writers.iter_mut();
                for (field, column) in schema.fields().iter().zip(batch.columns()) {
                    for leaf in compute_leaves(field, column).map_err(PublishError::Parquet)? {
                        let writer = leaves_of
                            .next()
                            .ok_or_else(|| table_error::<C>(format!("column {} has no writer", field.name())))?;
                        writer.write(&leaf).map_err(PublishError::Parquet)?;
                    }
                }
                writers.into_iter().map(|w| w.close().map_err(PublishError::Parquet)).collect()
            })
            .collect::<Result<_, PublishError>>()?;
        for chunks in encoded {
            let mut group = file.next_row_group().map_err(PublishError::Parquet)?;
            for chunk in chunks {
                chunk.append_to_row_group(&mut group).map_err(PublishError::Parquet)?;
            }
            group.close().map_err(PublishError::Parquet)?;
        }
    }
    file.close().map_err(PublishError::Parquet)?;
    Ok(())
}

/// [`write_to`] into memory.
///
/// # Errors
/// As [`write_to`].
pub fn write<C: RowCodec>(rows: &[C::Row<'_>]) -> Result<Vec<u8>, PublishError> {
    let mut buf = Vec::new();
    write_to::<C, _>(&mut buf, rows)?;
    Ok(buf)
}

/// A keyed file, held compressed: its bytes (checked against the manifest by the loader), its
/// metadata and where each key's row is.
pub struct KeyedFile<C> {
    file: Bytes,
    metadata: ArrowReaderMetadata,
    /// Key → row number in the file.
    rows: HashMap<String, u64>,
    /// First row of each row group, ascending.
    group_starts: Vec<u64>,
    codec: PhantomData<fn() -> C>,
}

impl<C> std::fmt::Debug for KeyedFile<C> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("KeyedFile").field("bytes", &self.file.len()).field("rows", &self.rows.len()).finish()
    }
}

impl<C: RowCodec> KeyedFile<C> {
    /// Indexes a file (reads its key column only).
    ///
    /// # Errors
    /// When the file is not Parquet or its columns are not the codec's.
    pub fn read(file: Bytes) -> Result<Self, PublishError> {
        let metadata = ArrowReaderMetadata::load(&file, Default::default()).map_err(PublishError::Parquet)?;
        let expected = schema::<C>()?;
        let found = metadata.schema();
        if found.fields().len() != expected.fields().len()
            || found
                .fields()
                .iter()
                .zip(expected.fields())
                .any(|(f, e)| f.name() != e.name() || f.data_type() != e.data_type())
        {
            return Err(table_error::<C>(format!(
                "the file's columns are not this version's ({} columns, {} expected)",
                found.fields().len(),
                expected.fields().len()
            )));
        }
        let key = expected.field(0).name().clone();
        let mut group_starts = Vec::with_capacity(metadata.metadata().num_row_groups());
        let mut start = 0u64;
        for g in metadata.metadata().row_groups() {
            group_starts.push(start);
            start += u64::try_from(g.num_rows()).unwrap_or(0);
        }
        let keys = ProjectionMask::roots(metadata.metadata().file_metadata().schema_descr(), [0]);
        let reader = ParquetRecordBatchReaderBuilder::new_with_metadata(file.clone(), metadata.clone())
            .with_projection(keys)
            .with_batch_size(8192)
            .build()
            .map_err(PublishError::Parquet)?;
        let mut rows = HashMap::with_capacity(usize::try_from(start).unwrap_or(0));
        let mut row = 0u64;
        for b in reader {
            let b = b.map_err(|e| table_error::<C>(e.to_string()))?;
            for k in column::<C, StringArray>(&b, &key)?.iter() {
                rows.insert(k.unwrap_or_default().to_owned(), row);
                row += 1;
            }
        }
        Ok(Self { file, metadata, rows, group_starts, codec: PhantomData })
    }

    /// Every key in the file, in no order.
    pub fn keys(&self) -> Vec<&str> {
        self.rows.keys().map(String::as_str).collect()
    }

    /// Rows in the file.
    pub fn len(&self) -> usize {
        self.rows.len()
    }

    /// Whether the file holds no row.
    pub fn is_empty(&self) -> bool {
        self.rows.is_empty()
    }

    /// Bytes held (the compressed file).
    pub fn file_size(&self) -> usize {
        self.file.len()
    }

    /// Whether the file has a row for `key`.
    pub fn contains(&self, key: &str) -> bool {
        self.rows.contains_key(key)
    }

    fn key_column(batch: &RecordBatch) -> Result<&StringArray, PublishError> {
        batch
            .column(0)
            .as_any()
            .downcast_ref::<StringArray>()
            .ok_or_else(|| table_error::<C>("the key column is no text"))
    }

    /// Decodes every row a reader yields, with its key.
    fn decode_reader(
        reader: parquet::arrow::arrow_reader::ParquetRecordBatchReader,
        capacity: usize,
    ) -> Result<Vec<(String, C::Decoded)>, PublishError> {
        let mut out = Vec::with_capacity(capacity);
        for b in reader {
            let b = b.map_err(|e| table_error::<C>(e.to_string()))?;
            let keys = Self::key_column(&b)?;
            for row in 0..b.num_rows() {
                out.push((keys.value(row).to_owned(), C::decode(&b, row)?));
            }
        }
        Ok(out)
    }

    /// Every row, decoded, in the file's order.
    ///
    /// # Errors
    /// When a row cannot be decoded.
    pub fn decode_all(&self) -> Result<Vec<(String, C::Decoded)>, PublishError> {
        let reader = ParquetRecordBatchReaderBuilder::new_with_metadata(self.file.clone(), self.metadata.clone())
            .with_batch_size(C::ROW_GROUP)
            .build()
            .map_err(PublishError::Parquet)?;
        Self::decode_reader(reader, self.rows.len())
    }

    /// The row group that holds `row`, and the row's offset in it.
    fn place(&self, row: u64) -> (usize, usize) {
        let group = self.group_starts.partition_point(|start| *start <= row) - 1;
        (group, usize::try_from(row - self.group_starts[group]).unwrap_or(0))
    }

    /// The rows of `keys` the file has, decoded, in the file's order: each row group that holds
    /// one of them is decompressed once (where [`KeyedFile::get`] decompresses a row group per
    /// key).
    ///
    /// # Errors
    /// When a row cannot be decoded.
    pub fn get_many<'s>(
        &self,
        keys: impl IntoIterator<Item = &'s str>,
    ) -> Result<Vec<(String, C::Decoded)>, PublishError> {
        let mut by_group: BTreeMap<usize, Vec<usize>> = BTreeMap::new();
        for row in keys.into_iter().filter_map(|k| self.rows.get(k).copied()) {
            let (group, offset) = self.place(row);
            by_group.entry(group).or_default().push(offset);
        }
        if by_group.is_empty() {
            return Ok(Vec::new());
        }
        let mut selectors = Vec::new();
        let mut wanted = 0;
        for (group, offsets) in &mut by_group {
            offsets.sort_unstable();
            offsets.dedup();
            wanted += offsets.len();
            let len = usize::try_from(self.metadata.metadata().row_group(*group).num_rows()).unwrap_or(0);
            let mut at = 0;
            for &offset in offsets.iter() {
                if offset > at {
                    selectors.push(RowSelector::skip(offset - at));
                }
                selectors.push(RowSelector::select(1));
                at = offset + 1;
            }
            if len > at {
                selectors.push(RowSelector::skip(len - at));
            }
        }
        let reader = ParquetRecordBatchReaderBuilder::new_with_metadata(self.file.clone(), self.metadata.clone())
            .with_row_groups(by_group.keys().copied().collect())
            .with_row_selection(RowSelection::from(selectors))
            .with_batch_size(C::ROW_GROUP)
            .build()
            .map_err(PublishError::Parquet)?;
        Self::decode_reader(reader, wanted)
    }

    /// `key`'s row, decoded; `None` when the file has none.
    ///
    /// # Errors
    /// When the row cannot be decoded.
    pub fn get(&self, key: &str) -> Result<Option<C::Decoded>, PublishError> {
        let Some(&row) = self.rows.get(key) else { return Ok(None) };
        let (group, offset) = self.place(row);
        let reader = ParquetRecordBatchReaderBuilder::new_with_metadata(self.file.clone(), self.metadata.clone())
            .with_row_groups(vec![group])
            .with_row_selection(RowSelection::from(vec![RowSelector::skip(offset), RowSelector::select(1)]))
            .build()
            .map_err(PublishError::Parquet)?;
        for b in reader {
            let b = b.map_err(|e| table_error::<C>(e.to_string()))?;
            if b.num_rows() == 1 {
                return C::decode(&b, 0).map(Some);
            }
        }
        Err(table_error::<C>(format!("row {row} of {key} is missing")))
    }
}
