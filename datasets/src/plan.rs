//! The world's cast, planned once from the seed: every seller and deployer with its archetype,
//! knobs, latent quality, demand, customers, endpoint, identity, and the events (funding, proofs,
//! feedback, receipts, scheduled payment streams) that its actors produce.

use std::collections::BTreeMap;

use agentrep_lake::Timestamp;
use agentrep_lake::datasets::{
    EntityLabelRow, FeedbackRow, FundingRow, ListEntryRow, ProofRow, ReceiptRow, RegistrationRow,
};
use rand::Rng;
use rand::seq::{IndexedRandom, SliceRandom};
use rand_chacha::ChaCha8Rng;
use rayon::prelude::*;
use serde::{Deserialize, Serialize};

use crate::cost::{self, Tally};
use crate::grief::{self, Grief};
use crate::knobs::Knobs;
use crate::rng::{self, address, hex_bytes, key, log_normal, log_uniform, pareto};
use crate::{ScaleParams, WorldConfig};

pub(crate) const DAY: i64 = 86_400;
pub(crate) const HOUR: i64 = 3_600;
/// USDC on Base.
pub(crate) const USDC_BASE: &str = "0x833589fcd6edb6e08f4c7c32d4f71b54bda02913";
/// USDC on Base Sepolia (a test network: worthless demand).
pub(crate) const USDC_BASE_SEPOLIA: &str = "0x036cbd53842c5426634e7929541ec2318f3dcf7e";
/// EURC on Base (another asset).
pub(crate) const EURC_BASE: &str = "0x60a3e35cc302bfa44cb288bc5a4f316fdb1adb42";
pub(crate) const BASE: &str = "eip155:8453";
pub(crate) const BASE_SEPOLIA: &str = "eip155:84532";
/// Facilitator signers that broadcast x402 settlements, with the facilitator's name.
pub(crate) const FACILITATORS: &[(&str, &str)] = &[
    ("0xdbdf3d8ed80f84c35d01c6c9f9271761bad90ba6", "coinbase-cdp"),
    ("0x9c9a4b6f2b7f6b1c4e0e6a7d1b5f0c3d2e1a4b7c", "payai"),
    ("0x3be1d9e4c4b3a2f1e0d9c8b7a6f5e4d3c2b1a0f9", "x402-rs"),
    ("0x7f8e9d0c1b2a3f4e5d6c7b8a9f0e1d2c3b4a5f6e", "thirdweb"),
];
const HUB_NAMES: &[&str] = &[
    "coinbase",
    "binance",
    "kraken",
    "okx",
    "bybit",
    "gate",
    "kucoin",
    "mexc",
    "bitget",
    "htx",
    "crypto-com",
    "upbit",
];
const BRIDGE_NAMES: &[&str] = &["across", "stargate", "relay"];
/// Exchange hubs left unlabelled (they exist, no label source knows them).
const UNLABELLED_HUBS: usize = 2;

/// Seller archetypes; `SellerClass` groups them for evaluation.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum SellerKind {
    /// Real service with real, repeat customers.
    Honest,
    /// Real service whose endpoint is up only part of the time.
    Flapping,
    /// Real service listed one to three weeks ago.
    Young,
    /// Real service paid by a company's fleet of agent wallets on fixed schedules, all funded by
    /// one treasury.
    TreasuryFleet,
    /// Real service whose customers pay from smart accounts and review from their owner EOAs.
    SmartAccountBuyers,
    /// Real service with several resources at different prices.
    MultiPrice,
    /// Real service listed one to six days ago, with real customers.
    NewHonest,
    /// Real service some of whose customers are monitoring bots paying at exact intervals.
    CronBuyers,
    /// One payer only (most x402 recipients).
    Ghost,
    /// Ring payers funded (through intermediaries) by a few funders pay the exact price on a
    /// schedule; the money goes back to the operator.
    #[serde(rename = "wash-ring")]
    WashRing,
    /// Pays itself and funds its own payers.
    SelfDealing,
    /// Endpoint died; payments made after are lost.
    Dead,
    /// ERC-8004 feedback from wallets that never paid.
    SybilFeedback,
    /// Suspicious TLD or admin path, little real demand.
    ScamListing,
    /// Known bad, on the denylist.
    Denylisted,
    /// The payers' funder dusts hundreds of fresh addresses first to look like an exchange hub.
    HubDusting,
    /// The seller's own wallet funds its payers through intermediaries.
    SelfFundingIntermediaries,
    /// Fresh payer wallets, each withdrawn separately from an exchange hub.
    SockPuppets,
    /// Fresh wallets pay once (a little) and post glowing ERC-8004 feedback.
    PaidOnceReviewers,
    /// Answers 402 properly and takes real customers' money, but fails the paid calls.
    PayThenFail,
    /// The 402 offer differs from the listing (payTo, asset or network, or a higher price).
    OfferMismatch,
    /// "Demand" of plain transfers or payments on another network or in another asset.
    UnattributedDemand,
    /// A new seller first-funded by a denylisted address (or one hop below one).
    DenylistFunded,
}

impl SellerKind {
    /// Every kind.
    pub const ALL: &'static [SellerKind] = &[
        SellerKind::Honest,
        SellerKind::Flapping,
        SellerKind::Young,
        SellerKind::TreasuryFleet,
        SellerKind::SmartAccountBuyers,
        SellerKind::MultiPrice,
        SellerKind::NewHonest,
        SellerKind::CronBuyers,
        SellerKind::Ghost,
        SellerKind::WashRing,
        SellerKind::SelfDealing,
        SellerKind::Dead,
        SellerKind::SybilFeedback,
        SellerKind::ScamListing,
        SellerKind::Denylisted,
        SellerKind::HubDusting,
        SellerKind::SelfFundingIntermediaries,
        SellerKind::SockPuppets,
        SellerKind::PaidOnceReviewers,
        SellerKind::PayThenFail,
        SellerKind::OfferMismatch,
        SellerKind::UnattributedDemand,
        SellerKind::DenylistFunded,
    ];

    /// The kebab-case name (as in the labels and the knob table).
    pub fn as_str(self) -> &'static str {
        match self {
            SellerKind::Honest => "honest",
            SellerKind::Flapping => "flapping",
            SellerKind::Young => "young",
            SellerKind::TreasuryFleet => "treasury-fleet",
            SellerKind::SmartAccountBuyers => "smart-account-buyers",
            SellerKind::MultiPrice => "multi-price",
            SellerKind::NewHonest => "new-honest",
            SellerKind::CronBuyers => "cron-buyers",
            SellerKind::Ghost => "ghost",
            SellerKind::WashRing => "wash-ring",
            SellerKind::SelfDealing => "self-dealing",
            SellerKind::Dead => "dead",
            SellerKind::SybilFeedback => "sybil-feedback",
            SellerKind::ScamListing => "scam-listing",
            SellerKind::Denylisted => "denylisted",
            SellerKind::HubDusting => "hub-dusting",
            SellerKind::SelfFundingIntermediaries => "self-funding-intermediaries",
            SellerKind::SockPuppets => "sock-puppets",
            SellerKind::PaidOnceReviewers => "paid-once-reviewers",
            SellerKind::PayThenFail => "pay-then-fail",
            SellerKind::OfferMismatch => "offer-mismatch",
            SellerKind::UnattributedDemand => "unattributed-demand",
            SellerKind::DenylistFunded => "denylist-funded",
        }
    }

    /// Honest-like demand from the shared payer pool (the service is really used).
    pub(crate) fn has_pool_demand(self) -> bool {
        self.class() == crate::SellerClass::Honest
            || matches!(
                self,
                SellerKind::Denylisted
                    | SellerKind::Dead
                    | SellerKind::PayThenFail
                    | SellerKind::OfferMismatch
                    | SellerKind::DenylistFunded
            )
    }
}

