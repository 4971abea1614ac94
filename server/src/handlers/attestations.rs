//! Signed score attestations: sign (or reuse the hour's signature), verify, and the store's views.

use std::sync::Arc;

use agentrep_publish::payloads::iso;
use agentrep_publish::wire::{
    AttestationEngagementV1, AttestationFeedV1, AttestationV1, AutoAttestStatusV1, EngagementEntryV1, FeedAuthorV1,
    FeedItemV1, VerifyRequestV1, version,
};
use agentrep_store::AttestationRecord;
use hyper::StatusCode;
use schemars::JsonSchema;
use serde::Deserialize;
use tracing::warn;

use super::snapshot;
use crate::attest::{self, MAX_AGE_SECS};
use crate::http::params::Bounded;
use crate::http::{HandlerResult, Request, respond};
use crate::payment::now;
use crate::query::attestations::{self as q, Attestable};
use crate::store_task::read_store;
use crate::{ApiError, App};

/// A signature is served again for this long (same snapshot, same score), so fetching an
/// attestation costs one signature and one store write per wallet per hour at most.
const REUSE_SECS: i64 = 3600;

fn origin(req: &Request) -> String {
    let host = req.headers.get(hyper::header::HOST).and_then(|h| h.to_str().ok()).unwrap_or("127.0.0.1");
    format!("http://{host}")
}

/// The attestation of `a` in `snap`: signed (or the hour's signature again), or the refusal.
/// Counts the fetch.
///
/// # Errors
/// `not_indexed` for a wallet the snapshot does not score.
pub async fn attestation_of(
    app: &Arc<App>,
    snap: &crate::ServedSnapshot,
    a: &agentrep_model::Address,
    verify_url: String,
) -> Result<AttestationV1, ApiError> {
    let now = now();
    let demo = app.operator().is_some_and(|o| o.demo);
    let body = match (q::attestable(snap, a)?, app.operator()) {
        (Attestable::Refused { reason, detail, score, sources }, _) => {
            q::refusal(snap, a, reason, detail, score, sources, demo)
        }
        (Attestable::Measured { score, sources }, None) => q::refusal(
            snap,
            a,
            "signing-not-configured",
            "this deployment has no operator key (AGENTREP_SIGNING_KEY): it signs no attestations".to_owned(),
            Some(score),
            sources,
            false,
        ),
        (Attestable::Measured { score, sources }, Some(operator)) => {
            let wallet = a.as_str().parse().expect("a checked address");
            let kept = match app.store() {
                Some(store) => {
                    let (addr, signer) = (a.to_string(), operator.address());
                    read_store(store, move |s| s.latest_attestation(&addr, &signer)).await.unwrap_or_else(|e| {
                        warn!(target: "server::attest", %e, "Attestations could not be read.");
                        None
                    })
                }
                None => None,
            }
            .filter(|r| r.snapshot == snap.id && r.score == score && now - r.timestamp < REUSE_SECS);
            let (payload, signature) = match kept {
                Some(r) => (operator.payload(wallet, r.score, r.timestamp as u64, r.nonce), r.signature),
                None => {
                    let payload = operator.payload(wallet, score, now as u64, q::nonce_of(snap));
                    let signature = operator.sign(&payload);
                    if let Some(store) = app.store() {
                        let record = AttestationRecord {
                            address: a.to_string(),
                            score,
                            timestamp: now,
                            nonce: payload.nonce,
                            snapshot: snap.id.clone(),
                            signer: operator.address(),
                            signature: signature.clone(),
                        };
                        if let Err(e) = read_store(store, move |s| s.add_attestation(&record)).await {
                            warn!(target: "server::attest", %e, "An attestation was signed but not kept.");
                        }
                    }
                    (payload, signature)
                }
            };
            q::signed(snap, a, operator, payload, signature, sources, verify_url)
        }
    };
    app.count_fetch(a.as_str(), now);
    Ok(body)
}

/// The `POST /verify` URL as the client addressed this server.
pub fn verify_url(app: &App, req: &Request) -> String {
    format!("{}{}/verify", origin(req), app.base_path())
}

/// `GET /verify-spec`.
pub async fn verify_spec(app: Arc<App>, req: Request) -> HandlerResult {
    let contract = app.snapshot().and_then(|s| s.manifest.verifier_contract.clone());
    let spec = attest::verify_spec(app.operator(), contract, verify_url(&app, &req));
    Ok(respond::json(StatusCode::OK, &spec))
}

/// `GET /attestation/{address}`.
pub async fn attestation(app: Arc<App>, req: Request) -> HandlerResult {
    let a = req.address("address")?;
    let snap = snapshot(&app)?;
    let body = attestation_of(&app, &snap, &a, verify_url(&app, &req)).await?;
    Ok(respond::json(StatusCode::OK, &body))
}

