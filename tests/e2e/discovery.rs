//! The ranking, discovery, deployer, list and service reads of issue 7 against the real server
//! on a random loopback port: seed fields, limits, and clear errors.

use agentrep_tests::{RunningServer, shared_world};
use reqwest::StatusCode;
use serde_json::{Value, json};

fn server() -> RunningServer {
    RunningServer::start(&shared_world().snapshots())
}

async fn get(url: &str) -> (StatusCode, Value) {
    let resp = reqwest::get(url).await.unwrap();
    let status = resp.status();
    (status, resp.json().await.unwrap_or(Value::Null))
}

async fn post(url: &str, body: &Value) -> (StatusCode, Value) {
    let resp = reqwest::Client::new().post(url).json(body).send().await.unwrap();
    let status = resp.status();
    (status, resp.json().await.unwrap_or(Value::Null))
}

fn assert_error(status: StatusCode, v: &Value, expected: StatusCode, code: &str) {
    assert_eq!(status, expected, "{v}");
    assert_eq!(v["error"]["code"], code, "{v}");
    assert!(v["error"]["message"].as_str().is_some_and(|m| !m.is_empty()));
}

async fn ranked(base: &str, n: u32) -> Vec<Value> {
    let (_, lb) = get(&format!("{base}/leaderboard?limit={n}")).await;
    lb["results"].as_array().unwrap().clone()
}

const UNKNOWN: &str = "0x00000000000000000000000000000000000000aa";

#[tokio::test]
async fn compare_featured_trending_movers_random() {
    let s = server();
    let top = ranked(&s.base, 500).await;
    let (a, b) = (top[0]["payTo"].as_str().unwrap(), top[1]["payTo"].as_str().unwrap());
    let (status, v) = get(&format!("{}/compare?a={a}&b={b}", s.base)).await;
    assert_eq!(status, StatusCode::OK);
    assert_eq!(v["version"], "agentrep-compare-v1");
    assert!(["a", "tie"].contains(&v["winner"].as_str().unwrap()), "the leader wins or ties: {v}");
    assert_eq!(v["margin"].as_u64().unwrap(), top[0]["score"].as_u64().unwrap() - top[1]["score"].as_u64().unwrap());
    assert!(v["a"]["indexed"].as_bool().unwrap() && v["a"]["metrics"].is_object());
    let (_, v) = get(&format!("{}/compare?a={a}&b={UNKNOWN}", s.base)).await;
    assert_eq!((v["winner"].clone(), v["b"]["indexed"].clone()), (Value::Null, json!(false)));
    let (status, v) = get(&format!("{}/compare?a=0x12&b={b}", s.base)).await;
    assert_error(status, &v, StatusCode::BAD_REQUEST, "invalid_a");
    let (status, v) = get(&format!("{}/compare?a={a}", s.base)).await;
    assert_error(status, &v, StatusCode::BAD_REQUEST, "invalid_b");

    let (_, v) = get(&format!("{}/featured", s.base)).await;
    let picks = v["picks"].as_array().unwrap();
    assert!(!picks.is_empty() && picks.len() <= 4);
    let mut seen = std::collections::HashSet::new();
    for p in picks {
        assert!(["trending", "newcomer", "volume", "gem"].contains(&p["label"].as_str().unwrap()));
        // Ranked: measured, and a buyer may pay it (the leaderboard's rule).
        let (_, pre) = get(&format!("{}/preflight/{}", s.base, p["payTo"].as_str().unwrap())).await;
        assert!(
            pre["score"].is_u64() && ["PROCEED", "PROCEED_LOW_VALUE"].contains(&pre["decision"].as_str().unwrap()),
            "picks are ranked agents: {pre}"
        );
        assert!(seen.insert(p["payTo"].as_str().unwrap().to_owned()), "no agent is picked twice");
    }

    let (_, v) = get(&format!("{}/trending?limit=3", s.base)).await;
    let results = v["results"].as_array().unwrap();
    assert!(results.len() <= 3 && v["days"] == 7);
    let deltas: Vec<i64> = results.iter().map(|r| r["delta"].as_i64().unwrap()).collect();
    assert!(deltas.iter().all(|d| *d > 0) && deltas.windows(2).all(|w| w[0] >= w[1]), "{deltas:?}");

    let (_, v) = get(&format!("{}/movers?limit=2", s.base)).await;
    assert!(v["gainers"].as_array().unwrap().len() <= 2 && v["losers"].as_array().unwrap().len() <= 2);
    assert_eq!(v["limit"], 2);
    assert!(v["withDelta"].as_u64().unwrap() > 0, "the shared world has several days");
    assert_eq!(v["note"], Value::Null, "note only when there is no data");
    let (status, v) = get(&format!("{}/movers?limit=0", s.base)).await;
    assert_error(status, &v, StatusCode::BAD_REQUEST, "invalid_limit");

    let (_, lb) = get(&format!("{}/leaderboard?limit=1", s.base)).await;
    let (_, v) = get(&format!("{}/random", s.base)).await;
    assert_eq!(v["pool"], lb["rankedToday"], "drawn from every ranked agent");
    assert!(["PROCEED", "PROCEED_LOW_VALUE"].contains(&v["agent"]["decision"].as_str().unwrap()));
    let (status, v) = get(&format!("{}/random?network=mars", s.base)).await;
    assert_error(status, &v, StatusCode::BAD_REQUEST, "invalid_network");
}