/// Deployer archetypes.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum DeployerKind {
    /// Launches graduate or stay alive.
    Builder,
    /// Launches mostly fade away.
    Casual,
    /// One or two launches, at least one rugged.
    Rugger,
    /// Three or more launches, mostly rugged.
    SerialRugger,
    /// Launched in the last days; nothing is decided yet.
    Fresh,
    /// Sells about 40% by day 3 and the rest by day 5 to 10; the price collapses.
    SlowRugger,
    /// Each rug comes with decoy launches that stay small but alive.
    DecoyRugger,
    /// A new wallet first-funded by a rugging deployer or a denylisted address.
    RuggerFunded,
}

impl DeployerKind {
    /// The kebab-case name.
    pub fn as_str(self) -> &'static str {
        match self {
            DeployerKind::Builder => "builder",
            DeployerKind::Casual => "casual",
            DeployerKind::Rugger => "rugger",
            DeployerKind::SerialRugger => "serial-rugger",
            DeployerKind::Fresh => "fresh",
            DeployerKind::SlowRugger => "slow-rugger",
            DeployerKind::DecoyRugger => "decoy-rugger",
            DeployerKind::RuggerFunded => "rugger-funded",
        }
    }

    /// A buyer of its tokens should be warned.
    pub fn is_bad(self) -> bool {
        matches!(
            self,
            DeployerKind::Rugger
                | DeployerKind::SerialRugger
                | DeployerKind::SlowRugger
                | DeployerKind::DecoyRugger
                | DeployerKind::RuggerFunded
        )
    }
}

/// Share of the sellers of each archetype (allocated by quota, then shuffled); what is left over
/// goes to `Honest`.
const SELLER_MIX: &[(SellerKind, f64)] = &[
    (SellerKind::Flapping, 0.025),
    (SellerKind::Young, 0.025),
    (SellerKind::TreasuryFleet, 0.02),
    (SellerKind::SmartAccountBuyers, 0.02),
    (SellerKind::MultiPrice, 0.025),
    (SellerKind::NewHonest, 0.02),
    (SellerKind::CronBuyers, 0.02),
    (SellerKind::Ghost, 0.25),
    (SellerKind::WashRing, 0.025),
    (SellerKind::SelfDealing, 0.02),
    (SellerKind::Dead, 0.03),
    (SellerKind::SybilFeedback, 0.02),
    (SellerKind::ScamListing, 0.025),
    (SellerKind::Denylisted, 0.015),
    (SellerKind::HubDusting, 0.02),
    (SellerKind::SelfFundingIntermediaries, 0.02),
    (SellerKind::SockPuppets, 0.025),
    (SellerKind::PaidOnceReviewers, 0.02),
    (SellerKind::PayThenFail, 0.02),
    (SellerKind::OfferMismatch, 0.02),
    (SellerKind::UnattributedDemand, 0.02),
    (SellerKind::DenylistFunded, 0.02),
];

/// Families with a spend dimension get cost-probe instances on this budget grid (USDC).
pub(crate) const PROBE_BUDGETS: &[f64] = &[1.0, 3.0, 10.0, 30.0, 100.0, 300.0, 1000.0];
const PROBES_PER_BUDGET: u32 = 2;
const PROBE_FAMILIES: &[SellerKind] = &[
    SellerKind::SockPuppets,
    SellerKind::WashRing,
    SellerKind::HubDusting,
    SellerKind::PaidOnceReviewers,
    SellerKind::SelfFundingIntermediaries,
];

const DEPLOYER_MIX: &[(DeployerKind, f64)] = &[
    (DeployerKind::Builder, 0.22),
    (DeployerKind::Casual, 0.30),
    (DeployerKind::Rugger, 0.14),
    (DeployerKind::SerialRugger, 0.09),
    (DeployerKind::Fresh, 0.09),
    (DeployerKind::SlowRugger, 0.06),
    (DeployerKind::DecoyRugger, 0.05),
    (DeployerKind::RuggerFunded, 0.05),
];

const TAGS: &[&str] = &[
    "ai",
    "llm",
    "search",
    "weather",
    "finance",
    "prices",
    "defi",
    "nft",
    "images",
    "audio",
    "translation",
    "news",
    "sports",
    "maps",
    "scraping",
    "data",
    "analytics",
    "security",
    "social",
    "trading",
    "identity",
    "storage",
    "compute",
    "code",
    "legal",
    "health",
    "travel",
    "shopping",
    "games",
    "research",
];
const NOUNS: &[&str] = &[
    "oracle", "scout", "relay", "forge", "atlas", "pilot", "sage", "nexus", "pulse", "vault", "lens", "echo", "signal",
    "quant", "spark", "ledger", "beacon", "cortex", "harbor", "matrix",
];
/// One payer in this many of the pool is a busy payer (an agent that pays many sellers).
const BUSY_PAYER_DIVISOR: u32 = 12;
/// Share of a seller's customers drawn from the busy payers.
const BUSY_PAYER_SHARE: f64 = 0.35;
const GOOD_TLDS: &[&str] = &["com", "ai", "io", "dev", "xyz", "app", "net", "org"];
/// TLDs the generator uses for scam listings; the pipeline's list is its own.
const BAD_TLDS: &[&str] = &["top", "zip", "click", "gq", "tk", "loan", "rest", "mov"];
const ADMIN_PATHS: &[&str] = &["admin", "wp-admin", ".env", "phpmyadmin", "debug"];
const ECOSYSTEMS: &[(&str, f64)] = &[("cdp-bazaar", 0.7), ("payai", 0.2), ("x402-list", 0.1)];
/// Proofs a real operator may hold.
const PROOF_TYPES: &[&str] =
    &["virtuals-agent", "virtuals-agent-token", "farcaster-fid", "cb1-verified", "basename", "ens"];
/// Proofs an attacker can buy for a wallet.
const CHEAP_PROOFS: &[&str] = &["basename", "ens", "farcaster-fid"];
/// Proofs of pool payers (people and agents), weighted.
const PAYER_PROOFS: &[(&str, f64)] =
    &[("cb1-verified", 0.4), ("basename", 0.25), ("ens", 0.15), ("farcaster-fid", 0.2)];

pub(crate) fn pick_weighted<T: Copy>(rng: &mut impl Rng, mix: &[(T, f64)]) -> T {
    let total: f64 = mix.iter().map(|(_, w)| w).sum();
    let mut x = rng.random_range(0.0..total);
    for (item, w) in mix {
        if x < *w {
            return *item;
        }
        x -= w;
    }
    mix[mix.len() - 1].0
}

/// Where a verification of a proof type comes from.
pub(crate) fn proof_source(proof_type: &str) -> &'static str {
    match proof_type {
        "cb1-verified" => "coinbase-verifications",
        "basename" => "basenames-resolver",
        "ens" => "ens-resolver",
        "farcaster-fid" => "farcaster-id-registry",
        _ => "virtuals-registry",
    }
}

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

