//! Ranking and discovery payloads the server computes from the snapshot's index (seed §4.1):
//! compare, featured, trending, search, recommend, tags, batch scores, intent match, random.

use super::{Decision, EvidenceTier, ShieldColor};
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

use super::agent::{MetricsV1, PriceV1, SettlementsV1, SlaV1, TrustShieldV1};
use super::leaderboard::LeaderboardEntryV1;

/// One side of a comparison.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct CompareSideV1 {
    /// Whether the address is an indexed seller.
    pub indexed: bool,
    /// Lowercase address.
    pub address: String,
    /// Score, null when not indexed or degraded.
    pub score: Option<u8>,
    /// Preflight decision, null when not indexed.
    pub decision: Option<Decision>,
    /// Shield colour, null when not indexed.
    pub color: Option<ShieldColor>,
    /// Description.
    pub description: Option<String>,
    /// Metrics, null when not indexed.
    pub metrics: Option<MetricsV1>,
}

/// `GET /compare?a=&b=`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct CompareV1 {
    /// `agentrep-compare-v1`.
    pub version: String,
    /// First address.
    pub a: CompareSideV1,
    /// Second address.
    pub b: CompareSideV1,
    /// `a`, `b`, `tie`, or null when either side has no score.
    pub winner: Option<String>,
    /// Score difference, null when there is no winner to speak of.
    pub margin: Option<u8>,
    /// What to do with the result.
    pub recommendation: String,
    /// Snapshot day.
    pub snapshot_date: String,
}

/// A curated pick.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct PickV1 {
    /// `trending`, `newcomer`, `volume` or `gem`.
    pub label: String,
    /// Seller.
    pub pay_to: String,
    /// Score.
    pub score: Option<u8>,
    /// Description.
    pub description: Option<String>,
    /// Why it was picked.
    pub reason: String,
}

/// `GET /featured`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct FeaturedV1 {
    /// `agentrep-featured-v1`.
    pub version: String,
    /// Up to four picks; a pick with no candidate is left out.
    pub picks: Vec<PickV1>,
    /// Snapshot day.
    pub snapshot_date: String,
}

/// A 7-day gainer.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct TrendingEntryV1 {
    /// Seller.
    pub pay_to: String,
    /// Score today.
    pub score: u8,
    /// Score on the earliest day of the window.
    pub score_before: u8,
    /// `YYYY-MM-DD` of that day.
    pub since: String,
    /// Gain.
    pub delta: i32,
    /// Description.
    pub description: Option<String>,
}

/// `GET /trending`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct TrendingV1 {
    /// `agentrep-trending-v1`.
    pub version: String,
    /// Window in days.
    pub days: u32,
    /// Entries.
    pub count: u32,
    /// Largest score gains over the window, ranked sellers only.
    pub results: Vec<TrendingEntryV1>,
    /// Set only when there is no data (fewer than two days of history).
    pub note: Option<String>,
}

/// A search hit.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct SearchResultV1 {
    /// `agent` or `deployer`.
    #[serde(rename = "type")]
    pub kind: String,
    /// Address.
    pub address: String,
    /// Same as `address` for agents (the pre-0.9.1 clients read `payTo`).
    pub pay_to: String,
    /// Score.
    pub score: Option<u8>,
    /// Description.
    pub description: Option<String>,
    /// Paid endpoint, null for deployers.
    pub resource: Option<String>,
    /// Tags.
    pub tags: Vec<String>,
    /// Settled jobs.
    pub job_count: u64,
    /// Where the query matched: `address`, `tag` or `description`.
    pub matched: Vec<String>,
    /// Relevance, higher first.
    pub relevance: u32,
}

/// `GET /search?q=`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct SearchV1 {
    /// `agentrep-search-v1`.
    pub version: String,
    /// The query as read (wildcards are literal).
    pub query: String,
    /// Matches before the limit.
    pub total: u32,
    /// Results returned.
    pub count: u32,
    /// Relevance, then score.
    pub results: Vec<SearchResultV1>,
    /// Set when nothing matched.
    pub note: Option<String>,
}

/// A recommended agent.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct RecommendationV1 {
    /// Seller.
    pub pay_to: String,
    /// Score.
    pub score: u8,
    /// Description.
    pub description: Option<String>,
    /// In the basis's category.
    pub same_category: bool,
    /// Tags shared with the basis.
    pub shared_tags: Vec<String>,
    /// Why it is recommended.
    pub rationale: String,
}

/// The agent recommendations are for.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct RecommendBasisV1 {
    /// The address asked about.
    pub address: String,
    /// Its category.
    pub category: String,
    /// Its score, null when degraded.
    pub score: Option<u8>,
    /// Score band searched (inclusive).
    pub band: [u8; 2],
}

/// `GET /recommend?for=`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct RecommendV1 {
    /// `agentrep-recommend-v1`.
    pub version: String,
    /// The basis.
    pub basis: RecommendBasisV1,
    /// Results.
    pub count: u32,
    /// Same category and score band first, then shared tags, then score.
    pub results: Vec<RecommendationV1>,
}

/// A tag and how many indexed agents carry it.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct TagCountV1 {
    /// Tag.
    pub tag: String,
    /// Agents.
    pub count: u32,
}

