//! Records users sign (EIP-191): buyer receipts, badge claims and watchlist entries. Each keeps the
//! message and signature it was accepted with, and its fields as the message states them. A message
//! is accepted once: posted again, it answers the record it made and changes nothing.

use rusqlite::{OptionalExtension, Row, params};

use crate::{Store, StoreError};

/// How a signature was checked.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum SignerKind {
    /// The signer's own key (ECDSA recovered locally).
    Eoa,
    /// A deployed smart wallet's ERC-1271 `isValidSignature`.
    Erc1271,
    /// A smart wallet not deployed yet, through its ERC-6492 deployment.
    Erc6492,
}

impl SignerKind {
    /// The stored name.
    pub fn as_str(self) -> &'static str {
        match self {
            SignerKind::Eoa => "eoa",
            SignerKind::Erc1271 => "erc1271",
            SignerKind::Erc6492 => "erc6492",
        }
    }

    fn parse(s: &str) -> Self {
        match s {
            "erc1271" => SignerKind::Erc1271,
            "erc6492" => SignerKind::Erc6492,
            _ => SignerKind::Eoa,
        }
    }
}

/// The signed message a record was accepted with.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Signed {
    /// The message, as signed.
    pub message: String,
    /// SHA-256 of the message, hex.
    pub message_hash: String,
    /// The signature, 0x hex.
    pub signature: String,
    /// How it was checked.
    pub signer_kind: SignerKind,
    /// The message's own timestamp, Unix milliseconds.
    pub signed_at: i64,
}

/// A receipt as its buyer signed it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct NewReceipt {
    /// The buyer (the signer), 0x-lowercase.
    pub buyer: String,
    /// The seller, 0x-lowercase.
    pub agent: String,
    /// Whether the call succeeded.
    pub success: bool,
    /// The payment's transaction, as signed.
    pub tx_hash: Option<String>,
    /// Latency, milliseconds.
    pub latency_ms: Option<u64>,
    /// Rating 0–100.
    pub rating: Option<u8>,
    /// Comment, as signed.
    pub comment: Option<String>,
    /// The signature.
    pub signed: Signed,
}

/// A stored receipt.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ReceiptRecord {
    /// Its id.
    pub id: i64,
    /// What was signed.
    pub receipt: NewReceipt,
    /// When it arrived, Unix seconds.
    pub received_at: i64,
}

/// A seller's receipts in aggregate.
#[derive(Debug, Clone, Copy, PartialEq, Default)]
pub struct ReceiptSummary {
    /// Receipts.
    pub total: u64,
    /// Receipts with `success: true`.
    pub successes: u64,
    /// Mean rating of the rated ones.
    pub avg_rating: Option<f64>,
    /// Mean latency of the timed ones, milliseconds.
    pub avg_latency_ms: Option<f64>,
}

/// A badge claim as its wallet signed it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct BadgeClaim {
    /// Its id.
    pub id: i64,
    /// The wallet (the signer), 0x-lowercase.
    pub address: String,
    /// When it was claimed, Unix seconds.
    pub claimed_at: i64,
    /// The signature.
    pub signed: Signed,
}

/// A watchlist entry as its subscriber signed it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct NewWatch {
    /// The subscriber (the signer), 0x-lowercase.
    pub subscriber: String,
    /// The watched wallet, 0x-lowercase.
    pub watched: String,
    /// A label, as signed.
    pub label: Option<String>,
    /// The change that counts as a move, score points.
    pub threshold_delta: u8,
    /// The receiver the watcher signed for its digests, if any (checked, normalised). A digest
    /// goes only to the watcher's webhook subscription to this very URL: subscriptions are not
    /// signed, so any other one could be anybody's.
    pub webhook_url: Option<String>,
    /// The signature.
    pub signed: Signed,
}

/// A stored watchlist entry.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct WatchRecord {
    /// Its id.
    pub id: i64,
    /// The entry.
    pub watch: NewWatch,
    /// When it was (last) added, Unix seconds.
    pub added_at: i64,
    /// The score at the last digest.
    pub last_score: Option<u8>,
    /// The score at the digest before.
    pub prev_score: Option<u8>,
    /// The snapshot of the last digest.
    pub last_snapshot: Option<String>,
}

/// What a write did: a new record, or the one an identical message made before.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Written {
    /// The record's id.
    pub id: i64,
    /// False when the message had been accepted before (nothing changed).
    pub created: bool,
}

