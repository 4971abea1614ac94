//! The one route table. Each row is the router's input (method, path template, handler), and
//! the description `/health`, `/catalog` and `/openapi.json` publish (purpose, price, parameter,
//! body and response schemas, error statuses): a route cannot exist in one and not the others.

use std::sync::{Arc, LazyLock};

use hyper::Response;
use schemars::JsonSchema;

use crate::endpoints::{Endpoint, InputType, SchemaFn, Verb};
use crate::handler;
use crate::handlers::{
    agents, attestations, deployers, directory, exports, lists, pages, paid, ranking, service, slots, webhooks, writes,
};
use crate::http::respond::{self, mime};
use crate::http::{self, Body, Handler, Match, Request, RequestBody, Router};
use crate::payment::prices::{
    AUDIT, AUDIT_BATCH, CLAWD_EXPORT, CREATOR_AUDIT, FEATURED_CAST, LIVE_RESCORE, PLACE_SNAPSHOT, PROOFS_EXPORT,
    PaidVariant, RISK_REPORT, RUG_ALERT, SPONSOR_AGENT, SPONSOR_CREATOR, TRADER_ATTESTATION, WEBHOOK_EXTEND,
};
use crate::{ApiError, App, ServerConfig, mcp, openapi, query};
use agentrep_publish::wire;

/// One row of the table: an endpoint and the handler that answers it.
#[derive(Debug)]
pub struct RouteDef {
    /// What the route is.
    pub endpoint: Endpoint,
    /// The code that answers it.
    pub handler: Handler,
}

/// Builders that pass through to [`Endpoint`]'s, so a row reads as one chain.
macro_rules! endpoint_builders {
    ($($name:ident $(<$t:ident: $bound:ident>)? ($($arg:ident: $ty:ty),*)),* $(,)?) => {
        $(
            const fn $name$(<$t: $bound>)?(self, $($arg: $ty),*) -> Self {
                Self { endpoint: self.endpoint.$name$(::<$t>)?($($arg),*), handler: self.handler }
            }
        )*
    };
}

impl RouteDef {
    const fn get(path: &'static str, group: &'static str, handler: Handler, purpose: &'static str) -> Self {
        Self { endpoint: Endpoint::new(Verb::Get, path, group, purpose), handler }
    }

    const fn post(path: &'static str, group: &'static str, handler: Handler, purpose: &'static str) -> Self {
        Self { endpoint: Endpoint::new(Verb::Post, path, group, purpose), handler }
    }

    endpoint_builders! {
        query<T: InputType>(), body<T: InputType>(), returns<T: JsonSchema>(),
        body_with(schema: SchemaFn), errors_with(schema: SchemaFn), returns_with(schema: SchemaFn),
        serves(content_type: &'static str), errors(errors: &'static [u16]), paid(paid: PaidVariant),
        without_snapshot(), at_origin(),
    }
}

/// Every endpoint of the table, in its order: what [`crate::App`] describes the service with.
pub fn endpoints() -> &'static [&'static Endpoint] {
    static ENDPOINTS: LazyLock<Vec<&'static Endpoint>> = LazyLock::new(|| ROUTES.iter().map(|r| &r.endpoint).collect());
    &ENDPOINTS
}

/// The state a server or an MCP process answers from: a new [`App`] described by this table.
pub fn app(config: &ServerConfig) -> App {
    App::new(config, endpoints())
}

/// Answers one request: route it through the table, run its handler, map errors to their JSON
/// body, add CORS.
pub async fn dispatch(app: Arc<App>, req: hyper::Request<RequestBody>) -> Response<Body> {
    static ROUTER: LazyLock<Router> = LazyLock::new(|| Router::new(endpoints()));
    let (parts, body) = req.into_parts();
    let path = parts.uri.path();
    let rest = path.strip_prefix(app.base_path()).filter(|r| r.starts_with('/'));
    let (route, params) = match ROUTER.route(&parts.method, rest, path) {
        Match::Found(route, params) => (route, params),
        Match::Options(allowed) => return http::preflight(&allowed),
        Match::WrongMethod(allowed) => return respond::error(&ApiError::MethodNotAllowed(allowed)),
        Match::NotFound => return respond::error(&ApiError::NotFound(path.to_owned())),
    };
    let def = &ROUTES[route];
    let request = Request::new(parts, params, &def.endpoint, body);
    http::run(app, def.handler, request).await
}

