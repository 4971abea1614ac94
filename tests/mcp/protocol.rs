//! The protocol rules on the wire, with raw HTTP requests: version negotiation in both eras, the
//! 2026-07-28 request checks and their statuses, JSON or SSE by `Accept`, notifications, ids
//! echoed as sent, and the methods `/mcp` does not take.

use agentrep_tests::{RunningServer, shared_world};
use reqwest::StatusCode;
use reqwest::header::HeaderMap;
use serde_json::{Value, json};

const JSON_AND_SSE: &str = "application/json, text/event-stream";

struct Reply {
    status: StatusCode,
    headers: HeaderMap,
    body: String,
}

impl Reply {
    fn json(&self) -> Value {
        serde_json::from_str(&self.body).unwrap_or_else(|e| panic!("not JSON ({e}): {}", self.body))
    }

    fn content_type(&self) -> &str {
        self.headers.get("content-type").map_or("", |v| v.to_str().unwrap())
    }
}

async fn post(url: &str, headers: &[(&str, &str)], body: impl Into<String>) -> Reply {
    let mut req = reqwest::Client::new().post(url).header("content-type", "application/json");
    for (k, v) in headers {
        req = req.header(*k, *v);
    }
    let resp = req.body(body.into()).send().await.unwrap();
    Reply { status: resp.status(), headers: resp.headers().clone(), body: resp.text().await.unwrap() }
}

fn meta() -> Value {
    json!({
        "io.modelcontextprotocol/protocolVersion": "2026-07-28",
        "io.modelcontextprotocol/clientCapabilities": {},
        "io.modelcontextprotocol/clientInfo": { "name": "raw", "version": "1" },
    })
}

/// A 2026-07-28 request with its headers.
async fn modern(url: &str, id: Value, method: &str, mut params: Value) -> Reply {
    params["_meta"] = meta();
    let name = params.get("name").and_then(Value::as_str).map(str::to_owned);
    let mut headers = vec![("accept", JSON_AND_SSE), ("mcp-protocol-version", "2026-07-28"), ("mcp-method", method)];
    if let Some(name) = &name {
        headers.push(("mcp-name", name));
    }
    post(url, &headers, json!({ "jsonrpc": "2.0", "id": id, "method": method, "params": params }).to_string()).await
}

/// An initialize-era request; `version` is the `MCP-Protocol-Version` header, if any.
async fn legacy(url: &str, version: Option<&str>, id: Value, method: &str, params: Value) -> Reply {
    let mut headers = vec![("accept", JSON_AND_SSE)];
    if let Some(v) = version {
        headers.push(("mcp-protocol-version", v));
    }
    post(url, &headers, json!({ "jsonrpc": "2.0", "id": id, "method": method, "params": params }).to_string()).await
}

fn assert_error(r: &Reply, status: StatusCode, code: i64, id: &Value) {
    assert_eq!(r.status, status, "{}", r.body);
    let v = r.json();
    assert_eq!(v["error"]["code"], code, "{v}");
    assert_eq!(&v["id"], id, "{v}");
    assert!(v["error"]["message"].as_str().is_some_and(|m| !m.is_empty()), "{v}");
    assert!(v.get("result").is_none());
}

