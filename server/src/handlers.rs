//! One function per route; everything is answered from the in-memory snapshot.

use std::sync::Arc;

use agentrep_model::{Address, METHODOLOGY_VERSION};
use agentrep_publish::wire::*;
use agentrep_publish::writer::{layout, leaderboard_doc};
use bytes::Bytes;
use hyper::header::HeaderMap;
use hyper::{Method, Response, StatusCode, Uri};
use serde_json::value::RawValue;

use crate::App;
use crate::error::ApiError;
use crate::index::{Blob, LeaderboardKey, ServedSnapshot};
use crate::respond::{self, Body, PaymentTerms, mime};
use crate::routes::{self, Match, ROUTES, Route};

/// Price of a live re-score, micro-USDC.
const LIVE_RESCORE_PRICE: u64 = 50_000;

/// What a handler sees of a request.
#[derive(Debug)]
pub struct RequestParts<'a> {
    /// Method.
    pub method: &'a Method,
    /// URI.
    pub uri: &'a Uri,
    /// Headers.
    pub headers: &'a HeaderMap,
}

fn decode(s: &str) -> String {
    let bytes = s.as_bytes();
    let mut out = Vec::with_capacity(bytes.len());
    let mut i = 0;
    while i < bytes.len() {
        match bytes[i] {
            b'+' => out.push(b' '),
            b'%' if i + 2 < bytes.len() => {
                match u8::from_str_radix(std::str::from_utf8(&bytes[i + 1..i + 3]).unwrap_or("zz"), 16) {
                    Ok(b) => {
                        out.push(b);
                        i += 2;
                    }
                    Err(_) => out.push(b'%'),
                }
            }
            b => out.push(b),
        }
        i += 1;
    }
    String::from_utf8_lossy(&out).into_owned()
}

/// Decoded query parameters.
struct Query(Vec<(String, String)>);

impl Query {
    fn parse(uri: &Uri) -> Self {
        Self(
            uri.query()
                .unwrap_or_default()
                .split('&')
                .filter(|p| !p.is_empty())
                .map(|p| {
                    let (k, v) = p.split_once('=').unwrap_or((p, ""));
                    (decode(k), decode(v))
                })
                .collect(),
        )
    }

    fn get(&self, key: &str) -> Option<&str> {
        self.0.iter().find(|(k, _)| k == key).map(|(_, v)| v.as_str())
    }

    fn int(&self, param: routes::IntParam) -> Result<u32, ApiError> {
        let routes::IntParam { name: key, default, min, max } = param;
        let Some(raw) = self.get(key) else { return Ok(default) };
        let bad = || ApiError::InvalidParam {
            param: key,
            message: format!("{key} must be an integer from {min} to {max}, got '{raw}'"),
        };
        let v: u32 = raw.parse().map_err(|_| bad())?;
        if (min..=max).contains(&v) { Ok(v) } else { Err(bad()) }
    }

    fn flag(&self, key: &'static str) -> Result<bool, ApiError> {
        match self.get(key) {
            None | Some("0") => Ok(false),
            Some("1") => Ok(true),
            Some(other) => {
                Err(ApiError::InvalidParam { param: key, message: format!("{key} must be 1, got '{other}'") })
            }
        }
    }
}

fn address(raw: &str) -> Result<Address, ApiError> {
    Address::parse(raw).map_err(|e| ApiError::InvalidAddress(e.to_string()))
}

