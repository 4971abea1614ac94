//! What users write and read back from the server's own store: receipts, badge claims,
//! watchlists, webhook subscriptions and their deliveries, paid slots, discovery submissions, and
//! the webhook events themselves. Field names follow the original service's clients where they
//! read them (`watch_addr`, `webhook_url`: its SDK's types are snake_case there).

use super::Decision;
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

/// `POST /receipt`: a buyer's signed word about a call.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct ReceiptRequestV1 {
    /// The buyer, who signed.
    #[schemars(pattern(r"^0x[a-fA-F0-9]{40}$"))]
    pub buyer_addr: String,
    /// The seller.
    #[schemars(pattern(r"^0x[a-fA-F0-9]{40}$"))]
    pub agent_addr: String,
    /// Whether the call succeeded.
    pub success: bool,
    /// The signed message: contains `mainstreet receipt` and the lines `buyer:`, `agent:`,
    /// `success:`, the optional fields, and `timestamp=<Unix ms>` (the original SDK's
    /// `buildReceiptMessage` writes exactly this).
    #[schemars(length(min = 1, max = 2000))]
    pub message: String,
    /// EIP-191 signature of `message` by `buyerAddr`, 0x hex.
    #[schemars(pattern(r"^(0x)?[0-9a-fA-F]{128,8192}$"))]
    pub signature: String,
    /// The payment's transaction hash.
    #[serde(default)]
    #[schemars(length(max = 100))]
    pub tx_hash: Option<String>,
    /// Latency, milliseconds.
    #[serde(default, deserialize_with = "super::integer::option")]
    pub latency_ms: Option<u64>,
    /// Rating 0–100.
    #[serde(default, deserialize_with = "super::integer::option")]
    #[schemars(range(max = 100))]
    pub rating: Option<u8>,
    /// Comment, at most 500 characters (the message carries its first 280).
    #[serde(default)]
    #[schemars(length(max = 500))]
    pub comment: Option<String>,
}

/// `POST /receipt` answer.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct ReceiptAcceptedV1 {
    /// `agentrep-receipt-v1`.
    pub version: String,
    /// Stored.
    pub ok: bool,
    /// The receipt's id (the same for the same signed message).
    pub id: i64,
    /// False when this message had been accepted before (nothing changed).
    pub created: bool,
    /// Receipts count in a score only once the rebuild finds the payment they describe.
    pub counted_in_score: bool,
    /// What happens to it.
    pub note: String,
}

/// One receipt as shown.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct ReceiptV1 {
    /// Its id.
    pub id: i64,
    /// The buyer (signer).
    pub buyer_addr: String,
    /// The seller.
    pub agent_addr: String,
    /// Whether the call succeeded.
    pub success: bool,
    /// As signed.
    pub tx_hash: Option<String>,
    /// As signed.
    pub latency_ms: Option<u64>,
    /// As signed.
    pub rating: Option<u8>,
    /// As signed.
    pub comment: Option<String>,
    /// The message's timestamp, ISO 8601.
    pub signed_at: String,
    /// When it arrived, ISO 8601.
    pub received_at: String,
    /// `eoa`, `erc1271` or `erc6492`.
    pub signer_kind: String,
}

/// Receipts in aggregate.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct ReceiptSummaryV1 {
    /// Receipts.
    pub total: u64,
    /// Share with `success: true`.
    pub success_rate: f64,
    /// Mean rating of the rated ones.
    pub avg_rating: Option<f64>,
    /// Mean latency of the timed ones, milliseconds.
    pub avg_latency: Option<f64>,
    /// The same, under the name the original CLI reads.
    pub avg_latency_ms: Option<f64>,
}

/// `GET /receipts?for=`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct ReceiptsV1 {
    /// `agentrep-receipts-v1`.
    pub version: String,
    /// The seller.
    pub agent: String,
    /// Every receipt in aggregate; null when there are none.
    pub summary: Option<ReceiptSummaryV1>,
    /// Receipts listed (the newest, at most 100).
    pub count: u64,
    /// The newest receipts.
    pub receipts: Vec<ReceiptV1>,
    /// How receipts weigh in scores.
    pub note: String,
}

