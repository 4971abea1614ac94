//! The official SDK clients against the real server (HTTP at the origin's `/mcp` and at
//! `/api/agent/mcp`) and the real `agentrep mcp` process (stdio), each negotiating the revision its
//! SDK and mode lead to. Every answer is compared with what the HTTP read returns for the same
//! query, and every tool is called, so the SDKs validate every output schema against its answer.

use std::collections::BTreeMap;

use agentrep_server::endpoints::Verb;
use agentrep_server::mcp::tool::Tool;
use agentrep_server::routes::endpoints;
use agentrep_tests::{RunningServer, shared_world};
use serde_json::{Map, Value, json};

use super::{Sdk, run_client};
use agentrep_tests::agentrep_binary;

/// The tool table of the route table.
fn tools() -> &'static [agentrep_server::mcp::tool::Tool] {
    agentrep_server::mcp::tools::all(agentrep_server::routes::endpoints())
}

/// What the calls are made with: wallets and words of the shared world.
struct Fixture {
    base: String,
    top: String,
    second: String,
    deployer: String,
    token: String,
    word: String,
    intent: String,
    tag: String,
    resource: String,
}

async fn get(url: &str) -> Value {
    let resp = reqwest::get(url).await.unwrap();
    assert_eq!(resp.status(), reqwest::StatusCode::OK, "{url}");
    resp.json().await.unwrap()
}

async fn post(url: &str, body: &Value) -> Value {
    let resp = reqwest::Client::new().post(url).json(body).send().await.unwrap();
    assert_eq!(resp.status(), reqwest::StatusCode::OK, "{url}");
    resp.json().await.unwrap()
}

async fn fixture(s: &RunningServer) -> Fixture {
    let lb = get(&format!("{}/leaderboard?limit=2&network=base", s.base)).await;
    let (top, second) = (lb["results"][0]["payTo"].as_str().unwrap(), lb["results"][1]["payTo"].as_str().unwrap());
    let score = get(&format!("{}/score/{top}", s.base)).await;
    let description = score["description"].as_str().unwrap().to_owned();
    let word = description
        .split(|c: char| !c.is_ascii_alphabetic())
        .find(|w| w.len() >= 4)
        .unwrap_or_else(|| panic!("a word in '{description}'"))
        .to_lowercase();
    let tags = get(&format!("{}/tags", s.base)).await;
    let deployers = get(&format!("{}/deployers/top?limit=1", s.base)).await;
    let deployer = deployers["deployers"][0]["address"].as_str().unwrap().to_owned();
    let profile = get(&format!("{}/deployer/{deployer}", s.base)).await;
    let resource = score["resourcePath"].as_str().unwrap().to_owned();
    Fixture {
        base: s.base.clone(),
        top: top.to_owned(),
        second: second.to_owned(),
        token: profile["launches"][0]["token"].as_str().unwrap().to_owned(),
        deployer,
        word,
        intent: description.chars().take(200).collect(),
        tag: tags["tags"][0]["tag"].as_str().unwrap().to_owned(),
        resource,
    }
}

/// Arguments for a tool: its required ones from the fixture.
fn args_for(tool: &Tool, f: &Fixture) -> Value {
    let mut args = Map::new();
    for name in tool.input_schema()["required"].as_array().into_iter().flatten().filter_map(Value::as_str) {
        let value = match name {
            "address" if tool.route == Some("/deployer/{address}") => json!(f.deployer),
            "address" if tool.route == Some("/token/{address}/buyer-trust") => json!(f.token),
            "address" | "a" | "for" => json!(f.top),
            "b" => json!(f.second),
            "q" => json!(f.word),
            "intent" => json!(f.intent),
            "addresses" => json!([f.top, f.deployer]),
            "tag" => json!(f.tag),
            "cat" => json!("other"),
            "tokenAddress" => json!(f.token),
            "url" => json!(f.resource),
            other => panic!("no fixture for the required argument {other} of {}", tool.name),
        };
        args.insert(name.to_owned(), value);
    }
    if tool.name == "mainstreet_pick" {
        args.insert("allowWeak".to_owned(), json!(true));
    }
    if tool.name == "agentrep_trust_evaluate" {
        // The drafts require no one field: a draft-02 query about the top seller.
        args.insert("direction".to_owned(), json!("seller"));
        args.insert("subject".to_owned(), json!({"wallet": f.top, "chain": "eip155:8453"}));
    }
    Value::Object(args)
}

