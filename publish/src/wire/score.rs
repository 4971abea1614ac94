//! The score payload (seed §2.4), its breakdown, and the preliminary signals of an unknown address.

use super::agent::{CategoryV1, MetricsV1, OutcomeHistoryV1, PriceV1, SettlementsV1, SlaV1, TrustShieldV1};
use super::{Decision, EvidenceTier, FlagKey, ScoreBasis, Tier, Verdict};
use agentrep_model::sources::SourceNote;
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

/// Score payload metrics (seed §2.4 plus the leaderboard's).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct ScoreMetricsV1 {
    /// The leaderboard's metrics.
    #[serde(flatten)]
    pub metrics: MetricsV1,
    /// Launch outcomes when the wallet also deploys tokens.
    pub outcome_history: OutcomeHistoryV1,
}

/// EAS attestations (seed §2.4).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct EasV1 {
    /// Attestations found.
    pub count: u32,
    /// Not revoked or expired.
    pub active: u32,
}

/// Health (seed §2.4).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct HealthV1 {
    /// Last probe alive.
    pub alive: bool,
    /// Probes in the window.
    pub samples: u32,
    /// HTTP status of the last probe, null when it got no answer or there was none (the
    /// original's `number|null`).
    pub status: Option<u32>,
    /// `alive`, `dead` (the last probe failed) or `unprobed`.
    pub state: ProbeState,
    /// ISO 8601 time of the last probe, null when never probed.
    pub probed_at: Option<String>,
}

/// Verification hints (seed §2.4).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct VerifyV1 {
    /// Attestation URL.
    pub attestation_url: String,
    /// Verifier contract, null until one is deployed.
    pub verifier_contract: Option<String>,
    /// Network.
    pub network: String,
    /// How to verify.
    pub hint: String,
}

/// A related paid route.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct RelatedPaidV1 {
    /// URL.
    pub url: String,
    /// Price, USDC.
    pub price: String,
    /// Purpose.
    pub purpose: String,
}

/// Related attestation route.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct RelatedAttestationV1 {
    /// URL.
    pub url: String,
    /// Signature type.
    #[serde(rename = "type")]
    pub kind: String,
    /// Purpose.
    pub purpose: String,
}

/// Related routes (seed §2.4).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct RelatedV1 {
    /// Paid audit.
    pub audit: RelatedPaidV1,
    /// Catalog.
    pub catalog: String,
    /// Agents of interest.
    pub agents_of_interest: String,
    /// Revenue.
    pub revenue: String,
    /// Attestation.
    pub attestation: RelatedAttestationV1,
}

/// Score payload, the free preview of one agent (seed §2.4).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct ScorePayloadV1 {
    /// `agentrep-score-v1`.
    pub version: String,
    /// Lowercase address.
    pub agent_address: String,
    /// Score 0..=100, null when not measured.
    pub score: Option<u8>,
    /// `measured`, `not-indexed` or `degraded`.
    #[serde(rename = "score_basis")]
    pub score_basis: ScoreBasis,
    /// Day of the row the score came from.
    #[serde(rename = "scored_at")]
    pub scored_at: Option<String>,
    /// Trust shield.
    pub trust_shield: TrustShieldV1,
    /// `SAFE`, `CAUTION` or `BLOCK`.
    pub verdict: Verdict,
    /// Preflight decision.
    pub decision: Decision,
    /// Present when evidence newer than the snapshot lowered this answer (the overlay).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub overlay: Option<super::preflight::OverlayNoteV1>,
    /// Attestation tier.
    pub tier: Tier,
    /// `proven` when evidence that costs more to fake than it earns stands behind the seller (a
    /// ranked domain it controls, trusted paying entities, a Coinbase verification, a curated
    /// allowlist), else `unproven`: its evidence is counted, not proven, which alone is never a
    /// warning. Rankings put proven sellers first.
    pub evidence_tier: EvidenceTier,
    /// What proves it, in words (empty when unproven).
    pub proven_by: Vec<String>,
    /// Metrics.
    pub metrics: ScoreMetricsV1,
    /// EAS attestations.
    pub eas: EasV1,
    /// Category.
    pub category: CategoryV1,
    /// Description.
    pub description: String,
    /// `YYYY-MM-DD`.
    pub snapshot_date: String,
    /// Health.
    pub health: HealthV1,
    /// Snapshot the score came from.
    pub source: String,
    /// `free`.
    pub billed: String,
    /// Only the preview is returned.
    pub gated: bool,
    /// EOA/contract class, null when not checked.
    pub address_class: Option<String>,
    /// Paid endpoint.
    pub resource_path: String,
    /// Advertised price.
    pub price: Option<PriceV1>,
    /// Evidence sources.
    #[schemars(with = "Vec<String>")]
    pub sources: Vec<SourceNote>,
    /// What the gate hides and how to lift it.
    pub note: String,
    /// Verification hints.
    pub verify: VerifyV1,
    /// Related routes.
    pub related: RelatedV1,
    /// 0..=1: how much evidence stands behind the score.
    pub confidence: f64,
    /// Signals with no evidence, and stale sources.
    pub missing_signals: Vec<String>,
    /// How the score was computed, by the code that computed it.
    pub score_breakdown: ScoreBreakdownV1,
    /// Methodology version.
    pub methodology: String,
    /// What a paid live re-score read and where each part came from (absent from snapshots).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub live: Option<LiveRescoreV1>,
}

