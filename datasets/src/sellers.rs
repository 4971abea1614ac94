//! Seller-side datasets: listings, settlements, probes, ERC-8004 registrations and feedback,
//! identity proofs, funding edges, receipts, address lists and entity labels.

use std::collections::BTreeMap;

use agentrep_lake::datasets::{
    AgentCardRow, CrawlRunRow, DomainRankRow, FundingRow, ListingRow, OriginProofRow, PaidProbeRow, ProbeRow,
    RegistrationRow, SettlementRow,
};
use agentrep_lake::{Lake, LakeError, Row, SettlementForm, Timestamp};
use chrono::NaiveDate;
use rand::Rng;
use rayon::prelude::*;

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
///
/// The rows are ordered by day in place ([`group_by_day`]) and each day is split off the end of
/// the vector as it is written, a few days at once: no second copy of the rows is ever held, which
/// at ten times the benchmark scale is gigabytes.
pub(crate) fn write_by_day_as<C: Send, R: Row>(
    lake: &Lake,
    mut rows: Vec<(i64, C)>,
    days: &[NaiveDate],
    row: impl Fn(i64, C) -> R + Sync,
) -> Result<u64, LakeError> {
    if let Some(last) = days.last() {
        rows.retain(|(secs, _)| day_of(*secs) <= *last);
    }
    let written = rows.len() as u64;
    let mut pending: Vec<(NaiveDate, std::ops::Range<usize>)> = group_by_day(&mut rows, days).into_iter().collect();
    let at_once = rayon::current_num_threads().max(1);
    while !pending.is_empty() {
        // The latest days first, each split off the end of `rows`.
        let batch = pending.split_off(pending.len().saturating_sub(at_once));
        let parts: Vec<(NaiveDate, Vec<(i64, C)>)> =
            batch.into_iter().rev().map(|(day, range)| (day, rows.split_off(range.start))).collect();
        parts.into_par_iter().try_for_each(|(day, part)| {
            let rows: Vec<R> = part.into_iter().map(|(secs, c)| row(secs, c)).collect();
            lake.write_partition(day, &rows).map(|_| ())
        })?;
    }
    Ok(written)
}

/// Orders rows by the day of their timestamp in place, keeping their order within a day, and
/// gives the range of every day that has rows and of every day of `days` (empty when it has none).
/// A counting sort whose permutation is applied by following its cycles: the only extra memory is
/// one index per row.
fn group_by_day<C>(rows: &mut [(i64, C)], days: &[NaiveDate]) -> BTreeMap<NaiveDate, std::ops::Range<usize>> {
    let day_number = |secs: i64| secs.div_euclid(DAY);
    let mut counts: BTreeMap<i64, u32> = days.iter().map(|d| (day_number(day_start(*d)), 0)).collect();
    for (secs, _) in rows.iter() {
        *counts.entry(day_number(*secs)).or_default() += 1;
    }
    let mut next: BTreeMap<i64, u32> = BTreeMap::new();
    let mut ranges = BTreeMap::new();
    let mut start = 0u32;
    for (day, count) in counts {
        next.insert(day, start);
        ranges.insert(day_of(day * DAY), start as usize..(start + count) as usize);
        start += count;
    }
    let mut destination: Vec<u32> = rows
        .iter()
        .map(|(secs, _)| {
            let slot = next.get_mut(&day_number(*secs)).expect("counted above");
            *slot += 1;
            *slot - 1
        })
        .collect();
    for i in 0..rows.len() {
        while destination[i] as usize != i {
            let j = destination[i] as usize;
            rows.swap(i, j);
            destination.swap(i, j);
        }
    }
    ranges
}

/// One dataset's rows that are not generated day by day, moved out of the plan in write order:
/// the sellers', the common ones, the deployers' (`deployers`), then `before_griefing` runs, then
/// the griefers' (last, so a world without griefing is this one minus those rows). The vector is
/// sized once for all of them.
fn static_of<T>(
    world: &mut World,
    deployers: &mut Events,
    field: impl Fn(&mut Events) -> &mut Vec<(i64, T)>,
    before_griefing: impl FnOnce(&mut Vec<(i64, T)>),
) -> Vec<(i64, T)> {
    let World { sellers, common, grief, .. } = world;
    let mut len = field(common).len() + field(deployers).len();
    len += sellers.iter_mut().map(|s| field(&mut s.events).len()).sum::<usize>();
    len += grief.iter_mut().map(|g| field(&mut g.events).len()).sum::<usize>();
    let mut rows = Vec::with_capacity(len);
    for events in (sellers.iter_mut().map(|s| &mut s.events)).chain([common, deployers]) {
        rows.append(field(events));
    }
    before_griefing(&mut rows);
    for g in grief.iter_mut() {
        rows.append(field(&mut g.events));
    }
    rows
}