#[tokio::test]
async fn search_tags_and_recommend() {
    let s = server();
    let top = ranked(&s.base, 50).await;
    let leader = top[0]["payTo"].as_str().unwrap();
    let (_, v) = get(&format!("{}/search?q={}", s.base, &leader[..12])).await;
    assert_eq!(v["results"][0]["address"], leader, "an address prefix finds the address: {v}");
    assert_eq!(v["results"][0]["type"], "agent");

    let word = top
        .iter()
        .filter_map(|e| e["description"].as_str())
        .flat_map(|d| d.split(|c: char| !c.is_ascii_alphanumeric()))
        .find(|w| w.len() >= 5)
        .expect("a description word")
        .to_lowercase();
    let (_, v) = get(&format!("{}/search?q={word}&limit=3", s.base)).await;
    let results = v["results"].as_array().unwrap();
    assert!(!results.is_empty() && results.len() <= 3, "{v}");
    assert!(v["total"].as_u64().unwrap() >= results.len() as u64);
    for r in results {
        let text = format!("{} {}", r["description"].as_str().unwrap_or_default(), r["tags"]).to_lowercase();
        assert!(text.contains(&word), "{word} in {text}");
    }
    let relevance: Vec<u64> = results.iter().map(|r| r["relevance"].as_u64().unwrap()).collect();
    assert!(relevance.windows(2).all(|w| w[0] >= w[1]));
    let (_, v) = get(&format!("{}/search?q=%25%25", s.base)).await;
    assert_eq!(v["total"], 0, "LIKE wildcards are literal: {v}");
    assert!(v["note"].is_string());
    let (status, v) = get(&format!("{}/search?q=a", s.base)).await;
    assert_error(status, &v, StatusCode::BAD_REQUEST, "invalid_q");
    let (status, v) = get(&format!("{}/search", s.base)).await;
    assert_error(status, &v, StatusCode::BAD_REQUEST, "invalid_q");

    let (_, v) = get(&format!("{}/tags", s.base)).await;
    let tags = v["tags"].as_array().unwrap();
    assert!(!tags.is_empty() && tags.len() <= 100);
    assert!(tags.windows(2).all(|w| w[0]["count"].as_u64() >= w[1]["count"].as_u64()));
    let tag = tags[0]["tag"].as_str().unwrap();
    let (_, v) = get(&format!("{}/tags/{tag}?limit=5", s.base)).await;
    let results = v["results"].as_array().unwrap();
    assert!(!results.is_empty() && results.len() <= 5);
    assert!(
        results.iter().all(|r| r["tags"]
            .as_array()
            .unwrap()
            .iter()
            .any(|t| t.as_str().unwrap().eq_ignore_ascii_case(tag)))
    );
    let (status, v) = get(&format!("{}/tags/x", s.base)).await;
    assert_error(status, &v, StatusCode::BAD_REQUEST, "invalid_tag");
    let (status, v) = get(&format!("{}/tags/{tag}?limit=101", s.base)).await;
    assert_error(status, &v, StatusCode::BAD_REQUEST, "invalid_limit");

    let (status, v) = get(&format!("{}/recommend?for={leader}&limit=3", s.base)).await;
    assert_eq!(status, StatusCode::OK, "{v}");
    assert_eq!(v["basis"]["address"], leader);
    for r in v["results"].as_array().unwrap() {
        assert_ne!(r["payTo"], leader);
        assert!(r["sameCategory"].as_bool().unwrap() || !r["sharedTags"].as_array().unwrap().is_empty());
        assert!(!r["rationale"].as_str().unwrap().is_empty());
    }
    let (status, v) = get(&format!("{}/recommend?for={UNKNOWN}", s.base)).await;
    assert_error(status, &v, StatusCode::NOT_FOUND, "not_indexed");
    let (status, v) = get(&format!("{}/recommend?for=nobody", s.base)).await;
    assert_error(status, &v, StatusCode::BAD_REQUEST, "invalid_for");
}

