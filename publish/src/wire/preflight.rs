//! Preflight decisions and trust-shield payloads.

use super::agent::TrustShieldV1;
use super::index::ListingRowV1;
use super::score::ScoreBreakdownV1;
use super::{Decision, EvidenceTier, FlagKey, ScoreBasis, ShieldColor, Verdict};
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

/// Preflight decision payload.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct PreflightV1 {
    /// `agentrep-preflight-v1`.
    pub version: String,
    /// Lowercase address.
    pub address: String,
    /// `BLOCK`, `CAUTION`, `PROCEED` or `PROCEED_LOW_VALUE`.
    pub decision: Decision,
    /// `proven` when evidence that costs more to fake than it earns stands behind the seller (a
    /// ranked domain it controls, trusted paying entities, a Coinbase verification, a curated
    /// allowlist), else `unproven`: its evidence is counted, not proven, which alone is never a
    /// warning. Rankings put proven sellers first.
    pub evidence_tier: EvidenceTier,
    /// What proves it, in words (empty when unproven).
    pub proven_by: Vec<String>,
    /// Score, null when not measured.
    pub score: Option<u8>,
    /// `measured`, `not-indexed` or `degraded`.
    #[serde(rename = "score_basis")]
    pub score_basis: ScoreBasis,
    /// `SAFE`, `CAUTION` or `BLOCK`.
    pub verdict: Verdict,
    /// Shield.
    pub trust_shield: TrustShieldV1,
    /// Present when evidence newer than the snapshot lowered this answer (the overlay).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub overlay: Option<OverlayNoteV1>,
    /// The shield's flag keys, weightiest first (the original's `flags` list).
    pub flags: Vec<FlagKey>,
    /// Category.
    pub category: PreflightCategoryV1,
    /// Human-readable signals.
    pub signals: Vec<String>,
    /// `YYYY-MM-DD`.
    pub snapshot_date: String,
    /// 0..=1: how much evidence stands behind the score.
    pub confidence: f64,
    /// Signals with no evidence, and stale sources.
    pub missing_signals: Vec<String>,
    /// How the score was computed, by the code that computed it.
    pub score_breakdown: ScoreBreakdownV1,
    /// Methodology version.
    pub methodology: String,
}

/// Category in a preflight.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct PreflightCategoryV1 {
    /// Primary category.
    pub primary: String,
    /// Tags.
    pub tags: Vec<String>,
}

/// Trust-shield-only payload.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct ShieldPayloadV1 {
    /// `agentrep-trust-shield-v1`.
    pub version: String,
    /// Lowercase address.
    pub address: String,
    /// Shield.
    #[serde(flatten)]
    pub shield: TrustShieldV1,
    /// Present when evidence newer than the snapshot lowered this answer (the overlay).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub overlay: Option<OverlayNoteV1>,
    /// `YYYY-MM-DD`.
    pub snapshot_date: String,
    /// Methodology version.
    pub methodology: String,
}

/// Preflight of an address that is not indexed.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct UnindexedPreflightV1 {
    /// `agentrep-preflight-v1`.
    pub version: String,
    /// Lowercase address.
    pub address: String,
    /// `BLOCK` when denylisted, else `CAUTION`.
    pub decision: Decision,
    /// Always null.
    pub score: Option<u8>,
    /// `not-indexed`.
    #[serde(rename = "score_basis")]
    pub score_basis: ScoreBasis,
    /// `red` when denylisted, else `yellow`.
    pub color: ShieldColor,
    /// `["denylisted"]` when denylisted, else empty.
    pub flags: Vec<FlagKey>,
    /// Human-readable signals.
    pub signals: Vec<String>,
    /// Snapshot day.
    pub snapshot_date: String,
    /// Methodology version.
    pub methodology: String,
}

