//! Lists the server computes from the snapshot's index (seed §2.6, §4.8): categories, agents of
//! a category, the scored marketplace list, the health summary.

use super::{Decision, ShieldColor, Tier};
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

use super::agent::PriceV1;
use super::discovery::CategoryAgentV1;

/// One category and its agents.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct CategoryCountV1 {
    /// URL segment.
    pub slug: String,
    /// Human label.
    pub label: String,
    /// Indexed agents.
    pub count: u32,
    /// Ranked agents.
    pub ranked: u32,
    /// `/by-category/{slug}` URL.
    pub browse: String,
}

/// `GET /categories`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct CategoriesV1 {
    /// `agentrep-categories-v1`.
    pub version: String,
    /// Categories (always 30).
    pub count: u32,
    /// Indexed agents.
    pub total_indexed: u32,
    /// Every category in display order, empty ones included.
    pub categories: Vec<CategoryCountV1>,
    /// How an agent is placed.
    pub method: String,
}

/// `GET /by-category/{cat}`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct ByCategoryV1 {
    /// `agentrep-by-category-v1`.
    pub version: String,
    /// Slug.
    pub category: String,
    /// Label.
    pub label: String,
    /// Red-shielded agents dropped.
    pub safe_only: bool,
    /// Agents in the category after the filter, before the limit.
    pub total: u32,
    /// Results returned.
    pub count: u32,
    /// Ranked agents first by rank, then the others by score.
    pub results: Vec<CategoryAgentV1>,
}

/// One marketplace listing with its trust score.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct BazaarItemV1 {
    /// Paid endpoint.
    pub resource: String,
    /// Seller.
    pub pay_to: String,
    /// Marketplace.
    pub ecosystem: String,
    /// Network (CAIP-2).
    pub network: String,
    /// Description.
    pub description: Option<String>,
    /// Lowest advertised price of the seller.
    pub price: Option<PriceV1>,
    /// Seller score, null when degraded.
    pub score: Option<u8>,
    /// Preflight decision.
    pub decision: Decision,
    /// Shield colour.
    pub color: ShieldColor,
    /// Last probe alive.
    pub endpoint_alive: bool,
}

/// `GET /bazaar-scored`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct BazaarScoredV1 {
    /// `agentrep-bazaar-scored-v1`.
    pub version: String,
    /// Listed resources in the snapshot.
    pub total: u32,
    /// Offset asked.
    pub offset: u32,
    /// Items returned.
    pub count: u32,
    /// Resources by seller score, then URL.
    pub items: Vec<BazaarItemV1>,
}

/// An alive agent of the health summary.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct AliveAgentV1 {
    /// Seller.
    pub pay_to: String,
    /// Description.
    pub description: Option<String>,
    /// Score.
    pub score: Option<u8>,
    /// Paid endpoint.
    pub resource_path: String,
}

/// `GET /health-summary` (seed §2.6).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct HealthSummaryV1 {
    /// `agentrep-health-summary-v1`.
    pub version: String,
    /// Indexed sellers.
    pub total_indexed: u32,
    /// Sellers probed in the window.
    pub total_probed: u32,
    /// Probed sellers whose last probe was alive.
    pub alive: u32,
    /// Probed sellers whose last probe failed.
    pub dead: u32,
    /// `alive / totalProbed`, integer percent.
    pub uptime_pct: u32,
    /// The 10 best-scored alive sellers.
    pub alive_top: Vec<AliveAgentV1>,
    /// Set when nothing was probed.
    pub note: Option<String>,
}

/// A proof type and how many addresses hold it.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct ProofTypeCountV1 {
    /// Proof type.
    #[serde(rename = "type")]
    pub kind: String,
    /// Addresses.
    pub count: u32,
}