/// Dispatches one request.
pub fn handle(app: &App, req: &RequestParts<'_>) -> Response<Body> {
    let path = req.uri.path();
    let Some(rest) = path.strip_prefix(app.base_path.as_str()).filter(|r| r.starts_with('/')) else {
        return respond::error(&ApiError::NotFound(path.to_owned()));
    };
    let route = match routes::parse(req.method, rest) {
        Match::Found(route) => route,
        Match::WrongMethod(allowed) => return respond::error(&ApiError::MethodNotAllowed(allowed)),
        Match::NotFound => return respond::error(&ApiError::NotFound(path.to_owned())),
    };
    let snapshot = app.snapshot();
    let result = match (&route, snapshot.as_deref()) {
        (Route::Health, snap) => Ok(health(app, snap)),
        (Route::OpenApi, _) => Ok(respond::blob(req.headers, &app.openapi, mime::JSON, req.method == Method::HEAD)),
        (_, None) => Err(ApiError::NoSnapshot),
        (route, Some(snap)) => dispatch(app, snap, route, req),
    };
    result.unwrap_or_else(|err| {
        if err.status().is_server_error() {
            tracing::error!(target: "server::http", %path, %err, "Request failed.");
        }
        respond::error(&err)
    })
}

fn dispatch(
    app: &App,
    snap: &ServedSnapshot,
    route: &Route,
    req: &RequestParts<'_>,
) -> Result<Response<Body>, ApiError> {
    let q = Query::parse(req.uri);
    let head = req.method == Method::HEAD;
    let serve = |blob: &Blob, mime: &str| respond::blob(req.headers, blob, mime, head);
    match route {
        Route::Leaderboard => leaderboard(snap, &q).map(|b| serve(&b, mime::JSON)),
        Route::Score(raw) => {
            let a = address(raw)?;
            if q.flag("live")? {
                return Ok(respond::payment_required(&PaymentTerms {
                    resource: absolute_url(req),
                    description: "agentrep live re-score".to_owned(),
                    amount: LIVE_RESCORE_PRICE,
                    pay_to: app.pay_to.clone(),
                }));
            }
            match snap.wallet(layout::SCORE, a.as_str()) {
                Some(blob) => Ok(serve(blob, mime::JSON)),
                None => Ok(respond::json(StatusCode::OK, &unindexed_score(snap, &a))),
            }
        }
        Route::Preflight(raw) => {
            let a = address(raw)?;
            match snap.wallet(layout::PREFLIGHT, a.as_str()) {
                Some(blob) => Ok(serve(blob, mime::JSON)),
                None => Ok(respond::json(StatusCode::OK, &unindexed_preflight(snap, &a))),
            }
        }
        Route::TrustShield(raw) => wallet_file(snap, layout::SHIELD, &address(raw)?).map(|b| serve(b, mime::JSON)),
        Route::Deployer(raw) => wallet_file(snap, layout::DEPLOYER, &address(raw)?).map(|b| serve(b, mime::JSON)),
        Route::History(raw) => {
            let a = address(raw)?;
            let days = q.int(routes::HISTORY_DAYS)?;
            let blob = wallet_file(snap, layout::HISTORY, &a)?;
            let view = snap.history_views.get_or_build(&(a.into_string(), days), || {
                let mut view: HistoryV1 = serde_json::from_slice(&blob.body).expect("published history parses");
                let keep = view.series.len().min(days as usize);
                view.series.drain(..view.series.len() - keep);
                view.days = days;
                view.count = view.series.len() as u32;
                Blob::new(Bytes::from(serde_json::to_vec(&view).expect("serialises")))
            });
            Ok(serve(&view, mime::JSON))
        }
        Route::Badge(raw) => {
            let a = address(raw)?;
            match snap.wallet(layout::BADGE, a.as_str()) {
                Some(blob) => Ok(serve(blob, mime::SVG)),
                None => Ok(serve(&app.unindexed_badge, mime::SVG)),
            }
        }
        Route::Movers => whole(snap, layout::MOVERS).map(|b| serve(b, mime::JSON)),
        Route::ScoresCsv => whole(snap, layout::SCORES_CSV).map(|b| serve(b, mime::CSV)),
        Route::ScoresParquet => whole(snap, layout::SCORES_PARQUET).map(|b| serve(b, mime::PARQUET)),
        Route::HistoryParquet => whole(snap, layout::HISTORY_PARQUET).map(|b| serve(b, mime::PARQUET)),
        Route::Status => Ok(respond::json(StatusCode::OK, &status(app, snap))),
        Route::Health | Route::OpenApi => unreachable!("answered before dispatch"),
    }
}

