//! Score-change webhook subscriptions, their paid extensions, and the two events a new snapshot
//! raises for them: a score change past a subscription's threshold, and a watchlist digest. Each
//! event is enqueued in the transaction that moves the baseline it was measured from, so a restart
//! neither drops nor doubles one.

use std::collections::HashMap;

use rusqlite::{OptionalExtension, Row, params};

use crate::outbox::{NewDelivery, enqueue};
use crate::{Store, StoreError};

/// Seconds in a day.
const DAY: i64 = 86_400;

/// A subscription to create.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct NewSubscription {
    /// Who subscribes, 0x-lowercase.
    pub subscriber: String,
    /// The watched wallet, 0x-lowercase.
    pub watched: String,
    /// The receiver.
    pub url: String,
    /// The change that fires, score points.
    pub threshold_delta: u8,
    /// The signing secret (`whsec_…`).
    pub secret: String,
    /// Days of free grace.
    pub grace_days: i64,
}

/// A subscription as stored, with its paid period.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Subscription {
    /// Its id.
    pub id: i64,
    /// Who subscribed.
    pub subscriber: String,
    /// The watched wallet.
    pub watched: String,
    /// The receiver.
    pub url: String,
    /// The change that fires.
    pub threshold_delta: u8,
    /// The signing secret.
    pub secret: String,
    /// Unix seconds.
    pub created_at: i64,
    /// End of the free grace period, Unix seconds.
    pub grace_until: i64,
    /// End of the last settled paid extension, if any.
    pub paid_until: Option<i64>,
    /// The score last notified (or seen first).
    pub last_score: Option<u8>,
    /// When it was last notified, Unix seconds.
    pub last_notified_at: Option<i64>,
}

impl Subscription {
    /// Until when deliveries are made.
    pub fn active_until(&self) -> i64 {
        self.paid_until.map_or(self.grace_until, |p| p.max(self.grace_until))
    }
}

/// What subscribing did.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Subscribed {
    /// A new subscription (its secret is shown this once).
    New(Subscription),
    /// The same subscriber, wallet and URL were subscribed before: nothing changed, and the
    /// secret is not shown again.
    Existing(Subscription),
}

/// One subscription whose watched score crossed its threshold.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ScoreChange<'a> {
    /// The subscription.
    pub subscription: &'a Subscription,
    /// The score last notified.
    pub from: u8,
    /// The score now.
    pub to: u8,
}

/// One subscriber's watched wallets that moved.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Digest {
    /// The subscriber.
    pub subscriber: String,
    /// (watched, label, from, to) of every entry that moved.
    pub moved: Vec<(String, Option<String>, u8, u8)>,
}

/// What a diff did.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct DiffReport {
    /// Subscriptions read.
    pub checked: u64,
    /// Deliveries enqueued.
    pub enqueued: u64,
    /// Baselines set (first score seen).
    pub baselined: u64,
}

const COLUMNS: &str =
    "id, subscriber, watched, url, threshold_delta, secret, created_at, grace_until, last_score, last_notified_at";

fn subscription(r: &Row<'_>) -> rusqlite::Result<Subscription> {
    Ok(Subscription {
        id: r.get("id")?,
        subscriber: r.get("subscriber")?,
        watched: r.get("watched")?,
        url: r.get("url")?,
        threshold_delta: r.get("threshold_delta")?,
        secret: r.get("secret")?,
        created_at: r.get("created_at")?,
        grace_until: r.get("grace_until")?,
        paid_until: None,
        last_score: r.get("last_score")?,
        last_notified_at: r.get("last_notified_at")?,
    })
}

/// Each subscription's paid end from its settled extensions: every extension adds its days from
/// the later of its purchase and the end so far (the grace period first).
fn paid_until(conn: &rusqlite::Connection, only: Option<i64>) -> rusqlite::Result<HashMap<i64, i64>> {
    let mut stmt = conn.prepare_cached(
        "SELECT e.subscription_id AS subscription_id, s.grace_until AS grace_until, e.bought_at AS bought_at,
                e.days AS days
         FROM webhook_extensions e JOIN payments p ON p.id = e.payment_id AND p.state = 'settled'
         JOIN webhook_subscriptions s ON s.id = e.subscription_id
         WHERE ?1 IS NULL OR e.subscription_id = ?1
         ORDER BY e.subscription_id, e.bought_at, e.id",
    )?;
    let mut out: HashMap<i64, i64> = HashMap::new();
    let rows = stmt.query_map([only], |r| {
        Ok((
            r.get::<_, i64>("subscription_id")?,
            r.get::<_, i64>("grace_until")?,
            r.get::<_, i64>("bought_at")?,
            r.get::<_, i64>("days")?,
        ))
    })?;
    for row in rows {
        let (id, grace, bought, days) = row?;
        let end = out.entry(id).or_insert(grace);
        *end = (*end).max(bought) + days * DAY;
    }
    Ok(out)
}

