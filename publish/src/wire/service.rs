//! Service payloads: errors, `/health`, `/status`, job runs and source status.

use super::snapshot::SnapshotCountsV1;
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

/// An error body: `{"error": {"code", "message"}}`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct ErrorBodyV1 {
    /// The error.
    pub error: ErrorV1,
}

/// Code and message of an error.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct ErrorV1 {
    /// Stable machine-readable code.
    pub code: String,
    /// Human-readable message.
    pub message: String,
}

/// One endpoint in `/health`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct EndpointV1 {
    /// Method.
    pub method: String,
    /// Full path.
    pub path: String,
    /// `none` or `x402`.
    pub auth: String,
    /// Price in USDC, null when free.
    pub price: Option<String>,
    /// What it answers.
    pub purpose: String,
}

/// `/health`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct HealthPayloadV1 {
    /// `agentrep-health-v1`.
    pub version: String,
    /// Service name.
    pub service: String,
    /// Server build version.
    pub server_version: String,
    /// `ok`, or `no-snapshot`.
    pub status: String,
    /// Current snapshot id.
    pub snapshot_id: Option<String>,
    /// Every endpoint.
    pub endpoints: Vec<EndpointV1>,
}

/// Payment state in `/status`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct PaymentsStatusV1 {
    /// Payments are accepted.
    pub x402_enabled: bool,
    /// Receiving address; null when none is configured (paid routes then answer 503).
    pub pay_to: Option<String>,
    /// Explanation.
    pub note: String,
    /// Every paid route, sold here or not and why.
    pub routes: Vec<PaidRouteStatusV1>,
}

/// One paid route's state in `/status`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct PaidRouteStatusV1 {
    /// `METHOD path`, with the query that selects a paid variant (`GET /score/{address}?live=1`).
    pub route: String,
    /// Price in USDC.
    pub price: f64,
    /// Whether it is sold on this deployment.
    pub available: bool,
    /// Why not, when it is not (null when it is).
    pub reason: Option<String>,
}

/// One job run: a line of `snapshots/runs.jsonl`, and an entry of `/status`'s `jobs`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct JobRunV1 {
    /// Job name (`rebuild`).
    pub job: String,
    /// Day processed.
    pub date: String,
    /// Snapshot produced.
    pub snapshot_id: String,
    /// Wall-clock start, ISO 8601 UTC.
    pub started_at: String,
    /// Duration, milliseconds.
    pub duration_ms: u64,
    /// `ok` or an error message.
    pub outcome: String,
    /// Per-pass durations, milliseconds.
    pub passes: Vec<(String, u64)>,
    /// What the publication wrote (absent when it failed, and in runs logged before 2026-11-25).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub written: Option<SnapshotWritesV1>,
}

/// What one publication wrote to disk.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct SnapshotWritesV1 {
    /// Files written (created or overwritten).
    pub files_written: u64,
    /// Bytes of those files.
    pub bytes_written: u64,
    /// Files of the retired snapshot that already held the same bytes and were not written.
    pub files_kept: u64,
}

/// One ingest source's state: an entry of `snapshots/sources.json` and of `/status`'s `sources`,
/// one per row of the sources table, in its run order.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct SourceStatusV1 {
    /// Source name (`settlements`, `marketplace`, …).
    pub source: String,
    /// Whether this deployment runs it.
    #[serde(default = "on")]
    pub on: bool,
    /// Why it is off (a need the deployment does not meet), when it is.
    #[serde(default)]
    pub off_reason: Option<String>,
    /// Seconds between two runs on the schedule.
    #[serde(default)]
    pub every_secs: u64,
    /// When the scheduler runs it next, ISO 8601 UTC (null when off).
    #[serde(default)]
    pub next_due_at: Option<String>,
    /// Up to when the source has read everything, ISO 8601 UTC.
    pub covered_until: Option<String>,
    /// Last block read (chain sources).
    pub last_block: Option<u64>,
    /// Seconds from `coveredUntil` to the last run.
    pub lag_seconds: Option<i64>,
    /// Last run, ISO 8601 UTC (null when it never ran).
    pub last_run_at: Option<String>,
    /// Last success, ISO 8601 UTC.
    pub last_success_at: Option<String>,
    /// The last run's error.
    pub last_error: Option<String>,
    /// What the source cannot do with this node or configuration.
    pub notes: Vec<String>,
    /// The paid probe's spending on its last run's day (absent for other sources).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub spend: Option<PaidProbeSpendV1>,
}

fn on() -> bool {
    true
}

