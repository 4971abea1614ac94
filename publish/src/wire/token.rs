//! Per-token payloads: the buyer-trust verdict on a launched token's buyers (seed §3, §4.8).

use super::{BuyerBaseVerdict, FlagKey, ShieldColor};
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

/// One class's part of a token's buyers.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct BuyerClassPartV1 {
    /// `insider`, `flagged`, `trusted`, `agent` or `unknown`.
    pub class: String,
    /// Distinct buyers in the class.
    pub buyers: u32,
    /// Share of the tokens bought, percent.
    pub volume_pct: f64,
}

/// A buyer's own trust shield, when it is an indexed seller.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct BuyerShieldV1 {
    /// `green`, `yellow` or `red`.
    pub color: ShieldColor,
    /// Keys of its raised flags.
    pub flags: Vec<FlagKey>,
}

/// One buyer of a token.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct TokenBuyerV1 {
    /// Lowercase address.
    pub address: String,
    /// `insider`, `flagged`, `trusted`, `agent` or `unknown`.
    pub class: String,
    /// Why it is in its class.
    pub signals: Vec<String>,
    /// Buys up to the snapshot day.
    pub buys: u32,
    /// Tokens bought (whole tokens).
    pub tokens_bought: f64,
    /// Share of all tokens bought, percent.
    pub volume_pct: f64,
    /// First buy, ISO 8601.
    pub first_buy_at: String,
    /// Its agentrep score, when it is an indexed seller.
    pub score: Option<u8>,
    /// Its trust shield, when it is an indexed seller (null otherwise: nothing is scored).
    pub trust_shield: Option<BuyerShieldV1>,
    /// Its score route, when it is an indexed seller.
    pub profile_url: Option<String>,
}

/// `GET /token/{address}/buyer-trust`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct BuyerTrustV1 {
    /// `agentrep-buyer-trust-v1`.
    pub version: String,
    /// Token, lowercase.
    pub token_address: String,
    /// Its deployer, lowercase.
    pub deployer_address: String,
    /// The deployer's profile route.
    pub deployer_url: String,
    /// `STRONG_BUYER_BASE`, `BAD_BUYER_BASE`, `AGENT_BUYER_BASE` or `MIXED`.
    pub verdict: BuyerBaseVerdict,
    /// Why the verdict is what it is.
    pub reasons: Vec<String>,
    /// Distinct buyers.
    pub buyer_count: u32,
    /// Buys.
    pub buy_count: u64,
    /// Tokens bought (whole tokens).
    pub tokens_bought: f64,
    /// Each class's part, weightiest class first.
    pub composition: Vec<BuyerClassPartV1>,
    /// The largest buyers by tokens bought (at most 10; the counts above cover every buyer).
    pub buyers: Vec<TokenBuyerV1>,
    /// How buyers are classed and the verdict reached.
    pub method: String,
    /// Snapshot day.
    pub snapshot_date: String,
    /// Methodology version.
    pub methodology: String,
}
