//! The payment ledger. Each authorization a paid route accepts is one row, keyed by
//! (payer, nonce), moving through:
//!
//! ```text
//! claim ─► reserved ─► (answer produced) ─► settling ─► settled
//!              │                               ├──────► failed    (refused: nothing charged)
//!              │                               └──────► unknown   (timed out: reconciled later)
//!              └─► released  (the answer failed: nothing was submitted; the payment may be retried)
//! ```
//!
//! A claim is atomic (one `BEGIN IMMEDIATE` transaction), so N concurrent requests carrying one
//! payment give one `reserved` row and N−1 [`Claim::Existing`]. Each transition commits before
//! the caller answers, so a paid 200 is never sent for a payment the file does not hold.

use rusqlite::{OptionalExtension, Row, TransactionBehavior, params};
use serde::Serialize;

use crate::{Store, StoreError};

/// Where a payment is in its life.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum PaymentState {
    /// Claimed; its answer is being produced. Nothing submitted.
    Reserved,
    /// Answer produced and kept; settlement submitted or about to be.
    Settling,
    /// Settled on chain (`tx_hash`).
    Settled,
    /// Settlement refused (the buyer was answered 402; nothing charged).
    Failed,
    /// Settlement outcome unknown (a timeout after submission); reconciled against the chain.
    Unknown,
    /// The answer could not be produced; nothing was submitted and the payment may be used again.
    Released,
}

impl PaymentState {
    /// Its name in the file.
    pub fn as_str(self) -> &'static str {
        match self {
            PaymentState::Reserved => "reserved",
            PaymentState::Settling => "settling",
            PaymentState::Settled => "settled",
            PaymentState::Failed => "failed",
            PaymentState::Unknown => "unknown",
            PaymentState::Released => "released",
        }
    }

    fn parse(text: &str) -> Option<Self> {
        Some(match text {
            "reserved" => PaymentState::Reserved,
            "settling" => PaymentState::Settling,
            "settled" => PaymentState::Settled,
            "failed" => PaymentState::Failed,
            "unknown" => PaymentState::Unknown,
            "released" => PaymentState::Released,
            _ => return None,
        })
    }

    /// Whether the payment may still move (not settled, failed or released).
    pub fn is_open(self) -> bool {
        matches!(self, PaymentState::Reserved | PaymentState::Settling | PaymentState::Unknown)
    }
}

/// What a verified payment claims.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PaymentClaim {
    /// Payer, 0x-lowercase.
    pub payer: String,
    /// Authorization nonce, 0x-lowercase.
    pub nonce: String,
    /// 1 or 2.
    pub x402_version: u8,
    /// Network as the buyer named it.
    pub network: String,
    /// Asset.
    pub asset: String,
    /// Recipient.
    pub pay_to: String,
    /// Authorised value, atomic units, decimal.
    pub value: String,
    /// Price of the route, atomic units.
    pub price: u64,
    /// Route template.
    pub route: String,
    /// URL paid for.
    pub resource: String,
    /// SHA-256 of the decoded payload, hex.
    pub payload_digest: String,
    /// The x402 `payment-identifier`, if sent.
    pub payment_id: Option<String>,
    /// Unix seconds.
    pub valid_before: i64,
}

/// A paid answer as it was sent, kept so a retry of the same payment gets it again.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct StoredAnswer {
    /// HTTP status (200).
    pub status: u16,
    /// Content type.
    pub content_type: String,
    /// Body.
    pub body: Vec<u8>,
}

/// One row.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PaymentRecord {
    /// Row id.
    pub id: i64,
    /// Payer.
    pub payer: String,
    /// Nonce.
    pub nonce: String,
    /// 1 or 2.
    pub x402_version: u8,
    /// Network as named by the buyer.
    pub network: String,
    /// Recipient.
    pub pay_to: String,
    /// Authorised value.
    pub value: String,
    /// Price.
    pub price: u64,
    /// Route template.
    pub route: String,
    /// URL.
    pub resource: String,
    /// Payload digest.
    pub payload_digest: String,
    /// `payment-identifier`.
    pub payment_id: Option<String>,
    /// Unix seconds.
    pub valid_before: i64,
    /// State.
    pub state: PaymentState,
    /// Settlement transaction.
    pub tx_hash: Option<String>,
    /// Why it failed, was released or is unknown.
    pub error: Option<String>,
    /// The answer, once produced.
    pub answer: Option<StoredAnswer>,
    /// The settlement response sent with the answer (JSON).
    pub settlement: Option<String>,
    /// Unix seconds.
    pub created_at: i64,
    /// Unix seconds.
    pub updated_at: i64,
}