/// The planned world.
#[derive(Debug)]
pub(crate) struct World {
    pub config: WorldConfig,
    pub params: ScaleParams,
    pub sellers: Vec<Seller>,
    pub hubs: Vec<String>,
    /// Denylisted (sanctioned) wallets.
    pub known_bad: Vec<String>,
    /// Pool payers, infrastructure labels and lists.
    pub common: Events,
    pub grief: Vec<Grief>,
    pub deployers: Vec<Deployer>,
}

/// What every planner needs to know about the world.
#[derive(Debug)]
pub(crate) struct Ctx<'a> {
    pub config: &'a WorldConfig,
    pub params: &'a ScaleParams,
    pub hubs: &'a [String],
    pub known_bad: &'a [String],
    /// Honest sellers live through the whole window: (address, price).
    pub catalog: &'a [(String, u64)],
}

impl Ctx<'_> {
    pub fn seed(&self) -> u64 {
        self.config.seed
    }
    /// Midnight of a day index (may be negative), seconds.
    pub fn day_secs(&self, day: i32) -> i64 {
        crate::day_start(self.config.start()) + i64::from(day) * DAY
    }
    pub fn start(&self) -> i64 {
        self.day_secs(0)
    }
    pub fn end(&self) -> i64 {
        self.day_secs(self.config.days as i32)
    }
    pub fn hub(&self, r: &mut impl Rng) -> String {
        // Zipf-like: low indices are the big exchanges.
        let h = ((self.hubs.len() as f64) * r.random::<f64>().powi(2)) as usize;
        self.hubs[h.min(self.hubs.len() - 1)].clone()
    }
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

/// Per-kind knob family name (the label kind).
fn family(kind: SellerKind) -> &'static str {
    kind.as_str()
}

impl World {
    pub fn plan(config: &WorldConfig) -> Self {
        let params = config.scale.params();
        let seed = config.seed;
        let hubs: Vec<String> = (0..params.hubs).map(|i| address(seed, "hub", u64::from(i))).collect();
        let known_bad: Vec<String> = (0..20).map(|i| address(seed, "known-bad", i)).collect();

        // Kinds by quota, shuffled; cost probes appended.
        let n = params.sellers as usize;
        let mut kinds = Vec::with_capacity(n);
        for (kind, share) in SELLER_MIX {
            kinds.extend(std::iter::repeat_n(*kind, (share * n as f64).round() as usize));
        }
        kinds.truncate(n);
        kinds.resize(n, SellerKind::Honest);
        kinds.shuffle(&mut rng::stream(seed, "kinds", &[]));
        let mut probes = Vec::new();
        for kind in PROBE_FAMILIES {
            for budget in PROBE_BUDGETS {
                for _ in 0..PROBES_PER_BUDGET {
                    probes.push((*kind, Some(*budget)));
                }
            }
        }
        let all: Vec<(SellerKind, Option<f64>)> = kinds.into_iter().map(|k| (k, None)).chain(probes).collect();

        let mut sellers: Vec<Seller> = all
            .par_iter()
            .enumerate()
            .map(|(i, (kind, budget))| plan_seller(config, i as u32, *kind, budget.is_some()))
            .collect();

        let mut agent_id = 0u64;
        for s in &mut sellers {
            if s.agent_id.is_some() {
                s.agent_id = Some(agent_id);
                agent_id += 1;
            }
        }
        let catalog: Vec<(String, u64)> = sellers
            .iter()
            .filter(|s| s.kind == SellerKind::Honest && s.first_seen_day <= 0 && s.ok_rate > 0.9)
            .map(|s| (s.address.clone(), s.price()))
            .collect();
        let ctx = Ctx { config, params: &params, hubs: &hubs, known_bad: &known_bad, catalog: &catalog };

        // Scripted actors first (their streams count towards the settlement target).
        sellers.par_iter_mut().zip(all.par_iter()).for_each(|(s, (_, budget))| plan_family(&ctx, s, *budget));
        let end = ctx.end();
        let scripted: f64 = sellers.iter().flat_map(|s| &s.events.streams).map(|st| st.expected(end) as f64).sum();
        // Scale pool demand so the world holds about the target number of settlements, counting
        // only the days each seller is active.
        let volume = |s: &Seller| s.rate * f64::from((0..config.days).filter(|d| s.active_on(*d)).count() as u32);
        let planned: f64 = sellers.iter().filter(|s| s.kind.has_pool_demand()).map(volume).sum();
        let unscaled: f64 = sellers.iter().filter(|s| !s.kind.has_pool_demand()).map(volume).sum();
        let target = (params.settlements - scripted - unscaled).max(params.settlements * 0.5);
        let factor = target / planned.max(1.0);
        for s in sellers.iter_mut().filter(|s| s.kind.has_pool_demand()) {
            s.rate *= factor;
        }
        sellers.par_iter_mut().for_each(|s| {
            plan_customers(config, &params, s);
            plan_reviews(&ctx, s);
        });

        // The most popular honest sellers are on the curated allowlist.
        let mut honest: Vec<_> =
            sellers.iter().filter(|s| s.kind == SellerKind::Honest).map(|s| (s.rate, s.index)).collect();
        honest.sort_by(|a, b| b.0.total_cmp(&a.0));
        for (_, index) in honest.iter().take((params.sellers / 200).max(3) as usize) {
            sellers[*index as usize].allowlisted = true;
        }

        let common = plan_common(&ctx, &sellers);
        let deployers = plan_deployers(config, &params);
        let grief = if config.griefing { grief::plan(&ctx, &sellers) } else { Vec::new() };
        Self { config: *config, params, sellers, hubs, known_bad, common, grief, deployers }
    }
}

