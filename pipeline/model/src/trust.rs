//! Parameters of the trust computation the rebuild runs over the payment and funding graph
//! (`agentrep-pipeline`'s `trust` module), kept here beside the model that reads its results, so
//! `SCORING.md` and both the batch and the live paths cite one set of numbers.
//!
//! In short: wallets are grouped into *entities* by their first-funding chains (cut at hubs);
//! trust starts at *seeds* (wallets with external anchors, then wallets with a long, diverse,
//! independent history of paying established sellers) and flows along qualifying payments and
//! non-hub funding by personalized PageRank. A seller's demand counts paying entities by the trust
//! that reached them.

/// The evidence horizon, in days: a (seller, payer) relationship counts (demand, trust edges,
/// reviews, receipts, counterparties, the live basis) until this long after its last qualifying
/// payment, then is no evidence at all (SCORING.md § 1, methodology 3.3).
pub const RELATIONSHIP_HORIZON_DAYS: i64 = 400;
/// The receipt window, in days: a buyer-signed receipt cites a settlement only when it was
/// received within this long after it (or up to a day before its block time, for clocks). A
/// receipt is the buyer's account of a call, made when the call is; one naming a payment months
/// old says nothing of the service now (SCORING.md § 1, methodology 3.5).
pub const RECEIPT_WINDOW_DAYS: i64 = 30;
/// Funding hops followed up a wallet's chain of first funders to find its entity root.
pub const MAX_FUNDING_HOPS: usize = 4;
/// Funding hops within which a denylisted or rugging funder taints a wallet: the depth that
/// defines entities ([`MAX_FUNDING_HOPS`]), so a chain of intermediaries that keeps a payer in
/// its funder's entity also keeps a wallet tied to a bad funder.
pub const TAINT_HOPS: usize = MAX_FUNDING_HOPS;
/// A wallet that first-funded at least this many wallets with at least `HUB_MIN_AMOUNT` each, on
/// at least `HUB_MIN_DAYS` distinct days, is a hub by behaviour (besides the labelled exchanges,
/// bridges and facilitators). Dust fan-out does not make a hub.
pub const HUB_MIN_FANOUT: u32 = 200;
/// Smallest first-funding amount that counts toward a behavioural hub, micro-USDC.
pub const HUB_MIN_AMOUNT: u64 = 1_000_000;
/// Distinct funding days a behavioural hub needs.
pub const HUB_MIN_DAYS: u32 = 14;

/// Probability that trust continues along an edge (PageRank damping).
pub const DAMPING: f64 = 0.85;
/// Power iteration stops once one iteration moves the trust of all wallets together by at most
/// this (L1, seed units). The map is a contraction by `DAMPING` in L1, so the result is then within
/// `TOLERANCE · DAMPING / (1 − DAMPING)` (0.057 seed units, summed over every wallet) of the exact
/// fixed point. Where trust only flows down chains (most of the graph), the iteration reaches the
/// fixed point exactly, bit for bit, after as many steps as the longest chain; what converges
/// slowly is trust circulating in cycles of wallets that pay each other, which loses only
/// `1 − DAMPING` a step. At benchmark scale this stops after 48 iterations (1e-9 would take 147,
/// 8.6 s a pass; BENCHMARKS.md § 4d), and a rebuild iterated to the exact fixed point
/// (`--exact-trust`) decides, scores and flags every seller the same, there and on the tuning world.
pub const TOLERANCE: f64 = 1e-2;
/// Power iterations at most (`DAMPING^200` ≈ 8e-15: a graph of cycles still converges within it).
pub const MAX_ITERATIONS: usize = 200;
/// Share of a wallet's outgoing trust that follows its payments when it also funds wallets.
pub const PAYMENT_SHARE: f64 = 0.7;

/// Anchor weight of a Coinbase-verified wallet (a KYC stands behind it).
pub const ANCHOR_CB1: f64 = 1.0;
/// Anchor weight of an allowlisted wallet.
pub const ANCHOR_ALLOWLIST: f64 = 1.0;
/// Anchor weight of each self-registered name (basename, ENS, Farcaster, Virtuals); they cost a
/// few USDC each, so they count for little.
pub const ANCHOR_NAME: f64 = 0.1;

/// Seller trust (seed units, from the anchors alone) from which a seller is *established*:
/// spending there builds a history.
pub const ESTABLISHED_TRUST: f64 = 0.2;
/// A history seed is at least this old (first funding or first payment), days.
pub const SEED_MIN_AGE_DAYS: u32 = 30;
/// ...paid at least this many distinct established sellers outside its own entity...
pub const SEED_MIN_SELLERS: u32 = 2;
/// ...on at least this many distinct days of the last 30...
pub const SEED_MIN_ACTIVE_DAYS: u32 = 2;
/// ...and its seed weight is `min(1, spend at those sellers / SEED_FULL_SPEND)`, micro-USDC. An
/// entity counts fully from `ENTITY_FULL_TRUST` (half a seed), so each fully weighted entity an
/// attacker makes costs it at least 35 USDC spent at sellers it does not control, and the
/// trusted-demand proof (three of them) at least 105 USDC.
pub const SEED_FULL_SPEND: u64 = 70_000_000;

/// An entity whose trust reaches this (seed units) is a trusted paying entity.
pub const TRUSTED_ENTITY_MIN: f64 = 0.01;
/// Trust at which an entity counts fully in weighted demand and as a full-weight reviewer.
pub const ENTITY_FULL_TRUST: f64 = 0.5;
