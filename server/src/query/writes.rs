//! Payloads of what users wrote, from store records and the current snapshot (pure: no I/O). A
//! score shown beside a record is the snapshot's, never changed by the record.

use agentrep_publish::wire::{
    BadgeClaimedV1, BadgeV1, DeliveryV1, ReceiptSummaryV1, ReceiptV1, ReceiptsV1, SponsoredSlotV1, WatchEntryV1,
    WatchlistV1, WebhookSubscriptionV1, version,
};
use agentrep_store::{BadgeClaim, Delivery, ReceiptRecord, ReceiptSummary, Slot, Subscription, WatchRecord, Written};

use crate::http::Request;
use crate::writes::target::redacted;
use crate::{App, ServedSnapshot};

/// Unix seconds as ISO 8601 (UTC, seconds).
pub fn iso(secs: i64) -> String {
    chrono::DateTime::from_timestamp(secs, 0).unwrap_or_default().to_rfc3339_opts(chrono::SecondsFormat::Secs, true)
}

/// Unix milliseconds as ISO 8601 (UTC, milliseconds).
pub fn iso_ms(ms: i64) -> String {
    chrono::DateTime::from_timestamp_millis(ms).unwrap_or_default().to_rfc3339_opts(chrono::SecondsFormat::Millis, true)
}

/// The next midnight (UTC) after `secs`, ISO 8601: when a daily job next runs.
pub fn next_day(secs: i64) -> String {
    iso((secs.div_euclid(86_400) + 1) * 86_400)
}

/// `http://host` and the base path, as the client addressed this server.
pub fn public_base(app: &App, req: &Request) -> String {
    let host = req.headers.get(hyper::header::HOST).and_then(|h| h.to_str().ok()).unwrap_or("127.0.0.1");
    format!("http://{host}{}", app.base_path())
}

fn score_of(snap: Option<&ServedSnapshot>, address: &str) -> Option<u8> {
    snap.and_then(|s| s.index.agent(address)).and_then(|row| row.score)
}

/// `GET /receipts?for=`.
pub fn receipts(agent: &str, rows: &[ReceiptRecord], summary: &ReceiptSummary) -> ReceiptsV1 {
    ReceiptsV1 {
        version: version("receipts"),
        agent: agent.to_owned(),
        summary: (summary.total > 0).then(|| ReceiptSummaryV1 {
            total: summary.total,
            success_rate: summary.successes as f64 / summary.total as f64,
            avg_rating: summary.avg_rating,
            avg_latency: summary.avg_latency_ms,
            avg_latency_ms: summary.avg_latency_ms,
        }),
        count: rows.len() as u64,
        receipts: rows
            .iter()
            .map(|r| ReceiptV1 {
                id: r.id,
                buyer_addr: r.receipt.buyer.clone(),
                agent_addr: r.receipt.agent.clone(),
                success: r.receipt.success,
                tx_hash: r.receipt.tx_hash.clone(),
                latency_ms: r.receipt.latency_ms,
                rating: r.receipt.rating,
                comment: r.receipt.comment.clone(),
                signed_at: iso_ms(r.receipt.signed.signed_at),
                received_at: iso(r.received_at),
                signer_kind: r.receipt.signed.signer_kind.as_str().to_owned(),
            })
            .collect(),
        note: "signed by their buyers; a receipt counts in a score only when the rebuild finds the payment it describes (SCORING.md § 2)".to_owned(),
    }
}

fn badge_url(base: &str, address: &str) -> String {
    format!("{base}/badge/{address}.svg")
}

/// `POST /badge/claim` answer.
pub fn badge_claimed(base: &str, address: &str, written: Written) -> BadgeClaimedV1 {
    let origin = base.rsplit_once("/api").map_or(base, |(o, _)| o);
    BadgeClaimedV1 {
        version: version("badge-claim"),
        ok: true,
        address: address.to_owned(),
        id: written.id,
        created: written.created,
        badge_url: badge_url(base, address),
        embed: format!(
            "<a href=\"{origin}/agent/{address}\"><img src=\"{}\" alt=\"agentrep score\" height=\"20\"></a>",
            badge_url(base, address)
        ),
    }
}