#[tokio::test]
async fn batch_scores_and_match_read_bounded_json_bodies() {
    let s = server();
    let top = ranked(&s.base, 20).await;
    let leader = top[0]["payTo"].as_str().unwrap();
    let body = json!({ "addresses": [leader, UNKNOWN, leader.to_uppercase().replace("0X", "0x")] });
    let (status, v) = post(&format!("{}/scores", s.base), &body).await;
    assert_eq!(status, StatusCode::OK, "{v}");
    let results = v["results"].as_array().unwrap();
    assert_eq!(results.len(), 2, "duplicates and letter case fold");
    assert_eq!(results[0]["agentScore"], top[0]["score"]);
    assert_eq!(results[0]["hasAnyTrust"], true);
    assert_eq!((results[1]["agentScore"].clone(), results[1]["hasAnyTrust"].clone()), (Value::Null, json!(false)));
    for key in ["deployerScore", "proofCount"] {
        assert!(results[1].get(key).is_some());
    }
    let many: Vec<String> = (0..201).map(|i| format!("0x{i:040x}")).collect();
    let (status, v) = post(&format!("{}/scores", s.base), &json!({ "addresses": many })).await;
    assert_error(status, &v, StatusCode::BAD_REQUEST, "invalid_addresses");
    let (status, v) = post(&format!("{}/scores", s.base), &json!({ "addresses": ["0x12"] })).await;
    assert_error(status, &v, StatusCode::BAD_REQUEST, "invalid_addresses");
    let (status, v) = post(&format!("{}/scores", s.base), &json!({})).await;
    assert_error(status, &v, StatusCode::BAD_REQUEST, "invalid_addresses");
    let client = reqwest::Client::new();
    let raw = |body: &'static str, ct: &'static str| {
        client.post(format!("{}/scores", s.base)).header("content-type", ct).body(body).send()
    };
    let resp = raw("{not json", "application/json").await.unwrap();
    assert_eq!(resp.status(), StatusCode::BAD_REQUEST);
    assert_eq!(resp.json::<Value>().await.unwrap()["error"]["code"], "invalid_body");
    let resp = raw("<xml/>", "application/xml").await.unwrap();
    assert_eq!(resp.status(), StatusCode::UNSUPPORTED_MEDIA_TYPE);
    let huge = format!("{{\"addresses\": [\"{}\"]}}", "a".repeat(100_000));
    let resp = client
        .post(format!("{}/scores", s.base))
        .header("content-type", "application/json")
        .body(huge)
        .send()
        .await
        .unwrap();
    assert_eq!(resp.status(), StatusCode::PAYLOAD_TOO_LARGE);
    let resp = client.get(format!("{}/scores", s.base)).send().await.unwrap();
    assert_eq!(resp.status(), StatusCode::METHOD_NOT_ALLOWED);

    let description = top.iter().find_map(|e| e["description"].as_str()).unwrap();
    let (status, v) = post(&format!("{}/match", s.base), &json!({ "intent": description, "limit": 3 })).await;
    assert_eq!(status, StatusCode::OK, "{v}");
    let matches = v["matches"].as_array().unwrap();
    assert!(!matches.is_empty() && matches.len() <= 3, "a listing's own description matches it: {v}");
    assert_eq!(v["noStrongMatch"], false);
    for key in ["tokens", "stems", "filters", "note"] {
        assert!(v.get(key).is_some());
    }
    for m in matches {
        for key in [
            "payTo",
            "score",
            "matchScore",
            "serviceUrl",
            "price",
            "callExample",
            "verify",
            "verified",
            "erc8004Registered",
        ] {
            assert!(m.get(key).is_some(), "match misses {key}");
        }
    }
    let rank = |m: &Value| m["score"].as_f64().unwrap() * m["matchScore"].as_f64().unwrap();
    assert!(matches.windows(2).all(|w| rank(&w[0]) >= rank(&w[1]) - 1e-9));
    let (_, v) =
        post(&format!("{}/match", s.base), &json!({ "intent": description, "limit": 10, "maxPrice": "0.000001" }))
            .await;
    for m in v["matches"].as_array().unwrap() {
        assert!(m["price"]["amountRaw"].as_str().unwrap().parse::<u64>().unwrap() <= 1);
    }
    let (_, v) = post(&format!("{}/match", s.base), &json!({ "intent": "zzzqqq xxyyzz", "limit": 10 })).await;
    assert_eq!((v["count"].clone(), v["noStrongMatch"].clone()), (json!(0), json!(true)));
    let (status, v) = post(&format!("{}/match", s.base), &json!({ "intent": "ab" })).await;
    assert_error(status, &v, StatusCode::BAD_REQUEST, "invalid_intent");
    let (status, v) = post(&format!("{}/match", s.base), &json!({ "intent": "weather", "minScore": 101 })).await;
    assert_error(status, &v, StatusCode::BAD_REQUEST, "invalid_minScore");
    let (status, v) = post(&format!("{}/match", s.base), &json!({ "intent": "weather", "limit": 11 })).await;
    assert_error(status, &v, StatusCode::BAD_REQUEST, "invalid_limit");
    let (status, v) = post(&format!("{}/match", s.base), &json!({ "intent": "weather", "maxPrice": "cheap" })).await;
    assert_error(status, &v, StatusCode::BAD_REQUEST, "invalid_maxPrice");
}