/// `GET /proofs`: without `type` the available types, with it one page of addresses.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct ProofsV1 {
    /// `agentrep-proofs-v1`.
    pub version: String,
    /// Every proof type of the interface with its count (also when a type is asked).
    pub available_types: Vec<ProofTypeCountV1>,
    /// The type asked, null without one.
    #[serde(rename = "type")]
    pub kind: Option<String>,
    /// Addresses with the type.
    pub total: u32,
    /// Offset asked.
    pub offset: u32,
    /// Limit asked.
    pub limit: u32,
    /// One page of proofs, by address; empty without a type.
    pub proofs: Vec<super::index::ProofRowV1>,
}

/// `GET /denylist`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct DenylistV1 {
    /// `agentrep-denylist-v1`.
    pub version: String,
    /// Denylisted addresses.
    pub total: u32,
    /// Entries per source.
    pub sources: std::collections::BTreeMap<String, u32>,
    /// Entries returned.
    pub count: u32,
    /// Offset asked.
    pub offset: u32,
    /// One page, by address. Every one is forced red in score and preflight.
    pub addresses: Vec<super::index::ListRowV1>,
}

/// A wallet that spent.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct BuyerV1 {
    /// Wallet.
    pub address: String,
    /// Qualifying volume it paid, USDC.
    pub spent_usdc: f64,
    /// Qualifying settlements it paid.
    pub payments: u64,
    /// Distinct sellers it paid.
    pub sellers_paid: u32,
    /// Qualifying volume in the last 7 days, USDC.
    pub spent_7d_usdc: f64,
    /// On the denylist.
    pub denylisted: bool,
}

/// `GET /top-buyers`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct TopBuyersV1 {
    /// `agentrep-top-buyers-v1`.
    pub version: String,
    /// Entries.
    pub count: u32,
    /// By qualifying spend, descending.
    pub buyers: Vec<BuyerV1>,
}

/// An agent of interest (seed §2.5).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct AgentOfInterestV1 {
    /// Lowercase address.
    pub address: String,
    /// Name from its registration file, empty when none.
    pub name: String,
    /// Score (0 when degraded).
    pub score: u8,
    /// `YYYY-MM-DD HH:MM:SS` UTC of the last settlement (or the last probe).
    pub last_seen_at: String,
    /// Qualifying settlements.
    pub settlement_count: u64,
    /// Identity proofs.
    pub proof_count: u32,
    /// Paid audit URL.
    pub audit_url: String,
    /// Audit price, USDC.
    pub audit_price: String,
    /// Free score URL.
    pub free_score_url: String,
}

/// `GET /agents-of-interest` (seed §2.5).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct AgentsOfInterestV1 {
    /// `agentrep-agents-of-interest-v1`.
    pub version: String,
    /// The filter applied.
    pub filter: String,
    /// Entries.
    pub count: u32,
    /// How to use the list.
    pub hint: String,
    /// Every filter with what it selects.
    pub filters: std::collections::BTreeMap<String, String>,
    /// The agents.
    pub agents: Vec<AgentOfInterestV1>,
}

/// One step of a funding chain.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct FundingStepV1 {
    /// Hop, 1 = the address's own first funder.
    pub hop: u32,
    /// The funded wallet.
    pub funded: String,
    /// Its first USDC funder.
    pub funder: String,
    /// Amount, USDC.
    pub amount_usdc: f64,
    /// ISO 8601 time.
    pub first_funded_at: String,
    /// The funder is an indexed seller.
    pub funder_is_seller: bool,
    /// The funder is denylisted.
    pub funder_denylisted: bool,
}

/// `GET /funded-by/{address}`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct FundedByV1 {
    /// `agentrep-funded-by-v1`.
    pub version: String,
    /// The address.
    pub address: String,
    /// Its first USDC funder, null when none is known.
    pub first_funder: Option<FundingStepV1>,
    /// The first-funding chain, up to 4 hops back.
    pub chain: Vec<FundingStepV1>,
    /// Wallets indexed here that the first funder also funded first.
    pub funder_fan_out: u32,
    /// What is and is not known.
    pub note: String,
}

/// Seller side of recent activity.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct SellerActivityV1 {
    /// Qualifying volume received, USDC.
    pub earned_usdc: f64,
    /// Qualifying settlements received.
    pub settlements: u64,
    /// Distinct qualifying payers.
    pub unique_buyers: u32,
    /// ISO 8601 time of the last one ever.
    pub last_settlement_at: Option<String>,
}