/// `POST /badge/claim`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct BadgeClaimRequestV1 {
    /// The wallet claiming its badge, who signed.
    #[schemars(pattern(r"^0x[a-fA-F0-9]{40}$"))]
    pub address: String,
    /// The signed message: contains `badge`, an `address: 0x…` line equal to `address`, and
    /// `timestamp=<Unix ms>`.
    #[schemars(length(min = 1, max = 2000))]
    pub message: String,
    /// EIP-191 signature of `message` by `address`, 0x hex.
    #[schemars(pattern(r"^(0x)?[0-9a-fA-F]{128,8192}$"))]
    pub signature: String,
    /// Not kept (unsigned).
    #[serde(default)]
    pub display_name: Option<String>,
    /// Not kept (unsigned).
    #[serde(default)]
    pub website: Option<String>,
}

/// `POST /badge/claim` answer.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct BadgeClaimedV1 {
    /// `agentrep-badge-claim-v1`.
    pub version: String,
    /// Stored.
    pub ok: bool,
    /// The wallet.
    pub address: String,
    /// The claim's id (the same for the same signed message).
    pub id: i64,
    /// False when this message had been accepted before.
    pub created: bool,
    /// The badge image.
    pub badge_url: String,
    /// HTML to embed it, linking to the wallet's profile.
    pub embed: String,
}

/// One claimed badge.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct BadgeV1 {
    /// The wallet.
    pub address: String,
    /// Its first claim, ISO 8601.
    pub claimed_at: String,
    /// The badge image.
    pub badge_url: String,
    /// Its score in the current snapshot (null when not indexed or unmeasured).
    pub score: Option<u8>,
}

/// `GET /badges`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct BadgesV1 {
    /// `agentrep-badges-v1`.
    pub version: String,
    /// Badges listed.
    pub count: u64,
    /// The newest claims first.
    pub badges: Vec<BadgeV1>,
}

/// `POST /watchlist`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct WatchRequestV1 {
    /// Who watches, who signed.
    #[schemars(pattern(r"^0x[a-fA-F0-9]{40}$"))]
    pub subscriber_addr: String,
    /// The watched wallet.
    #[schemars(pattern(r"^0x[a-fA-F0-9]{40}$"))]
    pub watch_addr: String,
    /// The signed message: contains `watch`, a `watch: 0x…` line equal to `watchAddr` and
    /// `timestamp=<Unix ms>`, `label:` / `thresholdDelta:` lines when the body states them, and
    /// optionally a `webhook: <url>` line: the receiver of this watcher's daily digests (through
    /// its webhook subscription to that URL; no other subscription gets them).
    #[schemars(length(min = 1, max = 2000))]
    pub message: String,
    /// EIP-191 signature of `message` by `subscriberAddr`, 0x hex.
    #[schemars(pattern(r"^(0x)?[0-9a-fA-F]{128,8192}$"))]
    pub signature: String,
    /// A label (must be in the message).
    #[serde(default)]
    #[schemars(length(max = 100))]
    pub label: Option<String>,
    /// The move that counts, 1–100, default 5 (must be in the message).
    #[serde(default, deserialize_with = "super::integer::option")]
    #[schemars(range(min = 1, max = 100))]
    pub threshold_delta: Option<u8>,
}

/// `POST /watchlist` answer.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct WatchAddedV1 {
    /// `agentrep-watch-v1`.
    pub version: String,
    /// Watching.
    pub ok: bool,
    /// The entry's id.
    pub id: i64,
    /// False when this message had been accepted before.
    pub created: bool,
}

/// One watched wallet (snake_case, as the original CLI reads it).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
pub struct WatchEntryV1 {
    /// The watched wallet.
    pub watch_addr: String,
    /// As signed.
    pub label: Option<String>,
    /// The move that counts.
    pub threshold_delta: u8,
    /// Its score in the current snapshot.
    pub current_score: Option<u8>,
    /// Its score before the last daily digest (the move the digest reported starts here).
    pub last_score: Option<u8>,
    /// Its listing's description.
    pub last_description: Option<String>,
    /// When it was added, ISO 8601.
    pub added_at: String,
}