#[tokio::test]
async fn deployers_categories_and_lists() {
    let s = server();
    let (_, v) = get(&format!("{}/deployers/top?limit=5", s.base)).await;
    let deployers = v["deployers"].as_array().unwrap();
    assert!(!deployers.is_empty() && deployers.len() <= 5);
    assert!(deployers.windows(2).all(|w| w[0]["score"].as_u64() >= w[1]["score"].as_u64()));
    assert!(deployers.iter().all(|d| d["proofCount"].is_u64()));
    let (_, v) = get(&format!("{}/deployers/sketchy", s.base)).await;
    for d in v["sketchy"].as_array().unwrap() {
        assert!(d["launches"].as_u64().unwrap() >= 3);
        assert!(d["rugRatePct"].as_f64().unwrap() > 50.0);
    }
    let (status, v) = get(&format!("{}/deployers/top?limit=101", s.base)).await;
    assert_error(status, &v, StatusCode::BAD_REQUEST, "invalid_limit");
    let (_, stats) = get(&format!("{}/deployers/stats", s.base)).await;
    let (_, status_doc) = get(&format!("{}/status", s.base)).await;
    assert_eq!(stats["total"], status_doc["counts"]["deployers"]);
    for p in stats["platforms"].as_array().unwrap() {
        assert!(p["sampleSize"].as_u64().unwrap() <= p["launches"].as_u64().unwrap());
        assert!(p.get("rugRatePct").is_some());
    }

    let (_, cats) = get(&format!("{}/categories", s.base)).await;
    let list = cats["categories"].as_array().unwrap();
    assert_eq!(list.len(), 30);
    let sum: u64 = list.iter().map(|c| c["count"].as_u64().unwrap()).sum();
    assert_eq!(sum, cats["totalIndexed"].as_u64().unwrap(), "every agent is in exactly one category");
    let busiest = list.iter().max_by_key(|c| c["count"].as_u64()).unwrap()["slug"].as_str().unwrap();
    let (_, v) = get(&format!("{}/by-category/{busiest}?limit=500", s.base)).await;
    assert_error(StatusCode::BAD_REQUEST, &v, StatusCode::BAD_REQUEST, "invalid_limit");
    let (_, all) = get(&format!("{}/by-category/{busiest}?limit=200", s.base)).await;
    let (_, safe) = get(&format!("{}/by-category/{busiest}?safeOnly=1&limit=200", s.base)).await;
    assert!(safe["results"].as_array().unwrap().iter().all(|r| r["trustShield"]["color"] != "red"));
    assert!(safe["total"].as_u64() <= all["total"].as_u64());
    let (status, v) = get(&format!("{}/by-category/nonsense", s.base)).await;
    assert_error(status, &v, StatusCode::NOT_FOUND, "unknown_name");
    let (_, score) = get(&format!("{}/score/{}", s.base, all["results"][0]["payTo"].as_str().unwrap())).await;
    assert_eq!(score["category"]["primary"], busiest);
    let browse = score["category"]["browse"].as_str().unwrap().to_owned();
    let (status, _) = get(&format!("http://{}{browse}", s.addr)).await;
    assert_eq!(status, StatusCode::OK, "category.browse points at a route that answers");

    let (_, v) = get(&format!("{}/bazaar-scored?limit=5&offset=2", s.base)).await;
    assert_eq!((v["count"].clone(), v["offset"].clone()), (json!(5), json!(2)));
    assert!(v["items"].as_array().unwrap().iter().all(|i| i["payTo"].is_string() && i["color"].is_string()));

    let (_, v) = get(&format!("{}/health-summary", s.base)).await;
    assert_eq!(v["version"], "agentrep-health-summary-v1");
    let (probed, alive, dead) =
        (v["totalProbed"].as_u64().unwrap(), v["alive"].as_u64().unwrap(), v["dead"].as_u64().unwrap());
    assert_eq!(alive + dead, probed);
    assert!(v["uptimePct"].as_u64().unwrap() <= 100 && v["aliveTop"].as_array().unwrap().len() <= 10);
}

