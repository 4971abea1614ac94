//! What a planned actor is and does: payment rails and streams, the events it produces, the
//! sellers and deployers it plays, and `Actor`, which builds one actor's events and counts what
//! they cost an attacker.

use std::collections::BTreeMap;

use agentrep_lake::Timestamp;
use agentrep_lake::datasets::{
    EntityLabelRow, FeedbackRow, FundingRow, ListEntryRow, ProofRow, ReceiptRow, RegistrationRow,
};
use rand::Rng;

use crate::cost::{self, Tally};
use crate::rng::{hex_bytes, key};

use super::*;

/// How a payment reaches the chain.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Rail {
    /// x402: a facilitator submits an EIP-3009 authorisation; USDC on Base.
    X402,
    /// A plain USDC transfer sent by the payer (no facilitator, no EIP-3009).
    Plain,
    /// x402 on Base Sepolia.
    Testnet,
    /// x402 in another asset (EURC on Base).
    OtherAsset,
}

/// Hash of the `k`-th payment of a stream in a hash space (`stx` for sellers' actors, `gtx`
/// for griefers).
pub(crate) fn tx_hash(seed: u64, space: &str, tag: u64, k: u64) -> String {
    hex_bytes(key(seed, space, &[tag, k]), 32)
}

/// A payer's scheduled payments to one wallet: `count` payments, the k-th at
/// `first + k·period + u·jitter·period` with `u` uniform in `[0, 1)` (never before `first`).
#[derive(Debug, Clone)]
pub(crate) struct Stream {
    pub payer: String,
    pub pay_to: String,
    pub first: i64,
    pub period: i64,
    pub count: u32,
    pub jitter: f64,
    pub value: u64,
    pub rail: Rail,
    /// Unique per stream within its hash space (seller or griefing).
    pub tag: u64,
}

impl Stream {
    /// The time of payment `k`.
    pub fn at(&self, seed: u64, space: &str, k: u64) -> i64 {
        let u = (key(seed, space, &[self.tag, k, 0x6a]) >> 11) as f64 / (1u64 << 53) as f64;
        self.first + k as i64 * self.period + (u * self.jitter * self.period as f64) as i64
    }

    /// Payments (k, time) falling in `[from, to)`.
    pub fn payments_in(&self, seed: u64, space: &str, from: i64, to: i64) -> Vec<(u64, i64)> {
        let mut out = Vec::new();
        if self.count == 0 || self.period <= 0 {
            return out;
        }
        let margin = (self.jitter * self.period as f64) as i64 + 1;
        let lo = ((from - margin - self.first).div_euclid(self.period)).max(0);
        let mut k = lo as u64;
        while k < u64::from(self.count) {
            let base = self.first + k as i64 * self.period;
            if base >= to {
                break;
            }
            let at = self.at(seed, space, k);
            if at >= from && at < to {
                out.push((k, at));
            }
            k += 1;
        }
        out
    }

    /// Payments expected before `end` (for volume and cost accounting).
    pub fn expected(&self, end: i64) -> u64 {
        if self.first >= end || self.period <= 0 {
            return 0;
        }
        (((end - self.first) as f64 / self.period as f64).ceil() as u64).min(u64::from(self.count))
    }
}

/// A first-funding row, keyed by its time.
pub(crate) fn funding_row(funded: &str, funder: &str, at: i64, amount: u64) -> (i64, FundingRow) {
    (
        at,
        FundingRow {
            funded: funded.to_owned(),
            funder: funder.to_owned(),
            first_funded_at: Timestamp::from_secs(at),
            amount,
        },
    )
}

/// Rows an actor's plan produces outside the daily settlement and probe passes.
#[derive(Debug, Default)]
pub(crate) struct Events {
    pub funding: Vec<(i64, FundingRow)>,
    pub proofs: Vec<(i64, ProofRow)>,
    pub feedback: Vec<(i64, FeedbackRow)>,
    pub receipts: Vec<(i64, ReceiptRow)>,
    pub registrations: Vec<(i64, RegistrationRow)>,
    pub lists: Vec<(i64, ListEntryRow)>,
    pub labels: Vec<(i64, EntityLabelRow)>,
    pub streams: Vec<Stream>,
}