/// What `POST /mcp` answers (under the base path, and at the origin where the original serves it).
const MCP_PURPOSE: &str = "MCP server, streamable HTTP (JSON or SSE by Accept): protocol 2026-07-28 (stateless) and the initialize-based 2025-11-25, 2025-06-18, 2025-03-26 and 2024-11-05 (a notification gets 202); the mainstreet_* tools and one agentrep_* tool per read";

/// Statuses of a signed write besides 200: a bad body (400), a signature or message that is not
/// the signer's (401), the body's size and type (413, 415), the rate limits (429), the store (503).
const WRITE_ERRORS: &[u16] = &[400, 401, 413, 415, 429, 503];

/// Statuses of `POST /mcp` besides 200, all with a JSON-RPC body but 202 (a notification, no
/// body): 400 and 404 (JSON-RPC errors of 2026-07-28 requests), 403 (an invalid `Origin`), 406 (an
/// `Accept` without JSON or SSE), 413 and 415 (the body).
const MCP_ERRORS: &[u16] = &[202, 400, 403, 404, 406, 413, 415];

/// Every route, in the order `/health`, `/catalog` and `/openapi.json` list them.
pub const ROUTES: &[RouteDef] = &[
    // Scores of one wallet.
    RouteDef::get(
        "/score/{address}",
        "scores",
        handler!(agents::score),
        "free score preview (seed 2.4); unknown addresses get preliminary signals, never a null body",
    )
    .query::<query::agents::ScoreQuery>()
    .returns_with(openapi::either::<wire::ScorePayloadV1, wire::UnindexedScoreV1>)
    .errors(&[400, 402, 403, 404, 409, 501, 503])
    .paid(LIVE_RESCORE),
    RouteDef::get("/audit/{agentAddress}", "paid", handler!(agents::audit), AUDIT.purpose)
        .returns::<wire::AuditV1>()
        .errors(&[400, 402, 404, 409, 503])
        .paid(AUDIT),
    RouteDef::get("/risk-report/{address}", "paid", handler!(paid::risk_report), RISK_REPORT.purpose)
        .returns::<wire::RiskReportV1>()
        .errors(&[400, 402, 404, 409, 503])
        .paid(RISK_REPORT),
    RouteDef::post("/audit-batch", "paid", handler!(paid::audit_batch), AUDIT_BATCH.purpose)
        .body::<wire::AuditBatchRequestV1>()
        .returns::<wire::AuditBatchV1>()
        .errors(&[400, 402, 404, 409, 413, 415, 503])
        .paid(AUDIT_BATCH),
    RouteDef::post("/audit-bulk", "paid", handler!(paid::audit_batch), "the original's name for POST /audit-batch (same body, answer and price)")
        .body::<wire::AuditBatchRequestV1>()
        .returns::<wire::AuditBatchV1>()
        .errors(&[400, 402, 404, 409, 413, 415, 503])
        .paid(AUDIT_BATCH),
    RouteDef::get("/proofs/export", "paid", handler!(paid::proofs_export), PROOFS_EXPORT.purpose)
        .query::<query::directory::ProofsQuery>()
        .returns::<wire::ProofsExportV1>()
        .errors(&[400, 402, 409, 503])
        .paid(PROOFS_EXPORT),
    RouteDef::get("/clawd/export", "paid", handler!(paid::clawd_export), CLAWD_EXPORT.purpose)
        .query::<crate::handlers::paid::ClawdExportQuery>()
        .returns::<wire::ClawdExportV1>()
        .errors(&[400, 402, 404, 409, 503])
        .paid(CLAWD_EXPORT),
    RouteDef::get("/clawd/creator-audit/{address}", "paid", handler!(paid::creator_audit), CREATOR_AUDIT.purpose)
        .returns::<wire::CreatorAuditV1>()
        .errors(&[400, 402, 404, 409, 503])
        .paid(CREATOR_AUDIT),
    RouteDef::get("/snapshot/{placeId}", "paid", handler!(paid::place_snapshot), PLACE_SNAPSHOT.purpose)
        .returns::<wire::PlaceSnapshotV1>()
        .errors(&[400, 402, 404, 409, 503])
        .paid(PLACE_SNAPSHOT)
        .without_snapshot(),
    RouteDef::get("/revenue", "service", handler!(paid::revenue), "the service's own revenue, from its payment ledger")
        .returns::<wire::RevenueV1>()
        .without_snapshot(),
    RouteDef::get("/revenue/buyers", "service", handler!(paid::revenue_buyers), "unique buyers of the service's paid answers")
        .returns::<wire::RevenueBuyersV1>()
        .without_snapshot(),
    RouteDef::get(
        "/attestation/{address}",
        "attestations",
        handler!(attestations::attestation),
        "EIP-712 signed score attestation (the original's Attestation type, domain {name: agentrep, version: 1, chainId: 8453}); signed: false with a reason when the score is unmeasured or degraded, or the deployment has no operator key",
    )
    .returns::<wire::AttestationV1>()
    .errors(&[400, 404]),
    RouteDef::get(
        "/auto-attest-status/{address}",
        "attestations",
        handler!(attestations::auto_attest_status),
        "whether the wallet's newest attestation is fresh (under 24 hours) or must be fetched again",
    )
    .returns::<wire::AutoAttestStatusV1>()
    .errors(&[400]),
    RouteDef::post(
        "/verify",
        "attestations",
        handler!(attestations::verify),
        "server-side check of an attestation: signer, freshness (24 h, 5 min of clock skew), threshold",
    )
    .body::<wire::VerifyRequestV1>()
    .returns::<wire::VerifyResponseV1>()
    .errors(&[400, 413, 415])
    .without_snapshot(),
    RouteDef::get(
        "/verify-spec",
        "attestations",
        handler!(attestations::verify_spec),
        "the EIP-712 domain, types and fields of this deployment's attestations, the address that signs them and the verifier contract that checks them on chain",
    )
    .returns::<wire::VerifySpecV1>()
    .without_snapshot(),
    RouteDef::get(
        "/attestations.json",
        "attestations",
        handler!(attestations::feed),
        "JSON Feed 1.1 of newly attested agents",
    )
    .returns::<wire::AttestationFeedV1>()
    .without_snapshot(),
    RouteDef::get(
        "/attestation-engagement",
        "attestations",
        handler!(attestations::engagement),
        "ranking by attestation fetches (a popularity count, never a score input)",
    )
    .query::<crate::handlers::attestations::EngagementQuery>()
    .returns::<wire::AttestationEngagementV1>()
    .errors(&[400])
    .without_snapshot(),
    RouteDef::get(
        "/preflight/{address}",
        "scores",
        handler!(agents::preflight),
        "decision BLOCK / CAUTION / PROCEED / PROCEED_LOW_VALUE with score, shield and category",
    )
    .returns_with(openapi::either::<wire::PreflightV1, wire::UnindexedPreflightV1>)
    .errors(&[400]),
    RouteDef::get(
        "/preflight",
        "scores",
        handler!(agents::preflight_query),
        "?url=: whether to pay a resource URL (its listings, the listed seller's decision, warnings for an unlisted URL); ?address=: the same as /preflight/{address}",
    )
    .query::<query::resource::PreflightQuery>()
    .returns_with(openapi::one_of3::<wire::UrlPreflightV1, wire::PreflightV1, wire::UnindexedPreflightV1>)
    .errors(&[400]),
    RouteDef::post(
        "/preflight",
        "scores",
        handler!(agents::preflight_resource),
        "whether to pay a resource URL, given the 402 it answered (v1 body or v2 PaymentRequired): the wallet it asks to be paid and its decision, with warnings for a decoy payTo, a price above the listing, a network or asset the listings do not name, an unlisted URL",
    )
    .body::<wire::UrlPreflightRequestV1>()
    .returns::<wire::UrlPreflightV1>()
    .errors(&[400, 413, 415]),
    RouteDef::get("/trust-shield/{address}", "scores", handler!(agents::trust_shield), "shield colour and flags only")
        .returns::<wire::ShieldPayloadV1>()
        .errors(&[400, 404]),
    RouteDef::get("/history/{address}", "scores", handler!(agents::history), "daily score series")
        .query::<query::agents::HistoryQuery>()
        .returns::<wire::HistoryV1>()
        .errors(&[400, 404]),
    RouteDef::get(
        "/badge/{address}.svg",
        "scores",
        handler!(agents::badge),
        "embeddable SVG badge (grey 'not indexed' for unknown addresses)",
    )
    .serves(mime::SVG)
    .errors(&[400]),
    RouteDef::get(
        "/shield/{address}.json",
        "scores",
        handler!(agents::shields_badge),
        "shields.io endpoint badge JSON for a README",
    )
    .returns::<wire::ShieldsEndpointV1>()
    .errors(&[400]),
    RouteDef::post(
        "/scores",
        "scores",
        handler!(agents::batch_scores),
        "agent score, deployer score, proof count and any-trust of up to 200 addresses",
    )
    .body::<query::agents::BatchScoresRequest>()
    .returns::<wire::BatchScoresV1>()
    .errors(&[400, 413, 415]),
    // Ranking and discovery.
    RouteDef::get(
        "/leaderboard",
        "ranking",
        handler!(ranking::leaderboard),
        "ranked agents, score descending (seed 2.1)",
    )
    .query::<query::ranking::LeaderboardQuery>()
    .returns::<wire::LeaderboardV1>()
    .errors(&[400]),
    RouteDef::get(
        "/compare",
        "ranking",
        handler!(ranking::compare),
        "two agents side by side: winner, margin, recommendation",
    )
    .query::<query::ranking::CompareQuery>()
    .returns::<wire::CompareV1>()
    .errors(&[400]),
    RouteDef::get("/movers", "ranking", handler!(ranking::movers), "largest daily score rises and falls")
        .query::<query::ranking::MoversQuery>()
        .returns::<wire::MoversV1>()
        .errors(&[400]),
    RouteDef::get(
        "/featured",
        "ranking",
        handler!(ranking::featured),
        "four picks: trending, newcomer, volume leader, hidden gem",
    )
    .returns::<wire::FeaturedV1>(),
    RouteDef::get("/trending", "ranking", handler!(ranking::trending), "largest 7-day score gains among ranked agents")
        .query::<query::ranking::TrendingQuery>()
        .returns::<wire::TrendingV1>()
        .errors(&[400]),
    RouteDef::get(
        "/search",
        "ranking",
        handler!(ranking::search),
        "agents by address prefix, tag or description words; relevance, then score",
    )
    .query::<query::search::SearchQuery>()
    .returns::<wire::SearchV1>()
    .errors(&[400]),
    RouteDef::get(
        "/recommend",
        "ranking",
        handler!(ranking::recommend),
        "payable agents like the given one (category and score band) with the rationale",
    )
    .query::<query::search::RecommendQuery>()
    .returns::<wire::RecommendV1>()
    .errors(&[400, 404]),
    RouteDef::get("/tags", "ranking", handler!(ranking::tags), "the 100 most used tags with counts")
        .returns::<wire::TagsV1>(),
    RouteDef::get("/tags/{tag}", "ranking", handler!(ranking::tag), "agents with a tag, score descending")
        .query::<query::search::TagQuery>()
        .returns::<wire::TagV1>()
        .errors(&[400]),
    RouteDef::post(
        "/match",
        "ranking",
        handler!(ranking::match_intent),
        "payable agents for an intent, ranked by score × match strength, with how to pay",
    )
    .body::<query::search::MatchRequest>()
    .returns::<wire::MatchResponseV1>()
    .errors(&[400, 413, 415]),
    RouteDef::get("/random", "ranking", handler!(ranking::random), "one ranked agent drawn at random")
        .query::<query::ranking::RandomQuery>()
        .returns::<wire::RandomV1>()
        .errors(&[400]),
    // Deployers.
    RouteDef::get(
        "/deployer/{address}",
        "deployers",
        handler!(deployers::deployer),
        "token-deployer score, verdict, outcomes and launches",
    )
    .returns::<wire::DeployerV1>()
    .errors(&[400, 404]),
    RouteDef::get("/deployers/top", "deployers", handler!(deployers::top), "scored deployers, score descending")
        .query::<query::deployers::DeployersQuery>()
        .returns::<wire::DeployersTopV1>()
        .errors(&[400]),
    RouteDef::get(
        "/deployers/sketchy",
        "deployers",
        handler!(deployers::sketchy),
        "serial deployers (3+ launches) whose tokens mostly rugged",
    )
    .query::<query::deployers::DeployersQuery>()
    .returns::<wire::DeployersSketchyV1>()
    .errors(&[400]),
    RouteDef::get(
        "/deployers/stats",
        "deployers",
        handler!(deployers::stats),
        "per launch platform: sample size and rug rate",
    )
    .returns::<wire::DeployersStatsV1>(),
    RouteDef::get(
        "/virtuals-rep/{tokenAddress}",
        "deployers",
        handler!(deployers::token_rep),
        "an agent token's operator (the wallet that launched it) with its deployer and seller reputation",
    )
    .returns::<wire::TokenRepV1>()
    .errors(&[400, 404]),
    RouteDef::get(
        "/token/{address}/buyer-trust",
        "deployers",
        handler!(deployers::buyer_trust),
        "verdict on a launched token's buyers (STRONG_BUYER_BASE / BAD_BUYER_BASE / AGENT_BUYER_BASE / MIXED) with \
         each large buyer's class and shield",
    )
    .returns::<wire::BuyerTrustV1>()
    .errors(&[400, 404]),
    // Lists.
    RouteDef::get("/categories", "lists", handler!(lists::categories), "the 30 categories with their agent counts")
        .returns::<wire::CategoriesV1>(),
    RouteDef::get(
        "/by-category/{cat}",
        "lists",
        handler!(lists::by_category),
        "agents of a category; safeOnly=1 drops red-shielded ones",
    )
    .query::<query::lists::ByCategoryQuery>()
    .returns::<wire::ByCategoryV1>()
    .errors(&[400, 404]),
    RouteDef::get(
        "/bazaar-scored",
        "lists",
        handler!(lists::bazaar_scored),
        "every marketplace resource with its seller's trust score",
    )
    .query::<query::lists::BazaarQuery>()
    .returns::<wire::BazaarScoredV1>()
    .errors(&[400]),
    RouteDef::get(
        "/health-summary",
        "lists",
        handler!(lists::health_summary),
        "probe coverage: probed, alive, dead, uptime, best alive agents (seed 2.6)",
    )
    .returns::<wire::HealthSummaryV1>(),
    RouteDef::get(
        "/proofs",
        "lists",
        handler!(directory::proofs),
        "identity proof types with counts; with type, one page of the addresses holding it",
    )
    .query::<query::directory::ProofsQuery>()
    .returns::<wire::ProofsV1>()
    .errors(&[400]),
    RouteDef::get(
        "/denylist",
        "lists",
        handler!(directory::denylist),
        "known-bad addresses with their sources; forced red in score and preflight",
    )
    .query::<query::directory::DenylistQuery>()
    .returns::<wire::DenylistV1>()
    .errors(&[400]),
    RouteDef::get(
        "/top-buyers",
        "lists",
        handler!(directory::top_buyers),
        "wallets that spent the most on indexed sellers",
    )
    .query::<query::directory::TopBuyersQuery>()
    .returns::<wire::TopBuyersV1>()
    .errors(&[400]),
    RouteDef::get(
        "/agents-of-interest",
        "lists",
        handler!(directory::agents_of_interest),
        "shortlists: high-activity-low-trust, recent-newcomers, top-by-proofs (seed 2.5)",
    )
    .query::<query::directory::AgentsOfInterestQuery>()
    .returns::<wire::AgentsOfInterestV1>()
    .errors(&[400]),
    RouteDef::get(
        "/crawlers",
        "lists",
        handler!(directory::crawlers),
        "marketplace crawl sources ranked by crawler score",
    )
    .returns::<wire::CrawlersV1>(),
    // One wallet's directory entries.
    RouteDef::get(
        "/funded-by/{address}",
        "wallets",
        handler!(directory::funded_by),
        "the address's first USDC funder and the funding chain behind it",
    )
    .returns::<wire::FundedByV1>()
    .errors(&[400]),
    RouteDef::get(
        "/recent-activity/{address}",
        "wallets",
        handler!(directory::recent_activity),
        "last 7 days of earnings, spend and unique buyers",
    )
    .returns::<wire::RecentActivityV1>()
    .errors(&[400]),
    RouteDef::get(
        "/canonical-id/{address}",
        "wallets",
        handler!(directory::canonical_id),
        "basename, ERC-8004 id, agent description URL, tier",
    )
    .returns::<wire::CanonicalIdV1>()
    .errors(&[400]),
    RouteDef::get(
        "/has-mainstreet-ref/{address}",
        "wallets",
        handler!(directory::has_ref),
        "whether the agent's registration file links back to this service",
    )
    .returns::<wire::HasRefV1>()
    .errors(&[400]),
    RouteDef::get(
        "/snippet/{address}",
        "wallets",
        handler!(directory::snippet),
        "the JSON block an agent adds to its registration file to link here",
    )
    .returns::<wire::SnippetV1>()
    .errors(&[400]),
    // Presentation.
    RouteDef::get(
        "/embed/widget/{address}",
        "pages",
        handler!(pages::widget),
        "embeddable HTML reputation card (for an iframe)",
    )
    .serves(mime::HTML)
    .errors(&[400]),
    RouteDef::get(
        "/og.png",
        "pages",
        handler!(pages::og),
        "social image (SVG body): the leaderboard's top 5, or one agent with addr",
    )
    .query::<query::pages::OgQuery>()
    .serves(mime::SVG)
    .errors(&[400]),
    RouteDef::get(
        "/frame/leaderboard",
        "pages",
        handler!(pages::frame),
        "HTML with frame metadata around the leaderboard image",
    )
    .serves(mime::HTML),
    RouteDef::get("/", "pages", handler!(pages::leaderboard), "the leaderboard page, 50 ranked agents a page")
        .query::<query::pages::LeaderboardPageQuery>()
        .serves(mime::HTML)
        .errors(&[400])
        .at_origin(),
    RouteDef::get(
        "/agent/{address}",
        "pages",
        handler!(pages::agent),
        "an agent's profile page: score, shield, breakdown, history, metrics, data links",
    )
    .serves(mime::HTML)
    .errors(&[400, 404])
    .at_origin(),
    // Exports.
    RouteDef::get(
        "/scores.csv",
        "exports",
        handler!(exports::scores_csv),
        "CSV export of every scored seller, ranked ones first",
    )
    .serves(mime::CSV),
    RouteDef::get("/exports/scores.parquet", "exports", handler!(exports::scores_parquet), "Parquet export of scores")
        .serves(mime::PARQUET),
    RouteDef::get(
        "/exports/history.parquet",
        "exports",
        handler!(exports::history_parquet),
        "Parquet export of daily score history",
    )
    .serves(mime::PARQUET),
    // The service.
    RouteDef::get("/health", "service", handler!(service::health), "every endpoint with auth and price")
        .returns::<wire::HealthPayloadV1>()
        .without_snapshot(),
    RouteDef::get(
        "/status",
        "service",
        handler!(service::status),
        "snapshot, payment state, operator, token, recent job runs, ingest sources",
    )
    .returns::<wire::StatusV1>(),
    RouteDef::get(
        "/catalog",
        "service",
        handler!(service::catalog),
        "free and paid routes with prices, tiers, transports (seed 2.7)",
    )
    .returns::<wire::CatalogV1>()
    .without_snapshot(),
    RouteDef::get(
        "/discover",
        "service",
        handler!(service::discover),
        "specs, capabilities, indexed sets and how to get indexed",
    )
    .returns::<wire::DiscoverV1>(),
    RouteDef::get(
        "/me",
        "service",
        handler!(service::me),
        "who runs this deployment: operator, token, ERC-8004 registries, surfaces",
    )
    .returns::<wire::MeV1>(),
    RouteDef::post("/mcp", "service", handler!(mcp::http::post), MCP_PURPOSE)
        .body_with(mcp::schema::request)
        .returns_with(mcp::schema::response)
        .errors(MCP_ERRORS)
        .errors_with(mcp::schema::response)
        .without_snapshot(),
    RouteDef::post("/mcp", "service", handler!(mcp::http::post), MCP_PURPOSE)
        .body_with(mcp::schema::request)
        .returns_with(mcp::schema::response)
        .errors(MCP_ERRORS)
        .errors_with(mcp::schema::response)
        .without_snapshot()
        .at_origin(),
    // What users write (the write store), and the paid slots.
    RouteDef::post("/receipt", "writes", handler!(writes::receipt), "store a buyer's EIP-191 signed receipt (marker `mainstreet receipt`); its fields are the message's, and it counts in a score only once the rebuild finds its payment")
        .body::<wire::ReceiptRequestV1>()
        .returns::<wire::ReceiptAcceptedV1>()
        .errors(WRITE_ERRORS)
        .without_snapshot(),
    RouteDef::get("/receipts", "writes", handler!(writes::receipts), "a seller's signed receipts with their aggregate (total, successRate, avgRating, avgLatency)")
        .query::<writes::ForQuery>()
        .returns::<wire::ReceiptsV1>()
        .errors(&[400, 503])
        .without_snapshot(),
    RouteDef::post("/badge/claim", "writes", handler!(writes::claim_badge), "claim a wallet's badge with its EIP-191 signature: the badge URL and an embed snippet")
        .body::<wire::BadgeClaimRequestV1>()
        .returns::<wire::BadgeClaimedV1>()
        .errors(WRITE_ERRORS)
        .without_snapshot(),
    RouteDef::get("/badges", "writes", handler!(writes::badges), "wallets that claimed their badge, newest first")
        .returns::<wire::BadgesV1>()
        .errors(&[503])
        .without_snapshot(),
    RouteDef::post("/watchlist", "writes", handler!(writes::watch), "add a wallet to a subscriber's watchlist with the subscriber's EIP-191 signature; moves are digested daily")
        .body::<wire::WatchRequestV1>()
        .returns::<wire::WatchAddedV1>()
        .errors(WRITE_ERRORS)
        .without_snapshot(),
    RouteDef::get("/watchlist", "writes", handler!(writes::watchlist), "a subscriber's watched wallets with their current scores and the last digest's")
        .query::<writes::ForQuery>()
        .returns::<wire::WatchlistV1>()
        .errors(&[400, 503])
        .without_snapshot(),
    RouteDef::post("/webhook/subscribe", "writes", handler!(webhooks::subscribe), "subscribe a URL to a wallet's score changes (threshold 1-100, default 5; free for 30 days; 5 an hour per client); deliveries are signed with Standard Webhooks")
        .body::<wire::WebhookSubscribeRequestV1>()
        .returns::<wire::WebhookSubscribedV1>()
        .errors(&[400, 413, 415, 429, 503])
        .without_snapshot(),
    RouteDef::get("/webhook/list", "writes", handler!(webhooks::list), "a subscriber's webhook subscriptions and the state of their newest deliveries")
        .query::<writes::ForQuery>()
        .returns::<wire::WebhookListV1>()
        .errors(&[400, 429, 503])
        .without_snapshot(),
    RouteDef::post("/webhook/extend", "paid", handler!(webhooks::extend), WEBHOOK_EXTEND.purpose)
        .body::<wire::WebhookExtendRequestV1>()
        .returns::<wire::WebhookExtendedV1>()
        .errors(&[400, 402, 404, 409, 413, 415, 503])
        .paid(WEBHOOK_EXTEND)
        .without_snapshot(),
    RouteDef::post("/sponsor/{agentAddress}", "paid", handler!(slots::sponsor_agent), SPONSOR_AGENT.purpose)
        .returns::<wire::SponsorV1>()
        .errors(&[400, 402, 404, 409, 503])
        .paid(SPONSOR_AGENT),
    RouteDef::post("/clawd/sponsor/{creator}", "paid", handler!(slots::sponsor_creator), SPONSOR_CREATOR.purpose)
        .returns::<wire::SponsorV1>()
        .errors(&[400, 402, 404, 409, 503])
        .paid(SPONSOR_CREATOR),
    RouteDef::get("/sponsored", "writes", handler!(slots::sponsored), "active sponsored slots (paid placement, apart from every ranking; they change no score)")
        .returns::<wire::SponsoredV1>()
        .errors(&[503])
        .without_snapshot(),
    RouteDef::post("/clawd/rug-alert/{tokenAddr}", "paid", handler!(slots::rug_alert), RUG_ALERT.purpose)
        .body::<wire::RugAlertRequestV1>()
        .returns::<wire::RugAlertV1>()
        .errors(&[400, 402, 404, 409, 413, 415, 429, 503])
        .paid(RUG_ALERT),
    RouteDef::post("/clawd/trader-attestation/{address}", "paid", handler!(slots::trader_attestation), TRADER_ATTESTATION.purpose)
        .returns::<wire::TraderAttestationV1>()
        .errors(&[400, 402, 404, 409, 503])
        .paid(TRADER_ATTESTATION),
    RouteDef::post("/clawd/featured-cast/{tokenAddr}", "paid", handler!(slots::featured_cast), FEATURED_CAST.purpose)
        .returns::<wire::FeaturedCastV1>()
        .errors(&[400, 402, 404, 409, 503])
        .paid(FEATURED_CAST),
    RouteDef::post("/discover", "writes", handler!(writes::submit), "submit the URL of an agent description file: checked (http(s), no private target), queued for the agent-card job's next daily run")
        .body::<wire::DiscoverRequestV1>()
        .returns::<wire::DiscoverSubmittedV1>()
        .errors(&[400, 413, 415, 429, 503])
        .without_snapshot(),
    RouteDef::get(
        "/openapi.json",
        "service",
        handler!(service::openapi),
        "this API's OpenAPI 3.1 description, generated from the route table",
    )
    .without_snapshot(),
];

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn prices_print_as_usdc() {
        let p = |price| PaidVariant { query: None, price, description: "", purpose: "", needs: &[] }.price_text();
        assert_eq!(
            (p(50_000), p(250_000), p(1_000_000), p(5_000_000), p(2_500)),
            ("0.05".into(), "0.25".into(), "1.00".into(), "5.00".into(), "0.0025".into())
        );
    }

    /// The table composes the handlers: below it (handlers, queries, payments, MCP, HTTP) no
    /// module names it, so a new route is a row plus a handler and nothing depends back on it.
    #[test]
    fn only_the_composition_names_the_table() {
        let src = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("src");
        let mut stack = vec![src.clone()];
        while let Some(dir) = stack.pop() {
            for entry in std::fs::read_dir(&dir).unwrap() {
                let path = entry.unwrap().path();
                if path.is_dir() {
                    stack.push(path);
                    continue;
                }
                let rel = path.strip_prefix(&src).unwrap().to_string_lossy().into_owned();
                if ["lib.rs", "routes.rs", "check.rs"].contains(&rel.as_str()) {
                    continue;
                }
                let text = std::fs::read_to_string(&path).unwrap();
                let code = text.split("#[cfg(test)]").next().unwrap_or_default();
                assert!(!code.contains("routes::"), "{rel} names the route table");
            }
        }
    }

    #[test]
    fn paths_are_unique_per_method() {
        let mut seen = std::collections::HashSet::new();
        for r in endpoints() {
            let key = (r.method.as_str(), r.scope == crate::endpoints::Scope::Origin, r.path);
            assert!(seen.insert(key), "{} {} twice", r.method.as_str(), r.path);
        }
    }
}
