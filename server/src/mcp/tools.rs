//! The one tool table. Each row names a tool, its typed arguments (whose schemars schema is the
//! tool's `inputSchema`), the wire type it answers with (its `outputSchema`), and a function that
//! calls the same query functions as the HTTP handlers: no tool reads the snapshot another way.
//!
//! Two families share the table:
//! - `mainstreet_*`: the original service's tools, with its names and arguments (its stdio server's
//!   ten, less `mainstreet_revenue`, plus the hosted server's preflight, deployer, batch scores and
//!   its LLM tools' match, pick and vet). Where its arguments differ from the HTTP reads' (a
//!   leaderboard of 10 on Base by default, a search of 10), a small args struct says so.
//! - `agentrep_*`: one per JSON read of the route table, with the route's parameters as arguments
//!   and its purpose as description (`tools_mirror_the_json_reads` keeps the two in step).

use std::sync::OnceLock;

use agentrep_publish::wire::{self, version};
use serde_json::{Value, json};

use super::args::*;
use super::tool::{Out, Tool};
use super::{Ctx, Revision};
use crate::endpoints::Endpoint;
use crate::http::params::{Bounded, address};
use crate::query::agents::{self as aq, WalletRead};
use crate::query::{deployers as dq, directory as dirq, ranking as rq, search as sq, service as svc};
use crate::read::Either;
use crate::read::tool::{ToolError, args, input_schema, output_schema};
use crate::{ApiError, ServedSnapshot};

static ALL: OnceLock<Vec<Tool>> = OnceLock::new();

/// Every tool, in the order tools/list gives them: the ones written here, then one per read of
/// `endpoints` (`Endpoint::read`), in their order. A process has one route table: the endpoints
/// of the first call are the ones.
pub fn all(endpoints: &[&'static Endpoint]) -> &'static [Tool] {
    ALL.get_or_init(|| {
        let reads = endpoints.iter().filter_map(|def| {
            let read = def.read?;
            Some(Tool {
                name: read.name,
                title: read.title,
                about: None,
                route: Some(def.path),
                input: read.tool_input,
                output: read.tool_output,
                run: read.tool_run,
            })
        });
        WRITTEN.iter().cloned().chain(reads).collect()
    })
}

/// The tool named `name`.
pub fn find(name: &str, endpoints: &[&'static Endpoint]) -> Option<&'static Tool> {
    all(endpoints).iter().find(|t| t.name == name)
}

fn schemas() -> &'static [(Value, Value)] {
    static SCHEMAS: OnceLock<Vec<(Value, Value)>> = OnceLock::new();
    SCHEMAS.get_or_init(|| listed().iter().map(|t| ((t.input)(), (t.output)())).collect())
}

/// The tools [`all`] made: a `&Tool` exists only once it has.
fn listed() -> &'static [Tool] {
    ALL.get().expect("a tool comes from all()")
}

impl Tool {
    /// Its `inputSchema`.
    pub fn input_schema(&self) -> &'static Value {
        &schemas()[self.index()].0
    }

    /// Its `outputSchema`.
    pub fn output_schema(&self) -> &'static Value {
        &schemas()[self.index()].1
    }

    fn index(&self) -> usize {
        listed().iter().position(|t| t.name == self.name).expect("a tool of the table")
    }
}

