//! Seller-side datasets: listings, settlements, probes, ERC-8004 registrations and feedback,
//! identity proofs, funding edges, receipts, address lists and entity labels.

use std::collections::{BTreeMap, HashMap};

use agentrep_lake::datasets::{
    AgentCardRow, CrawlRunRow, DomainRankRow, ListingRow, PaidProbeRow, ProbeRow, RegistrationRow, SettlementRow,
};
use agentrep_lake::{Lake, LakeError, Row, Timestamp};
use chrono::NaiveDate;
use rand::Rng;
use rayon::prelude::*;

use crate::deployers::DeployerRows;
use crate::plan::{
    BASE, BASE_SEPOLIA, DAY, EURC_BASE, Events, FACILITATORS, Mismatch, Rail, Seller, SellerKind, Stream, USDC_BASE,
    USDC_BASE_SEPOLIA, World, tx_hash,
};
use crate::rng::{self, address, key, poisson};
use crate::{WorldStats, day_start};

const FIRST_BLOCK: u64 = 38_000_000;
const FIRST_BLOCK_SEPOLIA: u64 = 33_000_000;

fn day_of(secs: i64) -> NaiveDate {
    chrono::DateTime::from_timestamp(secs, 0).expect("in range").date_naive()
}

/// Writes rows grouped by the day of their timestamp, one partition per day, and an empty
/// partition for every day of `days` that has none (a daily ingest that found nothing).
///
/// The world ends on its last day: rows dated later (a plan that would fund a wallet after the
/// window, say) have not happened yet and are not written.
pub(crate) fn write_by_day<R: Row>(lake: &Lake, rows: Vec<(i64, R)>, days: &[NaiveDate]) -> Result<u64, LakeError> {
    write_by_day_as(lake, rows, days, |_, row| row)
}

/// [`write_by_day`] of rows kept in a compact form, each turned into its lake row (`row(secs,
/// compact)`) only when its day's partition is written, so that only the days being written hold
/// their strings.
pub(crate) fn write_by_day_as<C: Send, R: Row>(
    lake: &Lake,
    rows: Vec<(i64, C)>,
    days: &[NaiveDate],
    row: impl Fn(i64, C) -> R + Sync,
) -> Result<u64, LakeError> {
    let mut by_day: BTreeMap<NaiveDate, Vec<(i64, C)>> = days.iter().map(|d| (*d, Vec::new())).collect();
    let last = days.last().copied();
    let mut n = 0;
    for (secs, compact) in rows {
        let day = day_of(secs);
        if last.is_some_and(|last| day > last) {
            continue;
        }
        n += 1;
        by_day.entry(day).or_default().push((secs, compact));
    }
    by_day.into_par_iter().try_for_each(|(day, compact)| {
        let rows: Vec<R> = compact.into_iter().map(|(secs, c)| row(secs, c)).collect();
        lake.write_partition(day, &rows).map(|_| ())
    })?;
    Ok(n)
}

/// Every row that is not generated day by day, in write order (griefing last).
#[derive(Debug)]
pub(crate) struct StaticRows {
    pub events: Events,
    /// Launches, their observations and buys (the deployers' other rows are in `events`).
    pub deployers: DeployerRows,
}

/// Moves the static rows out of the plan.
pub(crate) fn static_rows(world: &mut World) -> StaticRows {
    let mut deployer_rows = crate::deployers::rows(world);
    let mut all = Events::with_capacity_for(
        (world.sellers.iter().map(|s| &s.events))
            .chain([&world.common, &deployer_rows.events])
            .chain(world.grief.iter().map(|g| &g.events)),
    );
    let take = |all: &mut Events, e: &mut Events| {
        all.funding.append(&mut e.funding);
        all.proofs.append(&mut e.proofs);
        all.feedback.append(&mut e.feedback);
        all.receipts.append(&mut e.receipts);
        all.registrations.append(&mut e.registrations);
        all.lists.append(&mut e.lists);
        all.labels.append(&mut e.labels);
    };
    for s in &mut world.sellers {
        take(&mut all, &mut s.events);
    }
    take(&mut all, &mut world.common);
    take(&mut all, &mut deployer_rows.events);
    // One first funder per wallet: the earliest edge wins.
    let mut first: HashMap<&str, (i64, usize)> = HashMap::new();
    for (i, (at, row)) in all.funding.iter().enumerate() {
        let e = first.entry(row.funded.as_str()).or_insert((*at, i));
        if *at < e.0 {
            *e = (*at, i);
        }
    }
    let mut keep = vec![false; all.funding.len()];
    for (_, i) in first.values() {
        keep[*i] = true;
    }
    let mut i = 0;
    all.funding.retain(|_| {
        i += 1;
        keep[i - 1]
    });
    // Griefing last, so a world without it is this one minus those rows.
    for g in &mut world.grief {
        take(&mut all, &mut g.events);
    }
    StaticRows { events: all, deployers: deployer_rows }
}