/// The [`Signed`] of a row that selects [`SIGNED_COLUMNS`].
fn signed(r: &Row<'_>) -> rusqlite::Result<Signed> {
    Ok(Signed {
        message: r.get("message")?,
        message_hash: r.get("message_hash")?,
        signature: r.get("signature")?,
        signer_kind: SignerKind::parse(&r.get::<_, String>("signer_kind")?),
        signed_at: r.get("signed_at")?,
    })
}

const SIGNED_COLUMNS: &str = "message, message_hash, signature, signer_kind, signed_at";

const RECEIPT_COLUMNS: &str = "id, buyer, agent, success, tx_hash, latency_ms, rating, comment, received_at";

fn receipt(r: &Row<'_>) -> rusqlite::Result<ReceiptRecord> {
    Ok(ReceiptRecord {
        id: r.get("id")?,
        receipt: NewReceipt {
            buyer: r.get("buyer")?,
            agent: r.get("agent")?,
            success: r.get("success")?,
            tx_hash: r.get("tx_hash")?,
            latency_ms: r.get::<_, Option<i64>>("latency_ms")?.map(|v| v as u64),
            rating: r.get("rating")?,
            comment: r.get("comment")?,
            signed: signed(r)?,
        },
        received_at: r.get("received_at")?,
    })
}

const WATCH_COLUMNS: &str =
    "id, subscriber, watched, label, threshold_delta, added_at, last_score, prev_score, last_snapshot, webhook_url";

fn watch(r: &Row<'_>) -> rusqlite::Result<WatchRecord> {
    Ok(WatchRecord {
        id: r.get("id")?,
        watch: NewWatch {
            subscriber: r.get("subscriber")?,
            watched: r.get("watched")?,
            label: r.get("label")?,
            threshold_delta: r.get("threshold_delta")?,
            webhook_url: r.get("webhook_url")?,
            signed: signed(r)?,
        },
        added_at: r.get("added_at")?,
        last_score: r.get("last_score")?,
        prev_score: r.get("prev_score")?,
        last_snapshot: r.get("last_snapshot")?,
    })
}

fn badge(r: &Row<'_>) -> rusqlite::Result<BadgeClaim> {
    Ok(BadgeClaim {
        id: r.get("id")?,
        address: r.get("address")?,
        claimed_at: r.get("claimed_at")?,
        signed: signed(r)?,
    })
}

/// Inserts one receipt (nothing when its message was accepted before) and answers its id.
fn insert_receipt(conn: &rusqlite::Connection, r: &NewReceipt, now: i64) -> rusqlite::Result<Written> {
    let s = &r.signed;
    let inserted = conn
        .prepare_cached(&format!(
            "INSERT INTO receipts (buyer, agent, success, tx_hash, latency_ms, rating, comment, received_at, {SIGNED_COLUMNS})
             VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11, ?12, ?13)
             ON CONFLICT (message_hash) DO NOTHING"
        ))?
        .execute(params![
            r.buyer,
            r.agent,
            r.success,
            r.tx_hash,
            r.latency_ms.map(|v| v as i64),
            r.rating,
            r.comment,
            now,
            s.message,
            s.message_hash,
            s.signature,
            s.signer_kind.as_str(),
            s.signed_at
        ])?;
    let id = conn
        .prepare_cached("SELECT id FROM receipts WHERE message_hash = ?1")?
        .query_row([&s.message_hash], |row| row.get("id"))?;
    Ok(Written { id, created: inserted == 1 })
}

impl Store {
    /// Keeps a signed receipt; the same message again answers the receipt it made. Returns once
    /// the receipt is committed; receipts written at the same time share one commit
    /// ([`group`](crate::group)).
    ///
    /// # Errors
    /// SQLite failures.
    pub fn add_receipt(&self, r: &NewReceipt, now: i64) -> Result<Written, StoreError> {
        self.receipts.submit((r.clone(), now), |batch| self.commit_receipts(&batch))
    }

    /// Writes `batch` in one transaction, one result per receipt. When the transaction fails, each
    /// receipt is tried alone, so one receipt's failure is its own.
    fn commit_receipts(&self, batch: &[(NewReceipt, i64)]) -> Vec<Result<Written, StoreError>> {
        let mut conn = self.lock();
        let together = (|| {
            let tx = conn.transaction_with_behavior(rusqlite::TransactionBehavior::Immediate)?;
            let written = batch.iter().map(|(r, now)| insert_receipt(&tx, r, *now)).collect::<Result<Vec<_>, _>>()?;
            tx.commit()?;
            Ok::<_, rusqlite::Error>(written)
        })();
        match together {
            Ok(written) => written.into_iter().map(Ok).collect(),
            Err(_) if batch.len() > 1 => batch
                .iter()
                .map(|(r, now)| {
                    let tx = conn.transaction_with_behavior(rusqlite::TransactionBehavior::Immediate)?;
                    let written = insert_receipt(&tx, r, *now)?;
                    tx.commit()?;
                    Ok(written)
                })
                .map(|result: rusqlite::Result<Written>| result.map_err(|e| self.err(e)))
                .collect(),
            Err(e) => vec![Err(self.err(e))],
        }
    }

