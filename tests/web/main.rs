//! The web sources against real fixture servers on loopback: the Bazaar crawler, probes,
//! registration files, facilitator signers and the Farcaster hub.

mod bazaar;
mod card;
mod hub;
mod ownership;
mod probe;
mod ranks;
mod submitted;

use std::time::Duration;

use agentrep_ingest::config::ProbeConfig;
use agentrep_lake::Timestamp;
use agentrep_lake::datasets::ListingRow;

/// Base mainnet USDC.
const USDC: &str = "0x833589fCD6eDb6E08f4c7C32D4f71b54bdA02913";

/// A plain client for operator-configured URLs.
fn plain() -> agentrep_ingest::web::reqwest::Client {
    agentrep_ingest::web::plain_client(Duration::from_secs(5)).expect("client")
}

/// Probe settings for loopback fixtures.
fn probe_cfg() -> ProbeConfig {
    ProbeConfig {
        allow_private_targets: true,
        timeout_ms: 500,
        per_host_per_second: 100_000,
        concurrency: 16,
        ..ProbeConfig::default()
    }
}

/// A listing of `resource` paying `pay_to` `price` USDC atomic units on `network`.
fn listing(resource: &str, pay_to: &str, network: &str, price: u64) -> ListingRow {
    ListingRow {
        resource: resource.to_owned(),
        pay_to: pay_to.to_owned(),
        network: network.to_owned(),
        asset: USDC.to_owned(),
        price_atomic: price,
        description: None,
        tags: Vec::new(),
        ecosystem: "fixture".to_owned(),
        first_seen: Timestamp(0),
        last_seen: Timestamp(0),
    }
}

/// A 0x address from a number, in upper-case hex (listings keep the case they are given).
fn wallet(n: u64) -> String {
    format!("0x{n:040X}")
}