/// Writes everything that is not generated day by day (events are moved out of the plan).
pub(crate) fn write_static(
    world: &mut World,
    lake: &Lake,
    days: &[NaiveDate],
    stats: &mut WorldStats,
) -> Result<(), LakeError> {
    let StaticRows { events: all, mut deployers } = static_rows(world);
    write_by_day(lake, agent_cards(world.config.seed, &all.registrations), days)?;
    write_by_day(lake, all.registrations, days)?;
    write_by_day(lake, all.proofs, days)?;
    stats.funding_edges = write_by_day(lake, all.funding, days)?;
    stats.feedback = write_by_day(lake, all.feedback, days)?;
    write_by_day(lake, all.receipts, days)?;
    write_by_day(lake, all.lists, days)?;
    write_by_day(lake, all.labels, days)?;
    let observations = std::mem::take(&mut deployers.observations);
    stats.observations = write_by_day_as(lake, observations, days, |_, o| deployers.observation_row(o))?;
    let buys = std::mem::take(&mut deployers.buys);
    stats.token_buys = write_by_day_as(lake, buys, days, |at, b| deployers.buy_row(at, b))?;
    stats.launches = write_by_day(lake, deployers.launches, days)?;
    Ok(())
}

/// Share of registration files that link back to this service, in tenths.
const CARD_LINKS_BACK_TENTHS: u64 = 3;
/// Share of registration files whose fetch fails, in hundredths.
const CARD_FAILS_HUNDREDTHS: u64 = 5;

/// The fetch of each registration's file ten minutes after it was registered, as the agent-card
/// job records it. Derived from hashes of the agent id, so no other stream of the world moves.
fn agent_cards(seed: u64, registrations: &[(i64, RegistrationRow)]) -> Vec<(i64, AgentCardRow)> {
    registrations
        .iter()
        .map(|(at, reg)| {
            let fetched = at + 600;
            let h = key(seed, "agent-card", &[reg.agent_id]);
            let failed = h % 100 < CARD_FAILS_HUNDREDTHS;
            let card = AgentCardRow {
                agent_id: reg.agent_id,
                uri: reg.registration_uri.clone(),
                fetched_at: Timestamp::from_secs(fetched),
                name: (!failed).then(|| format!("agent-{}", reg.agent_id)),
                description: None,
                endpoints: Vec::new(),
                wallets: if failed { Vec::new() } else { reg.agent_wallet.iter().cloned().collect() },
                links_back: !failed && (h / 100) % 10 < CARD_LINKS_BACK_TENTHS,
                digest: (!failed).then(|| rng::hex_bytes(h, 32)[2..].to_owned()),
                error: failed.then(|| "timeout".to_owned()),
            };
            (fetched, card)
        })
        .collect()
}

/// One crawl run per marketplace on a crawl day, as the marketplace job records it.
fn crawl_runs(listings: &[ListingRow]) -> Vec<CrawlRunRow> {
    let mut by_ecosystem: BTreeMap<&str, (u32, i64)> = BTreeMap::new();
    for l in listings {
        let e = by_ecosystem.entry(l.ecosystem.as_str()).or_insert((0, 0));
        e.0 += 1;
        e.1 = e.1.max(l.last_seen.secs());
    }
    by_ecosystem
        .into_iter()
        .map(|(ecosystem, (items, at))| CrawlRunRow {
            source_url: format!("https://{ecosystem}.example/discovery/resources"),
            ecosystem: ecosystem.to_owned(),
            started_at: Timestamp::from_secs(at - 600),
            finished_at: Timestamp::from_secs(at),
            pages: items.div_ceil(100),
            items,
            listings: items,
            skipped: Vec::new(),
            error: None,
        })
        .collect()
}