fn absolute_url(req: &RequestParts<'_>) -> String {
    let host = req.headers.get(hyper::header::HOST).and_then(|h| h.to_str().ok()).unwrap_or("127.0.0.1");
    format!("http://{host}{}", req.uri.path_and_query().map_or("/", |p| p.as_str()))
}

fn wallet_file<'a>(snap: &'a ServedSnapshot, kind: &'static str, a: &Address) -> Result<&'a Blob, ApiError> {
    snap.wallet(kind, a.as_str()).ok_or_else(|| ApiError::NotIndexed(a.to_string()))
}

fn whole<'a>(snap: &'a ServedSnapshot, name: &'static str) -> Result<&'a Blob, ApiError> {
    snap.files.get(name).ok_or_else(|| ApiError::NotFound(name.to_owned()))
}

/// Network filter values and the CAIP-2 prefix they select.
fn network_prefix(network: &str) -> Option<&'static str> {
    match network {
        "base" | "eip155:8453" => Some("eip155:8453"),
        "base-sepolia" | "eip155:84532" => Some("eip155:84532"),
        "polygon" | "eip155:137" => Some("eip155:137"),
        "solana" => Some("solana:"),
        _ => None,
    }
}

fn leaderboard(snap: &ServedSnapshot, q: &Query) -> Result<Arc<Blob>, ApiError> {
    let key = LeaderboardKey {
        limit: q.int(routes::LEADERBOARD_LIMIT)?,
        ecosystem: q.get("ecosystem").filter(|e| !e.is_empty()).map(str::to_owned),
        network: q.get("network").filter(|n| !n.is_empty() && *n != "all").map(str::to_owned),
        sparkline: q.flag("sparkline")?,
    };
    let prefix = match &key.network {
        Some(n) => Some(network_prefix(n).ok_or_else(|| ApiError::InvalidParam {
            param: "network",
            message: format!("network must be all, base, eip155:8453, base-sepolia, polygon or solana, got '{n}'"),
        })?),
        None => None,
    };
    Ok(snap.leaderboard_views.get_or_build(&key, || {
        let results: Vec<&RawValue> = snap
            .entries
            .iter()
            .filter(|e| key.ecosystem.as_deref().is_none_or(|eco| e.ecosystem == eco))
            .filter(|e| prefix.is_none_or(|p| e.network.starts_with(p)))
            .take(key.limit as usize)
            .map(|e| if key.sparkline { &*e.with_sparkline } else { &*e.plain })
            .collect();
        let filters = FiltersV1 {
            ecosystem: key.ecosystem.clone(),
            network: key.network.clone(),
            limit: key.limit,
            with_sparkline: key.sparkline,
        };
        let doc = leaderboard_doc(&snap.generated_at, &snap.manifest.snapshot_date, &snap.stats, filters, results);
        Blob::new(Bytes::from(serde_json::to_vec(&doc).expect("leaderboard serialises")))
    }))
}

fn cross_references(snap: &ServedSnapshot, a: &Address) -> CrossReferencesV1 {
    let c = snap.counterparties.get(a.as_str());
    CrossReferencesV1 {
        payments_made: c.map_or(0, |c| c.payments),
        sellers_paid: c.map_or(0, |c| c.sellers_paid),
        addresses_funded: c.map_or(0, |c| c.funded),
        denylisted: c.is_some_and(|c| c.denylisted),
        deployer: snap.wallet(layout::DEPLOYER, a.as_str()).is_some(),
    }
}