/// `GET /auto-attest-status/{address}`.
pub async fn auto_attest_status(app: Arc<App>, req: Request) -> HandlerResult {
    let a = req.address("address")?;
    let now = now();
    let latest = match (app.store(), app.operator()) {
        (Some(store), Some(operator)) => {
            let (addr, signer) = (a.to_string(), operator.address());
            read_store(store, move |s| s.latest_attestation(&addr, &signer)).await?
        }
        _ => None,
    };
    let age = latest.as_ref().map(|r| (now - r.timestamp).max(0) as u64);
    let fresh = age.is_some_and(|s| s < MAX_AGE_SECS);
    let snapshot_tier = app
        .snapshot()
        .and_then(|s| s.index.agent(a.as_str()).map(|r| r.tier.as_str().to_owned()))
        .unwrap_or_else(|| "unindexed".to_owned());
    Ok(respond::json(
        StatusCode::OK,
        &AutoAttestStatusV1 {
            version: version("auto-attest-status"),
            address: a.to_string(),
            attested: latest.is_some(),
            fresh,
            score: latest.as_ref().map(|r| r.score),
            attested_at: latest.as_ref().map(|r| iso(r.timestamp)),
            age_sec: age,
            tier: if fresh { "attested".to_owned() } else { snapshot_tier },
            attestation_url: format!("{}{}/attestation/{a}", origin(&req), app.base_path()),
            action: if fresh { "ok" } else { "refetch" }.to_owned(),
        },
    ))
}

/// `POST /verify`.
pub async fn verify(app: Arc<App>, mut req: Request) -> HandlerResult {
    let body: VerifyRequestV1 = req.json().await?;
    let operator = app.operator().map(|o| o.address());
    Ok(respond::json(StatusCode::OK, &attest::verify(&body, operator.as_deref(), now())))
}

/// `GET /attestations.json`: JSON Feed 1.1 of the newest attestation of each recently attested
/// agent.
pub async fn feed(app: Arc<App>, req: Request) -> HandlerResult {
    let recent = match app.store() {
        Some(store) => read_store(store, |s| s.recent_attestations(50)).await?,
        None => Vec::new(),
    };
    let base = format!("{}{}", origin(&req), app.base_path());
    let items = recent
        .into_iter()
        .map(|r| FeedItemV1 {
            id: format!("attestation:{}:{}", r.address, r.timestamp),
            url: format!("{base}/attestation/{}", r.address),
            title: format!("{} attested at {}", r.address, r.score),
            content_text: format!("score {} from snapshot {}, signed by {}", r.score, r.snapshot, r.signer),
            date_published: iso(r.timestamp),
            tags: vec!["attested".to_owned(), format!("score-{}0s", r.score / 10)],
        })
        .collect();
    Ok(respond::json(
        StatusCode::OK,
        &AttestationFeedV1 {
            version: "https://jsonfeed.org/version/1.1".to_owned(),
            title: "agentrep: newly attested agents".to_owned(),
            feed_url: format!("{base}/attestations.json"),
            description: "The newest EIP-712 score attestation of each recently attested agent, newest first."
                .to_owned(),
            authors: vec![FeedAuthorV1 {
                name: app.identity.operator_name.clone().unwrap_or_else(|| "agentrep operator".to_owned()),
            }],
            items,
        },
    ))
}

/// `GET /attestation-engagement` query.
#[derive(Debug, Default, Deserialize, JsonSchema)]
pub struct EngagementQuery {
    /// Rows.
    #[serde(default)]
    pub limit: Bounded<20, 1, 100>,
}

/// `GET /attestation-engagement`: ranking by attestation fetches.
pub async fn engagement(app: Arc<App>, req: Request) -> HandlerResult {
    let query: EngagementQuery = req.query()?;
    let limit = query.limit.get() as usize;
    let rows = match app.store() {
        Some(store) => {
            let flusher = app.clone();
            let _ = tokio::task::spawn_blocking(move || flusher.flush_fetches()).await;
            read_store(store, move |s| s.most_fetched(limit)).await?
        }
        None => Vec::new(),
    };
    Ok(respond::json(
        StatusCode::OK,
        &AttestationEngagementV1 {
            version: version("attestation-engagement"),
            count: rows.len() as u32,
            ranking: rows
                .into_iter()
                .enumerate()
                .map(|(i, f)| EngagementEntryV1 {
                    rank: i as u32 + 1,
                    address: f.address,
                    fetches: f.fetches,
                    last_fetched_at: iso(f.last_at),
                })
                .collect(),
            note: "Fetches of GET /attestation/{address}: a popularity count anyone can inflate, never an input \
                   to a score."
                .to_owned(),
        },
    ))
}
