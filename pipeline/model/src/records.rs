//! Domain records handed from the rebuild to the publisher: one scored seller, one scored
//! deployer, and the whole day's input to a snapshot. They carry no wire format; the publisher
//! maps them onto the versioned payloads.

use serde::{Deserialize, Serialize};

use crate::MicroUsdc;
use crate::decision::Assessment;
use crate::deployer::DeployerAssessment;
use crate::features::{DeployerFeatures, LaunchSummary};
use crate::features::{ProofType, SellerFeatures};

/// What the marketplace says about a seller (its earliest current listing leads).
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct ListingInfo {
    /// Primary paid endpoint.
    pub resource: String,
    /// Every current endpoint.
    pub resources: Vec<String>,
    /// Description.
    pub description: Option<String>,
    /// Distinct tags, sorted.
    pub tags: Vec<String>,
    /// Marketplace.
    pub ecosystem: String,
    /// Network as listed.
    pub network: String,
    /// Lowest advertised price, atomic units.
    pub price: Option<MicroUsdc>,
    /// Asset contract.
    pub asset: Option<String>,
}

/// One day of a wallet's score history.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct HistoryPoint {
    /// `YYYY-MM-DD`.
    pub date: String,
    /// Score that day, `None` when degraded.
    pub score: Option<u8>,
    /// Settlements up to that day.
    pub job_count: u64,
    /// Methodology version that computed the score.
    pub methodology: String,
}

/// A seller with its features, assessment and history.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct SellerRecord {
    /// Lowercase address.
    pub address: String,
    /// Marketplace listing.
    pub listing: ListingInfo,
    /// Features the model read.
    pub features: SellerFeatures,
    /// What the model said.
    pub assessment: Assessment,
    /// Days up to and including the snapshot day, oldest first.
    pub history: Vec<HistoryPoint>,
    /// Evidence sources, the components' bases and the stale sources.
    pub sources: Vec<crate::sources::SourceNote>,
    /// What the directory reads show beside the score (not model input).
    pub profile: SellerProfile,
    /// What a live re-score builds on (published beside the features).
    pub live: crate::live::LiveBasis,
}

/// Facts about a seller the free reads show and the model does not read.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct SellerProfile {
    /// Qualifying volume in the 7 days up to the scoring day, micro-USDC.
    pub earned_7d: MicroUsdc,
    /// Qualifying settlements in those 7 days.
    pub settlements_7d: u64,
    /// Distinct qualifying payers in those 7 days.
    pub buyers_7d: u32,
    /// Unix seconds of the last qualifying settlement.
    pub last_settlement_at: Option<i64>,
    /// The most recent probe of a current endpoint, if any.
    pub last_probe: Option<ProbeSummary>,
    /// The ERC-8004 registration whose agentWallet is the seller, with its card.
    pub identity: Option<AgentIdentity>,
}

/// The most recent probe of an endpoint.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ProbeSummary {
    /// Unix seconds.
    pub probed_at: i64,
    /// HTTP status, `None` when no answer came.
    pub status: Option<u32>,
    /// Error class when it failed.
    pub error: Option<String>,
}

/// An ERC-8004 registered agent and what its registration file says.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct AgentIdentity {
    /// Agent id in the IdentityRegistry.
    pub agent_id: u64,
    /// Owner of the agent NFT (lowercase).
    pub owner: String,
    /// Declared agent wallet (lowercase).
    pub agent_wallet: Option<String>,
    /// The registration file's URI.
    pub uri: String,
    /// Unix seconds of the registration.
    pub registered_at: i64,
    /// Name in the registration file.
    pub name: Option<String>,
    /// Whether the registration file links back to this service.
    pub links_back: bool,
    /// Unix seconds the file was last fetched, `None` when never.
    pub card_fetched_at: Option<i64>,
    /// Why the last fetch failed.
    pub card_error: Option<String>,
}

/// One identity proof of an address.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ProofRecord {
    /// Lowercase address.
    pub address: String,
    /// Proof type (wire name).
    pub proof_type: String,
    /// Where it was read.
    pub source: String,
    /// Unix seconds it was first verified.
    pub verified_at: i64,
}

