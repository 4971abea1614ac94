//! Users' signed writes and their reads: receipts, badge claims, watchlists, and discovery
//! submissions. Each write is rate-limited by client, checked (body, message, signature), limited
//! by signer, committed, and only then answered; nothing refused changes the store.

use std::sync::Arc;

use agentrep_publish::wire::{
    BadgeClaimRequestV1, BadgeV1, BadgesV1, DiscoverRequestV1, DiscoverSubmittedV1, ReceiptAcceptedV1,
    ReceiptRequestV1, WatchAddedV1, WatchRequestV1, version,
};
use agentrep_store::{NewReceipt, NewWatch, Signed, Store, StoreError};
use alloy::primitives::Address;
use hyper::StatusCode;
use schemars::JsonSchema;
use serde::Deserialize;
use sha2::{Digest, Sha256};

use crate::http::{HandlerResult, Request, respond};
use crate::query::writes as q;
use crate::store_task::on_store;
use crate::writes::message::Message;
use crate::writes::{signature, target};
use crate::{ApiError, App};

/// `?for=` of the store-backed reads.
#[derive(Debug, Deserialize, JsonSchema)]
pub struct ForQuery {
    /// The wallet (0x and 40 hex digits).
    #[serde(rename = "for")]
    #[schemars(pattern(r"^0x[a-fA-F0-9]{40}$"))]
    pub wallet: String,
}

/// Longest receipt comment.
const MAX_COMMENT: usize = 500;
/// Characters of the comment the original SDK puts in the message.
const SIGNED_COMMENT: usize = 280;

pub(crate) fn now_ms() -> i64 {
    chrono::Utc::now().timestamp_millis()
}

pub(crate) fn store(app: &App) -> Result<Arc<Store>, ApiError> {
    app.store()
        .cloned()
        .ok_or_else(|| ApiError::store("the write store is not open on this deployment; nothing can be written"))
}

/// Runs a store call off the runtime; a failure is 503 `store_unavailable` (nothing stored).
pub(crate) async fn in_store<T: Send + 'static>(
    app: &App,
    f: impl FnOnce(&Store) -> Result<T, StoreError> + Send + 'static,
) -> Result<T, ApiError> {
    on_store(&store(app)?, f).await.map_err(|e| ApiError::store(e.public("the write store")))
}

/// A body field that must be an address.
pub(crate) fn address_field(field: &str, raw: &str) -> Result<Address, ApiError> {
    raw.trim()
        .parse::<Address>()
        .map_err(|_| ApiError::param(field, format!("{field} is not an address (0x and 40 hex digits)")))
}

pub(crate) fn lower(a: &Address) -> String {
    alloy::hex::encode_prefixed(a.as_slice())
}

/// Counts the write against the client's limit.
pub(crate) fn limit_client(app: &App, req: &Request) -> Result<(), ApiError> {
    app.limits.client(req.client_ip(&app.writes.trusted_proxies))
}

/// Verifies that `signer` signed `m`; counts the write against the signer's limit.
async fn signed_by(app: &App, signer: Address, m: &Message, raw_signature: &str) -> Result<Signed, ApiError> {
    let bytes = signature::decode(raw_signature)?;
    let kind = signature::verify(app, signer, &m.text, &bytes).await?;
    app.limits.signer(&lower(&signer))?;
    Ok(Signed {
        message: m.text.clone(),
        message_hash: hex::encode(Sha256::digest(m.text.as_bytes())),
        signature: alloy::hex::encode_prefixed(&bytes),
        signer_kind: kind,
        signed_at: m.signed_at,
    })
}

fn same_address(m: &Message, key: &str, what: &str, want: &Address) -> Result<(), ApiError> {
    let named = m.required(key, what)?;
    match named.parse::<Address>() {
        Ok(a) if a == *want => Ok(()),
        _ => Err(ApiError::Unauthorized {
            code: "message_mismatch",
            message: format!("the signed message's {what} ({named}) is not the body's {}", lower(want)),
        }),
    }
}

fn number<T: std::str::FromStr>(value: Option<&str>, field: &str) -> Result<Option<T>, ApiError> {
    value
        .map(|v| v.parse::<T>().map_err(|_| ApiError::param(field, format!("{field} in the message is not a number"))))
        .transpose()
}

