//! Every route of this issue against the real server on a random loopback port.

use agentrep_publish::SnapshotStore;
use agentrep_server::ServiceIdentity;
use agentrep_tests::{RunningServer, TEST_PAY_TO, shared_world};
use reqwest::StatusCode;
use serde_json::{Value, json};

fn server() -> RunningServer {
    RunningServer::start(&shared_world().snapshots())
}

async fn get(url: &str) -> (StatusCode, reqwest::header::HeaderMap, Vec<u8>) {
    let resp = reqwest::get(url).await.unwrap();
    (resp.status(), resp.headers().clone(), resp.bytes().await.unwrap().to_vec())
}

async fn json(url: &str) -> (StatusCode, Value) {
    let (status, _, body) = get(url).await;
    (status, serde_json::from_slice(&body).unwrap_or(Value::Null))
}

fn assert_error(v: &Value, code: &str) {
    assert_eq!(v["error"]["code"], code, "{v}");
    assert!(v["error"]["message"].as_str().is_some_and(|m| !m.is_empty()));
}

async fn top_seller(base: &str) -> String {
    let (_, lb) = json(&format!("{base}/leaderboard?limit=1")).await;
    lb["results"][0]["payTo"].as_str().unwrap().to_owned()
}

#[tokio::test]
async fn leaderboard_has_the_seed_fields_and_honours_limits() {
    let s = server();
    let (status, lb) = json(&format!("{}/leaderboard", s.base)).await;
    assert_eq!(status, StatusCode::OK);
    assert_eq!(lb["version"], "agentrep-leaderboard-v1");
    assert_eq!(lb["network"], "all");
    assert_eq!(lb["snapshotState"], "fresh");
    assert_eq!(lb["count"], 100);
    assert_eq!(lb["filters"]["limit"], 100);
    for key in [
        "generatedAt",
        "rankedToday",
        "totalIndexed",
        "networkBreakdown",
        "regenerated",
        "rebuildCounts",
        "cached",
        "cachedAt",
    ] {
        assert!(lb.get(key).is_some(), "missing {key}");
    }
    let results = lb["results"].as_array().unwrap();
    let scores: Vec<u64> = results.iter().map(|e| e["score"].as_u64().unwrap()).collect();
    assert!(scores.windows(2).all(|w| w[0] >= w[1]), "ordered by score descending");
    let e = &results[0];
    for key in [
        "payTo",
        "network",
        "ecosystem",
        "score",
        "metrics",
        "description",
        "resourcePath",
        "endpointAlive",
        "price",
        "tags",
        "sources",
        "erc8004Registered",
        "verified",
        "proofCount",
    ] {
        assert!(e.get(key).is_some(), "entry misses {key}");
    }
    for key in ["successRate", "jobCount", "usdcVolume", "daysSinceLastJob", "settlements", "sla"] {
        assert!(e["metrics"].get(key).is_some(), "metrics miss {key}");
    }
    assert!(e.get("sparkline7d").is_none());
    let addrs: std::collections::HashSet<_> = results.iter().map(|e| e["payTo"].as_str().unwrap().to_owned()).collect();
    assert_eq!(addrs.len(), results.len(), "no wallet listed twice");
    assert!(addrs.iter().all(|a| a == &a.to_lowercase()), "case duplicates merged into lowercase");

    let (_, lb) = json(&format!("{}/leaderboard?limit=500&sparkline=1&network=base", s.base)).await;
    assert!(lb["count"].as_u64().unwrap() > 100);
    assert_eq!(lb["filters"]["withSparkline"], true);
    let spark = lb["results"][0]["sparkline7d"].as_array().unwrap();
    assert_eq!(spark.len(), 7, "7 daily points after 7 rebuilds");
    assert!(spark[0]["snapshot_date"].as_str().is_some());

    let (_, eco) = json(&format!("{}/leaderboard?ecosystem=payai&limit=500", s.base)).await;
    assert!(eco["results"].as_array().unwrap().iter().all(|e| e["ecosystem"] == "payai"));

    for bad in ["limit=0", "limit=501", "limit=abc", "sparkline=yes", "network=mars"] {
        let (status, v) = json(&format!("{}/leaderboard?{bad}", s.base)).await;
        assert_eq!(status, StatusCode::BAD_REQUEST, "{bad}");
        assert!(v["error"]["code"].as_str().unwrap().starts_with("invalid_"));
    }
}

