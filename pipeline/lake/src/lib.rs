//! The lake: one folder per dataset under a root, Parquet files partitioned by day
//! (`<dataset>/date=YYYY-MM-DD/part-0.parquet`), in a local folder or under a bucket prefix
//! ([`LakeLocation`]).
//!
//! Each dataset is declared once, in [`datasets`], as a typed row; the declaration yields the row
//! struct, its Arrow schema and its batch builder. Writes are atomic (temporary file, then rename),
//! so re-writing a day replaces it and a crash never leaves half a file in the lake.

mod bucket;
mod column;
pub mod datasets;
pub mod dictionary;
pub mod domain;
pub mod forms;
pub mod lease;
mod location;
pub mod sources;
mod store;

pub use bucket::{Bucket, BucketError, Condition, RemoteObject, Versioned};
pub use column::{Column, Timestamp};
pub use datasets::{Dataset, Row, SchemaMismatch};
pub use forms::{EscrowAction, SettlementForm};
pub use lease::Lease;
pub use location::{BadLocation, BucketUrl, LakeLocation};
pub use sources::SourceName;
pub use store::{Lake, LakeError, PartitionFile, RemotePartition};