#[tokio::test]
async fn service_routes_badges_and_cors() {
    let s = server();
    let (_, v) = get(&format!("{}/catalog", s.base)).await;
    assert_eq!(v["version"], "agentrep-catalog-v1");
    assert_eq!(v["free"].as_array().unwrap().len(), agentrep_server::routes::endpoints().len());
    assert!(v["paid"].as_array().unwrap().iter().any(|p| p["price"] == json!(0.05)));
    assert_eq!(v["tierExplanation"].as_object().unwrap().len(), 4);
    assert_eq!(v["agent"]["asset"], "0x833589fCD6eDb6E08f4c7C32D4f71b54bdA02913");
    let (_, v) = get(&format!("{}/status", s.base)).await;
    // No operator address is configured here: null, never a placeholder.
    assert!(v["operator"]["address"].is_null() && v["token"].is_object());
    assert_eq!(v["payments"]["x402Enabled"], false);
    let (_, v) = get(&format!("{}/me", s.base)).await;
    assert!(v["erc8004"]["identityRegistry"].is_string() && v["surfaces"]["api"] == "/api/agent");
    let (_, v) = get(&format!("{}/discover", s.base)).await;
    assert!(v["indexed"]["sellers"].as_u64().unwrap() > 0);

    let leader = ranked(&s.base, 1).await[0]["payTo"].as_str().unwrap().to_owned();
    let (_, v) = get(&format!("{}/shield/{leader}.json", s.base)).await;
    assert_eq!(v["schemaVersion"], 1);
    assert!(v["message"].as_str().unwrap().ends_with("/100"));
    let (_, v) = get(&format!("{}/shield/{UNKNOWN}.json", s.base)).await;
    assert_eq!(v["message"], "not indexed");

    let client = reqwest::Client::new();
    let resp = client
        .request(reqwest::Method::OPTIONS, format!("{}/scores", s.base))
        .header("origin", "https://example.org")
        .header("access-control-request-method", "POST")
        .header("access-control-request-headers", "content-type")
        .send()
        .await
        .unwrap();
    assert_eq!(resp.status(), StatusCode::NO_CONTENT);
    assert_eq!(resp.headers()["access-control-allow-origin"], "*");
    assert!(resp.headers()["access-control-allow-methods"].to_str().unwrap().contains("POST"));
    assert!(resp.headers()["access-control-allow-headers"].to_str().unwrap().contains("content-type"));
    let resp = client.request(reqwest::Method::OPTIONS, format!("{}/nope", s.base)).send().await.unwrap();
    assert_eq!(resp.status(), StatusCode::NOT_FOUND);
}

#[tokio::test]
async fn every_route_of_the_table_answers() {
    let s = server();
    let leader = ranked(&s.base, 1).await[0]["payTo"].as_str().unwrap().to_owned();
    let (_, top) = get(&format!("{}/deployers/top?limit=1", s.base)).await;
    let deployer = top["deployers"][0]["address"].as_str().unwrap().to_owned();
    let (_, profile) = get(&format!("{}/deployer/{deployer}", s.base)).await;
    let token = profile["launches"][0]["token"].as_str().unwrap().to_owned();
    let client = reqwest::Client::new();
    for def in agentrep_server::routes::endpoints() {
        let wallet = match def.path {
            p if p.starts_with("/deployer/") || p.contains("{creator}") || p.starts_with("/clawd/creator-audit/") => {
                &deployer
            }
            p if p.starts_with("/token/") => &token,
            _ => &leader,
        };
        let path = def
            .path
            .replace("{address}", wallet)
            .replace("{agentAddress}", wallet)
            .replace("{tag}", "data")
            .replace("{placeId}", "ChIJN1t_tDeuEmsRUsoyG83frY4")
            .replace("{cat}", "other")
            .replace("{creator}", wallet)
            .replace("{tokenAddress}", &token)
            .replace("{tokenAddr}", &token);
        let url = match def.scope {
            agentrep_server::endpoints::Scope::Api => format!("{}{path}", s.base),
            agentrep_server::endpoints::Scope::Origin => format!("http://{}{path}", s.addr),
        };
        let resp = match def.method.as_str() {
            _ if def.path == "/mcp" => {
                client.post(&url).json(&json!({ "jsonrpc": "2.0", "id": 1, "method": "ping" })).send().await.unwrap()
            }
            // The URL preflight, of a listed resource (GET by query, POST by body).
            _ if def.path == "/preflight" => {
                let listed = client.get(format!("{}/score/{leader}", s.base)).send().await.unwrap();
                let resource = listed.json::<Value>().await.unwrap()["resourcePath"].as_str().unwrap().to_owned();
                match def.method.as_str() {
                    "GET" => client.get(&url).query(&[("url", resource.as_str())]).send().await.unwrap(),
                    _ => client.post(&url).json(&json!({ "url": resource })).send().await.unwrap(),
                }
            }
            // The trust-provider question about the leader, and the evidence its answer addresses.
            _ if def.path == "/trust/evaluate" => client.post(&url).json(&trust_query(&leader)).send().await.unwrap(),
            _ if def.path == "/trust/evidence/{address}" => {
                let asked = format!("{}/trust/evaluate", s.base);
                let answer: Value =
                    client.post(asked).json(&trust_query(&leader)).send().await.unwrap().json().await.unwrap();
                let evidence = answer["evidence_url"].as_str().expect("an evidence URL");
                client.get(format!("http://{}{evidence}", s.addr)).send().await.unwrap()
            }
            _ if def.path == "/verify" => {
                let payload = json!({"version": "agentrep-v1", "subjectType": "agent-onchain",
                    "subject": format!("0x{:0>64}", leader.trim_start_matches("0x")), "score": 80, "timestamp": 1,
                    "operator": leader, "nonce": 20261122});
                client.post(&url).json(&json!({ "payload": payload, "signature": "0x00" })).send().await.unwrap()
            }
            "GET" => client
                .get(&url)
                .query(&[("q", "data"), ("a", leader.as_str()), ("b", leader.as_str()), ("for", leader.as_str())])
                .send()
                .await
                .unwrap(),
            _ => client.post(&url).json(&json!({ "addresses": [leader], "intent": "data feed" })).send().await.unwrap(),
        };
        assert_eq!(resp.headers()["access-control-allow-origin"], "*", "{path}");
        // A write answers this body, which is not its own, or a target it refuses to sell for
        // (no trader proof, a rugged token), with a JSON refusal it documents, before any terms (tests/writes/ and tests/payments/ write each with its own body).
        let write = def.group == "writes" || def.paid.is_some_and(|p| p.query.is_none());
        if def.method.as_str() == "POST" && write && def.path != "/audit-batch" {
            assert!(def.errors.contains(&resp.status().as_u16()), "{path}: {}", resp.status());
            let refusal: Value = resp.json().await.unwrap();
            assert!(refusal["error"]["message"].as_str().is_some_and(|m| !m.is_empty()), "{path}: {refusal}");
            continue;
        }
        // This deployment takes no payments: a wholly paid route says so (tests/payments/ buys them).
        let expected =
            if def.paid.is_some_and(|p| p.query.is_none()) { StatusCode::SERVICE_UNAVAILABLE } else { StatusCode::OK };
        assert_eq!(resp.status(), expected, "{} {path}", def.method.as_str());
    }
}