/// The outcome of a claim.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Claim {
    /// This request holds the payment (row id): produce the answer.
    New(i64),
    /// The payment was claimed before (replay, concurrent duplicate, or a retry of the same
    /// `payment-identifier` with the same payload).
    Existing(Box<PaymentRecord>),
    /// The `payment-identifier` was used before with a different payload.
    IdReused(Box<PaymentRecord>),
}

/// How a settlement ended.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Settlement {
    /// Mined, with the transfer and the authorization's use in its logs.
    Settled {
        /// Transaction hash.
        tx_hash: String,
    },
    /// Refused; nothing charged.
    Failed {
        /// x402 error reason.
        reason: String,
    },
    /// Outcome unknown (timeout after submission).
    Unknown {
        /// The transaction, if one was broadcast.
        tx_hash: Option<String>,
        /// What happened.
        reason: String,
    },
}

/// Revenue by route.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct RouteRevenue {
    /// Route template.
    pub route: String,
    /// Settled payments.
    pub payments: u64,
    /// Atomic units settled.
    pub amount: u64,
}

/// Totals of the ledger.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Default)]
#[serde(rename_all = "camelCase")]
pub struct RevenueTotals {
    /// Settled payments.
    pub settled: u64,
    /// Atomic units settled.
    pub settled_amount: u64,
    /// Distinct payers with a settled payment.
    pub buyers: u64,
    /// Payments whose settlement was refused.
    pub failed: u64,
    /// Payments whose settlement is not known yet.
    pub unknown: u64,
    /// Payments released unanswered.
    pub released: u64,
    /// Per route, largest first.
    pub routes: Vec<RouteRevenue>,
}

const COLUMNS: &str = "id, payer, nonce, x402_version, network, value, price, route, resource, payload_digest, \
     payment_id, valid_before, state, tx_hash, error, answer_status, answer_type, answer_body, settlement, \
     created_at, updated_at, pay_to";

impl Store {
    /// Claims a verified payment for one answer. Atomic: of N concurrent claims of one
    /// (payer, nonce), one is [`Claim::New`].
    ///
    /// A released payment (its answer failed, nothing submitted) is claimed again. With a
    /// `payment-identifier`, the identifier is looked up first: the same payload gets the earlier
    /// row back, another payload [`Claim::IdReused`].
    ///
    /// # Errors
    /// SQLite failures; the claim is then not made.
    pub fn claim(&self, c: &PaymentClaim, now: i64) -> Result<Claim, StoreError> {
        let mut conn = self.lock();
        let tx = conn.transaction_with_behavior(TransactionBehavior::Immediate).map_err(|e| self.err(e))?;
        let by_id = match &c.payment_id {
            Some(pid) => tx
                .query_row(&format!("SELECT {COLUMNS} FROM payments WHERE payment_id = ?1"), [pid], record)
                .optional()
                .map_err(|e| self.err(e))?,
            None => None,
        };
        if let Some(rec) = &by_id
            && rec.payload_digest != c.payload_digest
        {
            return Ok(Claim::IdReused(Box::new(rec.clone())));
        }
        let existing = match by_id {
            Some(rec) => Some(rec),
            None => tx
                .query_row(
                    &format!("SELECT {COLUMNS} FROM payments WHERE payer = ?1 AND nonce = ?2"),
                    params![c.payer, c.nonce],
                    record,
                )
                .optional()
                .map_err(|e| self.err(e))?,
        };
        let id = match existing {
            Some(rec) if rec.state != PaymentState::Released => return Ok(Claim::Existing(Box::new(rec))),
            Some(rec) => {
                tx.execute(
                    "UPDATE payments SET x402_version = ?2, network = ?3, asset = ?4, pay_to = ?5, value = ?6, \
                     price = ?7, route = ?8, resource = ?9, payload_digest = ?10, payment_id = ?11, \
                     valid_before = ?12, state = 'reserved', error = NULL, updated_at = ?13 WHERE id = ?1",
                    params![
                        rec.id,
                        c.x402_version,
                        c.network,
                        c.asset,
                        c.pay_to,
                        c.value,
                        c.price as i64,
                        c.route,
                        c.resource,
                        c.payload_digest,
                        c.payment_id,
                        c.valid_before,
                        now
                    ],
                )
                .map_err(|e| self.err(e))?;
                rec.id
            }
            None => {
                tx.execute(
                    "INSERT INTO payments (payer, nonce, x402_version, network, asset, pay_to, value, price, route, \
                     resource, payload_digest, payment_id, valid_before, state, created_at, updated_at) \
                     VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11, ?12, ?13, 'reserved', ?14, ?14)",
                    params![
                        c.payer,
                        c.nonce,
                        c.x402_version,
                        c.network,
                        c.asset,
                        c.pay_to,
                        c.value,
                        c.price as i64,
                        c.route,
                        c.resource,
                        c.payload_digest,
                        c.payment_id,
                        c.valid_before,
                        now
                    ],
                )
                .map_err(|e| self.err(e))?;
                tx.last_insert_rowid()
            }
        };
        tx.commit().map_err(|e| self.err(e))?;
        Ok(Claim::New(id))
    }