fn plan_seller(config: &WorldConfig, index: u32, kind: SellerKind, probe: bool) -> Seller {
    let seed = config.seed;
    let mut r = rng::stream(seed, "seller", &[u64::from(index)]);
    let address = address(seed, "seller", u64::from(index));
    let honest = kind.class() == crate::SellerClass::Honest;
    let honest_like = honest || matches!(kind, SellerKind::Denylisted | SellerKind::DenylistFunded);
    let quality = match kind {
        SellerKind::PayThenFail => r.random_range(0.05..0.3),
        _ if honest_like => r.random_range(0.35..1.0),
        SellerKind::OfferMismatch | SellerKind::Dead => r.random_range(0.2..0.8),
        _ => r.random_range(0.1..0.6),
    };
    let popularity = pareto(&mut r, 1.0, 1.2, 400.0);
    let rate = match kind {
        SellerKind::DenylistFunded => pareto(&mut r, 0.5, 1.5, 6.0) * (0.4 + quality),
        SellerKind::TreasuryFleet => popularity * (0.4 + quality) * 0.5,
        k if k.has_pool_demand() => popularity * (0.4 + quality),
        SellerKind::Ghost => r.random_range(0.05..1.2),
        SellerKind::SelfDealing => r.random_range(1.0..4.0),
        SellerKind::SybilFeedback | SellerKind::ScamListing => r.random_range(0.05..0.5),
        _ => 0.0,
    };
    let days = config.days as i32;
    let first_seen_day = match kind {
        SellerKind::Young => r.random_range((days - 20).max(1)..(days - 6).max(2)),
        SellerKind::NewHonest => days - r.random_range(1..=6),
        SellerKind::Ghost | SellerKind::ScamListing => r.random_range(-40..days - 3),
        SellerKind::DenylistFunded => r.random_range(days / 3..(days - 4).max(days / 3 + 1)),
        _ if probe => r.random_range(-10..days / 4),
        _ => r.random_range(-90..days / 3),
    };
    let ok_rate = match kind {
        SellerKind::Flapping => r.random_range(0.3..0.75),
        SellerKind::ScamListing => r.random_range(0.0..0.6),
        SellerKind::Ghost => {
            if r.random_bool(0.3) {
                0.0
            } else {
                r.random_range(0.85..1.0)
            }
        }
        SellerKind::PayThenFail => r.random_range(0.95..1.0),
        _ => (0.9 + 0.1 * quality).min(1.0) - r.random_range(0.0..0.05),
    };
    let latency_ms = 80.0 + 2500.0 * (1.0 - quality).powi(2) * r.random_range(0.5..1.5);

    let noun = NOUNS.choose(&mut r).expect("nouns");
    let name = format!("{noun}{}", index);
    let (tld, path) = match kind {
        SellerKind::ScamListing if r.random_bool(0.5) => {
            (*GOOD_TLDS.choose(&mut r).expect("tlds"), format!("{}/api", ADMIN_PATHS.choose(&mut r).expect("paths")))
        }
        SellerKind::ScamListing => (*BAD_TLDS.choose(&mut r).expect("tlds"), "api/v1/run".to_owned()),
        _ if r.random_bool(0.01) => (*BAD_TLDS.choose(&mut r).expect("tlds"), "api/v1".to_owned()),
        _ => (*GOOD_TLDS.choose(&mut r).expect("tlds"), format!("api/{}", TAGS.choose(&mut r).expect("tags"))),
    };
    let param = if r.random_bool(0.1) { "/:id" } else { "" };
    // Real x402 prices: a median of 0.01 USDC and a 90th percentile of 0.1 (SCORING.md § 8).
    let price = log_normal(&mut r, 10_000.0, 1.8, 1_000.0, 2_000_000.0).round() as u64;
    let mut resources =
        vec![Resource { url: format!("https://{name}.{tld}/{path}{param}"), pay_to: address.clone(), price }];
    if honest_like && r.random_bool(0.06) {
        let spelled = rng::mixed_case(&address, u64::from(index));
        resources.push(Resource { url: format!("https://{name}.{tld}/api/v2/batch"), pay_to: spelled, price });
    }
    let n_tags = r.random_range(0..=6usize);
    let mut tags: Vec<String> = TAGS.choose_multiple(&mut r, n_tags).map(|t| (*t).to_owned()).collect();
    tags.sort();
    let description = format!("{} {} API by {name}", tags.first().map_or("general", |t| t.as_str()), noun);
    let ecosystem = pick_weighted(&mut r, ECOSYSTEMS);
    let network = if r.random_bool(0.1) { "base" } else { BASE };
    let registered = match kind {
        SellerKind::SybilFeedback | SellerKind::PaidOnceReviewers | SellerKind::SmartAccountBuyers => true,
        SellerKind::PayThenFail => r.random_bool(0.6),
        _ if honest_like => r.random_bool(0.45),
        _ => r.random_bool(0.1),
    };
    let proofs = if honest_like && r.random_bool(0.35) {
        {
            let n = r.random_range(1..=3);
            PROOF_TYPES.choose_multiple(&mut r, n).copied().collect()
        }
    } else if !honest_like && r.random_bool(0.05) {
        vec![*CHEAP_PROOFS.choose(&mut r).expect("proofs")]
    } else {
        Vec::new()
    };
    let offer_version = if r.random_bool(0.7) { 2 } else { 1 };
    // Some real services are run by businesses whose web domain has a public rank (their own
    // stream, so the rest of the world does not move with it). Attackers' fresh domains have none.
    let mut dr = rng::stream(config.seed, "domain-rank", &[u64::from(index)]);
    let domain_rank = (kind.class() == crate::SellerClass::Honest && dr.random_bool(0.2))
        .then(|| log_uniform(&mut dr, 300.0, 3_000_000.0).round() as u32);
    Seller {
        index,
        address,
        kind,
        quality,
        rate,
        customers: Vec::new(),
        extra_payers: Vec::new(),
        extra_share: 0.0,
        self_pay_share: 0.0,
        resources,
        tags,
        description,
        ecosystem,
        network,
        first_seen_day,
        death_day: None,
        ok_rate,
        latency_ms,
        agent_id: registered.then_some(0),
        proofs,
        allowlisted: false,
        offer_version,
        mismatch: None,
        fail_share: 0.0,
        domain_rank,
        knobs: BTreeMap::new(),
        cost: None,
        cost_probe: probe,
        events: Events::default(),
    }
}

