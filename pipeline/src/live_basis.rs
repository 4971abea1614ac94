//! What each seller's live re-score builds on ([`LiveBasis`]): its current listings and prices,
//! where the weighing placed each of its payers, its qualifying settlements per day of the demand
//! window, and the probes of the probe window. Read once for every seller, in seller order, from
//! the temporary tables of `sql/sellers.sql`.

use std::collections::BTreeMap;
use std::ops::Range;

use agentrep_model::live::{DAY, KnownPayer, LiveBasis, LiveListing, PriceBound, ProbeSample};

use crate::PipelineError;
use crate::demand::Standings;
use crate::engine::columns::{i64s, strs, u32s, u64s};
use crate::engine::{Engine, query};

const PAYERS_SQL: &str = "SELECT (pp.sid - 1)::UINTEGER, w.address FROM pp JOIN wallets w ON w.h = pp.payer_h \
     ORDER BY pp.sid, w.wid";
const DAYS_SQL: &str = "SELECT (sid - 1)::UINTEGER, day, n FROM seller_days ORDER BY 1, 2";
const PROBES_SQL: &str = "SELECT (i.sid - 1)::UINTEGER, p.resource, (epoch_us(p.probed_at) // 1000000)::BIGINT, \
     p.status, p.latency_ms, p.offer_version, p.offer_matches \
     FROM probes p JOIN cur c USING (resource) JOIN seller_ids i ON i.address = lower(c.pay_to) \
     WHERE p.probed_at >= {d7} AND p.probed_at < {day_end} ORDER BY 1, 3, 2";
const LISTINGS_SQL: &str = "SELECT (i.sid - 1)::UINTEGER, c.resource, c.pay_to, c.network, c.net, c.asset, \
     c.price_atomic::UBIGINT FROM cur c JOIN seller_ids i ON i.address = lower(c.pay_to) ORDER BY 1, 2";
const FACILITATORS_SQL: &str = "SELECT address FROM facilitators ORDER BY 1";
/// The current resources served from each seller's ranked domain (`sql/domains.sql`).
const DOMAIN_RESOURCES_SQL: &str = "SELECT (i.sid - 1)::UINTEGER, c.resource FROM cur c \
     JOIN listing_domains d USING (resource) JOIN seller_ids i ON i.address = lower(c.pay_to) \
     JOIN seller_domain sd ON sd.address = i.address AND sd.domain = d.domain ORDER BY 1, 2";

/// The rows of every seller, each seller's rows one range (sellers by 0-based index).
struct BySeller<T> {
    rows: Vec<T>,
    ranges: Vec<Range<usize>>,
}

impl<T> BySeller<T> {
    /// `keyed` in seller order (the queries' `ORDER BY 1`).
    fn new(keyed: Vec<(u32, T)>, sellers: usize) -> Self {
        let ranges = crate::sellers::by_seller(&keyed, sellers, |(seller, _)| *seller);
        Self { rows: keyed.into_iter().map(|(_, row)| row).collect(), ranges }
    }

    fn of(&self, seller: usize) -> &[T] {
        &self.rows[self.ranges[seller].clone()]
    }
}

/// A listing with its normalised network (what a settlement's network is compared with).
struct Listed {
    listing: LiveListing,
    net: String,
}

/// Everything read for the bases of all sellers.
pub(crate) struct LiveInputs {
    payers: BySeller<String>,
    days: BySeller<(i64, u64)>,
    probes: BySeller<ProbeSample>,
    listings: BySeller<Listed>,
    domain_resources: BySeller<String>,
    day_end: i64,
    evidence_from: i64,
    /// Known facilitators, lowercase, sorted.
    pub facilitators: Vec<String>,
}

/// The end of what the settlements source had read when the rebuild ran (its checkpoint's
/// `covered_until`), if it has run.
#[derive(serde::Deserialize)]
struct SettlementsCoverage {
    covered_until: Option<i64>,
}

