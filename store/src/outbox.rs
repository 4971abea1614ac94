//! The delivery outbox: every webhook call the server owes, enqueued in the same transaction as the
//! state change it reports, then leased by a delivery worker, retried with backoff and either
//! delivered or dead-lettered. A delivery keeps its `webhook-id` on every attempt, so a receiver
//! that saw it before can drop the copy (at least once, idempotent by id).

use rusqlite::{Row, Transaction, params};

use crate::{Store, StoreError};

/// Where a delivery stands.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum DeliveryState {
    /// Waiting for its next attempt.
    Pending,
    /// A receiver answered 2xx.
    Delivered,
    /// Every attempt failed: kept for its subscriber to see, never sent again.
    Dead,
}

impl DeliveryState {
    /// The stored name.
    pub fn as_str(self) -> &'static str {
        match self {
            DeliveryState::Pending => "pending",
            DeliveryState::Delivered => "delivered",
            DeliveryState::Dead => "dead",
        }
    }

    fn parse(s: &str) -> Self {
        match s {
            "delivered" => DeliveryState::Delivered,
            "dead" => DeliveryState::Dead,
            _ => DeliveryState::Pending,
        }
    }
}

/// An event to deliver.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct NewDelivery {
    /// `webhook-id`: `msg_` and 32 hex digits derived from the event key.
    pub webhook_id: String,
    /// `score.changed`, `token.rugged`, `watchlist.digest`.
    pub event_type: String,
    /// What makes the event unique (source, target, snapshot): enqueued at most once.
    pub event_key: String,
    /// The subscription it is for, if any.
    pub subscription_id: Option<i64>,
    /// The paid slot it is for, if any.
    pub slot_id: Option<i64>,
    /// The receiver.
    pub url: String,
    /// The signing secret (`whsec_…`).
    pub secret: String,
    /// The JSON body.
    pub payload: String,
}

/// A delivery as stored.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Delivery {
    /// Row id.
    pub id: i64,
    /// The event.
    pub event: NewDelivery,
    /// Unix seconds.
    pub created_at: i64,
    /// Where it stands.
    pub state: DeliveryState,
    /// Attempts made.
    pub attempts: u32,
    /// The next attempt, Unix milliseconds.
    pub next_at: i64,
    /// The last answer's status.
    pub last_status: Option<u16>,
    /// The last failure, in words.
    pub last_error: Option<String>,
    /// When it was delivered, Unix seconds.
    pub delivered_at: Option<i64>,
}

const COLUMNS: &str = "id, webhook_id, event_type, event_key, subscription_id, slot_id, url, secret, payload, created_at, \
                       state, attempts, next_at, last_status, last_error, delivered_at";

fn delivery(r: &Row<'_>) -> rusqlite::Result<Delivery> {
    Ok(Delivery {
        id: r.get("id")?,
        event: NewDelivery {
            webhook_id: r.get("webhook_id")?,
            event_type: r.get("event_type")?,
            event_key: r.get("event_key")?,
            subscription_id: r.get("subscription_id")?,
            slot_id: r.get("slot_id")?,
            url: r.get("url")?,
            secret: r.get("secret")?,
            payload: r.get("payload")?,
        },
        created_at: r.get("created_at")?,
        state: DeliveryState::parse(&r.get::<_, String>("state")?),
        attempts: r.get("attempts")?,
        next_at: r.get("next_at")?,
        last_status: r.get("last_status")?,
        last_error: r.get("last_error")?,
        delivered_at: r.get("delivered_at")?,
    })
}