/// One claimed badge.
pub fn badge(base: &str, snap: Option<&ServedSnapshot>, c: &BadgeClaim) -> BadgeV1 {
    BadgeV1 {
        address: c.address.clone(),
        claimed_at: iso(c.claimed_at),
        badge_url: badge_url(base, &c.address),
        score: score_of(snap, &c.address),
    }
}

/// `GET /watchlist?for=`.
pub fn watchlist(subscriber: &str, snap: Option<&ServedSnapshot>, rows: &[WatchRecord]) -> WatchlistV1 {
    WatchlistV1 {
        version: version("watchlist"),
        subscriber: subscriber.to_owned(),
        count: rows.len() as u64,
        addresses: rows.iter().map(|w| w.watch.watched.clone()).collect(),
        watching: rows
            .iter()
            .map(|w| WatchEntryV1 {
                watch_addr: w.watch.watched.clone(),
                label: w.watch.label.clone(),
                threshold_delta: w.watch.threshold_delta,
                current_score: score_of(snap, &w.watch.watched),
                last_score: w.prev_score.or(w.last_score),
                last_description: snap
                    .and_then(|s| s.index.agent(&w.watch.watched))
                    .and_then(|r| r.description.clone()),
                added_at: iso(w.added_at),
            })
            .collect(),
    }
}

/// One delivery as its subscriber sees it.
pub fn delivery(d: &Delivery) -> DeliveryV1 {
    DeliveryV1 {
        webhook_id: d.event.webhook_id.clone(),
        event_type: d.event.event_type.clone(),
        state: d.state.as_str().to_owned(),
        attempts: d.attempts,
        last_status: d.last_status,
        last_error: d.last_error.clone(),
        created_at: iso(d.created_at),
        next_attempt_at: (d.state == agentrep_store::DeliveryState::Pending).then(|| iso_ms(d.next_at)),
        delivered_at: d.delivered_at.map(iso),
    }
}

/// One subscription with its newest deliveries.
pub fn subscription(s: &Subscription, deliveries: &[Delivery], now: i64) -> WebhookSubscriptionV1 {
    WebhookSubscriptionV1 {
        id: s.id,
        watch_addr: s.watched.clone(),
        webhook_url: redacted(&s.url),
        threshold_delta: s.threshold_delta,
        last_score: s.last_score,
        last_notified_at: s.last_notified_at.map(iso),
        paid_until: s.paid_until.map(iso),
        created_at: iso(s.created_at),
        grace_until: iso(s.grace_until),
        active_until: iso(s.active_until()),
        active: s.active_until() > now,
        deliveries: deliveries.iter().map(delivery).collect(),
    }
}

/// One active sponsored slot.
pub fn sponsored(kind: &str, snap: Option<&ServedSnapshot>, slot: &Slot) -> SponsoredSlotV1 {
    let (score, decision) = match kind {
        "creator" => (snap.and_then(|s| s.index.deployer(&slot.address)).and_then(|d| d.score), None),
        _ => {
            let row = snap.and_then(|s| s.index.agent(&slot.address));
            (row.and_then(|r| r.score), row.map(|r| r.decision))
        }
    };
    SponsoredSlotV1 {
        kind: kind.to_owned(),
        address: slot.address.clone(),
        starts_at: iso(slot.starts_at),
        sponsored_until: iso(slot.ends_at),
        score,
        decision,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn times_read_as_iso() {
        assert_eq!(iso(0), "1970-01-01T00:00:00Z");
        assert_eq!(next_day(86_400 + 5), "1970-01-03T00:00:00Z");
        assert_eq!(iso_ms(1_500), "1970-01-01T00:00:01.500Z");
    }
}