    /// The answer could not be produced: nothing is submitted, and the payment may be used again.
    ///
    /// # Errors
    /// SQLite failures, or a row that is not `reserved`.
    pub fn release(&self, id: i64, reason: &str, now: i64) -> Result<(), StoreError> {
        self.transition(
            id,
            PaymentState::Reserved,
            "state = 'released', error = ?2, updated_at = ?3",
            params![id, reason, now],
        )
    }

    /// Keeps the produced answer and marks the payment as being settled. Committed before
    /// anything is submitted, so a crash from here on is reconciled, never re-answered for free.
    ///
    /// # Errors
    /// SQLite failures, or a row that is not `reserved`.
    pub fn begin_settlement(&self, id: i64, answer: &StoredAnswer, now: i64) -> Result<(), StoreError> {
        self.transition(
            id,
            PaymentState::Reserved,
            "state = 'settling', answer_status = ?2, answer_type = ?3, answer_body = ?4, updated_at = ?5",
            params![id, answer.status, answer.content_type, answer.body, now],
        )
    }

    /// Records the transaction a settlement broadcast, before waiting for its receipt.
    ///
    /// # Errors
    /// SQLite failures, or a row that is not `settling`.
    pub fn record_broadcast(&self, id: i64, tx_hash: &str, now: i64) -> Result<(), StoreError> {
        self.transition(id, PaymentState::Settling, "tx_hash = ?2, updated_at = ?3", params![id, tx_hash, now])
    }

    /// Records how a settlement ended and the settlement response sent to the buyer. From
    /// `settling`, or from `unknown` when reconciliation learns the outcome.
    ///
    /// # Errors
    /// SQLite failures, or a row that is not `settling` or `unknown`.
    pub fn finish_settlement(
        &self,
        id: i64,
        outcome: &Settlement,
        settlement_json: Option<&str>,
        now: i64,
    ) -> Result<(), StoreError> {
        let (state, tx_hash, error) = match outcome {
            Settlement::Settled { tx_hash } => (PaymentState::Settled, Some(tx_hash.as_str()), None),
            Settlement::Failed { reason } => (PaymentState::Failed, None, Some(reason.as_str())),
            Settlement::Unknown { tx_hash, reason } => {
                (PaymentState::Unknown, tx_hash.as_deref(), Some(reason.as_str()))
            }
        };
        let conn = self.lock();
        let changed = conn
            .execute(
                "UPDATE payments SET state = ?2, tx_hash = COALESCE(?3, tx_hash), error = ?4, \
                 settlement = COALESCE(?5, settlement), updated_at = ?6 \
                 WHERE id = ?1 AND state IN ('settling', 'unknown')",
                params![id, state.as_str(), tx_hash, error, settlement_json, now],
            )
            .map_err(|e| self.err(e))?;
        if changed == 1 { Ok(()) } else { Err(self.not_in_state(id, "settling or unknown")) }
    }

