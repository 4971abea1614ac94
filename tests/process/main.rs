//! What an operator runs, run as the operator runs it: the real `agentrep` binary started as a
//! child process with nothing but the flags and the environment the operators' guide (`docs/operating.md`) documents (the
//! environment is cleared first), and one real request through each configuration; for the paid
//! ones, a payment by an official x402 buyer, settled on anvil.
//!
//! That guide's configurations table names the process test of each configuration it documents;
//! [`every_documented_configuration_has_a_process_test`] fails when one has none.

mod documented_commands;

use std::collections::BTreeMap;
use std::path::Path;
use std::process::Command;
use std::time::Duration;

use agentrep_tests::buyers::OfficialBuyer;
use agentrep_tests::chain::paychain::{Facilitator, FacilitatorFault, PayChain, key_hex};
use agentrep_tests::process::{Process, base_command, demo_dir, root};
use agentrep_tests::test_clients;
use alloy::primitives::U256;
use alloy::signers::local::PrivateKeySigner;
use serde_json::Value;

async fn get(url: &str) -> (u16, Value) {
    let resp = reqwest::get(url).await.expect("answers");
    let status = resp.status().as_u16();
    (status, resp.json().await.unwrap_or(Value::Null))
}

async fn top_seller(base: &str) -> String {
    let (status, lb) = get(&format!("{base}/leaderboard?limit=1")).await;
    assert_eq!(status, 200, "{lb}");
    lb["results"][0]["payTo"].as_str().expect("a ranked seller").to_owned()
}

/// `serve` of the demo's snapshots with `env`.
fn serve(env: &[(&str, String)]) -> Process {
    let snapshots = demo_dir().join("snapshots").display().to_string();
    Process::start(&["serve", "--snapshots", &snapshots, "--addr", "127.0.0.1:0"], env)
}

/// The payment variables of a deployment on `chain`, its ledger in `store`.
fn payment_env(chain: &PayChain, store: &Path) -> Vec<(&'static str, String)> {
    vec![
        ("AGENTREP_PAY_TO", alloy::hex::encode_prefixed(chain.pay_to)),
        ("AGENTREP_PAYMENT_RPC", chain.anvil.url().to_owned()),
        ("AGENTREP_STORE", store.display().to_string()),
        ("AGENTREP_SETTLE_TIMEOUT_SECS", "10".to_owned()),
    ]
}

async fn funded(chain: &PayChain, amount: u64) -> PrivateKeySigner {
    let payer = PrivateKeySigner::random();
    chain.fund(payer.address(), amount).await.expect("funded");
    payer
}