/// Draft 02's question: should a buyer pay `wallet` a cent?
fn trust_query(wallet: &str) -> Value {
    json!({"direction": "seller", "subject": {"wallet": wallet}, "resource": {"amount": {"value": "0.01"}}})
}

#[tokio::test]
async fn directory_reads_proofs_lists_funding_activity_identity() {
    let s = server();
    let (_, v) = get(&format!("{}/proofs", s.base)).await;
    let types = v["availableTypes"].as_array().unwrap();
    assert_eq!(types.len(), 6, "every proof type of the seed, with counts");
    assert!(v["proofs"].as_array().unwrap().is_empty(), "no page without a type");
    let busiest = types.iter().max_by_key(|t| t["count"].as_u64()).unwrap();
    let kind = busiest["type"].as_str().unwrap();
    let (_, page) = get(&format!("{}/proofs?type={kind}&limit=3&offset=1", s.base)).await;
    assert_eq!(page["total"], busiest["count"]);
    let proofs = page["proofs"].as_array().unwrap();
    assert!(!proofs.is_empty() && proofs.len() <= 3);
    assert!(proofs.iter().all(|p| p["type"] == kind && p["address"].as_str().unwrap().starts_with("0x")));
    let (status, v) = get(&format!("{}/proofs?type=passport", s.base)).await;
    assert_error(status, &v, StatusCode::BAD_REQUEST, "invalid_type");
    let (status, v) = get(&format!("{}/proofs?type={kind}&limit=501", s.base)).await;
    assert_error(status, &v, StatusCode::BAD_REQUEST, "invalid_limit");

    let (_, deny) = get(&format!("{}/denylist", s.base)).await;
    let entries = deny["addresses"].as_array().unwrap();
    assert!(!entries.is_empty(), "the world denylists some wallets");
    let sum: u64 = deny["sources"].as_object().unwrap().values().map(|n| n.as_u64().unwrap()).sum();
    assert_eq!(sum, deny["total"].as_u64().unwrap());
    let listed = entries[0]["address"].as_str().unwrap();
    let (_, pre) = get(&format!("{}/preflight/{listed}", s.base)).await;
    assert_eq!(pre["decision"], "BLOCK", "a denylisted address is blocked: {pre}");

    let (_, v) = get(&format!("{}/top-buyers?limit=5", s.base)).await;
    let buyers = v["buyers"].as_array().unwrap();
    assert_eq!(buyers.len(), 5);
    assert!(buyers.windows(2).all(|w| w[0]["spentUsdc"].as_f64() >= w[1]["spentUsdc"].as_f64()));
    let buyer = buyers[0]["address"].as_str().unwrap();
    let (_, act) = get(&format!("{}/recent-activity/{buyer}", s.base)).await;
    assert_eq!((act["days"].clone(), act["asSeller"].clone()), (json!(7), Value::Null));
    assert!(act["asBuyer"]["spentUsdc"].is_number());

    let leader = ranked(&s.base, 1).await[0]["payTo"].as_str().unwrap().to_owned();
    let (_, act) = get(&format!("{}/recent-activity/{leader}", s.base)).await;
    assert!(act["asSeller"]["settlements"].as_u64().unwrap() > 0, "the leader sold this week: {act}");
    let (_, funded) = get(&format!("{}/funded-by/{buyer}", s.base)).await;
    assert!(funded["note"].is_string() && funded["chain"].is_array());
    let (_, funded) = get(&format!("{}/funded-by/{leader}", s.base)).await;
    if let Some(first) = funded["firstFunder"].as_object() {
        assert_eq!(first["hop"], 1);
        assert_eq!(funded["chain"][0]["funded"], leader.as_str());
        assert!(funded["chain"].as_array().unwrap().len() <= 4);
    }

    for filter in ["high-activity-low-trust", "recent-newcomers", "top-by-proofs"] {
        let (status, v) = get(&format!("{}/agents-of-interest?filter={filter}&limit=4", s.base)).await;
        assert_eq!(status, StatusCode::OK);
        assert_eq!(
            (v["version"].clone(), v["filter"].clone()),
            (json!("agentrep-agents-of-interest-v1"), json!(filter))
        );
        assert_eq!(v["filters"].as_object().unwrap().len(), 3);
        for a in v["agents"].as_array().unwrap() {
            for key in [
                "address",
                "name",
                "score",
                "lastSeenAt",
                "settlementCount",
                "proofCount",
                "auditUrl",
                "auditPrice",
                "freeScoreUrl",
            ] {
                assert!(a.get(key).is_some(), "{filter} entry misses {key}");
            }
            let seen = a["lastSeenAt"].as_str().unwrap();
            assert!(chrono::NaiveDateTime::parse_from_str(seen, "%Y-%m-%d %H:%M:%S").is_ok(), "{seen}");
        }
    }
    let (status, v) = get(&format!("{}/agents-of-interest?filter=everyone", s.base)).await;
    assert_error(status, &v, StatusCode::BAD_REQUEST, "invalid_filter");

    let (_, with_ids) = get(&format!("{}/agents-of-interest?filter=top-by-proofs&limit=100", s.base)).await;
    let registered: Vec<String> =
        with_ids["agents"].as_array().unwrap().iter().map(|a| a["address"].as_str().unwrap().to_owned()).collect();
    let mut found_identity = false;
    for address in registered.iter().chain(std::iter::once(&leader)) {
        let (_, id) = get(&format!("{}/canonical-id/{address}", s.base)).await;
        assert_eq!(id["address"], address.as_str());
        let (_, r) = get(&format!("{}/has-mainstreet-ref/{address}", s.base)).await;
        assert!(r["hasRef"].is_boolean() && !r["reason"].as_str().unwrap().is_empty());
        if let Some(agent_id) = id["erc8004AgentId"].as_u64() {
            found_identity = true;
            assert!(id["agentDescriptionUrl"].as_str().unwrap().starts_with("ipfs://"));
            assert_eq!(r["agentId"], agent_id);
        }
    }
    assert!(found_identity, "some indexed seller is ERC-8004 registered");
    let (_, snip) = get(&format!("{}/snippet/{leader}", s.base)).await;
    let score_url = snip["reputation"]["score"].as_str().unwrap();
    let (status, _) = get(&format!("http://{}{score_url}", s.addr)).await;
    assert_eq!(status, StatusCode::OK, "the snippet's links answer");

    let (_, v) = get(&format!("{}/crawlers", s.base)).await;
    let crawlers = v["crawlers"].as_array().unwrap();
    assert!(!crawlers.is_empty(), "the world records its marketplace crawls");
    assert!(crawlers.windows(2).all(|w| w[0]["score"].as_i64() >= w[1]["score"].as_i64()));
    assert!(crawlers.iter().all(|c| c["address_count"].as_u64().unwrap() > 0));

    let (_, score) = get(&format!("{}/score/{leader}", s.base)).await;
    assert!(["alive", "dead", "unprobed"].contains(&score["health"]["state"].as_str().unwrap()));
    assert!(score["health"]["status"].is_u64() || score["health"]["status"].is_null(), "an HTTP status or null");
    assert!(score["health"]["probedAt"].is_string(), "{}", score["health"]);
}

