//! The service's own payloads, derived from the route table and the deployment's identity:
//! `/health`, `/status`, `/catalog`, `/discover`, `/me`.

use std::collections::BTreeMap;

use agentrep_model::METHODOLOGY_VERSION;
use agentrep_model::chain::{BASE_CAIP2, ERC8004_IDENTITY_REGISTRY, ERC8004_REPUTATION_REGISTRY, USDC_BASE};
use agentrep_publish::wire::*;

use crate::endpoints::Endpoint;
use crate::{App, ServedSnapshot};

/// The path a client calls: under the base path, or at the origin.
pub fn route_path(app: &App, def: &Endpoint) -> String {
    def.url_path(app.base_path())
}

/// The URL of a table route, if the table has it.
fn served(app: &App, path: &str) -> Option<String> {
    app.endpoints().iter().find(|r| r.path == path).map(|r| route_path(app, r))
}

/// `/health`: every endpoint of the table, free and paid.
pub fn health(app: &App, snap: Option<&ServedSnapshot>) -> HealthPayloadV1 {
    HealthPayloadV1 {
        version: version("health"),
        service: SERVICE.to_owned(),
        server_version: env!("CARGO_PKG_VERSION").to_owned(),
        status: if snap.is_some() { "ok" } else { "no-snapshot" }.to_owned(),
        snapshot_id: snap.map(|s| s.id.clone()),
        endpoints: app
            .endpoints()
            .iter()
            .flat_map(|r| {
                let free = EndpointV1 {
                    method: r.method.as_str().to_owned(),
                    path: route_path(app, r),
                    auth: "none".to_owned(),
                    price: None,
                    purpose: r.purpose.to_owned(),
                };
                let paid = r.paid.map(|p| EndpointV1 {
                    method: r.method.as_str().to_owned(),
                    path: p.path(&route_path(app, r)),
                    auth: "x402".to_owned(),
                    price: Some(p.price_text()),
                    purpose: p.purpose.to_owned(),
                });
                let wholly_paid = r.paid.is_some_and(|p| p.query.is_none());
                (!wholly_paid).then_some(free).into_iter().chain(paid)
            })
            .collect(),
    }
}

fn operator(app: &App) -> OperatorV1 {
    OperatorV1 {
        address: app.identity.pay_to.clone(),
        name: app.identity.operator_name.clone(),
        contact: app.identity.contact.clone(),
        signing_address: app.operator().map(|o| o.address()),
        signing_key_is_demo: app.operator().is_some_and(|o| o.demo),
        signed_by: app.operator().filter(|o| !o.demo).map(|o| o.address()),
    }
}

fn token(app: &App) -> TokenV1 {
    TokenV1 {
        address: app.identity.token.clone(),
        verified: app.identity.token_verified.clone(),
        note: match &app.identity.token {
            Some(_) => "the project token as configured by the operator (AGENTREP_TOKEN)".to_owned(),
            None => "this deployment has no project token; agentrep needs none to score or to take payments".to_owned(),
        },
    }
}

/// `/status`.
pub fn status(app: &App, snap: &ServedSnapshot) -> StatusV1 {
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
            x402_enabled: app.takes_payments(),
            pay_to: app.identity.pay_to.clone(),
            note: app.payments_note(),
            routes: crate::payment::needs::paid_route_states(app)
                .into_iter()
                .map(|r| PaidRouteStatusV1 {
                    route: r.route,
                    price: r.price as f64 / 1e6,
                    available: r.off_because.is_none(),
                    reason: r.off_because,
                })
                .collect(),
        },
        operator: operator(app),
        token: token(app),
        jobs: app.runs().to_vec(),
        sources: app.sources().to_vec(),
        history_filling: app.history_filling(snap),
    }
}

/// The attestation tiers (seed §2.7).
pub const TIERS: [(&str, &str); 4] = [
    ("indexed", "in the snapshot, no attestation"),
    ("attested", "an EIP-712 attestation exists and is less than 24 hours old"),
    ("silver-verified", "at least 1 external party verified it"),
    ("gold-verified", "at least 10 external parties verified it"),
];