impl Store {
    /// Subscribes; the same (subscriber, wallet, URL) again changes nothing. `score` is the
    /// watched wallet's score now: the baseline of the first change.
    ///
    /// # Errors
    /// SQLite failures.
    pub fn subscribe(&self, s: &NewSubscription, score: Option<u8>, now: i64) -> Result<Subscribed, StoreError> {
        let mut conn = self.lock();
        let tx = conn.transaction().map_err(|e| self.err(e))?;
        let inserted = tx
            .execute(
                "INSERT INTO webhook_subscriptions (subscriber, watched, url, threshold_delta, secret, created_at, grace_until, last_score)
                 VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8) ON CONFLICT (subscriber, watched, url) DO NOTHING",
                params![s.subscriber, s.watched, s.url, s.threshold_delta, s.secret, now, now + s.grace_days * DAY, score],
            )
            .map_err(|e| self.err(e))?;
        let mut row = tx
            .query_row(
                &format!(
                    "SELECT {COLUMNS} FROM webhook_subscriptions WHERE subscriber = ?1 AND watched = ?2 AND url = ?3"
                ),
                params![s.subscriber, s.watched, s.url],
                subscription,
            )
            .map_err(|e| self.err(e))?;
        row.paid_until = paid_until(&tx, Some(row.id)).map_err(|e| self.err(e))?.get(&row.id).copied();
        tx.commit().map_err(|e| self.err(e))?;
        Ok(if inserted == 1 { Subscribed::New(row) } else { Subscribed::Existing(row) })
    }

    /// A subscriber's subscriptions, oldest first.
    ///
    /// # Errors
    /// SQLite failures.
    pub fn subscriptions_of(&self, subscriber: &str) -> Result<Vec<Subscription>, StoreError> {
        let conn = self.lock();
        let mut rows: Vec<Subscription> = {
            let mut stmt = conn
                .prepare_cached(&format!(
                    "SELECT {COLUMNS} FROM webhook_subscriptions WHERE subscriber = ?1 ORDER BY id"
                ))
                .map_err(|e| self.err(e))?;
            let rows = stmt.query_map([subscriber], subscription).map_err(|e| self.err(e))?;
            rows.collect::<Result<_, _>>().map_err(|e| self.err(e))?
        };
        for row in &mut rows {
            row.paid_until = paid_until(&conn, Some(row.id)).map_err(|e| self.err(e))?.get(&row.id).copied();
        }
        Ok(rows)
    }

    /// The subscription of (subscriber, wallet, URL), if any.
    ///
    /// # Errors
    /// SQLite failures.
    pub fn find_subscription(
        &self,
        subscriber: &str,
        watched: &str,
        url: &str,
    ) -> Result<Option<Subscription>, StoreError> {
        let conn = self.lock();
        let row = conn
            .query_row(
                &format!(
                    "SELECT {COLUMNS} FROM webhook_subscriptions WHERE subscriber = ?1 AND watched = ?2 AND url = ?3"
                ),
                params![subscriber, watched, url],
                subscription,
            )
            .optional()
            .map_err(|e| self.err(e))?;
        match row {
            Some(mut row) => {
                row.paid_until = paid_until(&conn, Some(row.id)).map_err(|e| self.err(e))?.get(&row.id).copied();
                Ok(Some(row))
            }
            None => Ok(None),
        }
    }

    /// Records a paid extension of `days`; it counts once `payment_id` is settled. Returns the
    /// paid end the subscription will have then.
    ///
    /// # Errors
    /// SQLite failures.
    pub fn extend_subscription(&self, id: i64, payment_id: i64, days: i64, now: i64) -> Result<i64, StoreError> {
        let mut conn = self.lock();
        let tx = conn.transaction().map_err(|e| self.err(e))?;
        let grace: i64 = tx
            .query_row("SELECT grace_until FROM webhook_subscriptions WHERE id = ?1", [id], |r| r.get("grace_until"))
            .map_err(|e| self.err(e))?;
        let settled = paid_until(&tx, Some(id)).map_err(|e| self.err(e))?.get(&id).copied().unwrap_or(grace);
        tx.execute(
            "INSERT INTO webhook_extensions (subscription_id, payment_id, days, bought_at) VALUES (?1, ?2, ?3, ?4)
             ON CONFLICT (payment_id) DO NOTHING",
            params![id, payment_id, days, now],
        )
        .map_err(|e| self.err(e))?;
        tx.commit().map_err(|e| self.err(e))?;
        Ok(settled.max(now) + days * DAY)
    }

    /// After a new snapshot: every active subscription whose watched score moved by its threshold
    /// or more since the score last notified gets one delivery (`event`), and its baseline moves
    /// to the new score, in one transaction. A subscription with no baseline gets the score as its
    /// baseline. Run again on the same snapshot, it enqueues nothing more.
    ///
    /// # Errors
    /// SQLite failures.
    pub fn diff_subscriptions(
        &self,
        now: i64,
        score_of: impl Fn(&str) -> Option<u8>,
        event: impl Fn(&ScoreChange<'_>) -> NewDelivery,
    ) -> Result<DiffReport, StoreError> {
        let mut conn = self.lock();
        let tx = conn.transaction_with_behavior(rusqlite::TransactionBehavior::Immediate).map_err(|e| self.err(e))?;
        let paid = paid_until(&tx, None).map_err(|e| self.err(e))?;
        let mut report = DiffReport::default();
        {
            let mut select = tx
                .prepare(&format!("SELECT {COLUMNS} FROM webhook_subscriptions ORDER BY id"))
                .map_err(|e| self.err(e))?;
            let mut baseline = tx
                .prepare("UPDATE webhook_subscriptions SET last_score = ?2 WHERE id = ?1")
                .map_err(|e| self.err(e))?;
            let mut notified = tx
                .prepare("UPDATE webhook_subscriptions SET last_score = ?2, last_notified_at = ?3 WHERE id = ?1")
                .map_err(|e| self.err(e))?;
            let mut rows = select.query([]).map_err(|e| self.err(e))?;
            while let Some(row) = rows.next().map_err(|e| self.err(e))? {
                let mut s = subscription(row).map_err(|e| self.err(e))?;
                s.paid_until = paid.get(&s.id).copied();
                if s.active_until() <= now {
                    continue;
                }
                report.checked += 1;
                let Some(to) = score_of(&s.watched) else { continue };
                match s.last_score {
                    None => {
                        baseline.execute(params![s.id, to]).map_err(|e| self.err(e))?;
                        report.baselined += 1;
                    }
                    Some(from) if from.abs_diff(to) >= s.threshold_delta => {
                        let delivery = event(&ScoreChange { subscription: &s, from, to });
                        if enqueue(&tx, &delivery, now).map_err(|e| self.err(e))? {
                            report.enqueued += 1;
                        }
                        notified.execute(params![s.id, to, now]).map_err(|e| self.err(e))?;
                    }
                    Some(_) => {}
                }
            }
        }
        tx.commit().map_err(|e| self.err(e))?;
        Ok(report)
    }

    /// After a new snapshot (`snapshot`): every subscriber's watched wallets whose score moved
    /// since the last digest; each entry's baseline moves, and when the subscriber has an active
    /// webhook, `event` makes the digest's delivery (to its newest active subscription), all in
    /// one transaction. Entries already digested for `snapshot` are skipped.
    ///
    /// # Errors
    /// SQLite failures.
    pub fn digest_watchlists(
        &self,
        snapshot: &str,
        now: i64,
        score_of: impl Fn(&str) -> Option<u8>,
        event: impl Fn(&Digest, &Subscription) -> NewDelivery,
    ) -> Result<Vec<Digest>, StoreError> {
        let mut conn = self.lock();
        let tx = conn.transaction_with_behavior(rusqlite::TransactionBehavior::Immediate).map_err(|e| self.err(e))?;
        let mut digests: Vec<Digest> = Vec::new();
        {
            let mut select = tx
                .prepare(
                    "SELECT id, subscriber, watched, label, last_score FROM watchlist
                     WHERE last_snapshot IS NULL OR last_snapshot != ?1 ORDER BY subscriber, id",
                )
                .map_err(|e| self.err(e))?;
            let mut update = tx
                .prepare(
                    "UPDATE watchlist SET prev_score = last_score, last_score = ?2, last_snapshot = ?3 WHERE id = ?1",
                )
                .map_err(|e| self.err(e))?;
            let mut rows = select.query([snapshot]).map_err(|e| self.err(e))?;
            while let Some(row) = rows.next().map_err(|e| self.err(e))? {
                let (id, subscriber, watched, label, last): (i64, String, String, Option<String>, Option<u8>) = (
                    row.get("id").map_err(|e| self.err(e))?,
                    row.get("subscriber").map_err(|e| self.err(e))?,
                    row.get("watched").map_err(|e| self.err(e))?,
                    row.get("label").map_err(|e| self.err(e))?,
                    row.get("last_score").map_err(|e| self.err(e))?,
                );
                let Some(to) = score_of(&watched) else { continue };
                update.execute(params![id, to, snapshot]).map_err(|e| self.err(e))?;
                let Some(from) = last.filter(|from| *from != to) else { continue };
                match digests.last_mut() {
                    Some(d) if d.subscriber == subscriber => d.moved.push((watched, label, from, to)),
                    _ => digests.push(Digest { subscriber, moved: vec![(watched, label, from, to)] }),
                }
            }
        }
        let paid = paid_until(&tx, None).map_err(|e| self.err(e))?;
        for digest in &digests {
            // Only to the receiver the watcher signed for (its newest signed `webhook:`), through
            // the first active subscription to it: subscriptions carry no signature, so anyone
            // could have made one in the watcher's name to another URL.
            let signed_url: Option<String> = tx
                .query_row(
                    "SELECT webhook_url FROM watchlist WHERE subscriber = ?1 AND webhook_url IS NOT NULL
                     ORDER BY signed_at DESC, id DESC LIMIT 1",
                    [&digest.subscriber],
                    |r| r.get("webhook_url"),
                )
                .optional()
                .map_err(|e| self.err(e))?;
            let Some(signed_url) = signed_url else { continue };
            let newest: Option<Subscription> = {
                let mut stmt = tx
                    .prepare_cached(&format!(
                        "SELECT {COLUMNS} FROM webhook_subscriptions WHERE subscriber = ?1 AND url = ?2 ORDER BY id"
                    ))
                    .map_err(|e| self.err(e))?;
                let rows =
                    stmt.query_map(params![&digest.subscriber, &signed_url], subscription).map_err(|e| self.err(e))?;
                let mut found = None;
                for row in rows {
                    let mut s = row.map_err(|e| self.err(e))?;
                    s.paid_until = paid.get(&s.id).copied();
                    if s.active_until() > now {
                        found = Some(s);
                        break;
                    }
                }
                found
            };
            if let Some(target) = newest {
                enqueue(&tx, &event(digest, &target), now).map_err(|e| self.err(e))?;
            }
        }
        tx.commit().map_err(|e| self.err(e))?;
        Ok(digests)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::ledger::tests::settled_payment;

    fn new(url: &str, threshold: u8) -> NewSubscription {
        NewSubscription {
            subscriber: "0xs".into(),
            watched: "0xw".into(),
            url: url.into(),
            threshold_delta: threshold,
            secret: "whsec_test".into(),
            grace_days: 30,
        }
    }

    fn event(c: &ScoreChange<'_>) -> NewDelivery {
        NewDelivery {
            webhook_id: format!("msg_{}_{}", c.subscription.id, c.to),
            event_type: "score.changed".into(),
            event_key: format!("score:{}:{}", c.subscription.id, c.to),
            subscription_id: Some(c.subscription.id),
            slot_id: None,
            url: c.subscription.url.clone(),
            secret: c.subscription.secret.clone(),
            payload: format!("{{\"from\":{},\"to\":{}}}", c.from, c.to),
        }
    }

    #[test]
    fn a_change_past_the_threshold_fires_once_and_moves_the_baseline() {
        let store = Store::in_memory().unwrap();
        let Subscribed::New(s) = store.subscribe(&new("https://a.example/h", 5), Some(50), 0).unwrap() else {
            panic!()
        };
        assert!(matches!(store.subscribe(&new("https://a.example/h", 9), None, 1).unwrap(), Subscribed::Existing(_)));
        let report = store.diff_subscriptions(10, |_| Some(53), event).unwrap();
        assert_eq!((report.checked, report.enqueued), (1, 0), "a move of 3 is under 5");
        let report = store.diff_subscriptions(20, |_| Some(56), event).unwrap();
        assert_eq!(report.enqueued, 1, "drift adds up from the last notified score: 50 → 56");
        assert_eq!(store.diff_subscriptions(21, |_| Some(56), event).unwrap().enqueued, 0, "run again: nothing more");
        assert_eq!(store.subscriptions_of("0xs").unwrap()[0].last_score, Some(56));
        let expired = store.diff_subscriptions(s.grace_until, |_| Some(90), event).unwrap();
        assert_eq!(expired.checked, 0, "past its grace period a subscription is not checked");
    }

    #[test]
    fn an_extension_counts_once_its_payment_settles() {
        let store = Store::in_memory().unwrap();
        let Subscribed::New(s) = store.subscribe(&new("https://a.example/h", 5), Some(50), 0).unwrap() else {
            panic!()
        };
        let (open, settled) = (settled_payment(&store, "0x01", false), settled_payment(&store, "0x02", true));
        store.extend_subscription(s.id, open, 30, 5).unwrap();
        assert_eq!(store.subscriptions_of("0xs").unwrap()[0].paid_until, None, "unsettled: nothing");
        let projected = store.extend_subscription(s.id, settled, 30, 5).unwrap();
        let listed = store.subscriptions_of("0xs").unwrap().remove(0);
        assert_eq!((listed.paid_until, projected), (Some(s.grace_until + 30 * DAY), s.grace_until + 30 * DAY));
        let report = store.diff_subscriptions(s.grace_until + DAY, |_| Some(90), event).unwrap();
        assert_eq!((report.checked, report.enqueued), (1, 1), "extended past its grace");
    }

    #[test]
    fn a_digest_reports_each_move_once_and_goes_only_to_the_signed_webhook() {
        use crate::signed::{NewWatch, tests::signed_by};
        let store = Store::in_memory().unwrap();
        for (w, m) in [("0xw1", "m1"), ("0xw2", "m2")] {
            let watch = NewWatch {
                subscriber: "0xs".into(),
                watched: w.into(),
                label: None,
                threshold_delta: 5,
                webhook_url: Some("https://a.example/h".into()),
                signed: signed_by(m, 1),
            };
            store.add_watch(&watch, None, 0).unwrap();
        }
        let digest_event = |d: &Digest, s: &Subscription| NewDelivery {
            webhook_id: format!("msg_digest_{}", d.moved.len()),
            event_type: "watchlist.digest".into(),
            event_key: format!("digest:{}:{}", d.subscriber, s.id),
            subscription_id: Some(s.id),
            slot_id: None,
            url: s.url.clone(),
            secret: s.secret.clone(),
            payload: "{}".into(),
        };
        let score = |w: &str| Some(if w == "0xw1" { 40 } else { 70 });
        assert!(store.digest_watchlists("d1", 0, score, digest_event).unwrap().is_empty(), "baselines only");
        store.subscribe(&new("https://a.example/h", 5), Some(40), 0).unwrap();
        // Someone else subscribes in the watcher's name to another receiver, later: no digest there.
        let Subscribed::New(stranger) = store.subscribe(&new("https://evil.example/h", 5), Some(40), 1).unwrap() else {
            panic!("a new subscription")
        };
        let moved = |w: &str| Some(if w == "0xw1" { 41 } else { 70 });
        let digests = store.digest_watchlists("d2", 10, moved, digest_event).unwrap();
        assert_eq!(digests.len(), 1);
        assert_eq!(digests[0].moved, vec![("0xw1".to_owned(), None, 40, 41)]);
        assert!(store.digest_watchlists("d2", 11, moved, digest_event).unwrap().is_empty(), "same snapshot: nothing");
        assert_eq!(store.delivery_counts().unwrap().0, 1);
        assert!(store.deliveries_of(stranger.id, 10).unwrap().is_empty(), "nothing to an unsigned receiver");
        let w = store.watchlist_of("0xs").unwrap();
        assert_eq!((w[0].prev_score, w[0].last_score), (Some(40), Some(41)));
    }
}