    /// A seller's newest receipts, at most `limit`.
    ///
    /// # Errors
    /// SQLite failures.
    pub fn receipts_for(&self, agent: &str, limit: usize) -> Result<Vec<ReceiptRecord>, StoreError> {
        let conn = self.lock();
        let mut stmt = conn
            .prepare_cached(&format!(
                "SELECT {RECEIPT_COLUMNS}, {SIGNED_COLUMNS} FROM receipts WHERE agent = ?1 ORDER BY id DESC LIMIT ?2"
            ))
            .map_err(|e| self.err(e))?;
        let rows = stmt.query_map(params![agent, limit as i64], receipt).map_err(|e| self.err(e))?;
        rows.collect::<Result<_, _>>().map_err(|e| self.err(e))
    }

    /// Every receipt of a seller in aggregate.
    ///
    /// # Errors
    /// SQLite failures.
    pub fn receipt_summary(&self, agent: &str) -> Result<ReceiptSummary, StoreError> {
        let conn = self.lock();
        conn.query_row(
            "SELECT count(*) AS total, coalesce(sum(success), 0) AS successes, avg(rating) AS avg_rating,
               avg(latency_ms) AS avg_latency_ms
             FROM receipts WHERE agent = ?1",
            [agent],
            |r| {
                Ok(ReceiptSummary {
                    total: r.get::<_, i64>("total")? as u64,
                    successes: r.get::<_, i64>("successes")? as u64,
                    avg_rating: r.get("avg_rating")?,
                    avg_latency_ms: r.get("avg_latency_ms")?,
                })
            },
        )
        .map_err(|e| self.err(e))
    }

    /// Receipts received in `[from, to)` (Unix seconds), oldest first (the export).
    ///
    /// # Errors
    /// SQLite failures.
    pub fn receipts_between(&self, from: i64, to: i64) -> Result<Vec<ReceiptRecord>, StoreError> {
        let conn = self.lock();
        let mut stmt = conn
            .prepare_cached(&format!(
                "SELECT {RECEIPT_COLUMNS}, {SIGNED_COLUMNS} FROM receipts
                 WHERE received_at >= ?1 AND received_at < ?2 ORDER BY received_at, id"
            ))
            .map_err(|e| self.err(e))?;
        let rows = stmt.query_map(params![from, to], receipt).map_err(|e| self.err(e))?;
        rows.collect::<Result<_, _>>().map_err(|e| self.err(e))
    }

    /// Keeps a signed badge claim; the same message again answers the claim it made.
    ///
    /// # Errors
    /// SQLite failures.
    pub fn add_badge_claim(&self, address: &str, s: &Signed, now: i64) -> Result<Written, StoreError> {
        let conn = self.lock();
        let inserted = conn
            .execute(
                &format!(
                    "INSERT INTO badge_claims (address, claimed_at, {SIGNED_COLUMNS}) VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7)
                     ON CONFLICT (message_hash) DO NOTHING"
                ),
                params![address, now, s.message, s.message_hash, s.signature, s.signer_kind.as_str(), s.signed_at],
            )
            .map_err(|e| self.err(e))?;
        let id = conn
            .query_row("SELECT id FROM badge_claims WHERE message_hash = ?1", [&s.message_hash], |row| row.get("id"))
            .map_err(|e| self.err(e))?;
        Ok(Written { id, created: inserted == 1 })
    }

    /// The first claim of every wallet that claimed its badge, newest first, at most `limit`.
    ///
    /// # Errors
    /// SQLite failures.
    pub fn badge_claims(&self, limit: usize) -> Result<Vec<BadgeClaim>, StoreError> {
        let conn = self.lock();
        let mut stmt = conn
            .prepare_cached(&format!(
                "SELECT id, address, claimed_at, {SIGNED_COLUMNS} FROM badge_claims
                 WHERE id IN (SELECT min(id) FROM badge_claims GROUP BY address) ORDER BY id DESC LIMIT ?1"
            ))
            .map_err(|e| self.err(e))?;
        let rows = stmt.query_map([limit as i64], badge).map_err(|e| self.err(e))?;
        rows.collect::<Result<_, _>>().map_err(|e| self.err(e))
    }