    /// The payment a `payment-identifier` names.
    ///
    /// # Errors
    /// SQLite failures.
    pub fn payment_by_identifier(&self, payment_id: &str) -> Result<Option<PaymentRecord>, StoreError> {
        let conn = self.lock();
        conn.query_row(&format!("SELECT {COLUMNS} FROM payments WHERE payment_id = ?1"), [payment_id], record)
            .optional()
            .map_err(|e| self.err(e))
    }

    /// A payment by row id.
    ///
    /// # Errors
    /// SQLite failures.
    pub fn payment(&self, id: i64) -> Result<Option<PaymentRecord>, StoreError> {
        let conn = self.lock();
        conn.query_row(&format!("SELECT {COLUMNS} FROM payments WHERE id = ?1"), [id], record)
            .optional()
            .map_err(|e| self.err(e))
    }

    /// Payments whose outcome is still open (`reserved`, `settling`, `unknown`), oldest first.
    ///
    /// # Errors
    /// SQLite failures.
    pub fn open_payments(&self) -> Result<Vec<PaymentRecord>, StoreError> {
        let conn = self.lock();
        let mut stmt = conn
            .prepare(&format!(
                "SELECT {COLUMNS} FROM payments WHERE state IN ('reserved', 'settling', 'unknown') ORDER BY id"
            ))
            .map_err(|e| self.err(e))?;
        stmt.query_map([], record).and_then(Iterator::collect).map_err(|e| self.err(e))
    }

    /// Payments still `reserved` were being answered when the process stopped: nothing was
    /// submitted for them, so they are released. Returns how many.
    ///
    /// # Errors
    /// SQLite failures.
    pub fn release_interrupted(&self, now: i64) -> Result<usize, StoreError> {
        let conn = self.lock();
        conn.execute(
            "UPDATE payments SET state = 'released', error = 'interrupted before settlement', updated_at = ?1 \
             WHERE state = 'reserved'",
            [now],
        )
        .map_err(|e| self.err(e))
    }

    /// Revenue and outcome counts.
    ///
    /// # Errors
    /// SQLite failures.
    pub fn revenue(&self) -> Result<RevenueTotals, StoreError> {
        let conn = self.lock();
        let mut totals = conn
            .query_row(
                "SELECT \
                   COUNT(*) FILTER (WHERE state = 'settled') AS settled, \
                   COALESCE(SUM(price) FILTER (WHERE state = 'settled'), 0) AS settled_amount, \
                   COUNT(DISTINCT payer) FILTER (WHERE state = 'settled') AS buyers, \
                   COUNT(*) FILTER (WHERE state = 'failed') AS failed, \
                   COUNT(*) FILTER (WHERE state = 'unknown') AS unknown, \
                   COUNT(*) FILTER (WHERE state = 'released') AS released \
                 FROM payments",
                [],
                |r| {
                    Ok(RevenueTotals {
                        settled: r.get::<_, i64>("settled")? as u64,
                        settled_amount: r.get::<_, i64>("settled_amount")? as u64,
                        buyers: r.get::<_, i64>("buyers")? as u64,
                        failed: r.get::<_, i64>("failed")? as u64,
                        unknown: r.get::<_, i64>("unknown")? as u64,
                        released: r.get::<_, i64>("released")? as u64,
                        routes: Vec::new(),
                    })
                },
            )
            .map_err(|e| self.err(e))?;
        let mut stmt = conn
            .prepare(
                "SELECT route, COUNT(*) AS payment_count, SUM(price) AS amount FROM payments WHERE state = 'settled' \
                 GROUP BY route ORDER BY SUM(price) DESC, route",
            )
            .map_err(|e| self.err(e))?;
        totals.routes = stmt
            .query_map([], |r| {
                Ok(RouteRevenue {
                    route: r.get("route")?,
                    payments: r.get::<_, i64>("payment_count")? as u64,
                    amount: r.get::<_, i64>("amount")? as u64,
                })
            })
            .and_then(Iterator::collect)
            .map_err(|e| self.err(e))?;
        Ok(totals)
    }

