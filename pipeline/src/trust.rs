//! Trust over the payment and funding graph: funding entities (first-funding chains cut at hubs),
//! seeds, and personalized PageRank computed in parallel. Pure Rust over dense wallet ids; the
//! rebuild feeds it from DuckDB and reads the result per seller (`demand.rs`).
//!
//! `SCORING.md` § "Trust" is the prose form of this file; the constants are in
//! [`agentrep_model::trust`].

use agentrep_model::trust as p;
use rayon::prelude::*;

/// Marks "no wallet" in parent links.
pub(crate) const NONE: u32 = u32::MAX;
const DAY: i64 = 86_400;

/// First-funding links between wallets, with the hubs that cut them.
#[derive(Debug, Clone)]
pub(crate) struct FundingForest {
    /// First funder of each wallet, or [`NONE`].
    pub parent: Vec<u32>,
    /// Time of the first funding (seconds), `i64::MAX` when unknown.
    pub funded_at: Vec<i64>,
    /// Labelled or behavioural hubs: exchanges, bridges, facilitators.
    pub hub: Vec<bool>,
}

impl FundingForest {
    /// An empty forest of `n` wallets.
    pub fn new(n: usize) -> Self {
        Self { parent: vec![NONE; n], funded_at: vec![i64::MAX; n], hub: vec![false; n] }
    }

    fn funder(&self, v: u32) -> Option<u32> {
        let f = self.parent[v as usize];
        (f != NONE && f != v).then_some(f)
    }

    /// The entity of a wallet: the last wallet up its chain of first funders (at most
    /// [`p::MAX_FUNDING_HOPS`] hops) before a hub or the chain's end. Wallets funded straight from
    /// a hub are their own entity; a fleet funded by one treasury shares the treasury's.
    pub fn root(&self, v: u32) -> u32 {
        let mut cur = v;
        for _ in 0..p::MAX_FUNDING_HOPS {
            match self.funder(cur) {
                Some(f) if !self.hub[f as usize] && f != v => cur = f,
                _ => break,
            }
        }
        cur
    }

    /// The wallets up the chain of first funders, with their hop count (1 = direct funder),
    /// up to `hops`; hubs end the chain.
    pub fn ancestors(&self, v: u32, hops: usize) -> impl Iterator<Item = (u32, usize)> + '_ {
        let mut cur = v;
        (1..=hops).map_while(move |hop| {
            let f = self.funder(cur).filter(|f| !self.hub[*f as usize] && *f != v)?;
            cur = f;
            Some((f, hop))
        })
    }
}

/// A weighted directed edge.
#[derive(Debug, Clone, Copy, PartialEq)]
pub(crate) struct Edge {
    pub from: u32,
    pub to: u32,
    pub weight: f64,
}

/// The trust graph as incoming edges per wallet (compressed rows), with each wallet's outgoing
/// weights normalised to one.
#[derive(Debug)]
pub(crate) struct TrustGraph {
    offsets: Vec<usize>,
    sources: Vec<u32>,
    weights: Vec<f64>,
    /// Per wallet: the share of its trust that one micro-USDC of its qualifying spend carries to
    /// the seller it pays (`PAYMENT_SHARE / total spend`, or `1 / total spend`), before damping.
    pub pay_scale: Vec<f64>,
}

