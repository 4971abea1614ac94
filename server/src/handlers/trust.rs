//! The trust-provider protocol's documents: discovery, keys, and the evidence answers point at.

use std::sync::Arc;

use agentrep_publish::wire::{TrustDirection, TrustEvidenceV1};
use hyper::StatusCode;
use schemars::JsonSchema;
use serde::Deserialize;

use super::snapshot;
use crate::http::{HandlerResult, Request, respond};
use crate::trust::{self, Asked, sign};
use crate::{ApiError, App};

/// `GET /.well-known/x402-trust-provider`.
pub async fn discovery(app: Arc<App>, _req: Request) -> HandlerResult {
    let date = app.snapshot().map(|s| s.date().to_owned());
    Ok(respond::json(StatusCode::OK, &trust::card::card(app.base_path(), app.trust_signer(), date)))
}

/// `GET /.well-known/jwks.json`.
pub async fn jwks(app: Arc<App>, _req: Request) -> HandlerResult {
    Ok(respond::json(StatusCode::OK, &trust::jwks(app.trust_signer())))
}

/// `GET /trust/evidence/{address}` parameters: whose evidence.
#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct EvidenceQuery {
    /// `seller` or `buyer`.
    pub direction: TrustDirection,
    /// The wallet (0x and 40 hex characters); absent for an answer that named none.
    pub wallet: Option<String>,
    /// The chain asked (CAIP-2), when it was not Base.
    pub chain: Option<String>,
}

/// `GET /trust/evidence/{address}`: the evidence document whose `sha256:` address is the path, as
/// the served snapshot and overlay make it; 404 `evidence_superseded` once they no longer do.
pub async fn evidence(app: Arc<App>, req: Request) -> HandlerResult {
    let wanted = req.param("address").to_owned();
    let q: EvidenceQuery = req.query()?;
    let wallet = q.wallet.as_deref().map(crate::http::params::address).transpose()?;
    let chain = q.chain.unwrap_or_else(|| agentrep_model::chain::BASE_CAIP2.to_owned());
    let supported_chain = chain == agentrep_model::chain::BASE_CAIP2;
    let asked = Asked { direction: q.direction, wallet, chain, supported_chain, amount: None };
    let snap = snapshot(&app)?;
    let doc: TrustEvidenceV1 = trust::evidence(&snap, app.base_path(), &asked)?;
    let bytes = sign::canonical(&doc);
    if sign::content_address(&bytes) != wanted {
        return Err(ApiError::Missing {
            code: "evidence_superseded",
            message: format!(
                "{wanted} is not the evidence the served snapshot holds for this wallet and direction (a newer snapshot or overlay answers now): evaluate again"
            ),
        });
    }
    Ok(respond::text(respond::mime::JSON, bytes))
}