    /// Distinct payers with a payment settled since `since` (Unix seconds).
    ///
    /// # Errors
    /// SQLite failures.
    pub fn buyers_since(&self, since: i64) -> Result<u64, StoreError> {
        let conn = self.lock();
        conn.query_row(
            "SELECT COUNT(DISTINCT payer) AS buyers FROM payments WHERE state = 'settled' AND updated_at >= ?1",
            [since],
            |r| r.get::<_, i64>("buyers"),
        )
        .map(|n| n as u64)
        .map_err(|e| self.err(e))
    }

    fn transition(
        &self,
        id: i64,
        from: PaymentState,
        set: &str,
        params: impl rusqlite::Params,
    ) -> Result<(), StoreError> {
        let conn = self.lock();
        let sql = format!("UPDATE payments SET {set} WHERE id = ?1 AND state = '{}'", from.as_str());
        let changed = conn.execute(&sql, params).map_err(|e| self.err(e))?;
        if changed == 1 { Ok(()) } else { Err(self.not_in_state(id, from.as_str())) }
    }

    fn not_in_state(&self, id: i64, expected: &str) -> StoreError {
        StoreError::Corrupt {
            path: self.path.display().to_string(),
            message: format!("payment {id} is not {expected}; the transition was refused"),
        }
    }
}

fn record(r: &Row<'_>) -> rusqlite::Result<PaymentRecord> {
    let state: String = r.get("state")?;
    let Some(state) = PaymentState::parse(&state) else {
        return Err(rusqlite::Error::FromSqlConversionFailure(
            r.as_ref().column_index("state")?,
            rusqlite::types::Type::Text,
            format!("state {state}").into(),
        ));
    };
    let answer = match (
        r.get::<_, Option<u16>>("answer_status")?,
        r.get::<_, Option<String>>("answer_type")?,
        r.get::<_, Option<Vec<u8>>>("answer_body")?,
    ) {
        (Some(status), Some(content_type), Some(body)) => Some(StoredAnswer { status, content_type, body }),
        _ => None,
    };
    Ok(PaymentRecord {
        id: r.get("id")?,
        payer: r.get("payer")?,
        nonce: r.get("nonce")?,
        x402_version: r.get("x402_version")?,
        network: r.get("network")?,
        pay_to: r.get("pay_to")?,
        value: r.get("value")?,
        price: r.get::<_, i64>("price")? as u64,
        route: r.get("route")?,
        resource: r.get("resource")?,
        payload_digest: r.get("payload_digest")?,
        payment_id: r.get("payment_id")?,
        valid_before: r.get("valid_before")?,
        state,
        tx_hash: r.get("tx_hash")?,
        error: r.get("error")?,
        answer,
        settlement: r.get("settlement")?,
        created_at: r.get("created_at")?,
        updated_at: r.get("updated_at")?,
    })
}

#[cfg(test)]
pub(crate) mod tests {
    use std::sync::Arc;

    use super::*;

    /// A payment row (nonce `nonce`) that is settled, or still reserved; its id.
    pub(crate) fn settled_payment(store: &Store, nonce: &str, settled: bool) -> i64 {
        let Claim::New(id) = store.claim(&claim(nonce), 1).unwrap() else { panic!("a new claim") };
        if settled {
            store.begin_settlement(id, &answer(), 2).unwrap();
            store.finish_settlement(id, &Settlement::Settled { tx_hash: "0xt".into() }, None, 3).unwrap();
        }
        id
    }

    fn claim(nonce: &str) -> PaymentClaim {
        PaymentClaim {
            payer: "0x00000000000000000000000000000000000000aa".to_owned(),
            nonce: nonce.to_owned(),
            x402_version: 2,
            network: "eip155:8453".to_owned(),
            asset: "0x833589fcd6edb6e08f4c7c32d4f71b54bda02913".to_owned(),
            pay_to: "0x00000000000000000000000000000000000000bb".to_owned(),
            value: "250000".to_owned(),
            price: 250_000,
            route: "/audit/{agentAddress}".to_owned(),
            resource: "http://127.0.0.1/api/agent/audit/0x01".to_owned(),
            payload_digest: format!("digest-{nonce}"),
            payment_id: None,
            valid_before: 2_000_000_000,
        }
    }

    fn answer() -> StoredAnswer {
        StoredAnswer { status: 200, content_type: "application/json".to_owned(), body: b"{\"ok\":true}".to_vec() }
    }