/// What a live re-score read, and the basis of each part of its score.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct LiveRescoreV1 {
    /// When the evidence was read (ISO 8601 UTC): the features are those of this moment's day.
    pub as_of: String,
    /// The snapshot day the evidence was folded into.
    pub snapshot_date: String,
    /// Days between the snapshot's day and `asOf`'s.
    pub days_after_snapshot: u32,
    /// Blocks read for settlements to the seller (inclusive).
    pub blocks: LiveBlocksV1,
    /// Settlements read.
    pub settlements: LiveSettlementsV1,
    /// Probes taken now.
    pub probes: LiveProbesV1,
    /// Where each part of the score came from.
    pub basis: Vec<LivePartV1>,
    /// How long a paid re-score unlocks the full profile, and how to prove it.
    pub unlock: String,
}

/// A block range.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct LiveBlocksV1 {
    /// First block.
    pub from: u64,
    /// Last block (the node's safe head).
    pub to: u64,
}

/// The settlements a live re-score read.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct LiveSettlementsV1 {
    /// USDC transfers to the seller newer than the snapshot.
    pub read: u32,
    /// Qualifying settlements counted (payers the snapshot knows).
    pub counted: u32,
    /// Qualifying settlements from payers the snapshot does not know: not counted until the next
    /// rebuild places them in the trust graph.
    pub from_new_payers: u32,
    /// Transfers that are not demand (not facilitator-settled in an x402 form, or below every price).
    pub not_qualifying: u32,
}

/// The probes a live re-score took.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct LiveProbesV1 {
    /// Probes of the seller's current endpoints.
    pub taken: u32,
    /// Alive among them.
    pub alive: u32,
}

/// The basis of one part of a live re-score.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct LivePartV1 {
    /// Part (a score component, `flags`, or `trust`).
    pub part: String,
    /// `live`, `snapshot`, or `snapshot+live`.
    pub basis: String,
    /// What that means for the part.
    pub detail: String,
}

/// One component of a seller's score.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct BreakdownComponentV1 {
    /// `demand`, `reputation`, `reliability`, `recency` or `longevity`.
    pub name: String,
    /// Points, null when there is no evidence for the component.
    pub points: Option<f64>,
    /// Maximum points of the evidence present.
    pub max: f64,
    /// 0..=1: how much evidence stands behind the points.
    pub confidence: f64,
    /// Evidence counts behind the points (null: not measured).
    pub evidence: std::collections::BTreeMap<String, Option<f64>>,
}

/// Points a raised flag takes off.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct BreakdownPenaltyV1 {
    /// Flag key.
    pub key: FlagKey,
    /// Points taken off.
    pub points: f64,
}