/// Keeps one first funding per wallet: its earliest edge, the first listed among edges at the same
/// time. Ordered through an index per edge, not a map of every funded wallet.
fn keep_first_fundings(rows: &mut Vec<(i64, FundingRow)>) {
    let count = u32::try_from(rows.len()).expect("fewer than 4 billion funding edges");
    let mut order: Vec<u32> = (0..count).collect();
    order.par_sort_unstable_by(|&a, &b| {
        let ((at_a, a_row), (at_b, b_row)) = (&rows[a as usize], &rows[b as usize]);
        a_row.funded.cmp(&b_row.funded).then(at_a.cmp(at_b)).then(a.cmp(&b))
    });
    let mut keep = vec![false; rows.len()];
    let mut previous: Option<&str> = None;
    for &i in &order {
        let funded = rows[i as usize].1.funded.as_str();
        if previous != Some(funded) {
            keep[i as usize] = true;
            previous = Some(funded);
        }
    }
    let mut i = 0;
    rows.retain(|_| {
        i += 1;
        keep[i - 1]
    });
}

/// Every static row at once, as [`write_static`] writes them one dataset at a time.
#[cfg(test)]
pub(crate) struct StaticRows {
    pub events: Events,
    /// Launches, their observations and buys (the deployers' other rows are in `events`).
    pub deployers: crate::deployers::DeployerRows,
}

/// Moves the static rows out of the plan.
#[cfg(test)]
pub(crate) fn static_rows(world: &mut World) -> StaticRows {
    let mut deployers = crate::deployers::rows(world);
    let own = &mut deployers.events;
    let events = Events {
        funding: static_of(world, own, |e| &mut e.funding, keep_first_fundings),
        proofs: static_of(world, own, |e| &mut e.proofs, |_| {}),
        feedback: static_of(world, own, |e| &mut e.feedback, |_| {}),
        receipts: static_of(world, own, |e| &mut e.receipts, |_| {}),
        registrations: static_of(world, own, |e| &mut e.registrations, |_| {}),
        lists: static_of(world, own, |e| &mut e.lists, |_| {}),
        labels: static_of(world, own, |e| &mut e.labels, |_| {}),
        streams: Vec::new(),
    };
    StaticRows { events, deployers }
}

