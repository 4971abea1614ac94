//! The overlay: evidence newer than the current snapshot that only the operator creates (its
//! probes of the sellers' endpoints, its own paid calls, denylist entries from the lists it
//! configured), folded into each affected seller's features with the model's `fold_fast` and
//! judged with `assess_seller`, published between rebuilds beside the snapshots
//! (`SnapshotStore::publish_overlay`). The scheduler publishes one after every round of ingest;
//! `agentrep overlay` publishes one by hand.
//!
//! It reads nothing an outsider can write (no transfers, no reviews, no receipts), and
//! `fast_verdict` keeps a seller's published decision unless the fold lowers it.

use std::collections::{BTreeMap, BTreeSet, HashMap};
use std::fs;

use agentrep_lake::datasets::{ListEntryRow, ListingRow, PaidProbeRow, ProbeRow};
use agentrep_lake::{Dataset, Lake, Row};
use agentrep_model::decision::assess_seller;
use agentrep_model::live::{FastEvidence, fast_verdict, fold_fast, origin};
use agentrep_model::{FlagKey, PaidCallOutcome, PaidProbeStats};
use agentrep_publish::layout;
use agentrep_publish::live::{LiveBases, LiveSellerV1};
use agentrep_publish::payloads::{self, iso};
use agentrep_publish::store::SnapshotStore;
use agentrep_publish::wire::{AgentRowV1, ListingRowV1, ManifestV1, OverlaySellerV1, OverlayV1, version};
use anyhow::Context;
use chrono::NaiveDate;
use rayon::prelude::*;

/// Paid calls that were interrupted prove nothing (as in the rebuild's SQL).
const INTERRUPTED: &str = "interrupted";

/// Publishes the overlay of the current snapshot (and pushes it to `mirror`, the snapshot bucket,
/// when there is one); `None` when there is no current snapshot or it predates the live basis (an
/// overlay needs each seller's features and probe window).
///
/// # Errors
/// When the snapshot or the lake cannot be read, or the overlay cannot be written.
pub fn publish_overlay(
    lake: &Lake,
    store: &SnapshotStore,
    mirror: Option<&agentrep_lake::Bucket>,
) -> anyhow::Result<Option<OverlayV1>> {
    let Some(id) = store.current_id() else { return Ok(None) };
    let dir = store.root().join(&id);
    let manifest_bytes = fs::read(dir.join(layout::MANIFEST))?;
    let manifest: ManifestV1 = serde_json::from_slice(&manifest_bytes)?;
    let Ok(basis_file) = fs::read(dir.join(layout::LIVE_BASIS)) else { return Ok(None) };
    let bases = LiveBases::read(basis_file.into()).context("reading the snapshot's live basis")?;
    let agents: Vec<AgentRowV1> = fs::read_to_string(dir.join(layout::AGENTS_INDEX))?
        .lines()
        .filter(|l| !l.trim().is_empty())
        .map(serde_json::from_str)
        .collect::<Result<_, _>>()?;
    let day = NaiveDate::parse_from_str(&manifest.snapshot_date, "%Y-%m-%d")?;
    let day_end = (day + chrono::Duration::days(1)).and_hms_opt(0, 0, 0).expect("midnight").and_utc().timestamp();
    let evidence = FastLake::read(lake, day, day_end)?;
    // A URL listed under several wallets is each one's listing: its probes reach every one, each
    // judged for that wallet, and the fold keeps those at the wallet's counted origins only.
    let mut sellers_of: HashMap<&str, Vec<&str>> = HashMap::new();
    for row in &agents {
        for r in &row.resources {
            sellers_of.entry(r.as_str()).or_default().push(row.address.as_str());
        }
    }
    let mut per_seller: BTreeMap<&str, SellerEvidence<'_>> = BTreeMap::new();
    for p in &evidence.probes {
        for seller in sellers_of.get(p.resource.as_str()).into_iter().flatten() {
            let e = per_seller.entry(seller).or_default();
            e.fast.as_of = e.fast.as_of.max(p.probed_at.secs());
            e.fast.probes.push(agentrep_server::live::probe(p, seller));
        }
    }
    let by_address: HashMap<&str, &AgentRowV1> = agents.iter().map(|a| (a.address.as_str(), a)).collect();
    for call in &evidence.paid_calls {
        let seller = call.pay_to.to_ascii_lowercase();
        let Some(row) = by_address.get(seller.as_str()) else { continue };
        let e = per_seller.entry(row.address.as_str()).or_default();
        e.fast.as_of = e.fast.as_of.max(call.probed_at.secs());
        e.paid_calls.push(call);
    }
    for entry in &evidence.denylist {
        let address = entry.address.to_ascii_lowercase();
        if let Some(row) = by_address.get(address.as_str()) {
            let e = per_seller.entry(row.address.as_str()).or_default();
            e.fast.as_of = e.fast.as_of.max(entry.added_at.secs());
            e.fast.denylisted = true;
        }
    }
    // Every affected seller's basis at once (a row group decompressed once, not once per seller),
    // folded and judged in parallel.
    let lines = bases.get_many(per_seller.keys().copied())?;
    let sellers: BTreeMap<String, OverlaySellerV1> = lines
        .into_par_iter()
        .filter_map(|(address, line)| {
            let fast = per_seller[address.as_str()].fast_for(&line);
            let verdict = verdict_of(by_address[address.as_str()], &line, &fast);
            verdict.map(|v| (address, v))
        })
        .collect::<Vec<_>>()
        .into_iter()
        .collect();
    let as_of = per_seller.values().map(|e| e.fast.as_of).max().unwrap_or(day_end - 1).max(day_end - 1);
    let listings = new_claims(&dir, &evidence.listings)?;
    let overlay = OverlayV1 {
        version: version("overlay"),
        snapshot_id: id,
        snapshot_digest: Some(layout::snapshot_digest(&manifest_bytes)),
        as_of: iso(as_of),
        probes: evidence.probes.len() as u32,
        paid_calls: evidence.paid_calls.len() as u32,
        denylist_entries: evidence.denylist.len() as u32,
        sellers,
        listings,
    };
    store.publish_overlay(&overlay)?;
    if let Some(bucket) = mirror {
        agentrep_publish::mirror::push_overlay(bucket, &overlay).context("pushing the overlay to the bucket")?;
    }
    Ok(Some(overlay))
}