/// Enqueues `d` inside `tx`, due now; an event already enqueued is left as it is. Returns whether
/// it was new.
pub(crate) fn enqueue(tx: &Transaction<'_>, d: &NewDelivery, now: i64) -> rusqlite::Result<bool> {
    let mut stmt = tx.prepare_cached(
        "INSERT INTO deliveries (webhook_id, event_type, event_key, subscription_id, slot_id, url, secret, payload,
                                 created_at, state, attempts, next_at)
         VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, 'pending', 0, ?10)
         ON CONFLICT (event_key) DO NOTHING",
    )?;
    let n = stmt.execute(params![
        d.webhook_id,
        d.event_type,
        d.event_key,
        d.subscription_id,
        d.slot_id,
        d.url,
        d.secret,
        d.payload,
        now,
        now * 1000
    ])?;
    Ok(n == 1)
}

impl Store {
    /// Leases up to `limit` due deliveries for `lease_ms`: no other worker takes them until the
    /// lease ends (a worker that dies mid-delivery leaves them to be retried, same `webhook-id`).
    ///
    /// # Errors
    /// SQLite failures.
    pub fn lease_due(&self, now_ms: i64, lease_ms: i64, limit: usize) -> Result<Vec<Delivery>, StoreError> {
        let mut conn = self.lock();
        let tx = conn.transaction_with_behavior(rusqlite::TransactionBehavior::Immediate).map_err(|e| self.err(e))?;
        let due: Vec<Delivery> = {
            let mut stmt = tx
                .prepare_cached(&format!(
                    "SELECT {COLUMNS} FROM deliveries
                     WHERE state = 'pending' AND next_at <= ?1 AND (leased_until IS NULL OR leased_until <= ?1)
                     ORDER BY next_at, id LIMIT ?2"
                ))
                .map_err(|e| self.err(e))?;
            let rows = stmt.query_map(params![now_ms, limit as i64], delivery).map_err(|e| self.err(e))?;
            rows.collect::<Result<_, _>>().map_err(|e| self.err(e))?
        };
        {
            let mut lease =
                tx.prepare_cached("UPDATE deliveries SET leased_until = ?2 WHERE id = ?1").map_err(|e| self.err(e))?;
            for d in &due {
                lease.execute(params![d.id, now_ms + lease_ms]).map_err(|e| self.err(e))?;
            }
        }
        tx.commit().map_err(|e| self.err(e))?;
        Ok(due)
    }

    /// Records the outcomes of attempts in one transaction: delivered (a 2xx), retried at
    /// `next_at`, or dead (the last attempt failed).
    ///
    /// # Errors
    /// SQLite failures.
    pub fn record_attempts(&self, outcomes: &[Attempt], now: i64) -> Result<(), StoreError> {
        let mut conn = self.lock();
        let tx = conn.transaction().map_err(|e| self.err(e))?;
        {
            let mut stmt = tx
                .prepare_cached(
                    "UPDATE deliveries SET state = ?2, attempts = attempts + 1, next_at = ?3, leased_until = NULL,
                       last_status = ?4, last_error = ?5, delivered_at = CASE WHEN ?2 = 'delivered' THEN ?6 END
                     WHERE id = ?1 AND state = 'pending'",
                )
                .map_err(|e| self.err(e))?;
            for a in outcomes {
                stmt.execute(params![a.id, a.state.as_str(), a.next_at, a.status, a.error, now])
                    .map_err(|e| self.err(e))?;
            }
        }
        tx.commit().map_err(|e| self.err(e))
    }

    /// The newest deliveries of a subscription, at most `limit`.
    ///
    /// # Errors
    /// SQLite failures.
    pub fn deliveries_of(&self, subscription_id: i64, limit: usize) -> Result<Vec<Delivery>, StoreError> {
        let conn = self.lock();
        let mut stmt = conn
            .prepare_cached(&format!(
                "SELECT {COLUMNS} FROM deliveries WHERE subscription_id = ?1 ORDER BY id DESC LIMIT ?2"
            ))
            .map_err(|e| self.err(e))?;
        let rows = stmt.query_map(params![subscription_id, limit as i64], delivery).map_err(|e| self.err(e))?;
        rows.collect::<Result<_, _>>().map_err(|e| self.err(e))
    }