/// The tools/list entries for a revision: built once per kind of revision (the endpoints are
/// the process's one table).
pub fn list(rev: Revision, endpoints: &[&'static Endpoint]) -> Value {
    static LISTS: [OnceLock<Value>; 3] = [OnceLock::new(), OnceLock::new(), OnceLock::new()];
    let kind = match (rev.structured(), rev.annotations()) {
        (true, _) => 0,
        (false, true) => 1,
        (false, false) => 2,
    };
    LISTS[kind]
        .get_or_init(|| {
            Value::Array(
                all(endpoints)
                    .iter()
                    .map(|t| {
                        let mut entry = json!({
                            "name": t.name,
                            "description": t.description(endpoints),
                            "inputSchema": t.input_schema(),
                        });
                        if rev.structured() {
                            entry["title"] = json!(t.title);
                            entry["outputSchema"] = t.output_schema().clone();
                        }
                        if rev.annotations() {
                            entry["annotations"] = json!({
                                "title": t.title,
                                "readOnlyHint": true,
                                "destructiveHint": false,
                                "idempotentHint": true,
                                "openWorldHint": false,
                            });
                        }
                        entry
                    })
                    .collect(),
            )
        })
        .clone()
}

impl Ctx<'_> {
    fn snap(&self) -> Result<&ServedSnapshot, ToolError> {
        self.snap.as_deref().ok_or_else(|| ApiError::NoSnapshot.into())
    }

    fn base(&self) -> &str {
        self.app.base_path()
    }
}

// ---------------------------------------------------------------------------------------------
// Tool functions that are more than one query call.

fn score(ctx: &Ctx, a: AddressArgs) -> Result<Out<Either<wire::ScorePayloadV1, wire::UnindexedScoreV1>>, ToolError> {
    let a = address(&a.address)?;
    Ok(Out::answered(aq::score(ctx.snap()?, ctx.base(), &a)?.into())?)
}

fn preflight(
    ctx: &Ctx,
    a: AddressArgs,
) -> Result<Out<Either<wire::PreflightV1, wire::UnindexedPreflightV1>>, ToolError> {
    let a = address(&a.address)?;
    Ok(Out::answered(aq::preflight(ctx.snap()?, &a)?.into())?)
}

fn leaderboard(ctx: &Ctx, q: &rq::LeaderboardQuery) -> Result<Out<wire::LeaderboardV1>, ToolError> {
    Ok(Out::published(&*rq::leaderboard_view(ctx.snap()?, q)?)?)
}

fn history(ctx: &Ctx, a: At<aq::HistoryQuery>) -> Result<Out<wire::HistoryV1>, ToolError> {
    Ok(Out::published(&*aq::history(ctx.snap()?, &address(&a.address)?, &a.query)?)?)
}

fn deployer(ctx: &Ctx, a: AddressArgs) -> Result<Out<wire::DeployerV1>, ToolError> {
    Ok(Out::published(&*dq::deployer(ctx.snap()?, &address(&a.address)?)?)?)
}

fn audit_info(ctx: &Ctx, a: AddressArgs) -> Result<Out<wire::AuditInfoV1>, ToolError> {
    let a = address(&a.address)?;
    let origin = ctx.origin.as_deref().unwrap_or_default();
    let endpoint = format!("{origin}{}/audit/{a}", ctx.base());
    let price = crate::payment::prices::AUDIT.price as f64 / 1e6;
    let payments = ctx.app.payments();
    let how = match &payments {
        Ok(p) => format!(
            "GET {endpoint} answers 402 with x402 terms (v1 in the body, v2 in the PAYMENT-REQUIRED header); pay \
             {price} USDC on {} with an x402 client and repeat the call with its payment header. Over MCP (HTTP \
             transport), the agentrep_audit tool sells the same audit with x402 over MCP",
            p.network.caip2
        ),
        Err(e) => format!(
            "{e}; mainstreet_score, mainstreet_preflight and agentrep_funded_by answer most of what the audit holds, free"
        ),
    };
    let network =
        payments.as_ref().map(|p| p.network.clone()).unwrap_or_else(|_| agentrep_payments::PaymentNetwork::base());
    Ok(Out::of(&wire::AuditInfoV1 {
        version: version("audit-info"),
        address: a.to_string(),
        endpoint,
        served: payments.is_ok(),
        price: format!("${price:.2} USDC"),
        price_usdc: price,
        chain: if network.chain_id == agentrep_model::chain::BASE_CHAIN_ID { "Base" } else { "Base Sepolia" }
            .to_owned(),
        network: network.caip2.clone(),
        asset: alloy::hex::encode_prefixed(network.asset),
        pay_to: ctx.app.identity.pay_to.clone(),
        purpose: "full audit of one address: score, identity proofs, launches, counterparties, settlements, \
                  SLA and ERC-8004 feedback, with risk flags"
            .to_owned(),
        how_to_call: how,
        catalog: format!("{origin}{}/catalog", ctx.base()),
    }))
}

