//! The write store: everything the server itself writes, in one embedded SQLite file beside the
//! snapshots: the payment ledger ([`ledger`]), the operator's signed attestations
//! ([`attestations`]), what users sign ([`signed`]: receipts, badge claims, watchlists), webhook
//! subscriptions and their events ([`webhooks`]), the delivery outbox ([`outbox`]), paid slots
//! ([`slots`]), and discovery submissions, rate-limit state and backups ([`intake`]).
//!
//! The file runs in WAL mode with `synchronous = FULL`: a committed write survives a crash or a
//! power cut, and readers never block the writer. The schema is versioned with SQLite's
//! `user_version` ([`rusqlite_migration`]); opening a file upgrades it, and a file written by a
//! newer build is refused instead of being read wrongly.
//!
//! The rebuild never reads this file: records reach the lake through an export job, so data keeps
//! flowing one way.

pub mod attestations;
mod group;
pub mod intake;
pub mod ledger;
pub mod outbox;
pub mod signed;
pub mod slots;
pub mod webhooks;

use std::path::{Path, PathBuf};
use std::sync::{Mutex, MutexGuard};
use std::time::Duration;

use rusqlite::Connection;
use rusqlite_migration::{M, Migrations};

pub use attestations::{AttestationRecord, FetchCount};
pub use intake::Submission;
pub use ledger::{
    Claim, PaymentClaim, PaymentRecord, PaymentState, RevenueTotals, RouteRevenue, Settlement, StoredAnswer,
};
pub use outbox::{Attempt, Delivery, DeliveryState, NewDelivery};
pub use signed::{
    BadgeClaim, NewReceipt, NewWatch, ReceiptRecord, ReceiptSummary, Signed, SignerKind, WatchRecord, Written,
};
pub use slots::{AlertTarget, NewSlot, Slot, SlotKind};
pub use webhooks::{DiffReport, Digest, NewSubscription, ScoreChange, Subscribed, Subscription};

/// The file name of the store, beside the snapshots folder.
pub const FILE_NAME: &str = "agentrep-store.sqlite";

/// The migrations' SQL, oldest first. Never edit one that shipped: append.
const MIGRATION_SQL: &[&str] = &[
    include_str!("migrations/001_payments.sql"),
    include_str!("migrations/002_attestations.sql"),
    include_str!("migrations/003_writes.sql"),
];

/// Every migration, oldest first.
const MIGRATIONS: &[M<'static>] = &[M::up(MIGRATION_SQL[0]), M::up(MIGRATION_SQL[1]), M::up(MIGRATION_SQL[2])];

/// The schema as the migrations write it, in order (ARCHITECTURE.md prints it).
pub fn schema_sql() -> String {
    MIGRATION_SQL.concat()
}

/// How long a writer waits for another process's lock before failing.
const BUSY_TIMEOUT: Duration = Duration::from_secs(5);

/// Why the store failed.
#[derive(Debug, thiserror::Error)]
pub enum StoreError {
    /// SQLite refused an operation.
    #[error("store {path}: {source}")]
    Sqlite {
        /// The file.
        path: String,
        /// The cause.
        #[source]
        source: rusqlite::Error,
    },
    /// The schema could not be brought to this build's version.
    #[error("store {path}: migrating the schema: {source}")]
    Migration {
        /// The file.
        path: String,
        /// The cause.
        #[source]
        source: rusqlite_migration::Error,
    },
    /// A row is not what this build wrote.
    #[error("store {path}: {message}")]
    Corrupt {
        /// The file.
        path: String,
        /// What is wrong.
        message: String,
    },
}

/// The store: one connection, one writer at a time; receipts are group-committed.
#[derive(Debug)]
pub struct Store {
    conn: Mutex<Connection>,
    path: PathBuf,
    receipts: group::Group<(NewReceipt, i64)>,
}

impl Store {
    /// Opens (creating if needed) the store at `path` and brings its schema up to date.
    ///
    /// # Errors
    /// When the file cannot be opened, is not a SQLite database, or was written by a newer build.
    pub fn open(path: &Path) -> Result<Self, StoreError> {
        if let Some(dir) = path.parent().filter(|d| !d.as_os_str().is_empty()) {
            let _ = std::fs::create_dir_all(dir);
        }
        let conn = Connection::open(path).map_err(|source| sqlite(path, source))?;
        Self::setup(conn, path.to_owned())
    }

    /// A store in memory (tests).
    ///
    /// # Errors
    /// Never in practice; SQLite's own failures are passed on.
    pub fn in_memory() -> Result<Self, StoreError> {
        let path = PathBuf::from(":memory:");
        let conn = Connection::open_in_memory().map_err(|source| sqlite(&path, source))?;
        Self::setup(conn, path)
    }

    fn setup(mut conn: Connection, path: PathBuf) -> Result<Self, StoreError> {
        conn.busy_timeout(BUSY_TIMEOUT).map_err(|source| sqlite(&path, source))?;
        // WAL: readers never block the writer and a commit is one append; FULL: the WAL is synced
        // at every commit, so a committed payment survives a power cut, not only a crash.
        conn.pragma_update(None, "journal_mode", "WAL").map_err(|source| sqlite(&path, source))?;
        conn.pragma_update(None, "synchronous", "FULL").map_err(|source| sqlite(&path, source))?;
        conn.pragma_update(None, "foreign_keys", "ON").map_err(|source| sqlite(&path, source))?;
        Migrations::from_slice(MIGRATIONS)
            .to_latest(&mut conn)
            .map_err(|source| StoreError::Migration { path: path.display().to_string(), source })?;
        Ok(Self { conn: Mutex::new(conn), path, receipts: group::Group::default() })
    }

    /// The file.
    pub fn path(&self) -> &Path {
        &self.path
    }

    /// The schema version this build writes.
    pub fn schema_version() -> usize {
        MIGRATIONS.len()
    }

    fn lock(&self) -> MutexGuard<'_, Connection> {
        // A panic while holding the lock cannot leave a half-written row (every write is one
        // transaction), so a poisoned lock is still safe to use.
        self.conn.lock().unwrap_or_else(std::sync::PoisonError::into_inner)
    }

    fn err(&self, source: rusqlite::Error) -> StoreError {
        sqlite(&self.path, source)
    }
}

fn sqlite(path: &Path, source: rusqlite::Error) -> StoreError {
    StoreError::Sqlite { path: path.display().to_string(), source }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn migrations_are_valid_and_files_reopen_at_the_same_version() {
        assert!(Migrations::from_slice(MIGRATIONS).validate().is_ok());
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("nested").join(FILE_NAME);
        drop(Store::open(&path).unwrap());
        let store = Store::open(&path).unwrap();
        let conn = store.lock();
        let version: i64 = conn.pragma_query_value(None, "user_version", |r| r.get("user_version")).unwrap();
        assert_eq!(version as usize, Store::schema_version());
        let mode: String = conn.pragma_query_value(None, "journal_mode", |r| r.get("journal_mode")).unwrap();
        assert_eq!(mode, "wal");
    }

    #[test]
    fn a_file_from_a_newer_build_is_refused() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join(FILE_NAME);
        drop(Store::open(&path).unwrap());
        Connection::open(&path).unwrap().pragma_update(None, "user_version", 99).unwrap();
        assert!(matches!(Store::open(&path), Err(StoreError::Migration { .. })));
    }

    #[test]
    fn a_file_that_is_not_sqlite_is_refused() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join(FILE_NAME);
        std::fs::write(&path, b"not a database, not even close; just some bytes to fill a page").unwrap();
        assert!(Store::open(&path).is_err());
    }
}
