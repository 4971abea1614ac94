//! What each seller's live re-score builds on ([`LiveBasis`]): its current listings and prices,
//! where the weighing placed each of its payers, its qualifying settlements per day of the demand
//! window, and the probes of the probe window. Read once for every seller, in seller order, from
//! the temporary tables of `sql/sellers.sql`.

use std::collections::BTreeMap;

use agentrep_model::live::{
    DAY, KnownPayer, LiveBasis, LiveListing, OriginRank, PriceBound, ProbeSample, UnboundOrigin,
};

use crate::PipelineError;
use crate::demand::Standings;
use crate::engine::columns::{i64s, strs, u32s, u64s};
use crate::engine::{Engine, query};
use crate::sql_files::LIVE_BASIS;

/// Each seller's rows (by 0-based seller index), filled from a query in seller order. A seller's
/// rows keep the query's order; its vector is trimmed to size when the next seller's rows begin.
struct PerSeller<T> {
    rows: Vec<Vec<T>>,
    last: usize,
}

impl<T> PerSeller<T> {
    fn new(sellers: usize) -> Self {
        Self { rows: std::iter::repeat_with(Vec::new).take(sellers).collect(), last: 0 }
    }

    /// Adds one row of `seller`; a seller index past the sellers read is ignored.
    fn push(&mut self, seller: u32, row: T) {
        let seller = seller as usize;
        if seller != self.last {
            self.trim_last();
            self.last = seller;
        }
        if let Some(rows) = self.rows.get_mut(seller) {
            rows.push(row);
        }
    }

    fn trim_last(&mut self) {
        if let Some(rows) = self.rows.get_mut(self.last) {
            rows.shrink_to_fit();
        }
    }

    /// `keyed` rows, moved.
    fn from_keyed(keyed: Vec<(u32, T)>, sellers: usize) -> Self {
        let mut out = Self::new(sellers);
        for (seller, row) in keyed {
            out.push(seller, row);
        }
        out
    }

    fn finish(mut self) -> Vec<Vec<T>> {
        self.trim_last();
        self.rows
    }
}

/// A listing with its normalised network (what a settlement's network is compared with).
struct Listed {
    listing: LiveListing,
    net: String,
    /// Its origin's evidence counts for the seller.
    counted: bool,
}

/// What every seller's basis shares: the day it ends and where newer evidence starts.
#[derive(Debug, Clone, Copy)]
pub(crate) struct LiveWindow {
    day_end: i64,
    evidence_from: i64,
}

/// One seller's inputs, moved into its basis.
pub(crate) struct SellerLiveInputs {
    payers: Vec<String>,
    days: Vec<(i64, u64)>,
    probes: Vec<ProbeSample>,
    listings: Vec<Listed>,
    domain_resources: Vec<String>,
    unbound: Option<UnboundOrigin>,
}

