//! Per-wallet features: the one input of the seller model, computed by the rebuild's columnar
//! passes (and later by the live re-score) and consumed here without any I/O.

use serde::{Deserialize, Serialize};

use crate::MicroUsdc;

/// Identity proof types the interface enumerates (seed §2.8).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum ProofType {
    /// Registered as a Virtuals agent.
    VirtualsAgent,
    /// Operator of a Virtuals agent token.
    VirtualsAgentToken,
    /// Verified address of a Farcaster FID.
    FarcasterFid,
    /// Coinbase Verified Account (cb1) attestation.
    Cb1Verified,
    /// Forward-verified Basename.
    Basename,
    /// Forward-verified ENS primary name.
    Ens,
}

impl ProofType {
    /// Every proof type, in the interface's order.
    pub const ALL: [ProofType; 6] = [
        ProofType::VirtualsAgent,
        ProofType::VirtualsAgentToken,
        ProofType::FarcasterFid,
        ProofType::Cb1Verified,
        ProofType::Basename,
        ProofType::Ens,
    ];

    /// The wire name, e.g. `farcaster-fid`.
    pub fn as_str(self) -> &'static str {
        match self {
            ProofType::VirtualsAgent => "virtuals-agent",
            ProofType::VirtualsAgentToken => "virtuals-agent-token",
            ProofType::FarcasterFid => "farcaster-fid",
            ProofType::Cb1Verified => "cb1-verified",
            ProofType::Basename => "basename",
            ProofType::Ens => "ens",
        }
    }

    /// Parses a wire name.
    pub fn parse(s: &str) -> Option<Self> {
        Self::ALL.into_iter().find(|p| p.as_str() == s)
    }
}

/// Health-probe statistics over the probe window.
///
/// A probe is *alive* when the endpoint answered 200/201/204, or 402 with a well-formed x402
/// offer: an endpoint behind 401/403/405 is reachable but does not sell anything.
#[derive(Debug, Clone, Copy, Default, PartialEq, Serialize, Deserialize)]
pub struct SlaStats {
    /// Probes taken.
    pub samples: u32,
    /// Probes that were alive.
    pub ok: u32,
    /// Median latency of alive probes, milliseconds; `None` when no probe was alive.
    pub latency_p50_ms: Option<u32>,
    /// 95th percentile latency of alive probes, milliseconds.
    pub latency_p95_ms: Option<u32>,
    /// Mean latency of alive probes, milliseconds.
    pub avg_latency_ms: Option<u32>,
    /// Outcome of the most recent probe, if any.
    pub last_ok: Option<bool>,
    /// Probes whose 402 carried a well-formed x402 offer.
    pub offers: u32,
    /// Offers whose payTo, asset, network or price differ from the listing.
    pub offer_mismatches: u32,
}

impl SlaStats {
    /// Share of probes that were alive, or `None` without samples.
    pub fn ok_rate(&self) -> Option<f64> {
        (self.samples > 0).then(|| f64::from(self.ok) / f64::from(self.samples))
    }
}