/// The claims crawled since the snapshot (`crawled`) that the snapshot's listings index does not
/// hold, each at its latest crawl: what the URL preflight must know before the next rebuild.
fn new_claims(dir: &std::path::Path, crawled: &[ListingRow]) -> anyhow::Result<Vec<ListingRowV1>> {
    type Claim = (String, String, String, String, u64);
    let claim = |resource: &str, pay_to: &str, network: &str, asset: &str, price: u64| -> Claim {
        (resource.to_owned(), pay_to.to_ascii_lowercase(), payloads::caip2(network), asset.to_ascii_lowercase(), price)
    };
    let held: BTreeSet<Claim> = match fs::read_to_string(dir.join(layout::LISTINGS_INDEX)) {
        Ok(text) => text
            .lines()
            .filter(|l| !l.trim().is_empty())
            .map(serde_json::from_str::<ListingRowV1>)
            .collect::<Result<Vec<_>, _>>()?
            .iter()
            .map(|l| claim(&l.resource, &l.pay_to, &l.network, &l.asset, l.price.parse().unwrap_or(u64::MAX)))
            .collect(),
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => BTreeSet::new(),
        Err(e) => return Err(e.into()),
    };
    let mut latest: BTreeMap<Claim, &ListingRow> = BTreeMap::new();
    for row in crawled {
        let key = claim(&row.resource, &row.pay_to, &row.network, &row.asset, row.price_atomic);
        if held.contains(&key) {
            continue;
        }
        let newer = latest.get(&key).is_none_or(|seen| row.last_seen > seen.last_seen);
        if newer {
            latest.insert(key, row);
        }
    }
    Ok(latest.into_values().map(|row| payloads::listing_row(&listing_of(row))).collect())
}

/// One seller's evidence newer than the snapshot, before the fold keeps what counts for it.
#[derive(Debug, Default)]
struct SellerEvidence<'a> {
    fast: FastEvidence,
    paid_calls: Vec<&'a PaidProbeRow>,
}

impl SellerEvidence<'_> {
    /// The fast evidence for the fold: the probes (the fold keeps those of the basis's listings,
    /// which are the seller's counted origins' own) and the paid calls made at the seller's
    /// counted origins (SCORING.md § 1, "Origins": a call at an origin the seller's evidence does
    /// not count from judges that origin, not the wallet); at the counted origin nobody binds,
    /// both only while the rebuild would still count that origin with them.
    fn fast_for(&self, line: &LiveSellerV1) -> FastEvidence {
        let counted: BTreeSet<String> = line.basis.listings.iter().map(|l| origin(&l.resource)).collect();
        let mut calls: Vec<&PaidProbeRow> =
            self.paid_calls.iter().copied().filter(|c| counted.contains(&origin(&c.resource))).collect();
        // At the counted origin nobody binds, the newer evidence counts only while the rebuild
        // would still count that origin with it (`LiveBasis::newer_evidence_at_unbound_counts`).
        let undelivered_there = calls.iter().any(|c| {
            line.basis.is_unbound_origin(&c.resource)
                && c.settled == Some(true)
                && PaidCallOutcome::of(c.status, c.body_bytes) == PaidCallOutcome::NotDelivered
        });
        let end = self.fast.as_of.max(line.basis.day_end - 1) + 1;
        let mut fast = self.fast.clone();
        if !line.basis.newer_evidence_at_unbound_counts(&fast.probes, end, undelivered_there) {
            fast.probes.retain(|p| !line.basis.is_unbound_origin(&p.resource));
            calls.retain(|c| !line.basis.is_unbound_origin(&c.resource));
        }
        let mut undelivered_days = BTreeSet::new();
        for call in calls {
            if count_paid_call(&mut fast.paid_probes, call) == Some(PaidCallOutcome::NotDelivered) {
                undelivered_days.insert(call.probed_at.secs().div_euclid(agentrep_model::live::DAY));
            }
        }
        fast.paid_probes.undelivered_days = undelivered_days.len() as u32;
        fast
    }
}

