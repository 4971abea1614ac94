//! Attestations the operator signed, and how often each address's attestation is fetched.

use rusqlite::{OptionalExtension, Row, params};

use crate::{Store, StoreError};

/// One signed attestation.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct AttestationRecord {
    /// The subject, 0x-lowercase.
    pub address: String,
    /// The attested score.
    pub score: u8,
    /// Unix seconds, as signed.
    pub timestamp: i64,
    /// The nonce, as signed.
    pub nonce: u64,
    /// The snapshot the score was read from.
    pub snapshot: String,
    /// The operator address that signed.
    pub signer: String,
    /// The signature, hex.
    pub signature: String,
}

/// Fetches of one address's attestation.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct FetchCount {
    /// The subject.
    pub address: String,
    /// Fetches counted.
    pub fetches: u64,
    /// The last one, Unix seconds.
    pub last_at: i64,
}

const COLUMNS: &str = "address, score, timestamp, nonce, snapshot, signer, signature";

fn record(r: &Row<'_>) -> rusqlite::Result<AttestationRecord> {
    Ok(AttestationRecord {
        address: r.get("address")?,
        score: r.get("score")?,
        timestamp: r.get("timestamp")?,
        nonce: r.get::<_, i64>("nonce")? as u64,
        snapshot: r.get("snapshot")?,
        signer: r.get("signer")?,
        signature: r.get("signature")?,
    })
}

impl Store {
    /// Keeps a signed attestation.
    ///
    /// # Errors
    /// SQLite failures.
    pub fn add_attestation(&self, a: &AttestationRecord) -> Result<(), StoreError> {
        let conn = self.lock();
        conn.execute(
            &format!("INSERT INTO attestations ({COLUMNS}) VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7)"),
            params![a.address, a.score, a.timestamp, a.nonce as i64, a.snapshot, a.signer, a.signature],
        )
        .map_err(|e| self.err(e))?;
        Ok(())
    }

    /// The newest attestation of `address` by `signer`.
    ///
    /// # Errors
    /// SQLite failures.
    pub fn latest_attestation(&self, address: &str, signer: &str) -> Result<Option<AttestationRecord>, StoreError> {
        let conn = self.lock();
        conn.query_row(
            &format!(
                "SELECT {COLUMNS} FROM attestations WHERE address = ?1 AND signer = ?2 ORDER BY timestamp DESC, id DESC LIMIT 1"
            ),
            [address, signer],
            record,
        )
        .optional()
        .map_err(|e| self.err(e))
    }

    /// The newest attestation of each of the `limit` addresses attested most recently.
    ///
    /// # Errors
    /// SQLite failures.
    pub fn recent_attestations(&self, limit: usize) -> Result<Vec<AttestationRecord>, StoreError> {
        let conn = self.lock();
        let mut stmt = conn
            .prepare(&format!(
                "SELECT {COLUMNS} FROM attestations a WHERE id = \
                   (SELECT id FROM attestations b WHERE b.address = a.address ORDER BY timestamp DESC, id DESC LIMIT 1) \
                 ORDER BY timestamp DESC, address LIMIT ?1"
            ))
            .map_err(|e| self.err(e))?;
        stmt.query_map([limit as i64], record).and_then(Iterator::collect).map_err(|e| self.err(e))
    }

    /// Every attestation signed in `[from, to)` (Unix seconds), oldest first: what the export job
    /// carries to the lake.
    ///
    /// # Errors
    /// SQLite failures.
    pub fn attestations_between(&self, from: i64, to: i64) -> Result<Vec<AttestationRecord>, StoreError> {
        let conn = self.lock();
        let mut stmt = conn
            .prepare(&format!(
                "SELECT {COLUMNS} FROM attestations WHERE timestamp >= ?1 AND timestamp < ?2 ORDER BY timestamp, id"
            ))
            .map_err(|e| self.err(e))?;
        stmt.query_map([from, to], record).and_then(Iterator::collect).map_err(|e| self.err(e))
    }

    /// Adds a batch of fetch counts (address, fetches, last fetch) in one transaction.
    ///
    /// # Errors
    /// SQLite failures; the batch is then not applied.
    pub fn add_fetches(&self, batch: &[FetchCount]) -> Result<(), StoreError> {
        let mut conn = self.lock();
        let tx = conn.transaction().map_err(|e| self.err(e))?;
        for f in batch {
            tx.execute(
                "INSERT INTO attestation_fetches (address, fetches, last_at) VALUES (?1, ?2, ?3) \
                 ON CONFLICT(address) DO UPDATE SET fetches = fetches + excluded.fetches, \
                 last_at = MAX(last_at, excluded.last_at)",
                params![f.address, f.fetches as i64, f.last_at],
            )
            .map_err(|e| self.err(e))?;
        }
        tx.commit().map_err(|e| self.err(e))
    }

    /// The `limit` most fetched addresses, most first.
    ///
    /// # Errors
    /// SQLite failures.
    pub fn most_fetched(&self, limit: usize) -> Result<Vec<FetchCount>, StoreError> {
        let conn = self.lock();
        let mut stmt = conn
            .prepare(
                "SELECT address, fetches, last_at FROM attestation_fetches ORDER BY fetches DESC, address LIMIT ?1",
            )
            .map_err(|e| self.err(e))?;
        stmt.query_map([limit as i64], |r| {
            Ok(FetchCount {
                address: r.get("address")?,
                fetches: r.get::<_, i64>("fetches")? as u64,
                last_at: r.get("last_at")?,
            })
        })
        .and_then(Iterator::collect)
        .map_err(|e| self.err(e))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn att(address: &str, score: u8, timestamp: i64) -> AttestationRecord {
        AttestationRecord {
            address: address.to_owned(),
            score,
            timestamp,
            nonce: 20261122,
            snapshot: "2026-11-22-abc".to_owned(),
            signer: "0xop".to_owned(),
            signature: "0xsig".to_owned(),
        }
    }

    #[test]
    fn latest_and_recent_attestations_and_fetch_counts() {
        let store = Store::in_memory().unwrap();
        store.add_attestation(&att("0xa", 70, 100)).unwrap();
        store.add_attestation(&att("0xa", 72, 200)).unwrap();
        store.add_attestation(&att("0xb", 50, 150)).unwrap();
        assert_eq!(store.latest_attestation("0xa", "0xop").unwrap().unwrap().score, 72);
        assert_eq!(store.latest_attestation("0xa", "0xother").unwrap(), None);
        let recent: Vec<(String, u8)> =
            store.recent_attestations(10).unwrap().into_iter().map(|a| (a.address, a.score)).collect();
        assert_eq!(recent, vec![("0xa".to_owned(), 72), ("0xb".to_owned(), 50)]);
        store
            .add_fetches(&[
                FetchCount { address: "0xa".into(), fetches: 3, last_at: 10 },
                FetchCount { address: "0xb".into(), fetches: 5, last_at: 11 },
            ])
            .unwrap();
        store.add_fetches(&[FetchCount { address: "0xa".into(), fetches: 4, last_at: 9 }]).unwrap();
        let top = store.most_fetched(10).unwrap();
        assert_eq!((top[0].address.as_str(), top[0].fetches, top[0].last_at), ("0xa", 7, 10));
        assert_eq!(top[1].fetches, 5);
    }
}
