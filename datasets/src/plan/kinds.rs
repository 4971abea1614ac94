//! The cast's archetypes (seller and deployer kinds, their mixes and knob families) and the
//! vocabulary a seller is drawn from (tags, nouns, TLDs, proof types).

use rand::Rng;
use serde::{Deserialize, Serialize};

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
pub(super) const SELLER_MIX: &[(SellerKind, f64)] = &[
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
pub(super) const PROBES_PER_BUDGET: u32 = 2;
pub(super) const PROBE_FAMILIES: &[SellerKind] = &[
    SellerKind::SockPuppets,
    SellerKind::WashRing,
    SellerKind::HubDusting,
    SellerKind::PaidOnceReviewers,
    SellerKind::SelfFundingIntermediaries,
];

pub(super) const DEPLOYER_MIX: &[(DeployerKind, f64)] = &[
    (DeployerKind::Builder, 0.22),
    (DeployerKind::Casual, 0.30),
    (DeployerKind::Rugger, 0.14),
    (DeployerKind::SerialRugger, 0.09),
    (DeployerKind::Fresh, 0.09),
    (DeployerKind::SlowRugger, 0.06),
    (DeployerKind::DecoyRugger, 0.05),
    (DeployerKind::RuggerFunded, 0.05),
];

pub(super) const TAGS: &[&str] = &[
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
pub(super) const NOUNS: &[&str] = &[
    "oracle", "scout", "relay", "forge", "atlas", "pilot", "sage", "nexus", "pulse", "vault", "lens", "echo", "signal",
    "quant", "spark", "ledger", "beacon", "cortex", "harbor", "matrix",
];
/// One payer in this many of the pool is a busy payer (an agent that pays many sellers).
pub(super) const BUSY_PAYER_DIVISOR: u32 = 12;
/// Share of a seller's customers drawn from the busy payers.
pub(super) const BUSY_PAYER_SHARE: f64 = 0.35;
pub(super) const GOOD_TLDS: &[&str] = &["com", "ai", "io", "dev", "xyz", "app", "net", "org"];
/// TLDs the generator uses for scam listings; the pipeline's list is its own.
pub(super) const BAD_TLDS: &[&str] = &["top", "zip", "click", "gq", "tk", "loan", "rest", "mov"];
pub(super) const ADMIN_PATHS: &[&str] = &["admin", "wp-admin", ".env", "phpmyadmin", "debug"];
pub(super) const ECOSYSTEMS: &[(&str, f64)] = &[("cdp-bazaar", 0.7), ("payai", 0.2), ("x402-list", 0.1)];
/// Proofs a real operator may hold.
pub(super) const PROOF_TYPES: &[&str] =
    &["virtuals-agent", "virtuals-agent-token", "farcaster-fid", "cb1-verified", "basename", "ens"];
/// Proofs an attacker can buy for a wallet.
pub(super) const CHEAP_PROOFS: &[&str] = &["basename", "ens", "farcaster-fid"];
/// Proofs of pool payers (people and agents), weighted.
pub(super) const PAYER_PROOFS: &[(&str, f64)] =
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