/// What the HTTP read an `agentrep_*` tool mirrors answers for the same arguments.
async fn http_answer(f: &Fixture, tool: &Tool, args: &Value) -> Value {
    let path = tool.route.expect("agentrep tools mirror a route");
    let def = endpoints().iter().find(|r| r.path == path).unwrap();
    let mut rest = args.as_object().unwrap().clone();
    let mut url_path = path.to_owned();
    for param in ["address", "tag", "cat", "tokenAddress"] {
        if let Some(v) = url_path.contains(&format!("{{{param}}}")).then(|| rest.remove(param)).flatten() {
            url_path = url_path.replace(&format!("{{{param}}}"), v.as_str().unwrap());
        }
    }
    let url = format!("{}{url_path}", f.base);
    match def.method {
        Verb::Get => {
            let pairs: Vec<(String, String)> = rest
                .iter()
                .map(|(k, v)| (k.clone(), v.as_str().map_or_else(|| v.to_string(), str::to_owned)))
                .collect();
            let resp = reqwest::Client::new().get(&url).query(&pairs).send().await.unwrap();
            assert_eq!(resp.status(), reqwest::StatusCode::OK, "{url}");
            resp.json().await.unwrap()
        }
        Verb::Post => post(&url, &Value::Object(rest)).await,
    }
}

/// Every tool with its arguments, and the HTTP answers of the `agentrep_*` ones (a random draw
/// has none).
async fn calls(f: &Fixture) -> (Vec<Value>, BTreeMap<String, Value>) {
    let mut calls = Vec::new();
    let mut expected = BTreeMap::new();
    for tool in tools().iter() {
        let args = args_for(tool, f);
        if tool.name.starts_with("agentrep_") && tool.name != "agentrep_random" {
            expected.insert(tool.name.to_owned(), http_answer(f, tool, &args).await);
        }
        calls.push(json!({ "name": tool.name, "arguments": args }));
    }
    (calls, expected)
}

/// The fixed flow's answers over HTTP.
struct Flow {
    leaderboard: Value,
    score: Value,
    search: Value,
    matched: Value,
    history: Value,
}

async fn flow(f: &Fixture) -> Flow {
    let leaderboard = get(&format!("{}/leaderboard?limit=3&network=base", f.base)).await;
    let top = leaderboard["results"][0]["payTo"].as_str().unwrap().to_owned();
    Flow {
        score: get(&format!("{}/score/{top}", f.base)).await,
        search: get(&format!("{}/search?q={}&limit=10", f.base, f.word)).await,
        matched: post(&format!("{}/match", f.base), &json!({ "intent": f.intent, "limit": 3 })).await,
        history: get(&format!("{}/history/{top}?days=3", f.base)).await,
        leaderboard,
    }
}

/// The first place two JSON values differ, as a JSON pointer with both sides.
fn difference(a: &Value, b: &Value, at: &str) -> Option<String> {
    match (a, b) {
        (Value::Object(x), Value::Object(y)) => {
            let keys: std::collections::BTreeSet<&String> = x.keys().chain(y.keys()).collect();
            keys.into_iter().find_map(|k| {
                difference(x.get(k).unwrap_or(&Value::Null), y.get(k).unwrap_or(&Value::Null), &format!("{at}/{k}"))
                    .or_else(|| {
                        (x.contains_key(k) != y.contains_key(k)).then(|| format!("{at}/{k}: present on one side"))
                    })
            })
        }
        (Value::Array(x), Value::Array(y)) if x.len() == y.len() => {
            x.iter().zip(y).enumerate().find_map(|(i, (p, q))| difference(p, q, &format!("{at}/{i}")))
        }
        // JSON has one number type: JavaScript prints 1.0 as 1.
        (Value::Number(x), Value::Number(y)) if x.as_f64() == y.as_f64() => None,
        _ if a == b => None,
        _ => Some(format!("{at}: {a} vs {b}")),
    }
}