/// Everything read for the bases of all sellers.
pub(crate) struct LiveInputs {
    pub window: LiveWindow,
    /// By 0-based seller index.
    pub sellers: Vec<SellerLiveInputs>,
    /// Known facilitators, lowercase, sorted.
    pub facilitators: Vec<String>,
    /// The oracle's own paying wallets, lowercase, sorted.
    pub oracle_payers: Vec<String>,
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
        // One row per (seller, payer) pair, the largest input: read a batch at a time straight
        // into each seller's vector.
        let mut payers = PerSeller::new(sellers);
        db.each_batch("live payers", LIVE_BASIS.section("payers")?, |b| {
            let (sid, address) = (u32s(b, "seller"), strs(b, "address"));
            for i in 0..b.num_rows() {
                payers.push(sid.value(i), address.value(i).to_owned());
            }
        })?;
        let mut days = PerSeller::new(sellers);
        for b in db.batches("live days", LIVE_BASIS.section("days")?)? {
            let (sid, day, n) = (u32s(&b, "seller"), i64s(&b, "day"), u64s(&b, "n"));
            for i in 0..b.num_rows() {
                days.push(sid.value(i), (day.value(i), n.value(i)));
            }
        }
        let probes = query(db, "live probes", LIVE_BASIS.section("probes")?, |r| {
            Ok((
                r.get::<_, u32>("seller")?,
                ProbeSample {
                    resource: r.get("resource")?,
                    t: r.get("t")?,
                    status: r.get("status")?,
                    latency_ms: r.get("latency_ms")?,
                    offer_version: r.get("offer_version")?,
                    offer_matches: r.get("offer_matches")?,
                },
            ))
        })?;
        let listings = query(db, "live listings", LIVE_BASIS.section("listings")?, |r| {
            Ok((
                r.get::<_, u32>("seller")?,
                Listed {
                    listing: LiveListing {
                        resource: r.get("resource")?,
                        pay_to: r.get("pay_to")?,
                        network: r.get("network")?,
                        asset: r.get("asset")?,
                        price: r.get("price")?,
                    },
                    net: r.get("net")?,
                    counted: r.get("counted")?,
                },
            ))
        })?;
        let facilitators = query(db, "live facilitators", LIVE_BASIS.section("facilitators")?, |r| r.get("address"))?;
        let oracle_payers =
            query(db, "the oracle's wallets", LIVE_BASIS.section("oracle_payers")?, |r| r.get("address"))?;
        let domain_resources = query(db, "live domain resources", LIVE_BASIS.section("domain_resources")?, |r| {
            Ok((r.get::<_, u32>("seller")?, r.get::<_, String>("resource")?))
        })?;
        let unbound = query(db, "live unbound origins", LIVE_BASIS.section("unbound")?, |r| {
            let rival = match r.get::<_, Option<String>>("rival_origin")? {
                Some(origin) => Some(OriginRank {
                    paid_class: r.get("rival_paid_class")?,
                    probe_class: r.get("rival_probe_class")?,
                    first_seen: r.get("rival_first_seen")?,
                    origin,
                }),
                None => None,
            };
            let rank = OriginRank {
                paid_class: r.get("paid_class")?,
                probe_class: r.get("probe_class")?,
                first_seen: r.get("first_seen")?,
                origin: r.get("origin")?,
            };
            Ok((r.get::<_, u32>("seller")?, UnboundOrigin { rank, beside_bound: r.get("beside_bound")?, rival }))
        })?;
        let covered =
            lake.read_checkpoint::<SettlementsCoverage>("settlements").ok().flatten().and_then(|c| c.covered_until);
        let sellers = payers
            .finish()
            .into_iter()
            .zip(days.finish())
            .zip(PerSeller::from_keyed(probes, sellers).finish())
            .zip(PerSeller::from_keyed(listings, sellers).finish())
            .zip(PerSeller::from_keyed(domain_resources, sellers).finish())
            .zip(PerSeller::from_keyed(unbound, sellers).finish())
            .map(|(((((payers, days), probes), listings), domain_resources), unbound)| SellerLiveInputs {
                payers,
                days,
                probes,
                listings,
                domain_resources,
                // At most one per seller: `counted_origins` keeps one origin nobody binds.
                unbound: unbound.into_iter().next(),
            })
            .collect();
        Ok(Self {
            window: LiveWindow { day_end, evidence_from: covered.map_or(day_end, |c| day_end.min(c + 1)) },
            sellers,
            facilitators,
            oracle_payers,
        })
    }
}

impl SellerLiveInputs {
    /// This seller's basis, from its weighing's `standings` and its count of qualifying
    /// settlements at an advertised price. The inputs move into the basis.
    pub(crate) fn basis(self, window: LiveWindow, standings: &Standings, exact_settlements: u64) -> LiveBasis {
        let mut prices: BTreeMap<(&str, String), Vec<u64>> = BTreeMap::new();
        for l in &self.listings {
            prices.entry((l.net.as_str(), l.listing.asset.to_lowercase())).or_default().push(l.listing.price);
        }
        let prices: Vec<PriceBound> = prices
            .into_iter()
            .map(|((network, asset), mut prices)| {
                prices.sort_unstable();
                prices.dedup();
                PriceBound { network: network.to_owned(), asset, prices }
            })
            .collect();
        let window_start = window.day_end / DAY - agentrep_model::live::DEMAND_WINDOW_DAYS;
        // The payer addresses and the weighing's standings come from two queries with one order
        // (`graph.rs`'s pair order): a zip of unequal lists would pair payers with wrong standings.
        assert_eq!(self.payers.len(), standings.payers.len(), "a seller's payers and standings");
        let mut payers: Vec<KnownPayer> = self
            .payers
            .into_iter()
            .zip(&standings.payers)
            .zip(&standings.entities)
            .map(|((address, standing), entity)| KnownPayer { address, standing: *standing, entity: *entity })
            .collect();
        payers.sort_by(|a, b| a.address.cmp(&b.address));
        LiveBasis {
            day_end: window.day_end,
            evidence_from: window.evidence_from,
            listings: self.listings.into_iter().filter(|l| l.counted).map(|l| l.listing).collect(),
            prices,
            payers,
            settled_days: self.days,
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
            domain_resources: self.domain_resources,
            unbound: self.unbound,
            probes: self.probes,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn rows_go_to_their_seller_in_query_order_and_unknown_sellers_are_dropped() {
        // Sellers 0 and 2 have rows, 1 has none, 7 is past the three sellers read.
        let keyed = vec![(0, "a"), (0, "b"), (2, "c"), (7, "x"), (2, "d")];
        let rows = PerSeller::from_keyed(keyed, 3).finish();
        assert_eq!(rows, vec![vec!["a", "b"], vec![], vec!["c", "d"]]);
        assert!(rows.iter().all(|r| r.capacity() == r.len()), "each seller's vector is trimmed to size");
    }
}