/// An address on the denylist or the allowlist.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ListedAddress {
    /// Lowercase address.
    pub address: String,
    /// `deny` or `allow`.
    pub list: String,
    /// Where the entry comes from.
    pub source: String,
    /// Category, e.g. `scam:scammer`.
    pub category: String,
    /// Unix seconds it was added.
    pub added_at: i64,
}

/// A marketplace crawl source and its record.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct CrawlerRecord {
    /// Discovery URL.
    pub source_url: String,
    /// Marketplace name.
    pub ecosystem: String,
    /// Runs up to the day.
    pub runs: u32,
    /// Runs that ended in an error.
    pub failed_runs: u32,
    /// Unix seconds the last run finished.
    pub last_run_at: i64,
    /// The last run's error, `None` when it succeeded.
    pub last_error: Option<String>,
    /// Items the last run read.
    pub last_items: u32,
    /// Distinct sellers among the current listings of its marketplace.
    pub addresses: u32,
}

/// One current marketplace listing of a resource: what a buyer holding the resource's URL is told
/// to pay, to whom. A resource listed by several marketplaces or with several payTos has a row for
/// each (resource, payTo, network, asset), at the newest price its crawls saw.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct ResourceListing {
    /// Endpoint URL, as listed.
    pub resource: String,
    /// Receiving wallet, as listed (case as observed).
    pub pay_to: String,
    /// Network in CAIP-2 form.
    pub network: String,
    /// Asset contract, lowercase.
    pub asset: String,
    /// Advertised price, atomic units (the newest crawl's).
    pub price: MicroUsdc,
    /// Marketplace of the newest crawl.
    pub ecosystem: String,
    /// Unix seconds the listing was first seen.
    pub first_seen: i64,
    /// Unix seconds the listing was last seen.
    pub last_seen: i64,
}

/// The first USDC funding of a wallet.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct FundingRecord {
    /// The funded wallet.
    pub funded: String,
    /// Its first funder.
    pub funder: String,
    /// Amount, micro-USDC.
    pub amount: MicroUsdc,
    /// Unix seconds.
    pub first_funded_at: i64,
}

/// A deployer with its launches and assessment.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct DeployerRecord {
    /// Lowercase address.
    pub address: String,
    /// Features the model read.
    pub features: DeployerFeatures,
    /// What the model said.
    pub assessment: DeployerAssessment,
    /// Launches, newest first.
    pub launches: Vec<LaunchSummary>,
    /// Identity proofs.
    pub proofs: Vec<ProofType>,
    /// `YYYY-MM-DD` of the first launch.
    pub first_launch: String,
}

/// A known wallet that is neither a seller nor a deployer (payer, funder, listed address): the
/// "database cross-references" of an unknown address's preliminary signals.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Counterparty {
    /// Lowercase address.
    pub address: String,
    /// Settlements it paid.
    pub payments: u64,
    /// Distinct sellers it paid.
    pub sellers_paid: u32,
    /// Addresses it funded first.
    pub funded: u32,
    /// On the denylist.
    pub denylisted: bool,
    /// Qualifying volume it paid, micro-USDC.
    pub spent: MicroUsdc,
    /// Qualifying volume it paid in the 7 days up to the day.
    pub spent_7d: MicroUsdc,
    /// Qualifying settlements it paid in those 7 days.
    pub payments_7d: u64,
    /// Distinct sellers it paid in those 7 days.
    pub sellers_paid_7d: u32,
    /// Its first qualifying payment of a relationship within the horizon, Unix seconds (none for a
    /// wallet that paid nothing).
    #[serde(default)]
    pub first_paid_at: Option<i64>,
    /// Its last qualifying payment, Unix seconds.
    #[serde(default)]
    pub last_paid_at: Option<i64>,
}