/// `POST /preflight`: a resource URL and, when the buyer has it, the 402 it answered.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct UrlPreflightRequestV1 {
    /// The resource URL the buyer is about to pay (http or https).
    #[schemars(
        length(max = 4096),
        regex(
            pattern = r"^https?://([A-Za-z0-9]+(-[A-Za-z0-9]+)*\.)*[A-Za-z][A-Za-z0-9]*(-[A-Za-z0-9]+)*(:[0-9]{1,4})?([/?][^\s]*)?$"
        )
    )]
    pub url: String,
    /// The 402 as the buyer received it: the v2 `PaymentRequired` object (the `PAYMENT-REQUIRED`
    /// header decoded) or the v1 JSON body (`x402Version`, `accepts`).
    #[serde(default)]
    pub payment_required: Option<serde_json::Value>,
    /// The v2 `PAYMENT-REQUIRED` header as received (base64), instead of `paymentRequired`.
    #[serde(default)]
    pub payment_required_header: Option<String>,
}

/// How much a warning weighs for the buyer.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "lowercase")]
pub enum WarningSeverity {
    /// Context; changes nothing.
    Info,
    /// Lowers the decision to `CAUTION` at most.
    Caution,
    /// Lowers the decision to `BLOCK`.
    Block,
}

/// What a URL preflight warns about.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum WarningCode {
    /// The 402 asks to be paid, on a network the URL's listings name, to a wallet none of them
    /// names there.
    Decoy,
    /// The 402 asks for more than the listing's price on the same network and asset.
    PriceTrap,
    /// The 402 names a network no listing of the URL names (who should be paid there is unknown).
    NetworkNotListed,
    /// The 402 names an asset no listing of the URL names on that network.
    AssetNotListed,
    /// No marketplace lists the URL.
    Unlisted,
    /// The URL is listed with several payTos.
    ListingConflict,
    /// The 402 carried no well-formed offer.
    NoOffer,
    /// Evidence newer than the snapshot lowered the seller's decision (the overlay).
    Overlay,
    /// The 402 names another resource URL than the one asked about (the URL asked is judged).
    ResourceMismatch,
    /// An offer of a scheme or on a network the x402 EVM clients cannot pay (`exact` and `upto`
    /// on an `eip155` network are the ones they pay): judged by nobody, and lending its payee's
    /// standing to no other offer.
    UnreadableOffer,
}

/// One warning of a URL preflight.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct PreflightWarningV1 {
    /// Which warning.
    pub code: WarningCode,
    /// How much it weighs.
    pub severity: WarningSeverity,
    /// The offer (index in the 402's `accepts`) it is about, null when about the URL.
    pub offer: Option<u32>,
    /// In words.
    pub message: String,
}

/// The wallet a URL preflight judges: the one the 402 asks to be paid, else the listed seller.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct PayeeV1 {
    /// Lowercase address.
    pub address: String,
    /// Whether agentrep indexes it as a seller.
    pub indexed: bool,
    /// Its preflight decision (with the overlay applied).
    pub decision: Decision,
    /// Score, null when not measured.
    pub score: Option<u8>,
    /// `measured`, `not-indexed` or `degraded`.
    pub score_basis: ScoreBasis,
    /// `SAFE`, `CAUTION` or `BLOCK`; null when not indexed.
    pub verdict: Option<Verdict>,
    /// Shield colour.
    pub color: ShieldColor,
    /// The shield's flag keys (and the overlay's).
    pub flags: Vec<FlagKey>,
    /// Its score page.
    pub profile: String,
}

/// One accepted way to pay of the 402, checked against the URL's listings.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct OfferCheckV1 {
    /// Index in the 402's `accepts`.
    pub index: u32,
    /// Scheme.
    pub scheme: String,
    /// Network as offered.
    pub network: String,
    /// Asset as offered.
    pub asset: String,
    /// payTo as offered.
    pub pay_to: String,
    /// Amount asked, atomic units (decimal string).
    pub amount: String,
    /// The listed price for this payTo, network and asset; null when no listing names them.
    pub listed_price: Option<String>,
    /// True when a listing names its payTo, network and asset at no lower price.
    pub acceptable: bool,
    /// True when a client can pay it: the `exact` or `upto` scheme on an `eip155` network. Only
    /// payable offers are judged, and the answer's decision is the lowest of theirs.
    pub payable: bool,
    /// This offer's own decision: its payee's, lowered by the warnings about it (null for an
    /// offer nobody can pay).
    pub decision: Option<Decision>,
}