#[tokio::test]
async fn score_preview_known_unknown_invalid_and_live() {
    let s = server();
    let addr = top_seller(&s.base).await;
    let (status, v) = json(&format!("{}/score/{}", s.base, addr.to_uppercase().replace("0X", "0x"))).await;
    assert_eq!(status, StatusCode::OK);
    assert_eq!(v["agentAddress"], addr, "mixed case is normalised");
    assert_eq!(v["billed"], "free");
    assert_eq!(v["gated"], true);
    assert_eq!(v["score_basis"], "measured");
    assert!(v["score"].as_u64().unwrap() <= 100);
    for key in [
        "trustShield",
        "verdict",
        "metrics",
        "eas",
        "category",
        "description",
        "snapshotDate",
        "health",
        "source",
        "resourcePath",
        "note",
        "verify",
        "related",
        "methodology",
    ] {
        assert!(v.get(key).is_some(), "score payload misses {key}");
    }
    let shield = &v["trustShield"];
    for key in ["color", "flags", "reasonShort", "explainer", "allowlisted", "allowlistLabel"] {
        assert!(shield.get(key).is_some(), "shield misses {key}");
    }
    assert!(v["metrics"]["outcomeHistory"]["total"].is_u64());

    let unknown = "0x00000000000000000000000000000000000000aa";
    let (status, v) = json(&format!("{}/score/{unknown}", s.base)).await;
    assert_eq!(status, StatusCode::OK, "unknown but valid address is a 200");
    assert_eq!(v["score"], Value::Null);
    assert_eq!(v["score_basis"], "not-indexed");
    assert!(v["preliminary"]["nextActions"].as_array().is_some_and(|a| !a.is_empty()));

    for bad in ["0x123", "abc", "0xZZ00000000000000000000000000000000000000"] {
        let (status, v) = json(&format!("{}/score/{bad}", s.base)).await;
        assert_eq!(status, StatusCode::BAD_REQUEST);
        assert_error(&v, "invalid_address");
    }

    // No operator address: no terms a buyer could sign, a clear 503 instead.
    let resp = reqwest::get(format!("{}/score/{addr}?live=1", s.base)).await.unwrap();
    assert_eq!(resp.status(), StatusCode::SERVICE_UNAVAILABLE);
    assert!(!resp.headers().contains_key("payment-required"));
    let body: Value = resp.json().await.unwrap();
    assert_error(&body, "payments_not_configured");
    let (_, status) = json(&format!("{}/status", s.base)).await;
    assert_eq!(status["payments"]["payTo"], Value::Null);

    // An operator address alone is not enough: without a node to check payments on and a way to
    // settle them, paid routes still quote nothing, and say what is missing
    // (`tests/payments/` runs deployments that take payments).
    let identity = ServiceIdentity { pay_to: Some(TEST_PAY_TO.to_owned()), ..ServiceIdentity::default() };
    let half = RunningServer::start_with(&shared_world().snapshots(), identity);
    for path in [format!("/score/{addr}?live=1"), format!("/audit/{addr}")] {
        let resp = reqwest::get(format!("{}{path}", half.base)).await.unwrap();
        assert_eq!(resp.status(), StatusCode::SERVICE_UNAVAILABLE, "{path}");
        assert!(!resp.headers().contains_key("payment-required"));
        let body: Value = resp.json().await.unwrap();
        assert_error(&body, "payments_not_configured");
        assert!(body["error"]["message"].as_str().unwrap().contains("AGENTREP_PAYMENT_RPC"), "{body}");
    }
    let (_, status) = json(&format!("{}/status", half.base)).await;
    assert_eq!(
        (&status["payments"]["payTo"], &status["payments"]["x402Enabled"]),
        (&json!(TEST_PAY_TO), &json!(false))
    );
}

