//! The agentrep scoring model: pure functions from per-wallet features to a score, a trust shield,
//! a verdict and a preflight decision, for x402 sellers and for token deployers.
//!
//! This crate does no I/O and depends on nothing heavier than serde, so the batch rebuild and the
//! server's paid live re-score call exactly the same functions on the same [`SellerFeatures`].
//! `SCORING.md` documents every formula and threshold found here; [`METHODOLOGY_VERSION`] names it.

pub mod address;
pub mod buyers;
pub mod chain;
pub mod decision;
pub mod deployer;
pub mod features;
pub mod flags;
pub mod live;
pub mod records;
pub mod score;
pub mod sources;
pub mod trust;
pub mod trust_provider;
mod wire_name;

pub use address::{Address, AddressError};
pub use buyers::{
    AssessedBuyer, BuyerBaseVerdict, BuyerClass, BuyerFacts, BuyerTrust, ClassPart, ClassTotal, SellerStanding,
    assess_buyer_base, assess_buyers, classify_buyer,
};
pub use decision::{
    Assessment, Decision, DecisionBasis, Proof, ScoreBasis, ShieldColor, Tier, Verdict, assess_seller, decide,
    external_verifiers, proofs,
};
pub use deployer::{
    DeployerAssessment, DeployerBasis, DeployerFeatures, DeployerVerdict, LaunchObservation, LaunchOutcome,
    LaunchSummary, OutcomeCounts, assess_deployer, classify_launch, risk_verdict,
};
pub use features::{
    DemandStats, DomainStanding, PaidCallOutcome, PaidProbeStats, ProofType, ReputationStats, SellerFeatures, SlaStats,
};
pub use flags::{Check, FLAGS, FlagDef, FlagHit, FlagKey, Origin, Severity, evaluate_deployer_flags, evaluate_flags};
pub use records::{
    AgentIdentity, Counterparty, CrawlerRecord, DeployerRecord, FundingRecord, HistoryPoint, ListedAddress,
    ListingInfo, ProbeSummary, ProofRecord, ResourceListing, SellerProfile, SellerRecord, SnapshotInput,
};
pub use score::{Component, ComponentScore, ScoreBreakdown, score_seller, success_rate};

/// Version of the methodology in `SCORING.md`; every published payload carries it.
pub const METHODOLOGY_VERSION: &str = "agentrep-methodology-3.6.0";

/// Micro-USDC (6 decimals), the only unit money has inside agentrep.
pub type MicroUsdc = u64;

/// Converts micro-USDC to the floating USDC amount the interface shows.
pub fn usdc(micro: MicroUsdc) -> f64 {
    micro as f64 / 1_000_000.0
}