/// `GET /tags`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct TagsV1 {
    /// `agentrep-tags-v1`.
    pub version: String,
    /// Tags returned.
    pub count: u32,
    /// The 100 most used tags, most used first.
    pub tags: Vec<TagCountV1>,
}

/// An agent carrying a tag.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct TaggedAgentV1 {
    /// Seller.
    pub pay_to: String,
    /// Description.
    pub description: Option<String>,
    /// Score.
    pub score: Option<u8>,
    /// Settled jobs.
    pub job_count: u64,
    /// Tags.
    pub tags: Vec<String>,
}

/// `GET /tags/{tag}`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct TagV1 {
    /// `agentrep-tag-v1`.
    pub version: String,
    /// The tag (lowercase).
    pub tag: String,
    /// Results.
    pub count: u32,
    /// Agents with the tag, score descending.
    pub results: Vec<TaggedAgentV1>,
}

/// One address of a batch lookup.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct BatchScoreV1 {
    /// Lowercase address.
    pub address: String,
    /// Seller score, null when not an indexed seller or degraded.
    pub agent_score: Option<u8>,
    /// Deployer score, null when not a scored deployer.
    pub deployer_score: Option<u8>,
    /// Identity proofs.
    pub proof_count: u32,
    /// Any trust evidence: a proof, ERC-8004 registration, or a measured score that a buyer may act on.
    pub has_any_trust: bool,
    /// Preflight decision of a seller, null otherwise.
    pub decision: Option<Decision>,
}

/// `POST /scores`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct BatchScoresV1 {
    /// `agentrep-scores-v1`.
    pub version: String,
    /// Results.
    pub count: u32,
    /// One per distinct address asked, in the order asked.
    pub results: Vec<BatchScoreV1>,
    /// Snapshot day.
    pub snapshot_date: String,
}

/// A match's price.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct MatchPriceV1 {
    /// Atomic units (6 decimals), as a string.
    pub amount_raw: String,
    /// USDC.
    pub amount_usdc: f64,
    /// Asset contract.
    pub asset: String,
}

/// One matched agent.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct MatchV1 {
    /// Seller.
    pub pay_to: String,
    /// Score.
    pub score: u8,
    /// 0..=1: the share of the intent's stems the listing covers, weighed by where they hit.
    pub match_score: f64,
    /// Description.
    pub description: Option<String>,
    /// The paid endpoint to call.
    pub service_url: String,
    /// Advertised price.
    pub price: Option<MatchPriceV1>,
    /// Settled jobs.
    pub job_count: u64,
    /// Success rate.
    pub success_rate: Option<f64>,
    /// Settlement totals.
    pub settlements: SettlementsV1,
    /// Probe SLA.
    pub sla: SlaV1,
    /// How to pay: the x402 flow against the service URL.
    pub call_example: String,
    /// The free preflight URL to check before paying (a string, as the original's clients read it).
    pub verify: String,
    /// The free score preview URL.
    pub score_url: String,
    /// Has an identity proof.
    pub verified: bool,
    /// ERC-8004 registered.
    pub erc8004_registered: bool,
    /// Preflight decision.
    pub decision: Decision,
    /// `proven` or `unproven` (proven sellers rank first for the same query).
    pub evidence_tier: EvidenceTier,
}

/// Filters a match applied.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct MatchFiltersV1 {
    /// Lowest score.
    pub min_score: u32,
    /// Highest price, USDC, null when unbounded.
    pub max_price: Option<f64>,
    /// Results asked for.
    pub limit: u32,
    /// Only ERC-8004 registered agents.
    pub only_registered: bool,
    /// Only agents with an identity proof.
    pub only_verified: bool,
}

/// `POST /match`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct MatchResponseV1 {
    /// `agentrep-match-v1`.
    pub version: String,
    /// The intent as given.
    pub intent: String,
    /// Its tokens (lowercase words, stop words dropped).
    pub tokens: Vec<String>,
    /// Their stems.
    pub stems: Vec<String>,
    /// Filters.
    pub filters: MatchFiltersV1,
    /// Matches returned.
    pub count: u32,
    /// Ranked by score × match strength.
    pub matches: Vec<MatchV1>,
    /// True when no match covers at least half of the intent's stems.
    pub no_strong_match: bool,
    /// What the result means.
    pub note: String,
}

/// `GET /random`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct RandomV1 {
    /// `agentrep-random-v1`.
    pub version: String,
    /// Ranked agents it was drawn from.
    pub pool: u32,
    /// The agent, null when none is ranked (on the asked network).
    pub agent: Option<LeaderboardEntryV1>,
}

/// An agent in a category listing.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct CategoryAgentV1 {
    /// Seller.
    pub pay_to: String,
    /// Score.
    pub score: Option<u8>,
    /// Rank in the category, null when not ranked.
    pub rank_in_category: Option<u32>,
    /// Preflight decision.
    pub decision: Decision,
    /// Description.
    pub description: Option<String>,
    /// Paid endpoint.
    pub resource_path: String,
    /// Advertised price.
    pub price: Option<PriceV1>,
    /// Tags.
    pub tags: Vec<String>,
    /// Trust shield.
    pub trust_shield: TrustShieldV1,
}