/// Writes everything that is not generated day by day, one dataset at a time: each is moved out
/// of the plan, written and dropped before the next, so the rows held at once are the plan's and
/// one dataset's vector (the deployers' launches, observations and buys are written first).
pub(crate) fn write_static(
    world: &mut World,
    lake: &Lake,
    days: &[NaiveDate],
    stats: &mut WorldStats,
) -> Result<(), LakeError> {
    let mut deployers = crate::deployers::rows(world);
    let observations = std::mem::take(&mut deployers.observations);
    stats.observations = write_by_day_as(lake, observations, days, |_, o| deployers.observation_row(o))?;
    let buys = std::mem::take(&mut deployers.buys);
    stats.token_buys = write_by_day_as(lake, buys, days, |at, b| deployers.buy_row(at, b))?;
    let own = &mut std::mem::take(&mut deployers.events);
    stats.launches = write_by_day(lake, deployers.launches, days)?;
    let registrations = static_of(world, own, |e| &mut e.registrations, |_| {});
    write_by_day(lake, agent_cards(world.config.seed, &registrations), days)?;
    write_by_day(lake, registrations, days)?;
    write_by_day(lake, static_of(world, own, |e| &mut e.proofs, |_| {}), days)?;
    stats.funding_edges = write_by_day(lake, static_of(world, own, |e| &mut e.funding, keep_first_fundings), days)?;
    stats.feedback = write_by_day(lake, static_of(world, own, |e| &mut e.feedback, |_| {}), days)?;
    write_by_day(lake, static_of(world, own, |e| &mut e.receipts, |_| {}), days)?;
    write_by_day(lake, static_of(world, own, |e| &mut e.lists, |_| {}), days)?;
    write_by_day(lake, static_of(world, own, |e| &mut e.labels, |_| {}), days)?;
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
    lake.write_partition(date, &rows.origin_proofs)?;
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
    /// The day's fetch of every listed origin's discovery document that holds a proof.
    pub origin_proofs: Vec<OriginProofRow>,
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
    let origin_proofs = origin_proofs(world, day, date);
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
    settlements.extend(crate::receivers::receiver_settlements(world, day, from));
    let probes = (day + world.params.probe_days > last)
        .then(|| world.sellers.par_iter().flat_map_iter(|s| seller_probes(world, s, day, date)).collect());
    DayRows { listings, domain_ranks, origin_proofs, paid_probes, settlements, probes }
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

/// Share of sellers, of every kind, whose origin serves an ownership proof of their payTo, in
/// tenths (signing one's origin costs nothing, so attackers do it as often as anyone).
const ORIGIN_PROOF_TENTHS: u64 = 2;

/// The origin-proof job's fetch on `day` of the origins that serve a proof: each such seller's
/// first resource's origin, signed by its payTo. Origins without a document are not written (the
/// job's rows for them bind nobody). Derived from hashes of the seller's index, so no other stream
/// of the world moves.
fn origin_proofs(world: &World, day: u32, date: NaiveDate) -> Vec<OriginProofRow> {
    let fetched_at = Timestamp::from_secs(day_start(date) + 5 * 3_600);
    let mut rows: Vec<OriginProofRow> = world
        .sellers
        .iter()
        .filter(|s| i64::from(s.first_seen_day) <= i64::from(day))
        .filter(|s| key(world.config.seed, "origin-proof", &[u64::from(s.index)]) % 10 < ORIGIN_PROOF_TENTHS)
        .map(|s| {
            let origin = agentrep_model::live::origin(&s.resources[0].url);
            OriginProofRow {
                url: format!("{origin}/.well-known/x402"),
                origin,
                fetched_at,
                answered: true,
                signers: vec![s.address.to_lowercase()],
                proofs: 1,
                digest: Some(
                    rng::hex_bytes(key(world.config.seed, "origin-proof-doc", &[u64::from(s.index)]), 32)[2..]
                        .to_owned(),
                ),
                error: None,
            }
        })
        .collect();
    rows.sort_by(|a, b| a.origin.cmp(&b.origin));
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
pub(crate) fn row(
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
    let form = if plain { SettlementForm::Transfer } else { x402_form(h) };
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
        eip3009: form == SettlementForm::Eip3009,
        network: network.to_owned(),
        form: Some(form),
        channel: None,
        builder_app: None,
        builder_wallet: None,
        builder_services: None,
    }
}

/// The form an x402 settlement takes, from bits of its key no other fact reads (no draw from the
/// random stream, so the rest of the world is what it was): about 4 % through the exact Permit2
/// proxy, 2 % through the `upto` proxy, 3 % escrow charges and 3 % channel claims, the rest
/// EIP-3009, which carries most of the real economy's volume (x402.md § 8).
fn x402_form(h: u64) -> SettlementForm {
    match (h >> 40) % 100 {
        0..=3 => SettlementForm::Permit2,
        4..=5 => SettlementForm::Upto,
        6..=8 => SettlementForm::AuthCapture,
        9..=11 => SettlementForm::BatchClaim,
        _ => SettlementForm::Eip3009,
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
            } else if s.kind.has_pool_demand() && crate::receivers::one_off(world, &mut r) {
                rng::hex_bytes(key(seed, "one-off-buyer", &[u64::from(s.index), u64::from(day), k]), 20)
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
            // The wallet the 402 asks to be paid: the listing's, or the hijacker's when a payTo
            // mismatch is what this probe saw.
            let offer_pay_tos = match (matches, s.mismatch) {
                (None, _) => Vec::new(),
                (Some(false), Some((Mismatch::PayTo, _, _))) => {
                    vec![address(world.config.seed, "hijack", u64::from(s.index))]
                }
                (Some(_), _) => vec![res.pay_to.to_ascii_lowercase()],
            };
            out.push(ProbeRow {
                resource: res.url.clone(),
                probed_at: Timestamp::from_secs(at),
                status,
                ok,
                latency_ms,
                error,
                offer_version: offer.then_some(s.offer_version),
                offer_matches: matches,
                offer_pay_tos,
            });
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn edge(funded: &str, funder: &str, at: i64) -> (i64, FundingRow) {
        crate::plan::funding_row(funded, funder, at, 1)
    }

    #[test]
    fn grouping_by_day_is_a_stable_sort_by_day() {
        let mut r = rng::stream(7, "group-by-day", &[]);
        // Days before the epoch too (negative seconds), as planned fundings can be.
        let rows: Vec<(i64, u32)> = (0..5_000).map(|i| (r.random_range(-3 * DAY..40 * DAY), i)).collect();
        let mut grouped = rows.clone();
        let days: Vec<NaiveDate> = (-5..45).map(|d| day_of(d * DAY)).collect();
        let ranges = group_by_day(&mut grouped, &days);
        assert!(days.iter().all(|d| ranges.contains_key(d)), "every listed day has a range, empty or not");
        let mut expected = rows;
        expected.sort_by_key(|(secs, _)| secs.div_euclid(DAY));
        assert_eq!(grouped, expected);
        let mut end = 0;
        for (day, range) in ranges {
            assert_eq!(range.start, end, "ranges are contiguous, in day order");
            assert!(grouped[range.clone()].iter().all(|(secs, _)| day_of(*secs) == day), "{day}");
            end = range.end;
        }
        assert_eq!(end, grouped.len());
    }

    #[test]
    fn a_wallets_first_funding_is_its_earliest_edge_and_the_first_listed_of_a_tie() {
        let mut rows = vec![
            edge("0xb", "0xlate", 300),
            edge("0xa", "0xsecond", 200),
            edge("0xb", "0xfirst", 100),
            edge("0xa", "0xtie-first", 50),
            edge("0xc", "0xonly", 10),
            edge("0xa", "0xtie-second", 50),
        ];
        keep_first_fundings(&mut rows);
        let kept: Vec<(&str, &str)> = rows.iter().map(|(_, r)| (r.funded.as_str(), r.funder.as_str())).collect();
        // The kept edges stay in their listed order.
        assert_eq!(kept, [("0xb", "0xfirst"), ("0xa", "0xtie-first"), ("0xc", "0xonly")]);
    }
}