/// `GET /watchlist?for=`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct WatchlistV1 {
    /// `agentrep-watchlist-v1`.
    pub version: String,
    /// The subscriber.
    pub subscriber: String,
    /// Wallets watched.
    pub count: u64,
    /// The watched wallets (the original SDK's type).
    pub addresses: Vec<String>,
    /// The watched wallets with their scores (the original CLI's).
    pub watching: Vec<WatchEntryV1>,
}

/// `POST /webhook/subscribe`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct WebhookSubscribeRequestV1 {
    /// Who subscribes.
    #[schemars(pattern(r"^0x[a-fA-F0-9]{40}$"))]
    pub subscriber_addr: String,
    /// The watched wallet.
    #[schemars(pattern(r"^0x[a-fA-F0-9]{40}$"))]
    pub watch_addr: String,
    /// The receiver: http or https, no private target.
    #[schemars(
        length(max = 2048),
        pattern(r"^https?://([A-Za-z0-9-]+\.)*[A-Za-z][A-Za-z0-9-]*(:[0-9]{1,4})?([/?#][!-~]*)?$")
    )]
    pub webhook_url: String,
    /// The move that fires, 1–100, default 5.
    #[serde(default, deserialize_with = "super::integer::option")]
    #[schemars(range(min = 1, max = 100))]
    pub threshold_delta: Option<u8>,
}

/// `POST /webhook/subscribe` answer.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct WebhookSubscribedV1 {
    /// `agentrep-webhook-subscribe-v1`.
    pub version: String,
    /// Subscribed.
    pub ok: bool,
    /// What happened.
    pub message: String,
    /// Where to see the subscription and its deliveries.
    pub check_url: String,
    /// The subscription's id.
    pub id: i64,
    /// False when this subscriber, wallet and URL were subscribed before.
    pub created: bool,
    /// The signing secret (`whsec_…`, Standard Webhooks): shown once, at creation.
    pub secret: Option<String>,
    /// End of the free period, ISO 8601.
    pub grace_until: String,
    /// End of deliveries (grace or paid), ISO 8601.
    pub active_until: String,
    /// How deliveries are signed.
    pub signing: String,
}

/// One delivery as its subscriber sees it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
pub struct DeliveryV1 {
    /// The `webhook-id` header (the same on every attempt).
    pub webhook_id: String,
    /// `score.changed`, `token.rugged`, `watchlist.digest`.
    pub event_type: String,
    /// `pending`, `delivered` or `dead`.
    pub state: String,
    /// Attempts made.
    pub attempts: u32,
    /// The receiver's last status.
    pub last_status: Option<u16>,
    /// The last failure.
    pub last_error: Option<String>,
    /// ISO 8601.
    pub created_at: String,
    /// The next attempt (pending only), ISO 8601.
    pub next_attempt_at: Option<String>,
    /// ISO 8601.
    pub delivered_at: Option<String>,
}

/// One subscription (snake_case, as the original SDK types it).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
pub struct WebhookSubscriptionV1 {
    /// Its id.
    pub id: i64,
    /// The watched wallet.
    pub watch_addr: String,
    /// The receiver: scheme, host and port only (a path may carry the receiver's own token).
    pub webhook_url: String,
    /// The move that fires.
    pub threshold_delta: u8,
    /// The score last notified (or seen at subscription).
    pub last_score: Option<u8>,
    /// ISO 8601.
    pub last_notified_at: Option<String>,
    /// End of the last settled paid extension, ISO 8601.
    pub paid_until: Option<String>,
    /// ISO 8601.
    pub created_at: String,
    /// End of the free period, ISO 8601.
    pub grace_until: String,
    /// Deliveries are made until then, ISO 8601.
    pub active_until: String,
    /// Whether deliveries are made now.
    pub active: bool,
    /// The newest deliveries (at most 20).
    pub deliveries: Vec<DeliveryV1>,
}

/// `GET /webhook/list?for=`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct WebhookListV1 {
    /// `agentrep-webhook-list-v1`.
    pub version: String,
    /// Subscriptions.
    pub count: u64,
    /// Oldest first.
    pub subscriptions: Vec<WebhookSubscriptionV1>,
}

