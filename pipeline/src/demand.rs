//! Per-seller demand and reputation from the qualifying (seller, payer) pairs, reviews and
//! receipts, weighed by the trust of each paying entity. Pure Rust; `sellers.rs` feeds it.

use std::collections::{BTreeMap, BTreeSet};

use agentrep_model::live::{PayerStanding, days_since};
use agentrep_model::trust as p;
use agentrep_model::{DemandStats, ReputationStats};

use crate::trust::FundingForest;

const DAY: i64 = 86_400;
/// A rating is stored in millionths of a point, so 100 points is this.
const RATING_SCALE: f64 = 100_000_000.0;

/// One payer's qualifying payments to one seller (seller as its 0-based index).
#[derive(Debug, Clone, Copy, PartialEq)]
pub(crate) struct Pair {
    pub seller: u32,
    pub payer: u32,
    pub n: u64,
    pub spend: u64,
    pub first_t: i64,
    pub last_t: i64,
    pub mask30: u64,
}

/// One ERC-8004 feedback entry about a seller.
#[derive(Debug, Clone, Copy, PartialEq)]
pub(crate) struct Review {
    pub seller: u32,
    pub client: u32,
    pub t: i64,
    /// Rating in millionths of a point, 0..=100_000_000.
    pub v: i64,
}

/// One buyer receipt about a seller.
#[derive(Debug, Clone, Copy, PartialEq)]
pub(crate) struct Receipt {
    pub seller: u32,
    pub buyer: u32,
    pub success: bool,
    pub t: i64,
    /// `None` when the receipt cites no transaction; else the payer of the qualifying settlement
    /// to this seller it cites (`Some(None)`: the cited transaction is no such settlement).
    pub cited: Option<Option<u32>>,
}

/// Everything the rebuild knows to weigh one seller's evidence.
#[derive(Debug)]
pub(crate) struct Evidence<'a> {
    pub forest: &'a FundingForest,
    /// Trust of every wallet (seed units).
    pub trust: &'a [f64],
    /// Per wallet, the trust one micro-USDC of its spend carries (`TrustGraph::pay_scale`).
    pub pay_scale: &'a [f64],
    pub day_end: i64,
}

#[derive(Debug, Default, Clone, Copy)]
struct Entity {
    trust: f64,
    n: u64,
    /// Paid on two or more distinct days.
    repeat: bool,
    mask: u64,
    first_t: i64,
    last_t: i64,
}

impl Entity {
    fn trusted(&self) -> bool {
        self.trust >= p::TRUSTED_ENTITY_MIN
    }

    fn weight(&self) -> f64 {
        (self.trust / p::ENTITY_FULL_TRUST).min(1.0)
    }
}

/// How the weighing placed a seller's payers: what a live re-score needs to count their later
/// settlements as the rebuild does.
#[derive(Debug, Clone, Default, PartialEq)]
pub(crate) struct Standings {
    /// One per pair, in the pairs' order.
    pub payers: Vec<PayerStanding>,
    /// The days (bits of the 30-day mask) on which a trusted entity paid.
    pub trusted_mask: u64,
    /// The last qualifying settlement of a trusted entity.
    pub last_trusted_t: Option<i64>,
    /// The days (bits of the 30-day mask) on which any paying entity paid.
    pub all_mask: u64,
    /// The last qualifying settlement of any paying entity.
    pub last_t: Option<i64>,
    /// Per pair, in the pairs' order: its entity's dense index among this seller's entities (none
    /// for the seller and seller-funded payers), and the Unix day of the pair's first payment.
    pub entities: Vec<Option<(u32, i64)>>,
    /// Dense indices of the entities that already paid on two or more days.
    pub repeating: Vec<u32>,
}

