//! What the store takes in besides signed records and payments: agent description files submitted
//! for indexing, the rate-limit hits that must survive a restart, and the online backup.

use std::path::Path;

use rusqlite::{OptionalExtension, Row, params};

use crate::{Store, StoreError};

/// A submitted agent description file.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Submission {
    /// Its id.
    pub id: i64,
    /// The file's URL.
    pub url: String,
    /// Unix seconds.
    pub submitted_at: i64,
}

fn submission(r: &Row<'_>) -> rusqlite::Result<Submission> {
    Ok(Submission { id: r.get("id")?, url: r.get("url")?, submitted_at: r.get("submitted_at")? })
}

impl Store {
    /// Queues a URL for the agent-card job; a URL already queued answers its first submission.
    /// Returns the submission and whether it is new.
    ///
    /// # Errors
    /// SQLite failures.
    pub fn submit_discovery(&self, url: &str, client: &str, now: i64) -> Result<(Submission, bool), StoreError> {
        let conn = self.lock();
        let inserted = conn
            .execute(
                "INSERT INTO discovery_submissions (url, submitted_at, client) VALUES (?1, ?2, ?3) ON CONFLICT (url) DO NOTHING",
                params![url, now, client],
            )
            .map_err(|e| self.err(e))?;
        let submission = conn
            .query_row("SELECT id, url, submitted_at FROM discovery_submissions WHERE url = ?1", [url], submission)
            .map_err(|e| self.err(e))?;
        Ok((submission, inserted == 1))
    }

    /// Submissions made in `[from, to)` (Unix seconds), oldest first (the export).
    ///
    /// # Errors
    /// SQLite failures.
    pub fn submissions_between(&self, from: i64, to: i64) -> Result<Vec<Submission>, StoreError> {
        let conn = self.lock();
        let mut stmt = conn
            .prepare_cached(
                "SELECT id, url, submitted_at FROM discovery_submissions
                 WHERE submitted_at >= ?1 AND submitted_at < ?2 ORDER BY submitted_at, id",
            )
            .map_err(|e| self.err(e))?;
        let rows = stmt.query_map(params![from, to], submission).map_err(|e| self.err(e))?;
        rows.collect::<Result<_, _>>().map_err(|e| self.err(e))
    }

    /// Counts a hit of `bucket` if fewer than `max` fell in the last `window_ms`; otherwise
    /// returns how many milliseconds until the oldest of them leaves the window. Old hits are
    /// dropped as it goes.
    ///
    /// # Errors
    /// SQLite failures.
    pub fn rate_hit(&self, bucket: &str, max: u32, window_ms: i64, now_ms: i64) -> Result<Result<(), i64>, StoreError> {
        let mut conn = self.lock();
        let tx = conn.transaction_with_behavior(rusqlite::TransactionBehavior::Immediate).map_err(|e| self.err(e))?;
        tx.execute("DELETE FROM rate_hits WHERE bucket = ?1 AND at <= ?2", params![bucket, now_ms - window_ms])
            .map_err(|e| self.err(e))?;
        let (count, oldest): (u32, Option<i64>) = tx
            .query_row("SELECT count(*) AS n, min(at) AS oldest FROM rate_hits WHERE bucket = ?1", [bucket], |r| {
                Ok((r.get("n")?, r.get("oldest")?))
            })
            .map_err(|e| self.err(e))?;
        let outcome = if count >= max {
            Err((oldest.unwrap_or(now_ms) + window_ms - now_ms).max(1))
        } else {
            tx.execute("INSERT INTO rate_hits (bucket, at) VALUES (?1, ?2)", params![bucket, now_ms])
                .map_err(|e| self.err(e))?;
            Ok(())
        };
        tx.commit().map_err(|e| self.err(e))?;
        Ok(outcome)
    }

    /// Writes a consistent copy of the whole store to `to` while it stays in use (`VACUUM INTO`:
    /// one read transaction, so the copy holds every write committed before it began). `to`
    /// must not exist.
    ///
    /// # Errors
    /// When `to` exists, or SQLite fails.
    pub fn backup_to(&self, to: &Path) -> Result<(), StoreError> {
        if to.exists() {
            return Err(StoreError::Corrupt {
                path: to.display().to_string(),
                message: "the backup file exists; choose a new name".to_owned(),
            });
        }
        let conn = self.lock();
        conn.execute("VACUUM INTO ?1", [to.to_string_lossy()]).map_err(|e| self.err(e))?;
        Ok(())
    }

    /// The ledger row id of a payment by its `(payer, nonce)`, if recorded.
    ///
    /// # Errors
    /// SQLite failures.
    pub fn payment_id_of(&self, payer: &str, nonce: &str) -> Result<Option<i64>, StoreError> {
        let conn = self.lock();
        conn.query_row("SELECT id FROM payments WHERE payer = ?1 AND nonce = ?2", params![payer, nonce], |r| {
            r.get("id")
        })
        .optional()
        .map_err(|e| self.err(e))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_rate_limit_counts_within_its_window_and_says_when_to_retry() {
        let store = Store::in_memory().unwrap();
        for i in 0..5 {
            assert_eq!(store.rate_hit("subscribe:1.2.3.4", 5, 3_600_000, 1_000 + i).unwrap(), Ok(()));
        }
        assert_eq!(store.rate_hit("subscribe:1.2.3.4", 5, 3_600_000, 2_000).unwrap(), Err(3_600_000 + 1_000 - 2_000));
        assert_eq!(store.rate_hit("subscribe:5.6.7.8", 5, 3_600_000, 2_000).unwrap(), Ok(()), "per key");
        assert_eq!(store.rate_hit("subscribe:1.2.3.4", 5, 3_600_000, 3_601_000).unwrap(), Ok(()), "the oldest left");
    }

    #[test]
    fn a_backup_holds_every_committed_write() {
        let dir = tempfile::tempdir().unwrap();
        let store = Store::open(&dir.path().join("live.sqlite")).unwrap();
        store.submit_discovery("https://a.example/agent.json", "c", 1).unwrap();
        let copy = dir.path().join("backup.sqlite");
        store.backup_to(&copy).unwrap();
        assert!(store.backup_to(&copy).is_err(), "never overwrites");
        let restored = Store::open(&copy).unwrap();
        assert_eq!(restored.submissions_between(0, 10).unwrap()[0].url, "https://a.example/agent.json");
    }
}