/// Paying demand as the model sees it. Only *qualifying* settlements count as demand: settled by a
/// known facilitator (EIP-3009 paired), on the listing's network and asset, at no less than the
/// advertised price of some resource of the seller. Payers are grouped into *entities* (funding
/// clusters: wallets sharing a first-funding root below the hubs), and each entity is weighed by
/// the trust that reaches it from the seeds (see `SCORING.md` § Trust).
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct DemandStats {
    /// Qualifying settlements up to the scoring day.
    pub settlements: u64,
    /// Qualifying settlements in the 30 days up to the scoring day.
    pub settlements_30d: u64,
    /// Qualifying volume, micro-USDC.
    pub volume: MicroUsdc,
    /// Distinct qualifying payers.
    pub payers: u32,
    /// Distinct paying entities (funding clusters) among them.
    pub entities: u32,
    /// Entities whose trust reaches `TRUSTED_ENTITY_MIN`.
    pub trusted_entities: u32,
    /// Trust-weighted count of paying entities: each entity counts `min(1, trust / ENTITY_FULL_TRUST)`.
    pub weighted_entities: f64,
    /// Trust that flowed into the seller from its payers (seed units).
    pub trust_mass: f64,
    /// Trusted entities that paid on at least two distinct days, over trusted entities.
    pub repeat_ratio: f64,
    /// The largest trusted entity's share of trusted qualifying settlements.
    pub top_entity_share: f64,
    /// Days since the last qualifying settlement of a trusted entity.
    pub days_since_last_trusted: Option<u32>,
    /// Days with a qualifying settlement of a trusted entity, in the last 30.
    pub active_days_30d: u32,
    /// Qualifying settlements whose amount equals an advertised price exactly, over qualifying.
    pub exact_price_share: f64,
    /// Median over payers (with >= 3 payments) of the coefficient of variation of their gaps.
    pub interval_cv: Option<f64>,
    /// Transfers to the seller that do not qualify: not facilitator-settled, not in an x402
    /// settlement form (a plain transfer), on another network or asset. Counted and shown; never demand.
    pub unattributed: u64,
    /// Facilitator settlements below every advertised price. Counted and shown; never demand.
    pub below_price: u64,
    /// Qualifying settlements the seller paid itself.
    pub self_payments: u64,
    /// Qualifying payers whose funding chain (up to `MAX_FUNDING_HOPS`) starts at the seller.
    pub seller_funded_payers: u32,
    /// Qualifying settlements made by those payers.
    pub seller_funded_settlements: u64,
    /// Paying entities (trusted or not) that paid on two or more distinct days: customers who
    /// came back.
    #[serde(default)]
    pub repeat_entities: u32,
    /// Days since the last qualifying settlement of any paying entity (the seller's own and
    /// seller-funded payers left out).
    #[serde(default)]
    pub days_since_last: Option<u32>,
    /// Days with a qualifying settlement of any paying entity, in the last 30.
    #[serde(default)]
    pub active_days_30d_all: u32,
}

/// A listing host's registrable domain with a public rank, whose live 402 offers name the
/// seller's wallet: the seller controls a domain with an established standing.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct DomainStanding {
    /// The registrable domain (public suffix plus one label, private suffixes included, so a
    /// `*.vercel.app` host is its own domain).
    pub domain: String,
    /// Its rank in the ranked-domain list (1 = most visited).
    pub rank: u32,
    /// The list (`tranco`) and its date, as the `domain_ranks` dataset records them.
    pub list: String,
    /// Well-formed offers from that domain's hosts in the probe window that name the wallet.
    pub matching_offers: u32,
}

/// What the answer to a settled paid call shows (SCORING.md § 1, *The paid probe*). Only an answer
/// that shows non-delivery counts against a seller; ordinary network conditions and answers that
/// say nothing either way are recorded and tried again on another day.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum PaidCallOutcome {
    /// A 2xx with a body: the resource came.
    Delivered,
    /// Non-delivery: asked to pay again (402) after paying, a server error (5xx), or a 2xx with an
    /// empty body where a resource was paid for.
    NotDelivered,
    /// Nothing shown either way: no answer (a timeout, a reset, a body over the cap or cut
    /// short), a redirect, a 204, or a 4xx other than 402 (a method or input the listing did not
    /// name, a rate limit).
    Inconclusive,
}

impl PaidCallOutcome {
    /// The outcome of a settled call from its final status (`None` when nothing answered) and
    /// the size of its body. `sql/origins.sql` (`listing_paid.outcome`) states the same rule, and
    /// `pipeline/tests/features.rs` holds the two together.
    pub fn of(status: Option<u32>, body_bytes: u64) -> Self {
        match status {
            Some(204) => Self::Inconclusive,
            Some(200..=299) if body_bytes > 0 => Self::Delivered,
            Some(200..=299) | Some(402) | Some(500..=599) => Self::NotDelivered,
            _ => Self::Inconclusive,
        }
    }
}

