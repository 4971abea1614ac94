//! The original service's own clients against agentrep on loopback: its SDK (every read
//! function whose route agentrep serves, each answer checked against the SDK's `index.d.ts`) and
//! its CLI's read commands (exit 0 with the expected output). The npm package `mainstreet-oracle`
//! 0.9.2 is installed by `make setup` (`scripts/fetch-test-clients.sh`).
//!
//! Its writes (`postReceipt`, `claimBadge`, `addWatch`, `subscribeWebhook`) are made with real
//! keys (viem) and read back with its own reads (`receipts`, `badges`, `watchlist`,
//! `listWebhooks`) and its CLI's `receipts` and `watchlist`.

mod schemathesis;

use std::path::PathBuf;
use std::process::Command;

use agentrep_tests::{RunningServer, shared_world};
use serde_json::{Value, json};

/// Where `make setup` installs the clients' npm packages.
pub(crate) fn node_modules() -> PathBuf {
    std::env::var_os("AGENTREP_CLIENTS_NODE_MODULES").map(PathBuf::from).unwrap_or_else(|| {
        PathBuf::from(env!("CARGO_MANIFEST_DIR")).parent().expect("workspace").join(".tools/clients/node_modules")
    })
}

fn mainstreet() -> PathBuf {
    let pkg = node_modules().join("mainstreet-oracle");
    assert!(pkg.join("package.json").is_file(), "{} is missing: run `make setup`", pkg.display());
    pkg
}

/// Addresses and words from the served snapshot the clients are called with.
async fn fixtures(base: &str) -> Value {
    let lb: Value = reqwest::get(format!("{base}/leaderboard?limit=50")).await.unwrap().json().await.unwrap();
    let alive: Vec<&Value> = lb["results"].as_array().unwrap().iter().filter(|e| e["endpointAlive"] == true).collect();
    let first = alive[0];
    let description = first["description"].as_str().unwrap().to_owned();
    let word = description
        .split(|c: char| !c.is_ascii_alphabetic())
        .filter(|w| w.len() >= 4)
        .max_by_key(|w| w.len())
        .unwrap()
        .to_lowercase();
    json!({
        "alive": first["payTo"],
        "aliveScore": first["score"],
        "second": alive[1]["payTo"],
        "unknown": "0x00000000000000000000000000000000000000aa",
        "tag": first["tags"].get(0).cloned().unwrap_or(json!("data")),
        "word": word,
        "intent": description,
    })
}

fn node(args: &[&str], env: &[(&str, &str)]) -> (bool, String, String) {
    let mut cmd = Command::new("timeout");
    cmd.arg("120").arg("node").args(args).env("AGENTREP_CLIENTS_NODE_MODULES", node_modules());
    for (k, v) in env {
        cmd.env(k, v);
    }
    let out = cmd.output().expect("node runs (Node.js >= 20 is required)");
    let strip = |b: &[u8]| {
        let s = String::from_utf8_lossy(b).into_owned();
        // The CLI always prints ANSI colours.
        let mut out = String::with_capacity(s.len());
        let mut chars = s.chars().peekable();
        while let Some(c) = chars.next() {
            if c == '\u{1b}' && chars.peek() == Some(&'[') {
                for c in chars.by_ref() {
                    if c.is_ascii_alphabetic() {
                        break;
                    }
                }
            } else {
                out.push(c);
            }
        }
        out
    };
    (out.status.success(), strip(&out.stdout), strip(&out.stderr))
}

#[tokio::test(flavor = "multi_thread")]
async fn the_original_sdk_reads_every_route_it_knows() {
    mainstreet();
    let s = RunningServer::start(&shared_world().snapshots());
    let args = fixtures(&s.base).await;
    let script = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("clients/js/sdk_reads.mjs");
    let origin = format!("http://{}", s.addr);
    let (ok, stdout, stderr) =
        tokio::task::spawn_blocking(move || node(&[script.to_str().unwrap(), &origin, &args.to_string()], &[]))
            .await
            .unwrap();
    let report: Value = serde_json::from_str(stdout.trim()).unwrap_or_else(|_| panic!("{stdout}\n{stderr}"));
    assert!(ok && report["ok"] == true, "the SDK failed: {report}\n{stderr}");
    let r = &report["results"];
    assert_eq!(r["score"]["billed"], "free");
    assert_eq!(r["scoreUnknown"]["score"], Value::Null, "an unknown address is not a zero");
    assert_eq!(r["leaderboard"]["count"], 5);
    assert!(r["leaderboard"]["results"][0]["sparkline7d"].is_array());
    assert!(r["compare"]["a"]["indexed"] == true && r["compare"]["b"]["indexed"] == true);
    assert!(r["movers"]["note"].is_null(), "movers carries no note when there is data");
    assert!(r["pick"]["payTo"].is_string());
    assert_eq!(r["vetUnknown"], "score null < 30");
}