    /// Badge claims made in `[from, to)` (Unix seconds), oldest first (the export).
    ///
    /// # Errors
    /// SQLite failures.
    pub fn badge_claims_between(&self, from: i64, to: i64) -> Result<Vec<BadgeClaim>, StoreError> {
        let conn = self.lock();
        let mut stmt = conn
            .prepare_cached(&format!(
                "SELECT id, address, claimed_at, {SIGNED_COLUMNS} FROM badge_claims
                 WHERE claimed_at >= ?1 AND claimed_at < ?2 ORDER BY claimed_at, id"
            ))
            .map_err(|e| self.err(e))?;
        let rows = stmt.query_map(params![from, to], badge).map_err(|e| self.err(e))?;
        rows.collect::<Result<_, _>>().map_err(|e| self.err(e))
    }

    /// Adds (or, with a newer message, updates) a watchlist entry; the same message again answers
    /// the entry and changes nothing. A new entry's digest baseline is `score` (the watched
    /// wallet's score now); an update keeps the baseline.
    ///
    /// # Errors
    /// SQLite failures.
    pub fn add_watch(&self, w: &NewWatch, score: Option<u8>, now: i64) -> Result<Written, StoreError> {
        let mut conn = self.lock();
        let tx = conn.transaction().map_err(|e| self.err(e))?;
        let seen: Option<i64> = tx
            .query_row("SELECT id FROM watchlist WHERE message_hash = ?1", [&w.signed.message_hash], |r| r.get("id"))
            .optional()
            .map_err(|e| self.err(e))?;
        if let Some(id) = seen {
            return Ok(Written { id, created: false });
        }
        let s = &w.signed;
        let changed = tx.execute(
            &format!(
                "INSERT INTO watchlist (subscriber, watched, label, threshold_delta, added_at, last_score, webhook_url, {SIGNED_COLUMNS})
                 VALUES (?1, ?2, ?3, ?4, ?5, ?11, ?12, ?6, ?7, ?8, ?9, ?10)
                 ON CONFLICT (subscriber, watched) DO UPDATE SET
                   label = excluded.label, threshold_delta = excluded.threshold_delta, added_at = excluded.added_at,
                   webhook_url = excluded.webhook_url,
                   message = excluded.message, message_hash = excluded.message_hash, signature = excluded.signature,
                   signer_kind = excluded.signer_kind, signed_at = excluded.signed_at
                 WHERE excluded.signed_at > watchlist.signed_at"
            ),
            params![
                w.subscriber,
                w.watched,
                w.label,
                w.threshold_delta,
                now,
                s.message,
                s.message_hash,
                s.signature,
                s.signer_kind.as_str(),
                s.signed_at,
                score,
                w.webhook_url
            ],
        )
        .map_err(|e| self.err(e))?;
        let id = tx
            .query_row(
                "SELECT id FROM watchlist WHERE subscriber = ?1 AND watched = ?2",
                [&w.subscriber, &w.watched],
                |r| r.get("id"),
            )
            .map_err(|e| self.err(e))?;
        tx.commit().map_err(|e| self.err(e))?;
        Ok(Written { id, created: changed == 1 })
    }

    /// A subscriber's watchlist, oldest entry first.
    ///
    /// # Errors
    /// SQLite failures.
    pub fn watchlist_of(&self, subscriber: &str) -> Result<Vec<WatchRecord>, StoreError> {
        let conn = self.lock();
        let mut stmt = conn
            .prepare_cached(&format!(
                "SELECT {WATCH_COLUMNS}, {SIGNED_COLUMNS} FROM watchlist WHERE subscriber = ?1 ORDER BY id"
            ))
            .map_err(|e| self.err(e))?;
        let rows = stmt.query_map([subscriber], watch).map_err(|e| self.err(e))?;
        rows.collect::<Result<_, _>>().map_err(|e| self.err(e))
    }
}

#[cfg(test)]
pub(crate) mod tests {
    use super::*;

    pub(crate) fn signed_by(message: &str, at: i64) -> Signed {
        use sha2::Digest;
        Signed {
            message: message.to_owned(),
            message_hash: hex::encode(sha2::Sha256::digest(message.as_bytes())),
            signature: "0x00".to_owned(),
            signer_kind: SignerKind::Eoa,
            signed_at: at,
        }
    }