    #[test]
    fn concurrent_claims_of_one_payment_give_one_holder() {
        let dir = tempfile::tempdir().unwrap();
        let store = Arc::new(Store::open(&dir.path().join("s.sqlite")).unwrap());
        let handles: Vec<_> = (0..16)
            .map(|_| {
                let store = store.clone();
                std::thread::spawn(move || store.claim(&claim("0x01"), 1).unwrap())
            })
            .collect();
        let claims: Vec<Claim> = handles.into_iter().map(|h| h.join().unwrap()).collect();
        assert_eq!(claims.iter().filter(|c| matches!(c, Claim::New(_))).count(), 1);
        assert_eq!(claims.iter().filter(|c| matches!(c, Claim::Existing(_))).count(), 15);
    }

    #[test]
    fn a_payment_moves_through_its_states_and_survives_reopening() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("s.sqlite");
        let store = Store::open(&path).unwrap();
        let Claim::New(id) = store.claim(&claim("0x02"), 10).unwrap() else { panic!() };
        assert!(store.record_broadcast(id, "0xabc", 11).is_err(), "not settling yet");
        store.begin_settlement(id, &answer(), 11).unwrap();
        store.record_broadcast(id, "0xabc", 12).unwrap();
        store.finish_settlement(id, &Settlement::Settled { tx_hash: "0xabc".to_owned() }, Some("{}"), 13).unwrap();
        assert!(store.finish_settlement(id, &Settlement::Failed { reason: "x".to_owned() }, None, 14).is_err());
        drop(store);
        let store = Store::open(&path).unwrap();
        let rec = store.payment(id).unwrap().unwrap();
        assert_eq!(
            (rec.state, rec.tx_hash.as_deref(), rec.answer),
            (PaymentState::Settled, Some("0xabc"), Some(answer()))
        );
        let Claim::Existing(again) = store.claim(&claim("0x02"), 20).unwrap() else { panic!("a replay is refused") };
        assert_eq!(again.state, PaymentState::Settled);
        let revenue = store.revenue().unwrap();
        assert_eq!((revenue.settled, revenue.settled_amount, revenue.buyers), (1, 250_000, 1));
        assert_eq!(revenue.routes[0].route, "/audit/{agentAddress}");
        assert_eq!((store.buyers_since(0).unwrap(), store.buyers_since(14).unwrap()), (1, 0));
    }

    #[test]
    fn a_released_payment_can_be_claimed_again_and_interrupted_ones_are_released() {
        let store = Store::in_memory().unwrap();
        let Claim::New(id) = store.claim(&claim("0x03"), 1).unwrap() else { panic!() };
        store.release(id, "answer failed", 2).unwrap();
        assert_eq!(store.claim(&claim("0x03"), 3).unwrap(), Claim::New(id));
        let Claim::New(other) = store.claim(&claim("0x04"), 3).unwrap() else { panic!() };
        store.begin_settlement(other, &answer(), 4).unwrap();
        assert_eq!(store.release_interrupted(5).unwrap(), 1, "only the reserved one");
        assert_eq!(store.payment(id).unwrap().unwrap().state, PaymentState::Released);
        let open: Vec<i64> = store.open_payments().unwrap().iter().map(|r| r.id).collect();
        assert_eq!(open, vec![other]);
        store
            .finish_settlement(other, &Settlement::Unknown { tx_hash: None, reason: "timeout".to_owned() }, None, 6)
            .unwrap();
        store.finish_settlement(other, &Settlement::Settled { tx_hash: "0x1".to_owned() }, None, 7).unwrap();
        assert_eq!(store.payment(other).unwrap().unwrap().state, PaymentState::Settled);
    }

    #[test]
    fn a_payment_identifier_binds_one_payload() {
        let store = Store::in_memory().unwrap();
        let mut first = claim("0x05");
        first.payment_id = Some("order_0001_abcdefgh".to_owned());
        let Claim::New(id) = store.claim(&first, 1).unwrap() else { panic!() };
        let Claim::Existing(same) = store.claim(&first, 2).unwrap() else { panic!() };
        assert_eq!(same.id, id);
        let mut other = claim("0x06");
        other.payment_id = first.payment_id.clone();
        assert!(matches!(store.claim(&other, 3).unwrap(), Claim::IdReused(_)));
    }
}
