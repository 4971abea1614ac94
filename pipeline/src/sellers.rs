//! Seller features from the passes in `sql/listings.sql`, `sql/settlements.sql` and `sql/sellers.sql` and the trust graph, assessed by the
//! model in parallel.

use std::ops::Range;

use agentrep_model::sources::SourceNote;
use agentrep_model::{
    Counterparty, DemandStats, DomainStanding, ListingInfo, PaidProbeStats, ProofType, SellerFeatures, SellerRecord,
    SlaStats, assess_seller,
};
use arrow::array::Array;
use duckdb::Row;
use rayon::prelude::*;

use crate::demand::{Evidence, Receipt, Review, weigh};
use crate::engine::Engine;
use crate::engine::columns::{bools, i64s, strs, u32s, u64s};
use crate::freshness::SourceFreshness;
use crate::graph::{Taint, WalletGraph};
use crate::live_basis::{LiveWindow, SellerLiveInputs};
use crate::{PipelineError, sql_files};

const DAY: i64 = 86_400;

/// One row of `sellers_select.sql`, before the trust pass and the model.
struct Raw {
    address: String,
    first_seen: i64,
    /// Qualifying settlements at exactly an advertised price.
    exact_settlements: u64,
    listing: ListingInfo,
    /// Every feature but the demand, which [`SqlDemand::over`] completes with the trust pass's.
    features: SellerFeatures,
    demand: SqlDemand,
}

/// The half of a seller's demand the seller SQL computes (counts, volume, price and timing
/// figures); the other half (the paying entities, trust-weighted) comes from the trust pass.
struct SqlDemand {
    settlements: u64,
    settlements_30d: u64,
    volume: agentrep_model::MicroUsdc,
    exact_price_share: f64,
    interval_cv: Option<f64>,
    unattributed: u64,
    below_price: u64,
}

impl SqlDemand {
    fn read(row: &Row<'_>) -> duckdb::Result<Self> {
        Ok(Self {
            settlements: row.get::<_, i64>("settlements")? as u64,
            settlements_30d: row.get::<_, i64>("settlements_30d")? as u64,
            volume: row.get("volume")?,
            exact_price_share: row.get("exact_price_share")?,
            interval_cv: row.get("interval_cv")?,
            unattributed: row.get::<_, i64>("unattributed")? as u64,
            below_price: row.get::<_, i64>("below_price")? as u64,
        })
    }

    /// The whole demand: these figures over the trust pass's `trusted` half.
    fn over(self, trusted: DemandStats) -> DemandStats {
        DemandStats {
            settlements: self.settlements,
            settlements_30d: self.settlements_30d,
            volume: self.volume,
            exact_price_share: self.exact_price_share,
            interval_cv: self.interval_cv,
            unattributed: self.unattributed,
            below_price: self.below_price,
            ..trusted
        }
    }
}

fn split(s: Option<String>, sep: char) -> Vec<String> {
    s.map(|s| s.split(sep).filter(|x| !x.is_empty()).map(str::to_owned).collect()).unwrap_or_default()
}

fn count(row: &Row<'_>, column: &str) -> duckdb::Result<u32> {
    Ok(row.get::<_, i64>(column)?.clamp(0, i64::from(u32::MAX)) as u32)
}