/// Buyer side of recent activity.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct BuyerActivityV1 {
    /// Qualifying volume paid, USDC.
    pub spent_usdc: f64,
    /// Qualifying settlements paid.
    pub payments: u64,
    /// Distinct sellers paid.
    pub sellers_paid: u32,
}

/// `GET /recent-activity/{address}`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct RecentActivityV1 {
    /// `agentrep-recent-activity-v1`.
    pub version: String,
    /// The address.
    pub address: String,
    /// Window, days up to the snapshot day.
    pub days: u32,
    /// As a seller, null when not one.
    pub as_seller: Option<SellerActivityV1>,
    /// As a buyer, null when it paid no indexed seller.
    pub as_buyer: Option<BuyerActivityV1>,
    /// Snapshot day.
    pub snapshot_date: String,
}

/// `GET /canonical-id/{address}`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct CanonicalIdV1 {
    /// `agentrep-canonical-id-v1`.
    pub version: String,
    /// The address.
    pub address: String,
    /// Forward-verified Basename, null when none is known.
    pub basename: Option<String>,
    /// Forward-verified ENS name, null when none is known.
    pub ens: Option<String>,
    /// ERC-8004 agent id whose agentWallet is the address.
    pub erc8004_agent_id: Option<u64>,
    /// Owner of that agent.
    pub erc8004_owner: Option<String>,
    /// Its registration file (agent description) URL.
    pub agent_description_url: Option<String>,
    /// Name in that file.
    pub name: Option<String>,
    /// Attestation tier, null when not indexed.
    pub tier: Option<Tier>,
    /// Identity proof types.
    pub proofs: Vec<String>,
    /// What each null means.
    pub note: String,
}

/// `GET /has-mainstreet-ref/{address}`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct HasRefV1 {
    /// `agentrep-has-ref-v1`.
    pub version: String,
    /// The address.
    pub address: String,
    /// The agent's registration file links back to this service.
    pub has_ref: bool,
    /// ERC-8004 agent id read, null when the address declares none.
    pub agent_id: Option<u64>,
    /// The file read.
    pub uri: Option<String>,
    /// ISO 8601 time it was fetched.
    pub checked_at: Option<String>,
    /// Why the answer is what it is.
    pub reason: String,
}

/// The JSON block of `/snippet/{address}`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct SnippetBlockV1 {
    /// Service name.
    pub service: String,
    /// The wallet.
    pub address: String,
    /// Free score URL.
    pub score: String,
    /// Free preflight URL.
    pub preflight: String,
    /// SVG badge URL.
    pub badge: String,
    /// shields.io endpoint URL.
    pub shield: String,
}

/// `GET /snippet/{address}`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct SnippetV1 {
    /// `agentrep-snippet-v1`.
    pub version: String,
    /// Where to put it.
    pub instructions: String,
    /// The member to add to the registration file, under `reputation`.
    pub reputation: SnippetBlockV1,
    /// Markdown badge for a README.
    pub markdown: String,
}

/// A marketplace crawl source with its score.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct CrawlerV1 {
    /// Discovery URL.
    pub source_url: String,
    /// Marketplace.
    pub ecosystem: String,
    /// +1 per address, +10 for a valid last fetch, +5 when named, −20 for a failed last fetch.
    pub score: i64,
    /// Distinct sellers among its current listings.
    pub address_count: u32,
    /// The last run's error.
    pub last_error: Option<String>,
    /// Runs.
    pub runs: u32,
    /// Failed runs.
    pub failed_runs: u32,
    /// ISO 8601 end of the last run.
    pub last_run_at: String,
}

/// `GET /crawlers`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct CrawlersV1 {
    /// `agentrep-crawlers-v1`.
    pub version: String,
    /// Entries.
    pub count: u32,
    /// By score, descending.
    pub crawlers: Vec<CrawlerV1>,
}