#[tokio::test]
async fn preflight_shield_history_deployer_badge() {
    let s = server();
    let addr = top_seller(&s.base).await;
    let (status, p) = json(&format!("{}/preflight/{addr}", s.base)).await;
    assert_eq!(status, StatusCode::OK);
    assert!(["BLOCK", "CAUTION", "PROCEED", "PROCEED_LOW_VALUE"].contains(&p["decision"].as_str().unwrap()));
    assert!(p["trustShield"]["color"].is_string() && p["category"]["primary"].is_string() && p["score"].is_u64());
    let (_, unknown) = json(&format!("{}/preflight/0x00000000000000000000000000000000000000aa", s.base)).await;
    assert_eq!(unknown["decision"], "CAUTION");
    assert_eq!(unknown["score"], Value::Null);

    let (status, sh) = json(&format!("{}/trust-shield/{addr}", s.base)).await;
    assert_eq!(status, StatusCode::OK);
    assert!(sh["color"].is_string() && sh["flags"].is_array() && sh["reasonShort"].as_str().unwrap().contains(':'));
    let (_, _, csv) = get(&format!("{}/scores.csv", s.base)).await;
    let csv = String::from_utf8(csv).unwrap();
    let allowlisted =
        csv.lines().find(|l| l.contains("auto-allowlisted")).expect("the world allowlists its top sellers");
    let allowlisted = allowlisted.split(',').nth(1).unwrap();
    let (_, sh) = json(&format!("{}/trust-shield/{allowlisted}", s.base)).await;
    assert_eq!(sh["allowlisted"], true);
    assert!(sh["allowlistLabel"].as_str().unwrap().starts_with("curated:"), "{sh}");

    let (_, h) = json(&format!("{}/history/{addr}", s.base)).await;
    assert_eq!(h["count"], 7);
    assert_eq!(h["series"].as_array().unwrap().len(), 7);
    assert!(h["series"][0]["date"].is_string() && h["series"][0]["jobCount"].is_u64());
    let (_, h2) = json(&format!("{}/history/{addr}?days=2", s.base)).await;
    assert_eq!(h2["count"], 2);
    assert_eq!(h2["series"][1]["date"], h["series"][6]["date"], "the newest days are kept");
    for bad in ["days=0", "days=91", "days=x"] {
        let (status, v) = json(&format!("{}/history/{addr}?{bad}", s.base)).await;
        assert_eq!(status, StatusCode::BAD_REQUEST, "{bad}");
        assert_error(&v, "invalid_days");
    }

    let snap =
        agentrep_publish::LoadedSnapshot::load(&SnapshotStore::new(shared_world().snapshots()).current_dir().unwrap())
            .unwrap();
    let deployer = &snap.deployers.first().expect("a deployer").address;
    let (status, d) = json(&format!("{}/deployer/{deployer}", s.base)).await;
    assert_eq!(status, StatusCode::OK);
    assert!(["OK", "CAUTION", "AVOID"].contains(&d["verdict"].as_str().unwrap()));
    assert!(d["metrics"]["outcomeHistory"]["total"].as_u64().unwrap() >= 1);
    let (status, v) = json(&format!("{}/deployer/0x00000000000000000000000000000000000000aa", s.base)).await;
    assert_eq!(status, StatusCode::NOT_FOUND);
    assert_error(&v, "not_indexed");

    let (status, headers, svg) = get(&format!("{}/badge/{addr}.svg", s.base)).await;
    assert_eq!(status, StatusCode::OK);
    assert_eq!(headers["content-type"], "image/svg+xml");
    assert!(String::from_utf8(svg).unwrap().starts_with("<svg"));
}

