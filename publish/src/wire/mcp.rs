//! Payloads only MCP tools answer with: the original service's `mainstreet_audit_info` (how to buy
//! an audit, no network call) and `mainstreet_vet` (its SDK's client-side checks, run here).

use super::Decision;
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

/// `mainstreet_audit_info`: where and how to buy the paid audit of an address.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct AuditInfoV1 {
    /// `agentrep-audit-info-v1`.
    pub version: String,
    /// The audited address, lowercase.
    pub address: String,
    /// The paid route (absolute when the origin is known).
    pub endpoint: String,
    /// Whether this deployment sells it (it takes payments).
    pub served: bool,
    /// Price, as the original service states it (`$0.25 USDC`).
    pub price: String,
    /// Price in USDC.
    pub price_usdc: f64,
    /// Chain name (`Base`).
    pub chain: String,
    /// CAIP-2 network (`eip155:8453`).
    pub network: String,
    /// USDC contract on Base.
    pub asset: String,
    /// Receiving address of the payment; null when the deployment takes no payments.
    pub pay_to: Option<String>,
    /// What the audit holds.
    pub purpose: String,
    /// How to call it with an x402 client.
    pub how_to_call: String,
    /// The catalog of free and paid routes.
    pub catalog: String,
}

/// `mainstreet_vet`: the checks the original SDK's `vet` runs before paying a seller.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct VetV1 {
    /// `agentrep-vet-v1`.
    pub version: String,
    /// The address vetted, lowercase.
    pub address: String,
    /// True when no check failed.
    pub passed: bool,
    /// Each failed check, in words (empty when `passed`).
    pub failures: Vec<String>,
    /// The score floor asked for.
    pub min_score: u32,
    /// Whether a live endpoint was required.
    pub require_alive: bool,
    /// Score, null when the address has none.
    pub score: Option<u8>,
    /// Preflight decision.
    pub decision: Decision,
    /// Endpoint health: `alive`, `dead`, `unprobed`, or null when not indexed.
    pub health: Option<super::ProbeState>,
    /// The paid endpoint, null when none is published.
    pub resource_path: Option<String>,
    /// Snapshot day the checks read.
    pub snapshot_date: String,
}