/// What agentrep's paid calls spent on one day, and with what outcome (micro-USDC).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct PaidProbeSpendV1 {
    /// The day (UTC), `YYYY-MM-DD`.
    pub day: String,
    /// The day's budget, micro-USDC.
    pub budget: u64,
    /// The most one call may cost, micro-USDC.
    pub max_price: u64,
    /// Authorized that day (settled, or not yet known to have expired unused), micro-USDC.
    pub spent: u64,
    /// Paid calls made that day.
    pub calls: u32,
    /// Paid calls that were settled and delivered.
    pub delivered: u32,
    /// Paid calls that were settled and delivered nothing.
    pub undelivered: u32,
    /// Calls that failed without the money moving.
    pub unpaid_failures: u32,
    /// Authorizations whose outcome is not known yet (an interrupted run's, read on the next).
    pub pending: u32,
    /// Listed sellers whose cheapest resource costs more than `maxPrice`: never called, so their
    /// delivery stays unverified.
    pub over_cap_sellers: u32,
    /// Sellers due a call that the day's budget did not reach.
    pub waiting_sellers: u32,
}

/// `/status`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct StatusV1 {
    /// `agentrep-status-v1`.
    pub version: String,
    /// Current snapshot id.
    pub snapshot_id: String,
    /// Snapshot day.
    pub snapshot_date: String,
    /// Snapshot generation time.
    pub generated_at: String,
    /// When this server loaded it (server clock).
    pub loaded_at: String,
    /// Methodology version.
    pub methodology: String,
    /// Lake input digest.
    pub input_digest: String,
    /// Counts.
    pub counts: SnapshotCountsV1,
    /// Snapshots retained on disk.
    pub retained_snapshots: Vec<String>,
    /// Payment state.
    pub payments: PaymentsStatusV1,
    /// Who runs this deployment.
    pub operator: OperatorV1,
    /// The project's token, null fields when it has none.
    pub token: TokenV1,
    /// Recent job runs, newest last.
    pub jobs: Vec<JobRunV1>,
    /// The ingest sources' checkpoints, lag and last errors (empty when the lake is not
    /// ingested, e.g. the demo world).
    pub sources: Vec<SourceStatusV1>,
    /// While earlier days are still being rebuilt behind the served snapshot (the demo serves its
    /// first day at once and publishes the others as they are rebuilt): how far it has come.
    /// Null when the history is complete.
    #[serde(default)]
    pub history_filling: Option<HistoryFillingV1>,
}

/// A history still being filled: the snapshots published so far and the day they fill to.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct HistoryFillingV1 {
    /// The newest day published (the served snapshot's), `YYYY-MM-DD`.
    pub published_through: String,
    /// The last day the rebuild fills to, `YYYY-MM-DD`.
    pub fills_to: String,
    /// Days still to rebuild and publish.
    pub days_left: u32,
}

/// What a rebuild that publishes while it is served leaves beside the snapshots
/// (`backfill.json`): the day it fills to. Removed when it is done.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct BackfillV1 {
    /// The last day the rebuild fills to, `YYYY-MM-DD`.
    pub fills_to: String,
}

impl BackfillV1 {
    /// How far the history has come when `snapshot_date` is served; `None` once it reached
    /// `fills_to` (or either day does not parse).
    pub fn filling(&self, snapshot_date: &str) -> Option<HistoryFillingV1> {
        let day = |s: &str| chrono::NaiveDate::parse_from_str(s, "%Y-%m-%d").ok();
        let (served, to) = (day(snapshot_date)?, day(&self.fills_to)?);
        let left = (to - served).num_days();
        (left > 0).then(|| HistoryFillingV1 {
            published_through: snapshot_date.to_owned(),
            fills_to: self.fills_to.clone(),
            days_left: u32::try_from(left).unwrap_or(u32::MAX),
        })
    }
}

/// Who runs a deployment.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct OperatorV1 {
    /// Operator wallet (the receiving address of paid calls); null when none is configured.
    pub address: Option<String>,
    /// The operator's name, as configured.
    pub name: Option<String>,
    /// Contact URL or address, as configured.
    pub contact: Option<String>,
    /// The address of the key that signs attestations, x402 offers and receipts; null when
    /// nothing is signed.
    pub signing_address: Option<String>,
    /// The signing key was generated for a demo: its signatures prove nothing about who runs this.
    pub signing_key_is_demo: bool,
    /// The operator that signs: the signing address when the key is the operator's own
    /// (`AGENTREP_SIGNING_KEY`); null when nothing is signed or the key is a demo's.
    pub signed_by: Option<String>,
}