/// What the overlay says of one seller: its published answer (`row`), its features and live basis
/// (`line`) and its fast evidence; `None` when the evidence lowers nothing.
fn verdict_of(row: &AgentRowV1, line: &LiveSellerV1, fast: &FastEvidence) -> Option<OverlaySellerV1> {
    let folded = assess_seller(&fold_fast(&line.features, &line.basis, fast));
    let v = fast_verdict(row.decision, row.shield.color, &flag_keys(row), &folded)?;
    let reason = if v.flags.is_empty() {
        format!("probes newer than the snapshot ({} of them) lowered the decision", fast.probes.len())
    } else {
        let raised: Vec<String> = v.flags.iter().map(|h| format!("{} ({})", h.key.as_str(), h.detail)).collect();
        format!("evidence newer than the snapshot raised {}", raised.join("; "))
    };
    let flags = v.flags.iter().map(payloads::flag).collect();
    Some(OverlaySellerV1 { decision: v.decision, published_decision: row.decision, color: v.color, flags, reason })
}

/// A paid call counted as the rebuild's SQL counts it (`sql/origins.sql`); a settled call's outcome.
fn count_paid_call(stats: &mut PaidProbeStats, call: &PaidProbeRow) -> Option<PaidCallOutcome> {
    match call.settled {
        Some(true) => {
            stats.paid += 1;
            let outcome = PaidCallOutcome::of(call.status, call.body_bytes);
            match outcome {
                PaidCallOutcome::Delivered => stats.delivered += 1,
                PaidCallOutcome::NotDelivered => stats.undelivered += 1,
                PaidCallOutcome::Inconclusive => stats.inconclusive += 1,
            }
            Some(outcome)
        }
        Some(false) if !call.delivered => {
            stats.unpaid_failures += 1;
            None
        }
        _ => None,
    }
}

fn flag_keys(row: &AgentRowV1) -> Vec<FlagKey> {
    row.shield.flags.iter().map(|f| f.key).collect()
}

/// The fast evidence in the lake, newer than the snapshot's day.
struct FastLake {
    probes: Vec<ProbeRow>,
    paid_calls: Vec<PaidProbeRow>,
    denylist: Vec<ListEntryRow>,
    /// Marketplace crawls since the snapshot.
    listings: Vec<ListingRow>,
}

impl FastLake {
    fn read(lake: &Lake, day: NaiveDate, day_end: i64) -> anyhow::Result<Self> {
        let probes: Vec<ProbeRow> = newer(lake, day, |r: &ProbeRow| r.probed_at.secs() >= day_end)?;
        let paid_calls = newer(lake, day, |r: &PaidProbeRow| {
            r.probed_at.secs() >= day_end && r.error.as_deref() != Some(INTERRUPTED)
        })?;
        let denylist = newer(lake, day, |r: &ListEntryRow| r.list == "deny" && r.added_at.secs() >= day_end)?;
        let listings = newer(lake, day, |r: &ListingRow| r.last_seen.secs() >= day_end)?;
        Ok(Self { probes, paid_calls, denylist, listings })
    }
}

/// Rows of `R`'s dataset in partitions from `day` on that `keep` keeps.
fn newer<R: Row>(lake: &Lake, day: NaiveDate, keep: impl Fn(&R) -> bool) -> anyhow::Result<Vec<R>> {
    let dataset: Dataset = R::DATASET;
    let mut rows = Vec::new();
    for date in lake.partition_days(dataset)?.into_iter().filter(|d| *d >= day) {
        rows.extend(lake.read_partition::<R>(date)?.into_iter().filter(|r| keep(r)));
    }
    Ok(rows)
}

/// A crawled claim as the rebuild's listings index holds one (network in CAIP-2 form, asset
/// lowercase).
fn listing_of(row: &ListingRow) -> agentrep_model::ResourceListing {
    agentrep_model::ResourceListing {
        resource: row.resource.clone(),
        pay_to: row.pay_to.clone(),
        network: payloads::caip2(&row.network),
        asset: row.asset.to_ascii_lowercase(),
        price: row.price_atomic,
        ecosystem: row.ecosystem.clone(),
        first_seen: row.first_seen.secs(),
        last_seen: row.last_seen.secs(),
    }
}