/// Attack families and honest patterns: knobs, wallets, funding, scheduled payments, cost.
fn plan_family(ctx: &Ctx, s: &mut Seller, budget: Option<f64>) {
    let seed = ctx.seed();
    let mut r = rng::stream(seed, "family", &[u64::from(s.index)]);
    let mut k = Knobs::new(ctx.config.knobs, family(s.kind));
    let attacker = s.kind.is_attack();
    let mut a = Actor::new(ctx, "seller-actor", u64::from(s.index), attacker);
    let days = ctx.config.days as i32;
    let active_from = ctx.day_secs(s.first_seen_day.max(0));
    let (start, end) = (ctx.start(), ctx.end());
    let listed_at = ctx.day_secs(s.first_seen_day.max(-90));
    let seller = s.address.clone();
    let price = s.price();

    // The seller's own wallet: first funded by its operator (an exchange, a personal wallet), or
    // as the family dictates below.
    let operator = a.wallet("operator", 0);
    let own_funded_at = listed_at - r.random_range(DAY..30 * DAY);
    let mut own_funding = true;

    match s.kind {
        SellerKind::WashRing | SellerKind::HubDusting | SellerKind::SelfFundingIntermediaries => {
            let payers_n = k.draw(&mut r, "payers") as u32;
            let hops = if s.kind == SellerKind::HubDusting { 0 } else { k.draw(&mut r, "hops") as u32 };
            let jitter = k.draw(&mut r, "jitter");
            let per_day = k.draw(&mut r, "pays_per_day");
            let mut spend = k.draw(&mut r, "honest_spend_usdc");
            let payers_n = match budget {
                Some(b) => ((3.0 * b.sqrt()).round() as u32).clamp(3, 120),
                None => payers_n,
            };
            k.set("payers", f64::from(payers_n));
            // Roots of the funding tree.
            let roots: Vec<String> = match s.kind {
                SellerKind::WashRing => {
                    let f = k.draw(&mut r, "funders") as u32;
                    a.withdraw(&operator, own_funded_at - 20 * DAY, 2_000_000_000, &mut r);
                    // The seller's proceeds go back to the operator, who funded it.
                    a.fund(&seller, &operator, own_funded_at, 10_000_000);
                    own_funding = false;
                    let decoy = k.draw(&mut r, "decoy") > 0.5;
                    if decoy {
                        let url = format!("{}/lite", s.resources[0].url.trim_end_matches("/:id"));
                        s.resources.push(Resource {
                            url,
                            pay_to: seller.clone(),
                            price: price.saturating_sub(1).max(1),
                        });
                    }
                    (0..f)
                        .map(|i| {
                            let w = a.wallet("ring-funder", u64::from(i));
                            a.fund(&w, &operator, start - r.random_range(12 * DAY..20 * DAY), 300_000_000);
                            w
                        })
                        .collect()
                }
                SellerKind::HubDusting => {
                    let fake = a.wallet("fake-hub", 0);
                    a.withdraw(&fake, start - r.random_range(30 * DAY..45 * DAY), 1_000_000_000, &mut r);
                    let mut fan_out = k.draw(&mut r, "fan_out") as u32;
                    let mut dust = k.draw(&mut r, "dust_micro");
                    if let Some(b) = budget {
                        // Bigger budgets: a wider, heavier dusting.
                        fan_out = ((150.0 + b * 2.0) as u32).min(1_500);
                        dust = (b * 1e6 * 0.2 / f64::from(fan_out)).clamp(1.0, 1_000_000.0);
                        k.set("fan_out", f64::from(fan_out));
                        k.set("dust_micro", dust.round());
                    }
                    for j in 0..fan_out {
                        let target = a.wallet("dust-target", u64::from(j));
                        let amount = r.random_range(1..=(dust.round() as u64).max(1));
                        a.fund(&target, &fake, start - r.random_range(3 * DAY..28 * DAY), amount);
                        a.tally.external_usdc += amount as f64 / 1e6;
                    }
                    vec![fake]
                }
                _ => {
                    // The seller's own wallet is the root.
                    a.withdraw(&seller, own_funded_at, 1_000_000_000, &mut r);
                    own_funding = false;
                    vec![seller.clone()]
                }
            };
            let payers: Vec<String> = (0..payers_n).map(|j| a.wallet("payer", u64::from(j))).collect();
            // A cost probe's bigger ring spreads a normal ring's volume over more payers.
            let per_day = if budget.is_some() { per_day * (8.0 / f64::from(payers_n)).min(1.0) } else { per_day };
            let period = (DAY as f64 / per_day) as i64;
            let mut funded = Vec::new();
            for (j, payer) in payers.iter().enumerate() {
                let first = active_from.max(start) + r.random_range(0..period.max(1));
                let root = roots[j % roots.len()].clone();
                funded.push(a.fund_chain(&mut r, &root, payer, j as u64, hops, first));
                a.stream(
                    Stream {
                        payer: payer.clone(),
                        pay_to: seller.clone(),
                        first,
                        period: (period as f64 * r.random_range(0.9..1.1)) as i64,
                        count: u32::MAX,
                        jitter,
                        value: price,
                        rail: Rail::X402,
                        tag: 0,
                    },
                    true,
                );
            }
            if let Some(b) = budget {
                spend = ((b - a.tally.usdc()) / f64::from(payers_n)).max(0.0);
                k.set("honest_spend_usdc", spend);
            }
            for (payer, at) in payers.iter().zip(&funded) {
                a.buy_honest(&mut r, payer, spend, (*at + HOUR).max(start), end);
            }
        }
        SellerKind::SockPuppets => {
            let mut n = k.draw(&mut r, "puppets") as u32;
            let ratio = k.draw(&mut r, "price_ratio");
            let lead = k.draw(&mut r, "lead_days") as i64;
            let mut spend = k.draw(&mut r, "honest_spend_usdc");
            let mut proof_share = k.draw(&mut r, "proof_share");
            let per_day = k.draw(&mut r, "pays_per_day");
            let mut probe_proofs: &[&str] = &[];
            if let Some(b) = budget {
                n = ((3.0 * b.sqrt()).round() as u32).clamp(2, 120);
                k.set("puppets", f64::from(n));
            }
            let mut puppets = Vec::new();
            let per_day = if budget.is_some() { per_day * (8.0 / f64::from(n)).min(1.0) } else { per_day };
            for j in 0..n {
                let p = a.wallet("puppet", u64::from(j));
                let first = active_from.max(start) + r.random_range(0..(end - active_from.max(start)).max(DAY) / 2);
                a.withdraw(
                    &p,
                    first - lead * DAY - r.random_range(HOUR..DAY),
                    r.random_range(5_000_000..60_000_000),
                    &mut r,
                );
                let value = ((price as f64) * r.random_range(ratio..=1.0)).round().max(1.0) as u64;
                a.stream(
                    Stream {
                        payer: p.clone(),
                        pay_to: seller.clone(),
                        first,
                        period: (DAY as f64 / per_day) as i64,
                        count: u32::MAX,
                        jitter: 0.95,
                        value,
                        rail: Rail::X402,
                        tag: 0,
                    },
                    true,
                );
                puppets.push((p, first));
            }
            if let Some(b) = budget {
                // Per puppet: identity proofs first (basename 3, then ens 5), the rest spent
                // at honest sellers.
                let per = ((b - a.tally.usdc()) / f64::from(n)).max(0.0);
                probe_proofs = if per >= 10.0 {
                    &["basename", "ens"]
                } else if per >= 4.0 {
                    &["basename"]
                } else {
                    &[]
                };
                proof_share = if probe_proofs.is_empty() { 0.0 } else { 1.0 };
                let proofs_cost: f64 = probe_proofs.iter().filter_map(|p| cost::proof_cost(p)).sum();
                spend = (per - proofs_cost).max(0.0);
                k.set("proof_share", proof_share);
                k.set("honest_spend_usdc", spend);
            }
            for (p, first) in &puppets {
                let funded = *first - lead * DAY;
                a.buy_honest(&mut r, p, spend, funded.max(start), (*first).max(start + DAY));
                if r.random_bool(proof_share.clamp(0.0, 1.0)) {
                    let at = (funded + r.random_range(HOUR..DAY)).min(end - 1);
                    if budget.is_some() {
                        for (i, t) in probe_proofs.iter().enumerate() {
                            a.proof(p, t, at + i as i64 * HOUR);
                        }
                    } else {
                        let t = *CHEAP_PROOFS.choose(&mut r).expect("proofs");
                        a.proof(p, t, at);
                    }
                }
            }
        }
        SellerKind::PaidOnceReviewers => {
            let mut n = k.draw(&mut r, "reviewers") as u32;
            let ratio = k.draw(&mut r, "pay_ratio");
            let rating_min = k.draw(&mut r, "rating_min");
            let mut spend = k.draw(&mut r, "honest_spend_usdc");
            let mut seller_proofs = true;
            if let Some(b) = budget {
                n = ((3.0 * b.sqrt()).round() as u32).clamp(3, 150);
                seller_proofs = b >= 10.0;
                k.set("reviewers", f64::from(n));
            }
            k.set("seller_proofs", f64::from(u8::from(seller_proofs)));
            if seller_proofs {
                a.proof(&seller, "basename", listed_at + r.random_range(0..DAY));
                let second = if r.random_bool(0.5) { "ens" } else { "farcaster-fid" };
                a.proof(&seller, second, listed_at + r.random_range(DAY..3 * DAY));
            }
            let farm = a.wallet("review-farm", 0);
            a.withdraw(&farm, start - r.random_range(5 * DAY..20 * DAY), 100_000_000, &mut r);
            let value = ((price as f64) * ratio).round().max(1.0) as u64;
            let agent = s.agent_id.expect("reviewed sellers are registered");
            let mut reviewers = Vec::new();
            for j in 0..n {
                let w = a.wallet("reviewer", u64::from(j));
                let at = active_from.max(start) + r.random_range(0..(end - active_from.max(start) - DAY).max(HOUR));
                let funded = at - r.random_range(HOUR..4 * DAY);
                a.fund(&w, &farm, funded, 2_000_000);
                a.pay_once(&w, &seller, at, value, Rail::X402, true);
                let rating = r.random_range(rating_min..=100.0);
                a.feedback(agent, &w, rating, (at + r.random_range(HOUR..DAY)).min(end - 1), &mut r);
                reviewers.push((w, funded));
            }
            if let Some(b) = budget {
                spend = ((b - a.tally.usdc()) / f64::from(n)).max(0.0);
                k.set("honest_spend_usdc", spend);
            }
            for (w, funded) in &reviewers {
                a.buy_honest(&mut r, w, spend, (*funded + HOUR).max(start), end);
            }
        }
        SellerKind::PayThenFail => {
            s.fail_share = k.draw(&mut r, "fail_share");
        }
        SellerKind::OfferMismatch => {
            let mode = k.draw(&mut r, "mode") as u32;
            let factor = k.draw(&mut r, "price_factor");
            let share = k.draw(&mut r, "mismatch_share");
            let from = r.random_range(0..(days / 2).max(1)) as u32;
            k.set("mismatch_from_day", f64::from(from));
            let m = match mode {
                0 => Mismatch::PayTo,
                1 => Mismatch::AssetNetwork,
                _ => Mismatch::Price(factor),
            };
            s.mismatch = Some((m, from, share));
        }
        SellerKind::UnattributedDemand => {
            let n = k.draw(&mut r, "puppets") as u32;
            let plain = k.draw(&mut r, "plain_share");
            let per_day = k.draw(&mut r, "pays_per_day");
            let funder = a.wallet("funder", 0);
            a.withdraw(&funder, start - r.random_range(5 * DAY..30 * DAY), 200_000_000, &mut r);
            let per_day = if budget.is_some() { per_day * (8.0 / f64::from(n)).min(1.0) } else { per_day };
            for j in 0..n {
                let p = a.wallet("puppet", u64::from(j));
                let first = active_from.max(start) + r.random_range(0..DAY);
                a.fund(&p, &funder, first - r.random_range(HOUR..5 * DAY), 20_000_000);
                let rail = if r.random_bool(plain) {
                    Rail::Plain
                } else if r.random_bool(0.5) {
                    Rail::Testnet
                } else {
                    Rail::OtherAsset
                };
                a.stream(
                    Stream {
                        payer: p,
                        pay_to: seller.clone(),
                        first,
                        period: (DAY as f64 / per_day) as i64,
                        count: u32::MAX,
                        jitter: 0.9,
                        value: price,
                        rail,
                        tag: 0,
                    },
                    true,
                );
            }
        }
        SellerKind::DenylistFunded => {
            let hops = k.draw(&mut r, "hops") as u32;
            let bad = ctx.known_bad[r.random_range(0..ctx.known_bad.len())].clone();
            a.fund_chain(&mut r, &bad, &seller, 0, hops, own_funded_at + 3 * HOUR);
            // fund_chain counts the edges as the attacker's transactions: they are.
            own_funding = false;
        }
        SellerKind::SelfDealing => {
            let n = k.draw(&mut r, "payers") as u32;
            s.self_pay_share = k.draw(&mut r, "self_pay_share");
            a.withdraw(&seller, own_funded_at, 500_000_000, &mut r);
            own_funding = false;
            for j in 0..n {
                let p = a.wallet("payer", u64::from(j));
                a.fund(&p, &seller, start - r.random_range(DAY..10 * DAY), 20_000_000);
                s.extra_payers.push(p);
            }
            s.extra_share = 1.0;
            // Own settlements: the whole demand.
            let active = (0..ctx.config.days).filter(|d| s.active_on(*d)).count() as f64;
            a.tally.own_settlements += (s.rate * active).round() as u64;
        }
        SellerKind::SybilFeedback => {
            let n = k.draw(&mut r, "reviewers") as u32;
            let rating_min = k.draw(&mut r, "rating_min");
            let farm = a.wallet("sybil-farm", 0);
            a.withdraw(&farm, start - r.random_range(10 * DAY..20 * DAY), 50_000_000, &mut r);
            let agent = s.agent_id.expect("sybil sellers are registered");
            for j in 0..n {
                let c = a.wallet("sybil-client", u64::from(j));
                a.fund(&c, &farm, start - r.random_range(DAY..10 * DAY), 1_000_000);
                let at = active_from.max(start) + r.random_range(0..(end - active_from.max(start)).max(HOUR));
                let rating = r.random_range(rating_min..=100.0);
                a.feedback(agent, &c, rating, at, &mut r);
            }
        }
        SellerKind::Dead => {
            let dead_for = k.draw(&mut r, "dead_for_days") as i32;
            s.death_day = Some((days - dead_for).clamp(1, days - 1) as u32);
        }
        SellerKind::TreasuryFleet => {
            let n = k.draw(&mut r, "fleet") as u32;
            let hours = k.draw(&mut r, "period_hours") as i64;
            let ordinary = k.draw(&mut r, "ordinary_customers") > 0.5;
            if !ordinary {
                s.rate = 0.0;
            }
            let treasury = a.wallet("treasury", 0);
            a.withdraw(&treasury, start - r.random_range(60 * DAY..200 * DAY), 50_000_000_000, &mut r);
            let period = hours * HOUR;
            for j in 0..n {
                let w = a.wallet("fleet-agent", u64::from(j));
                let first = active_from.max(start) + r.random_range(0..period);
                a.fund(&w, &treasury, first - r.random_range(DAY..20 * DAY), 100_000_000);
                a.stream(
                    Stream {
                        payer: w,
                        pay_to: seller.clone(),
                        first,
                        period,
                        count: u32::MAX,
                        jitter: 0.0005,
                        value: price,
                        rail: Rail::X402,
                        tag: 0,
                    },
                    false,
                );
            }
        }
        SellerKind::SmartAccountBuyers => {
            let n = k.draw(&mut r, "accounts") as u32;
            s.extra_share = k.draw(&mut r, "smart_share");
            for j in 0..n {
                let owner = a.wallet("sa-owner", u64::from(j));
                let account = a.wallet("smart-account", u64::from(j));
                let owner_at = start - r.random_range(30 * DAY..300 * DAY);
                a.withdraw(&owner, owner_at, r.random_range(20_000_000..2_000_000_000), &mut r);
                a.fund(
                    &account,
                    &owner,
                    owner_at + r.random_range(DAY..25 * DAY),
                    r.random_range(5_000_000..200_000_000),
                );
                s.extra_payers.push(account);
            }
        }
        SellerKind::MultiPrice => {
            let m = k.draw(&mut r, "resources") as usize;
            let cheap = k.draw(&mut r, "cheap") > 0.5;
            let base = s.resources[0].url.trim_end_matches("/:id").to_owned();
            for j in 1..m {
                let p = if cheap && j == 1 {
                    r.random_range(1..=100)
                } else {
                    ((price as f64) * log_uniform(&mut r, 0.2, 5.0)).round().max(1.0) as u64
                };
                s.resources.push(Resource { url: format!("{base}/tier{j}"), pay_to: seller.clone(), price: p });
            }
        }
        SellerKind::NewHonest => {
            k.set("listed_days_ago", f64::from(days - s.first_seen_day));
        }
        SellerKind::CronBuyers => {
            let n = k.draw(&mut r, "bots") as u32;
            let minutes = k.draw(&mut r, "period_minutes") as i64;
            for j in 0..n {
                let w = a.wallet("cron-bot", u64::from(j));
                let first = active_from.max(start) + r.random_range(0..minutes * 60);
                a.withdraw(&w, start - r.random_range(5 * DAY..90 * DAY), 50_000_000, &mut r);
                a.stream(
                    Stream {
                        payer: w,
                        pay_to: seller.clone(),
                        first,
                        period: minutes * 60,
                        count: u32::MAX,
                        jitter: 0.0005,
                        value: price,
                        rail: Rail::X402,
                        tag: 0,
                    },
                    false,
                );
            }
        }
        SellerKind::Honest
        | SellerKind::Flapping
        | SellerKind::Young
        | SellerKind::Ghost
        | SellerKind::ScamListing
        | SellerKind::Denylisted => {}
    }

    if own_funding {
        if attacker {
            // The attacker's own wallet: one withdrawal (its operator's exchange account).
            a.withdraw(&seller, own_funded_at, 200_000_000, &mut r);
        } else if r.random_bool(0.8) {
            let hub = ctx.hub(&mut r);
            a.fund(&seller, &hub, own_funded_at, r.random_range(10_000_000..5_000_000_000));
        } else {
            let personal = a.wallet("operator-personal", 0);
            a.withdraw(&personal, own_funded_at - r.random_range(DAY..200 * DAY), 1_000_000_000, &mut r);
            a.fund(&seller, &personal, own_funded_at, r.random_range(10_000_000..500_000_000));
        }
    }
    // Registration and the operator's proofs.
    if let Some(agent_id) = s.agent_id {
        let at = listed_at + r.random_range(0..DAY);
        if attacker {
            a.tally.txs += 1;
        }
        a.ev.registrations.push((
            at,
            RegistrationRow {
                agent_id,
                owner: seller.clone(),
                agent_wallet: Some(seller.clone()),
                registration_uri: format!("ipfs://bafy{}", &hex_bytes(key(seed, "uri", &[agent_id]), 16)[2..]),
                registered_at: Timestamp::from_secs(at),
            },
        ));
    }
    for p in std::mem::take(&mut s.proofs) {
        let at = (listed_at + r.random_range(0..5 * DAY)).min(end - 1);
        a.proof(&seller, p, at);
        s.proofs.push(p);
    }
    if s.kind == SellerKind::Denylisted {
        let at = start - DAY;
        a.ev.lists.push((
            at,
            ListEntryRow {
                address: seller.clone(),
                list: "deny".to_owned(),
                source: "scamsniffer".to_owned(),
                category: "phishing:scammer".to_owned(),
                added_at: Timestamp::from_secs(at),
            },
        ));
    }
    s.knobs = k.values;
    s.cost = attacker.then(|| a.tally.usdc());
    s.events = a.ev;
}