#[tokio::test(flavor = "multi_thread")]
async fn the_original_cli_read_commands_exit_zero() {
    let cli = mainstreet().join("bin/mainstreet.js");
    let s = RunningServer::start(&shared_world().snapshots());
    let f = fixtures(&s.base).await;
    let origin = format!("http://{}", s.addr);
    let (a, b) = (f["alive"].as_str().unwrap().to_owned(), f["second"].as_str().unwrap().to_owned());
    let (word, tag) = (f["word"].as_str().unwrap().to_owned(), f["tag"].as_str().unwrap().to_owned());
    let intent = f["intent"].as_str().unwrap().to_owned();
    let score = f["aliveScore"].to_string();
    // Mixed case, as a user types it: the CLI passes addresses through unchanged.
    let mixed = format!("0x{}", a[2..].to_uppercase());
    let commands: Vec<(Vec<String>, Vec<String>)> = vec![
        (vec!["score".into(), mixed.clone()], vec![format!("{score}/100"), "endpoint: alive".into()]),
        (vec![a.clone()], vec![format!("{score}/100")]),
        (vec!["leaderboard".into(), "3".into()], vec!["1.".into(), "3.".into()]),
        (vec!["compare".into(), a.clone(), b.clone()], vec!["A:".into(), "B:".into()]),
        (vec!["search".into(), word.clone()], vec!["[agent]".into()]),
        (vec!["recommend".into(), a.clone(), "2".into()], vec!["Similar to".into()]),
        (vec!["history".into(), a.clone(), "3".into()], vec!["days of history".into(), "/100".into()]),
        (vec!["stats".into()], vec!["Indexed total:".into(), "Uptime:".into()]),
        (vec!["movers".into(), "2".into()], vec!["Gainers:".into()]),
        (vec!["featured".into()], vec!["/100".into()]),
        (vec!["me".into()], vec!["agentrep".into(), "registry:".into()]),
        (vec!["tags".into(), "3".into()], vec![" × ".into()]),
        (vec!["tagged".into(), tag.clone(), "2".into()], vec![format!("\"{tag}\"")]),
        (
            intent
                .split_whitespace()
                .map(str::to_owned)
                .chain(["--limit".into(), "2".into(), "--max".into(), "1".into()])
                .fold(vec!["match".to_owned()], |mut v, w| {
                    v.push(w);
                    v
                }),
            vec!["match:".into(), "→ http".into()],
        ),
        (
            std::iter::once("pick".to_owned()).chain(intent.split_whitespace().map(str::to_owned)).collect(),
            vec!["\"payTo\"".into()],
        ),
        (vec!["catalog".into()], vec!["GET /api/agent/score/{address}".into()]),
        (vec!["audit".into(), a.clone()], vec!["/api/agent/audit/".into()]),
    ];
    let cli = cli.to_str().unwrap().to_owned();
    tokio::task::spawn_blocking(move || {
        for (args, expected) in commands {
            let mut argv = vec![cli.as_str()];
            argv.extend(args.iter().map(String::as_str));
            let (ok, stdout, stderr) = node(&argv, &[("MAINSTREET_ORIGIN", &origin)]);
            assert!(ok, "mainstreet {} exited non-zero:\n{stdout}\n{stderr}", args.join(" "));
            for e in expected {
                assert!(stdout.contains(&e), "mainstreet {}: no {e:?} in\n{stdout}", args.join(" "));
            }
        }
    })
    .await
    .unwrap();
}

#[tokio::test(flavor = "multi_thread")]
async fn the_original_sdk_writes_and_reads_back() {
    mainstreet();
    let store = tempfile::tempdir().unwrap();
    let mut config = agentrep_server::ServerConfig {
        snapshots: shared_world().snapshots(),
        reload_interval: std::time::Duration::from_millis(100),
        identity: agentrep_server::ServiceIdentity::default(),
        payments: agentrep_server::PaymentSettings::default(),
        ..agentrep_server::ServerConfig::default()
    };
    config.payments.store = Some(store.path().join("store.sqlite"));
    // The webhook goes to a loopback port that nobody serves (no event fires while the snapshot stays).
    config.writes.allow_private_targets = true;
    let s = RunningServer::start_config(config);
    let f = fixtures(&s.base).await;
    let agent = f["alive"].as_str().unwrap().to_owned();
    let args = json!({ "agent": agent, "hookUrl": "http://127.0.0.1:9/hook" });
    let script = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("clients/js/sdk_writes.mjs");
    let origin = format!("http://{}", s.addr);
    let (ok, stdout, stderr) = {
        let origin = origin.clone();
        tokio::task::spawn_blocking(move || node(&[script.to_str().unwrap(), &origin, &args.to_string()], &[]))
            .await
            .unwrap()
    };
    let report: Value = serde_json::from_str(stdout.trim()).unwrap_or_else(|_| panic!("{stdout}\n{stderr}"));
    assert!(ok && report["ok"] == true, "the SDK failed: {report}\n{stderr}");
    // The CLI reads them back.
    let cli = mainstreet().join("bin/mainstreet.js").to_str().unwrap().to_owned();
    let subscriber = report["subscriber"].as_str().unwrap().to_owned();
    tokio::task::spawn_blocking(move || {
        let (ok, stdout, stderr) = node(&[&cli, "receipts", &agent], &[("MAINSTREET_ORIGIN", &origin)]);
        assert!(
            ok && stdout.contains("(1 receipt)")
                && stdout.contains("success rate: 100%")
                && stdout.contains("88.0/100"),
            "{stdout}\n{stderr}"
        );
        let (ok, stdout, stderr) = node(&[&cli, "watchlist", &subscriber], &[("MAINSTREET_ORIGIN", &origin)]);
        assert!(ok && stdout.contains("(1 agents)") && stdout.contains("main seller"), "{stdout}\n{stderr}");
    })
    .await
    .unwrap();
}
