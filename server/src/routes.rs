//! The one route table. Each row is the router's input (method, path template, handler), and
//! the description `/health`, `/catalog` and `/openapi.json` publish (purpose, price, parameter,
//! body and response schemas, error statuses): a route cannot exist in one and not the others.

use std::sync::{Arc, LazyLock};

use hyper::Response;
use schemars::JsonSchema;

use crate::endpoints::{Endpoint, InputType, NoTool, SchemaFn, Verb};
use crate::handler;
use crate::handlers::{agents, attestations, exports, pages, paid, service, slots, trust, webhooks, writes};
use crate::http::params::address;
use crate::http::respond::{self, mime};
use crate::http::{self, Body, Handler, Match, Request, RequestBody, Router};
use crate::payment::prices::{
    AUDIT, AUDIT_BATCH, CLAWD_EXPORT, CREATOR_AUDIT, FEATURED_CAST, LIVE_RESCORE, PLACE_SNAPSHOT, PROOFS_EXPORT,
    PaidVariant, RISK_REPORT, RUG_ALERT, SPONSOR_AGENT, SPONSOR_CREATOR, TRADER_ATTESTATION, WEBHOOK_EXTEND,
};
use crate::query::agents as aq;
use crate::query::{deployers as dq, directory as dirq, lists as lq, ranking as rq, search as sq, service as svc};
use crate::read::{AddressArgs, Answer, At, CategoryArgs, Either, JsonBody, NoArgs, Query, Read, TagArgs};
use crate::read::{TokenAddressArgs, TokenArgs};
use crate::{ApiError, App, ServerConfig, mcp, openapi, query, read};
use agentrep_publish::wire;