/// The trust-dependent part of one seller's demand, its reputation, and where its payers stand.
/// Payments from the seller itself and from payers whose funding chain starts at the seller (or,
/// when `own_entity`, that share the entity of the wallet's own creation funding) are counted
/// apart and carry no trust.
pub(crate) fn weigh(
    ev: &Evidence<'_>,
    seller: u32,
    own_entity: bool,
    pairs: &[Pair],
    reviews: &[Review],
    receipts: &[Receipt],
) -> (DemandStats, ReputationStats, Standings) {
    let forest = ev.forest;
    let seller_root = forest.root(seller);
    let mut d = DemandStats::default();
    let mut entities: BTreeMap<u32, Entity> = BTreeMap::new();
    // Per pair: its entity's root, or the standing that keeps it out of every entity.
    let mut placed: Vec<Result<u32, PayerStanding>> = Vec::with_capacity(pairs.len());
    for pair in pairs {
        if pair.payer == seller {
            d.self_payments += pair.n;
            placed.push(Err(PayerStanding::Seller));
            continue;
        }
        let root = forest.root(pair.payer);
        let funded_by_seller = forest.ancestors(pair.payer, p::MAX_FUNDING_HOPS).any(|(a, _)| a == seller)
            || (own_entity && seller_root != seller && root == seller_root);
        if funded_by_seller {
            d.seller_funded_payers += 1;
            d.seller_funded_settlements += pair.n;
            placed.push(Err(PayerStanding::SellerFunded));
            continue;
        }
        placed.push(Ok(root));
        d.payers += 1;
        d.trust_mass +=
            p::DAMPING * ev.trust[pair.payer as usize] * ev.pay_scale[pair.payer as usize] * pair.spend as f64;
        let e = entities.entry(root).or_insert(Entity { first_t: i64::MAX, last_t: i64::MIN, ..Entity::default() });
        e.trust += ev.trust[pair.payer as usize];
        e.n += pair.n;
        e.repeat |= pair.first_t.div_euclid(DAY) != pair.last_t.div_euclid(DAY);
        e.mask |= pair.mask30;
        e.first_t = e.first_t.min(pair.first_t);
        e.last_t = e.last_t.max(pair.last_t);
    }
    d.entities = entities.len() as u32;
    d.repeat_entities = entities.values().filter(|e| e.repeat).count() as u32;
    let all_mask = entities.values().fold(0u64, |m, e| m | e.mask);
    let last_t = entities.values().map(|e| e.last_t).max();
    d.active_days_30d_all = all_mask.count_ones();
    d.days_since_last = last_t.map(|t| days_since(ev.day_end, t));
    let trusted: Vec<&Entity> = entities.values().filter(|e| e.trusted()).collect();
    d.trusted_entities = trusted.len() as u32;
    d.weighted_entities = entities.values().map(Entity::weight).sum();
    let trusted_mask = trusted.iter().fold(0u64, |m, e| m | e.mask);
    let last_trusted_t = trusted.iter().map(|e| e.last_t).max();
    if let Some(last) = last_trusted_t {
        let total: u64 = trusted.iter().map(|e| e.n).sum();
        d.repeat_ratio = trusted.iter().filter(|e| e.repeat).count() as f64 / trusted.len() as f64;
        d.top_entity_share = trusted.iter().map(|e| e.n).max().unwrap_or(0) as f64 / total.max(1) as f64;
        d.days_since_last_trusted = Some(days_since(ev.day_end, last));
        d.active_days_30d = trusted_mask.count_ones();
    }
    let dense: BTreeMap<u32, u32> = entities.keys().enumerate().map(|(i, root)| (*root, i as u32)).collect();
    let entity_days = pairs
        .iter()
        .zip(&placed)
        .map(|(pair, p)| p.as_ref().ok().map(|root| (dense[root], pair.first_t.div_euclid(DAY))))
        .collect();
    let repeating = entities.iter().filter(|(_, e)| e.repeat).map(|(root, _)| dense[root]).collect();
    let standings = Standings {
        entities: entity_days,
        repeating,
        payers: placed
            .iter()
            .map(|p| match p {
                Ok(root) if entities[root].trusted() => PayerStanding::Trusted,
                Ok(_) => PayerStanding::Untrusted,
                Err(standing) => *standing,
            })
            .collect(),
        trusted_mask,
        last_trusted_t,
        all_mask,
        last_t,
    };
    (d, reputation(forest, &entities, reviews, receipts), standings)
}