fn initialize(version: &str) -> Value {
    json!({ "protocolVersion": version, "capabilities": {}, "clientInfo": { "name": "raw", "version": "1" } })
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn stateless_revision_discovery_and_request_checks() {
    let s = RunningServer::start(&shared_world().snapshots());
    let url = format!("http://{}/mcp", s.addr);

    let r = modern(&url, json!("discover-1"), "server/discover", json!({})).await;
    assert_eq!((r.status, r.content_type()), (StatusCode::OK, "application/json"), "{}", r.body);
    let v = r.json();
    assert_eq!(v["id"], "discover-1", "string ids are echoed");
    let result = &v["result"];
    assert_eq!(result["resultType"], "complete");
    assert_eq!(
        result["supportedVersions"],
        json!(["2026-07-28", "2025-11-25", "2025-06-18", "2025-03-26", "2024-11-05"])
    );
    assert!(result["capabilities"]["tools"].is_object());
    assert!(result["capabilities"].get("extensions").is_none(), "no payments here: no x402 extension offered");
    assert!(result["ttlMs"].is_u64() && result["cacheScope"] == "public", "{result}");
    assert_eq!(result["_meta"]["io.modelcontextprotocol/serverInfo"]["name"], "agentrep");

    let r = modern(&url, json!(0), "tools/list", json!({})).await;
    let v = r.json();
    assert_eq!(v["id"], 0, "id 0 is echoed");
    assert_eq!(
        v["result"]["tools"].as_array().unwrap().len(),
        agentrep_server::mcp::tools::all(agentrep_server::routes::endpoints()).len()
            + agentrep_server::mcp::paid::PAID_TOOLS.len()
    );
    assert!(v["result"]["ttlMs"].is_u64() && v["result"]["cacheScope"] == "public");
    assert!(v["result"]["tools"].as_array().unwrap().iter().all(|t| t["outputSchema"]["type"] == "object"));

    let top = {
        let lb: Value = reqwest::get(format!("{}/leaderboard?limit=1", s.base)).await.unwrap().json().await.unwrap();
        lb["results"][0]["payTo"].as_str().unwrap().to_owned()
    };
    let r =
        modern(&url, json!(7), "tools/call", json!({ "name": "mainstreet_score", "arguments": { "address": top } }))
            .await;
    let v = r.json();
    let http: Value = reqwest::get(format!("{}/score/{top}", s.base)).await.unwrap().json().await.unwrap();
    assert_eq!(v["result"]["structuredContent"], http, "a tool answers as its HTTP read");
    assert_eq!((v["result"]["isError"].clone(), v["result"]["resultType"].clone()), (json!(false), json!("complete")));
    assert!(v["result"].get("ttlMs").is_none(), "tools/call results are not cacheable results");

    // Tool failures are results, unknown tools are errors.
    let r = modern(
        &url,
        json!(8),
        "tools/call",
        json!({ "name": "mainstreet_history", "arguments": { "address": top, "days": 91 } }),
    )
    .await;
    let v = r.json();
    assert_eq!(v["result"]["isError"], true, "{v}");
    assert!(v["result"]["content"][0]["text"].as_str().unwrap().contains("days"), "{v}");
    let r = modern(&url, json!(9), "tools/call", json!({ "name": "nope", "arguments": {} })).await;
    assert_error(&r, StatusCode::BAD_REQUEST, -32602, &json!(9));

    // The checks, in order: _meta keys, headers, version; then the method.
    let unsupported = json!({
        "io.modelcontextprotocol/protocolVersion": "2099-01-01",
        "io.modelcontextprotocol/clientCapabilities": {},
    });
    let body = json!({ "jsonrpc": "2.0", "id": 10, "method": "tools/list", "params": { "_meta": unsupported } });
    let headers = [("accept", JSON_AND_SSE), ("mcp-protocol-version", "2099-01-01"), ("mcp-method", "tools/list")];
    let r = post(&url, &headers, body.to_string()).await;
    assert_error(&r, StatusCode::BAD_REQUEST, -32022, &json!(10));
    let data = &r.json()["error"]["data"];
    assert_eq!((data["requested"].clone(), data["supported"][0].clone()), (json!("2099-01-01"), json!("2026-07-28")));

    let no_caps = json!({ "jsonrpc": "2.0", "id": 11, "method": "tools/list",
                          "params": { "_meta": { "io.modelcontextprotocol/protocolVersion": "2026-07-28" } } });
    let headers = [("accept", JSON_AND_SSE), ("mcp-protocol-version", "2026-07-28"), ("mcp-method", "tools/list")];
    assert_error(&post(&url, &headers, no_caps.to_string()).await, StatusCode::BAD_REQUEST, -32602, &json!(11));

    let list = json!({ "jsonrpc": "2.0", "id": 12, "method": "tools/list", "params": { "_meta": meta() } }).to_string();
    let without_method = [("accept", JSON_AND_SSE), ("mcp-protocol-version", "2026-07-28")];
    assert_error(&post(&url, &without_method, list.clone()).await, StatusCode::BAD_REQUEST, -32020, &json!(12));
    let wrong_method = [("accept", JSON_AND_SSE), ("mcp-protocol-version", "2026-07-28"), ("mcp-method", "tools/call")];
    assert_error(&post(&url, &wrong_method, list.clone()).await, StatusCode::BAD_REQUEST, -32020, &json!(12));
    let wrong_version =
        [("accept", JSON_AND_SSE), ("mcp-protocol-version", "2025-06-18"), ("mcp-method", "tools/list")];
    assert_error(&post(&url, &wrong_version, list).await, StatusCode::BAD_REQUEST, -32020, &json!(12));
    let call = json!({ "jsonrpc": "2.0", "id": 13, "method": "tools/call",
                       "params": { "name": "mainstreet_catalog", "_meta": meta() } })
    .to_string();
    let unnamed = [("accept", JSON_AND_SSE), ("mcp-protocol-version", "2026-07-28"), ("mcp-method", "tools/call")];
    assert_error(&post(&url, &unnamed, call.clone()).await, StatusCode::BAD_REQUEST, -32020, &json!(13));
    let named = [
        ("accept", JSON_AND_SSE),
        ("mcp-protocol-version", "2026-07-28"),
        ("mcp-method", "tools/call"),
        ("mcp-name", "=?base64?bWFpbnN0cmVldF9jYXRhbG9n?="),
    ];
    let r = post(&url, &named, call).await;
    assert_eq!(r.status, StatusCode::OK, "a base64-encoded Mcp-Name is decoded: {}", r.body);

    let r = modern(&url, json!(14), "resources/list", json!({})).await;
    assert_error(&r, StatusCode::NOT_FOUND, -32601, &json!(14));
    let r = modern(&url, json!(15), "ping", json!({})).await;
    assert_error(&r, StatusCode::NOT_FOUND, -32601, &json!(15));
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn initialize_revisions_negotiate_and_shape_their_answers() {
    let s = RunningServer::start(&shared_world().snapshots());
    let url = format!("{}/mcp", s.base);
    for (asked, answered) in [
        ("2025-11-25", "2025-11-25"),
        ("2025-06-18", "2025-06-18"),
        ("2025-03-26", "2025-03-26"),
        ("2024-11-05", "2024-11-05"),
        ("1999-01-01", "2025-11-25"),
        ("2026-07-28", "2025-11-25"),
    ] {
        let r = legacy(&url, None, json!(0), "initialize", initialize(asked)).await;
        assert_eq!(r.status, StatusCode::OK, "{}", r.body);
        let result = &r.json()["result"];
        assert_eq!(result["protocolVersion"], answered, "initialize {asked}");
        assert_eq!(result["serverInfo"]["name"], "agentrep");
        assert!(result["capabilities"]["tools"].is_object());
        assert!(result.get("resultType").is_none(), "initialize-era results carry no resultType");
    }
    let r = legacy(&url, Some("2025-06-18"), json!(1), "ping", json!({})).await;
    assert_eq!(r.json()["result"], json!({}));

    let r = legacy(&url, Some("2025-06-18"), json!(2), "tools/list", json!({})).await;
    let tools = r.json()["result"]["tools"].clone();
    assert!(tools.as_array().unwrap().iter().all(|t| t["outputSchema"]["type"] == "object" && t["title"].is_string()));
    assert!(r.json()["result"].get("ttlMs").is_none());
    let r = legacy(&url, Some("2024-11-05"), json!(3), "tools/list", json!({})).await;
    let tools = r.json()["result"]["tools"].clone();
    assert!(
        tools.as_array().unwrap().iter().all(|t| t.get("outputSchema").is_none() && t.get("annotations").is_none()),
        "2024-11-05 defines neither output schemas nor annotations"
    );
    let r = legacy(&url, Some("2024-11-05"), json!(4), "tools/call", json!({ "name": "mainstreet_catalog" })).await;
    let result = r.json()["result"].clone();
    assert!(result.get("structuredContent").is_none(), "{result}");
    let text: Value = serde_json::from_str(result["content"][0]["text"].as_str().unwrap()).unwrap();
    assert_eq!(text["version"], "agentrep-catalog-v1", "the answer is in the text block");
    let r = legacy(&url, None, json!(5), "tools/call", json!({ "name": "mainstreet_catalog", "arguments": {} })).await;
    assert!(r.json()["result"].get("structuredContent").is_none(), "no header: 2025-03-26");
    let r = legacy(&url, Some("2025-11-25"), json!(6), "tools/call", json!({ "name": "mainstreet_catalog" })).await;
    assert_eq!(r.json()["result"]["structuredContent"]["version"], "agentrep-catalog-v1");

    // Errors of initialize-era requests come with 200, so every client delivers them as such.
    let r = legacy(&url, Some("2025-11-25"), json!("x"), "resources/list", json!({})).await;
    assert_error(&r, StatusCode::OK, -32601, &json!("x"));
    let r = legacy(&url, Some("2025-11-25"), json!(7), "tools/call", json!({ "name": "nope" })).await;
    assert_error(&r, StatusCode::OK, -32602, &json!(7));
    // An unknown version in the header takes the 2026-07-28 checks (here: no _meta).
    let r = legacy(&url, Some("2031-01-01"), json!(8), "tools/list", json!({})).await;
    assert_eq!(r.status, StatusCode::BAD_REQUEST, "{}", r.body);
    // Session ids are ignored, never required or minted.
    let r = post(
        &url,
        &[("accept", JSON_AND_SSE), ("mcp-protocol-version", "2025-11-25"), ("mcp-session-id", "abc")],
        json!({ "jsonrpc": "2.0", "id": 9, "method": "ping" }).to_string(),
    )
    .await;
    assert_eq!(r.status, StatusCode::OK);
    assert!(r.headers.get("mcp-session-id").is_none());
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn transport_framing_notifications_and_methods() {
    let s = RunningServer::start(&shared_world().snapshots());
    for url in [format!("http://{}/mcp", s.addr), format!("{}/mcp", s.base)] {
        let ping = json!({ "jsonrpc": "2.0", "id": 1, "method": "ping" }).to_string();
        let r = post(&url, &[("accept", "text/event-stream")], ping.clone()).await;
        assert_eq!((r.status, r.content_type()), (StatusCode::OK, "text/event-stream"), "{url}");
        let data = r.body.strip_prefix("event: message\ndata: ").and_then(|b| b.strip_suffix("\n\n"));
        let event: Value = serde_json::from_str(data.unwrap_or_else(|| panic!("one SSE event: {:?}", r.body))).unwrap();
        assert_eq!((event["id"].clone(), event["result"].clone()), (json!(1), json!({})));
        let r = post(&url, &[("accept", "application/json;q=0.9, text/event-stream")], ping.clone()).await;
        assert_eq!(r.content_type(), "text/event-stream", "the preferred framing");
        for accept in [JSON_AND_SSE, "application/json", "*/*"] {
            let r = post(&url, &[("accept", accept)], ping.clone()).await;
            assert_eq!((r.status, r.content_type()), (StatusCode::OK, "application/json"), "{accept}");
        }
        let r = post(&url, &[("accept", "text/html")], ping.clone()).await;
        assert_eq!(r.status, StatusCode::NOT_ACCEPTABLE);
        // Errors are JSON whatever the framing asked for.
        let r = post(&url, &[("accept", "text/event-stream")], "{".to_owned()).await;
        assert_error(&r, StatusCode::BAD_REQUEST, -32700, &Value::Null);
        assert_eq!(r.content_type(), "application/json");

        for notification in [
            json!({ "jsonrpc": "2.0", "method": "notifications/initialized" }),
            json!({ "jsonrpc": "2.0", "method": "notifications/cancelled", "params": { "requestId": 1 } }),
        ] {
            let r = post(&url, &[("accept", JSON_AND_SSE)], notification.to_string()).await;
            assert_eq!((r.status, r.body.as_str()), (StatusCode::ACCEPTED, ""), "{notification}");
        }
        let batch = json!([{ "jsonrpc": "2.0", "id": 1, "method": "ping" }]).to_string();
        assert_error(
            &post(&url, &[("accept", JSON_AND_SSE)], batch).await,
            StatusCode::BAD_REQUEST,
            -32600,
            &Value::Null,
        );
        let response = json!({ "jsonrpc": "2.0", "id": 4, "result": {} }).to_string();
        assert_error(
            &post(&url, &[("accept", JSON_AND_SSE)], response).await,
            StatusCode::BAD_REQUEST,
            -32600,
            &json!(4),
        );
        let r = post(&url, &[("accept", JSON_AND_SSE), ("origin", "null")], ping.clone()).await;
        assert_eq!(r.status, StatusCode::FORBIDDEN);
        let r = post(&url, &[("accept", JSON_AND_SSE), ("origin", "https://example.org")], ping.clone()).await;
        assert_eq!(r.status, StatusCode::OK);

        let client = reqwest::Client::new();
        for method in [reqwest::Method::GET, reqwest::Method::DELETE] {
            let r = client.request(method.clone(), &url).header("accept", "text/event-stream").send().await.unwrap();
            assert_eq!(r.status(), StatusCode::METHOD_NOT_ALLOWED, "{method} {url}");
            assert_eq!(r.headers()["allow"], "POST");
        }
    }

    let catalog: Value = reqwest::get(format!("{}/catalog", s.base)).await.unwrap().json().await.unwrap();
    assert_eq!(catalog["transport"]["mcp"], "POST /api/agent/mcp (streamable HTTP)");
    let free: Vec<&str> = catalog["free"].as_array().unwrap().iter().filter_map(|r| r["route"].as_str()).collect();
    assert!(free.contains(&"POST /api/agent/mcp") && free.contains(&"POST /mcp"), "{free:?}");
    let me: Value = reqwest::get(format!("{}/me", s.base)).await.unwrap().json().await.unwrap();
    assert_eq!(me["surfaces"]["mcp"], "/api/agent/mcp");

    // The tools that are more than one query.
    let url = format!("http://{}/mcp", s.addr);
    let lb: Value = reqwest::get(format!("{}/leaderboard?limit=1", s.base)).await.unwrap().json().await.unwrap();
    let top = lb["results"][0]["payTo"].as_str().unwrap().to_owned();
    let call = |name: &'static str, arguments: Value| {
        let url = url.clone();
        async move {
            let r = modern(&url, json!(1), "tools/call", json!({ "name": name, "arguments": arguments })).await;
            r.json()["result"].clone()
        }
    };
    let info = call("mainstreet_audit_info", json!({ "address": top.to_uppercase().replacen("0X", "0x", 1) })).await;
    let info = &info["structuredContent"];
    assert_eq!(info["endpoint"], format!("http://{}/api/agent/audit/{top}", s.addr), "{info}");
    assert_eq!((info["served"].clone(), info["price"].clone()), (json!(false), json!("$0.25 USDC")));
    let vet = call("mainstreet_vet", json!({ "address": top, "minScore": 0, "requireAlive": false })).await;
    let vet = &vet["structuredContent"];
    assert_eq!((vet["passed"].clone(), vet["failures"].clone()), (json!(true), json!([])), "{vet}");
    let vet = call("mainstreet_vet", json!({ "address": top, "minScore": 100 })).await;
    let failures = vet["structuredContent"]["failures"].as_array().unwrap().clone();
    assert!(failures.iter().any(|f| f.as_str().unwrap().contains("< 100")), "{failures:?}");
    let unknown = "0x00000000000000000000000000000000000000aa";
    let vet = call("mainstreet_vet", json!({ "address": unknown })).await;
    assert_eq!(vet["structuredContent"]["passed"], false);
    assert_eq!(vet["structuredContent"]["score"], Value::Null);
    let pick = call("mainstreet_pick", json!({ "intent": "zzqx unmatched words" })).await;
    assert_eq!(pick["isError"], true, "{pick}");
    assert!(pick["content"][0]["text"].as_str().unwrap().contains("no agent matched"));
    let lb = call("mainstreet_leaderboard", json!({})).await;
    assert_eq!(lb["structuredContent"]["filters"]["limit"], 10, "the original's default");
    assert_eq!(lb["structuredContent"]["filters"]["network"], "base");
}