fn interest(ctx: &Ctx, a: MsInterestArgs) -> Result<Out<wire::AgentsOfInterestV1>, ToolError> {
    let q = dirq::AgentsOfInterestQuery { filter: Some(a.filter), limit: Bounded(a.limit.get()) };
    Ok(Out::of(&dirq::agents_of_interest(ctx.snap()?, ctx.base(), &q)?))
}

fn pick(ctx: &Ctx, a: PickArgs) -> Result<Out<wire::MatchV1>, ToolError> {
    let intent = a.intent.0.clone();
    let req = sq::MatchRequest {
        intent: a.intent,
        max_price: a.max_price,
        min_score: a.min_score,
        limit: Bounded(1),
        only_registered: a.only_registered,
        only_verified: a.only_verified,
    };
    let r = sq::match_intent(ctx.snap()?, ctx.base(), &req);
    let Some(best) = r.matches.first() else {
        return Err(ToolError(format!("pick: no agent matched \"{intent}\"")));
    };
    if r.no_strong_match && !a.allow_weak {
        return Err(ToolError(format!(
            "pick: only a weak match for \"{intent}\" (the best covers {:.0}% of it); pass allowWeak: true to accept it",
            best.match_score * 100.0
        )));
    }
    Ok(Out::of(best))
}

fn vet(ctx: &Ctx, a: VetArgs) -> Result<Out<wire::VetV1>, ToolError> {
    let addr = address(&a.address)?;
    let snap = ctx.snap()?;
    let min = a.min_score.get();
    let published = |blob: &crate::blob::Blob| {
        let doc: wire::ScorePayloadV1 =
            serde_json::from_slice(&blob.body).map_err(|e| ApiError::snapshot_unreadable("score", &e))?;
        let resource = Some(doc.resource_path).filter(|p| !p.is_empty());
        Ok::<_, ApiError>((doc.score, doc.decision, Some(doc.health.state), resource))
    };
    let (score, decision, health, resource) = match aq::score(snap, ctx.base(), &addr)? {
        WalletRead::Published(blob) => published(&blob)?,
        WalletRead::Computed(doc) => (None, doc.decision, None, None),
    };
    let mut failures = Vec::new();
    match score {
        None => failures.push("no score: the address is not a scored seller".to_owned()),
        Some(s) if u32::from(s) < min => failures.push(format!("score {s} < {min}")),
        Some(_) => {}
    }
    if a.require_alive {
        match health {
            Some(wire::ProbeState::Alive) => {}
            Some(wire::ProbeState::Dead) => failures.push("endpoint unreachable: its last probe failed".to_owned()),
            Some(wire::ProbeState::Unprobed) | None => {
                failures.push("endpoint liveness unknown: never probed".to_owned())
            }
        }
    }
    if resource.is_none() {
        failures.push("no service URL published".to_owned());
    }
    if decision == wire::Decision::Block {
        failures.push("preflight decision BLOCK".to_owned());
    }
    Ok(Out::of(&wire::VetV1 {
        version: version("vet"),
        address: addr.to_string(),
        passed: failures.is_empty(),
        failures,
        min_score: min,
        require_alive: a.require_alive,
        score,
        decision,
        health,
        resource_path: resource,
        snapshot_date: snap.date().to_owned(),
    }))
}

// ---------------------------------------------------------------------------------------------
// The table.