/// Chooses the seller's customers: each pays `1 + 4·quality` times on average, so better
/// services keep more repeat customers.
fn plan_customers(config: &WorldConfig, params: &ScaleParams, s: &mut Seller) {
    let mut r = rng::stream(config.seed, "customers", &[u64::from(s.index)]);
    let active_days = (config.days as i32 - s.first_seen_day.max(0)).max(1) as f64;
    let expected = s.rate * active_days * (1.0 - s.extra_share);
    let count = match s.kind {
        SellerKind::Ghost => 1,
        SellerKind::SybilFeedback | SellerKind::ScamListing => r.random_range(1..=3),
        SellerKind::SelfDealing => 0,
        // Most real customers pay a seller on one day (a quarter of real (payer, seller) pairs
        // pay on two or more days): few payments per customer, more for a better service.
        k if k.has_pool_demand() && s.rate > 0.0 => {
            ((expected / (1.0 + 0.5 * s.quality)).round() as u32).clamp(5, 5_000)
        }
        _ => 0,
    };
    // Most real payers pay one seller; a few busy agents pay many (27 % pay two or more sellers, 9 %
    // five or more: SCORING.md § 8). A share of every seller's customers comes from a small set of
    // busy payers at the front of the pool.
    let busy = (params.payer_pool / BUSY_PAYER_DIVISOR).max(1);
    s.customers = (0..count)
        .map(|_| {
            if r.random_bool(BUSY_PAYER_SHARE) { r.random_range(0..busy) } else { r.random_range(0..params.payer_pool) }
        })
        .collect();
}

