//! Loads the wallet graph of one rebuild from the temporary tables of `sql/sellers.sql`: dense
//! wallet ids, the first-funding forest with its hubs, anchors and the denylist, the qualifying
//! (seller, payer) pairs, and each payer's history; then runs the two trust passes.

use agentrep_model::ProofType;
use agentrep_model::trust as p;

use crate::PipelineError;
use crate::demand::Pair;
use crate::engine::Engine;
use crate::engine::columns::{bools, i64s, strs, u32s, u64s};
use crate::sql_files::GRAPH;
use crate::trust::{Edge, FundingForest, PairPayments, PayerHistory, TrustGraph, history_seeds};

/// The wallet graph and the trust computed over it.
#[derive(Debug)]
pub(crate) struct WalletGraph {
    pub forest: FundingForest,
    pub denylisted: Vec<bool>,
    /// Wallet id of each seller, by seller index (the order of `seller_ids`).
    pub seller_wid: Vec<u32>,
    /// Qualifying pairs, sorted by seller index.
    pub pairs: Vec<Pair>,
    /// Per wallet, the trust one micro-USDC of its spend carries.
    pub pay_scale: Vec<f64>,
    /// Trust of every wallet, seed units.
    pub trust: Vec<f64>,
}

/// Anchor weight from external evidence: a Coinbase verification or the allowlist count fully,
/// self-registered names a little.
fn anchor_weight(proofs: &str, allowlisted: bool) -> f64 {
    let mut w = if allowlisted { p::ANCHOR_ALLOWLIST } else { 0.0 };
    for proof in proofs.split(',').filter_map(ProofType::parse) {
        w += if proof == ProofType::Cb1Verified { p::ANCHOR_CB1 } else { p::ANCHOR_NAME };
    }
    w.min(1.0)
}