impl Events {
    /// No rows, with room for every row of `parts` (their streams aside), so that moving them all
    /// in never regrows a vector: at ten times the benchmark scale a regrowth is gigabytes.
    pub fn with_capacity_for<'a>(parts: impl Iterator<Item = &'a Events>) -> Self {
        let mut n = [0usize; 7];
        for e in parts {
            let lens = [
                e.funding.len(),
                e.proofs.len(),
                e.feedback.len(),
                e.receipts.len(),
                e.registrations.len(),
                e.lists.len(),
                e.labels.len(),
            ];
            n.iter_mut().zip(lens).for_each(|(total, len)| *total += len);
        }
        Self {
            funding: Vec::with_capacity(n[0]),
            proofs: Vec::with_capacity(n[1]),
            feedback: Vec::with_capacity(n[2]),
            receipts: Vec::with_capacity(n[3]),
            registrations: Vec::with_capacity(n[4]),
            lists: Vec::with_capacity(n[5]),
            labels: Vec::with_capacity(n[6]),
            streams: Vec::new(),
        }
    }
}

/// One listed resource.
#[derive(Debug, Clone)]
pub(crate) struct Resource {
    pub url: String,
    pub pay_to: String,
    pub price: u64,
}

/// What an offer-mismatch endpoint's 402 asks for instead of the listing's terms.
#[derive(Debug, Clone, Copy, PartialEq)]
pub(crate) enum Mismatch {
    /// Another payTo (payment hijack): customers' money goes elsewhere.
    PayTo,
    /// Another asset or network.
    AssetNetwork,
    /// A higher price.
    Price(f64),
}

/// One planned seller.
#[derive(Debug)]
pub(crate) struct Seller {
    pub index: u32,
    pub address: String,
    pub kind: SellerKind,
    /// Latent quality in 0..=1 (drives repeat demand, uptime, latency, ratings).
    pub quality: f64,
    /// Mean pool (or extra-payer) settlements per active day.
    pub rate: f64,
    /// Payer indices into the shared pool (honest-like demand).
    pub customers: Vec<u32>,
    /// Other wallets in the random demand (smart accounts, own payers), drawn `extra_share` of
    /// the time.
    pub extra_payers: Vec<String>,
    pub extra_share: f64,
    /// Share of its demand a self-dealer pays from its own wallet.
    pub self_pay_share: f64,
    pub resources: Vec<Resource>,
    pub tags: Vec<String>,
    pub description: String,
    pub ecosystem: &'static str,
    pub network: &'static str,
    /// Day index (relative to the window start, may be negative) of the first listing.
    pub first_seen_day: i32,
    /// Day index from which the endpoint is dead and nobody pays.
    pub death_day: Option<u32>,
    pub ok_rate: f64,
    pub latency_ms: f64,
    pub agent_id: Option<u64>,
    pub proofs: Vec<&'static str>,
    pub allowlisted: bool,
    /// x402 version of the endpoint's offers.
    pub offer_version: u32,
    /// Offer mismatch: what, from which day, on what share of probes.
    pub mismatch: Option<(Mismatch, u32, f64)>,
    /// Share of paid calls that fail (receipts).
    pub fail_share: f64,
    /// The public rank of the seller's web domain, when it has one.
    pub domain_rank: Option<u32>,
    pub knobs: BTreeMap<String, f64>,
    pub cost: Option<f64>,
    pub cost_probe: bool,
    pub events: Events,
}

impl Seller {
    pub fn active_on(&self, day: u32) -> bool {
        i64::from(day) >= i64::from(self.first_seen_day) && self.death_day.is_none_or(|d| day < d)
    }

    pub fn price(&self) -> u64 {
        self.resources[0].price
    }
}