/// `/catalog` (seed §2.7): free and paid routes from the table.
pub fn catalog(app: &App) -> CatalogV1 {
    let free = app
        .endpoints()
        .iter()
        .map(|r| CatalogFreeV1 {
            route: format!("{} {}", r.method.as_str(), route_path(app, r)),
            purpose: r.purpose.to_owned(),
        })
        .collect();
    let paid = app
        .endpoints()
        .iter()
        .filter_map(|r| {
            let p = r.paid?;
            Some(CatalogPaidV1 {
                route: format!("{} {}", r.method.as_str(), p.path(&route_path(app, r))),
                price: p.price as f64 / 1_000_000.0,
                purpose: p.purpose.to_owned(),
            })
        })
        .collect();
    let mut proof = BTreeMap::new();
    for (name, path) in [("revenue", "/revenue"), ("uniqueBuyers", "/revenue/buyers")] {
        if let Some(url) = served(app, path) {
            proof.insert(name.to_owned(), url);
        }
    }
    CatalogV1 {
        version: version("catalog"),
        agent: CatalogAgentV1 {
            name: SERVICE.to_owned(),
            description: "Reputation oracle for the agent economy: 0-100 scores, trust shields and preflight decisions for x402 sellers, ERC-8004 agents and token deployers on Base.".to_owned(),
            domain: app.identity.domain.clone(),
            basename: app.identity.basename.clone(),
            pay_to: app.identity.pay_to.clone(),
            chain: BASE_CAIP2.to_owned(),
            asset: USDC_BASE.to_owned(),
            erc8004_agent_id: app.identity.erc8004_agent_id,
        },
        free,
        tier_explanation: TIERS.iter().map(|(k, v)| ((*k).to_owned(), (*v).to_owned())).collect(),
        paid,
        transport: CatalogTransportV1 {
            x402: "paid routes answer 402 with accepts[] for x402 v1 buyers (JSON body) and v2 buyers (PAYMENT-REQUIRED header); USDC on Base".to_owned(),
            mcp: served(app, "/mcp").map_or_else(
                || "not served by this deployment yet".to_owned(),
                |url| format!("POST {url} (streamable HTTP)"),
            ),
            openapi: format!("{}/openapi.json", app.base_path()),
        },
        proof,
        license_use_hint: "Free reads may be cached and redistributed with attribution to agentrep and the snapshot date; scores are opinions computed by the published methodology, not guarantees.".to_owned(),
    }
}

/// `/discover`.
pub fn discover(app: &App, snap: &ServedSnapshot) -> DiscoverV1 {
    let mut spec = BTreeMap::new();
    spec.insert("x402".to_owned(), "https://github.com/coinbase/x402".to_owned());
    spec.insert("erc8004".to_owned(), "https://eips.ethereum.org/EIPS/eip-8004".to_owned());
    spec.insert("openapi".to_owned(), format!("{}/openapi.json", app.base_path()));
    spec.insert("methodology".to_owned(), METHODOLOGY_VERSION.to_owned());
    let mut indexed = BTreeMap::new();
    indexed.insert("sellers".to_owned(), snap.manifest.counts.sellers);
    indexed.insert("ranked".to_owned(), snap.manifest.counts.ranked);
    indexed.insert("deployers".to_owned(), snap.manifest.counts.deployers);
    indexed.insert("counterparties".to_owned(), snap.manifest.counts.counterparties);
    let mut ecosystems: Vec<String> = snap.index.rows.iter().map(|r| r.ecosystem.clone()).collect();
    ecosystems.sort();
    ecosystems.dedup();
    DiscoverV1 {
        version: version("discover"),
        spec,
        capabilities: vec![
            "seller scores 0-100 with trust shield and preflight decision".to_owned(),
            "token-deployer scores with launch outcomes".to_owned(),
            "daily leaderboards, history, movers, CSV and Parquet exports".to_owned(),
            "search, tags, categories, intent matching, batch lookups".to_owned(),
        ],
        indexed,
        ecosystems,
        submit: "sellers are indexed from the x402 Bazaar discovery lists of the facilitators agentrep crawls; list the service there and it enters the next daily snapshot".to_owned(),
        contact: app.identity.contact.clone(),
    }
}

/// `/me`.
pub fn me(app: &App, snap: &ServedSnapshot) -> MeV1 {
    let mut surfaces = BTreeMap::new();
    surfaces.insert("api".to_owned(), app.base_path().to_owned());
    surfaces.insert("openapi".to_owned(), format!("{}/openapi.json", app.base_path()));
    surfaces.insert("catalog".to_owned(), format!("{}/catalog", app.base_path()));
    if let Some(url) = served(app, "/mcp") {
        surfaces.insert("mcp".to_owned(), url);
    }
    MeV1 {
        version: version("me"),
        project: SERVICE.to_owned(),
        pitch: "Scores x402 sellers, ERC-8004 agents and token deployers 0-100 from settlements, probes, feedback and identity proofs, so agents can check before they pay.".to_owned(),
        operator: operator(app),
        token: token(app),
        erc8004: Erc8004RegistriesV1 {
            identity_registry: ERC8004_IDENTITY_REGISTRY.to_owned(),
            reputation_registry: ERC8004_REPUTATION_REGISTRY.to_owned(),
            chain: BASE_CAIP2.to_owned(),
        },
        metrics: MeMetricsV1 {
            bazaar_indexed: snap.manifest.counts.sellers,
            scored_today: snap.index.rows.iter().filter(|r| r.score.is_some()).count() as u32,
            deployers_scored: snap.index.deployers.iter().filter(|d| d.score.is_some()).count() as u32,
            badges_claimed: None,
        },
        surfaces,
        methodology: METHODOLOGY_VERSION.to_owned(),
    }
}
