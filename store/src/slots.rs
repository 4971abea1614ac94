//! Paid slots: sponsored agents and creators, and rug-alert watches. A slot counts only once its
//! payment (a ledger row) is settled; a later slot of the same kind and address starts where the
//! last one ends. Slots are shown apart from rankings and never reach a score.

use rusqlite::{Row, params};

use crate::outbox::{NewDelivery, enqueue};
use crate::{Store, StoreError};

/// Seconds in a day.
const DAY: i64 = 86_400;

/// What a slot is for.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum SlotKind {
    /// A sponsored agent (`POST /sponsor/{agentAddress}`).
    Agent,
    /// A sponsored creator (`POST /clawd/sponsor/{creator}`).
    Creator,
    /// A rug-alert watch on a token (`POST /clawd/rug-alert/{tokenAddr}`).
    RugAlert,
}

impl SlotKind {
    /// The stored name.
    pub fn as_str(self) -> &'static str {
        match self {
            SlotKind::Agent => "agent",
            SlotKind::Creator => "creator",
            SlotKind::RugAlert => "rug-alert",
        }
    }
}

/// A slot to record.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct NewSlot {
    /// Its kind.
    pub kind: SlotKind,
    /// The agent, creator or token, 0x-lowercase.
    pub address: String,
    /// Who paid.
    pub buyer: String,
    /// The ledger row of its payment.
    pub payment_id: i64,
    /// How long it lasts.
    pub days: i64,
    /// Rug alerts: who asked, where the alert goes, and its signing secret.
    pub alert: Option<AlertTarget>,
}

/// Where a rug alert goes.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct AlertTarget {
    /// Who asked.
    pub subscriber: String,
    /// The receiver.
    pub url: String,
    /// The signing secret (`whsec_…`).
    pub secret: String,
}

/// A recorded slot.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Slot {
    /// Its id.
    pub id: i64,
    /// What it is for.
    pub address: String,
    /// Who paid.
    pub buyer: String,
    /// Unix seconds.
    pub starts_at: i64,
    /// Unix seconds.
    pub ends_at: i64,
    /// Rug alerts: the target.
    pub alert: Option<AlertTarget>,
    /// Rug alerts: when it fired.
    pub alerted_at: Option<i64>,
}

/// Aliased: SQLite leaves the name of an unaliased `s.column` unspecified, and [`slot`] reads by name.
const COLUMNS: &str = "s.id AS id, s.address AS address, s.buyer AS buyer, s.starts_at AS starts_at, s.ends_at AS ends_at, \
                       s.subscriber AS subscriber, s.url AS url, s.secret AS secret, s.alerted_at AS alerted_at";

fn slot(r: &Row<'_>) -> rusqlite::Result<Slot> {
    let (subscriber, url, secret): (Option<String>, Option<String>, Option<String>) =
        (r.get("subscriber")?, r.get("url")?, r.get("secret")?);
    Ok(Slot {
        id: r.get("id")?,
        address: r.get("address")?,
        buyer: r.get("buyer")?,
        starts_at: r.get("starts_at")?,
        ends_at: r.get("ends_at")?,
        alert: match (subscriber, url, secret) {
            (Some(subscriber), Some(url), Some(secret)) => Some(AlertTarget { subscriber, url, secret }),
            _ => None,
        },
        alerted_at: r.get("alerted_at")?,
    })
}