/// How a seller's score was computed.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct ScoreBreakdownV1 {
    /// The formula in words.
    pub formula: String,
    /// The components, each with its points (null when missing) and evidence.
    pub components: Vec<BreakdownComponentV1>,
    /// Sum of the maxima of the components with evidence.
    pub available_max: f64,
    /// Penalties of raised flags.
    pub penalties: Vec<BreakdownPenaltyV1>,
    /// The resulting score (null when degraded).
    pub score: Option<u8>,
    /// 0..=1 confidence.
    pub confidence: f64,
    /// Signals with no evidence, and stale sources.
    pub missing_signals: Vec<String>,
}

/// One term of a deployer's score.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct BreakdownTermV1 {
    /// Term name.
    pub name: String,
    /// Points it adds (negative for rugs).
    pub points: f64,
}

/// Database cross-references of an address that is not a scored seller.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct CrossReferencesV1 {
    /// Settlements it paid to indexed sellers.
    pub payments_made: u64,
    /// Distinct indexed sellers it paid.
    pub sellers_paid: u32,
    /// Addresses it funded first.
    pub addresses_funded: u32,
    /// On the denylist.
    pub denylisted: bool,
    /// It deploys tokens (see `/deployer/{address}`).
    pub deployer: bool,
}

/// Preliminary signals of an address with no score (seed §2.4, last paragraph).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct PreliminaryV1 {
    /// EOA / contract / 7702 class, null until a chain RPC is configured.
    pub address_class: Option<String>,
    /// ERC-1167 implementation behind a minimal proxy, null when not checked.
    pub proxy_implementation: Option<String>,
    /// Why class and proxy are null.
    pub code_check: String,
    /// What agentrep's datasets know of the address.
    pub cross_references: CrossReferencesV1,
    /// What the caller can do next.
    pub next_actions: Vec<String>,
}

/// Score read of an address that is not indexed: never a null body.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct UnindexedScoreV1 {
    /// `agentrep-score-v1`.
    pub version: String,
    /// Lowercase address.
    pub agent_address: String,
    /// Always null: not a low score.
    pub score: Option<u8>,
    /// `not-indexed`.
    #[serde(rename = "score_basis")]
    pub score_basis: ScoreBasis,
    /// `BLOCK` when denylisted, else `CAUTION` (unknown).
    pub decision: Decision,
    /// Preliminary signals.
    pub preliminary: PreliminaryV1,
    /// Every metric null: nothing is measured (the fields the original's clients read).
    pub metrics: UnmeasuredMetricsV1,
    /// Null: no listing.
    pub description: Option<String>,
    /// Null: no listed endpoint.
    pub resource_path: Option<String>,
    /// Null: no advertised price.
    pub price: Option<PriceV1>,
    /// Null: never probed.
    pub health: Option<HealthV1>,
    /// Snapshot day.
    pub snapshot_date: String,
    /// Snapshot id.
    pub source: String,
    /// `free`.
    pub billed: String,
    /// Methodology version.
    pub methodology: String,
}

/// The metrics of an unmeasured wallet: present, every value null.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct UnmeasuredMetricsV1 {
    /// Null.
    pub success_rate: Option<f64>,
    /// Null.
    pub job_count: Option<u64>,
    /// Null.
    pub usdc_volume: Option<f64>,
    /// Null.
    pub days_since_last_job: Option<u32>,
    /// Null.
    pub settlements: Option<SettlementsV1>,
    /// Null.
    pub sla: Option<SlaV1>,
}

/// What the last probe of a seller's endpoint found.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "lowercase")]
pub enum ProbeState {
    /// It answered.
    Alive,
    /// It failed.
    Dead,
    /// The endpoint was never probed.
    Unprobed,
}

impl ProbeState {
    /// The state of a last probe that answered (`Some(true)`), failed, or never ran.
    pub fn of(last_ok: Option<bool>) -> Self {
        match last_ok {
            Some(true) => ProbeState::Alive,
            Some(false) => ProbeState::Dead,
            None => ProbeState::Unprobed,
        }
    }
}