/// `POST /receipt`: a buyer's signed receipt. Its fields are the message's; it counts in a score
/// only once the rebuild finds the payment it describes.
pub async fn receipt(app: Arc<App>, mut req: Request) -> HandlerResult {
    limit_client(&app, &req)?;
    let body: ReceiptRequestV1 = req.json().await?;
    let buyer = address_field("buyerAddr", &body.buyer_addr)?;
    let agent = address_field("agentAddr", &body.agent_addr)?;
    if body.comment.as_ref().is_some_and(|c| c.chars().count() > MAX_COMMENT) {
        return Err(ApiError::param("comment", format!("longer than {MAX_COMMENT} characters")));
    }
    if body.rating.is_some_and(|r| r > 100) {
        return Err(ApiError::param("rating", "rating is 0 to 100"));
    }
    let m = Message::parse(&body.message, now_ms())?;
    if !m.mentions("mainstreet receipt") {
        return Err(ApiError::Unauthorized {
            code: "message_mismatch",
            message: "the message must contain the receipt marker `mainstreet receipt`".to_owned(),
        });
    }
    same_address(&m, "buyer", "buyer", &buyer)?;
    same_address(&m, "agent", "agent", &agent)?;
    let success = m.agreed("success", "success", Some(if body.success { "true" } else { "false" }))?;
    if success.is_none() {
        return Err(ApiError::Unauthorized {
            code: "message_mismatch",
            message: "the signed message states no `success:`".to_owned(),
        });
    }
    let tx_hash = m.agreed("txhash", "txHash", body.tx_hash.as_deref())?.map(str::to_owned);
    let latency_ms = number::<u32>(
        m.agreed("latencyms", "latencyMs", body.latency_ms.map(|v| v.to_string()).as_deref())?,
        "latencyMs",
    )?;
    let rating = number::<u8>(m.agreed("rating", "rating", body.rating.map(|v| v.to_string()).as_deref())?, "rating")?;
    if rating.is_some_and(|r| r > 100) {
        return Err(ApiError::param("rating", "rating is 0 to 100"));
    }
    let signed_comment = body.comment.as_ref().map(|c| c.chars().take(SIGNED_COMMENT).collect::<String>());
    let comment = m.agreed("comment", "comment", signed_comment.as_deref())?.map(str::to_owned);
    if tx_hash.as_ref().is_some_and(|t| t.len() > 100) {
        return Err(ApiError::param("txHash", "longer than 100 characters"));
    }
    let signed = signed_by(&app, buyer, &m, &body.signature).await?;
    let receipt = NewReceipt {
        buyer: lower(&buyer),
        agent: lower(&agent),
        success: body.success,
        tx_hash,
        latency_ms: latency_ms.map(u64::from),
        rating,
        comment,
        signed,
    };
    let now = now_ms() / 1000;
    let written = in_store(&app, move |s| s.add_receipt(&receipt, now)).await?;
    Ok(respond::json(
        StatusCode::OK,
        &ReceiptAcceptedV1 {
            version: version("receipt"),
            ok: true,
            id: written.id,
            created: written.created,
            counted_in_score: false,
            note: "stored and shown at GET /receipts; it counts in the seller's score from the next rebuild only if that rebuild finds a settlement from this buyer to this seller (txHash, or the buyer's payments), as SCORING.md § 2 says".to_owned(),
        },
    ))
}

/// `GET /receipts?for=`: a seller's receipts and their aggregate.
pub async fn receipts(app: Arc<App>, req: Request) -> HandlerResult {
    let q: ForQuery = req.query()?;
    let agent = lower(&address_field("for", &q.wallet)?);
    let key = agent.clone();
    let (rows, summary) = in_store(&app, move |s| Ok((s.receipts_for(&key, 100)?, s.receipt_summary(&key)?))).await?;
    Ok(respond::json(StatusCode::OK, &q::receipts(&agent, &rows, &summary)))
}

/// `POST /badge/claim`: a wallet's signed claim of its badge.
pub async fn claim_badge(app: Arc<App>, mut req: Request) -> HandlerResult {
    limit_client(&app, &req)?;
    let body: BadgeClaimRequestV1 = req.json().await?;
    let address = address_field("address", &body.address)?;
    let m = Message::parse(&body.message, now_ms())?;
    if !m.mentions("badge") {
        return Err(ApiError::Unauthorized {
            code: "message_mismatch",
            message: "the message must say `badge` and name the address on an `address:` line (e.g. `agentrep badge claim\\naddress: 0x…\\ntimestamp=<Unix ms>`)".to_owned(),
        });
    }
    same_address(&m, "address", "address (`address:`)", &address)?;
    let signed = signed_by(&app, address, &m, &body.signature).await?;
    let (key, now) = (lower(&address), now_ms() / 1000);
    let written = in_store(&app, move |s| s.add_badge_claim(&key, &signed, now)).await?;
    let base = q::public_base(&app, &req);
    Ok(respond::json(StatusCode::OK, &q::badge_claimed(&base, &lower(&address), written)))
}