/// `POST /webhook/extend`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct WebhookExtendRequestV1 {
    /// The subscriber.
    #[schemars(pattern(r"^0x[a-fA-F0-9]{40}$"))]
    pub subscriber_addr: String,
    /// The watched wallet.
    #[schemars(pattern(r"^0x[a-fA-F0-9]{40}$"))]
    pub watch_addr: String,
    /// The receiver, as subscribed.
    #[schemars(
        length(max = 2048),
        pattern(r"^https?://([A-Za-z0-9-]+\.)*[A-Za-z][A-Za-z0-9-]*(:[0-9]{1,4})?([/?#][!-~]*)?$")
    )]
    pub webhook_url: String,
}

/// `POST /webhook/extend` answer.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct WebhookExtendedV1 {
    /// `agentrep-webhook-extend-v1`.
    pub version: String,
    /// Extended (once the payment settles, which this answer's 200 means).
    pub ok: bool,
    /// The subscription.
    pub id: i64,
    /// The new end of the paid period, ISO 8601.
    pub paid_until: String,
}

/// `POST /sponsor/{agentAddress}`, `POST /clawd/sponsor/{creator}` answer.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct SponsorV1 {
    /// `agentrep-sponsor-v1`.
    pub version: String,
    /// Bought.
    pub ok: bool,
    /// `agent` or `creator`.
    pub kind: String,
    /// The sponsored wallet.
    pub address: String,
    /// When the slot starts (after any slot already bought), ISO 8601.
    pub starts_at: String,
    /// When it ends, ISO 8601.
    pub sponsored_until: String,
    /// What a slot is and is not.
    pub note: String,
}

/// One active sponsored slot.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct SponsoredSlotV1 {
    /// `agent` or `creator`.
    pub kind: String,
    /// The sponsored wallet.
    pub address: String,
    /// ISO 8601.
    pub starts_at: String,
    /// ISO 8601.
    pub sponsored_until: String,
    /// Its score in the current snapshot, unchanged by the slot.
    pub score: Option<u8>,
    /// Its decision in the current snapshot, unchanged by the slot.
    pub decision: Option<Decision>,
}

/// `GET /sponsored`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct SponsoredV1 {
    /// `agentrep-sponsored-v1`.
    pub version: String,
    /// Active slots.
    pub count: u64,
    /// Active slots, ending soonest first.
    pub sponsored: Vec<SponsoredSlotV1>,
    /// Slots are paid placement, shown apart from rankings.
    pub note: String,
}

/// `POST /clawd/rug-alert/{tokenAddr}`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct RugAlertRequestV1 {
    /// The receiver: http or https, no private target.
    #[schemars(
        length(max = 2048),
        pattern(r"^https?://([A-Za-z0-9-]+\.)*[A-Za-z][A-Za-z0-9-]*(:[0-9]{1,4})?([/?#][!-~]*)?$")
    )]
    pub webhook_url: String,
    /// Who asks.
    #[schemars(pattern(r"^0x[a-fA-F0-9]{40}$"))]
    pub subscriber_addr: String,
}

/// `POST /clawd/rug-alert/{tokenAddr}` answer.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct RugAlertV1 {
    /// `agentrep-rug-alert-v1`.
    pub version: String,
    /// Watching.
    pub ok: bool,
    /// The watched token.
    pub token: String,
    /// ISO 8601.
    pub starts_at: String,
    /// End of the watch, ISO 8601.
    pub paid_until: String,
    /// The signing secret of the alert (`whsec_…`, Standard Webhooks).
    pub secret: String,
    /// How the alert is signed.
    pub signing: String,
}

/// `POST /discover`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
pub struct DiscoverRequestV1 {
    /// The URL of the submitter's agent description file (http or https).
    #[schemars(
        length(max = 2048),
        pattern(r"^https?://([A-Za-z0-9-]+\.)*[A-Za-z][A-Za-z0-9-]*(:[0-9]{1,4})?([/?#][!-~]*)?$")
    )]
    pub url: String,
}

