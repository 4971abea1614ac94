//! Seller-side datasets: listings, settlements, probes, ERC-8004 registrations and feedback,
//! identity proofs, funding edges, receipts and the address lists.

use std::collections::{BTreeMap, BTreeSet};

use agentrep_lake::datasets::{
    FeedbackRow, FundingRow, ListEntryRow, ListingRow, ProbeRow, ProofRow, ReceiptRow, RegistrationRow, SettlementRow,
};
use agentrep_lake::{Lake, LakeError, Row, Timestamp};
use chrono::NaiveDate;
use rand::Rng;
use rayon::prelude::*;

use crate::WorldStats;
use crate::plan::{Seller, SellerKind, World};
use crate::rng::{self, address, hex_bytes, key, poisson};

const DAY: i64 = 86_400;
const USDC_BASE: &str = "0x833589fcd6edb6e08f4c7c32d4f71b54bda02913";
/// Facilitator signers that broadcast settlements.
const FACILITATORS: &[&str] = &[
    "0xdbdf3d8ed80f84c35d01c6c9f9271761bad90ba6",
    "0x9c9a4b6f2b7f6b1c4e0e6a7d1b5f0c3d2e1a4b7c",
    "0x3be1d9e4c4b3a2f1e0d9c8b7a6f5e4d3c2b1a0f9",
    "0x7f8e9d0c1b2a3f4e5d6c7b8a9f0e1d2c3b4a5f6e",
];
const FIRST_BLOCK: u64 = 38_000_000;

pub(crate) fn day_start(day: NaiveDate) -> i64 {
    day.and_hms_opt(0, 0, 0).expect("midnight").and_utc().timestamp()
}

fn day_of(secs: i64) -> NaiveDate {
    chrono::DateTime::from_timestamp(secs, 0).expect("in range").date_naive()
}

/// Writes rows grouped by the day of their timestamp, one partition per day.
pub(crate) fn write_by_day<R: Row>(lake: &Lake, rows: Vec<(i64, R)>) -> Result<u64, LakeError> {
    let mut by_day: BTreeMap<NaiveDate, Vec<R>> = BTreeMap::new();
    let n = rows.len() as u64;
    for (secs, row) in rows {
        by_day.entry(day_of(secs)).or_default().push(row);
    }
    by_day.into_par_iter().try_for_each(|(day, rows)| lake.write_partition(day, &rows).map(|_| ()))?;
    Ok(n)
}

fn pool_payer(world: &World, index: u32) -> String {
    address(world.config.seed, "payer", u64::from(index))
}

fn self_dealer_payer(world: &World, seller: &Seller, j: usize) -> String {
    address(world.config.seed, "sd-payer", u64::from(seller.index) * 8 + j as u64)
}

fn sybil_client(world: &World, seller: &Seller, j: u32) -> String {
    address(world.config.seed, "sybil-client", u64::from(seller.index) * 64 + u64::from(j))
}

/// Day index (may be negative) to seconds at that day's midnight.
fn day_secs(world: &World, day_index: i32) -> i64 {
    day_start(world.config.start()) + i64::from(day_index) * DAY
}