/// One row of the table: an endpoint and the handler that answers it. A row that answers with a
/// read (`get_read`, `post_read`) has its handler made from the read, and its endpoint carries
/// the read, from which the MCP tool list makes its `agentrep_*` tool.
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

    const fn get_read(path: &'static str, group: &'static str, read: Read, purpose: &'static str) -> Self {
        Self::with_read(Endpoint::new(Verb::Get, path, group, purpose), read)
    }

    const fn post_read(path: &'static str, group: &'static str, read: Read, purpose: &'static str) -> Self {
        Self::with_read(Endpoint::new(Verb::Post, path, group, purpose), read)
    }

    const fn with_read(endpoint: Endpoint, read: Read) -> Self {
        Self { endpoint: endpoint.read(read), handler: read.http }
    }

    endpoint_builders! {
        query<T: InputType>(), body<T: InputType>(), returns<T: JsonSchema>(),
        body_with(schema: SchemaFn), errors_with(schema: SchemaFn), returns_with(schema: SchemaFn),
        serves(content_type: &'static str), errors(errors: &'static [u16]), paid(paid: PaidVariant),
        without_snapshot(), at_origin(), no_tool(why: NoTool),
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
    .returns::<Either<wire::ScorePayloadV1, wire::UnindexedScoreV1>>()
    .errors(&[400, 402, 403, 404, 409, 501, 503])
    .paid(LIVE_RESCORE),
    RouteDef::get("/audit/{agentAddress}", "paid", handler!(agents::audit), AUDIT.purpose)
        .returns::<wire::AuditV1>()
        .errors(&[400, 402, 404, 409, 503])
        .paid(AUDIT),
    RouteDef::get("/risk-report/{address}", "paid", handler!(paid::risk_report), RISK_REPORT.purpose)
        .no_tool(NoTool::Paid)
        .returns::<wire::RiskReportV1>()
        .errors(&[400, 402, 404, 409, 503])
        .paid(RISK_REPORT),
    RouteDef::post("/audit-batch", "paid", handler!(paid::audit_batch), AUDIT_BATCH.purpose)
        .no_tool(NoTool::Paid)
        .body::<wire::AuditBatchRequestV1>()
        .returns::<wire::AuditBatchV1>()
        .errors(&[400, 402, 404, 409, 413, 415, 503])
        .paid(AUDIT_BATCH),
    RouteDef::post("/audit-bulk", "paid", handler!(paid::audit_batch), "the original's name for POST /audit-batch (same body, answer and price)")
        .no_tool(NoTool::Paid)
        .body::<wire::AuditBatchRequestV1>()
        .returns::<wire::AuditBatchV1>()
        .errors(&[400, 402, 404, 409, 413, 415, 503])
        .paid(AUDIT_BATCH),
    RouteDef::get("/proofs/export", "paid", handler!(paid::proofs_export), PROOFS_EXPORT.purpose)
        .no_tool(NoTool::Paid)
        .query::<query::directory::ProofsQuery>()
        .returns::<wire::ProofsExportV1>()
        .errors(&[400, 402, 409, 503])
        .paid(PROOFS_EXPORT),
    RouteDef::get("/clawd/export", "paid", handler!(paid::clawd_export), CLAWD_EXPORT.purpose)
        .no_tool(NoTool::Paid)
        .query::<crate::handlers::paid::ClawdExportQuery>()
        .returns::<wire::ClawdExportV1>()
        .errors(&[400, 402, 404, 409, 503])
        .paid(CLAWD_EXPORT),
    RouteDef::get("/clawd/creator-audit/{address}", "paid", handler!(paid::creator_audit), CREATOR_AUDIT.purpose)
        .no_tool(NoTool::Paid)
        .returns::<wire::CreatorAuditV1>()
        .errors(&[400, 402, 404, 409, 503])
        .paid(CREATOR_AUDIT),
    RouteDef::get("/snapshot/{placeId}", "paid", handler!(paid::place_snapshot), PLACE_SNAPSHOT.purpose)
        .no_tool(NoTool::Paid)
        .returns::<wire::PlaceSnapshotV1>()
        .errors(&[400, 402, 404, 409, 503])
        .paid(PLACE_SNAPSHOT)
        .without_snapshot(),
    RouteDef::get("/revenue", "service", handler!(paid::revenue), "the service's own revenue, from its payment ledger")
        .no_tool(NoTool::ReadsTheStore)
        .returns::<wire::RevenueV1>()
        .without_snapshot(),
    RouteDef::get("/revenue/buyers", "service", handler!(paid::revenue_buyers), "unique buyers of the service's paid answers")
        .no_tool(NoTool::ReadsTheStore)
        .returns::<wire::RevenueBuyersV1>()
        .without_snapshot(),
    RouteDef::get(
        "/attestation/{address}",
        "attestations",
        handler!(attestations::attestation),
        "EIP-712 signed score attestation (the original's Attestation type, domain {name: agentrep, version: 1, chainId: 8453}); signed: false with a reason when the score is unmeasured or degraded, or the deployment has no operator key",
    )
        .no_tool(NoTool::Because("signs with the operator's key and counts the fetch; fetched over HTTP so the signature reaches the verifier as sent"))
    .returns::<wire::AttestationV1>()
    .errors(&[400, 404]),
    RouteDef::get(
        "/auto-attest-status/{address}",
        "attestations",
        handler!(attestations::auto_attest_status),
        "whether the wallet's newest attestation is fresh (under 24 hours) or must be fetched again",
    )
        .no_tool(NoTool::ReadsTheStore)
    .returns::<wire::AutoAttestStatusV1>()
    .errors(&[400]),
    RouteDef::post(
        "/verify",
        "attestations",
        handler!(attestations::verify),
        "server-side check of an attestation: signer, freshness (24 h, 5 min of clock skew), threshold",
    )
        .no_tool(NoTool::Because("checks an attestation over HTTP (the original SDK's verifyServerSide)"))
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
        .no_tool(NoTool::Because("names the HTTP deployment's signer and the /verify URL of the origin it is read from"))
    .returns::<wire::VerifySpecV1>()
    .without_snapshot(),
    RouteDef::get(
        "/attestations.json",
        "attestations",
        handler!(attestations::feed),
        "JSON Feed 1.1 of newly attested agents",
    )
        .no_tool(NoTool::Because("a JSON Feed for feed readers"))
    .returns::<wire::AttestationFeedV1>()
    .without_snapshot(),
    RouteDef::get(
        "/attestation-engagement",
        "attestations",
        handler!(attestations::engagement),
        "ranking by attestation fetches (a popularity count, never a score input)",
    )
        .no_tool(NoTool::ReadsTheStore)
    .query::<crate::handlers::attestations::EngagementQuery>()
    .returns::<wire::AttestationEngagementV1>()
    .errors(&[400])
    .without_snapshot(),
    RouteDef::get_read(
        "/preflight/{address}",
        "scores",
        read!("agentrep_preflight", "Preflight", AddressArgs => Either<wire::PreflightV1, wire::UnindexedPreflightV1>, |at, a| Ok(aq::preflight(at.snap()?, &a.parsed()?)?.into())),
        "decision BLOCK / CAUTION / PROCEED / PROCEED_LOW_VALUE with score, shield and category",
    )
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
    RouteDef::post_read(
        "/preflight",
        "scores",
        read!("agentrep_url_preflight", "Preflight a resource URL", JsonBody<wire::UrlPreflightRequestV1> => wire::UrlPreflightV1, |at, JsonBody(b)| Ok(Answer::Computed(query::resource::url_preflight_of(at.snap()?, at.base(), &b)?))),
        "whether to pay a resource URL, given the 402 it answered (v1 body or v2 PaymentRequired): the wallet it asks to be paid and its decision, with warnings for a decoy payTo, a price above the listing, a network or asset the listings do not name, an unlisted URL",
    )
    .errors(&[400, 413, 415]),
    RouteDef::post_read(
        "/trust/evaluate",
        "trust-provider",
        read!("agentrep_trust_evaluate", "Trust-provider evaluation", JsonBody<wire::TrustQueryV1> => wire::TrustEvaluationV1, |at, JsonBody(q)| Ok(Answer::Fresh(crate::trust::evaluate(at.snap()?, at.base(), &q, at.app().trust_signer(), chrono::Utc::now())?))),
        "the x402 trust-provider protocol (drafts 0.1 and 02), both directions: direction seller (should a buyer pay this seller or resource URL?) or buyer (should a seller accept this payer?); PASS / FAIL / UNCERTAIN with a 0..1 score or null and its reason, typed basis, a sha256: evidence address, freshness, and an Ed25519 envelope over the JCS bytes",
    )
    .errors(&[400, 413, 415]),
    RouteDef::get(
        "/trust/evidence/{address}",
        "trust-provider",
        handler!(trust::evidence),
        "the evidence document a trust evaluation's evidence_uri (sha256: of its JCS bytes) addresses, while the served snapshot and overlay still make it; 404 evidence_superseded after",
    )
        .no_tool(NoTool::Because("the document an evaluation's evidence_url names, fetched over HTTP to check its sha256: against evidence_uri; agentrep_trust_evaluate carries the same basis"))
    .query::<trust::EvidenceQuery>()
    .returns::<wire::TrustEvidenceV1>()
    .errors(&[400, 404]),
    RouteDef::get(
        "/.well-known/x402-trust-provider",
        "trust-provider",
        handler!(trust::discovery),
        "the trust-provider discovery document: endpoint, directions, evidence classes, decisions, score, freshness, pricing, chains, envelope",
    )
    .returns::<wire::TrustProviderCardV1>()
    .without_snapshot()
    .at_origin(),
    RouteDef::get(
        "/.well-known/jwks.json",
        "trust-provider",
        handler!(trust::jwks),
        "the Ed25519 keys trust-provider answers are signed with (RFC 8037 JWKs, kid = RFC 7638 thumbprint); empty without a signing key",
    )
    .returns::<wire::JwksV1>()
    .without_snapshot()
    .at_origin(),
    RouteDef::get_read("/trust-shield/{address}", "scores", read!("agentrep_trust_shield", "Trust shield", AddressArgs => wire::ShieldPayloadV1, |at, a| Ok(Answer::of_published(aq::trust_shield(at.snap()?, &a.parsed()?)?))), "shield colour and flags only")
        .errors(&[400, 404]),
    RouteDef::get_read("/history/{address}", "scores", read!("agentrep_history", "Score history", At<aq::HistoryQuery> => wire::HistoryV1, |at, a| Ok(Answer::Kept(aq::history(at.snap()?, &address(&a.address)?, &a.query)?))), "daily score series")
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
        .no_tool(NoTool::Because("a shields.io badge document, not a read"))
    .returns::<wire::ShieldsEndpointV1>()
    .errors(&[400]),
    RouteDef::post_read(
        "/scores",
        "scores",
        read!("agentrep_scores", "Batch scores", JsonBody<aq::BatchScoresRequest> => wire::BatchScoresV1, |at, JsonBody(b)| Ok(Answer::Fresh(aq::batch_scores(at.snap()?, &b)?))),
        "agent score, deployer score, proof count and any-trust of up to 200 addresses",
    )
    .errors(&[400, 413, 415]),
    // Ranking and discovery.
    RouteDef::get_read(
        "/leaderboard",
        "ranking",
        read!("agentrep_leaderboard", "Leaderboard", Query<rq::LeaderboardQuery> => wire::LeaderboardV1, |at, Query(q)| Ok(Answer::Kept(rq::leaderboard_view(at.snap()?, &q)?))),
        "ranked agents, score descending (seed 2.1)",
    )
    .errors(&[400]),
    RouteDef::get_read(
        "/compare",
        "ranking",
        read!("agentrep_compare", "Compare", Query<rq::CompareQuery> => wire::CompareV1, |at, Query(q)| Ok(Answer::Computed(rq::compare(at.snap()?, &q)?))),
        "two agents side by side: winner, margin, recommendation",
    )
    .errors(&[400]),
    RouteDef::get_read("/movers", "ranking", read!("agentrep_movers", "Movers", Query<rq::MoversQuery> => wire::MoversV1, |at, Query(q)| Ok(Answer::Computed(rq::movers(at.snap()?, &q)))), "largest daily score rises and falls")
        .errors(&[400]),
    RouteDef::get_read(
        "/featured",
        "ranking",
        read!("agentrep_featured", "Featured", NoArgs => wire::FeaturedV1, |at, _| Ok(Answer::Computed(rq::featured(at.snap()?)))),
        "four picks: trending, newcomer, volume leader, hidden gem",
    ),
    RouteDef::get_read("/trending", "ranking", read!("agentrep_trending", "Trending", Query<rq::TrendingQuery> => wire::TrendingV1, |at, Query(q)| Ok(Answer::Computed(rq::trending(at.snap()?, &q)))), "largest 7-day score gains among ranked agents")
        .errors(&[400]),
    RouteDef::get_read(
        "/search",
        "ranking",
        read!("agentrep_search", "Search", Query<sq::SearchQuery> => wire::SearchV1, |at, Query(q)| Ok(Answer::Computed(sq::search(at.snap()?, &q)))),
        "agents by address prefix, tag or description words; relevance, then score",
    )
    .errors(&[400]),
    RouteDef::get_read(
        "/recommend",
        "ranking",
        read!("agentrep_recommend", "Recommend", Query<sq::RecommendQuery> => wire::RecommendV1, |at, Query(q)| Ok(Answer::Computed(sq::recommend(at.snap()?, &q)?))),
        "payable agents like the given one (category and score band) with the rationale",
    )
    .errors(&[400, 404]),
    RouteDef::get_read("/tags", "ranking", read!("agentrep_tags", "Tags", NoArgs => wire::TagsV1, |at, _| Ok(Answer::Computed(sq::tags(at.snap()?)))), "the 100 most used tags with counts"),
    RouteDef::get_read("/tags/{tag}", "ranking", read!("agentrep_tag", "Agents with a tag", TagArgs => wire::TagV1, |at, a| Ok(Answer::Computed(sq::tag(at.snap()?, &a.tag, &a.query)?))), "agents with a tag, score descending")
        .errors(&[400]),
    RouteDef::post_read(
        "/match",
        "ranking",
        read!("agentrep_match", "Match an intent", JsonBody<sq::MatchRequest> => wire::MatchResponseV1, |at, JsonBody(b)| Ok(Answer::Fresh(sq::match_intent(at.snap()?, at.base(), &b)))),
        "payable agents for an intent, ranked by score × match strength, with how to pay",
    )
    .errors(&[400, 413, 415]),
    RouteDef::get_read("/random", "ranking", read!("agentrep_random", "Random agent", Query<rq::RandomQuery> => wire::RandomV1, |at, Query(q)| Ok(Answer::Fresh(rq::random(at.snap()?, &q)?))), "one ranked agent drawn at random")
        .errors(&[400]),
    // Deployers.
    RouteDef::get_read(
        "/deployer/{address}",
        "deployers",
        read!("agentrep_deployer", "Token deployer", AddressArgs => wire::DeployerV1, |at, a| Ok(Answer::Kept(dq::deployer(at.snap()?, &a.parsed()?)?))),
        "token-deployer score, verdict, outcomes and launches",
    )
    .errors(&[400, 404]),
    RouteDef::get_read("/deployers/top", "deployers", read!("agentrep_deployers_top", "Top deployers", Query<dq::DeployersQuery> => wire::DeployersTopV1, |at, Query(q)| Ok(Answer::Computed(dq::top(at.snap()?, at.base(), &q)))), "scored deployers, score descending")
        .errors(&[400]),
    RouteDef::get_read(
        "/deployers/sketchy",
        "deployers",
        read!("agentrep_deployers_sketchy", "Sketchy deployers", Query<dq::DeployersQuery> => wire::DeployersSketchyV1, |at, Query(q)| Ok(Answer::Computed(dq::sketchy(at.snap()?, at.base(), &q)))),
        "serial deployers (3+ launches) whose tokens mostly rugged",
    )
    .errors(&[400]),
    RouteDef::get_read(
        "/deployers/stats",
        "deployers",
        read!("agentrep_deployers_stats", "Deployer platforms", NoArgs => wire::DeployersStatsV1, |at, _| Ok(Answer::Computed(dq::stats(at.snap()?)))),
        "per launch platform: sample size and rug rate",
    ),
    RouteDef::get_read(
        "/virtuals-rep/{tokenAddress}",
        "deployers",
        read!("agentrep_virtuals_rep", "Agent token reputation", TokenArgs => wire::TokenRepV1, |at, a| Ok(Answer::Computed(dq::token_rep(at.snap()?, at.base(), &a.parsed()?)?))),
        "an agent token's operator (the wallet that launched it) with its deployer and seller reputation",
    )
    .errors(&[400, 404]),
    RouteDef::get_read(
        "/token/{address}/buyer-trust",
        "deployers",
        read!("agentrep_buyer_trust", "Token buyer trust", TokenAddressArgs => wire::BuyerTrustV1, |at, a| Ok(Answer::Kept(dq::buyer_trust(at.snap()?, &a.parsed()?)?))),
        "verdict on a launched token's buyers (STRONG_BUYER_BASE / BAD_BUYER_BASE / AGENT_BUYER_BASE / MIXED) with \
         each large buyer's class and shield",
    )
    .errors(&[400, 404]),
    // Lists.
    RouteDef::get_read("/categories", "lists", read!("agentrep_categories", "Categories", NoArgs => wire::CategoriesV1, |at, _| Ok(Answer::Computed(lq::categories(at.snap()?, at.base())))), "the 30 categories with their agent counts"),
    RouteDef::get_read(
        "/by-category/{cat}",
        "lists",
        read!("agentrep_by_category", "Agents of a category", CategoryArgs => wire::ByCategoryV1, |at, a| Ok(Answer::Computed(lq::by_category(at.snap()?, &a.cat, &a.query)?))),
        "agents of a category; safeOnly=1 drops red-shielded ones",
    )
    .errors(&[400, 404]),
    RouteDef::get_read(
        "/bazaar-scored",
        "lists",
        read!("agentrep_bazaar_scored", "Scored marketplace", Query<lq::BazaarQuery> => wire::BazaarScoredV1, |at, Query(q)| Ok(Answer::Computed(lq::bazaar_scored(at.snap()?, &q)))),
        "every marketplace resource with its seller's trust score",
    )
    .errors(&[400]),
    RouteDef::get_read(
        "/health-summary",
        "lists",
        read!("agentrep_health_summary", "Probe coverage", NoArgs => wire::HealthSummaryV1, |at, _| Ok(Answer::Computed(lq::health_summary(at.snap()?)))),
        "probe coverage: probed, alive, dead, uptime, best alive agents (seed 2.6)",
    ),
    RouteDef::get_read(
        "/proofs",
        "lists",
        read!("agentrep_proofs", "Identity proofs", Query<dirq::ProofsQuery> => wire::ProofsV1, |at, Query(q)| Ok(Answer::Computed(dirq::proofs(at.snap()?, &q)?))),
        "identity proof types with counts; with type, one page of the addresses holding it",
    )
    .errors(&[400]),
    RouteDef::get_read(
        "/denylist",
        "lists",
        read!("agentrep_denylist", "Denylist", Query<dirq::DenylistQuery> => wire::DenylistV1, |at, Query(q)| Ok(Answer::Computed(dirq::denylist(at.snap()?, &q)))),
        "known-bad addresses with their sources; forced red in score and preflight",
    )
    .errors(&[400]),
    RouteDef::get_read(
        "/top-buyers",
        "lists",
        read!("agentrep_top_buyers", "Top buyers", Query<dirq::TopBuyersQuery> => wire::TopBuyersV1, |at, Query(q)| Ok(Answer::Computed(dirq::top_buyers(at.snap()?, &q)))),
        "wallets that spent the most on indexed sellers",
    )
    .errors(&[400]),
    RouteDef::get_read(
        "/agents-of-interest",
        "lists",
        read!("agentrep_agents_of_interest", "Agents of interest", Query<dirq::AgentsOfInterestQuery> => wire::AgentsOfInterestV1, |at, Query(q)| Ok(Answer::Computed(dirq::agents_of_interest(at.snap()?, at.base(), &q)?))),
        "shortlists: high-activity-low-trust, recent-newcomers, top-by-proofs (seed 2.5)",
    )
    .errors(&[400]),
    RouteDef::get_read(
        "/crawlers",
        "lists",
        read!("agentrep_crawlers", "Crawl sources", NoArgs => wire::CrawlersV1, |at, _| Ok(Answer::Computed(dirq::crawlers(at.snap()?)))),
        "marketplace crawl sources ranked by crawler score",
    ),
    // One wallet's directory entries.
    RouteDef::get_read(
        "/funded-by/{address}",
        "wallets",
        read!("agentrep_funded_by", "Funding chain", AddressArgs => wire::FundedByV1, |at, a| Ok(Answer::Computed(dirq::funded_by(at.snap()?, &a.parsed()?)))),
        "the address's first USDC funder and the funding chain behind it",
    )
    .errors(&[400]),
    RouteDef::get_read(
        "/recent-activity/{address}",
        "wallets",
        read!("agentrep_recent_activity", "Recent activity", AddressArgs => wire::RecentActivityV1, |at, a| Ok(Answer::Computed(dirq::recent_activity(at.snap()?, &a.parsed()?)))),
        "last 7 days of earnings, spend and unique buyers",
    )
    .errors(&[400]),
    RouteDef::get_read(
        "/canonical-id/{address}",
        "wallets",
        read!("agentrep_canonical_id", "Canonical identity", AddressArgs => wire::CanonicalIdV1, |at, a| Ok(Answer::Computed(dirq::canonical_id(at.snap()?, &a.parsed()?)))),
        "basename, ERC-8004 id, agent description URL, tier",
    )
    .errors(&[400]),
    RouteDef::get_read(
        "/has-mainstreet-ref/{address}",
        "wallets",
        read!("agentrep_has_mainstreet_ref", "Back-link check", AddressArgs => wire::HasRefV1, |at, a| Ok(Answer::Computed(dirq::has_ref(at.snap()?, &a.parsed()?)))),
        "whether the agent's registration file links back to this service",
    )
    .errors(&[400]),
    RouteDef::get_read(
        "/snippet/{address}",
        "wallets",
        read!("agentrep_snippet", "Registration snippet", AddressArgs => wire::SnippetV1, |at, a| Ok(Answer::Computed(dirq::snippet(at.base(), &a.parsed()?)))),
        "the JSON block an agent adds to its registration file to link here",
    )
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
    RouteDef::get(
        "/exports/settlement-forms.parquet",
        "exports",
        handler!(exports::settlement_forms_parquet),
        "Parquet export of how each seller was paid in 30 days: settlement forms, escrow outcomes, builder codes",
    )
    .serves(mime::PARQUET),
    // The service.
    RouteDef::get("/health", "service", handler!(service::health), "every endpoint with auth and price")
        .no_tool(NoTool::Because("the endpoint list; agentrep_catalog lists the same routes"))
        .returns::<wire::HealthPayloadV1>()
        .without_snapshot(),
    RouteDef::get_read(
        "/status",
        "service",
        read!("agentrep_status", "Status", NoArgs => wire::StatusV1, |at, _| Ok(Answer::Fresh(svc::status(at.app(), at.snap()?)))),
        "snapshot, payment state, operator, token, recent job runs, ingest sources",
    ),
    RouteDef::get_read(
        "/catalog",
        "service",
        read!("agentrep_catalog", "Catalog", NoArgs => wire::CatalogV1, |at, _| Ok(Answer::Computed(svc::catalog(at.app())))),
        "free and paid routes with prices, tiers, transports (seed 2.7)",
    )
    .without_snapshot(),
    RouteDef::get_read(
        "/discover",
        "service",
        read!("agentrep_discover", "Discover", NoArgs => wire::DiscoverV1, |at, _| Ok(Answer::Computed(svc::discover(at.app(), at.snap()?)))),
        "specs, capabilities, indexed sets and how to get indexed",
    ),
    RouteDef::get_read(
        "/me",
        "service",
        read!("agentrep_me", "Operator", NoArgs => wire::MeV1, |at, _| Ok(Answer::Computed(svc::me(at.app(), at.snap()?)))),
        "who runs this deployment: operator, token, ERC-8004 registries, surfaces",
    ),
    RouteDef::post("/mcp", "service", handler!(mcp::http::post), MCP_PURPOSE)
        .no_tool(NoTool::Because("this server"))
        .body_with(mcp::schema::request)
        .returns_with(mcp::schema::response)
        .errors(MCP_ERRORS)
        .errors_with(mcp::schema::response)
        .without_snapshot(),
    RouteDef::post("/mcp", "service", handler!(mcp::http::post), MCP_PURPOSE)
        .no_tool(NoTool::Because("this server"))
        .body_with(mcp::schema::request)
        .returns_with(mcp::schema::response)
        .errors(MCP_ERRORS)
        .errors_with(mcp::schema::response)
        .without_snapshot()
        .at_origin(),
    // What users write (the write store), and the paid slots.
    RouteDef::post("/receipt", "writes", handler!(writes::receipt), "store a buyer's EIP-191 signed receipt (marker `mainstreet receipt`); its fields are the message's, and it counts in a score only once the rebuild finds its payment")
        .no_tool(NoTool::SignedWrite)
        .body::<wire::ReceiptRequestV1>()
        .returns::<wire::ReceiptAcceptedV1>()
        .errors(WRITE_ERRORS)
        .without_snapshot(),
    RouteDef::get("/receipts", "writes", handler!(writes::receipts), "a seller's signed receipts with their aggregate (total, successRate, avgRating, avgLatency)")
        .no_tool(NoTool::ReadsTheStore)
        .query::<writes::ForQuery>()
        .returns::<wire::ReceiptsV1>()
        .errors(&[400, 503])
        .without_snapshot(),
    RouteDef::post("/badge/claim", "writes", handler!(writes::claim_badge), "claim a wallet's badge with its EIP-191 signature: the badge URL and an embed snippet")
        .no_tool(NoTool::SignedWrite)
        .body::<wire::BadgeClaimRequestV1>()
        .returns::<wire::BadgeClaimedV1>()
        .errors(WRITE_ERRORS)
        .without_snapshot(),
    RouteDef::get("/badges", "writes", handler!(writes::badges), "wallets that claimed their badge, newest first")
        .no_tool(NoTool::ReadsTheStore)
        .returns::<wire::BadgesV1>()
        .errors(&[503])
        .without_snapshot(),
    RouteDef::post("/watchlist", "writes", handler!(writes::watch), "add a wallet to a subscriber's watchlist with the subscriber's EIP-191 signature; moves are digested daily")
        .no_tool(NoTool::SignedWrite)
        .body::<wire::WatchRequestV1>()
        .returns::<wire::WatchAddedV1>()
        .errors(WRITE_ERRORS)
        .without_snapshot(),
    RouteDef::get("/watchlist", "writes", handler!(writes::watchlist), "a subscriber's watched wallets with their current scores and the last digest's")
        .no_tool(NoTool::ReadsTheStore)
        .query::<writes::ForQuery>()
        .returns::<wire::WatchlistV1>()
        .errors(&[400, 503])
        .without_snapshot(),
    RouteDef::post("/webhook/subscribe", "writes", handler!(webhooks::subscribe), "subscribe a URL to a wallet's score changes (threshold 1-100, default 5; free for 30 days; 5 an hour per client); deliveries are signed with Standard Webhooks")
        .no_tool(NoTool::Because("a write whose receiver is an HTTP URL; over HTTP"))
        .body::<wire::WebhookSubscribeRequestV1>()
        .returns::<wire::WebhookSubscribedV1>()
        .errors(&[400, 413, 415, 429, 503])
        .without_snapshot(),
    RouteDef::get("/webhook/list", "writes", handler!(webhooks::list), "a subscriber's webhook subscriptions and the state of their newest deliveries")
        .no_tool(NoTool::ReadsTheStore)
        .query::<writes::ForQuery>()
        .returns::<wire::WebhookListV1>()
        .errors(&[400, 429, 503])
        .without_snapshot(),
    RouteDef::post("/webhook/extend", "paid", handler!(webhooks::extend), WEBHOOK_EXTEND.purpose)
        .no_tool(NoTool::Paid)
        .body::<wire::WebhookExtendRequestV1>()
        .returns::<wire::WebhookExtendedV1>()
        .errors(&[400, 402, 404, 409, 413, 415, 503])
        .paid(WEBHOOK_EXTEND)
        .without_snapshot(),
    RouteDef::post("/sponsor/{agentAddress}", "paid", handler!(slots::sponsor_agent), SPONSOR_AGENT.purpose)
        .no_tool(NoTool::Paid)
        .returns::<wire::SponsorV1>()
        .errors(&[400, 402, 404, 409, 503])
        .paid(SPONSOR_AGENT),
    RouteDef::post("/clawd/sponsor/{creator}", "paid", handler!(slots::sponsor_creator), SPONSOR_CREATOR.purpose)
        .no_tool(NoTool::Paid)
        .returns::<wire::SponsorV1>()
        .errors(&[400, 402, 404, 409, 503])
        .paid(SPONSOR_CREATOR),
    RouteDef::get("/sponsored", "writes", handler!(slots::sponsored), "active sponsored slots (paid placement, apart from every ranking; they change no score)")
        .no_tool(NoTool::ReadsTheStore)
        .returns::<wire::SponsoredV1>()
        .errors(&[503])
        .without_snapshot(),
    RouteDef::post("/clawd/rug-alert/{tokenAddr}", "paid", handler!(slots::rug_alert), RUG_ALERT.purpose)
        .no_tool(NoTool::Paid)
        .body::<wire::RugAlertRequestV1>()
        .returns::<wire::RugAlertV1>()
        .errors(&[400, 402, 404, 409, 413, 415, 429, 503])
        .paid(RUG_ALERT),
    RouteDef::post("/clawd/trader-attestation/{address}", "paid", handler!(slots::trader_attestation), TRADER_ATTESTATION.purpose)
        .no_tool(NoTool::Paid)
        .returns::<wire::TraderAttestationV1>()
        .errors(&[400, 402, 404, 409, 503])
        .paid(TRADER_ATTESTATION),
    RouteDef::post("/clawd/featured-cast/{tokenAddr}", "paid", handler!(slots::featured_cast), FEATURED_CAST.purpose)
        .no_tool(NoTool::Paid)
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
        .no_tool(NoTool::Because("the HTTP API's own description"))
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