impl TrustGraph {
    /// Builds the graph from payment edges (payer → seller, weighted by qualifying spend) and the
    /// forest's non-hub funding links (funder → funded). A wallet that both pays and funds sends
    /// [`p::PAYMENT_SHARE`] of its trust along its payments.
    pub fn build(n: usize, payments: &[Edge], forest: &FundingForest) -> Self {
        let payments: Vec<&Edge> = payments.iter().filter(|e| e.weight > 0.0 && e.from != e.to).collect();
        let mut paid = vec![0.0f64; n];
        for e in &payments {
            paid[e.from as usize] += e.weight;
        }
        let mut funded = vec![0u32; n];
        for (v, &f) in forest.parent.iter().enumerate() {
            if f != NONE && f as usize != v && !forest.hub[f as usize] {
                funded[f as usize] += 1;
            }
        }
        let share = |u: usize| match (paid[u] > 0.0, funded[u] > 0) {
            (true, true) => (p::PAYMENT_SHARE, 1.0 - p::PAYMENT_SHARE),
            (true, false) => (1.0, 0.0),
            (false, true) => (0.0, 1.0),
            (false, false) => (0.0, 0.0),
        };
        let pay_scale: Vec<f64> = (0..n).map(|u| if paid[u] > 0.0 { share(u).0 / paid[u] } else { 0.0 }).collect();
        let mut edges: Vec<(u32, u32, f64)> =
            payments.iter().map(|e| (e.to, e.from, pay_scale[e.from as usize] * e.weight)).collect();
        for (v, &f) in forest.parent.iter().enumerate() {
            if f != NONE && f as usize != v && !forest.hub[f as usize] {
                edges.push((v as u32, f, share(f as usize).1 / f64::from(funded[f as usize])));
            }
        }
        edges.par_sort_unstable_by(|a, b| (a.0, a.1).cmp(&(b.0, b.1)));
        let mut offsets = vec![0usize; n + 1];
        for (to, _, _) in &edges {
            offsets[*to as usize + 1] += 1;
        }
        for i in 0..n {
            offsets[i + 1] += offsets[i];
        }
        let sources = edges.iter().map(|e| e.1).collect();
        let weights = edges.iter().map(|e| e.2).collect();
        Self { offsets, sources, weights, pay_scale }
    }

    /// Personalized PageRank with the seed weights as the (unnormalised) teleport vector, in seed
    /// units: a wallet's trust is `seed + DAMPING · Σ incoming trust · weight`, iterated from the
    /// seeds until an iteration changes the whole vector by at most `tolerance` (L1;
    /// [`p::TOLERANCE`] in a rebuild, 0 for the exact fixed point) or [`p::MAX_ITERATIONS`] ran.
    /// Trust that reaches a wallet with no outgoing edge stays there. Linear in the seeds and
    /// monotone in the edges, so evidence from wallets no seed reaches adds exactly nothing to
    /// anyone. Deterministic: each wallet sums its inflow in a fixed order, and the change is
    /// summed in wallet order, so the stopping iteration never depends on the threads.
    pub fn pagerank(&self, seeds: &[f64], tolerance: f64) -> Ranked {
        let mut trust = seeds.to_vec();
        let (mut iterations, mut change) = (0, f64::INFINITY);
        while iterations < p::MAX_ITERATIONS && change > tolerance {
            let next: Vec<f64> = (0..seeds.len())
                .into_par_iter()
                .with_min_len(4096)
                .map(|v| {
                    let (a, b) = (self.offsets[v], self.offsets[v + 1]);
                    let inflow: f64 =
                        self.sources[a..b].iter().zip(&self.weights[a..b]).map(|(u, w)| trust[*u as usize] * w).sum();
                    seeds[v] + p::DAMPING * inflow
                })
                .collect();
            change = next.iter().zip(&trust).map(|(new, old)| (new - old).abs()).sum();
            trust = next;
            iterations += 1;
        }
        Ranked { trust, iterations, change }
    }
}

/// Trust from [`TrustGraph::pagerank`], and how it converged.
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct Ranked {
    /// Trust of every wallet, seed units.
    pub trust: Vec<f64>,
    /// Iterations run.
    pub iterations: usize,
    /// What the last iteration changed (L1, seed units).
    pub change: f64,
}

/// One payer's qualifying payments to one seller, as the trust pass needs them.
#[derive(Debug, Clone, Copy, PartialEq)]
pub(crate) struct PairPayments {
    pub seller: u32,
    pub payer: u32,
    pub spend: u64,
}

/// One payer's history across sellers.
#[derive(Debug, Clone, Copy, Default, PartialEq)]
pub(crate) struct PayerHistory {
    /// Distinct days with a qualifying payment, in the last 30.
    pub active_days: u32,
    /// First qualifying payment (seconds).
    pub first_paid: i64,
}