/// Everything that is not generated day by day.
pub(crate) fn write_static(world: &World, lake: &Lake, stats: &mut WorldStats) -> Result<(), LakeError> {
    let seed = world.config.seed;
    let start = day_secs(world, 0);
    let mut rng = rng::stream(seed, "static", &[]);

    // Registrations and identity proofs.
    let mut registrations = Vec::new();
    let mut proofs = Vec::new();
    for s in &world.sellers {
        let seen = day_secs(world, s.first_seen_day.max(-90)) + rng.random_range(0..DAY);
        if let Some(agent_id) = s.agent_id {
            registrations.push((
                seen,
                RegistrationRow {
                    agent_id,
                    owner: s.address.clone(),
                    agent_wallet: Some(s.address.clone()),
                    registration_uri: format!("ipfs://bafy{}", &hex_bytes(key(seed, "uri", &[agent_id]), 16)[2..]),
                    registered_at: Timestamp::from_secs(seen),
                },
            ));
        }
        for p in &s.proofs {
            let last_second = day_secs(world, world.config.days as i32) - 1;
            let at = (seen + rng.random_range(0..5 * DAY)).min(last_second);
            proofs.push((
                at,
                ProofRow {
                    address: s.address.clone(),
                    proof_type: (*p).to_owned(),
                    source: proof_source(p).to_owned(),
                    verified_at: Timestamp::from_secs(at),
                },
            ));
        }
    }
    for d in &world.deployers {
        for p in &d.proofs {
            let at = start - rng.random_range(DAY..60 * DAY);
            proofs.push((
                at,
                ProofRow {
                    address: d.address.clone(),
                    proof_type: (*p).to_owned(),
                    source: proof_source(p).to_owned(),
                    verified_at: Timestamp::from_secs(at),
                },
            ));
        }
    }
    write_by_day(lake, registrations)?;
    write_by_day(lake, proofs)?;

    // Funding edges: pool payers mostly from exchange hubs, ring payers from their ring's funder,
    // self-dealers' payers from the seller, sybil reviewers from one farm funder per seller.
    let mut funding = Vec::new();
    let mut used: BTreeSet<u32> = BTreeSet::new();
    for s in &world.sellers {
        if !matches!(s.kind, SellerKind::SelfDealing) {
            used.extend(s.customers.iter().copied());
        }
    }
    let edge = |funded: String, funder: String, at: i64, amount: u64| {
        (at, FundingRow { funded, funder, first_funded_at: Timestamp::from_secs(at), amount })
    };
    for &p in &used {
        let mut r = rng::stream(seed, "funding", &[u64::from(p)]);
        let at = start - r.random_range(DAY..120 * DAY);
        let funder = if r.random_bool(0.8) {
            // Zipf-like choice of hub: low indices fund more.
            let h = ((world.hubs.len() as f64) * r.random::<f64>().powi(2)) as usize;
            world.hubs[h.min(world.hubs.len() - 1)].clone()
        } else {
            address(seed, "personal-funder", u64::from(p))
        };
        funding.push(edge(pool_payer(world, p), funder, at, r.random_range(5_000_000..500_000_000)));
    }
    for ring in &world.rings {
        for payer in &ring.payers {
            let at = start - rng.random_range(DAY..10 * DAY);
            funding.push(edge(payer.clone(), ring.funder.clone(), at, 50_000_000));
        }
    }
    for s in &world.sellers {
        match s.kind {
            SellerKind::SelfDealing => {
                for j in 0..s.customers.len() {
                    let at = start - rng.random_range(DAY..10 * DAY);
                    funding.push(edge(self_dealer_payer(world, s, j), s.address.clone(), at, 20_000_000));
                }
            }
            SellerKind::SybilFeedback => {
                let farm = address(seed, "sybil-farm", u64::from(s.index));
                for j in 0..sybil_reviewers(world, s) {
                    let at = start - rng.random_range(DAY..10 * DAY);
                    funding.push(edge(sybil_client(world, s, j), farm.clone(), at, 1_000_000));
                }
            }
            _ => {}
        }
    }
    stats.funding_edges = write_by_day(lake, funding)?;

    // ERC-8004 feedback and receipts.
    let (feedback, receipts): (Vec<_>, Vec<_>) = world.sellers.par_iter().map(|s| seller_reviews(world, s)).unzip();
    stats.feedback = write_by_day(lake, feedback.into_iter().flatten().collect())?;
    write_by_day(lake, receipts.into_iter().flatten().collect())?;

    // Denylist and allowlist.
    let mut lists = Vec::new();
    let listed_at = start - DAY;
    let entry = |address: &str, list: &str, source: &str, category: String| {
        (
            listed_at,
            ListEntryRow {
                address: address.to_owned(),
                list: list.to_owned(),
                source: source.to_owned(),
                category,
                added_at: Timestamp::from_secs(listed_at),
            },
        )
    };
    for s in &world.sellers {
        if s.kind == SellerKind::Denylisted {
            lists.push(entry(&s.address, "deny", "scamsniffer", "phishing:scammer".to_owned()));
        }
        if s.allowlisted {
            lists.push(entry(
                &s.address,
                "allow",
                "agentrep-curated",
                format!("curated:{}", s.description.split(' ').nth(1).unwrap_or("agent")),
            ));
        }
    }
    for d in world.deployers.iter().filter(|d| d.denylisted) {
        lists.push(entry(&d.address, "deny", "defi-rekt", "rugpull:token".to_owned()));
    }
    for i in 0..20 {
        lists.push(entry(&address(seed, "known-bad", i), "deny", "ofac", "sanctions:listed".to_owned()));
    }
    write_by_day(lake, lists)?;
    Ok(())
}

fn proof_source(proof_type: &str) -> &'static str {
    match proof_type {
        "cb1-verified" => "coinbase-verifications",
        "basename" => "basenames-resolver",
        "ens" => "ens-resolver",
        "farcaster-fid" => "farcaster-id-registry",
        _ => "virtuals-registry",
    }
}

fn sybil_reviewers(world: &World, s: &Seller) -> u32 {
    rng::stream(world.config.seed, "sybil-size", &[u64::from(s.index)]).random_range(8..=40)
}

type Review = (i64, FeedbackRow);
type Receipt = (i64, ReceiptRow);

