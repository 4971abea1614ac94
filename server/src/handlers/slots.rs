//! Paid slots: sponsored agents and creators (listed at `/sponsored`, apart from every ranking),
//! rug-alert watches, and the verified-trader attestation. Each checks first that it can be sold
//! (an indexed wallet or token, a wallet allowed to buy, a URL that is no private target), so a
//! refusal costs nothing.

use std::sync::Arc;

use agentrep_publish::wire::{Decision, DeployerVerdict, LaunchOutcome};
use agentrep_publish::wire::{
    FeaturedCastV1, RugAlertRequestV1, RugAlertV1, SponsorV1, SponsoredV1, TraderAttestationV1, version,
};
use agentrep_store::{AlertTarget, NewSlot, SlotKind};
use hyper::StatusCode;

use super::snapshot;
use super::writes::{address_field, in_store, lower, now_ms};
use crate::http::{HandlerResult, Request, respond};
use crate::payment::flow::{Sale, sell};
use crate::payment::prices::{
    FEATURED_CAST, PaidVariant, RUG_ALERT, SPONSOR_AGENT, SPONSOR_CREATOR, TRADER_ATTESTATION,
};
use crate::query::writes as q;
use crate::writes::{secret, target};
use crate::{ApiError, App, Upstream};

/// Days a sponsored slot lasts.
pub const SPONSOR_DAYS: i64 = 7;
/// Days a rug alert watches.
pub const RUG_ALERT_DAYS: i64 = 30;
/// What a sponsored slot is and is not.
const SLOT_NOTE: &str = "a paid placement, listed at /sponsored apart from the ranking: it changes no score, decision, tier or organic rank";

async fn sponsor(
    app: Arc<App>,
    req: Request,
    kind: SlotKind,
    price: &'static PaidVariant,
    param: &str,
) -> HandlerResult {
    let address = req.address(param)?.into_string();
    let snap = snapshot(&app)?;
    match kind {
        SlotKind::Creator => {
            let deployer = snap.index.deployer(&address).ok_or_else(|| ApiError::NotIndexed(address.clone()))?;
            if deployer.verdict == DeployerVerdict::Avoid {
                return Err(ApiError::Conflict {
                    code: "avoid_creator",
                    message: "this creator's verdict is AVOID: it cannot buy a sponsored slot (nothing was charged)"
                        .to_owned(),
                });
            }
        }
        _ => {
            let row = snap.index.agent(&address).ok_or_else(|| ApiError::NotIndexed(address.clone()))?;
            if row.decision == Decision::Block {
                return Err(ApiError::Conflict {
                    code: "blocked_wallet",
                    message: "this wallet's decision is BLOCK: it cannot buy a sponsored slot (nothing was charged)"
                        .to_owned(),
                });
            }
        }
    }
    drop(snap);
    let seller = app.clone();
    sell(&seller, &req, price, |sale: Sale| async move {
        let slot = NewSlot {
            kind,
            address: address.clone(),
            buyer: sale.payer,
            payment_id: sale.payment_id,
            days: SPONSOR_DAYS,
            alert: None,
        };
        let slot = in_store(&app, move |s| s.add_slot(&slot, now_ms() / 1000)).await?;
        Ok(respond::json(
            StatusCode::OK,
            &SponsorV1 {
                version: version("sponsor"),
                ok: true,
                kind: kind.as_str().to_owned(),
                address,
                starts_at: q::iso(slot.starts_at),
                sponsored_until: q::iso(slot.ends_at),
                note: SLOT_NOTE.to_owned(),
            },
        ))
    })
    .await
}

/// `POST /sponsor/{agentAddress}` (paid 25.00): a 7-day sponsored slot for an agent.
pub async fn sponsor_agent(app: Arc<App>, req: Request) -> HandlerResult {
    sponsor(app, req, SlotKind::Agent, &SPONSOR_AGENT, "agentAddress").await
}

/// `POST /clawd/sponsor/{creator}` (paid 10.00): a 7-day sponsored slot for a token creator.
pub async fn sponsor_creator(app: Arc<App>, req: Request) -> HandlerResult {
    sponsor(app, req, SlotKind::Creator, &SPONSOR_CREATOR, "creator").await
}