/// History seeds: wallets with a long, diverse, independent history of paying established
/// sellers. A payer at least [`p::SEED_MIN_AGE_DAYS`] old that paid at least
/// [`p::SEED_MIN_SELLERS`] established sellers outside its own entity on at least
/// [`p::SEED_MIN_ACTIVE_DAYS`] days weighs `min(1, that spend / SEED_FULL_SPEND)`; the seeds of
/// one entity share one unit.
pub(crate) fn history_seeds(
    forest: &FundingForest,
    pairs: &[PairPayments],
    history: &[Option<PayerHistory>],
    established: &[bool],
    day_end: i64,
) -> Vec<f64> {
    let n = forest.parent.len();
    let mut spend = vec![0u64; n];
    let mut sellers = vec![0u32; n];
    for pair in pairs {
        let (payer, seller) = (pair.payer as usize, pair.seller);
        if established[seller as usize] && forest.root(pair.payer) != forest.root(seller) {
            spend[payer] += pair.spend;
            sellers[payer] += 1;
        }
    }
    let mut weight = vec![0.0f64; n];
    for v in 0..n {
        let Some(h) = history[v] else { continue };
        let born = forest.funded_at[v].min(h.first_paid);
        let age_days = (day_end - born).max(0) / DAY;
        if age_days >= i64::from(p::SEED_MIN_AGE_DAYS)
            && sellers[v] >= p::SEED_MIN_SELLERS
            && h.active_days >= p::SEED_MIN_ACTIVE_DAYS
        {
            weight[v] = (spend[v] as f64 / p::SEED_FULL_SPEND as f64).min(1.0);
        }
    }
    let mut per_root = vec![0.0f64; n];
    for v in 0..n {
        if weight[v] > 0.0 {
            per_root[forest.root(v as u32) as usize] += weight[v];
        }
    }
    for v in 0..n {
        let total = per_root[forest.root(v as u32) as usize];
        if total > 1.0 {
            weight[v] /= total;
        }
    }
    weight
}

#[cfg(test)]
mod tests {
    use super::*;

    fn forest(parents: &[(u32, u32)], n: usize, hubs: &[u32]) -> FundingForest {
        let mut f = FundingForest::new(n);
        for (child, parent) in parents {
            f.parent[*child as usize] = *parent;
            f.funded_at[*child as usize] = 0;
        }
        for h in hubs {
            f.hub[*h as usize] = true;
        }
        f
    }

    #[test]
    fn roots_follow_funding_up_to_hubs() {
        // 0 is an exchange; 1 a treasury it funded; 2, 3 fleet wallets; 4 funded by 3 (two hops).
        let f = forest(&[(1, 0), (2, 1), (3, 1), (4, 3), (5, 0)], 6, &[0]);
        assert_eq!(f.root(2), 1);
        assert_eq!(f.root(4), 1, "multi-hop chains reach the same entity");
        assert_eq!(f.root(5), 5, "funded straight from a hub: its own entity");
        assert_eq!(f.ancestors(4, 2).collect::<Vec<_>>(), vec![(3, 1), (1, 2)]);
    }

    #[test]
    fn trust_flows_from_seeds_only() {
        // Seed 0 pays seller 2; untrusted 1 pays seller 3 heavily.
        let f = FundingForest::new(4);
        let payments = [Edge { from: 0, to: 2, weight: 1.0 }, Edge { from: 1, to: 3, weight: 1000.0 }];
        let g = TrustGraph::build(4, &payments, &f);
        let t = g.pagerank(&[1.0, 0.0, 0.0, 0.0], p::TOLERANCE).trust;
        assert!((t[2] - p::DAMPING).abs() < 1e-12);
        assert_eq!(t[3], 0.0, "spend from an unreached wallet carries no trust");
        assert_eq!(t[1], 0.0);
    }