fn assert_same(client: &Value, http: &Value, what: &str) {
    if let Some(diff) = difference(client, http, "") {
        panic!("{what}: the client saw another answer than HTTP, first at {diff}");
    }
}

/// Checks what a client saw; `skip` names tools whose answer legitimately differs between the
/// HTTP server and this client's server (another process).
fn check(label: &str, out: &Value, flow: &Flow, expected: &BTreeMap<String, Value>, skip: &[&str]) {
    let names: Vec<&str> =
        tools().iter().map(|t| t.name).chain(agentrep_server::mcp::paid::PAID_TOOLS.iter().map(|t| t.name)).collect();
    let listed: Vec<&str> = out["tools"].as_array().unwrap().iter().filter_map(Value::as_str).collect();
    assert_eq!(listed, names, "{label}: tools/list is the table, in order");
    assert_eq!(listed.iter().filter(|n| n.starts_with("mainstreet_")).count(), 15, "{label}");
    assert_eq!(out["server"]["name"], "agentrep", "{label}");
    let tool = &out["scoreTool"];
    assert_eq!(tool["inputSchema"]["required"], json!(["address"]), "{label}");
    assert_eq!(tool["outputSchema"]["type"], "object", "{label}");
    let same = |client: &Value, http: &Value, what: &str| assert_same(client, http, &format!("{label}: {what}"));
    same(&out["leaderboard"], &flow.leaderboard, "mainstreet_leaderboard (GET /leaderboard?limit=3&network=base)");
    same(&out["score"], &flow.score, "mainstreet_score (GET /score)");
    same(&out["search"], &flow.search, "mainstreet_search (GET /search?limit=10)");
    same(&out["match"], &flow.matched, "mainstreet_match (POST /match)");
    same(&out["history"], &flow.history, "agentrep_history (GET /history)");
    assert_eq!(out["invalid"]["isError"], true, "{label}: {}", out["invalid"]);
    let text = out["invalid"]["text"].as_str().unwrap();
    assert!(text.contains("invalid_address") && text.contains("0x12"), "{label}: {text}");
    assert_eq!(out["unknownTool"]["code"], -32602, "{label}: {}", out["unknownTool"]);
    let calls = out["calls"].as_array().unwrap();
    assert_eq!(calls.len(), tools().len(), "{label}");
    for call in calls {
        let name = call["name"].as_str().unwrap();
        assert!(call.get("thrown").is_none(), "{label}: {name} threw in the client: {}", call["thrown"]);
        assert_eq!(call["isError"], false, "{label}: {name}: {}", call["text"]);
        assert!(call["structured"].is_object(), "{label}: {name} has structured content");
        if let Some(http) = expected.get(name).filter(|_| !skip.contains(&name)) {
            assert_same(&timeless(&call["structured"]), &timeless(http), &format!("{label}: {name}"));
        }
    }
}

/// An answer without the times of its making (a trust evaluation's `issued_at` and what follows
/// from it): two calls a second apart answer the same evidence at different times.
fn timeless(v: &Value) -> Value {
    let mut v = v.clone();
    if let Some(map) = v.as_object_mut().filter(|m| m.contains_key("issued_at")) {
        for key in ["issued_at", "evaluated_at", "expires_at", "recheck_after", "envelope"] {
            map.remove(key);
        }
    }
    v
}

fn plan(f: &Fixture, calls: &[Value], extra: Value) -> Value {
    let mut p = json!({ "search": f.word, "intent": f.intent, "calls": calls });
    p.as_object_mut().unwrap().extend(extra.as_object().unwrap().clone());
    p
}