    fn receipt(message: &str, rating: Option<u8>, latency: Option<u64>, success: bool) -> NewReceipt {
        NewReceipt {
            buyer: "0xb".into(),
            agent: "0xa".into(),
            success,
            tx_hash: None,
            latency_ms: latency,
            rating,
            comment: None,
            signed: signed_by(message, 1),
        }
    }

    #[test]
    fn a_receipt_is_kept_once_and_summarised() {
        let store = Store::in_memory().unwrap();
        let first = store.add_receipt(&receipt("one", Some(80), Some(100), true), 10).unwrap();
        let again = store.add_receipt(&receipt("one", Some(10), None, false), 11).unwrap();
        assert_eq!((first.id, first.created, again.id, again.created), (first.id, true, first.id, false));
        store.add_receipt(&receipt("two", Some(40), None, false), 12).unwrap();
        let summary = store.receipt_summary("0xa").unwrap();
        assert_eq!(
            (summary.total, summary.successes, summary.avg_rating, summary.avg_latency_ms),
            (2, 1, Some(60.0), Some(100.0))
        );
        let listed = store.receipts_for("0xa", 10).unwrap();
        assert_eq!(listed.iter().map(|r| r.receipt.rating).collect::<Vec<_>>(), vec![Some(40), Some(80)]);
        assert_eq!(store.receipts_between(12, 13).unwrap().len(), 1);
    }

    #[test]
    fn receipts_written_at_once_are_each_committed_once() {
        let dir = tempfile::tempdir().unwrap();
        let store = std::sync::Arc::new(Store::open(&dir.path().join("s.sqlite")).unwrap());
        let ids: Vec<Vec<(i64, bool)>> = std::thread::scope(|s| {
            let writers: Vec<_> = (0..8)
                .map(|t| {
                    let store = store.clone();
                    s.spawn(move || {
                        (0..50)
                            .map(|i| {
                                // Every thread also posts the one message all of them share.
                                let message = if i == 0 { "shared".to_owned() } else { format!("{t}-{i}") };
                                let w = store.add_receipt(&receipt(&message, Some(50), None, true), 10).unwrap();
                                (w.id, w.created)
                            })
                            .collect()
                    })
                })
                .collect();
            writers.into_iter().map(|w| w.join().unwrap()).collect()
        });
        let shared: std::collections::BTreeSet<(i64, bool)> = ids.iter().map(|t| t[0]).collect();
        assert_eq!(shared.iter().map(|(id, _)| id).collect::<std::collections::BTreeSet<_>>().len(), 1);
        assert_eq!(shared.iter().filter(|(_, created)| *created).count(), 1, "one of them created it");
        let all: std::collections::BTreeSet<i64> = ids.iter().flatten().map(|(id, _)| *id).collect();
        assert_eq!(all.len(), 8 * 49 + 1);
        drop(store);
        let reopened = Store::open(&dir.path().join("s.sqlite")).unwrap();
        assert_eq!(reopened.receipt_summary("0xa").unwrap().total, 8 * 49 + 1, "all committed");
    }

    #[test]
    fn a_watch_is_updated_only_by_a_newer_message() {
        let store = Store::in_memory().unwrap();
        let w = |message: &str, at: i64, label: &str| NewWatch {
            subscriber: "0xs".into(),
            watched: "0xw".into(),
            label: Some(label.into()),
            threshold_delta: 5,
            webhook_url: None,
            signed: signed_by(message, at),
        };
        let a = store.add_watch(&w("m1", 100, "first"), None, 1).unwrap();
        assert!(a.created);
        assert!(!store.add_watch(&w("m1", 100, "first"), None, 2).unwrap().created, "the same message changes nothing");
        store.add_watch(&w("m0", 50, "older"), None, 3).unwrap();
        assert_eq!(store.watchlist_of("0xs").unwrap()[0].watch.label.as_deref(), Some("first"));
        store.add_watch(&w("m2", 200, "newer"), None, 4).unwrap();
        let list = store.watchlist_of("0xs").unwrap();
        assert_eq!((list.len(), list[0].id, list[0].watch.label.as_deref()), (1, a.id, Some("newer")));
    }

    #[test]
    fn badges_list_each_wallet_once() {
        let store = Store::in_memory().unwrap();
        store.add_badge_claim("0xa", &signed_by("a1", 1), 1).unwrap();
        store.add_badge_claim("0xa", &signed_by("a2", 2), 2).unwrap();
        store.add_badge_claim("0xb", &signed_by("b1", 3), 3).unwrap();
        let claims = store.badge_claims(10).unwrap();
        assert_eq!(claims.iter().map(|c| c.address.as_str()).collect::<Vec<_>>(), vec!["0xb", "0xa"]);
    }
}
