//! Fast evidence on every read that answers a decision (ISSUE 52 § 6): with an overlay that lowers
//! one `PROCEED` seller to `BLOCK`, every route whose answer carries a seller's decision (found
//! from `/openapi.json`, so a new route cannot be forgotten) answers `BLOCK` for it wherever it
//! names it, and so do the pages, the badges and the paid reports; an overlay of the same id but
//! another digest (a snapshot republished under its id) lowers nothing, and an overlay that says
//! more than the snapshot raises nothing.

use std::collections::{BTreeMap, BTreeSet};
use std::path::Path;

use agentrep_model::FlagKey;
use agentrep_publish::layout::snapshot_digest;
use agentrep_publish::store::SnapshotStore;
use agentrep_publish::wire::{AgentRowV1, Decision, FlagV1, OverlaySellerV1, OverlayV1, ShieldColor};
use agentrep_tests::{RunningServer, copy_dir, shared_world};
use serde_json::{Value, json};

/// Keys under which an answer names the wallet an object is about.
const WALLET_KEYS: &[&str] = &["address", "payTo", "agentAddress", "wallet", "seller"];

struct World {
    _dir: tempfile::TempDir,
    snapshots: std::path::PathBuf,
    target: AgentRowV1,
    other: AgentRowV1,
}

fn rows(snapshots: &Path) -> Vec<AgentRowV1> {
    std::fs::read_to_string(snapshots.join("current/index/agents.jsonl"))
        .unwrap()
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect()
}

/// A copy of the shared world's snapshots and a ranked `PROCEED` seller with tags and resources.
fn world() -> World {
    let dir = tempfile::tempdir().unwrap();
    let snapshots = dir.path().join("snapshots");
    copy_dir(&shared_world().snapshots(), &snapshots).unwrap();
    let mut ranked: Vec<AgentRowV1> = rows(&snapshots)
        .into_iter()
        .filter(|r| {
            r.decision == Decision::Proceed && r.rank.is_some() && !r.tags.is_empty() && !r.resources.is_empty()
        })
        .collect();
    ranked.sort_by_key(|r| r.rank);
    assert!(ranked.len() >= 2, "the world has ranked PROCEED sellers");
    let other = ranked.remove(1);
    let target = ranked.remove(0);
    World { _dir: dir, snapshots, target, other }
}

fn overlay_lowering(snapshots: &Path, target: &AgentRowV1, decision: Decision, digest: Option<String>) -> OverlayV1 {
    let store = SnapshotStore::new(snapshots);
    let id = store.current_id().unwrap();
    let manifest = std::fs::read(snapshots.join(&id).join("manifest.json")).unwrap();
    let seller = OverlaySellerV1 {
        decision,
        published_decision: target.decision,
        color: if decision == Decision::Block { ShieldColor::Red } else { ShieldColor::Green },
        flags: vec![FlagV1 {
            key: FlagKey::PaidCallUndelivered,
            severity: agentrep_publish::wire::Severity::Critical,
            detail: "the oracle's paid calls on two days were settled and delivered nothing".to_owned(),
        }],
        reason: "evidence newer than the snapshot raised paid-call-undelivered".to_owned(),
    };
    OverlayV1 {
        version: agentrep_publish::wire::version("overlay"),
        snapshot_id: id,
        snapshot_digest: Some(digest.unwrap_or_else(|| snapshot_digest(&manifest))),
        as_of: "2026-12-02T00:00:00Z".to_owned(),
        probes: 0,
        paid_calls: 2,
        denylist_entries: 0,
        sellers: BTreeMap::from([(target.address.clone(), seller)]),
        listings: Vec::new(),
    }
}

/// Every schema a `$ref` chain under `schema` reaches mentions a `decision` property.
fn mentions_decision(schema: &Value, components: &Value, seen: &mut BTreeSet<String>) -> bool {
    match schema {
        Value::Object(map) => {
            if let Some(Value::String(r)) = map.get("$ref") {
                let name = r.rsplit('/').next().unwrap_or_default().to_owned();
                if !seen.insert(name.clone()) {
                    return false;
                }
                return mentions_decision(&components[&name], components, seen);
            }
            if map.get("properties").and_then(Value::as_object).is_some_and(|p| p.contains_key("decision")) {
                return true;
            }
            map.values().any(|v| mentions_decision(v, components, seen))
        }
        Value::Array(items) => items.iter().any(|v| mentions_decision(v, components, seen)),
        _ => false,
    }
}