/// `GET /preflight?url=` and `POST /preflight`: whether to pay a resource URL.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct UrlPreflightV1 {
    /// `agentrep-url-preflight-v1`.
    pub version: String,
    /// The URL as asked.
    pub url: String,
    /// Whether a current listing names the URL.
    pub listed: bool,
    /// `BLOCK`, `CAUTION`, `PROCEED` or `PROCEED_LOW_VALUE`: the payee's decision, lowered by the
    /// warnings.
    pub decision: Decision,
    /// The wallet that would be paid (lowercase): the 402's, else the listed seller's.
    pub pay_to: Option<String>,
    /// That wallet as agentrep knows it.
    pub seller: Option<PayeeV1>,
    /// The URL's current listings.
    pub listings: Vec<ListingRowV1>,
    /// The 402's offers, each checked.
    pub offers: Vec<OfferCheckV1>,
    /// What is wrong, worst first.
    pub warnings: Vec<PreflightWarningV1>,
    /// The most the listings allow for one call, atomic units (null when unlisted).
    pub max_amount: Option<String>,
    /// For an unlisted URL: other listings of its host, with their sellers (up to 20).
    pub host_listings: Vec<ListingRowV1>,
    /// Snapshot day.
    pub snapshot_date: String,
    /// Methodology version.
    pub methodology: String,
}

/// What the overlay changed of a seller's published answer: evidence newer than the snapshot
/// that only the operator creates (its probes, its paid calls, its denylist), which can only
/// lower a decision (`SCORING.md` § 7).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct OverlayNoteV1 {
    /// ISO 8601 time of the newest evidence folded in.
    pub as_of: String,
    /// The decision the snapshot published.
    pub published_decision: Decision,
    /// What changed, in words.
    pub reason: String,
}

/// One seller in an overlay file.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct OverlaySellerV1 {
    /// The lowered decision.
    pub decision: Decision,
    /// The decision the snapshot published.
    pub published_decision: Decision,
    /// The shield colour (never lighter than the published one).
    pub color: ShieldColor,
    /// Flags the fast evidence raised, weightiest first.
    pub flags: Vec<super::agent::FlagV1>,
    /// What changed, in words.
    pub reason: String,
}

/// `snapshots/overlays/<file>.json`: the fast evidence of one snapshot, published between
/// rebuilds (`current-overlay` names the newest).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct OverlayV1 {
    /// `agentrep-overlay-v1`.
    pub version: String,
    /// The snapshot it amends; a server applies it to that snapshot only.
    pub snapshot_id: String,
    /// SHA-256 of that snapshot's `manifest.json` ([`crate::layout::snapshot_digest`]): a
    /// snapshot republished under the same id has another, and is amended by no overlay of the
    /// one it replaced. An overlay without it (published before it) amends nothing.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub snapshot_digest: Option<String>,
    /// ISO 8601 time of the newest evidence read.
    pub as_of: String,
    /// Evidence read: probes, settled paid calls, denylist entries newer than the snapshot.
    pub probes: u32,
    /// Settled paid calls read.
    pub paid_calls: u32,
    /// Denylist entries read.
    pub denylist_entries: u32,
    /// Sellers whose answer it lowers, by lowercase address.
    pub sellers: std::collections::BTreeMap<String, OverlaySellerV1>,
    /// Marketplace claims crawled since the snapshot that it does not hold (a URL listed under a
    /// new payTo, at a new price, network or asset): the URL preflight compares a 402 with these
    /// as well, so a seller's own rotation or price change is no decoy or price trap until the
    /// next rebuild. They judge offers only; no decision of any wallet is read from them.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub listings: Vec<ListingRowV1>,
}