/// `POST /discover` answer.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct DiscoverSubmittedV1 {
    /// `agentrep-discover-submit-v1`.
    pub version: String,
    /// Queued.
    pub ok: bool,
    /// The submission's id (the same URL answers the same id).
    pub id: i64,
    /// The URL.
    pub url: String,
    /// False when the URL was queued before.
    pub created: bool,
    /// `queued`.
    pub status: String,
    /// When the agent-card job will fetch it: its next daily run after the store export, ISO 8601.
    pub review_at: String,
    /// What happens next.
    pub note: String,
}

/// A `score.changed` webhook event (Standard Webhooks body: `type`, `timestamp`, `data`).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
pub struct ScoreChangedEventV1 {
    /// `score.changed`.
    #[serde(rename = "type")]
    pub kind: String,
    /// When the change was seen, ISO 8601.
    pub timestamp: String,
    /// The change.
    pub data: ScoreChangedV1,
}

/// What changed.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct ScoreChangedV1 {
    /// The subscription.
    pub subscription_id: i64,
    /// The subscriber.
    pub subscriber_addr: String,
    /// The watched wallet.
    pub address: String,
    /// The score last notified.
    pub previous_score: u8,
    /// The score now.
    pub score: u8,
    /// `score - previousScore`.
    pub delta: i16,
    /// The subscription's threshold.
    pub threshold_delta: u8,
    /// Its decision now.
    pub decision: Option<Decision>,
    /// The snapshot the score is read from.
    pub snapshot: String,
    /// The wallet's score document.
    pub score_url: String,
}

/// A `token.rugged` webhook event.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
pub struct TokenRuggedEventV1 {
    /// `token.rugged`.
    #[serde(rename = "type")]
    pub kind: String,
    /// When it was seen, ISO 8601.
    pub timestamp: String,
    /// The token.
    pub data: TokenRuggedV1,
}

/// The rugged token.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct TokenRuggedV1 {
    /// The token.
    pub token: String,
    /// Its deployer.
    pub deployer: Option<String>,
    /// Who bought the watch.
    pub subscriber_addr: String,
    /// The snapshot that shows it rugged.
    pub snapshot: String,
    /// End of the watch, ISO 8601.
    pub watched_until: String,
}

/// A `watchlist.digest` webhook event.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
pub struct WatchlistDigestEventV1 {
    /// `watchlist.digest`.
    #[serde(rename = "type")]
    pub kind: String,
    /// When it was made, ISO 8601.
    pub timestamp: String,
    /// The moves.
    pub data: WatchlistDigestV1,
}

/// A subscriber's watched wallets that moved since the last digest.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct WatchlistDigestV1 {
    /// The subscriber.
    pub subscriber_addr: String,
    /// The snapshot.
    pub snapshot: String,
    /// Every watched wallet whose score moved.
    pub moved: Vec<WatchMoveV1>,
}

/// One watched wallet's move.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct WatchMoveV1 {
    /// The wallet.
    pub address: String,
    /// As signed.
    pub label: Option<String>,
    /// At the last digest.
    pub previous_score: u8,
    /// Now.
    pub score: u8,
}

/// `POST /clawd/trader-attestation/{address}` answer: the operator's EIP-712 attestation of the
/// address's trader tier (`subjectType` `clawd-trader-{tier}`), signed like the score attestations.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct TraderAttestationV1 {
    /// `agentrep-trader-attestation-v1`.
    pub version: String,
    /// The trader.
    pub address: String,
    /// The tier its `clawd-trader-{tier}` proof names.
    pub tier: String,
    /// The signed message.
    pub payload: super::AttestationPayloadV1,
    /// 65-byte r‖s‖v, hex.
    pub signature: String,
    /// The signing key was generated for a demo.
    pub demo_key: bool,
}

/// `POST /clawd/featured-cast/{tokenAddr}` (paid): the cast as submitted.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct FeaturedCastV1 {
    /// `agentrep-featured-cast-v1`.
    pub version: String,
    /// Taken by the hub.
    pub ok: bool,
    /// The cast's hash (its id on Farcaster), `0x` and 40 hex digits.
    pub cast_hash: String,
    /// The operator's Farcaster account.
    pub fid: u64,
    /// The token it is about.
    pub token: String,
    /// The cast's text, as signed.
    pub text: String,
    /// The URL it embeds.
    pub embed: String,
}