/// Every operation (`METHOD path`) whose 200 answer can carry a seller's decision.
fn decision_bearing(openapi: &Value) -> BTreeSet<String> {
    let components = &openapi["components"]["schemas"];
    let mut out = BTreeSet::new();
    for (path, item) in openapi["paths"].as_object().unwrap() {
        for (method, op) in item.as_object().unwrap() {
            let Some(ok) = op.pointer("/responses/200") else { continue };
            if mentions_decision(ok, components, &mut BTreeSet::new()) {
                out.insert(format!("{} {path}", method.to_uppercase()));
            }
        }
    }
    out
}

/// Every object of `answer` about `wallet` with a decision, as (decision, colour if any).
fn judgements_of(answer: &Value, wallet: &str, out: &mut Vec<(String, Option<String>)>) {
    match answer {
        Value::Object(map) => {
            let about = WALLET_KEYS
                .iter()
                .any(|k| map.get(*k).and_then(Value::as_str).is_some_and(|v| v.eq_ignore_ascii_case(wallet)));
            if about && let Some(Value::String(d)) = map.get("decision").or_else(|| map.get("agentDecision")) {
                let color = map
                    .get("color")
                    .or_else(|| map.get("trustShield").and_then(|s| s.get("color")))
                    .or_else(|| map.get("shield").and_then(|s| s.get("color")))
                    .and_then(Value::as_str)
                    .map(str::to_owned);
                out.push((d.clone(), color));
            }
            for v in map.values() {
                judgements_of(v, wallet, out);
            }
        }
        Value::Array(items) => items.iter().for_each(|v| judgements_of(v, wallet, out)),
        _ => {}
    }
}

/// How to ask each decision-bearing operation about `t` (with `o`, another ranked seller).
fn request_for(op: &str, t: &AgentRowV1, o: &AgentRowV1) -> Option<(reqwest::Method, String, Option<Value>)> {
    use reqwest::Method;
    let a = &t.address;
    let tag = &t.tags[0];
    let get = |p: String| Some((Method::GET, p, None));
    match op {
        "GET /score/{address}" => get(format!("/score/{a}")),
        "GET /preflight/{address}" => get(format!("/preflight/{a}")),
        "GET /preflight" => get(format!("/preflight?url={}", t.resources[0])),
        "POST /preflight" => Some((Method::POST, "/preflight".to_owned(), Some(json!({"url": t.resources[0]})))),
        "POST /scores" => Some((Method::POST, "/scores".to_owned(), Some(json!({"addresses": [a, o.address]})))),
        "GET /leaderboard" => get("/leaderboard?limit=500".to_owned()),
        "GET /compare" => get(format!("/compare?a={a}&b={}", o.address)),
        "GET /search" => get(format!("/search?q={}&limit=100", urlencoding(tag))),
        "GET /tags/{tag}" => get(format!("/tags/{}", urlencoding(tag))),
        "POST /match" => Some((Method::POST, "/match".to_owned(), Some(json!({"intent": tag, "limit": 10})))),
        "GET /recommend" => get(format!("/recommend?for={}&limit=50", o.address)),
        "GET /by-category/{cat}" => get(format!("/by-category/{}?limit=200", t.category)),
        "GET /bazaar-scored" => get("/bazaar-scored?limit=500".to_owned()),
        "GET /random" => get("/random".to_owned()),
        "GET /sponsored" => get("/sponsored".to_owned()),
        "POST /trust/evaluate" => Some((
            Method::POST,
            "/trust/evaluate".to_owned(),
            Some(json!({"direction": "seller", "subject": {"wallet": a}, "resource": {"amount": {"value": "0.01"}}})),
        )),
        _ => None,
    }
}

fn urlencoding(s: &str) -> String {
    let mut url = reqwest::Url::parse("http://127.0.0.1/").unwrap();
    url.query_pairs_mut().append_pair("v", s);
    url.query().unwrap()["v=".len()..].to_owned()
}