impl LiveInputs {
    /// Reads the bases' inputs for `sellers` sellers; `day_end` is the day's end, and the lake's
    /// settlements checkpoint says how far its settlements reach.
    pub(crate) fn read(
        db: &Engine,
        lake: &agentrep_lake::Lake,
        sellers: usize,
        day_end: i64,
    ) -> Result<Self, PipelineError> {
        // One row per (seller, payer) pair: read a batch at a time into a vector sized once.
        let mut payers = Vec::with_capacity(db.count("live payers", "pp")?);
        db.each_batch("live payers", PAYERS_SQL, |b| {
            let (sid, address) = (u32s(b, 0), strs(b, 1));
            payers.extend((0..b.num_rows()).map(|i| (sid.value(i), address.value(i).to_owned())));
        })?;
        let mut days = Vec::new();
        for b in db.batches("live days", DAYS_SQL)? {
            let (sid, day, n) = (u32s(&b, 0), i64s(&b, 1), u64s(&b, 2));
            days.extend((0..b.num_rows()).map(|i| (sid.value(i), (day.value(i), n.value(i)))));
        }
        let probes = query(db, "live probes", PROBES_SQL, |r| {
            Ok((
                r.get::<_, u32>(0)?,
                ProbeSample {
                    resource: r.get(1)?,
                    t: r.get(2)?,
                    status: r.get(3)?,
                    latency_ms: r.get(4)?,
                    offer_version: r.get(5)?,
                    offer_matches: r.get(6)?,
                },
            ))
        })?;
        let listings = query(db, "live listings", LISTINGS_SQL, |r| {
            Ok((
                r.get::<_, u32>(0)?,
                Listed {
                    listing: LiveListing {
                        resource: r.get(1)?,
                        pay_to: r.get(2)?,
                        network: r.get(3)?,
                        asset: r.get(5)?,
                        price: r.get(6)?,
                    },
                    net: r.get(4)?,
                },
            ))
        })?;
        let facilitators = query(db, "live facilitators", FACILITATORS_SQL, |r| r.get(0))?;
        let domain_resources = query(db, "live domain resources", DOMAIN_RESOURCES_SQL, |r| {
            Ok((r.get::<_, u32>(0)?, r.get::<_, String>(1)?))
        })?;
        let covered =
            lake.read_checkpoint::<SettlementsCoverage>("settlements").ok().flatten().and_then(|c| c.covered_until);
        Ok(Self {
            payers: BySeller::new(payers, sellers),
            days: BySeller::new(days, sellers),
            probes: BySeller::new(probes, sellers),
            listings: BySeller::new(listings, sellers),
            domain_resources: BySeller::new(domain_resources, sellers),
            day_end,
            evidence_from: covered.map_or(day_end, |c| day_end.min(c + 1)),
            facilitators,
        })
    }

    /// The basis of seller `i` (0-based), from its weighing's `standings` and its count of
    /// qualifying settlements at an advertised price.
    pub(crate) fn basis(&self, i: usize, standings: &Standings, exact_settlements: u64) -> LiveBasis {
        let listed = self.listings.of(i);
        let mut prices: BTreeMap<(&str, String), Vec<u64>> = BTreeMap::new();
        for l in listed {
            prices.entry((l.net.as_str(), l.listing.asset.to_lowercase())).or_default().push(l.listing.price);
        }
        let window_start = self.day_end / DAY - agentrep_model::live::DEMAND_WINDOW_DAYS;
        // The payer addresses and the weighing's standings come from two queries with one order
        // (`graph.rs`'s pair order): a zip of unequal lists would pair payers with wrong standings.
        debug_assert_eq!(self.payers.of(i).len(), standings.payers.len(), "payers and standings of seller {i}");
        let mut payers: Vec<KnownPayer> = self
            .payers
            .of(i)
            .iter()
            .zip(&standings.payers)
            .zip(&standings.entities)
            .map(|((address, standing), entity)| KnownPayer {
                address: address.clone(),
                standing: *standing,
                entity: *entity,
            })
            .collect();
        payers.sort_by(|a, b| a.address.cmp(&b.address));
        LiveBasis {
            day_end: self.day_end,
            evidence_from: self.evidence_from,
            listings: listed.iter().map(|l| l.listing.clone()).collect(),
            prices: prices
                .into_iter()
                .map(|((network, asset), mut prices)| {
                    prices.sort_unstable();
                    prices.dedup();
                    PriceBound { network: network.to_owned(), asset, prices }
                })
                .collect(),
            payers,
            settled_days: self.days.of(i).to_vec(),
            exact_settlements,
            trusted_days: (0..64)
                .filter(|bit| standings.trusted_mask >> bit & 1 == 1)
                .map(|bit| window_start + bit)
                .collect(),
            last_trusted_at: standings.last_trusted_t,
            active_days: (0..64)
                .filter(|bit| standings.all_mask >> bit & 1 == 1)
                .map(|bit| window_start + bit)
                .collect(),
            last_at: standings.last_t,
            repeating_entities: standings.repeating.clone(),
            domain_resources: self.domain_resources.of(i).to_vec(),
            probes: self.probes.of(i).to_vec(),
        }
    }
}