/// One day of listings (on crawl days), settlements and probes.
pub(crate) fn write_day(
    world: &World,
    lake: &Lake,
    day: u32,
    date: NaiveDate,
    stats: &mut WorldStats,
) -> Result<(), LakeError> {
    let rows = day_rows(world, day, date);
    if let Some(listings) = rows.listings {
        stats.listings += listings.len() as u64;
        lake.write_partition(date, &listings)?;
        lake.write_partition(date, &crawl_runs(&listings))?;
    }
    if let Some(ranks) = rows.domain_ranks {
        lake.write_partition(date, &ranks)?;
    }
    lake.write_partition(date, &rows.paid_probes)?;
    stats.settlements += rows.settlements.len() as u64;
    lake.write_partition(date, &rows.settlements)?;
    if let Some(probes) = rows.probes {
        stats.probes += probes.len() as u64;
        lake.write_partition(date, &probes)?;
    }
    Ok(())
}

/// The daily rows of one day.
pub(crate) struct DayRows {
    pub listings: Option<Vec<ListingRow>>,
    /// The ranked-domain list, fetched on crawl days.
    pub domain_ranks: Option<Vec<DomainRankRow>>,
    /// agentrep's own paid calls of the day.
    pub paid_probes: Vec<PaidProbeRow>,
    pub settlements: Vec<SettlementRow>,
    pub probes: Option<Vec<ProbeRow>>,
}

pub(crate) fn day_rows(world: &World, day: u32, date: NaiveDate) -> DayRows {
    let cfg = &world.config;
    let last = cfg.days - 1;
    let listings = (day.is_multiple_of(world.params.crawl_every_days) || day == last).then(|| {
        let crawl_at = day_start(date) + 3 * 3_600;
        world
            .sellers
            .iter()
            .filter(|s| i64::from(s.first_seen_day) <= i64::from(day))
            .flat_map(|s| s.resources.iter().map(move |res| (s, res)))
            .map(|(s, res)| ListingRow {
                resource: res.url.clone(),
                pay_to: res.pay_to.clone(),
                network: s.network.to_owned(),
                asset: USDC_BASE.to_owned(),
                price_atomic: res.price,
                description: Some(s.description.clone()),
                tags: s.tags.clone(),
                ecosystem: s.ecosystem.to_owned(),
                first_seen: Timestamp::from_secs(day_secs(world, s.first_seen_day) + 3 * 3_600),
                last_seen: Timestamp::from_secs(crawl_at),
            })
            .collect()
    });
    let domain_ranks = listings.is_some().then(|| domain_ranks(world, day, date));
    let paid_probes = world.sellers.iter().filter_map(|s| paid_probe(world, s, day, date)).collect();
    let from = day_start(date);
    let surge = if day == last { rate_surge(world) } else { 1.0 };
    let mut settlements: Vec<SettlementRow> =
        world.sellers.par_iter().flat_map_iter(|s| seller_settlements(world, s, day, date, surge)).collect();
    let grief: Vec<SettlementRow> = world
        .grief
        .par_iter()
        .flat_map_iter(|g| g.events.streams.iter().flat_map(|st| stream_rows(world, st, "gtx", from)))
        .collect();
    settlements.extend(grief);
    let probes = (day + world.params.probe_days > last)
        .then(|| world.sellers.par_iter().flat_map_iter(|s| seller_probes(world, s, day, date)).collect());
    DayRows { listings, domain_ranks, paid_probes, settlements, probes }
}

/// The ranked-domain list as fetched on `day`: the rank of every listed seller's web domain
/// that has one (the ingest keeps only domains the listings use).
fn domain_ranks(world: &World, day: u32, date: NaiveDate) -> Vec<DomainRankRow> {
    let fetched_at = Timestamp::from_secs(day_start(date) + 2 * 3_600);
    let mut rows: Vec<DomainRankRow> = world
        .sellers
        .iter()
        .filter(|s| i64::from(s.first_seen_day) <= i64::from(day))
        .filter_map(|s| {
            let rank = s.domain_rank?;
            let domain = agentrep_lake::domain::registrable(&s.resources[0].url)?;
            Some(DomainRankRow {
                domain,
                rank,
                list: "tranco".to_owned(),
                list_id: format!("world-{date}"),
                source: "generated world".to_owned(),
                fetched_at,
            })
        })
        .collect();
    rows.sort_by(|a, b| a.domain.cmp(&b.domain));
    rows.dedup_by(|a, b| a.domain == b.domain);
    rows
}

/// Most agentrep's paid probe pays for one call, micro-USDC.
const PAID_PROBE_MAX_PRICE: u64 = 1_000_000;
/// Days between two paid probes of one seller.
const PAID_PROBE_EVERY_DAYS: u32 = 7;