fn read_row(row: &Row<'_>, day_end: i64) -> duckdb::Result<Raw> {
    let days_since = |secs: i64| ((day_end - 1 - secs).max(0) / DAY) as u32;
    let first_seen: i64 = row.get("first_seen")?;
    let proofs = split(row.get("proof_types")?, ',').iter().filter_map(|p| ProofType::parse(p)).collect();
    let latency = |column: &str| -> duckdb::Result<Option<u32>> {
        Ok(row.get::<_, Option<i64>>(column)?.map(|v| v.max(0) as u32))
    };
    let listing = ListingInfo {
        resource: row.get("resource")?,
        resources: split(row.get("resources")?, ' '),
        description: row.get("description")?,
        tags: split(row.get("tags")?, ','),
        ecosystem: row.get("ecosystem")?,
        network: row.get("network")?,
        price: row.get("price")?,
        asset: row.get("asset")?,
    };
    let demand = SqlDemand::read(row)?;
    let features = SellerFeatures {
        listing_count: count(row, "listing_count")?,
        case_variants: count(row, "case_variants")?,
        age_days: days_since(first_seen),
        advertised_price: row.get("price")?,
        suspicious_tld: row.get("suspicious_tld")?,
        admin_path: row.get("admin_path")?,
        tag_count: count(row, "tag_count")?,
        price_points: count(row, "price_points")?,
        sla: SlaStats {
            samples: count(row, "sla_samples")?,
            ok: count(row, "sla_ok")?,
            latency_p50_ms: latency("latency_p50")?,
            latency_p95_ms: latency("latency_p95")?,
            avg_latency_ms: latency("avg_latency")?,
            last_ok: row.get("last_ok")?,
            offers: count(row, "offers")?,
            offer_mismatches: count(row, "offer_mismatches")?,
        },
        erc8004_registered: row.get("erc8004_registered")?,
        proofs,
        denylisted: row.get("denylisted")?,
        allowlist_label: row.get("allow_label")?,
        attested: row.get("attested")?,
        domain: match (row.get::<_, Option<String>>("domain")?, row.get::<_, Option<i64>>("domain_rank")?) {
            (Some(domain), Some(rank)) => Some(DomainStanding {
                domain,
                rank: rank.clamp(1, i64::from(u32::MAX)) as u32,
                list: row.get::<_, Option<String>>("domain_list")?.unwrap_or_default(),
                matching_offers: count(row, "matching_offers")?,
            }),
            _ => None,
        },
        paid_probes: PaidProbeStats {
            paid: count(row, "paid")?,
            delivered: count(row, "delivered")?,
            undelivered: count(row, "undelivered")?,
            unpaid_failures: count(row, "unpaid_failures")?,
            inconclusive: count(row, "inconclusive")?,
            undelivered_days: count(row, "undelivered_days")?,
        },
        ..SellerFeatures::default()
    };
    let exact_settlements = row.get::<_, i64>("exact_settlements")?.max(0) as u64;
    Ok(Raw { address: row.get("address")?, first_seen, exact_settlements, listing, features, demand })
}

/// Index ranges of items sorted by seller index, one per seller.
pub(crate) fn by_seller<T>(items: &[T], sellers: usize, seller: impl Fn(&T) -> u32) -> Vec<Range<usize>> {
    let mut ranges = vec![0..0; sellers];
    let mut start = 0;
    while start < items.len() {
        let s = seller(&items[start]);
        let end = start + items[start..].iter().take_while(|x| seller(x) == s).count();
        if let Some(r) = ranges.get_mut(s as usize) {
            *r = start..end;
        }
        start = end;
    }
    ranges
}

fn reviews(db: &Engine) -> Result<Vec<Review>, PipelineError> {
    let mut out = Vec::new();
    for b in db.batches("reviews", sql_files::SELLER_EVIDENCE.section("reviews")?)? {
        let (sid, wid, t, v) = (u32s(&b, "seller"), u32s(&b, "wid"), i64s(&b, "t"), i64s(&b, "v"));
        out.extend((0..b.num_rows()).map(|i| Review {
            seller: sid.value(i),
            client: wid.value(i),
            t: t.value(i),
            v: v.value(i),
        }));
    }
    Ok(out)
}

fn receipts(db: &Engine) -> Result<Vec<Receipt>, PipelineError> {
    let mut out = Vec::new();
    for b in db.batches("receipts", sql_files::SELLER_EVIDENCE.section("receipts")?)? {
        let (sid, buyer, ok, t, payer, cites) = (
            u32s(&b, "seller"),
            u32s(&b, "buyer"),
            bools(&b, "success"),
            i64s(&b, "t"),
            u32s(&b, "payer"),
            bools(&b, "cites"),
        );
        out.extend((0..b.num_rows()).map(|i| Receipt {
            seller: sid.value(i),
            buyer: buyer.value(i),
            success: ok.value(i),
            t: t.value(i),
            cited: cites.value(i).then(|| payer.is_valid(i).then(|| payer.value(i))),
        }));
    }
    Ok(out)
}

