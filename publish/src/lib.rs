//! Snapshots: the versioned wire types of every payload, the writers (JSON, CSV, Parquet, SVG),
//! the manifest, atomic publication with retention, and the reader the server loads from.
//!
//! A snapshot folder is immutable once its manifest is written, and servable as-is by any static
//! file server (`score/<address>.json`, `badge/<address>.svg`, `leaderboard.json`, `scores.csv`, …).

pub mod categories;
pub mod counterparties;
pub mod exports;
pub mod keyed;
pub mod layout;
pub mod live;
pub mod mirror;
pub mod payloads;
pub mod reader;
pub mod static_export;
pub mod store;
pub mod svg;
pub mod tables;
pub mod wire;
pub mod writer;

use std::io;
use std::path::{Path, PathBuf};

pub use reader::LoadedSnapshot;
pub use store::{PublishConfig, Published, SnapshotStore};

/// Publishing or reading a snapshot failed.
#[derive(Debug, thiserror::Error)]
pub enum PublishError {
    /// File I/O failed.
    #[error("snapshot I/O at {path}: {source}")]
    Io {
        /// The path.
        path: PathBuf,
        /// The cause.
        source: io::Error,
    },
    /// JSON encoding or decoding failed.
    #[error("snapshot JSON: {0}")]
    Encode(#[source] serde_json::Error),
    /// CSV encoding or decoding failed.
    #[error("snapshot CSV: {0}")]
    Csv(String),
    /// An export's columns do not fit their declaration.
    #[error("snapshot export: {0}")]
    Export(String),
    /// Parquet encoding failed.
    #[error("snapshot parquet: {0}")]
    Parquet(#[source] parquet::errors::ParquetError),
    /// A keyed file (`live-basis.parquet`, a record table) does not hold what this version writes.
    #[error("snapshot file {file}: {message}")]
    Table {
        /// The file.
        file: &'static str,
        /// What is wrong.
        message: String,
    },
    /// A snapshot bucket call failed, or the bucket holds something that is not a snapshot.
    #[error("snapshot bucket: {0}")]
    Bucket(String),
    /// A file does not match the manifest.
    #[error("snapshot {snapshot}: {path} does not match its manifest ({reason})")]
    Corrupt {
        /// Snapshot id.
        snapshot: String,
        /// File.
        path: String,
        /// What differs.
        reason: String,
    },
    /// No snapshot has been published.
    #[error("no snapshot is published under {0}")]
    NothingPublished(PathBuf),
}

impl PublishError {
    pub(crate) fn io(path: &Path) -> impl FnOnce(io::Error) -> PublishError + '_ {
        move |source| PublishError::Io { path: path.to_owned(), source }
    }
}