/// agentrep's paid call to `s` on `day`, when its turn comes: it pays the cheapest listed
/// resource (up to [`PAID_PROBE_MAX_PRICE`]) and records whether the money moved and whether the
/// answer came. A seller that takes the money and fails (`pay-then-fail`, on `fail_share` of calls)
/// does so to agentrep too; a dead or mismatching endpoint is never paid.
fn paid_probe(world: &World, s: &Seller, day: u32, date: NaiveDate) -> Option<PaidProbeRow> {
    if i64::from(s.first_seen_day) > i64::from(day)
        || !(day + s.index).is_multiple_of(PAID_PROBE_EVERY_DAYS)
        || s.price() > PAID_PROBE_MAX_PRICE
    {
        return None;
    }
    let mut r = rng::stream(world.config.seed, "paid-probe", &[u64::from(s.index), u64::from(day)]);
    let at = day_start(date) + r.random_range(4 * 3_600..20 * 3_600);
    let res = &s.resources[0];
    let mismatching = matches!(s.mismatch, Some((_, from, share)) if day >= from && r.random_bool(share));
    let dead = s.death_day.is_some_and(|d| day >= d);
    let answered = !dead && r.random_bool(s.ok_rate.clamp(0.0, 1.0));
    let offered = answered && (s.kind != SellerKind::ScamListing || r.random_bool(0.4));
    let (status, settled, delivered, error) = if !offered {
        (None, Some(false), false, Some("no-offer".to_owned()))
    } else if mismatching {
        (Some(402), Some(false), false, Some("offer-mismatch".to_owned()))
    } else if s.kind == SellerKind::PayThenFail && r.random_bool(s.fail_share.clamp(0.0, 1.0)) {
        (Some(500), Some(true), false, Some("http-500".to_owned()))
    } else if r.random_bool(0.995) {
        (Some(200), Some(true), true, None)
    } else {
        (Some(502), Some(true), false, Some("http-502".to_owned()))
    };
    Some(PaidProbeRow {
        resource: res.url.clone(),
        pay_to: s.address.clone(),
        probed_at: Timestamp::from_secs(at),
        payer: address(world.config.seed, "oracle", 0),
        network: BASE.to_owned(),
        asset: USDC_BASE.to_owned(),
        amount: res.price,
        nonce: format!("0x{:064x}", u64::from(s.index) << 32 | u64::from(day)),
        status,
        body_bytes: if delivered { r.random_range(64..4_096) } else { 0 },
        delivered,
        settled,
        tx_hash: (settled == Some(true))
            .then(|| tx_hash(world.config.seed, "paid-probe", u64::from(s.index), u64::from(day))),
        error,
    })
}

/// Day index (may be negative) to seconds at that day's midnight.
fn day_secs(world: &World, day_index: i32) -> i64 {
    day_start(world.config.start()) + i64::from(day_index) * DAY
}

/// One settlement row.
#[allow(clippy::too_many_arguments)]
fn row(
    world: &World,
    tx_hash: String,
    h: u64,
    at: i64,
    payer: String,
    pay_to: String,
    value: u64,
    rail: Rail,
) -> SettlementRow {
    let since = (at - day_secs(world, 0)).max(0) as u64;
    let (network, asset, block) = match rail {
        Rail::Testnet => (BASE_SEPOLIA, USDC_BASE_SEPOLIA, FIRST_BLOCK_SEPOLIA + since / 2),
        Rail::OtherAsset => (BASE, EURC_BASE, FIRST_BLOCK + since / 2),
        Rail::X402 | Rail::Plain => (BASE, USDC_BASE, FIRST_BLOCK + since / 2),
    };
    let plain = rail == Rail::Plain;
    SettlementRow {
        tx_hash,
        log_index: (h % 120) as u32,
        block_number: block,
        block_time: Timestamp::from_secs(at),
        payer,
        pay_to,
        value,
        asset: asset.to_owned(),
        facilitator: (!plain).then(|| FACILITATORS[((h >> 8) % FACILITATORS.len() as u64) as usize].0.to_owned()),
        eip3009: !plain,
        network: network.to_owned(),
    }
}

/// A stream's payments on the day starting at `from`.
fn stream_rows<'a>(world: &'a World, st: &'a Stream, space: &'static str, from: i64) -> Vec<SettlementRow> {
    let seed = world.config.seed;
    st.payments_in(seed, space, from, from + DAY)
        .into_iter()
        .map(|(k, at)| {
            let h = key(seed, space, &[st.tag, k, 1]);
            row(world, tx_hash(seed, space, st.tag, k), h, at, st.payer.clone(), st.pay_to.clone(), st.value, st.rail)
        })
        .collect()
}