impl WalletGraph {
    /// Loads the graph of the day ending at `day_end` and runs both trust passes, each stopping at
    /// `tolerance` ([`p::TOLERANCE`], or 0 for the exact fixed point).
    pub fn load(db: &Engine, day_end: i64, tolerance: f64) -> Result<Self, PipelineError> {
        let started = std::time::Instant::now();
        let step = |name: &str| tracing::debug!(target: "pipeline::trust", step = name, ms = started.elapsed().as_millis() as u64, "Trust step done.");
        let n = db.count("wallets", "wallets")?;

        let mut forest = FundingForest::new(n);
        db.each_batch("funding forest", GRAPH.section("funding_forest")?, |b| {
            let (child, parent, t) = (u32s(b, "child"), u32s(b, "parent"), i64s(b, "t"));
            for i in 0..b.num_rows() {
                forest.parent[child.value(i) as usize] = parent.value(i);
                forest.funded_at[child.value(i) as usize] = t.value(i);
            }
        })?;
        for b in db.batches("hubs", GRAPH.section("hubs")?)? {
            u32s(&b, "wid").values().iter().for_each(|v| forest.hub[*v as usize] = true);
        }
        let mut denylisted = vec![false; n];
        for b in db.batches("denylist", GRAPH.section("denylist")?)? {
            u32s(&b, "wid").values().iter().for_each(|v| denylisted[*v as usize] = true);
        }
        let mut anchors = vec![0.0f64; n];
        let mut allowlisted = vec![false; n];
        for b in db.batches("anchors", GRAPH.section("anchors")?)? {
            let (wid, proofs, allow) = (u32s(&b, "wid"), strs(&b, "proofs"), bools(&b, "allow"));
            for i in 0..b.num_rows() {
                anchors[wid.value(i) as usize] = anchor_weight(proofs.value(i), allow.value(i));
                allowlisted[wid.value(i) as usize] = allow.value(i);
            }
        }

        step("forest, hubs, denylist, anchors");
        let mut seller_wid = Vec::new();
        for b in db.batches("seller ids", GRAPH.section("seller_wids")?)? {
            seller_wid.extend_from_slice(u32s(&b, "wid").values());
        }

        // Sized once and read a batch at a time: the pairs are the largest thing the rebuild reads
        // into Rust (BENCHMARKS.md § 4l).
        let mut pairs = Vec::with_capacity(db.count("pairs", "pp")?);
        db.each_batch("pairs", GRAPH.section("pairs")?, |b| {
            let (sid, wid, cnt, spend) = (u32s(b, "seller"), u32s(b, "wid"), u64s(b, "n"), u64s(b, "spend"));
            let (first, last, mask) = (i64s(b, "first_t"), i64s(b, "last_t"), u64s(b, "mask30"));
            for i in 0..b.num_rows() {
                pairs.push(Pair {
                    seller: sid.value(i),
                    payer: wid.value(i),
                    n: cnt.value(i),
                    spend: spend.value(i),
                    first_t: first.value(i),
                    last_t: last.value(i),
                    mask30: mask.value(i),
                });
            }
        })?;

        step("pairs");
        // Each payer's history from its pairs: the days (of the last 30) it paid on, and its first
        // qualifying payment.
        let mut days = vec![0u64; n];
        let mut first_paid = vec![i64::MAX; n];
        for pair in &pairs {
            days[pair.payer as usize] |= pair.mask30;
            first_paid[pair.payer as usize] = first_paid[pair.payer as usize].min(pair.first_t);
        }
        let history: Vec<Option<PayerHistory>> = (0..n)
            .map(|v| {
                (first_paid[v] != i64::MAX)
                    .then(|| PayerHistory { active_days: days[v].count_ones(), first_paid: first_paid[v] })
            })
            .collect();
        step("payer history");
        // Pass 1: trust from the anchors alone marks the established sellers (and a curated
        // allowlist vouches for its sellers directly). Pass 2 adds the history seeds: old payers
        // that spent at established sellers outside their entity.
        let edges: Vec<Edge> = pairs
            .iter()
            .map(|x| Edge { from: x.payer, to: seller_wid[x.seller as usize], weight: x.spend as f64 })
            .collect();
        let graph = TrustGraph::build(n, &edges, &forest);
        step("graph");
        let anchored = graph.pagerank(&anchors, tolerance);
        step("pass 1");
        let mut established = vec![false; n];
        for &wid in &seller_wid {
            let w = wid as usize;
            established[w] = allowlisted[w] || anchored.trust[w] - anchors[w] >= p::ESTABLISHED_TRUST;
        }
        // A seller proven by a ranked domain it controls, or by a Coinbase verification, is
        // established too: spending there builds a payer's history (`SCORING.md` § 1).
        for b in db.batches("proven sellers", GRAPH.section("proven_sellers")?)? {
            u32s(&b, "wid").values().iter().for_each(|v| established[*v as usize] = true);
        }
        let payments: Vec<PairPayments> =
            edges.iter().map(|e| PairPayments { seller: e.to, payer: e.from, spend: e.weight as u64 }).collect();
        let history_weights = history_seeds(&forest, &payments, &history, &established, day_end);
        let seeds: Vec<f64> = anchors.iter().zip(&history_weights).map(|(a, h)| (a + h).min(1.0)).collect();
        let ranked = graph.pagerank(&seeds, tolerance);
        step("pass 2");
        tracing::debug!(
            target: "pipeline::trust",
            wallets = n,
            anchors = anchors.iter().filter(|w| **w > 0.0).count(),
            established = established.iter().filter(|e| **e).count(),
            history_seeds = history_weights.iter().filter(|w| **w > 0.0).count(),
            trusted = ranked.trust.iter().filter(|t| **t >= p::TRUSTED_ENTITY_MIN).count(),
            tolerance,
            pass1_iterations = anchored.iterations,
            pass1_change = anchored.change,
            pass2_iterations = ranked.iterations,
            pass2_change = ranked.change,
            "Trust computed."
        );
        let trust = ranked.trust;
        Ok(Self { forest, denylisted, seller_wid, pairs, trust, pay_scale: graph.pay_scale })
    }

    /// The first funder within [`p::TAINT_HOPS`] that is denylisted or in `avoid`, with its hop
    /// count, when the wallet was funded no later than `created_by` (its first listing or launch):
    /// funding sent after a wallet is in use is anyone's to send, and proves nothing.
    pub fn taint(&self, wid: u32, created_by: i64, avoid: &[bool]) -> Option<Taint> {
        if self.forest.funded_at[wid as usize] > created_by {
            return None;
        }
        self.forest.ancestors(wid, p::TAINT_HOPS).find_map(|(by, hops)| {
            let why = if self.denylisted[by as usize] {
                "denylisted"
            } else if avoid.get(by as usize).copied().unwrap_or(false) {
                "rugging deployer"
            } else {
                return None;
            };
            Some(Taint { by, hops, why })
        })
    }
}

/// A known-bad wallet among the first funders of another.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct Taint {
    /// The funder's wallet id.
    pub by: u32,
    /// Funding hops between them.
    pub hops: usize,
    /// Why the funder is bad.
    pub why: &'static str,
}

impl Taint {
    /// The link as payloads show it, e.g. `0xab… (denylisted, 2 hops)`.
    pub fn describe(&self, db: &Engine) -> Result<String, PipelineError> {
        let plural = if self.hops == 1 { "" } else { "s" };
        Ok(format!("{} ({}, {} hop{plural})", address_of(db, self.by)?, self.why, self.hops))
    }
}

/// The address of a wallet id.
pub(crate) fn address_of(db: &Engine, wid: u32) -> Result<String, PipelineError> {
    db.conn
        .query_row("SELECT address FROM wallets WHERE wid = ?", [wid], |r| r.get("address"))
        .map_err(|source| PipelineError::Duckdb { pass: "wallet address", source })
}
