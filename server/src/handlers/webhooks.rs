//! Score-change webhooks: subscribe (free for 30 days, 5 an hour per client), list with each
//! subscription's deliveries, and the paid 30-day extension.

use std::sync::Arc;

use agentrep_publish::wire::{
    WebhookExtendRequestV1, WebhookExtendedV1, WebhookListV1, WebhookSubscribeRequestV1, WebhookSubscribedV1, version,
};
use agentrep_store::{NewSubscription, Subscribed};
use hyper::StatusCode;

use super::writes::{ForQuery, address_field, in_store, limit_client, lower, now_ms};
use crate::http::{HandlerResult, Request, respond};
use crate::payment::flow::sell;
use crate::payment::prices::WEBHOOK_EXTEND;
use crate::query::writes as q;
use crate::writes::{secret, target};
use crate::{ApiError, App};

/// Free days of a new subscription.
pub const GRACE_DAYS: i64 = 30;
/// Days a paid extension adds.
pub const EXTENSION_DAYS: i64 = 30;
/// How subscribers are told deliveries are signed.
pub const SIGNING: &str = "Standard Webhooks 1.0: headers webhook-id (the same on every retry), webhook-timestamp, webhook-signature (v1, HMAC-SHA256 of `id.timestamp.body` with this secret); retried with backoff for about 28 hours";

/// `POST /webhook/subscribe`.
pub async fn subscribe(app: Arc<App>, mut req: Request) -> HandlerResult {
    limit_client(&app, &req)?;
    let body: WebhookSubscribeRequestV1 = req.json().await?;
    let subscriber = address_field("subscriberAddr", &body.subscriber_addr)?;
    let watched = address_field("watchAddr", &body.watch_addr)?;
    let threshold = body.threshold_delta.unwrap_or(5);
    if !(1..=100).contains(&threshold) {
        return Err(ApiError::param("thresholdDelta", "thresholdDelta is 1 to 100"));
    }
    let url = target::check(&body.webhook_url, "webhookUrl", app.writes.allow_private_targets).await?.to_string();
    let client = req.client_ip(&app.writes.trusted_proxies).map_or_else(|| "unknown".to_owned(), |ip| ip.to_string());
    let now = now_ms();
    let bucket = format!("webhook-subscribe:{client}");
    let per_hour = app.writes.subscribe_per_hour;
    if let Err(wait_ms) = in_store(&app, move |s| s.rate_hit(&bucket, per_hour, 3_600_000, now)).await? {
        let retry_after = u64::try_from(wait_ms).unwrap_or(0).div_ceil(1000).max(1);
        return Err(ApiError::RateLimited {
            retry_after,
            message: format!(
                "more than {per_hour} webhook subscriptions an hour from this client; retry in {retry_after} s"
            ),
        });
    }
    let score = app.snapshot().and_then(|s| s.index.agent(&lower(&watched)).and_then(|r| r.score));
    let new = NewSubscription {
        subscriber: lower(&subscriber),
        watched: lower(&watched),
        url,
        threshold_delta: threshold,
        secret: secret::new_secret(),
        grace_days: GRACE_DAYS,
    };
    let subscribed = in_store(&app, move |s| s.subscribe(&new, score, now / 1000)).await?;
    let (row, created) = match subscribed {
        Subscribed::New(row) => (row, true),
        Subscribed::Existing(row) => (row, false),
    };
    let base = q::public_base(&app, &req);
    Ok(respond::json(
        StatusCode::OK,
        &WebhookSubscribedV1 {
            version: version("webhook-subscribe"),
            ok: true,
            message: if created {
                format!(
                    "subscribed: a signed POST when {}'s score moves by {threshold} or more; free until {}",
                    row.watched,
                    q::iso(row.grace_until)
                )
            } else {
                "already subscribed: nothing changed (the secret was shown when the subscription was created)"
                    .to_owned()
            },
            check_url: format!("{base}/webhook/list?for={}", row.subscriber),
            id: row.id,
            created,
            secret: created.then(|| row.secret.clone()),
            grace_until: q::iso(row.grace_until),
            active_until: q::iso(row.active_until()),
            signing: SIGNING.to_owned(),
        },
    ))
}

/// `GET /webhook/list?for=`: a subscriber's subscriptions and their newest deliveries.
pub async fn list(app: Arc<App>, req: Request) -> HandlerResult {
    limit_client(&app, &req)?;
    let query: ForQuery = req.query()?;
    let subscriber = lower(&address_field("for", &query.wallet)?);
    let rows = in_store(&app, move |s| {
        let subs = s.subscriptions_of(&subscriber)?;
        subs.into_iter().map(|sub| Ok((s.deliveries_of(sub.id, 20)?, sub))).collect::<Result<Vec<_>, _>>()
    })
    .await?;
    let now = now_ms() / 1000;
    let subscriptions: Vec<_> = rows.iter().map(|(deliveries, s)| q::subscription(s, deliveries, now)).collect();
    Ok(respond::json(
        StatusCode::OK,
        &WebhookListV1 { version: version("webhook-list"), count: subscriptions.len() as u64, subscriptions },
    ))
}

/// `POST /webhook/extend` (paid 5.00): 30 more days for one subscription.
pub async fn extend(app: Arc<App>, mut req: Request) -> HandlerResult {
    let body: WebhookExtendRequestV1 = req.json().await?;
    let subscriber = lower(&address_field("subscriberAddr", &body.subscriber_addr)?);
    let watched = lower(&address_field("watchAddr", &body.watch_addr)?);
    let url = url::Url::parse(body.webhook_url.trim())
        .map_err(|e| ApiError::param("webhookUrl", format!("webhookUrl: {e}")))?
        .to_string();
    let found = in_store(&app, move |s| s.find_subscription(&subscriber, &watched, &url)).await?;
    let Some(subscription) = found else {
        return Err(ApiError::Missing {
            code: "unknown_subscription",
            message:
                "no subscription of this subscriber, wallet and webhook URL; subscribe first (POST /webhook/subscribe)"
                    .to_owned(),
        });
    };
    let id = subscription.id;
    let seller = app.clone();
    sell(&seller, &req, &WEBHOOK_EXTEND, |sale| async move {
        let now = now_ms() / 1000;
        let paid_until =
            in_store(&app, move |s| s.extend_subscription(id, sale.payment_id, EXTENSION_DAYS, now)).await?;
        Ok(respond::json(
            StatusCode::OK,
            &WebhookExtendedV1 { version: version("webhook-extend"), ok: true, id, paid_until: q::iso(paid_until) },
        ))
    })
    .await
}
