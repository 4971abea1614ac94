//! Events: what a new snapshot means for the people who asked to hear about it. When a snapshot
//! is served, every active score-change subscription whose watched score moved by its threshold,
//! every watchlist whose wallets moved, and every rug-alert watch whose token is now rugged get a
//! delivery, enqueued in the store transaction that moves their baseline ([`agentrep_store`]'s
//! `diff_subscriptions`, `digest_watchlists`, `fire_rug_alerts`). Running it again on the same
//! snapshot (a restart) enqueues nothing more. [`deliver`] sends them.

pub mod deliver;

use std::sync::Arc;

use agentrep_publish::wire::{Decision, LaunchOutcome};
use agentrep_publish::wire::{
    ScoreChangedEventV1, ScoreChangedV1, TokenRuggedEventV1, TokenRuggedV1, WatchMoveV1, WatchlistDigestEventV1,
    WatchlistDigestV1,
};
use agentrep_store::{Digest, NewDelivery, ScoreChange, Slot, Subscription};
use sha2::{Digest as _, Sha256};
use tracing::{info, warn};

use crate::query::writes::iso;
use crate::{App, ServedSnapshot};

/// A delivery's `webhook-id`: derived from what makes the event unique, so the same event always
/// has the same id.
pub fn webhook_id(event_key: &str) -> String {
    format!("msg_{}", &hex::encode(Sha256::digest(event_key.as_bytes()))[..32])
}

fn delivery(
    event_type: &str,
    event_key: String,
    subscription: Option<i64>,
    slot: Option<i64>,
    url: &str,
    secret: &str,
    payload: String,
) -> NewDelivery {
    NewDelivery {
        webhook_id: webhook_id(&event_key),
        event_type: event_type.to_owned(),
        event_key,
        subscription_id: subscription,
        slot_id: slot,
        url: url.to_owned(),
        secret: secret.to_owned(),
        payload,
    }
}

/// Where a wallet's score document is, for the event bodies (absolute when `AGENTREP_DOMAIN` is
/// set).
fn score_url(app: &App, address: &str) -> String {
    match &app.identity.domain {
        Some(domain) => format!("https://{domain}{}/score/{address}", app.base_path()),
        None => format!("{}/score/{address}", app.base_path()),
    }
}

/// The `score.changed` delivery of a subscription whose watched score moved in snapshot
/// `snapshot` (`at`: ISO 8601).
pub fn score_changed(
    c: &ScoreChange<'_>,
    at: &str,
    snapshot: &str,
    decision: Option<Decision>,
    score_url: String,
) -> NewDelivery {
    let s: &Subscription = c.subscription;
    let body = ScoreChangedEventV1 {
        kind: "score.changed".to_owned(),
        timestamp: at.to_owned(),
        data: ScoreChangedV1 {
            subscription_id: s.id,
            subscriber_addr: s.subscriber.clone(),
            address: s.watched.clone(),
            previous_score: c.from,
            score: c.to,
            delta: i16::from(c.to) - i16::from(c.from),
            threshold_delta: s.threshold_delta,
            decision,
            snapshot: snapshot.to_owned(),
            score_url,
        },
    };
    let payload = serde_json::to_string(&body).expect("serialises");
    delivery("score.changed", format!("score:{}:{snapshot}", s.id), Some(s.id), None, &s.url, &s.secret, payload)
}

/// Enqueues the events of `snap` (blocking: store transactions). Returns (score changes, digests,
/// rug alerts) enqueued.
pub fn enqueue_for(app: &App, snap: &ServedSnapshot) -> Result<(u64, usize, u64), agentrep_store::StoreError> {
    let Some(store) = app.store() else { return Ok((0, 0, 0)) };
    let now = chrono::Utc::now().timestamp();
    let at = iso(now);
    let score_of = |a: &str| snap.index.agent(a).and_then(|r| r.score);
    let changed = |c: &ScoreChange<'_>| {
        let watched = &c.subscription.watched;
        let decision = snap.index.agent(watched).map(|r| r.decision);
        score_changed(c, &at, &snap.id, decision, score_url(app, watched))
    };
    let diff = store.diff_subscriptions(now, score_of, changed)?;
    let digest = |d: &Digest, target: &Subscription| {
        let body = WatchlistDigestEventV1 {
            kind: "watchlist.digest".to_owned(),
            timestamp: at.clone(),
            data: WatchlistDigestV1 {
                subscriber_addr: d.subscriber.clone(),
                snapshot: snap.id.clone(),
                moved: d
                    .moved
                    .iter()
                    .map(|(address, label, from, to)| WatchMoveV1 {
                        address: address.clone(),
                        label: label.clone(),
                        previous_score: *from,
                        score: *to,
                    })
                    .collect(),
            },
        };
        let payload = serde_json::to_string(&body).expect("serialises");
        delivery(
            "watchlist.digest",
            format!("digest:{}:{}", d.subscriber, snap.id),
            Some(target.id),
            None,
            &target.url,
            &target.secret,
            payload,
        )
    };
    let digests = store.digest_watchlists(&snap.id, now, score_of, digest)?;
    let rugged = |token: &str| snap.index.launch_of(token).is_some_and(|(_, l)| l.outcome == LaunchOutcome::Rugged);
    let alert = |slot: &Slot| {
        let target = slot.alert.as_ref().expect("rug alerts carry a target");
        let body = TokenRuggedEventV1 {
            kind: "token.rugged".to_owned(),
            timestamp: at.clone(),
            data: TokenRuggedV1 {
                token: slot.address.clone(),
                deployer: snap.index.launch_of(&slot.address).map(|(d, _)| d.address.clone()),
                subscriber_addr: target.subscriber.clone(),
                snapshot: snap.id.clone(),
                watched_until: iso(slot.ends_at),
            },
        };
        let payload = serde_json::to_string(&body).expect("serialises");
        delivery("token.rugged", format!("rug:{}", slot.id), None, Some(slot.id), &target.url, &target.secret, payload)
    };
    let alerts = store.fire_rug_alerts(now, rugged, alert)?;
    Ok((diff.enqueued, digests.len(), alerts))
}

/// Runs for the life of the server: the events of the snapshot served at start (a restart redoes
/// what a crash interrupted; nothing is enqueued twice), then of every new one.
pub async fn run(app: Arc<App>) {
    loop {
        if let Some(snap) = app.snapshot() {
            let worker = app.clone();
            let id = snap.id.clone();
            match tokio::task::spawn_blocking(move || enqueue_for(&worker, &snap)).await {
                Ok(Ok((changes, digests, alerts))) => {
                    if changes + digests as u64 + alerts > 0 {
                        info!(target: "server::events", snapshot = %id, changes, digests, alerts, "Webhook events enqueued.");
                        app.deliveries_due.notify_one();
                    }
                }
                Ok(Err(err)) => {
                    warn!(target: "server::events", snapshot = %id, %err, "Enqueueing the snapshot's events failed; retried at the next snapshot or restart.")
                }
                Err(err) => warn!(target: "server::events", %err, "The events task failed."),
            }
        }
        app.snapshot_changed.notified().await;
    }
}
