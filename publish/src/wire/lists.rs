//! Lists the server computes from the snapshot's index (seed §2.6, §4.8): categories, agents of
//! a category, the scored marketplace list, the health summary.

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
    pub decision: String,
    /// Shield colour.
    pub color: String,
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