#[tokio::test]
async fn an_agent_tokens_operator_and_reputation() {
    let s = server();
    let (_, top) = get(&format!("{}/deployers/top?limit=1", s.base)).await;
    let deployer = top["deployers"][0]["address"].as_str().unwrap().to_owned();
    let (_, profile) = get(&format!("{}/deployer/{deployer}", s.base)).await;
    let token = profile["launches"][0]["token"].as_str().unwrap().to_owned();
    let (status, v) = get(&format!("{}/virtuals-rep/{}", s.base, token.to_uppercase().replace("0X", "0x"))).await;
    assert_eq!(status, StatusCode::OK, "{v}");
    assert_eq!(v["operator"], deployer.as_str(), "the operator is the wallet that launched the token");
    assert_eq!(v["deployerScore"], top["deployers"][0]["score"]);
    assert_eq!(v["platform"], profile["launches"][0]["platform"]);
    assert!(v["note"].is_string());
    let (status, v) = get(&format!("{}/virtuals-rep/{UNKNOWN}", s.base)).await;
    assert_error(status, &v, StatusCode::NOT_FOUND, "not_indexed");
    let (status, v) = get(&format!("{}/virtuals-rep/0x12", s.base)).await;
    assert_error(status, &v, StatusCode::BAD_REQUEST, "invalid_address");
}