/// ERC-8004 feedback and buyer receipts about one seller.
fn seller_reviews(world: &World, s: &Seller) -> (Vec<Review>, Vec<Receipt>) {
    let mut r = rng::stream(world.config.seed, "reviews", &[u64::from(s.index)]);
    let days = world.config.days as i32;
    let first = s.first_seen_day.max(0);
    let mut feedback = Vec::new();
    let mut receipts = Vec::new();
    let when = |r: &mut rand_chacha::ChaCha8Rng| {
        day_secs(world, r.random_range(first..days.max(first + 1))) + r.random_range(0..DAY)
    };
    if let Some(agent_id) = s.agent_id {
        let mut push = |client: String, index: u64, rating: f64, r: &mut rand_chacha::ChaCha8Rng| {
            let at = when(r);
            let tenths = r.random_bool(0.3);
            let rating = rating.clamp(0.0, 100.0);
            feedback.push((
                at,
                FeedbackRow {
                    agent_id,
                    client,
                    feedback_index: index,
                    value: if tenths { (rating * 10.0).round() as i64 } else { rating.round() as i64 },
                    value_decimals: u32::from(tenths),
                    tag1: "starred".to_owned(),
                    tag2: String::new(),
                    revoked: r.random_bool(0.03),
                    block_time: Timestamp::from_secs(at),
                },
            ));
        };
        if s.kind == SellerKind::SybilFeedback {
            for j in 0..sybil_reviewers(world, s) {
                let rating = r.random_range(92.0..100.0);
                push(sybil_client(world, s, j), 1, rating, &mut r);
            }
        } else if !s.customers.is_empty() {
            let n = (rng::poisson(&mut r, world.params.feedback_per_registered) as usize).min(s.customers.len() * 2);
            for j in 0..n {
                let c = s.customers[r.random_range(0..s.customers.len())];
                let rating = 100.0 * s.quality + r.random_range(-15.0..15.0);
                push(pool_payer(world, c), j as u64 + 1, rating, &mut r);
            }
        }
    }
    let honest_like = matches!(s.kind, SellerKind::Honest | SellerKind::Flapping | SellerKind::Young);
    if honest_like && !s.customers.is_empty() && r.random_bool(0.2) {
        for _ in 0..r.random_range(3..=15) {
            let at = when(&mut r);
            let c = s.customers[r.random_range(0..s.customers.len())];
            let success = r.random_bool(s.quality.clamp(0.05, 0.99));
            receipts.push((
                at,
                ReceiptRow {
                    buyer: pool_payer(world, c),
                    agent: s.address.clone(),
                    tx_hash: None,
                    success,
                    latency_ms: Some(s.latency_ms as u32),
                    rating: Some((100.0 * s.quality + r.random_range(-10.0..10.0)).clamp(0.0, 100.0) as u32),
                    comment: None,
                    received_at: Timestamp::from_secs(at),
                },
            ));
        }
    }
    (feedback, receipts)
}

/// One day of listings (on crawl days), settlements and probes.
pub(crate) fn write_day(
    world: &World,
    lake: &Lake,
    day: u32,
    date: NaiveDate,
    stats: &mut WorldStats,
) -> Result<(), LakeError> {
    let cfg = &world.config;
    let last = cfg.days - 1;
    if day.is_multiple_of(world.params.crawl_every_days) || day == last {
        let crawl_at = day_start(date) + 3 * 3_600;
        let listings: Vec<ListingRow> = world
            .sellers
            .iter()
            .filter(|s| i64::from(s.first_seen_day) <= i64::from(day))
            .flat_map(|s| s.resources.iter().map(move |(resource, pay_to)| (s, resource, pay_to)))
            .map(|(s, resource, pay_to)| ListingRow {
                resource: resource.clone(),
                pay_to: pay_to.clone(),
                network: s.network.to_owned(),
                asset: USDC_BASE.to_owned(),
                price_atomic: s.price,
                description: Some(s.description.clone()),
                tags: s.tags.clone(),
                ecosystem: s.ecosystem.to_owned(),
                first_seen: Timestamp::from_secs(day_secs(world, s.first_seen_day) + 3 * 3_600),
                last_seen: Timestamp::from_secs(crawl_at),
            })
            .collect();
        stats.listings += listings.len() as u64;
        lake.write_partition(date, &listings)?;
    }

    let settlements: Vec<SettlementRow> =
        world.sellers.par_iter().flat_map_iter(|s| seller_settlements(world, s, day, date)).collect();
    stats.settlements += settlements.len() as u64;
    lake.write_partition(date, &settlements)?;

    if day + world.params.probe_days > last {
        let probes: Vec<ProbeRow> =
            world.sellers.par_iter().flat_map_iter(|s| seller_probes(world, s, day, date)).collect();
        stats.probes += probes.len() as u64;
        lake.write_partition(date, &probes)?;
    }
    Ok(())
}