/// `GET /sponsored`: the active slots (settled payments only), apart from any ranking.
pub async fn sponsored(app: Arc<App>, _req: Request) -> HandlerResult {
    let now = now_ms() / 1000;
    let (agents, creators) =
        in_store(&app, move |s| Ok((s.active_slots(SlotKind::Agent, now)?, s.active_slots(SlotKind::Creator, now)?)))
            .await?;
    let snap = app.snapshot();
    let sponsored: Vec<_> = agents
        .iter()
        .map(|slot| q::sponsored("agent", snap.as_deref(), slot))
        .chain(creators.iter().map(|slot| q::sponsored("creator", snap.as_deref(), slot)))
        .collect();
    Ok(respond::json(
        StatusCode::OK,
        &SponsoredV1 {
            version: version("sponsored"),
            count: sponsored.len() as u64,
            sponsored,
            note: SLOT_NOTE.to_owned(),
        },
    ))
}

/// `POST /clawd/rug-alert/{tokenAddr}` (paid 2.00): a signed webhook if the token is flipped to
/// rugged within 30 days.
pub async fn rug_alert(app: Arc<App>, mut req: Request) -> HandlerResult {
    let token = req.address("tokenAddr")?.into_string();
    // Its URL is resolved before any terms: counted like the free writes.
    super::writes::limit_client(&app, &req)?;
    let body: RugAlertRequestV1 = req.json().await?;
    let subscriber = lower(&address_field("subscriberAddr", &body.subscriber_addr)?);
    {
        let snap = snapshot(&app)?;
        unrugged_launch(&snap, &token, "an alert would never fire")?;
    }
    let url = target::check(&body.webhook_url, "webhookUrl", app.writes.allow_private_targets).await?.to_string();
    let seller = app.clone();
    sell(&seller, &req, &RUG_ALERT, |sale: Sale| async move {
        let alert = AlertTarget { subscriber, url, secret: secret::new_secret() };
        let slot = NewSlot {
            kind: SlotKind::RugAlert,
            address: token.clone(),
            buyer: sale.payer,
            payment_id: sale.payment_id,
            days: RUG_ALERT_DAYS,
            alert: Some(alert),
        };
        let slot = in_store(&app, move |s| s.add_slot(&slot, now_ms() / 1000)).await?;
        let secret = slot.alert.as_ref().map(|a| a.secret.clone()).unwrap_or_default();
        Ok(respond::json(
            StatusCode::OK,
            &RugAlertV1 {
                version: version("rug-alert"),
                ok: true,
                token,
                starts_at: q::iso(slot.starts_at),
                paid_until: q::iso(slot.ends_at),
                secret,
                signing: super::webhooks::SIGNING.to_owned(),
            },
        ))
    })
    .await
}

/// The indexed launch of `token` and its deployer, refused (before any terms) when the token is
/// unknown or already rugged; `why` says what a rugged token would mean for the sale.
fn unrugged_launch<'a>(
    snap: &'a crate::ServedSnapshot,
    token: &str,
    why: &str,
) -> Result<(&'a agentrep_publish::wire::DeployerRowV1, &'a agentrep_publish::wire::TokenLaunchV1), ApiError> {
    let (deployer, launch) = snap.index.launch_of(token).ok_or_else(|| ApiError::Missing {
        code: "unknown_token",
        message: format!("{token} is not an indexed launch; only indexed tokens are sold for (nothing was charged)"),
    })?;
    if launch.outcome == LaunchOutcome::Rugged {
        return Err(ApiError::Conflict {
            code: "already_rugged",
            message: format!("this token is already rugged in the current snapshot: {why} (nothing was charged)"),
        });
    }
    Ok((deployer, launch))
}