fn reputation(
    forest: &FundingForest,
    entities: &BTreeMap<u32, Entity>,
    reviews: &[Review],
    receipts: &[Receipt],
) -> ReputationStats {
    let mut r = ReputationStats::default();
    let mut clients = BTreeSet::new();
    let mut counted_clients = BTreeSet::new();
    // The latest counted review of each paying entity: (time, rating).
    let mut latest: BTreeMap<u32, (i64, i64)> = BTreeMap::new();
    for review in reviews.iter().filter(|x| (0..=RATING_SCALE as i64).contains(&x.v)) {
        r.feedback += 1;
        clients.insert(review.client);
        let root = forest.root(review.client);
        if entities.get(&root).is_some_and(|e| e.first_t < review.t) {
            counted_clients.insert(review.client);
            let slot = latest.entry(root).or_insert((i64::MIN, 0));
            *slot = (*slot).max((review.t, review.v));
        }
    }
    r.feedback_clients = clients.len() as u32;
    r.unpaid_feedback_clients = clients.difference(&counted_clients).count() as u32;
    for (root, (_, v)) in &latest {
        let w = entities[root].weight();
        if w > 0.0 {
            let rating = *v as f64 / RATING_SCALE;
            r.reviewing_entities += 1;
            r.review_weight += w;
            r.review_sum += w * rating;
            if w >= 1.0 && rating >= 0.7 {
                r.trusted_reviewers += 1;
            }
        }
    }
    // Matched receipts per paying entity: (successes, total).
    let mut by_entity: BTreeMap<u32, (u32, u32)> = BTreeMap::new();
    for receipt in receipts {
        r.receipts += 1;
        let root = forest.root(receipt.buyer);
        let matched = match receipt.cited {
            Some(Some(payer)) => forest.root(payer) == root && entities.contains_key(&root),
            Some(None) => false,
            None => entities.get(&root).is_some_and(|e| e.first_t < receipt.t),
        };
        if matched {
            r.receipts_matched += 1;
            let slot = by_entity.entry(root).or_default();
            slot.0 += u32::from(receipt.success);
            slot.1 += 1;
        }
    }
    for (root, (ok, total)) in &by_entity {
        let e = &entities[root];
        let success = f64::from(*ok) / f64::from(*total);
        r.receipt_weight += e.weight();
        r.receipt_success += e.weight() * success;
        if e.trusted() && success <= 0.5 {
            r.failed_entities += 1;
        }
    }
    r
}

#[cfg(test)]
mod tests {
    use super::*;

    fn pair(payer: u32, n: u64, first_t: i64) -> Pair {
        Pair { seller: 0, payer, n, spend: n * 10_000, first_t, last_t: first_t + n as i64, mask30: 1 }
    }

    #[test]
    fn reviews_count_once_per_paying_entity_and_only_after_paying() {
        // Seller 0; payer 1 (trusted) funded by owner 2, who reviews; wallets 3 and 4 never paid.
        let mut forest = FundingForest::new(5);
        forest.parent[1] = 2;
        let trust = [0.0, 1.0, 0.0, 0.0, 0.0];
        let ev = Evidence { forest: &forest, trust: &trust, pay_scale: &[0.0; 5], day_end: 100 * DAY };
        let reviews = [
            Review { seller: 0, client: 2, t: 50, v: 90_000_000 },
            Review { seller: 0, client: 2, t: 5, v: 0 },
            Review { seller: 0, client: 3, t: 60, v: 0 },
            Review { seller: 0, client: 4, t: 60, v: 0 },
        ];
        let (d, r, _) = weigh(&ev, 0, false, &[pair(1, 3, 10)], &reviews, &[]);
        assert_eq!(d.trusted_entities, 1);
        assert_eq!(r.reviewing_entities, 1, "the owner's review counts for the account it funded");
        assert!((r.review_sum - 0.9).abs() < 1e-9, "the review before paying does not count");
        assert_eq!(r.unpaid_feedback_clients, 2);
    }

    #[test]
    fn seller_funded_payers_are_not_demand() {
        // Seller 0 funds 5, which funds payer 1: two hops.
        let mut forest = FundingForest::new(6);
        forest.parent[5] = 0;
        forest.parent[1] = 5;
        let trust = [0.0, 1.0, 1.0, 0.0, 0.0, 0.0];
        let ev = Evidence { forest: &forest, trust: &trust, pay_scale: &[0.0; 6], day_end: 100 * DAY };
        let (d, _, _) = weigh(&ev, 0, false, &[pair(1, 8, 10), pair(2, 2, 10), pair(0, 3, 10)], &[], &[]);
        assert_eq!((d.seller_funded_payers, d.seller_funded_settlements, d.self_payments), (1, 8, 3));
        assert_eq!(d.payers, 1);
        assert_eq!(d.trusted_entities, 1);
    }

    #[test]
    fn failed_receipts_need_a_matching_payment() {
        let forest = FundingForest::new(4);
        let trust = [0.0, 1.0, 0.0, 0.0];
        let ev = Evidence { forest: &forest, trust: &trust, pay_scale: &[0.0; 4], day_end: 100 * DAY };
        let receipts = [
            Receipt { seller: 0, buyer: 1, success: false, t: 50, cited: None },
            Receipt { seller: 0, buyer: 3, success: false, t: 50, cited: None },
            Receipt { seller: 0, buyer: 3, success: false, t: 50, cited: Some(Some(1)) },
            Receipt { seller: 0, buyer: 1, success: false, t: 50, cited: Some(None) },
        ];
        let (_, r, _) = weigh(&ev, 0, false, &[pair(1, 1, 10)], &[], &receipts);
        assert_eq!(r.receipts, 4);
        assert_eq!(r.receipts_matched, 1, "only the paying buyer's receipt counts");
        assert_eq!(r.failed_entities, 1);
    }
}