/// Operations whose answer must name the lowered seller (the others may not: a random pick, a
/// list of movers, a token's deployer).
const MUST_NAME: &[&str] = &[
    "GET /score/{address}",
    "GET /preflight/{address}",
    "GET /preflight",
    "POST /preflight",
    "POST /scores",
    "GET /leaderboard",
    "GET /compare",
    "GET /by-category/{cat}",
    "POST /trust/evaluate",
];

/// Operations asked through another's answer: the trust evidence an evaluation's `evidence_url`
/// names.
const FOLLOWED: &[&str] = &["GET /trust/evidence/{address}"];

/// The base path the description's server URL names (`/api/agent`).
fn openapi_base(openapi: &Value) -> String {
    openapi["servers"][0]["url"].as_str().unwrap_or_default().trim_end_matches('/').to_owned()
}

/// Whether `op` is a paid route (its answer may be a 402).
fn paid(openapi: &Value, op: &str) -> bool {
    let (method, path) = op.split_once(' ').unwrap();
    openapi["paths"][path][method.to_lowercase()].pointer("/responses/402").is_some()
}

async fn ask(
    client: &reqwest::Client,
    base: &str,
    (method, path, body): (reqwest::Method, String, Option<Value>),
) -> Value {
    let mut req = client.request(method, format!("{base}{path}"));
    if let Some(body) = body {
        req = req.json(&body);
    }
    let resp = req.send().await.unwrap();
    assert!(resp.status().is_success(), "{path}: {}", resp.status());
    resp.json().await.unwrap()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn every_read_that_answers_a_decision_answers_the_overlays() {
    let w = world();
    let store = SnapshotStore::new(&w.snapshots);
    store.publish_overlay(&overlay_lowering(&w.snapshots, &w.target, Decision::Block, None)).unwrap();
    let server = RunningServer::start(&w.snapshots);
    let client = reqwest::Client::new();
    let openapi: Value =
        client.get(format!("{}/openapi.json", server.base)).send().await.unwrap().json().await.unwrap();
    let bearing = decision_bearing(&openapi);
    assert!(bearing.len() >= MUST_NAME.len(), "{bearing:?}");

    let unasked: Vec<&String> = bearing
        .iter()
        .filter(|op| !paid(&openapi, op) && !FOLLOWED.contains(&op.as_str()))
        .filter(|op| request_for(op, &w.target, &w.other).is_none())
        .collect();
    assert!(
        unasked.is_empty(),
        "these answer a seller's decision: add them to request_for so this test asks them: {unasked:?}"
    );
    let mut named = BTreeSet::new();
    for op in &bearing {
        // A paid route is asked below, through the library (this server takes no payments); a
        // free one with a paid variant (`/score?live=1`) is asked free here.
        let Some(request) = request_for(op, &w.target, &w.other) else { continue };
        let answer = ask(&client, &server.base, request).await;
        let mut said = Vec::new();
        judgements_of(&answer, &w.target.address, &mut said);
        for (decision, color) in &said {
            assert_eq!(decision, "BLOCK", "{op} answers the published decision: {answer}");
            assert!(color.as_deref().is_none_or(|c| c == "red"), "{op} answers the published shield: {answer}");
        }
        if !said.is_empty() {
            named.insert(op.as_str());
        }
        if op == "POST /trust/evaluate" {
            assert_ne!(answer["decision"], "PASS", "the trust answer passes a lowered seller: {answer}");
            let url = answer["evidence_url"].as_str().expect("an evidence URL");
            let origin = server.base.trim_end_matches(&*openapi_base(&openapi));
            let evidence: Value = client.get(format!("{origin}{url}")).send().await.unwrap().json().await.unwrap();
            assert_eq!(evidence["facts"]["decision"], "BLOCK", "the trust evidence is the published one: {evidence}");
        }
    }
    for op in MUST_NAME {
        assert!(named.contains(op), "{op} never named the lowered seller");
    }
    // The pages and badges answer the lowered shield too.
    let a = &w.target.address;
    let origin = format!("http://{}", server.addr);
    let page = client.get(format!("{origin}/agent/{a}")).send().await.unwrap().text().await.unwrap();
    assert!(page.contains("<strong data-decision>BLOCK</strong>"), "the agent page shows the published decision");
    assert!(page.contains(r#"<span class="dot red">"#), "the agent page shows the published shield");
    let board = client.get(format!("{origin}/")).send().await.unwrap().text().await.unwrap();
    let row =
        board.split(&format!(r#"<tr data-address="{a}">"#)).nth(1).expect("the leaderboard page lists the seller");
    let row = &row[..row.find("</tr>").unwrap()];
    assert!(row.contains(r#"<span class="dot red">"#), "the leaderboard page shows the published shield: {row}");
    let badge = client.get(format!("{}/badge/{a}.svg", server.base)).send().await.unwrap().text().await.unwrap();
    assert!(badge.contains(agentrep_publish::svg::badge_color(Some(ShieldColor::Red))), "{badge}");
    drop(server);

    // The paid reports, read as the paid handlers read them.
    let app = agentrep_server::routes::app(&agentrep_server::ServerConfig {
        snapshots: w.snapshots.clone(),
        ..Default::default()
    });
    app.reload();
    let snap = app.snapshot().unwrap();
    let addr = agentrep_model::Address::parse(a).unwrap();
    let audit = agentrep_server::query::audit::audit(&snap, &addr, "2026-12-02T00:00:00Z".to_owned()).unwrap();
    let batch =
        agentrep_server::query::reports::audit_batch(&snap, std::slice::from_ref(&addr), "2026-12-02T00:00:00Z")
            .unwrap();
    for (what, answer) in
        [("audit", serde_json::to_value(&audit).unwrap()), ("audit-batch", serde_json::to_value(&batch).unwrap())]
    {
        let mut said = Vec::new();
        judgements_of(&answer, a, &mut said);
        assert!(!said.is_empty() && said.iter().all(|(d, _)| d == "BLOCK"), "{what}: {said:?}");
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_overlay_of_another_digest_or_that_would_raise_changes_nothing() {
    let w = world();
    let store = SnapshotStore::new(&w.snapshots);
    let server = RunningServer::start(&w.snapshots);
    let client = reqwest::Client::new();
    let url = format!("{}/preflight/{}", server.base, w.target.address);
    let published: Value = client.get(&url).send().await.unwrap().json().await.unwrap();
    assert_eq!(published["decision"], "PROCEED");

    // The same id, another digest: the overlay of a snapshot since republished under its id.
    store.publish_overlay(&overlay_lowering(&w.snapshots, &w.target, Decision::Block, Some("00".repeat(32)))).unwrap();
    tokio::time::sleep(std::time::Duration::from_millis(600)).await;
    let answer: Value = client.get(&url).send().await.unwrap().json().await.unwrap();
    assert_eq!(answer, published, "an overlay of another digest amended the snapshot");

    // An overlay that names a higher decision than a seller's published one raises nothing: a
    // seller published below PROCEED, said PROCEED and green, stays as published (another seller
    // lowered in the same overlay shows it was applied).
    let low = rows(&w.snapshots).into_iter().find(|r| r.decision < Decision::Proceed).expect("a seller below PROCEED");
    let low_url = format!("{}/preflight/{}", server.base, low.address);
    let low_published: Value = client.get(&low_url).send().await.unwrap().json().await.unwrap();
    let mut raising = overlay_lowering(&w.snapshots, &w.other, Decision::Caution, None);
    let mut raise = raising.sellers[&w.other.address].clone();
    raise.decision = Decision::Proceed;
    raise.color = ShieldColor::Green;
    raise.flags.clear();
    raise.published_decision = low.decision;
    raising.sellers.insert(low.address.clone(), raise);
    store.publish_overlay(&raising).unwrap();
    let deadline = std::time::Instant::now() + std::time::Duration::from_secs(10);
    let other_url = format!("{}/preflight/{}", server.base, w.other.address);
    loop {
        let answer: Value = client.get(&other_url).send().await.unwrap().json().await.unwrap();
        if answer["decision"] == "CAUTION" {
            break;
        }
        assert!(std::time::Instant::now() < deadline, "the overlay never applied: {answer}");
        tokio::time::sleep(std::time::Duration::from_millis(50)).await;
    }
    let answer: Value = client.get(&low_url).send().await.unwrap().json().await.unwrap();
    assert_eq!(answer["decision"], low_published["decision"], "an overlay raised a decision: {answer}");
    assert_eq!(
        answer["trustShield"]["color"], low_published["trustShield"]["color"],
        "an overlay lightened a shield: {answer}"
    );
}