fn content_types(out: &Value) -> Vec<&str> {
    out["http"]["contentTypes"].as_array().unwrap().iter().filter_map(Value::as_str).collect()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn official_clients_over_streamable_http() {
    let s = RunningServer::start(&shared_world().snapshots());
    let f = fixture(&s).await;
    let (calls, expected) = calls(&f).await;
    let flow = flow(&f).await;
    let origin = format!("http://{}/mcp", s.addr);
    let api = format!("{}/mcp", s.base);
    let runs = [
        ("TS v1 HTTP /mcp", Sdk::Node, json!({ "sdk": "v1", "url": origin }), "2025-11-25"),
        (
            "TS v1 HTTP /api/agent/mcp, SSE",
            Sdk::Node,
            json!({ "sdk": "v1", "url": api, "preferSse": true }),
            "2025-11-25",
        ),
        (
            "TS v2 pinned 2026-07-28 HTTP /mcp",
            Sdk::Node,
            json!({ "sdk": "v2", "mode": "pin", "url": origin }),
            "2026-07-28",
        ),
        ("TS v2 auto HTTP /api/agent/mcp", Sdk::Node, json!({ "sdk": "v2", "mode": "auto", "url": api }), "2026-07-28"),
        ("Python auto HTTP /mcp", Sdk::Python, json!({ "mode": "auto", "url": origin }), "2026-07-28"),
        ("Python legacy HTTP /api/agent/mcp", Sdk::Python, json!({ "mode": "legacy", "url": api }), "2025-11-25"),
    ];
    for (label, sdk, extra, version) in runs {
        let out = tokio::task::spawn_blocking({
            let plan = plan(&f, &calls, extra);
            move || run_client(sdk, &plan)
        })
        .await
        .unwrap();
        check(label, &out, &flow, &expected, &[]);
        assert_eq!(out["protocolVersion"], version, "{label}");
        if version == "2026-07-28" {
            assert_eq!(out["listCacheScope"], "public", "{label}: 2026-07-28 list results are cacheable");
            assert!(out["listTtlMs"].is_u64(), "{label}: ttlMs {}", out["listTtlMs"]);
        }
        if matches!(sdk, Sdk::Node) {
            let types = content_types(&out);
            let answered: Vec<&&str> = types.iter().filter(|t| t.starts_with("POST 200")).collect();
            let framing = if label.ends_with("SSE") { "text/event-stream" } else { "application/json" };
            assert!(
                !answered.is_empty() && answered.iter().all(|t| t.ends_with(framing)),
                "{label}: every answer is {framing}: {types:?}"
            );
            if version != "2026-07-28" {
                assert!(types.contains(&"POST 202 "), "{label}: notifications/initialized gets 202: {types:?}");
                assert!(types.iter().any(|t| t.starts_with("GET 405")), "{label}: no standalone stream: {types:?}");
            }
        }
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn official_clients_over_stdio() {
    let snapshots = shared_world().snapshots();
    let s = RunningServer::start(&snapshots);
    let f = fixture(&s).await;
    let (calls, expected) = calls(&f).await;
    let flow = flow(&f).await;
    let bin = agentrep_binary();
    let stdio = json!({
        "command": bin.to_str().unwrap(),
        "args": ["mcp", "--snapshots", snapshots.to_str().unwrap()],
    });
    let with = |extra: Value| {
        let mut e = stdio.clone();
        e.as_object_mut().unwrap().extend(extra.as_object().unwrap().clone());
        e
    };
    let runs = [
        ("Python auto stdio", Sdk::Python, with(json!({ "mode": "auto" })), Some("2026-07-28")),
        ("TS v2 pinned 2026-07-28 stdio", Sdk::Node, with(json!({ "sdk": "v2", "mode": "pin" })), Some("2026-07-28")),
        // The v1 stdio transport does not expose the negotiated version; structured answers show
        // it is 2025-06-18 or later.
        ("TS v1 stdio", Sdk::Node, with(json!({ "sdk": "v1" })), None),
    ];
    for (label, sdk, extra, version) in runs {
        let out = tokio::task::spawn_blocking({
            let plan = plan(&f, &calls, extra);
            move || run_client(sdk, &plan)
        })
        .await
        .unwrap();
        // `/status` tells when this process loaded the snapshot.
        check(label, &out, &flow, &expected, &["agentrep_status"]);
        if let Some(version) = version {
            assert_eq!(out["protocolVersion"], version, "{label}");
        }
    }
}