/// ERC-8004 feedback and buyer receipts from a seller's real customers.
fn plan_reviews(ctx: &Ctx, s: &mut Seller) {
    let seed = ctx.seed();
    let mut r = rng::stream(seed, "reviews", &[u64::from(s.index)]);
    let mut a = Actor::new(ctx, "seller-reviews", u64::from(s.index), false);
    let days = ctx.config.days as i32;
    let first = s.first_seen_day.max(0);
    let last_day = s.death_day.map_or(days, |d| d as i32).max(first + 1);
    let when = |r: &mut ChaCha8Rng| ctx.day_secs(r.random_range(first..last_day)) + r.random_range(0..DAY);
    let bad_service = s.kind == SellerKind::PayThenFail;
    // The reviewer of a payment: smart accounts review from their owner EOA.
    let client = |r: &mut ChaCha8Rng| -> String {
        if !s.extra_payers.is_empty() && (s.customers.is_empty() || r.random_bool(s.extra_share)) {
            let j = r.random_range(0..s.extra_payers.len());
            if s.kind == SellerKind::SmartAccountBuyers {
                Actor::new(ctx, "seller-actor", u64::from(s.index), false).wallet("sa-owner", j as u64)
            } else {
                s.extra_payers[j].clone()
            }
        } else {
            address(seed, "payer", u64::from(s.customers[r.random_range(0..s.customers.len())]))
        }
    };
    let has_customers = !s.customers.is_empty() || !s.extra_payers.is_empty();
    if let Some(agent_id) = s.agent_id
        && has_customers
        && s.kind != SellerKind::SelfDealing
    {
        let n = (rng::poisson(&mut r, ctx.params.feedback_per_registered) as usize)
            .min((s.customers.len() + s.extra_payers.len()) * 2);
        for _ in 0..n {
            let c = client(&mut r);
            let rating =
                if bad_service { r.random_range(0.0..30.0) } else { 100.0 * s.quality + r.random_range(-15.0..15.0) };
            let at = when(&mut r);
            a.feedback(agent_id, &c, rating, at, &mut r);
        }
    }
    let honest = s.kind.class() == crate::SellerClass::Honest;
    if has_customers && (bad_service || (honest && r.random_bool(0.2))) {
        let n = if bad_service { r.random_range(10..=40) } else { r.random_range(3..=15) };
        for _ in 0..n {
            let at = when(&mut r);
            let c = client(&mut r);
            let (success, rating) = if bad_service {
                let failed = r.random_bool(s.fail_share.clamp(0.0, 1.0));
                (!failed, if failed { r.random_range(0..=20) } else { r.random_range(30..=70) })
            } else {
                let ok = r.random_bool(s.quality.clamp(0.05, 0.99));
                (ok, (100.0 * s.quality + r.random_range(-10.0..10.0)).clamp(0.0, 100.0) as u32)
            };
            a.receipt(&c, &s.address, None, success, Some(s.latency_ms as u32), Some(rating), at);
        }
    }
    s.events.feedback.append(&mut a.ev.feedback);
    s.events.receipts.append(&mut a.ev.receipts);
}