/// `POST /clawd/trader-attestation/{address}` (paid 1.00): an EIP-712 attestation of the
/// address's `clawd-trader-{tier}` proof, signed like the score attestations.
pub async fn trader_attestation(app: Arc<App>, req: Request) -> HandlerResult {
    let wallet = req.address("address")?.into_string();
    let tier = {
        let snap = snapshot(&app)?;
        snap.directory.proofs_of(&wallet).into_iter().find_map(|p| p.strip_prefix("clawd-trader-").map(str::to_owned))
    };
    let Some(tier) = tier else {
        return Err(ApiError::Missing {
            code: "no_trader_proof",
            message: "the address has no clawd-trader-{tier} proof in the current snapshot (no source indexes trader tiers yet), so there is nothing to attest; nothing was charged".to_owned(),
        });
    };
    let seller = app.clone();
    sell(&seller, &req, &TRADER_ATTESTATION, |_| async move {
        let operator = app.operator().ok_or_else(|| ApiError::PaidRouteUnavailable {
            code: "paid_route_unavailable",
            message: "no signing key".to_owned(),
        })?;
        let snap = snapshot(&app)?;
        let now = u64::try_from(now_ms() / 1000).unwrap_or(0);
        let nonce = snap.date().replace('-', "").parse::<u64>().unwrap_or(0);
        let subject: alloy::primitives::Address =
            wallet.parse().map_err(|_| ApiError::InvalidAddress(wallet.clone()))?;
        let mut payload = operator.payload(subject, 100, now, nonce);
        payload.subject_type = format!("clawd-trader-{tier}");
        let signature = operator.sign(&payload);
        Ok(respond::json(
            StatusCode::OK,
            &TraderAttestationV1 {
                version: version("trader-attestation"),
                address: wallet,
                tier,
                payload,
                signature,
                demo_key: operator.demo,
            },
        ))
    })
    .await
}

/// `POST /clawd/featured-cast/{tokenAddr}` (paid 5.00): a Farcaster cast about an indexed token,
/// signed with the operator's signer and submitted to its hub now. The cast states the launch and
/// its deployer's record as the snapshot has them and says it was paid for. A cast the hub does
/// not take fails the sale, so nothing is charged.
pub async fn featured_cast(app: Arc<App>, req: Request) -> HandlerResult {
    let token = req.address("tokenAddr")?.into_string();
    let (text, deployer_address) = {
        let snap = snapshot(&app)?;
        let (deployer, launch) = unrugged_launch(&snap, &token, "it is not featured")?;
        if deployer.verdict == DeployerVerdict::Avoid {
            return Err(ApiError::Conflict {
                code: "avoid_creator",
                message: "this token's deployer's verdict is AVOID: its tokens are not featured (nothing was charged)"
                    .to_owned(),
            });
        }
        (cast_text(&token, launch, deployer), deployer.address.clone())
    };
    let embed = deployer_url(&app, &deployer_address);
    let seller = app.clone();
    sell(&seller, &req, &FEATURED_CAST, |_sale: Sale| async move {
        let caster = app.caster().ok_or_else(|| ApiError::PaidRouteUnavailable {
            code: "paid_route_unavailable",
            message: "featured casts are not configured".to_owned(),
        })?;
        let cast = caster.sign(&text, Some(&embed), now_ms() / 1000);
        let cast_hash = caster.submit(&cast).await.map_err(|e| ApiError::SourceUnavailable {
            code: "cast_not_taken",
            message: format!("{}; nothing was charged", Upstream::FarcasterHub.failed(&e)),
        })?;
        Ok(respond::json(
            StatusCode::OK,
            &FeaturedCastV1 {
                version: version("featured-cast"),
                ok: true,
                cast_hash,
                fid: caster.fid(),
                token,
                text,
                embed,
            },
        ))
    })
    .await
}

/// Where a deployer's profile is, absolute when `AGENTREP_DOMAIN` is set.
fn deployer_url(app: &App, deployer: &str) -> String {
    match &app.identity.domain {
        Some(domain) => format!("https://{domain}{}/deployer/{deployer}", app.base_path()),
        None => format!("{}/deployer/{deployer}", app.base_path()),
    }
}

/// The cast: the launch and its deployer's record, marked as paid, within the protocol's limit.
fn cast_text(
    token: &str,
    launch: &agentrep_publish::wire::TokenLaunchV1,
    deployer: &agentrep_publish::wire::DeployerRowV1,
) -> String {
    let score = deployer.score.map_or_else(|| "unscored".to_owned(), |s| format!("score {s}/100"));
    let text = format!(
        "Featured (paid) on agentrep: token {token} on {}, {} days old, {}. Deployer {}: {}, {score}, {} of {} launches rugged.",
        launch.platform,
        launch.age_days,
        launch.outcome,
        deployer.address,
        deployer.verdict.as_str(),
        deployer.rugged,
        deployer.launches
    );
    let mut end = text.len().min(crate::cast::MAX_CAST_BYTES);
    while !text.is_char_boundary(end) {
        end -= 1;
    }
    text[..end].to_owned()
}