/// `GET /badges`: wallets that claimed their badge.
pub async fn badges(app: Arc<App>, req: Request) -> HandlerResult {
    let claims = in_store(&app, |s| s.badge_claims(500)).await?;
    let snap = app.snapshot();
    let base = q::public_base(&app, &req);
    let badges: Vec<BadgeV1> = claims.iter().map(|c| q::badge(&base, snap.as_deref(), c)).collect();
    Ok(respond::json(StatusCode::OK, &BadgesV1 { version: version("badges"), count: badges.len() as u64, badges }))
}

/// `POST /watchlist`: a subscriber's signed watchlist entry.
pub async fn watch(app: Arc<App>, mut req: Request) -> HandlerResult {
    limit_client(&app, &req)?;
    let body: WatchRequestV1 = req.json().await?;
    let subscriber = address_field("subscriberAddr", &body.subscriber_addr)?;
    let watched = address_field("watchAddr", &body.watch_addr)?;
    if body.threshold_delta.is_some_and(|t| !(1..=100).contains(&t)) {
        return Err(ApiError::param("thresholdDelta", "thresholdDelta is 1 to 100"));
    }
    let m = Message::parse(&body.message, now_ms())?;
    if !m.mentions("watch") {
        return Err(ApiError::Unauthorized {
            code: "message_mismatch",
            message: "the message must say `watch` and name the watched address on a `watch:` line (e.g. `agentrep watch\\nwatch: 0x…\\ntimestamp=<Unix ms>`)".to_owned(),
        });
    }
    same_address(&m, "watch", "watched address (`watch:`)", &watched)?;
    // Digests go only to a receiver the watcher signed for.
    let webhook_url = match m.get("webhook") {
        Some(url) => Some(target::check(url, "webhook", app.writes.allow_private_targets).await?.to_string()),
        None => None,
    };
    let label = m.agreed("label", "label", body.label.as_deref())?.map(|l| l.chars().take(100).collect::<String>());
    let threshold = number::<u8>(
        m.agreed("thresholddelta", "thresholdDelta", body.threshold_delta.map(|t| t.to_string()).as_deref())?,
        "thresholdDelta",
    )?
    .unwrap_or(5);
    if !(1..=100).contains(&threshold) {
        return Err(ApiError::param("thresholdDelta", "thresholdDelta is 1 to 100"));
    }
    let signed = signed_by(&app, subscriber, &m, &body.signature).await?;
    let entry = NewWatch {
        subscriber: lower(&subscriber),
        watched: lower(&watched),
        label,
        threshold_delta: threshold,
        webhook_url,
        signed,
    };
    let now = now_ms() / 1000;
    let score = app.snapshot().and_then(|s| s.index.agent(&entry.watched).and_then(|r| r.score));
    let written = in_store(&app, move |s| s.add_watch(&entry, score, now)).await?;
    Ok(respond::json(
        StatusCode::OK,
        &WatchAddedV1 { version: version("watch"), ok: true, id: written.id, created: written.created },
    ))
}

/// `GET /watchlist?for=`: a subscriber's watched wallets with their scores.
pub async fn watchlist(app: Arc<App>, req: Request) -> HandlerResult {
    let q: ForQuery = req.query()?;
    let subscriber = lower(&address_field("for", &q.wallet)?);
    let key = subscriber.clone();
    let rows = in_store(&app, move |s| s.watchlist_of(&key)).await?;
    let snap = app.snapshot();
    Ok(respond::json(StatusCode::OK, &q::watchlist(&subscriber, snap.as_deref(), &rows)))
}

/// `POST /discover`: queues an agent description file for the agent-card job.
pub async fn submit(app: Arc<App>, mut req: Request) -> HandlerResult {
    limit_client(&app, &req)?;
    let body: DiscoverRequestV1 = req.json().await?;
    let url = target::check(&body.url, "url", app.writes.allow_private_targets).await?.to_string();
    let client = req
        .client_ip(&app.writes.trusted_proxies)
        .map(|ip| hex::encode(Sha256::digest(ip.to_string().as_bytes())))
        .unwrap_or_default();
    let now = now_ms() / 1000;
    let queued = url.clone();
    let (submission, created) = in_store(&app, move |s| s.submit_discovery(&queued, &client, now)).await?;
    let review_at = q::next_day(submission.submitted_at);
    Ok(respond::json(
        StatusCode::OK,
        &DiscoverSubmittedV1 {
            version: version("discover-submit"),
            ok: true,
            id: submission.id,
            url,
            created,
            status: "queued".to_owned(),
            review_at,
            note: "`agentrep export-store` carries the queue into the lake and the agent-card job fetches the file on its next run (daily under `agentrep schedule`), with the same private-target rules; what it finds is recorded, and a seller is indexed once a marketplace lists it".to_owned(),
        },
    ))
}