/// The paid routes `/status` lists: route → reason it is off (`None`: sold).
async fn paid_routes(base: &str) -> BTreeMap<String, Option<String>> {
    let (_, status) = get(&format!("{base}/status")).await;
    status["payments"]["routes"]
        .as_array()
        .expect("routes in /status")
        .iter()
        .map(|r| (r["route"].as_str().unwrap().to_owned(), r["reason"].as_str().map(str::to_owned)))
        .collect()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_demo_serves_the_embedded_world() {
    let dir = demo_dir().display().to_string();
    let mut demo = Process::start(&["demo", "--dir", &dir, "--addr", "127.0.0.1:0"], &[]);
    let base = demo.serving();
    let seller = top_seller(&base).await;
    let (status, score) = get(&format!("{base}/score/{seller}")).await;
    assert_eq!(status, 200);
    assert_eq!(score["agentAddress"], seller);
    // The demo takes no payments: a paid route says so and quotes no terms.
    let (status, refusal) = get(&format!("{base}/audit/{seller}")).await;
    assert_eq!((status, refusal["error"]["code"].as_str()), (503, Some("payments_not_configured")), "{refusal}");
    // Logs for operators: no colour codes in a pipe, the expected refusal at INFO with its code,
    // nothing at ERROR.
    tokio::time::sleep(Duration::from_millis(200)).await;
    let logs = demo.stderr.lock().unwrap().join("\n");
    assert!(!logs.contains('\u{1b}'), "ANSI codes in piped logs:\n{logs}");
    assert!(!logs.contains("ERROR"), "{logs}");
    let refusal_line = logs.lines().find(|l| l.contains("payments_not_configured")).expect("the refusal is logged");
    assert!(refusal_line.contains("INFO"), "{refusal_line}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn payments_settled_by_a_relayer() {
    let chain = PayChain::start().await.expect("anvil");
    let dir = tempfile::tempdir().unwrap();
    let mut env = payment_env(&chain, &dir.path().join("store.sqlite"));
    env.push(("AGENTREP_RELAYER_KEY", key_hex(&chain.relayer)));
    env.push(("AGENTREP_LOG_FORMAT", "json".to_owned()));
    let mut server = serve(&env);
    let base = server.serving();
    let seller = top_seller(&base).await;

    // No signing key, no live sources: the routes that need them are off, and say why before
    // any terms are quoted.
    let routes = paid_routes(&base).await;
    assert_eq!(routes["GET /audit/{agentAddress}"], None);
    let live_off = routes["GET /score/{address}?live=1"].clone().expect("live re-score off");
    assert!(live_off.contains("AGENTREP_LIVE_SOURCES") && live_off.contains("AGENTREP_SIGNING_KEY"), "{live_off}");
    let (status, refusal) = get(&format!("{base}/score/{seller}?live=1")).await;
    assert_eq!((status, refusal["error"]["code"].as_str()), (503, Some("paid_route_unavailable")), "{refusal}");
    let (status, refusal) = get(&format!("{base}/risk-report/{seller}")).await;
    assert_eq!((status, refusal["error"]["code"].as_str()), (503, Some("paid_route_unavailable")), "{refusal}");

    // The official @x402/fetch buyer pays for an audit; the relayer settles it on anvil.
    let payer = funded(&chain, 1_000_000).await;
    let out = OfficialBuyer::FetchV2.pay(&format!("{base}/audit/{seller}"), &payer, 250_000).await;
    assert_eq!(out["status"], 200, "{out}");
    assert_eq!(out["body"]["agentAddress"], seller);
    assert_eq!(out["settlement"]["success"], true, "{out}");
    assert_eq!(chain.balance(chain.pay_to).await.unwrap(), U256::from(250_000));

    // JSON logs, one object a line, and the relayer's key never in them.
    let logs = server.stderr.lock().unwrap().clone();
    assert!(logs.iter().all(|l| serde_json::from_str::<Value>(l).is_ok()), "{logs:?}");
    assert!(logs.iter().any(|l| l.contains("Paid route on.")), "{logs:?}");
    assert!(!logs.join("\n").contains(&key_hex(&chain.relayer)[2..]), "the relayer key is logged");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn payments_through_a_facilitator() {
    let chain = PayChain::start().await.expect("anvil");
    let facilitator = Facilitator::start(&chain, FacilitatorFault::None).await.expect("facilitator");
    let dir = tempfile::tempdir().unwrap();
    let mut env = payment_env(&chain, &dir.path().join("store.sqlite"));
    env.push(("AGENTREP_FACILITATOR_URL", facilitator.url.clone()));
    let mut server = serve(&env);
    let base = server.serving();
    let seller = top_seller(&base).await;
    let payer = funded(&chain, 1_000_000).await;
    let out = OfficialBuyer::PythonV2.pay(&format!("{base}/audit/{seller}"), &payer, 250_000).await;
    assert_eq!(out["status"], 200, "{out}");
    assert_eq!(out["settlement"]["success"], true, "{out}");
    assert_eq!(chain.balance(chain.pay_to).await.unwrap(), U256::from(250_000));
}

/// An ingest configuration whose chain is `rpc` (the live sources of a test deployment).
fn live_sources_file(dir: &Path, rpc: &str) -> String {
    let path = dir.join("agentrep.toml");
    std::fs::write(
        &path,
        format!("[chain]\nrpc_urls = [\"{rpc}\"]\nchain_id = 8453\nuse_finalized = false\nconfirmations = 0\n"),
    )
    .unwrap();
    path.display().to_string()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn live_sources_and_a_signing_key_sell_the_live_rescore() {
    let chain = PayChain::start().await.expect("anvil");
    let dir = tempfile::tempdir().unwrap();
    let mut env = payment_env(&chain, &dir.path().join("store.sqlite"));
    env.push(("AGENTREP_RELAYER_KEY", key_hex(&chain.relayer)));
    env.push(("AGENTREP_SIGNING_KEY", key_hex(&chain.operator)));
    env.push(("AGENTREP_LIVE_SOURCES", live_sources_file(dir.path(), chain.anvil.url())));
    // A Farcaster account, signer and hub (nothing is cast here: tests/payments/casts.rs buys one).
    env.push(("AGENTREP_FARCASTER_FID", "4242".to_owned()));
    env.push(("AGENTREP_FARCASTER_SIGNER_KEY", "5a".repeat(32)));
    env.push(("AGENTREP_FARCASTER_HUB_URL", "http://127.0.0.1:9/".to_owned()));
    let mut server = serve(&env);
    let base = server.serving();
    let seller = top_seller(&base).await;
    let off: Vec<String> =
        paid_routes(&base).await.into_iter().filter(|(_, why)| why.is_some()).map(|(route, _)| route).collect();
    assert_eq!(off, ["GET /snapshot/{placeId}"], "only /snapshot is off");

    // x402-fetch (v1) pays for a live re-score; its signed receipt unlocks ?full=1, sent back as
    // the settlement it came in.
    let payer = funded(&chain, 1_000_000).await;
    let out = OfficialBuyer::FetchV1.pay(&format!("{base}/score/{seller}?live=1"), &payer, 50_000).await;
    assert_eq!(out["status"], 200, "{out}");
    assert_eq!(out["body"]["agentAddress"], seller);
    assert!(out["body"]["live"].is_object(), "{out}");
    let receipt = out["settlement"].to_string();
    let full = reqwest::Client::new()
        .get(format!("{base}/score/{seller}?full=1"))
        .header("x-agentrep-receipt", receipt)
        .send()
        .await
        .unwrap();
    assert_eq!(full.status(), 200, "{}", full.text().await.unwrap());
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_signing_key_signs_attestations() {
    let key = PrivateKeySigner::random();
    let mut server = serve(&[("AGENTREP_SIGNING_KEY", key_hex(&key))]);
    let base = server.serving();
    let seller = top_seller(&base).await;
    let (status, attestation) = get(&format!("{base}/attestation/{seller}")).await;
    assert_eq!(status, 200);
    assert_eq!(attestation["signed"], true, "{attestation}");
    let signer = attestation["payload"]["operator"].as_str().or(attestation["signer"].as_str()).unwrap_or_default();
    assert_eq!(signer.to_lowercase(), alloy::hex::encode_prefixed(key.address()), "{attestation}");
    let verified: Value = reqwest::Client::new()
        .post(format!("{base}/verify"))
        .json(&serde_json::json!({"payload": attestation["payload"], "signature": attestation["signature"]}))
        .send()
        .await
        .unwrap()
        .json()
        .await
        .unwrap();
    assert_eq!(verified["valid"], true, "{verified}");
}

/// A deployment with `AGENTREP_TRUST_SIGNING_KEY` answers the x402 trust-provider protocol in
/// both directions, signed: a client written against the drafts alone (`tests/clients/
/// trust_provider.py`: RFC 8785 from `rfc8785`, Ed25519 from `cryptography`) verifies every answer,
/// and the key it publishes is the one configured.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_trust_signing_key_signs_trust_provider_answers() {
    let seed = "9d61b19deffd5a60ba844af492ec2cc44449c5697b326919703bac031cae7f60";
    let mut server = serve(&[("AGENTREP_TRUST_SIGNING_KEY", seed.to_owned())]);
    let base = server.serving();
    let origin = base.trim_end_matches("/api/agent").to_owned();
    let (_, jwks) = get(&format!("{origin}/.well-known/jwks.json")).await;
    // RFC 8037 A.1's key: its public half is A.2's `x`.
    assert_eq!(jwks["keys"][0]["x"], "11qYAYKxCrfVS_7TyWQHOg7hcvPapiMlrwIaaPcHURo", "{jwks}");
    let seller = top_seller(&base).await;
    let (_, buyers) = get(&format!("{base}/top-buyers?limit=1")).await;
    let payer = buyers["buyers"][0]["address"].as_str().expect("a paying wallet").to_owned();
    let (_, denied) = get(&format!("{base}/denylist?limit=1")).await;
    let denylisted = denied["addresses"][0]["address"].as_str().expect("a denylisted wallet").to_owned();
    let unknown = "0x00000000000000000000000000000000000c0ffe";
    let out = Command::new(test_clients().join("py/bin/python"))
        .arg(root().join("tests/clients/trust_provider.py"))
        .args([&origin, "/api/agent", "--seller", &seller, "--payer", &payer, "--denylisted", &denylisted])
        .args(["--unknown", unknown])
        .output()
        .expect("python runs");
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(out.status.success(), "{stdout}\n{}", String::from_utf8_lossy(&out.stderr));
    assert_eq!(stdout.lines().count(), 8, "{stdout}");
}

/// `agentrep serve --check` with `env`: (exit success, stdout).
fn check(env: &[(&str, String)]) -> (bool, String) {
    let snapshots = demo_dir().join("snapshots").display().to_string();
    let out = base_command()
        .args(["serve", "--check", "--snapshots", &snapshots])
        .envs(env.iter().map(|(k, v)| (*k, v.as_str())))
        .output()
        .expect("agentrep runs");
    (out.status.success(), format!("{}{}", String::from_utf8_lossy(&out.stdout), String::from_utf8_lossy(&out.stderr)))
}

/// A value the server cannot use is refused at start with its variable named, never dropped for a
/// default: `serve` exits without listening, and `serve --check` lists every refusal at once.
#[test]
fn a_bad_value_stops_serve_with_the_variable_named() {
    let bad = [
        ("AGENTREP_WRITE_LIMIT_PER_HOUR", "many".to_owned()),
        ("AGENTREP_PAYMENT_NETWORK", "solana".to_owned()),
        ("AGENTREP_WEBHOOK_ALLOW_PRIVATE", "yes".to_owned()),
    ];
    let snapshots = demo_dir().join("snapshots").display().to_string();
    let out = base_command()
        .args(["serve", "--snapshots", &snapshots, "--addr", "127.0.0.1:0"])
        .envs(bad.iter().map(|(k, v)| (*k, v.as_str())))
        .output()
        .expect("agentrep runs");
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(!out.status.success(), "serve started with bad values:\n{stderr}");
    assert!(!String::from_utf8_lossy(&out.stdout).contains("agentrep is serving on"), "it listened");
    for (variable, value) in &bad {
        assert!(stderr.contains(variable) && stderr.contains(value.as_str()), "{variable} not named:\n{stderr}");
    }
    let (ok, report) = check(&bad);
    assert!(!ok, "{report}");
    let refusals = report.lines().filter(|l| l.contains("FAIL configuration")).count();
    assert_eq!(refusals, bad.len(), "{report}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn serve_check_finds_what_would_fail_at_the_first_sale() {
    let chain = PayChain::start().await.expect("anvil");
    let dir = tempfile::tempdir().unwrap();
    let store = dir.path().join("store.sqlite");
    let signing = PrivateKeySigner::random();

    // Everything configured and reachable: exit 0, secrets redacted.
    let mut env = payment_env(&chain, &store);
    env.push(("AGENTREP_RELAYER_KEY", key_hex(&chain.relayer)));
    env.push(("AGENTREP_SIGNING_KEY", key_hex(&signing)));
    env.push(("AGENTREP_LIVE_SOURCES", live_sources_file(dir.path(), chain.anvil.url())));
    let (ok, out) = tokio::task::spawn_blocking(move || check(&env)).await.unwrap();
    assert!(ok, "{out}");
    assert!(out.contains("ok   relayer") && out.contains("ok   live sources"), "{out}");
    assert!(!out.contains(&key_hex(&chain.relayer)[2..]) && !out.contains(&key_hex(&signing)[2..]), "a key is printed");

    // A relayer with no gas: the first settlement would fail.
    let broke = PrivateKeySigner::random();
    let mut env = payment_env(&chain, &store);
    env.push(("AGENTREP_RELAYER_KEY", key_hex(&broke)));
    let (ok, out) = tokio::task::spawn_blocking(move || check(&env)).await.unwrap();
    assert!(!ok && out.contains("holds no ETH"), "{out}");

    // Half a payment configuration: an address but no node and no way to settle.
    let env = vec![("AGENTREP_PAY_TO", alloy::hex::encode_prefixed(chain.pay_to))];
    let (ok, out) = tokio::task::spawn_blocking(move || check(&env)).await.unwrap();
    assert!(!ok && out.contains("AGENTREP_PAYMENT_RPC"), "{out}");

    // A facilitator that does not answer.
    let mut env = payment_env(&chain, &store);
    env.push(("AGENTREP_FACILITATOR_URL", "http://127.0.0.1:9".to_owned()));
    let (ok, out) = tokio::task::spawn_blocking(move || check(&env)).await.unwrap();
    assert!(!ok && out.contains("FAIL facilitator"), "{out}");

    // Nothing about payments: a free deployment is fine.
    let (ok, out) = tokio::task::spawn_blocking(|| check(&[])).await.unwrap();
    assert!(ok && out.contains("off  payments"), "{out}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_paid_demo_sells_what_it_prints() {
    let anvil = agentrep_tests::chain::anvil::anvil_binary().expect("anvil installed");
    test_clients();
    let dir = demo_dir().display().to_string();
    let mut demo = Process::start(
        &["demo", "--paid", "--dir", &dir, "--addr", "127.0.0.1:0"],
        &[("AGENTREP_ANVIL", anvil.display().to_string())],
    );
    demo.serving();
    // The printed buys, pasted into a shell in the workspace root as a newcomer would.
    let buys: Vec<String> = {
        demo.wait_for(Duration::from_secs(60), |l| l.trim_start().starts_with("node ").then_some(()));
        std::thread::sleep(Duration::from_millis(200));
        demo.stdout().iter().filter(|l| l.trim_start().starts_with("node ")).map(|l| l.trim().to_owned()).collect()
    };
    assert_eq!(buys.len(), 2, "{}", demo.logs());
    for buy in buys {
        let out = Command::new("sh").arg("-c").arg(&buy).current_dir(root()).output().expect("the buy runs");
        let stdout = String::from_utf8_lossy(&out.stdout);
        assert!(out.status.success(), "{buy}\n{stdout}\n{}\n{}", String::from_utf8_lossy(&out.stderr), demo.logs());
        let answer: Value = serde_json::from_str(&stdout).unwrap_or_else(|e| panic!("{e}: {stdout}"));
        assert_eq!(answer["status"], 200, "{answer}");
        assert_eq!(answer["transaction"].as_str().map(str::len), Some(66), "{answer}");
        assert!(String::from_utf8_lossy(&out.stderr).contains("402 Payment Required"), "the buyer saw the terms");
    }
}

/// The guide every configuration is documented in.
const OPERATORS_GUIDE: &str = "docs/operating.md";

/// The operators' guide's configurations table: (configuration, file, test function).
fn documented_configurations() -> Vec<(String, String, String)> {
    let readme = std::fs::read_to_string(root().join(OPERATORS_GUIDE)).expect("the operators' guide");
    let begin = readme.find("<!-- configurations:begin -->").expect("the guide has a configurations table");
    let end = readme.find("<!-- configurations:end -->").expect("its end marker");
    readme[begin..end]
        .lines()
        .filter(|l| l.starts_with('|') && !l.starts_with("|---") && !l.starts_with("| configuration"))
        .map(|l| {
            let cells: Vec<&str> = l.split('|').map(str::trim).collect();
            let test = cells.get(3).copied().unwrap_or_default();
            let mut code = test.split('`').skip(1).step_by(2);
            let file = code.next().unwrap_or_default().to_owned();
            let function = code.next().unwrap_or_default().to_owned();
            (cells[1].to_owned(), file, function)
        })
        .collect()
}

#[test]
fn every_documented_configuration_has_a_process_test() {
    let documented = documented_configurations();
    assert!(documented.len() >= 10, "{documented:?}");
    for (configuration, file, function) in documented {
        assert!(
            !file.is_empty() && !function.is_empty(),
            "{OPERATORS_GUIDE} documents {configuration} with no process test (name `file` and `function`)"
        );
        let source = std::fs::read_to_string(root().join(&file)).unwrap_or_else(|e| panic!("{file}: {e}"));
        let start = source
            .find(&format!("fn {function}("))
            .unwrap_or_else(|| panic!("{configuration}: {file} has no fn {function}"));
        let body = &source[start..];
        let body = &body[..body.find("\n}\n").unwrap_or(body.len())];
        assert!(
            [
                "agentrep_binary()",
                "base_command()",
                "Process::start",
                "serve(&",
                "check(&",
                "demo_dir()",
                "BallistaCluster::start(",
            ]
            .iter()
            .any(|m| body.contains(m)),
            "{configuration}: {file}::{function} does not start the agentrep binary"
        );
    }
}

/// `make run` on a fresh folder: the demo answers once its first day is published, says that its
/// history is still filling (in `/status` and on the leaderboard page), and publishes the later
/// days while it serves.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_fresh_demo_answers_after_its_first_day_and_fills_the_rest_while_it_serves() {
    let dir = tempfile::tempdir().expect("temp dir");
    let folder = dir.path().join("demo").display().to_string();
    let mut demo = Process::start(&["demo", "--dir", &folder, "--addr", "127.0.0.1:0"], &[]);
    let base = demo.serving();
    let (status, first) = get(&format!("{base}/status")).await;
    assert_eq!(status, 200);
    let filling = &first["historyFilling"];
    assert_eq!(filling["publishedThrough"], first["snapshotDate"], "{first}");
    let left = filling["daysLeft"].as_u64().expect("days left");
    assert!((1..=29).contains(&left), "{first}");
    let origin = base.trim_end_matches("/api/agent");
    let page = reqwest::get(format!("{origin}/")).await.expect("page").text().await.expect("HTML");
    let notice = format!(
        "days up to {} are published, {left} more to {} are being rebuilt",
        first["snapshotDate"].as_str().expect("date"),
        filling["fillsTo"].as_str().expect("fills to")
    );
    assert!(page.contains("history is still filling") && page.contains(&notice), "{notice}\n{page}");
    // The later days land while it serves, each published as it is rebuilt.
    let started = std::time::Instant::now();
    loop {
        let (_, now) = get(&format!("{base}/status")).await;
        if now["snapshotDate"] != first["snapshotDate"] {
            assert!(
                now["historyFilling"].is_null() || now["historyFilling"]["daysLeft"].as_u64() < Some(left),
                "{now}"
            );
            break;
        }
        assert!(
            started.elapsed() < Duration::from_secs(120),
            "a later day was published within 2 minutes:\n{}",
            demo.logs()
        );
        tokio::time::sleep(Duration::from_millis(500)).await;
    }
}

/// Runs `agentrep` with `args` to completion and returns its stdout.
fn run_agentrep(args: &[&str]) -> String {
    let out = base_command().args(args).output().expect("agentrep runs");
    assert!(out.status.success(), "agentrep {args:?}: {}", String::from_utf8_lossy(&out.stderr));
    String::from_utf8_lossy(&out.stdout).into_owned()
}

/// Fast evidence between rebuilds, as the scheduler publishes it after a round of probes: a
/// seller whose endpoints failed their last probes, and one whose paid call delivered nothing,
/// are answered lower within one reload of the server after `agentrep overlay`, on every read
/// (preflight, score, shield, the URL preflight); nobody else changes; the lag from the failed
/// probe's publication to the changed answer is measured and printed (BENCHMARKS.md § 4t).
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn fast_evidence_lowers_answers_within_a_probe_cycle() {
    use agentrep_lake::Timestamp;
    use agentrep_lake::datasets::PaidProbeRow;
    use agentrep_publish::wire::AgentRowV1;

    let dir = tempfile::tempdir().unwrap();
    let (lake, snapshots) = (dir.path().join("lake"), dir.path().join("snapshots"));
    let (lake_arg, snap_arg) = (lake.display().to_string(), snapshots.display().to_string());
    run_agentrep(&["world", "--lake", &lake_arg, "--days", "3"]);
    run_agentrep(&["rebuild", "--lake", &lake_arg, "--snapshots", &snap_arg]);
    let mut server = Process::start(&["serve", "--snapshots", &snap_arg, "--addr", "127.0.0.1:0"], &[]);
    let base = server.serving();

    let current = snapshots.join("current");
    let rows: Vec<AgentRowV1> = std::fs::read_to_string(current.join("index/agents.jsonl"))
        .unwrap()
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    let manifest: Value = serde_json::from_slice(&std::fs::read(current.join("manifest.json")).unwrap()).unwrap();
    let day = chrono::NaiveDate::parse_from_str(manifest["snapshotDate"].as_str().unwrap(), "%Y-%m-%d").unwrap();
    let next = day.succ_opt().unwrap();
    let day_end = next.and_hms_opt(0, 0, 0).unwrap().and_utc().timestamp();
    let proceeding: Vec<&AgentRowV1> = rows
        .iter()
        .filter(|r| r.decision == agentrep_publish::wire::Decision::Proceed && !r.resources.is_empty())
        .take(3)
        .collect();
    assert!(proceeding.len() == 3, "the world has sellers answered PROCEED");
    let (dead, unpaid, untouched) = (proceeding[0], proceeding[1], proceeding[2]);

    // What the prober writes after three rounds against endpoints that stopped answering, and
    // what the paid probe writes after calls on two days that took the money and delivered
    // nothing (flags from paid calls need two days).
    let probes = agentrep_tests::dead_probes(&dead.resources, day_end, 3);
    let lake_handle = agentrep_lake::Lake::new(&lake);
    lake_handle.write_partition(next, &probes).unwrap();
    let paid = PaidProbeRow {
        resource: unpaid.resources[0].clone(),
        pay_to: unpaid.address.clone(),
        probed_at: Timestamp::from_secs(day_end + 1_200),
        payer: "0x00000000000000000000000000000000000000aa".to_owned(),
        network: "eip155:8453".to_owned(),
        asset: agentrep_model::chain::USDC_BASE.to_owned(),
        amount: 1_000,
        nonce: "0x01".to_owned(),
        status: Some(502),
        body_bytes: 0,
        delivered: false,
        settled: Some(true),
        tx_hash: Some(format!("0x{}", "ab".repeat(32))),
        error: None,
    };
    let again = PaidProbeRow {
        probed_at: Timestamp::from_secs(day_end + 86_400 + 1_200),
        nonce: "0x02".to_owned(),
        tx_hash: Some(format!("0x{}", "cd".repeat(32))),
        ..paid.clone()
    };
    lake_handle.write_partition(next, &[paid]).unwrap();
    lake_handle.write_partition(next.succ_opt().unwrap(), &[again]).unwrap();

    let before_untouched = get(&format!("{base}/preflight/{}", untouched.address)).await.1;
    let published = std::time::Instant::now();
    let said = run_agentrep(&["overlay", "--lake", &lake_arg, "--snapshots", &snap_arg]);
    assert!(said.contains("2 sellers lowered"), "{said}");
    let lowered = loop {
        let (_, doc) = get(&format!("{base}/preflight/{}", dead.address)).await;
        if doc["decision"] != "PROCEED" {
            break doc;
        }
        assert!(published.elapsed() < Duration::from_secs(30), "the overlay never reached the answer: {doc}");
        tokio::time::sleep(Duration::from_millis(20)).await;
    };
    let lag = published.elapsed();
    println!("overlay lag: {} ms from `agentrep overlay` start to the changed answer", lag.as_millis());
    // The endpoint is dead now: not PROCEED (the model asks for a live last probe), and the
    // answer says why and what it was.
    assert_eq!(lowered["overlay"]["publishedDecision"], "PROCEED", "{lowered}");
    assert!(lowered["signals"].to_string().contains("since the snapshot"), "{lowered}");
    let (_, score) = get(&format!("{base}/score/{}", dead.address)).await;
    assert_eq!(score["decision"], lowered["decision"], "{score}");
    // The unpaid calls raise the oracle's flag on every read of that seller.
    let oracle_flag = |key: &Value| key == "paid-call-undelivered" || key == "pay-then-fail";
    let (_, shield) = get(&format!("{base}/trust-shield/{}", unpaid.address)).await;
    assert!(shield["flags"].as_array().unwrap().iter().any(|f| oracle_flag(&f["key"])), "{shield}");
    let (_, pre) = get(&format!("{base}/preflight/{}", unpaid.address)).await;
    assert!(matches!(pre["decision"].as_str(), Some("CAUTION" | "BLOCK")), "{pre}");
    assert!(pre["flags"].as_array().unwrap().iter().any(oracle_flag), "{pre}");
    let (_, by_url) = get(&format!("{base}/preflight?url={}", unpaid.resources[0])).await;
    assert_eq!(by_url["decision"], pre["decision"], "{by_url}");
    assert!(by_url["warnings"].as_array().unwrap().iter().any(|w| w["code"] == "overlay"), "{by_url}");
    // Nobody else moves.
    assert_eq!(get(&format!("{base}/preflight/{}", untouched.address)).await.1, before_untouched);
    drop(server);
}

/// `GET /snapshot/{placeId}` as an operator sells it: with `AGENTREP_PLACES_API_KEY` (and the
/// double's URL in `AGENTREP_PLACES_URL`), the official buyer pays 0.10 USDC and gets the place
/// read then; an unknown place releases the payment; a malformed id is refused before terms;
/// without a key, 503 `no_business_source` as before; the key is never logged.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn place_snapshots_are_sold_from_the_operators_places_source() {
    use agentrep_tests::fixtures::{PLACE_ID, PlacesFixture};

    let places = PlacesFixture::start("places-test-key-7f3a");
    let chain = PayChain::start().await.expect("anvil");
    let dir = tempfile::tempdir().unwrap();
    let mut env = payment_env(&chain, &dir.path().join("store.sqlite"));
    env.push(("AGENTREP_RELAYER_KEY", key_hex(&chain.relayer)));
    env.push(("AGENTREP_PLACES_API_KEY", places.key.clone()));
    env.push(("AGENTREP_PLACES_URL", places.url()));
    let mut server = serve(&env);
    let base = server.serving();
    assert_eq!(paid_routes(&base).await.get("GET /snapshot/{placeId}"), Some(&None), "sold with a source");

    let payer = funded(&chain, 1_000_000).await;
    let out = OfficialBuyer::FetchV2.pay(&format!("{base}/snapshot/{PLACE_ID}"), &payer, 100_000).await;
    assert_eq!(out["status"], 200, "{out}");
    assert_eq!(out["settlement"]["success"], true, "{out}");
    let body = &out["body"];
    assert_eq!(body["version"], "agentrep-place-snapshot-v1");
    assert_eq!(
        (body["name"].as_str(), body["rating"].as_f64(), body["ratingCount"].as_u64()),
        (Some("Google Sydney"), Some(4.2), Some(1052)),
        "{body}"
    );
    assert_eq!(body["address"], "48 Pirrama Rd, Pyrmont NSW 2009, Australia");
    assert_eq!(body["reviews"][0]["author"], "A. Reviewer");
    assert_eq!(body["reviews"][1]["text"], "Busy at lunch.", "the original text when no translation");
    assert!(body["readAt"].as_str().is_some_and(|t| t.ends_with('Z')), "{body}");
    assert_eq!(chain.balance(chain.pay_to).await.unwrap(), U256::from(100_000));
    assert_eq!(places.reads(), 1);

    // A place the source does not know: the payment is released, nothing is charged.
    let out = OfficialBuyer::FetchV2.pay(&format!("{base}/snapshot/ChIJunknownPlace000"), &payer, 100_000).await;
    assert_eq!(out["status"], 404, "{out}");
    assert_eq!(out["body"]["error"]["code"], "place_not_found", "{out}");
    assert_eq!(chain.balance(chain.pay_to).await.unwrap(), U256::from(100_000), "nothing more was charged");
    // A malformed id never reaches terms (or the source).
    let (status, refusal) = get(&format!("{base}/snapshot/bad%2Fid")).await;
    assert_eq!((status, refusal["error"]["code"].as_str()), (400, Some("invalid_placeId")), "{refusal}");
    let logs = server.logs();
    assert!(!logs.contains(&places.key), "the Places key is logged");
    drop(server);

    // Without a source: 503 no_business_source, no terms, as before.
    let mut bare = serve(&payment_env(&chain, &dir.path().join("store2.sqlite")));
    let base = bare.serving();
    let (status, refusal) = get(&format!("{base}/snapshot/{PLACE_ID}")).await;
    assert_eq!((status, refusal["error"]["code"].as_str()), (503, Some("no_business_source")), "{refusal}");
}

/// What a 5xx body may not carry: the server's addresses and paths, a transport's or the store's
/// internals. `secrets` adds the test's own (a key in an RPC URL).
fn assert_names_the_failure_and_nothing_more(what: &str, status: u16, body: &Value, secrets: &[&str]) {
    eprintln!("{what}: {status} {body}");
    assert!((500..600).contains(&status), "{what}: {status} {body}");
    let (code, message) = (body["error"]["code"].as_str(), body["error"]["message"].as_str());
    assert!(code.is_some_and(|c| !c.is_empty()), "{what}: a code: {body}");
    assert!(message.is_some_and(|m| m.len() > 20), "{what}: words a client can act on: {body}");
    let text = body.to_string();
    let internals = [
        "127.0.0.1",
        "localhost",
        "/tmp",
        "/root",
        "/home",
        "os error",
        "refused",
        "tcp",
        "sqlite",
        "no such table",
        "reqwest",
        "hyper",
        "panicked",
        "error sending request",
    ];
    for leak in internals.iter().chain(secrets) {
        assert!(!text.to_lowercase().contains(&leak.to_lowercase()), "{what}: '{leak}' reaches the client: {text}");
    }
}

/// One fault behind each family of routes (snapshot, chain, facilitator, store), injected into the
/// real binary's dependencies: every 5xx says what failed in words a client can act on and
/// nothing of the server's addresses, paths or internals, which go to the operator's log.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn faults_behind_every_family_of_routes_reach_clients_as_words_without_internals() {
    const SECRET: &str = "SECRETKEY0123";
    let dead = format!("http://127.0.0.1:9/v3/{SECRET}");
    let a = "0x1111111111111111111111111111111111111111";

    // Snapshot: nothing published yet.
    let empty = tempfile::tempdir().unwrap();
    let mut server =
        Process::start(&["serve", "--snapshots", &empty.path().display().to_string(), "--addr", "127.0.0.1:0"], &[]);
    let base = server.serving();
    for path in [format!("/score/{a}"), format!("/preflight/{a}"), "/leaderboard".to_owned()] {
        let (status, body) = get(&format!("{base}{path}")).await;
        assert_names_the_failure_and_nothing_more(&format!("snapshot {path}"), status, &body, &[]);
    }
    drop(server);

    // Chain, at start: the payment node never answers, so paid routes quote no terms.
    let chain = PayChain::start().await.expect("anvil");
    let dir = tempfile::tempdir().unwrap();
    let mut env = payment_env(&chain, &dir.path().join("store.sqlite"));
    env.retain(|(k, _)| *k != "AGENTREP_PAYMENT_RPC");
    env.push(("AGENTREP_PAYMENT_RPC", dead.clone()));
    env.push(("AGENTREP_RELAYER_KEY", key_hex(&chain.relayer)));
    let mut server = serve(&env);
    let base = server.serving();
    let seller = top_seller(&base).await;
    let (status, body) = get(&format!("{base}/audit/{seller}")).await;
    assert_names_the_failure_and_nothing_more("chain at start", status, &body, &[SECRET]);
    let logs = server.stderr.lock().unwrap().join("\n");
    assert!(logs.contains("chain id") && !logs.contains(SECRET), "logged for the operator, without the key: {logs}");
    drop(server);

    // Chain, mid-run: the node answers at start, then stops.
    let gone = PayChain::start().await.expect("a second anvil");
    let dir = tempfile::tempdir().unwrap();
    let mut env = payment_env(&gone, &dir.path().join("store.sqlite"));
    env.push(("AGENTREP_RELAYER_KEY", key_hex(&gone.relayer)));
    let mut server = serve(&env);
    let base = server.serving();
    drop(gone);
    let payer = funded(&chain, 1_000_000).await;
    let out = OfficialBuyer::FetchV2.pay(&format!("{base}/audit/{seller}"), &payer, 250_000).await;
    let status = out["status"].as_u64().unwrap_or_default() as u16;
    assert_names_the_failure_and_nothing_more("chain mid-run", status, &out["body"], &[]);
    drop(server);

    // Facilitator: the chain answers, the facilitator does not.
    let dir = tempfile::tempdir().unwrap();
    let mut env = payment_env(&chain, &dir.path().join("store.sqlite"));
    env.push(("AGENTREP_FACILITATOR_URL", dead.clone()));
    let mut server = serve(&env);
    let base = server.serving();
    let out = OfficialBuyer::FetchV2.pay(&format!("{base}/audit/{seller}"), &payer, 250_000).await;
    let status = out["status"].as_u64().unwrap_or_default() as u16;
    assert_names_the_failure_and_nothing_more("facilitator", status, &out["body"], &[SECRET]);
    drop(server);

    // Store: another process breaks the store under the running server (its ledger and its
    // receipts lose their tables).
    let dir = tempfile::tempdir().unwrap();
    let store = dir.path().join("store.sqlite");
    let mut env = payment_env(&chain, &store);
    env.push(("AGENTREP_RELAYER_KEY", key_hex(&chain.relayer)));
    let mut server = serve(&env);
    let base = server.serving();
    let broken = rusqlite::Connection::open(&store).expect("the store");
    broken
        .execute_batch("ALTER TABLE payments RENAME TO payments_gone; ALTER TABLE receipts RENAME TO receipts_gone;")
        .expect("broken");
    let out = OfficialBuyer::FetchV2.pay(&format!("{base}/audit/{seller}"), &payer, 250_000).await;
    let status = out["status"].as_u64().unwrap_or_default() as u16;
    assert_names_the_failure_and_nothing_more("store, the payment ledger", status, &out["body"], &[]);
    let (status, body) = get(&format!("{base}/receipts?for={seller}")).await;
    assert_names_the_failure_and_nothing_more("store, a read", status, &body, &[]);
    assert_eq!(chain.balance(chain.pay_to).await.unwrap(), U256::ZERO, "nothing was charged");
    drop(server);
}

/// A client that trickles its headers, and two hundred that connect and send nothing, cannot hold
/// the server: each is cut off after the header-read timeout, and a normal client is served within
/// a second meanwhile (RELIABILITY.md, *Slow clients*). Every loop is bounded; loopback only.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn slow_clients_cannot_hold_the_server() {
    use std::io::{Read, Write};
    use std::net::TcpStream;
    use std::time::Instant;

    let mut server = serve(&[("AGENTREP_HEADER_READ_TIMEOUT_SECS", "2".to_owned())]);
    let base = server.serving();
    let authority = base.trim_start_matches("http://").split('/').next().expect("host:port").to_owned();

    // One header line every 300 ms, for at most 10 s: the server must close it at about 2 s.
    let trickle_at = authority.clone();
    let trickler = std::thread::spawn(move || {
        let mut s = TcpStream::connect(&trickle_at).expect("connects");
        s.set_read_timeout(Some(Duration::from_millis(300))).unwrap();
        let started = Instant::now();
        s.write_all(b"GET /api/agent/status HTTP/1.1\r\nHost: x\r\n").unwrap();
        let mut buf = [0u8; 512];
        while started.elapsed() < Duration::from_secs(10) {
            if s.write_all(b"X-Slow: 1\r\n").is_err() {
                break;
            }
            // Any answer (a 408) or the end of the stream means the server let go.
            match s.read(&mut buf) {
                Err(e) if matches!(e.kind(), std::io::ErrorKind::WouldBlock | std::io::ErrorKind::TimedOut) => {}
                _ => break,
            }
        }
        started.elapsed()
    });

    // Two hundred idle connections.
    let idle: Vec<TcpStream> = (0..200).map(|_| TcpStream::connect(&authority).expect("connects")).collect();
    let started = Instant::now();
    let (status, _) = get(&format!("{base}/status")).await;
    let served_in = started.elapsed();
    assert_eq!(status, 200);
    assert!(served_in < Duration::from_secs(1), "a normal client waited {served_in:?} beside 200 idle connections");

    let held = tokio::task::spawn_blocking(move || trickler.join().expect("trickler")).await.unwrap();
    assert!(held < Duration::from_secs(5), "a trickling client held its connection for {held:?}");
    assert!(held >= Duration::from_millis(1_500), "cut off before the header-read timeout: {held:?}");

    // The idle ones are closed by the same timeout: a read sees the end of the stream (or a 408,
    // or a reset), never a read that times out on a connection still open.
    tokio::task::spawn_blocking(move || {
        for mut s in idle.into_iter().take(20) {
            s.set_read_timeout(Some(Duration::from_secs(5))).unwrap();
            let mut buf = [0u8; 64];
            match s.read(&mut buf) {
                Ok(n) => assert!(n == 0 || buf[..n].starts_with(b"HTTP/1.1 408"), "an idle connection got an answer"),
                Err(e) => assert!(
                    !matches!(e.kind(), std::io::ErrorKind::WouldBlock | std::io::ErrorKind::TimedOut),
                    "an idle connection stayed open: {e}"
                ),
            }
        }
    })
    .await
    .unwrap();
}

/// An HTTP/2 connection (prior knowledge, as `curl --http2-prior-knowledge` opens one) that goes
/// quiet after its preface is closed after `AGENTREP_IDLE_TIMEOUT_SECS` (2 s here): hyper never
/// times out an idle HTTP/2 connection, and a client answering no frame could hold one for ever.
/// Bounded (10 s at most), loopback only.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_idle_http2_connection_is_closed_after_the_idle_timeout() {
    use std::io::{Read, Write};
    use std::net::TcpStream;
    use std::time::Instant;

    let mut server = serve(&[("AGENTREP_IDLE_TIMEOUT_SECS", "2".to_owned())]);
    let base = server.serving();
    let authority = base.trim_start_matches("http://").split('/').next().expect("host:port").to_owned();
    let held = tokio::task::spawn_blocking(move || {
        let mut s = TcpStream::connect(&authority).expect("connects");
        // The client preface and an empty SETTINGS frame, then nothing.
        s.write_all(b"PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n").unwrap();
        s.write_all(&[0, 0, 0, 4, 0, 0, 0, 0, 0]).unwrap();
        s.set_read_timeout(Some(Duration::from_millis(500))).unwrap();
        let started = Instant::now();
        let mut buf = [0u8; 1024];
        let mut answered = 0;
        while started.elapsed() < Duration::from_secs(10) {
            match s.read(&mut buf) {
                Ok(0) => break,
                Ok(n) => answered += n,
                Err(e) if matches!(e.kind(), std::io::ErrorKind::WouldBlock | std::io::ErrorKind::TimedOut) => {}
                Err(_) => break,
            }
        }
        assert!(answered >= 9, "the server spoke HTTP/2 (its SETTINGS)");
        started.elapsed()
    })
    .await
    .unwrap();
    assert!(held < Duration::from_secs(5), "an idle HTTP/2 connection was held for {held:?}");
    assert!(held >= Duration::from_millis(1_500), "closed before the idle timeout: {held:?}");
    let (status, _) = get(&format!("{base}/status")).await;
    assert_eq!(status, 200, "and the server serves on");
}

/// The connection cap holds: with `AGENTREP_MAX_CONNECTIONS=4`, four clients that connect and send
/// nothing hold every slot, a fifth waits in the kernel's backlog and is served once the
/// header-read timeout (2 s) has closed the idle four. Bounded, loopback only.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_connection_cap_makes_newcomers_wait_for_a_free_slot() {
    use std::net::TcpStream;
    use std::time::Instant;

    let mut server =
        serve(&[("AGENTREP_HEADER_READ_TIMEOUT_SECS", "2".to_owned()), ("AGENTREP_MAX_CONNECTIONS", "4".to_owned())]);
    let base = server.serving();
    let authority = base.trim_start_matches("http://").split('/').next().expect("host:port").to_owned();
    let idle: Vec<TcpStream> = (0..4).map(|_| TcpStream::connect(&authority).expect("connects")).collect();
    // Let the server accept all four before the newcomer arrives.
    tokio::time::sleep(Duration::from_millis(300)).await;
    let started = Instant::now();
    let client = reqwest::Client::builder().timeout(Duration::from_secs(10)).build().unwrap();
    let status = client.get(format!("{base}/status")).send().await.expect("served once a slot frees").status();
    let waited = started.elapsed();
    assert_eq!(status, 200);
    assert!(waited >= Duration::from_millis(1_000), "served at once with every slot held: {waited:?}");
    assert!(waited < Duration::from_secs(6), "a slot never freed: {waited:?}");
    drop(idle);
}