/// One planned deployer.
#[derive(Debug, Clone)]
pub(crate) struct Deployer {
    pub index: u32,
    pub address: String,
    pub kind: DeployerKind,
    pub launches: u32,
    pub proofs: Vec<&'static str>,
    pub denylisted: bool,
    pub knobs: BTreeMap<String, f64>,
    /// First funder and when (seconds).
    pub funder: String,
    pub funded_at: i64,
}

/// Builds the events of one actor (a seller's operator, an attacker, a griefer), counting what
/// costs the attacker money.
#[derive(Debug)]
pub(crate) struct Actor<'a> {
    pub ctx: &'a Ctx<'a>,
    /// Owner id: addresses and stream tags derive from it.
    pub id: u64,
    pub role: &'static str,
    pub ev: Events,
    pub tally: Tally,
    /// Whether spending counts (attacks and griefing) or not (honest actors).
    pub attacker: bool,
    streams: u64,
    feedback_index: BTreeMap<(u64, String), u64>,
}

impl<'a> Actor<'a> {
    pub fn new(ctx: &'a Ctx<'a>, role: &'static str, id: u64, attacker: bool) -> Self {
        Self {
            ctx,
            id,
            role,
            ev: Events::default(),
            tally: Tally::default(),
            attacker,
            streams: 0,
            feedback_index: BTreeMap::new(),
        }
    }

    /// A wallet of this actor.
    pub fn wallet(&self, what: &str, j: u64) -> String {
        hex_bytes(key(self.ctx.seed(), self.role, &[self.id, key(0, what, &[j])]), 20)
    }

    /// A first-funding edge sent by `funder`; costs gas when the attacker sends it.
    pub fn fund(&mut self, funded: &str, funder: &str, at: i64, amount: u64) {
        if self.attacker {
            self.tally.txs += 1;
        }
        self.ev.funding.push(funding_row(funded, funder, at, amount));
    }

    /// A withdrawal from an exchange hub as `funded`'s first funding.
    pub fn withdraw(&mut self, funded: &str, at: i64, amount: u64, r: &mut impl Rng) {
        if self.attacker {
            self.tally.withdrawals += 1;
        }
        let hub = self.ctx.hub(r);
        self.ev.funding.push((
            at,
            FundingRow { funded: funded.to_owned(), funder: hub, first_funded_at: Timestamp::from_secs(at), amount },
        ));
    }

    /// Adds a payment stream; `own`: paid to a wallet the attacker controls.
    pub fn stream(&mut self, mut s: Stream, own: bool) {
        s.tag = self.id << 24 | self.streams;
        self.streams += 1;
        s.first = s.first.max(self.ctx.start());
        if self.attacker {
            let n = s.expected(self.ctx.end());
            if s.rail == Rail::Plain {
                // The payer sends a plain transfer itself.
                self.tally.txs += n;
            }
            if !own {
                self.tally.external_usdc += n as f64 * s.value as f64 / 1e6;
            } else if s.rail != Rail::Plain {
                self.tally.own_settlements += n;
            }
        }
        self.ev.streams.push(s);
    }

    /// One payment at `at`.
    pub fn pay_once(&mut self, payer: &str, pay_to: &str, at: i64, value: u64, rail: Rail, own: bool) -> u64 {
        let tag = self.id << 24 | self.streams;
        self.stream(
            Stream {
                payer: payer.to_owned(),
                pay_to: pay_to.to_owned(),
                first: at,
                period: DAY,
                count: 1,
                jitter: 0.0,
                value,
                rail,
                tag: 0,
            },
            own,
        );
        tag
    }

    /// ERC-8004 feedback (`rating` 0..=100) from `client`; the attacker pays its gas.
    pub fn feedback(&mut self, agent_id: u64, client: &str, rating: f64, at: i64, r: &mut impl Rng) {
        if self.attacker {
            self.tally.txs += 1;
        }
        let index = self.feedback_index.entry((agent_id, client.to_owned())).or_insert(0);
        *index += 1;
        let tenths = r.random_bool(0.3);
        let rating = rating.clamp(0.0, 100.0);
        self.ev.feedback.push((
            at,
            FeedbackRow {
                agent_id,
                client: client.to_owned(),
                feedback_index: *index,
                value: if tenths { (rating * 10.0).round() as i64 } else { rating.round() as i64 },
                value_decimals: u32::from(tenths),
                tag1: "starred".to_owned(),
                tag2: String::new(),
                revoked: r.random_bool(0.02),
                block_time: Timestamp::from_secs(at),
            },
        ));
    }