/// agentrep's own paid calls to the seller (the `paid_probes` dataset), at the origins its
/// evidence counts from: only the operator can create them, so they may lower a decision.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct PaidProbeStats {
    /// Paid calls whose authorization was used on chain (the seller took the money), in the last
    /// 30 days.
    pub paid: u32,
    /// Of those, the calls answered with a 2xx and a body.
    pub delivered: u32,
    /// Of those, the calls whose answer showed non-delivery ([`PaidCallOutcome::NotDelivered`]).
    pub undelivered: u32,
    /// Calls that failed without the money moving (the authorization expired unused): no harm.
    pub unpaid_failures: u32,
    /// Settled calls whose answer showed nothing either way ([`PaidCallOutcome::Inconclusive`]):
    /// recorded, never a flag.
    #[serde(default)]
    pub inconclusive: u32,
    /// Distinct days (UTC) with a settled call that showed non-delivery: flags from paid calls need
    /// two.
    #[serde(default)]
    pub undelivered_days: u32,
}

/// Reviews and receipts that count: from an entity that paid the seller at least the price before
/// the review or receipt, once per entity, weighed by the entity's trust.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct ReputationStats {
    /// ERC-8004 feedback entries in range and not revoked.
    pub feedback: u32,
    /// Distinct clients behind them.
    pub feedback_clients: u32,
    /// Feedback clients whose entity never paid the seller before reviewing (no weight).
    pub unpaid_feedback_clients: u32,
    /// Entities whose review counts.
    pub reviewing_entities: u32,
    /// Sum of the counted reviews' weights.
    pub review_weight: f64,
    /// Sum of weight × rating (rating 0..=1).
    pub review_sum: f64,
    /// Counted reviewers with full trust weight and a rating of at least 70: independent verifiers.
    pub trusted_reviewers: u32,
    /// Buyer receipts naming the seller.
    pub receipts: u32,
    /// Receipts backed by a qualifying settlement from the buyer's entity before the receipt.
    pub receipts_matched: u32,
    /// Sum of the matched receipts' weights (one entity, one weight).
    pub receipt_weight: f64,
    /// Sum of weight × success over matched receipts.
    pub receipt_success: f64,
    /// Trusted paying entities whose receipts report failed paid calls.
    pub failed_entities: u32,
}

/// Everything the seller model knows about one wallet on one day.
///
/// Counts that could not be read are not zero: the rebuild records the failed source in
/// `degraded_sources` (required sources: no score) or `stale_sources` (other sources: the checks
/// they feed are reported missing and the decision is capped).
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct SellerFeatures {
    // Marketplace listings.
    /// Listings that name this wallet as `payTo`.
    pub listing_count: u32,
    /// Distinct tags across the wallet's listings.
    pub tag_count: u32,
    /// Days since the wallet was first seen in a listing.
    pub age_days: u32,
    /// Lowest advertised price, micro-USDC.
    pub advertised_price: Option<MicroUsdc>,
    /// Distinct advertised prices (a seller with several price points is normal).
    pub price_points: u32,
    /// A listing's host ends in a TLD on the suspicious list.
    pub suspicious_tld: bool,
    /// A listing's path looks like an admin or secrets path.
    pub admin_path: bool,
    /// Distinct letter-case spellings of the address seen in listings.
    pub case_variants: u32,

    /// Paying demand.
    pub demand: DemandStats,
    /// The address (with hops) whose funding taints this wallet: a denylisted address or a
    /// rugging deployer among its first funders, before the wallet was first listed.
    pub tainted_by: Option<String>,

    /// Probe statistics over the probe window.
    pub sla: SlaStats,

    /// The best-ranked listing domain the wallet is proven to control, when one is ranked.
    #[serde(default)]
    pub domain: Option<DomainStanding>,
    /// agentrep's own paid calls.
    #[serde(default)]
    pub paid_probes: PaidProbeStats,

    /// The wallet is the `agentWallet` of a registered ERC-8004 agent.
    pub erc8004_registered: bool,
    /// Reviews and receipts.
    pub reputation: ReputationStats,

    /// Identity proofs of distinct types.
    pub proofs: Vec<ProofType>,
    /// The wallet is on the denylist.
    pub denylisted: bool,
    /// Label of the allowlist entry, if allowlisted.
    pub allowlist_label: Option<String>,
    /// The operator signed an attestation of the wallet's score in the 24 hours up to the day's
    /// end (the `attested` tier; never a score input).
    #[serde(default)]
    pub attested: bool,

    /// Required sources that failed (e.g. `settlements-stale`): no measured score.
    pub degraded_sources: Vec<String>,
    /// Other sources that are stale (e.g. `erc8004-stale`): reported missing, decision capped.
    pub stale_sources: Vec<String>,
}

