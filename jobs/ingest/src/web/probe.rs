//! Unpaid health probes of listed resources: one GET per distinct resource URL, through
//! [`SafeClient`], with bounded concurrency and a per-host rate limit.
//!
//! Each row:
//! - `status`: the final HTTP status (after redirects), null when nothing answered;
//! - `ok`: 200, 201 or 204, or a 402 carrying a well-formed x402 offer (as `sellers.sql` counts
//!   "alive");
//! - `latency_ms`: from the start of the request to the final response head, null without answer;
//! - `error`: null when `ok`; otherwise the [`FetchError::class`](super::safe::FetchError::class)
//!   when nothing answered (`timeout`, `connect`, `refused-private`, …), `bad-offer` for a 402
//!   without a well-formed offer (or the class of the error that cut its body short), and
//!   `http-<status>` for any other status (`http-404`, `http-503`, `http-401`, …);
//! - `offer_version` and `offer_matches`: from the 402's offer, null without one; the offer
//!   matches when it matches any listing of that resource ([`offer_matches`]);
//! - `offer_pay_tos`: every wallet the offer's terms ask to be paid ([`Offer::pay_tos`]), so the
//!   rebuild can tell which of several wallets listing one URL the URL really takes;
//! - `probed_at`: when the request started (after waiting for the host's rate limit).
//!
//! Rows are sorted by resource. Work is ordered round-robin across hosts, so one slow or
//! rate-limited host does not hold every slot of the concurrency limit.

use std::collections::{BTreeMap, HashMap, VecDeque};
use std::sync::Mutex;
use std::time::{Duration, Instant};

use agentrep_lake::datasets::{ListingRow, ProbeRow};
use futures::StreamExt;
use url::Url;

use super::now;
use super::offer::{offer_matches, parse_offer};
use super::safe::SafeClient;
use crate::config::ProbeConfig;

/// Probes every distinct resource of `listings` once.
pub async fn probe_all(client: &SafeClient, listings: &[ListingRow], cfg: &ProbeConfig) -> Vec<ProbeRow> {
    // Owned work items: borrowed ones make the stream's future fail the `Send` check of callers
    // (a known limit of higher-ranked closure lifetimes in async code).
    let mut by_resource: BTreeMap<String, Vec<ListingRow>> = BTreeMap::new();
    for l in listings {
        by_resource.entry(l.resource.clone()).or_default().push(l.clone());
    }
    let mut by_host: BTreeMap<String, VecDeque<(String, Vec<ListingRow>)>> = BTreeMap::new();
    for (resource, group) in by_resource {
        by_host.entry(host_key(&resource)).or_default().push_back((resource, group));
    }
    // Round-robin across hosts.
    let mut order = Vec::new();
    while !by_host.is_empty() {
        by_host.retain(|_, queue| {
            if let Some(next) = queue.pop_front() {
                order.push(next);
            }
            !queue.is_empty()
        });
    }
    let limiter = HostLimiter::new(cfg.per_host_per_second);
    let limiter = &limiter;
    let mut rows: Vec<ProbeRow> = futures::stream::iter(order)
        .map(|(resource, group): (String, Vec<ListingRow>)| async move {
            limiter.wait(&host_key(&resource)).await;
            let group: Vec<&ListingRow> = group.iter().collect();
            probe_one(client, &resource, &group).await
        })
        .buffer_unordered(cfg.concurrency.max(1))
        .collect()
        .await;
    rows.sort_by(|a, b| a.resource.cmp(&b.resource));
    rows
}

/// The rate-limit key of a resource: its host, lowercase (empty for an unparsable URL, which fails
/// without a request).
fn host_key(resource: &str) -> String {
    Url::parse(resource.trim()).ok().and_then(|u| u.host_str().map(str::to_ascii_lowercase)).unwrap_or_default()
}

async fn probe_one(client: &SafeClient, resource: &str, listings: &[&ListingRow]) -> ProbeRow {
    let probed_at = now();
    let mut row = ProbeRow {
        resource: resource.to_owned(),
        probed_at,
        status: None,
        ok: false,
        latency_ms: None,
        error: None,
        offer_version: None,
        offer_matches: None,
        offer_pay_tos: Vec::new(),
    };
    let head = match client.send(resource).await {
        Ok(head) => head,
        Err(e) => {
            row.error = Some(e.class().to_owned());
            return row;
        }
    };
    let status = head.status;
    row.status = Some(u32::from(status));
    row.latency_ms = Some(u32::try_from(head.latency.as_millis()).unwrap_or(u32::MAX));
    if status == 402 {
        let headers = head.headers.clone();
        // A v2 offer is in the header alone, so a body cut short does not hide it.
        let (body, body_error) = match head.body().await {
            Ok(body) => (body, None),
            Err(e) => (Vec::new(), Some(e.class())),
        };
        match parse_offer(status, &headers, &body) {
            Some(offer) => {
                row.ok = true;
                row.offer_version = Some(offer.version);
                row.offer_matches = Some(listings.iter().any(|l| offer_matches(&offer, l)));
                row.offer_pay_tos = offer.pay_tos();
            }
            None => row.error = Some(body_error.unwrap_or("bad-offer").to_owned()),
        }
    } else if matches!(status, 200 | 201 | 204) {
        row.ok = true;
    } else {
        row.error = Some(format!("http-{status}"));
    }
    row
}

/// A per-host rate limit: `rate` requests per second with bursts of up to `rate` (a generic cell
/// rate algorithm that hands out start times, so waiting requests queue in arrival order).
#[derive(Debug)]
struct HostLimiter {
    interval: Duration,
    tolerance: Duration,
    next: Mutex<HashMap<String, Instant>>,
}

impl HostLimiter {
    fn new(rate: u32) -> Self {
        let rate = rate.max(1);
        let interval = Duration::from_secs(1) / rate;
        Self { interval, tolerance: interval * (rate - 1), next: Mutex::new(HashMap::new()) }
    }

    /// Waits for `host`'s next slot.
    async fn wait(&self, host: &str) {
        let start = {
            let mut next = self.next.lock().unwrap_or_else(std::sync::PoisonError::into_inner);
            let now = Instant::now();
            let tat = next.get(host).copied().unwrap_or(now).max(now);
            next.insert(host.to_owned(), tat + self.interval);
            tat.checked_sub(self.tolerance).map_or(now, |t| t.max(now))
        };
        tokio::time::sleep_until(start.into()).await;
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[tokio::test]
    async fn the_host_limiter_allows_a_burst_then_spaces_requests() {
        let limiter = HostLimiter::new(10);
        let started = Instant::now();
        for _ in 0..10 {
            limiter.wait("a.example").await;
        }
        assert!(
            started.elapsed() < Duration::from_millis(200),
            "a burst of 10 goes at once (spaced, it would take 900 ms)"
        );
        for _ in 0..3 {
            limiter.wait("a.example").await;
        }
        let spent = started.elapsed();
        assert!(spent >= Duration::from_millis(290), "3 more wait 100 ms each: {spent:?}");
        // Another host is not held back.
        let other = Instant::now();
        limiter.wait("b.example").await;
        assert!(other.elapsed() < Duration::from_millis(60));
    }

    #[test]
    fn hosts_are_keyed_lowercase() {
        assert_eq!(host_key("https://API.Example.com:8443/x"), "api.example.com");
        assert_eq!(host_key("not a url"), "");
    }
}