/// Pool payers' first funding and proofs, and the infrastructure's labels and lists.
fn plan_common(ctx: &Ctx, sellers: &[Seller]) -> Events {
    let seed = ctx.seed();
    let start = ctx.start();
    let mut used: Vec<u32> = sellers.iter().flat_map(|s| s.customers.iter().copied()).collect();
    used.sort_unstable();
    used.dedup();
    let per_payer: Vec<Events> = used
        .par_iter()
        .map(|&p| {
            let mut r = rng::stream(seed, "funding", &[u64::from(p)]);
            let mut a = Actor::new(ctx, "pool", u64::from(p), false);
            let payer = address(seed, "payer", u64::from(p));
            let at = start - r.random_range(7 * DAY..180 * DAY);
            let amount = r.random_range(5_000_000..500_000_000);
            let x: f64 = r.random();
            if x < 0.75 {
                a.withdraw(&payer, at, amount, &mut r);
            } else if x < 0.8 {
                let bridge = address(seed, "bridge", r.random_range(0..BRIDGE_NAMES.len() as u64));
                a.fund(&payer, &bridge, at, amount);
            } else {
                let personal = address(seed, "personal-funder", u64::from(p));
                a.withdraw(&personal, at - r.random_range(DAY..300 * DAY), amount * 3, &mut r);
                a.fund(&payer, &personal, at, amount);
            }
            if r.random_bool(0.1) {
                let t = pick_weighted(&mut r, PAYER_PROOFS);
                a.proof(&payer, t, at + r.random_range(DAY..5 * DAY));
            }
            a.ev
        })
        .collect();
    let mut common = Events::default();
    for mut e in per_payer {
        common.funding.append(&mut e.funding);
        common.proofs.append(&mut e.proofs);
    }
    let labelled = start - 120 * DAY;
    let label = |address: &str, entity: &str, name: &str, source: &str, at: i64| {
        (
            at,
            EntityLabelRow {
                address: address.to_owned(),
                entity: entity.to_owned(),
                name: name.to_owned(),
                source: source.to_owned(),
                added_at: Timestamp::from_secs(at),
            },
        )
    };
    for (i, hub) in ctx.hubs.iter().enumerate() {
        if i + UNLABELLED_HUBS >= ctx.hubs.len() {
            continue;
        }
        let name = HUB_NAMES[i % HUB_NAMES.len()];
        let name = if i < HUB_NAMES.len() { name.to_owned() } else { format!("{name}-{}", i / HUB_NAMES.len() + 1) };
        common.labels.push(label(hub, "exchange", &name, "etherscan-labels", labelled + i as i64 * DAY));
    }
    for (i, name) in BRIDGE_NAMES.iter().enumerate().take(2) {
        common.labels.push(label(&address(seed, "bridge", i as u64), "bridge", name, "etherscan-labels", labelled));
    }
    for (signer, name) in FACILITATORS {
        common.labels.push(label(signer, "facilitator", name, "x402-facilitators", labelled));
    }
    let listed_at = start - DAY;
    let entry = |address: &str, list: &str, source: &str, category: String| {
        (
            listed_at,
            ListEntryRow {
                address: address.to_owned(),
                list: list.to_owned(),
                source: source.to_owned(),
                category,
                added_at: Timestamp::from_secs(listed_at),
            },
        )
    };
    for s in sellers.iter().filter(|s| s.allowlisted) {
        common.lists.push(entry(
            &s.address,
            "allow",
            "agentrep-curated",
            format!("curated:{}", s.description.split(' ').nth(1).unwrap_or("agent")),
        ));
    }
    for bad in ctx.known_bad {
        common.lists.push(entry(bad, "deny", "ofac", "sanctions:listed".to_owned()));
    }
    common
}

fn plan_deployers(config: &WorldConfig, params: &ScaleParams) -> Vec<Deployer> {
    let seed = config.seed;
    let start = crate::day_start(config.start());
    let mut deployers: Vec<Deployer> = (0..params.deployers)
        .into_par_iter()
        .map(|index| {
            let mut r = rng::stream(seed, "deployer", &[u64::from(index)]);
            let kind = pick_weighted(&mut r, DEPLOYER_MIX);
            let mean = f64::from(params.launches) / f64::from(params.deployers);
            let mut knobs = Knobs::new(config.knobs, kind.as_str());
            let launches = match kind {
                DeployerKind::SerialRugger => r.random_range(3..=((mean * 2.5) as u32).max(4)),
                DeployerKind::Rugger | DeployerKind::Fresh | DeployerKind::RuggerFunded => r.random_range(1..=2),
                DeployerKind::SlowRugger => {
                    knobs.draw(&mut r, "first_dump_share");
                    knobs.draw(&mut r, "final_day");
                    r.random_range(1..=3)
                }
                DeployerKind::DecoyRugger => {
                    let decoys = knobs.draw(&mut r, "decoys") as u32;
                    r.random_range(1..=2) * (1 + decoys)
                }
                _ => r.random_range(1..=((mean * 2.2) as u32).max(2)),
            };
            let proofs = if kind == DeployerKind::Builder && r.random_bool(0.4) {
                PROOF_TYPES.choose_multiple(&mut r, 2).copied().collect()
            } else {
                Vec::new()
            };
            let denylisted = kind == DeployerKind::SerialRugger && r.random_bool(0.2);
            let hub = address(seed, "hub", (params.hubs as f64 * r.random::<f64>().powi(2)) as u64);
            let (funder, funded_at) = match kind {
                DeployerKind::Builder | DeployerKind::Fresh => (hub, start - r.random_range(65 * DAY..400 * DAY)),
                DeployerKind::Casual if r.random_bool(0.3) => {
                    (address(seed, "deployer-personal", u64::from(index)), start - r.random_range(65 * DAY..300 * DAY))
                }
                DeployerKind::Casual => (hub, start - r.random_range(65 * DAY..300 * DAY)),
                DeployerKind::RuggerFunded => (String::new(), start + r.random_range(0..10 * DAY)),
                _ => (address(seed, "rug-funder", u64::from(index)), start - r.random_range(65 * DAY..120 * DAY)),
            };
            Deployer {
                index,
                address: address(seed, "deployer", u64::from(index)),
                kind,
                launches,
                proofs,
                denylisted,
                knobs: knobs.values,
                funder,
                funded_at,
            }
        })
        .collect();
    // Rugger-funded wallets: first funded by a known rugging deployer or a denylisted address.
    let ruggers: Vec<String> = deployers
        .iter()
        .filter(|d| matches!(d.kind, DeployerKind::Rugger | DeployerKind::SerialRugger))
        .map(|d| d.address.clone())
        .collect();
    for d in &mut deployers {
        if d.kind == DeployerKind::RuggerFunded {
            let mut r = rng::stream(seed, "rugger-funded", &[u64::from(d.index)]);
            let mut knobs = Knobs::new(config.knobs, "rugger-funded");
            let from_denylist = knobs.draw(&mut r, "from_denylist") > 0.5 || ruggers.is_empty();
            d.funder = if from_denylist {
                address(seed, "known-bad", r.random_range(0..20))
            } else {
                ruggers[r.random_range(0..ruggers.len())].clone()
            };
            d.knobs = knobs.values;
        }
    }
    deployers
}