// The deployer model's features: what a wallet's launches came to.

/// The outcome buckets of the interface.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
#[cfg_attr(feature = "schemars", derive(schemars::JsonSchema))]
#[serde(rename_all = "lowercase")]
pub enum LaunchOutcome {
    /// Reached the graduation liquidity and was not rugged.
    Graduated,
    /// The creator dumped and the price collapsed.
    Rugged,
    /// Trading stopped or the price faded away.
    Abandoned,
    /// Still trading with liquidity.
    Alive,
    /// Too young or too little data to say.
    Inconclusive,
}

impl LaunchOutcome {
    /// Every outcome, in the interface's order.
    pub const ALL: [LaunchOutcome; 5] = [
        LaunchOutcome::Graduated,
        LaunchOutcome::Rugged,
        LaunchOutcome::Abandoned,
        LaunchOutcome::Alive,
        LaunchOutcome::Inconclusive,
    ];

    /// The wire name.
    pub fn as_str(self) -> &'static str {
        match self {
            LaunchOutcome::Graduated => "graduated",
            LaunchOutcome::Rugged => "rugged",
            LaunchOutcome::Abandoned => "abandoned",
            LaunchOutcome::Alive => "alive",
            LaunchOutcome::Inconclusive => "inconclusive",
        }
    }
}

/// Counts of launch outcomes (seed `outcomeHistory`).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct OutcomeCounts {
    /// Graduated launches.
    pub graduated: u32,
    /// Rugged launches.
    pub rugged: u32,
    /// Abandoned launches.
    pub abandoned: u32,
    /// Alive launches.
    pub alive: u32,
    /// Inconclusive launches.
    pub inconclusive: u32,
    /// All launches.
    pub total: u32,
}

impl OutcomeCounts {
    /// Adds one outcome.
    pub fn add(&mut self, outcome: LaunchOutcome) {
        match outcome {
            LaunchOutcome::Graduated => self.graduated += 1,
            LaunchOutcome::Rugged => self.rugged += 1,
            LaunchOutcome::Abandoned => self.abandoned += 1,
            LaunchOutcome::Alive => self.alive += 1,
            LaunchOutcome::Inconclusive => self.inconclusive += 1,
        }
        self.total += 1;
    }

    /// Launches with a decided outcome.
    pub fn decided(&self) -> u32 {
        self.total - self.inconclusive
    }

    /// Graduated or alive over decided launches, `None` when nothing is decided.
    pub fn survival(&self) -> Option<f64> {
        let decided = self.decided();
        (decided > 0).then(|| f64::from(self.graduated + self.alive) / f64::from(decided))
    }
}

/// One launch as the deployer model sees it.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct LaunchSummary {
    /// Token address.
    pub token: String,
    /// Launch platform.
    pub platform: String,
    /// Outcome as of the scoring day.
    pub outcome: LaunchOutcome,
    /// Peak pool liquidity, micro-USDC.
    pub peak_liquidity: MicroUsdc,
    /// Days since launch.
    pub age_days: u32,
}

/// Everything the deployer model knows about one wallet.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct DeployerFeatures {
    /// Outcome counts over all launches.
    pub outcomes: OutcomeCounts,
    /// Days since the first launch.
    pub age_days: u32,
    /// Distinct identity proof types.
    pub proof_count: u32,
    /// On the denylist.
    pub denylisted: bool,
    /// The address (with hops) whose funding taints this wallet: a denylisted address or a
    /// deployer whose verdict is `AVOID`, among its first funders.
    pub tainted_by: Option<String>,
}

crate::wire_name::display_as_wire_name!(LaunchOutcome);
