//! The delivery worker: leases due deliveries from the outbox, sends each as a Standard Webhooks
//! 1.0 POST through `SafeClient` (no redirects; private targets refused inside the resolver, so
//! the address connected to is the address checked, at delivery time too), at most
//! `AGENTREP_WEBHOOK_CONCURRENCY` in flight, and records every outcome: delivered on a 2xx,
//! otherwise retried after the next backoff step with jitter, dead after the last. A worker that
//! dies mid-delivery leaves leased rows that are retried once the lease ends, with the same
//! `webhook-id` (at least once; receivers drop repeats by id).

use std::sync::Arc;
use std::time::Duration;

use agentrep_ingest::config::ProbeConfig;
use agentrep_ingest::web::safe::SafeClient;
use agentrep_store::{Attempt, Delivery, DeliveryState};
use futures::StreamExt;
use hyper::header::{CONTENT_TYPE, HeaderMap, HeaderValue};
use tracing::{debug, warn};

use crate::App;
use crate::writes::secret;

/// The wait after each failed attempt (Standard Webhooks' suggested schedule): 8 attempts over
/// about 27.6 hours; after the last, the delivery is dead.
pub const BACKOFF: [Duration; 7] = [
    Duration::from_secs(5),
    Duration::from_secs(5 * 60),
    Duration::from_secs(30 * 60),
    Duration::from_secs(2 * 3600),
    Duration::from_secs(5 * 3600),
    Duration::from_secs(10 * 3600),
    Duration::from_secs(10 * 3600),
];

/// Largest answer body read from a receiver.
const MAX_ANSWER: usize = 16 * 1024;

/// What happens after attempt number `attempts` (1-based) failed at `now_ms`: the next attempt's
/// time (±10 % jitter, from `jitter` in [0, 1)), or `None` when it was the last.
pub fn next_attempt(attempts: u32, now_ms: i64, jitter: f64) -> Option<i64> {
    let wait = BACKOFF.get(usize::try_from(attempts).ok()?.checked_sub(1)?)?;
    let ms = wait.as_millis() as f64 * (0.9 + 0.2 * jitter);
    Some(now_ms + ms as i64)
}

fn client(app: &App) -> Result<SafeClient, agentrep_ingest::web::ClientError> {
    let settings = &app.writes;
    SafeClient::new(&ProbeConfig {
        timeout_ms: u64::try_from(settings.webhook_timeout.as_millis()).unwrap_or(u64::MAX),
        max_redirects: 0,
        max_body_bytes: MAX_ANSWER,
        allow_private_targets: settings.allow_private_targets,
        ..ProbeConfig::default()
    })
}

async fn attempt(http: &SafeClient, d: &Delivery) -> Attempt {
    let timestamp = chrono::Utc::now().timestamp();
    let body = d.event.payload.as_bytes().to_vec();
    let mut headers = HeaderMap::new();
    headers.insert(CONTENT_TYPE, HeaderValue::from_static("application/json"));
    let signature = secret::sign(&d.event.secret, &d.event.webhook_id, timestamp, &body);
    for (name, value) in [
        ("webhook-id", d.event.webhook_id.clone()),
        ("webhook-timestamp", timestamp.to_string()),
        ("webhook-signature", signature),
    ] {
        if let Ok(value) = HeaderValue::from_str(&value) {
            headers.insert(name, value);
        }
    }
    let outcome = http.post(&d.event.url, headers, body).await;
    let now_ms = chrono::Utc::now().timestamp_millis();
    let (status, error) = match outcome {
        Ok(r) if (200..300).contains(&r.status) => {
            return Attempt {
                id: d.id,
                state: DeliveryState::Delivered,
                next_at: now_ms,
                status: Some(r.status),
                error: None,
            };
        }
        Ok(r) => (Some(r.status), Some(format!("the receiver answered {}", r.status))),
        Err(e) => (None, Some(format!("{}: {e}", e.class()))),
    };
    match next_attempt(d.attempts + 1, now_ms, fastrand::f64()) {
        Some(next_at) => Attempt { id: d.id, state: DeliveryState::Pending, next_at, status, error },
        None => Attempt { id: d.id, state: DeliveryState::Dead, next_at: now_ms, status, error },
    }
}

/// Runs for the life of the server: sends due deliveries, sleeps until the next is due or a new
/// one is enqueued.
pub async fn run(app: Arc<App>) {
    let Some(store) = app.store().cloned() else { return };
    let http = match client(&app) {
        Ok(c) => c,
        Err(e) => {
            warn!(target: "server::webhooks", %e, "No webhook client: deliveries wait.");
            return;
        }
    };
    let concurrency = app.writes.webhook_concurrency.max(1);
    let lease_ms = i64::try_from(app.writes.webhook_timeout.as_millis()).unwrap_or(i64::MAX / 4) * 2 + 5_000;
    loop {
        let now_ms = chrono::Utc::now().timestamp_millis();
        let leasing = store.clone();
        let due = tokio::task::spawn_blocking(move || leasing.lease_due(now_ms, lease_ms, concurrency * 8)).await;
        let due = match due {
            Ok(Ok(due)) => due,
            Ok(Err(e)) => {
                warn!(target: "server::webhooks", %e, "Leasing deliveries failed.");
                tokio::time::sleep(Duration::from_secs(5)).await;
                continue;
            }
            Err(_) => return,
        };
        if due.is_empty() {
            let next = store.clone();
            let next = tokio::task::spawn_blocking(move || next.next_due()).await.ok().and_then(Result::ok).flatten();
            let wait = next.map_or(Duration::from_secs(30), |at| {
                Duration::from_millis(
                    u64::try_from(at - chrono::Utc::now().timestamp_millis()).unwrap_or(0).clamp(10, 30_000),
                )
            });
            tokio::select! {
                () = app.deliveries_due.notified() => {}
                () = tokio::time::sleep(wait) => {}
            }
            continue;
        }
        debug!(target: "server::webhooks", deliveries = due.len(), "Delivering.");
        let mut outcomes = futures::stream::iter(due)
            .map(|d| {
                let http = http.clone();
                async move { attempt(&http, &d).await }
            })
            .buffer_unordered(concurrency)
            .ready_chunks(256);
        while let Some(chunk) = outcomes.next().await {
            let recording = store.clone();
            let now = chrono::Utc::now().timestamp();
            match tokio::task::spawn_blocking(move || recording.record_attempts(&chunk, now)).await {
                Ok(Ok(())) => {}
                Ok(Err(e)) => {
                    warn!(target: "server::webhooks", %e, "Recording delivery outcomes failed; they are retried when their lease ends.")
                }
                Err(_) => return,
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn retries_back_off_over_more_than_a_day_then_stop() {
        let total: Duration = BACKOFF.iter().sum();
        assert!(total > Duration::from_secs(24 * 3600), "{total:?}");
        assert_eq!(next_attempt(1, 0, 0.5), Some(5_000));
        assert_eq!(next_attempt(2, 0, 0.0), Some(270_000), "5 min less 10 %");
        assert!(next_attempt(7, 0, 0.99).is_some());
        assert_eq!(next_attempt(8, 0, 0.5), None, "the eighth failure is the last");
    }
}