/// The project's token.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct TokenV1 {
    /// Token contract, null when the deployment has none.
    pub address: Option<String>,
    /// Source verification, as configured (free text), null when unknown.
    pub verified: Option<String>,
    /// What the fields mean here.
    pub note: String,
}

/// One route of the catalog.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct CatalogFreeV1 {
    /// `METHOD path`.
    pub route: String,
    /// What it answers.
    pub purpose: String,
}

/// One paid route of the catalog.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct CatalogPaidV1 {
    /// `METHOD path`.
    pub route: String,
    /// Price, USDC.
    pub price: f64,
    /// What is bought.
    pub purpose: String,
}

/// The service's own identity in the catalog (seed §2.7).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct CatalogAgentV1 {
    /// Name.
    pub name: String,
    /// Description.
    pub description: String,
    /// Public domain, null when not configured.
    pub domain: Option<String>,
    /// Basename, null when not configured.
    pub basename: Option<String>,
    /// Receiving address; null when the deployment takes no payments.
    pub pay_to: Option<String>,
    /// Chain (CAIP-2).
    pub chain: String,
    /// Payment asset (USDC on Base).
    pub asset: String,
    /// ERC-8004 agent id, null when not registered.
    pub erc8004_agent_id: Option<u64>,
}

/// How the service is reached.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct CatalogTransportV1 {
    /// The 402 flow.
    pub x402: String,
    /// The MCP tool server.
    pub mcp: String,
    /// OpenAPI description URL.
    pub openapi: String,
}

/// `GET /catalog` (seed §2.7).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct CatalogV1 {
    /// `agentrep-catalog-v1`.
    pub version: String,
    /// The service.
    pub agent: CatalogAgentV1,
    /// Free routes.
    pub free: Vec<CatalogFreeV1>,
    /// Attestation tiers.
    pub tier_explanation: std::collections::BTreeMap<String, String>,
    /// Paid routes.
    pub paid: Vec<CatalogPaidV1>,
    /// Transports.
    pub transport: CatalogTransportV1,
    /// Revenue and unique-buyer views.
    pub proof: std::collections::BTreeMap<String, String>,
    /// How the data may be used.
    pub license_use_hint: String,
}

/// `GET /discover`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct DiscoverV1 {
    /// `agentrep-discover-v1`.
    pub version: String,
    /// Specifications the service speaks, by name, with their URLs.
    pub spec: std::collections::BTreeMap<String, String>,
    /// What it can do.
    pub capabilities: Vec<String>,
    /// What is indexed, with counts from the current snapshot.
    pub indexed: std::collections::BTreeMap<String, u32>,
    /// Marketplaces the listings come from.
    pub ecosystems: Vec<String>,
    /// How to get an agent indexed.
    pub submit: String,
    /// Contact, as configured.
    pub contact: Option<String>,
}

/// ERC-8004 registries a deployment reads.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct Erc8004RegistriesV1 {
    /// IdentityRegistry.
    pub identity_registry: String,
    /// ReputationRegistry.
    pub reputation_registry: String,
    /// Chain (CAIP-2).
    pub chain: String,
}

/// Counts `/me` shows.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct MeMetricsV1 {
    /// Marketplace sellers indexed.
    pub bazaar_indexed: u32,
    /// Sellers scored in the current snapshot.
    pub scored_today: u32,
    /// Deployers scored.
    pub deployers_scored: u32,
    /// Badges claimed with a signature; null until this deployment runs the write store.
    pub badges_claimed: Option<u32>,
}

/// `GET /me`: the project's proof of who runs it and where it answers.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct MeV1 {
    /// `agentrep-me-v1`.
    pub version: String,
    /// Project name.
    pub project: String,
    /// One line on what it does.
    pub pitch: String,
    /// Operator.
    pub operator: OperatorV1,
    /// Token.
    pub token: TokenV1,
    /// Registries.
    pub erc8004: Erc8004RegistriesV1,
    /// Counts.
    pub metrics: MeMetricsV1,
    /// Where it answers: API, MCP, OpenAPI, pages.
    pub surfaces: std::collections::BTreeMap<String, String>,
    /// Methodology version.
    pub methodology: String,
}

/// shields.io endpoint badge (`https://shields.io/badges/endpoint-badge`).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct ShieldsEndpointV1 {
    /// Always 1.
    pub schema_version: u8,
    /// Left text.
    pub label: String,
    /// Right text.
    pub message: String,
    /// Right colour.
    pub color: String,
    /// Seconds shields.io may cache it.
    pub cache_seconds: u32,
}