/// How a seller was paid in its last 30 days (`x402.md` § 8), whether or not it counted as
/// demand: its transfers by settlement form, the auth-capture escrow's outcomes for its payments,
/// and the ERC-8021 builder codes on the settling calls. Evidence for analysts (the
/// `settlement-forms.parquet` export); no score, flag or decision reads it (SCORING.md § 1).
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct SettlementMix {
    /// Lowercase seller address.
    pub address: String,
    /// Transfers in each form.
    pub forms: FormCounts,
    /// The escrow's outcomes for payments to the seller.
    pub escrow: EscrowOutcomes,
    /// App codes (`a`) seen, most frequent first, at most [`SettlementMix::MAX_CODES`]: hints.
    pub apps: Vec<String>,
    /// Wallet (facilitator) codes (`w`) seen, the same way.
    pub wallets: Vec<String>,
    /// Service codes (`s`) seen, the same way.
    pub services: Vec<String>,
}

impl SettlementMix {
    /// The most codes of one kind the export keeps per seller.
    pub const MAX_CODES: usize = 10;
}

/// Transfers to a seller by how the funds reached it.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct FormCounts {
    /// USDC's EIP-3009 authorization.
    pub eip3009: u64,
    /// The x402 exact Permit2 proxy.
    pub permit2: u64,
    /// The x402 `upto` Permit2 proxy.
    pub upto: u64,
    /// The auth-capture escrow's captures and charges.
    pub auth_capture: u64,
    /// Batch-settlement claims (one per channel a claim raised).
    pub batch_claim: u64,
    /// Plain transfers.
    pub transfer: u64,
}

/// Count and amount of one kind of escrow outcome.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct EscrowFlow {
    /// Events.
    pub count: u64,
    /// Amount they moved, micro-USDC.
    pub amount: MicroUsdc,
}

/// The auth-capture escrow's outcomes for payments to one seller.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct EscrowOutcomes {
    /// Payer funds escrowed, up to the capturable amount.
    pub authorized: EscrowFlow,
    /// Authorized and captured in one call.
    pub charged: EscrowFlow,
    /// Captured: the seller paid.
    pub captured: EscrowFlow,
    /// Uncaptured funds the operator gave back.
    pub voided: EscrowFlow,
    /// Uncaptured funds the payer took back after expiry.
    pub reclaimed: EscrowFlow,
    /// Captured funds the operator returned to the payer.
    pub refunded: EscrowFlow,
}

/// Everything one day's snapshot is made of.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct SnapshotInput {
    /// Snapshot day, `YYYY-MM-DD`.
    pub date: String,
    /// SHA-256 of the lake input up to the day.
    pub input_digest: String,
    /// Sellers, in address order.
    pub sellers: Vec<SellerRecord>,
    /// Deployers, in address order.
    pub deployers: Vec<DeployerRecord>,
    /// Other known wallets, in address order.
    pub counterparties: Vec<Counterparty>,
    /// Identity proofs up to the day, by type then address.
    pub proofs: Vec<ProofRecord>,
    /// Denylist and allowlist entries, by list then address.
    pub lists: Vec<ListedAddress>,
    /// ERC-8004 registered agents, by agent id.
    pub identities: Vec<AgentIdentity>,
    /// Marketplace crawl sources.
    pub crawlers: Vec<CrawlerRecord>,
    /// Every current listing, by resource then payTo.
    #[serde(default)]
    pub listings: Vec<ResourceListing>,
    /// First fundings of sellers and deployers, and of their funders up to `MAX_FUNDING_HOPS` back.
    pub funding: Vec<FundingRecord>,
    /// Every launched token, judged by its buyers, in token order.
    #[serde(default)]
    pub buyer_trust: Vec<crate::buyers::BuyerTrust>,
    /// Known facilitators (lowercase) as of the day: whose settlements are demand.
    pub facilitators: Vec<String>,
    /// The oracle's own paying wallets (lowercase, sorted): whose settlements are no demand.
    #[serde(default)]
    pub oracle_payers: Vec<String>,
    /// How each seller was paid in its last 30 days, in address order (sellers paid at all).
    #[serde(default)]
    pub settlement_mix: Vec<SettlementMix>,
}