/// One settlement to be written: which day, which draw of the day, when, who paid, how much.
struct Payment {
    day: u32,
    k: u64,
    at: i64,
    payer: String,
    value: u64,
}

fn settlement(world: &World, s: &Seller, p: Payment, r: &mut impl Rng) -> SettlementRow {
    let plain = r.random_bool(0.04);
    SettlementRow {
        tx_hash: hex_bytes(key(world.config.seed, "tx", &[u64::from(s.index), u64::from(p.day), p.k]), 32),
        log_index: r.random_range(0..120),
        block_number: FIRST_BLOCK + ((p.at - day_secs(world, 0)).max(0) / 2) as u64,
        block_time: Timestamp::from_secs(p.at),
        payer: p.payer,
        pay_to: s.address.clone(),
        value: p.value,
        asset: USDC_BASE.to_owned(),
        facilitator: (!plain).then(|| FACILITATORS[r.random_range(0..FACILITATORS.len())].to_owned()),
        eip3009: !plain,
        network: "eip155:8453".to_owned(),
    }
}

fn seller_settlements(world: &World, s: &Seller, day: u32, date: NaiveDate) -> Vec<SettlementRow> {
    let mut r = rng::stream(world.config.seed, "settle", &[u64::from(s.index), u64::from(day)]);
    let start = day_start(date);
    let mut out = Vec::new();
    if let Some(ring) = s.ring.map(|i| &world.rings[i as usize]) {
        let base = day_secs(world, 0);
        for (j, (payer, period)) in ring.payers.iter().zip(&ring.periods).enumerate() {
            let offset = (key(world.config.seed, "phase", &[u64::from(s.index), j as u64]) % (*period as u64)) as i64;
            let first_k = (start - base - offset).div_euclid(*period).max(0);
            let mut k = first_k;
            loop {
                let jitter =
                    (key(world.config.seed, "jitter", &[u64::from(s.index), j as u64, k as u64]) % 200) as i64 - 100;
                let at = base + offset + k * period + jitter * period / 10_000;
                if at >= start + DAY {
                    break;
                }
                if at >= start {
                    let payment =
                        Payment { day, k: (j as u64) << 32 | k as u64, at, payer: payer.clone(), value: s.price };
                    out.push(settlement(world, s, payment, &mut r));
                }
                k += 1;
            }
        }
        return out;
    }
    if !s.active_on(day) || s.customers.is_empty() {
        return out;
    }
    let n = poisson(&mut r, s.rate);
    for k in 0..u64::from(n) {
        let at = start + r.random_range(0..DAY);
        let payer = match s.kind {
            SellerKind::SelfDealing if r.random_bool(0.3) => s.address.clone(),
            SellerKind::SelfDealing => self_dealer_payer(world, s, r.random_range(0..s.customers.len())),
            _ => pool_payer(world, s.customers[r.random_range(0..s.customers.len())]),
        };
        let value = if r.random_bool(0.1) { s.price * 2 } else { s.price };
        out.push(settlement(world, s, Payment { day, k, at, payer, value }, &mut r));
    }
    out
}

fn seller_probes(world: &World, s: &Seller, day: u32, date: NaiveDate) -> Vec<ProbeRow> {
    if i64::from(s.first_seen_day) > i64::from(day) {
        return Vec::new();
    }
    let mut r = rng::stream(world.config.seed, "probe", &[u64::from(s.index), u64::from(day)]);
    let dead = s.death_day.is_some_and(|d| day >= d);
    let per_day = world.params.probes_per_day;
    let mut out = Vec::new();
    for (resource, _) in &s.resources {
        for i in 0..per_day {
            let at = day_start(date) + i64::from(i) * DAY / i64::from(per_day) + r.random_range(0..1_800);
            let ok = !dead && r.random_bool(s.ok_rate.clamp(0.0, 1.0));
            let (status, latency_ms, error) = if ok {
                let status = match r.random_range(0..20) {
                    0 => 200,
                    1 => 405,
                    _ => 402,
                };
                let latency = s.latency_ms * r.random_range(0.6..1.8);
                (Some(status), Some(latency as u32), None)
            } else if r.random_bool(0.6) {
                (None, None, Some(if r.random_bool(0.5) { "timeout" } else { "connection refused" }.to_owned()))
            } else {
                (Some([404, 500, 502][r.random_range(0..3)]), Some(r.random_range(20..400)), None)
            };
            out.push(ProbeRow {
                resource: resource.clone(),
                probed_at: Timestamp::from_secs(at),
                status,
                ok,
                latency_ms,
                error,
                offer_version: (status == Some(402)).then_some(2),
                offer_matches: (status == Some(402)).then_some(true),
            });
        }
    }
    out
}