    /// Deliveries by state: (pending, delivered, dead).
    ///
    /// # Errors
    /// SQLite failures.
    pub fn delivery_counts(&self) -> Result<(u64, u64, u64), StoreError> {
        let conn = self.lock();
        conn.query_row(
            "SELECT coalesce(sum(state = 'pending'), 0) AS pending, coalesce(sum(state = 'delivered'), 0) AS delivered,
               coalesce(sum(state = 'dead'), 0) AS dead
             FROM deliveries",
            [],
            |r| {
                Ok((
                    r.get::<_, i64>("pending")? as u64,
                    r.get::<_, i64>("delivered")? as u64,
                    r.get::<_, i64>("dead")? as u64,
                ))
            },
        )
        .map_err(|e| self.err(e))
    }

    /// The earliest next attempt of a pending delivery, Unix milliseconds.
    ///
    /// # Errors
    /// SQLite failures.
    pub fn next_due(&self) -> Result<Option<i64>, StoreError> {
        let conn = self.lock();
        conn.query_row(
            "SELECT min(max(next_at, coalesce(leased_until, 0))) AS next_due FROM deliveries WHERE state = 'pending'",
            [],
            |r| r.get("next_due"),
        )
        .map_err(|e| self.err(e))
    }
}

/// The outcome of one attempt.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Attempt {
    /// The delivery.
    pub id: i64,
    /// Its state after the attempt.
    pub state: DeliveryState,
    /// The next attempt, Unix milliseconds (when still pending).
    pub next_at: i64,
    /// The receiver's status, if it answered.
    pub status: Option<u16>,
    /// The failure, in words.
    pub error: Option<String>,
}

#[cfg(test)]
mod tests {
    use super::*;

    fn event(key: &str) -> NewDelivery {
        NewDelivery {
            webhook_id: format!("msg_{key}"),
            event_type: "score.changed".into(),
            event_key: key.into(),
            subscription_id: None,
            slot_id: None,
            url: "https://example.com/hook".into(),
            secret: "whsec_x".into(),
            payload: "{}".into(),
        }
    }

    #[test]
    fn an_event_is_enqueued_once_and_a_lease_hides_it_until_it_ends() {
        let store = Store::in_memory().unwrap();
        {
            let mut conn = store.lock();
            let tx = conn.transaction().unwrap();
            assert!(enqueue(&tx, &event("a"), 100).unwrap());
            assert!(!enqueue(&tx, &event("a"), 101).unwrap(), "the same event twice is one delivery");
            tx.commit().unwrap();
        }
        let leased = store.lease_due(100_000, 5_000, 10).unwrap();
        assert_eq!(leased.len(), 1);
        assert!(store.lease_due(101_000, 5_000, 10).unwrap().is_empty(), "leased");
        let again = store.lease_due(105_000, 5_000, 10).unwrap();
        assert_eq!(again[0].event.webhook_id, "msg_a", "an expired lease (a dead worker) is retried with the same id");
        let fail = Attempt {
            id: again[0].id,
            state: DeliveryState::Pending,
            next_at: 200_000,
            status: Some(500),
            error: Some("500".into()),
        };
        store.record_attempts(&[fail], 105).unwrap();
        assert!(store.lease_due(150_000, 5_000, 10).unwrap().is_empty(), "backing off");
        let d = store.lease_due(200_000, 5_000, 10).unwrap().remove(0);
        assert_eq!(d.attempts, 1);
        let ok = Attempt { id: d.id, state: DeliveryState::Delivered, next_at: 0, status: Some(204), error: None };
        store.record_attempts(std::slice::from_ref(&ok), 201).unwrap();
        store.record_attempts(&[ok], 202).unwrap();
        assert_eq!(store.delivery_counts().unwrap(), (0, 1, 0));
        assert!(store.lease_due(i64::MAX / 2, 5_000, 10).unwrap().is_empty());
    }
}