/// Whether a seller's settlements on `day` are drawn at its rate (the rest follow scripted streams).
fn paid_at_rate(s: &Seller, day: u32) -> bool {
    s.active_on(day) && (!s.customers.is_empty() || !s.extra_payers.is_empty()) && s.rate > 0.0
}

/// Multiplier of every rate on the last day that makes it about
/// [`crate::WorldConfig::last_day_surge`] times an ordinary last day: the scripted and griefing
/// streams keep their schedules, so the rates carry the whole surge.
fn rate_surge(world: &World) -> f64 {
    let k = world.config.last_day_surge.max(1);
    if k == 1 {
        return 1.0;
    }
    let last = world.config.days - 1;
    let (from, to) = (day_secs(world, last as i32), day_secs(world, last as i32 + 1));
    let at_rate: f64 = world.sellers.iter().filter(|s| paid_at_rate(s, last)).map(|s| s.rate).sum();
    let streams =
        world.sellers.iter().flat_map(|s| &s.events.streams).chain(world.grief.iter().flat_map(|g| &g.events.streams));
    let scheduled: f64 = streams.map(|st| st.expected(to).saturating_sub(st.expected(from)) as f64).sum();
    if at_rate <= 0.0 {
        return 1.0;
    }
    1.0 + f64::from(k - 1) * (at_rate + scheduled) / at_rate
}

fn seller_settlements(world: &World, s: &Seller, day: u32, date: NaiveDate, surge: f64) -> Vec<SettlementRow> {
    let seed = world.config.seed;
    let mut r = rng::stream(seed, "settle", &[u64::from(s.index), u64::from(day)]);
    let start = day_start(date);
    let mut out = Vec::new();
    if paid_at_rate(s, day) {
        let n = poisson(&mut r, s.rate * surge);
        for k in 0..u64::from(n) {
            let at = start + r.random_range(0..DAY);
            let payer = if s.kind == SellerKind::SelfDealing && r.random_bool(s.self_pay_share) {
                s.address.clone()
            } else if !s.extra_payers.is_empty() && (s.customers.is_empty() || r.random_bool(s.extra_share)) {
                s.extra_payers[r.random_range(0..s.extra_payers.len())].clone()
            } else {
                address(seed, "payer", u64::from(s.customers[r.random_range(0..s.customers.len())]))
            };
            let res = if s.kind == SellerKind::MultiPrice { r.random_range(0..s.resources.len()) } else { 0 };
            let price = s.resources[res].price;
            let mut value = if r.random_bool(0.1) { price * 2 } else { price };
            let mut rail = if r.random_bool(0.04) { Rail::Plain } else { Rail::X402 };
            let mut pay_to = s.address.clone();
            if let Some((m, from, share)) = s.mismatch
                && day >= from
                && r.random_bool(share)
            {
                match m {
                    Mismatch::PayTo => pay_to = address(seed, "hijack", u64::from(s.index)),
                    Mismatch::AssetNetwork => {
                        rail = if s.index.is_multiple_of(2) { Rail::OtherAsset } else { Rail::Testnet };
                    }
                    Mismatch::Price(f) => value = (price as f64 * f).round() as u64,
                }
            }
            let h = key(seed, "tx-meta", &[u64::from(s.index), u64::from(day), k]);
            let hash = rng::hex_bytes(key(seed, "tx", &[u64::from(s.index), u64::from(day), k]), 32);
            out.push(row(world, hash, h, at, payer, pay_to, value, rail));
        }
    }
    for st in &s.events.streams {
        out.extend(stream_rows(world, st, "stx", start));
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
    let well_formed = if s.kind == SellerKind::ScamListing { 0.4 } else { 0.98 };
    let mut out = Vec::new();
    for res in &s.resources {
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
            let offer = status == Some(402) && r.random_bool(well_formed);
            let matches = offer.then(|| match s.mismatch {
                Some((_, from, share)) if day >= from => !r.random_bool(share),
                _ => r.random_bool(0.995),
            });
            out.push(ProbeRow {
                resource: res.url.clone(),
                probed_at: Timestamp::from_secs(at),
                status,
                ok,
                latency_ms,
                error,
                offer_version: offer.then_some(s.offer_version),
                offer_matches: matches,
            });
        }
    }
    out
}