/// A row: name, title, description (`None`: the mirrored route's purpose), the mirrored route,
/// `Args => Output`, and a function from the context and typed arguments to `Out<Output>`.
macro_rules! tool {
    ($name:literal, $title:literal, $about:expr, $route:expr, $args:ty => $out:ty, $run:expr) => {
        Tool {
            name: $name,
            title: $title,
            about: $about,
            route: $route,
            input: input_schema::<$args>,
            output: output_schema::<$out>,
            run: |ctx, raw| {
                let run: fn(&Ctx, $args) -> Result<Out<$out>, ToolError> = $run;
                Ok(run(ctx, args(raw)?)?.into_value())
            },
        }
    };
}

type ScoreOut = Either<wire::ScorePayloadV1, wire::UnindexedScoreV1>;
type PreflightOut = Either<wire::PreflightV1, wire::UnindexedPreflightV1>;

/// The tools written here: the original's, and `agentrep_score` (whose route also sells the live
/// re-score, so the route is not a read).
static WRITTEN: &[Tool] = &[
    // The original service's tools.
    tool!(
        "mainstreet_score",
        "Seller score",
        Some("Score 0-100 of an x402 seller with its trust shield, decision, metrics, health and price. An address that sells nothing indexed gets preliminary signals (score null), never an error."),
        Some("/score/{address}"),
        AddressArgs => ScoreOut,
        score
    ),
    tool!(
        "mainstreet_leaderboard",
        "Leaderboard",
        Some("Ranked sellers, score descending (default: the top 10 on Base)."),
        Some("/leaderboard"),
        MsLeaderboardArgs => wire::LeaderboardV1,
        |ctx, a| {
            let q = rq::LeaderboardQuery { limit: Bounded(a.limit.get()), network: Some(a.network), ..Default::default() };
            leaderboard(ctx, &q)
        }
    ),
    tool!(
        "mainstreet_compare",
        "Compare two sellers",
        Some("Two sellers side by side: winner, margin and a recommendation."),
        Some("/compare"),
        rq::CompareQuery => wire::CompareV1,
        |ctx, q| Ok(Out::of(&rq::compare(ctx.snap()?, &q)?))
    ),
    tool!(
        "mainstreet_search",
        "Search sellers",
        Some("Sellers (and deployers) by address prefix, tag or description words; relevance, then score."),
        Some("/search"),
        MsSearchArgs => wire::SearchV1,
        |ctx, a| {
            let q = sq::SearchQuery { q: a.q, limit: Bounded(a.limit.get()) };
            Ok(Out::of(&sq::search(ctx.snap()?, &q)))
        }
    ),
    tool!(
        "mainstreet_recommend",
        "Similar sellers",
        Some("Payable sellers like the given one (same category and score band first), with the rationale."),
        Some("/recommend"),
        sq::RecommendQuery => wire::RecommendV1,
        |ctx, q| Ok(Out::of(&sq::recommend(ctx.snap()?, &q)?))
    ),
    tool!(
        "mainstreet_history",
        "Score history",
        Some("Daily score series of an indexed seller, newest last."),
        Some("/history/{address}"),
        At<aq::HistoryQuery> => wire::HistoryV1,
        history
    ),
    tool!(
        "mainstreet_catalog",
        "Catalog",
        Some("Free and paid routes with prices, attestation tiers and transports."),
        Some("/catalog"),
        NoArgs => wire::CatalogV1,
        |ctx, _| Ok(Out::of(&svc::catalog(ctx.app)))
    ),
    tool!(
        "mainstreet_audit_info",
        "Audit: how to buy",
        Some("Where and how to buy the paid audit of an address (price, asset, payee, how to call); makes no network call."),
        None,
        AddressArgs => wire::AuditInfoV1,
        audit_info
    ),
    tool!(
        "mainstreet_agents_of_interest",
        "Agents of interest",
        Some("Shortlists of sellers worth a closer look: high-activity-low-trust (default), recent-newcomers, top-by-proofs."),
        Some("/agents-of-interest"),
        MsInterestArgs => wire::AgentsOfInterestV1,
        interest
    ),
    tool!(
        "mainstreet_preflight",
        "Preflight",
        Some("Decision before paying a seller: BLOCK, CAUTION, PROCEED or PROCEED_LOW_VALUE, with score, shield and category."),
        Some("/preflight/{address}"),
        AddressArgs => PreflightOut,
        preflight
    ),
    tool!(
        "mainstreet_deployer",
        "Token deployer",
        Some("Token-deployer score, verdict, launch outcomes and launches."),
        Some("/deployer/{address}"),
        AddressArgs => wire::DeployerV1,
        deployer
    ),
    tool!(
        "mainstreet_scores_batch",
        "Batch scores",
        Some("Seller score, deployer score, proof count and any-trust of up to 200 addresses at once."),
        Some("/scores"),
        aq::BatchScoresRequest => wire::BatchScoresV1,
        |ctx, body| Ok(Out::of(&aq::batch_scores(ctx.snap()?, &body)?))
    ),
    tool!(
        "mainstreet_match",
        "Match an intent",
        Some("Payable sellers for a task in words, ranked by score × match strength, with how to pay each."),
        Some("/match"),
        sq::MatchRequest => wire::MatchResponseV1,
        |ctx, body| Ok(Out::of(&sq::match_intent(ctx.snap()?, ctx.base(), &body)))
    ),
    tool!(
        "mainstreet_pick",
        "Pick one seller",
        Some("The single best payable seller for a task; an error when nothing matches, or when the best match is weak and allowWeak is not set."),
        Some("/match"),
        PickArgs => wire::MatchV1,
        pick
    ),
    tool!(
        "mainstreet_vet",
        "Vet before paying",
        Some("The original SDK's checks before paying a seller: score at least minScore (default 30), a live endpoint (requireAlive, default true), a published service URL, and no BLOCK decision. A failed check is an answer (passed: false), not an error."),
        Some("/score/{address}"),
        VetArgs => wire::VetV1,
        vet
    ),
    // The `agentrep_*` tools of the route table's reads follow (see `all`).
    tool!("agentrep_score", "Score", None, Some("/score/{address}"), AddressArgs => ScoreOut, score),
];