impl Store {
    /// Records a slot for a payment (one slot per payment: recorded again, it answers the first).
    /// A sponsored slot starts now or where the address's last settled slot of its kind ends (one
    /// sponsor at a time); a rug alert starts now (each buyer's watch is its own).
    ///
    /// # Errors
    /// SQLite failures.
    pub fn add_slot(&self, s: &NewSlot, now: i64) -> Result<Slot, StoreError> {
        let mut conn = self.lock();
        let tx = conn.transaction_with_behavior(rusqlite::TransactionBehavior::Immediate).map_err(|e| self.err(e))?;
        let last_end: Option<i64> = tx
            .query_row(
                "SELECT max(s.ends_at) AS last_end FROM paid_slots s JOIN payments p ON p.id = s.payment_id AND p.state = 'settled'
                 WHERE s.kind = ?1 AND s.address = ?2",
                params![s.kind.as_str(), s.address],
                |r| r.get("last_end"),
            )
            .map_err(|e| self.err(e))?;
        let starts_at = match s.kind {
            SlotKind::RugAlert => now,
            _ => last_end.map_or(now, |end| end.max(now)),
        };
        let alert = s.alert.as_ref();
        tx.execute(
            "INSERT INTO paid_slots (kind, address, buyer, payment_id, starts_at, ends_at, subscriber, url, secret)
             VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9) ON CONFLICT (payment_id) DO NOTHING",
            params![
                s.kind.as_str(),
                s.address,
                s.buyer,
                s.payment_id,
                starts_at,
                starts_at + s.days * DAY,
                alert.map(|a| &a.subscriber),
                alert.map(|a| &a.url),
                alert.map(|a| &a.secret)
            ],
        )
        .map_err(|e| self.err(e))?;
        let row = tx
            .query_row(&format!("SELECT {COLUMNS} FROM paid_slots s WHERE s.payment_id = ?1"), [s.payment_id], slot)
            .map_err(|e| self.err(e))?;
        tx.commit().map_err(|e| self.err(e))?;
        Ok(row)
    }

    /// Slots of `kind` whose payment settled and whose period holds `now`, ending soonest first.
    ///
    /// # Errors
    /// SQLite failures.
    pub fn active_slots(&self, kind: SlotKind, now: i64) -> Result<Vec<Slot>, StoreError> {
        let conn = self.lock();
        let mut stmt = conn
            .prepare_cached(&format!(
                "SELECT {COLUMNS} FROM paid_slots s JOIN payments p ON p.id = s.payment_id AND p.state = 'settled'
                 WHERE s.kind = ?1 AND s.starts_at <= ?2 AND s.ends_at > ?2 ORDER BY s.ends_at, s.id"
            ))
            .map_err(|e| self.err(e))?;
        let rows = stmt.query_map(params![kind.as_str(), now], slot).map_err(|e| self.err(e))?;
        rows.collect::<Result<_, _>>().map_err(|e| self.err(e))
    }

    /// After a new snapshot: every active, settled rug-alert watch whose token `rugged` says is
    /// rugged fires once (`event` makes the delivery), in one transaction.
    ///
    /// # Errors
    /// SQLite failures.
    pub fn fire_rug_alerts(
        &self,
        now: i64,
        rugged: impl Fn(&str) -> bool,
        event: impl Fn(&Slot) -> NewDelivery,
    ) -> Result<u64, StoreError> {
        let mut conn = self.lock();
        let tx = conn.transaction_with_behavior(rusqlite::TransactionBehavior::Immediate).map_err(|e| self.err(e))?;
        let watches: Vec<Slot> = {
            let mut stmt = tx
                .prepare(&format!(
                    "SELECT {COLUMNS} FROM paid_slots s JOIN payments p ON p.id = s.payment_id AND p.state = 'settled'
                     WHERE s.kind = 'rug-alert' AND s.alerted_at IS NULL AND s.starts_at <= ?1 AND s.ends_at > ?1"
                ))
                .map_err(|e| self.err(e))?;
            let rows = stmt.query_map([now], slot).map_err(|e| self.err(e))?;
            rows.collect::<Result<_, _>>().map_err(|e| self.err(e))?
        };
        let mut fired = 0;
        for w in watches.iter().filter(|w| w.alert.is_some() && rugged(&w.address)) {
            enqueue(&tx, &event(w), now).map_err(|e| self.err(e))?;
            tx.execute("UPDATE paid_slots SET alerted_at = ?2 WHERE id = ?1", params![w.id, now])
                .map_err(|e| self.err(e))?;
            fired += 1;
        }
        tx.commit().map_err(|e| self.err(e))?;
        Ok(fired)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::ledger::tests::settled_payment;

    fn slot_for(store: &Store, kind: SlotKind, payment: i64, alert: bool) -> Slot {
        let alert = alert.then(|| AlertTarget {
            subscriber: "0xs".into(),
            url: "https://a.example/h".into(),
            secret: "whsec_x".into(),
        });
        store
            .add_slot(
                &NewSlot { kind, address: "0xa".into(), buyer: "0xb".into(), payment_id: payment, days: 7, alert },
                100,
            )
            .unwrap()
    }

    #[test]
    fn slots_count_once_settled_and_stack() {
        let store = Store::in_memory().unwrap();
        let first = slot_for(&store, SlotKind::Agent, settled_payment(&store, "0x01", true), false);
        let open = slot_for(&store, SlotKind::Agent, settled_payment(&store, "0x02", false), false);
        assert_eq!((first.starts_at, first.ends_at, open.starts_at), (100, 100 + 7 * DAY, first.ends_at));
        let second = slot_for(&store, SlotKind::Agent, settled_payment(&store, "0x03", true), false);
        assert_eq!(second.starts_at, first.ends_at, "a second week starts where the first ends");
        assert_eq!(store.active_slots(SlotKind::Agent, 200).unwrap().len(), 1, "the unsettled one is not shown");
        assert!(store.active_slots(SlotKind::Creator, 200).unwrap().is_empty());
    }

    #[test]
    fn a_rug_alert_fires_once() {
        let store = Store::in_memory().unwrap();
        slot_for(&store, SlotKind::RugAlert, settled_payment(&store, "0x01", true), true);
        let event = |s: &Slot| NewDelivery {
            webhook_id: format!("msg_rug_{}", s.id),
            event_type: "token.rugged".into(),
            event_key: format!("rug:{}", s.id),
            subscription_id: None,
            slot_id: Some(s.id),
            url: s.alert.as_ref().unwrap().url.clone(),
            secret: s.alert.as_ref().unwrap().secret.clone(),
            payload: "{}".into(),
        };
        assert_eq!(store.fire_rug_alerts(200, |_| false, event).unwrap(), 0);
        assert_eq!(store.fire_rug_alerts(300, |_| true, event).unwrap(), 1);
        assert_eq!(store.fire_rug_alerts(400, |_| true, event).unwrap(), 0);
        assert_eq!(store.delivery_counts().unwrap(), (1, 0, 0));
    }
}