    #[test]
    fn a_chain_reaches_its_fixed_point_exactly_and_stops() {
        // Seed 0 pays 1, which funds 2 (0 → 1 → 2 → 3 by payments and funding): trust flows down
        // a chain of three hops, so the fourth iteration changes nothing, bit for bit.
        let mut f = FundingForest::new(4);
        f.parent[3] = 2;
        let payments = [Edge { from: 0, to: 1, weight: 1.0 }, Edge { from: 1, to: 2, weight: 1.0 }];
        let g = TrustGraph::build(4, &payments, &f);
        let ranked = g.pagerank(&[1.0, 0.0, 0.0, 0.0], p::TOLERANCE);
        assert_eq!(ranked.change, 0.0);
        assert_eq!(ranked.iterations, 4, "three hops, and one iteration that changes nothing");
        assert_eq!(ranked, g.pagerank(&[1.0, 0.0, 0.0, 0.0], 0.0), "the exact fixed point");
        assert!((ranked.trust[3] - p::DAMPING.powi(3)).abs() < 1e-15, "{ranked:?}");
    }

    #[test]
    fn a_cycle_stops_within_the_stated_bound_of_its_fixed_point() {
        // 0 and 1 pay each other: a = 1 + d·b, b = d·a, so a = 1 / (1 − d²) and b = d·a.
        let f = FundingForest::new(2);
        let payments = [Edge { from: 0, to: 1, weight: 1.0 }, Edge { from: 1, to: 0, weight: 1.0 }];
        let ranked = TrustGraph::build(2, &payments, &f).pagerank(&[1.0, 0.0], p::TOLERANCE);
        let a = 1.0 / (1.0 - p::DAMPING * p::DAMPING);
        let error = (ranked.trust[0] - a).abs() + (ranked.trust[1] - p::DAMPING * a).abs();
        assert!(ranked.change <= p::TOLERANCE && ranked.iterations < p::MAX_ITERATIONS, "{ranked:?}");
        assert!(error <= p::TOLERANCE * p::DAMPING / (1.0 - p::DAMPING), "{error:e} from the fixed point");
        let exact = TrustGraph::build(2, &payments, &f).pagerank(&[1.0, 0.0], 0.0);
        assert!(exact.iterations > ranked.iterations && (exact.trust[0] - a).abs() < 1e-12, "{exact:?}");
    }

    #[test]
    fn adding_unreached_wallets_changes_nothing() {
        let f = FundingForest::new(6);
        let base = [Edge { from: 0, to: 2, weight: 5.0 }, Edge { from: 0, to: 3, weight: 5.0 }];
        let t0 = TrustGraph::build(6, &base, &f).pagerank(&[1.0, 0.0, 0.0, 0.0, 0.0, 0.0], p::TOLERANCE).trust;
        let mut grief = base.to_vec();
        grief.extend([Edge { from: 4, to: 2, weight: 99.0 }, Edge { from: 5, to: 3, weight: 1.0 }]);
        let t1 = TrustGraph::build(6, &grief, &f).pagerank(&[1.0, 0.0, 0.0, 0.0, 0.0, 0.0], p::TOLERANCE).trust;
        assert_eq!(t0, t1);
    }

    #[test]
    fn one_entity_shares_one_seed_unit() {
        // Wallets 1..=4 funded by treasury 0, each an old payer of 3 established sellers 5, 6, 7,
        // together spending more than one full seed's worth.
        let mut f = forest(&[(1, 0), (2, 0), (3, 0), (4, 0)], 8, &[]);
        f.funded_at = vec![0; 8];
        let spend = p::SEED_FULL_SPEND / 6;
        let pairs: Vec<PairPayments> =
            (1..=4).flat_map(|payer| (5..=7).map(move |seller| PairPayments { seller, payer, spend })).collect();
        let history = vec![Some(PayerHistory { active_days: 10, first_paid: 0 }); 8];
        let established = [false, false, false, false, false, true, true, true];
        let seeds = history_seeds(&f, &pairs, &history, &established, 60 * DAY);
        let total: f64 = seeds.iter().sum();
        assert!((total - 1.0).abs() < 1e-12, "{seeds:?}");
        let young = history_seeds(&f, &pairs, &history, &established, 10 * DAY);
        assert_eq!(young.iter().sum::<f64>(), 0.0, "too young to seed");
    }
}