/// The tool table as Markdown (ARCHITECTURE.md prints it; a test keeps it current).
pub fn markdown_table(endpoints: &[&'static Endpoint]) -> String {
    let mut out = String::from("| tool | arguments (`*` required) | answers | HTTP read |\n|---|---|---|---|\n");
    for t in all(endpoints) {
        let input = t.input_schema();
        let required: Vec<&str> =
            input["required"].as_array().into_iter().flatten().filter_map(Value::as_str).collect();
        let args: Vec<String> = input["properties"]
            .as_object()
            .into_iter()
            .flatten()
            .map(|(k, _)| if required.contains(&k.as_str()) { format!("`{k}`*") } else { format!("`{k}`") })
            .collect();
        let output = t.output_schema();
        let refs: Vec<String> = output["anyOf"]
            .as_array()
            .into_iter()
            .flatten()
            .filter_map(|r| r["$ref"].as_str()?.strip_prefix("#/$defs/").map(|n| format!("`{n}`")))
            .collect();
        let answers = match output["title"].as_str() {
            _ if !refs.is_empty() => refs.join(" or "),
            Some(title) => format!("`{title}`"),
            None => "an object".to_owned(),
        };
        let route = t.route.map_or_else(
            || "none".to_owned(),
            |p| {
                let def = endpoints.iter().find(|r| r.path == p).expect("mirrored routes exist");
                format!("`{} {p}`", def.method.as_str())
            },
        );
        out.push_str(&format!(
            "| `{}` | {} | {answers} | {route} |\n",
            t.name,
            if args.is_empty() { "none".to_owned() } else { args.join(", ") }
        ));
    }
    out.push_str(
        "\nThe JSON routes no tool answers, and why (each route's `no_tool`):\n\n| route | why no tool |\n|---|---|\n",
    );
    for def in endpoints.iter().filter(|e| e.scope == crate::endpoints::Scope::Api) {
        if let Some(why) = def.no_tool {
            out.push_str(&format!("| `{} {}` | {} |\n", def.method.as_str(), def.path, why.describe()));
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::endpoints::Scope;
    use crate::http::respond::mime;
    use crate::mcp::tool::result;
    use crate::read::tool::RUST_FORMATS;
    use crate::routes::endpoints;

    fn find_in(name: &str) -> Option<&'static Tool> {
        find(name, endpoints())
    }

    #[test]
    fn names_are_unique_and_well_formed() {
        let mut seen = std::collections::HashSet::new();
        for t in all(endpoints()).iter() {
            assert!(seen.insert(t.name), "{} twice", t.name);
            assert!(t.name.len() <= 128 && t.name.bytes().all(|b| b.is_ascii_alphanumeric() || b == b'_'));
            assert!(!t.description(endpoints()).is_empty(), "{} has a description", t.name);
        }
        let original = [
            "score",
            "leaderboard",
            "compare",
            "search",
            "recommend",
            "history",
            "catalog",
            "audit_info",
            "agents_of_interest",
            "preflight",
            "deployer",
            "scores_batch",
            "match",
            "pick",
            "vet",
        ];
        for name in original {
            assert!(find_in(&format!("mainstreet_{name}")).is_some(), "mainstreet_{name}");
        }
        assert_eq!(all(endpoints()).iter().filter(|t| t.name.starts_with("mainstreet_")).count(), original.len());
    }

    #[test]
    fn tools_mirror_the_json_reads() {
        for def in endpoints().iter().filter(|r| r.scope == Scope::Api && r.content_type == mime::JSON) {
            let mirrored =
                all(endpoints()).iter().any(|t| t.name.starts_with("agentrep_") && t.route == Some(def.path))
                    || super::super::paid::PAID_TOOLS.iter().any(|t| t.route == def.path);
            let exempt = def.no_tool.is_some();
            assert!(mirrored != exempt, "{}: mirrored {mirrored}, exempt {exempt}", def.path);
        }
        for t in all(endpoints()).iter() {
            if let Some(path) = t.route {
                assert!(endpoints().iter().any(|r| r.path == path), "{} mirrors {path}, which is not a route", t.name);
            }
        }
    }

    /// A read's tool takes each path parameter of its route as a required argument of the same
    /// name (the HTTP side reads the parameter by that name), and nothing else of the path.
    #[test]
    fn read_rows_take_their_path_parameters() {
        let reads: Vec<_> = crate::routes::ROUTES.iter().filter(|def| def.endpoint.read.is_some()).collect();
        assert!(reads.len() >= 40, "{} reads", reads.len());
        for def in reads {
            let tool = find_in(def.endpoint.read.unwrap().name).unwrap();
            assert_eq!(tool.route, Some(def.endpoint.path));
            let params: Vec<&str> =
                def.endpoint.path.split('{').skip(1).map(|rest| rest.split('}').next().unwrap()).collect();
            let input = tool.input_schema();
            let required: Vec<&str> =
                input["required"].as_array().into_iter().flatten().filter_map(Value::as_str).collect();
            for p in &params {
                assert!(required.contains(p), "{}: {p} is not a required argument of {}", def.endpoint.path, tool.name);
            }
            for wallet in ["address", "tokenAddress", "tag", "cat"] {
                let argument = input["properties"].get(wallet).is_some();
                assert!(!argument || params.contains(&wallet), "{}: {wallet} is not in the path", tool.name);
            }
        }
    }

    /// Every `$ref` of a schema points into its own `$defs`.
    fn refs_resolve(schema: &Value) {
        fn walk(v: &Value, defs: &serde_json::Map<String, Value>) {
            match v {
                Value::Object(obj) => {
                    if let Some(r) = obj.get("$ref").and_then(Value::as_str) {
                        let name = r.strip_prefix("#/$defs/").unwrap_or_else(|| panic!("external $ref {r}"));
                        assert!(defs.contains_key(name), "{r} is not defined");
                    }
                    if let Some(f) = obj.get("format").and_then(Value::as_str) {
                        assert!(!RUST_FORMATS.contains(&f), "format {f}");
                    }
                    obj.values().for_each(|v| walk(v, defs));
                }
                Value::Array(items) => items.iter().for_each(|v| walk(v, defs)),
                _ => {}
            }
        }
        let empty = serde_json::Map::new();
        walk(schema, schema.get("$defs").and_then(Value::as_object).unwrap_or(&empty));
    }

    #[test]
    fn schemas_are_self_contained_objects() {
        for t in all(endpoints()).iter() {
            for schema in [t.input_schema(), t.output_schema()] {
                assert_eq!(schema["type"], "object", "{}: {schema}", t.name);
                assert!(schema.get("$schema").is_none());
                refs_resolve(schema);
            }
        }
        let input = find_in("mainstreet_leaderboard").unwrap().input_schema();
        let limit = &input["properties"]["limit"];
        assert_eq!((&limit["minimum"], &limit["maximum"], &limit["default"]), (&json!(1), &json!(100), &json!(10)));
        assert_eq!(input["properties"]["network"]["default"], "base");
        let input = find_in("mainstreet_history").unwrap().input_schema();
        assert_eq!(input["required"], json!(["address"]), "{input}");
        assert_eq!(input["properties"]["days"]["maximum"], 90);
        let input = find_in("mainstreet_agents_of_interest").unwrap().input_schema();
        let filter = serde_json::to_string(&input).unwrap();
        assert!(filter.contains("recent-newcomers") && filter.contains("top-by-proofs"), "{filter}");
        let output = find_in("mainstreet_score").unwrap().output_schema();
        assert_eq!(output["anyOf"].as_array().map(Vec::len), Some(2));
    }

    #[test]
    fn arguments_errors_name_the_argument() {
        let err = args::<At<aq::HistoryQuery>>(json!({ "address": "0x1", "days": 91 })).unwrap_err();
        assert!(err.0.contains("days") && err.0.contains("from 1 to 90"), "{}", err.0);
        let err = args::<TagArgs>(json!({ "tag": "data", "limit": "x" })).unwrap_err();
        assert!(err.0.contains("limit:"), "{}", err.0);
        let err = args::<At<aq::HistoryQuery>>(json!({ "days": 3 })).unwrap_err();
        assert!(err.0.contains("address"), "{}", err.0);
        let err = args::<AddressArgs>(json!({})).unwrap_err();
        assert!(err.0.contains("address"), "{}", err.0);
        let a: MsLeaderboardArgs = args(json!({})).unwrap();
        assert_eq!((a.limit.get(), a.network.given.as_str()), (10, "base"));
        let v: VetArgs = args(json!({ "address": "0x1" })).unwrap();
        assert!(v.require_alive && v.min_score.get() == 30);
        assert!(args::<NoArgs>(json!({ "x": 1 })).is_err());
    }

    #[test]
    fn results_follow_the_revision() {
        let modern = result(Ok(json!({ "a": 1 })), Revision::Modern);
        assert_eq!(modern["structuredContent"], json!({ "a": 1 }));
        assert_eq!(modern["content"][0]["text"], "{\"a\":1}");
        let old = result(Ok(json!({ "a": 1 })), Revision::legacy("2024-11-05").unwrap());
        assert!(old.get("structuredContent").is_none());
        let err = result(Err(ToolError("bad".into())), Revision::Modern);
        assert_eq!((err["isError"].clone(), err["content"][0]["text"].clone()), (json!(true), json!("bad")));
        let tools = list(Revision::legacy("2024-11-05").unwrap(), endpoints());
        assert!(tools[0].get("outputSchema").is_none() && tools[0].get("annotations").is_none());
        assert!(list(Revision::Modern, endpoints())[0]["outputSchema"].is_object());
    }
}