#[tokio::test]
async fn exports_health_status_and_errors() {
    let s = server();
    let (status, headers, csv) = get(&format!("{}/scores.csv", s.base)).await;
    assert_eq!(status, StatusCode::OK);
    assert!(headers["content-type"].to_str().unwrap().starts_with("text/csv"));
    let text = String::from_utf8(csv).unwrap();
    assert!(text.starts_with("rank,address,score,jobCount,successRate,usdcVolume,daysSinceLastJob,description,serviceUrl,priceUsdc,network,snapshotDate,profileUrl"));
    let (status, _, parquet) = get(&format!("{}/exports/scores.parquet", s.base)).await;
    assert_eq!(status, StatusCode::OK);
    assert_eq!(&parquet[..4], b"PAR1");

    let (_, health) = json(&format!("{}/health", s.base)).await;
    let endpoints = health["endpoints"].as_array().unwrap();
    let table = agentrep_server::routes::endpoints();
    assert_eq!(
        endpoints.len(),
        table.len() + table.iter().filter(|r| r.paid.is_some_and(|p| p.query.is_some())).count(),
        "health lists the route table: every free route, and every paid answer once"
    );

    let (status, api) = json(&format!("{}/openapi.json", s.base)).await;
    assert_eq!(status, StatusCode::OK);
    assert_eq!(api["info"]["version"], "0.4.0");
    let paths: std::collections::BTreeSet<&str> = table.iter().map(|r| r.path).collect();
    assert_eq!(api["paths"].as_object().unwrap().len(), paths.len(), "one path item per path (POST /mcp at both)");
    let params = api["paths"]["/leaderboard"]["get"]["parameters"].as_array().unwrap();
    let limit = &params.iter().find(|p| p["name"] == "limit").expect("limit is documented")["schema"];
    assert_eq!((limit["default"].as_u64(), limit["maximum"].as_u64()), (Some(100), Some(500)));
    assert_eq!(api["paths"]["/score/{address}"]["get"]["x-x402"]["price"], "0.05");
    assert!(api["paths"]["/leaderboard"]["get"]["responses"].get("503").is_some());
    assert!(api["paths"]["/health"]["get"]["responses"].get("503").is_none());
    assert!(endpoints.iter().any(|e| e["auth"] == "x402" && e["price"] == "0.05"));

    let (_, status_doc) = json(&format!("{}/status", s.base)).await;
    assert!(
        status_doc["snapshotId"].as_str().unwrap().starts_with(&status_doc["snapshotDate"].as_str().unwrap()[..10])
    );
    assert!(!status_doc["jobs"].as_array().unwrap().is_empty());

    let (status, v) = json(&format!("{}/no-such-route", s.base)).await;
    assert_eq!(status, StatusCode::NOT_FOUND);
    assert_error(&v, "not_found");
    let (status, v) = json(&format!("http://{}/elsewhere", s.addr)).await;
    assert_eq!(status, StatusCode::NOT_FOUND);
    assert_error(&v, "not_found");
    let resp = reqwest::Client::new().post(format!("{}/leaderboard", s.base)).send().await.unwrap();
    assert_eq!(resp.status(), StatusCode::METHOD_NOT_ALLOWED);
    assert!(resp.headers().contains_key("allow"));
    assert_error(&resp.json().await.unwrap(), "method_not_allowed");
}

#[tokio::test]
async fn etag_304_gzip_and_static_bytes() {
    let s = server();
    let addr = top_seller(&s.base).await;
    let client = reqwest::Client::new();
    let url = format!("{}/score/{addr}", s.base);
    let first = client.get(&url).send().await.unwrap();
    let etag = first.headers()["etag"].clone();
    assert!(first.headers()["cache-control"].to_str().unwrap().contains("max-age"));
    let body = first.bytes().await.unwrap();
    let dir = SnapshotStore::new(shared_world().snapshots()).current_dir().unwrap();
    assert_eq!(
        body.as_ref(),
        std::fs::read(agentrep_tests::static_tree(&dir).join(format!("score/{addr}.json"))).unwrap(),
        "served bytes are the static file export-static writes"
    );

    let again = client.get(&url).header("if-none-match", etag).send().await.unwrap();
    assert_eq!(again.status(), StatusCode::NOT_MODIFIED);
    assert!(again.bytes().await.unwrap().is_empty());

    let lb = client.get(format!("{}/leaderboard", s.base)).header("accept-encoding", "gzip").send().await.unwrap();
    assert_eq!(lb.headers()["content-encoding"], "gzip");
    let compressed = lb.bytes().await.unwrap();
    let mut decoded = Vec::new();
    std::io::Read::read_to_end(&mut flate2::read::GzDecoder::new(compressed.as_ref()), &mut decoded).unwrap();
    let leaderboard: Value = serde_json::from_slice(&decoded).unwrap();
    assert_eq!(leaderboard["version"], "agentrep-leaderboard-v1", "gzip decodes to the leaderboard");
    assert!(compressed.len() > 100);
}