fn unindexed_score(snap: &ServedSnapshot, a: &Address) -> UnindexedScoreV1 {
    let xref = cross_references(snap, a);
    let mut next_actions = vec!["not a low score: this wallet sells nothing agentrep has indexed".to_owned()];
    if xref.deployer {
        next_actions.push(format!("see the deployer profile at /deployer/{a}"));
    }
    if xref.denylisted {
        next_actions.push("do not pay: the address is on the denylist".to_owned());
    } else {
        next_actions.push("submit the agent's description file through POST /discover to have it indexed".to_owned());
        next_actions.push("a paid live re-score (?live=1, 0.05 USDC) reads its sources now".to_owned());
    }
    UnindexedScoreV1 {
        version: version("score"),
        agent_address: a.to_string(),
        score: None,
        score_basis: "not-indexed".to_owned(),
        decision: if xref.denylisted { "BLOCK" } else { "CAUTION" }.to_owned(),
        preliminary: PreliminaryV1 {
            address_class: None,
            proxy_implementation: None,
            code_check:
                "EOA/contract detection and ERC-1167 unwrap need a chain RPC, which this deployment does not configure"
                    .to_owned(),
            cross_references: xref,
            next_actions,
        },
        snapshot_date: snap.manifest.snapshot_date.clone(),
        source: snap.id.clone(),
        billed: "free".to_owned(),
        methodology: METHODOLOGY_VERSION.to_owned(),
    }
}

fn unindexed_preflight(snap: &ServedSnapshot, a: &Address) -> UnindexedPreflightV1 {
    let xref = cross_references(snap, a);
    let mut signals = vec!["not indexed: no score (not a low score)".to_owned()];
    if xref.payments_made > 0 {
        signals.push(format!("paid {} settlements to {} indexed sellers", xref.payments_made, xref.sellers_paid));
    }
    if xref.denylisted {
        signals.push("denylisted".to_owned());
    }
    UnindexedPreflightV1 {
        version: version("preflight"),
        address: a.to_string(),
        decision: if xref.denylisted { "BLOCK" } else { "CAUTION" }.to_owned(),
        score: None,
        score_basis: "not-indexed".to_owned(),
        color: if xref.denylisted { "red" } else { "yellow" }.to_owned(),
        signals,
        snapshot_date: snap.manifest.snapshot_date.clone(),
        methodology: METHODOLOGY_VERSION.to_owned(),
    }
}

fn health(app: &App, snap: Option<&ServedSnapshot>) -> Response<Body> {
    let payload = HealthPayloadV1 {
        version: version("health"),
        service: SERVICE.to_owned(),
        server_version: env!("CARGO_PKG_VERSION").to_owned(),
        status: if snap.is_some() { "ok" } else { "no-snapshot" }.to_owned(),
        snapshot_id: snap.map(|s| s.id.clone()),
        endpoints: ROUTES
            .iter()
            .flat_map(|r| {
                let free = EndpointV1 {
                    method: r.method.to_owned(),
                    path: format!("{}{}", app.base_path, r.path),
                    auth: "none".to_owned(),
                    price: None,
                    purpose: r.purpose.to_owned(),
                };
                let paid = r.paid.map(|p| EndpointV1 {
                    method: r.method.to_owned(),
                    path: format!("{}{}?{}", app.base_path, r.path, p.query),
                    auth: "x402".to_owned(),
                    price: Some(p.price.to_owned()),
                    purpose: p.purpose.to_owned(),
                });
                std::iter::once(free).chain(paid)
            })
            .collect(),
    };
    respond::json(StatusCode::OK, &payload)
}

fn status(app: &App, snap: &ServedSnapshot) -> StatusV1 {
    StatusV1 {
        version: version("status"),
        snapshot_id: snap.id.clone(),
        snapshot_date: snap.manifest.snapshot_date.clone(),
        generated_at: snap.manifest.generated_at.clone(),
        loaded_at: app.loaded_at(),
        methodology: snap.manifest.methodology.clone(),
        input_digest: snap.manifest.input_digest.clone(),
        counts: snap.manifest.counts.clone(),
        retained_snapshots: snap.retained.clone(),
        payments: PaymentsStatusV1 {
            x402_enabled: false,
            pay_to: app.pay_to.clone(),
            note: "paid routes answer 402 with x402 v1 and v2 terms; settlement is not enabled yet, so no payment is taken".to_owned(),
        },
        jobs: app.runs().to_vec(),
        sources: app.sources().to_vec(),
    }
}