/// Every token each deployer of a list launched, with the launch's outcome.
async fn launches_of(base: &str, list: &str) -> Vec<(String, String)> {
    let (_, v) = get(&format!("{base}/deployers/{list}?limit=100")).await;
    let mut out = Vec::new();
    let field = if list == "sketchy" { "sketchy" } else { "deployers" };
    for d in v[field].as_array().unwrap() {
        let (_, profile) = get(&format!("{base}/deployer/{}", d["address"].as_str().unwrap())).await;
        for l in profile["launches"].as_array().unwrap() {
            out.push((l["token"].as_str().unwrap().to_owned(), l["outcome"].as_str().unwrap().to_owned()));
        }
    }
    out
}

#[tokio::test]
async fn a_tokens_buyer_base_is_judged_by_who_bought_it() {
    let s = server();
    let mut tally: std::collections::BTreeMap<(String, String), u32> = Default::default();
    let mut launches = launches_of(&s.base, "sketchy").await;
    launches.extend(launches_of(&s.base, "top").await);
    assert!(launches.len() > 20, "{} launches", launches.len());
    let mut shields_checked = 0;
    for (token, outcome) in &launches {
        let (status, v) = get(&format!("{}/token/{token}/buyer-trust", s.base)).await;
        assert_eq!(status, StatusCode::OK, "{v}");
        assert_eq!(v["tokenAddress"], token.as_str());
        let verdict = v["verdict"].as_str().unwrap().to_owned();
        assert!(["STRONG_BUYER_BASE", "BAD_BUYER_BASE", "AGENT_BUYER_BASE", "MIXED"].contains(&verdict.as_str()));
        let composition = v["composition"].as_array().unwrap();
        let classes: Vec<&str> = composition.iter().map(|c| c["class"].as_str().unwrap()).collect();
        assert_eq!(classes, ["insider", "flagged", "trusted", "agent", "unknown"]);
        let buyers = v["buyers"].as_array().unwrap();
        assert_eq!(
            composition.iter().map(|c| c["buyers"].as_u64().unwrap()).sum::<u64>(),
            v["buyerCount"].as_u64().unwrap()
        );
        if buyers.is_empty() {
            assert_eq!(verdict, "MIXED", "nothing to judge");
            continue;
        }
        let pct: f64 = composition.iter().map(|c| c["volumePct"].as_f64().unwrap()).sum();
        assert!((pct - 100.0).abs() < 0.5, "{pct}");
        let tokens: Vec<f64> = buyers.iter().map(|b| b["tokensBought"].as_f64().unwrap()).collect();
        assert!(tokens.windows(2).all(|w| w[0] >= w[1]), "largest buyers first");
        // A buyer's shield is its own published one.
        for b in buyers.iter().filter(|b| !b["trustShield"].is_null()).take(2) {
            let (_, own) = get(&format!("{}/trust-shield/{}", s.base, b["address"].as_str().unwrap())).await;
            assert_eq!(b["trustShield"]["color"], own["color"], "{b}");
            shields_checked += 1;
        }
        if buyers.len() >= 3 {
            *tally.entry((outcome.clone(), verdict)).or_default() += 1;
        }
    }
    assert!(shields_checked > 5, "{shields_checked} buyers with shields");
    let count =
        |outcome: &str, verdict: &str| tally.get(&(outcome.to_owned(), verdict.to_owned())).copied().unwrap_or(0);
    let of = |outcome: &str| tally.iter().filter(|((o, _), _)| o == outcome).map(|(_, n)| n).sum::<u32>();
    eprintln!("{tally:?}");
    // Rugs are bought by denylisted wallets, fraudulent sellers and other ruggers; graduates by
    // real agents.
    assert!(count("rugged", "BAD_BUYER_BASE") * 2 > of("rugged"), "{tally:?}");
    assert!(count("graduated", "STRONG_BUYER_BASE") + count("graduated", "AGENT_BUYER_BASE") > 0, "{tally:?}");
    assert_eq!(count("graduated", "BAD_BUYER_BASE"), 0, "{tally:?}");

    let (status, v) = get(&format!("{}/token/{UNKNOWN}/buyer-trust", s.base)).await;
    assert_error(status, &v, StatusCode::NOT_FOUND, "not_indexed");
    let (status, v) = get(&format!("{}/token/0xzz/buyer-trust", s.base)).await;
    assert_error(status, &v, StatusCode::BAD_REQUEST, "invalid_address");
}
