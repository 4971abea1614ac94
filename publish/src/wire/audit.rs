//! The paid audit of one wallet (`GET /audit/{agentAddress}`, 0.25 USDC): every published
//! document of the wallet in one answer, unlocked.

use super::{Decision, DeployerVerdict, LaunchOutcome};
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

use super::{DeployerV1, HistoryV1, PreflightV1, ScorePayloadV1, ShieldPayloadV1};

/// `GET /audit/{agentAddress}`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct AuditV1 {
    /// `agentrep-audit-v1`.
    pub version: String,
    /// The audited wallet.
    pub agent_address: String,
    /// When the audit was produced (server clock, ISO 8601 UTC).
    pub audited_at: String,
    /// The snapshot every section is read from.
    pub snapshot: String,
    /// Methodology version.
    pub methodology: String,
    /// `paid`.
    pub billed: String,
    /// The score, unlocked (`gated: false`): metrics, proofs, SLA, ERC-8004, breakdown.
    pub score: ScorePayloadV1,
    /// The preflight decision and its signals.
    pub preflight: PreflightV1,
    /// The trust shield and its flags.
    pub trust_shield: ShieldPayloadV1,
    /// The published score history (up to 90 days).
    pub history: HistoryV1,
    /// The wallet's token launches, when it deployed any.
    pub deployer: Option<DeployerV1>,
    /// Sections this deployment cannot fill yet, each with why.
    pub unavailable: Vec<String>,
}

/// `GET /risk-report/{address}` (0.50 USDC).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct RiskReportV1 {
    /// `agentrep-risk-report-v1`.
    pub version: String,
    /// The wallet.
    pub address: String,
    /// `AVOID`, `CAUTION` or `OK`.
    pub verdict: DeployerVerdict,
    /// What the verdict rests on, in words.
    pub reasons: Vec<String>,
    /// The seller's score (null when the wallet is only a deployer, or unmeasured).
    pub score: Option<u8>,
    /// The seller's preflight decision, when it sells.
    pub decision: Option<Decision>,
    /// The trust shield's flags (seller) and the deployer's reasons, as heuristic flags.
    pub flags: Vec<super::FlagV1>,
    /// The deployer's verdict, when it launched tokens.
    pub deployer_verdict: Option<DeployerVerdict>,
    /// The signed attestation of the score (or its refusal, `signed: false`).
    pub attestation: super::AttestationV1,
    /// The snapshot.
    pub snapshot: String,
    /// `paid`.
    pub billed: String,
}

/// `POST /audit-batch` body.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct AuditBatchRequestV1 {
    /// 1 to 10 wallets.
    #[schemars(length(min = 1, max = 10), inner(pattern(r"^0x[a-fA-F0-9]{40}$")))]
    pub addresses: Vec<String>,
}

/// `POST /audit-batch` (1.00 USDC).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct AuditBatchV1 {
    /// `agentrep-audit-batch-v1`.
    pub version: String,
    /// Audits of the indexed wallets, in the order asked.
    pub audits: Vec<AuditV1>,
    /// Wallets asked for that the snapshot does not score (not audited; the price is the same).
    pub not_indexed: Vec<String>,
    /// `paid`.
    pub billed: String,
}

/// `GET /clawd/creator-audit/{address}` (0.50 USDC).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct CreatorAuditV1 {
    /// `agentrep-creator-audit-v1`.
    pub version: String,
    /// The creator.
    pub address: String,
    /// Tokens launched.
    pub tokens_launched: u32,
    /// Up to 10 of its tokens, newest first (addresses: token names are not indexed).
    pub sample_tokens: Vec<String>,
    /// The trader tier of a `clawd-trader-{tier}` proof; null: no trader tiers are indexed.
    pub trader_tier: Option<String>,
    /// Every identity proof of the address.
    pub proofs: Vec<String>,
    /// The full deployer profile.
    pub deployer: DeployerV1,
    /// `paid`.
    pub billed: String,
}

/// One token of `/clawd/export`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct ExportTokenV1 {
    /// The token.
    pub token: String,
    /// Its creator.
    pub creator: String,
    /// The platform.
    pub platform: String,
    /// `graduated`, `rugged`, `abandoned`, `alive` or `inconclusive`.
    pub outcome: LaunchOutcome,
    /// Days since launch.
    pub age_days: u32,
    /// The creator's deployer score.
    pub creator_score: Option<u8>,
    /// The creator's verdict.
    pub creator_verdict: DeployerVerdict,
}

/// `GET /clawd/export` (0.50 USDC).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct ClawdExportV1 {
    /// `agentrep-clawd-export-v1`.
    pub version: String,
    /// The platform exported.
    pub platform: String,
    /// Tokens.
    pub count: u32,
    /// Every indexed token of the platform, by creator then token.
    pub tokens: Vec<ExportTokenV1>,
    /// The snapshot.
    pub snapshot: String,
    /// `paid`.
    pub billed: String,
}

/// `GET /proofs/export` (1.00 USDC).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct ProofsExportV1 {
    /// `agentrep-proofs-export-v1`.
    pub version: String,
    /// The type asked, null for every type.
    #[serde(rename = "type")]
    pub kind: Option<String>,
    /// Proofs.
    pub count: u32,
    /// Every verified proof, without a page cap.
    pub proofs: Vec<super::ProofRowV1>,
    /// The snapshot.
    pub snapshot: String,
    /// `paid`.
    pub billed: String,
}

/// Revenue of one paid route.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct RouteRevenueV1 {
    /// The route.
    pub route: String,
    /// Settled payments.
    pub payments: u64,
    /// USDC settled.
    pub usdc: f64,
}

/// `GET /revenue`: the service's own revenue, from its payment ledger.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct RevenueV1 {
    /// `agentrep-revenue-v1`.
    pub version: String,
    /// Whether this deployment takes payments.
    pub payments_enabled: bool,
    /// The receiving address.
    pub pay_to: Option<String>,
    /// The network (CAIP-2).
    pub network: Option<String>,
    /// Settled payments.
    pub settled_payments: u64,
    /// USDC settled.
    pub settled_usdc: f64,
    /// Distinct payers with a settled payment.
    pub unique_buyers: u64,
    /// Payments whose settlement was refused (nothing charged).
    pub failed_payments: u64,
    /// Payments whose settlement is being reconciled.
    pub pending_payments: u64,
    /// Per route, largest first.
    pub routes: Vec<RouteRevenueV1>,
    /// How to check it: every settlement is a USDC transfer to `payTo` on `network`.
    pub note: String,
}

/// `GET /revenue/buyers`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct RevenueBuyersV1 {
    /// `agentrep-revenue-buyers-v1`.
    pub version: String,
    /// Distinct payers with a settled payment.
    pub unique_buyers: u64,
    /// Settled payments.
    pub settled_payments: u64,
    /// Settled payments per buyer.
    pub payments_per_buyer: Option<f64>,
    /// Distinct payers in the last 30 days.
    pub buyers_30d: u64,
}