/// Assesses every seller: features from SQL and from the trust graph, then the model (rayon), and
/// the basis of each seller's live re-score, into which the seller's `live` inputs move (by
/// seller index, as `raws`). `avoid` marks the wallets of deployers whose verdict is `AVOID` (they
/// taint what they fund).
pub(crate) fn assess(
    db: &Engine,
    graph: &WalletGraph,
    avoid: &[bool],
    freshness: &SourceFreshness,
    window: LiveWindow,
    live: Vec<SellerLiveInputs>,
) -> Result<Vec<SellerRecord>, PipelineError> {
    let err = |source| PipelineError::Duckdb { pass: "seller select", source };
    let day_end = db.day_end();
    let mut stmt = db.conn.prepare(sql_files::SELLERS_SELECT.text).map_err(err)?;
    let raws: Vec<Raw> =
        stmt.query_map([], |row| read_row(row, day_end)).map_err(err)?.collect::<Result<_, _>>().map_err(err)?;
    assert_eq!(raws.len(), live.len(), "the seller select and the live inputs read the same sellers");
    let (reviews, receipts) = (reviews(db)?, receipts(db)?);
    let n = raws.len();
    let (pair_ranges, review_ranges, receipt_ranges) = (
        by_seller(&graph.pairs, n, |x| x.seller),
        by_seller(&reviews, n, |x| x.seller),
        by_seller(&receipts, n, |x| x.seller),
    );
    // Funding that created the wallet (up to a day after its first listing) is the seller's.
    let created_by = |raw: &Raw| raw.first_seen + DAY;
    // A taint names the wallet it comes from, whose address DuckDB holds: found in parallel,
    // described one at a time (few sellers are tainted).
    let taints: Vec<Option<Taint>> =
        raws.par_iter().enumerate().map(|(i, raw)| graph.taint(graph.seller_wid[i], created_by(raw), avoid)).collect();
    let tainted_by: Vec<Option<String>> =
        taints.into_iter().map(|t| t.map(|t| t.describe(db)).transpose()).collect::<Result<_, _>>()?;
    let ev = Evidence { forest: &graph.forest, trust: &graph.trust, pay_scale: &graph.pay_scale, day_end };
    // One pass from each seller's row to its record, so no seller is held in two forms at once.
    Ok(raws
        .into_par_iter()
        .zip(live)
        .zip(tainted_by)
        .enumerate()
        .map(|(i, ((mut raw, live), tainted_by))| {
            let wid = graph.seller_wid[i];
            let own_entity = graph.forest.funded_at[wid as usize] <= created_by(&raw);
            let (trusted, reputation, standings) = weigh(
                &ev,
                wid,
                own_entity,
                &graph.pairs[pair_ranges[i].clone()],
                &reviews[review_ranges[i].clone()],
                &receipts[receipt_ranges[i].clone()],
            );
            raw.features.demand = raw.demand.over(trusted);
            raw.features.reputation = reputation;
            raw.features.degraded_sources = freshness.degraded.clone();
            raw.features.stale_sources = freshness.stale.clone();
            raw.features.tainted_by = tainted_by;
            SellerRecord {
                assessment: assess_seller(&raw.features),
                sources: SourceNote::of(&raw.features),
                live: live.basis(window, &standings, raw.exact_settlements),
                address: raw.address,
                listing: raw.listing,
                features: raw.features,
                history: Vec::new(),
                profile: Default::default(),
            }
        })
        .collect())
}

pub(crate) fn counterparties(db: &Engine) -> Result<Vec<Counterparty>, PipelineError> {
    let mut out = Vec::new();
    db.each_batch("counterparties", sql_files::COUNTERPARTIES.text, |b| {
        let (address, payments, sellers_paid) = (strs(b, "address"), u64s(b, "payments"), u32s(b, "sellers_paid"));
        let (funded, denylisted, spent) = (u32s(b, "funded"), bools(b, "denylisted"), u64s(b, "spent"));
        let (spent_7d, payments_7d) = (u64s(b, "spent_7d"), u64s(b, "payments_7d"));
        let sellers_paid_7d = u32s(b, "sellers_paid_7d");
        let (first, last) = (i64s(b, "first_paid_at"), i64s(b, "last_paid_at"));
        out.extend((0..b.num_rows()).map(|i| Counterparty {
            address: address.value(i).to_owned(),
            payments: payments.value(i),
            sellers_paid: sellers_paid.value(i),
            funded: funded.value(i),
            denylisted: denylisted.value(i),
            spent: spent.value(i),
            spent_7d: spent_7d.value(i),
            payments_7d: payments_7d.value(i),
            sellers_paid_7d: sellers_paid_7d.value(i),
            first_paid_at: first.is_valid(i).then(|| first.value(i)),
            last_paid_at: last.is_valid(i).then(|| last.value(i)),
        }));
    })?;
    Ok(out)
}