    /// A buyer-signed receipt (off-chain: free).
    #[allow(clippy::too_many_arguments)]
    pub fn receipt(
        &mut self,
        buyer: &str,
        agent: &str,
        tx_hash: Option<String>,
        success: bool,
        latency_ms: Option<u32>,
        rating: Option<u32>,
        at: i64,
    ) {
        self.ev.receipts.push((
            at,
            ReceiptRow {
                buyer: buyer.to_owned(),
                agent: agent.to_owned(),
                tx_hash,
                success,
                latency_ms,
                rating,
                comment: None,
                received_at: Timestamp::from_secs(at),
            },
        ));
    }

    /// An identity proof of `address`; the attacker pays what it costs.
    pub fn proof(&mut self, address: &str, proof_type: &str, at: i64) {
        if self.attacker {
            self.tally.proofs_usdc += cost::proof_cost(proof_type).unwrap_or(0.0);
        }
        self.ev.proofs.push((
            at,
            ProofRow {
                address: address.to_owned(),
                proof_type: proof_type.to_owned(),
                source: proof_source(proof_type).to_owned(),
                verified_at: Timestamp::from_secs(at),
            },
        ));
    }

    /// `payer` buys about `spend_usdc` from honest sellers between `from` and `to` (to look like
    /// an ordinary customer); money the attacker does not get back.
    pub fn buy_honest(&mut self, r: &mut impl Rng, payer: &str, spend_usdc: f64, from: i64, to: i64) {
        if spend_usdc <= 0.0 || self.ctx.catalog.is_empty() {
            return;
        }
        let parts = r.random_range(1..=3u32);
        let part = spend_usdc * 1e6 / f64::from(parts);
        for _ in 0..parts {
            // A seller whose price keeps the number of calls plausible (at most 15).
            let mut best = &self.ctx.catalog[r.random_range(0..self.ctx.catalog.len())];
            for _ in 0..30 {
                if best.1 as f64 >= part / 15.0 {
                    break;
                }
                let c = &self.ctx.catalog[r.random_range(0..self.ctx.catalog.len())];
                if c.1 > best.1 {
                    best = c;
                }
            }
            let count = ((part / best.1 as f64).round() as u32).clamp(1, 15);
            let first = r.random_range(from..to.max(from + 1));
            let period = ((to - first) / i64::from(count)).max(HOUR);
            let (pay_to, price) = (best.0.clone(), best.1);
            self.stream(
                Stream {
                    payer: payer.to_owned(),
                    pay_to,
                    first,
                    period,
                    count,
                    jitter: 0.9,
                    value: price,
                    rail: Rail::X402,
                    tag: 0,
                },
                false,
            );
        }
    }

    /// Funds `payers` from `root` through `hops` layers of intermediaries (each payer its own
    /// chain), the last edge `lead` seconds before `first_pay`.
    /// Returns when `payer` was funded.
    pub fn fund_chain(&mut self, r: &mut impl Rng, root: &str, payer: &str, j: u64, hops: u32, before: i64) -> i64 {
        let mut t = before - r.random_range(HOUR..3 * DAY);
        let funded_at = t;
        let amount = r.random_range(5_000_000..80_000_000u64);
        let mut funded = payer.to_owned();
        for h in 0..hops {
            let mid = self.wallet("intermediary", j * 8 + u64::from(h));
            self.fund(&funded, &mid, t, amount + u64::from(h) * 1_000);
            funded = mid;
            t -= r.random_range(HOUR..2 * DAY);
        }
        self.fund(&funded, root, t, amount + u64::from(hops) * 1_000);
        funded_at
    }
}
