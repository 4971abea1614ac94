//! Users' writes against the real `agentrep serve` binary: signed receipts, badge claims and
//! watchlists (signatures made with real keys), webhook subscriptions and their limits, and the
//! events a new snapshot raises, delivered to a receiver on loopback that verifies every delivery
//! with the official Standard Webhooks library (npm `standardwebhooks`); then the server killed
//! with SIGKILL while it writes and while deliveries are in flight.

mod backup;
mod crash;
mod deliveries;
mod signed;

use std::collections::BTreeMap;
use std::io::{BufRead, BufReader};
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

use agentrep_tests::process::{Process, demo_dir, root};
use agentrep_tests::test_clients;
use alloy::signers::SignerSync;
use alloy::signers::local::PrivateKeySigner;
use serde_json::{Value, json};

/// A snapshots folder holding three consecutive days of the demo's snapshots, `current` on the
/// first; [`Snapshots::serve`] moves it as a rebuild would.
#[derive(Debug)]
pub struct Snapshots {
    dir: tempfile::TempDir,
    /// The three snapshot ids, oldest first.
    pub ids: Vec<String>,
}

impl Snapshots {
    /// Copies the demo's newest three snapshots.
    pub fn copied() -> Self {
        let demo = demo_dir().join("snapshots");
        let mut ids: Vec<String> = std::fs::read_dir(&demo)
            .expect("demo snapshots")
            .filter_map(|e| e.ok().map(|e| e.file_name().to_string_lossy().into_owned()))
            .filter(|n| n.starts_with("20"))
            .collect();
        ids.sort();
        let ids: Vec<String> = ids[ids.len() - 3..].to_vec();
        let dir = tempfile::tempdir().expect("temp dir");
        let snapshots = dir.path().join("snapshots");
        for id in &ids {
            agentrep_tests::copy_dir(&demo.join(id), &snapshots.join(id)).expect("copies");
        }
        let s = Self { dir, ids };
        s.serve(0);
        s
    }

    /// The snapshots folder.
    pub fn path(&self) -> PathBuf {
        self.dir.path().join("snapshots")
    }

    /// A folder for the store and anything else of the deployment.
    pub fn home(&self) -> &Path {
        self.dir.path()
    }

    /// Points `current` at the `i`-th snapshot, atomically (a new link renamed over the old).
    pub fn serve(&self, i: usize) {
        let tmp = self.path().join("current.tmp");
        let _ = std::fs::remove_file(&tmp);
        std::os::unix::fs::symlink(&self.ids[i], &tmp).expect("link");
        std::fs::rename(&tmp, self.path().join("current")).expect("swap");
    }

    /// Scores of the `i`-th snapshot, by address.
    pub fn scores(&self, i: usize) -> BTreeMap<String, u8> {
        let csv = std::fs::read_to_string(self.path().join(&self.ids[i]).join("scores.csv")).expect("scores.csv");
        let mut lines = csv.lines();
        let header: Vec<&str> = lines.next().expect("header").split(',').collect();
        let (a, s) =
            (header.iter().position(|h| *h == "address").unwrap(), header.iter().position(|h| *h == "score").unwrap());
        lines
            .filter_map(|l| {
                let cols: Vec<&str> = l.split(',').collect();
                Some((cols.get(a)?.to_string(), cols.get(s)?.parse().ok()?))
            })
            .collect()
    }

    /// Wallets whose score moves from snapshot `i` to `j`, with both scores, biggest moves first.
    pub fn moved(&self, i: usize, j: usize) -> Vec<(String, u8, u8)> {
        let (a, b) = (self.scores(i), self.scores(j));
        let mut moved: Vec<(String, u8, u8)> =
            a.iter().filter_map(|(addr, s)| b.get(addr).filter(|t| *t != s).map(|t| (addr.clone(), *s, *t))).collect();
        moved.sort_by_key(|(addr, s, t)| (std::cmp::Reverse(s.abs_diff(*t)), addr.clone()));
        moved
    }

    /// `agentrep serve` of these snapshots with the store beside them and `env`.
    pub fn start(&self, env: &[(&str, String)]) -> (Process, String) {
        let snapshots = self.path().display().to_string();
        let mut env: Vec<(&str, String)> = env.to_vec();
        env.push(("AGENTREP_STORE", self.home().join("store.sqlite").display().to_string()));
        let mut p = Process::start(&["serve", "--snapshots", &snapshots, "--addr", "127.0.0.1:0"], &env);
        let base = p.serving();
        (p, base)
    }
}

/// The webhook receiver (`receiver.mjs`) on loopback; killed on drop.
#[derive(Debug)]
pub struct Receiver {
    child: Child,
    pub port: u16,
}

impl Receiver {
    pub fn start() -> Self {
        let tools = test_clients();
        let mut child = Command::new("node")
            .arg(root().join("tests/writes/receiver.mjs"))
            .env("AGENTREP_CLIENTS_NODE_MODULES", tools.join("clients/node_modules"))
            .stdout(Stdio::piped())
            .stderr(Stdio::inherit())
            .spawn()
            .expect("node runs");
        let mut line = String::new();
        BufReader::new(child.stdout.take().expect("piped")).read_line(&mut line).expect("the receiver prints its port");
        let port = line.trim().strip_prefix("listening ").and_then(|p| p.parse().ok()).expect("a port");
        Self { child, port }
    }

    pub fn url(&self, path: &str) -> String {
        format!("http://127.0.0.1:{}{path}", self.port)
    }

    pub async fn control(&self, what: &str, body: Value) {
        let r = reqwest::Client::new().post(self.url(what)).json(&body).send().await.expect("receiver answers");
        assert!(r.status().is_success());
    }

    pub async fn log(&self) -> Vec<Value> {
        reqwest::get(self.url("/_log")).await.expect("receiver answers").json().await.expect("JSON")
    }

    /// Waits (up to `within`) until `done` accepts the log.
    pub async fn wait_until(&self, within: Duration, done: impl Fn(&[Value]) -> bool) -> Vec<Value> {
        let started = Instant::now();
        loop {
            let log = self.log().await;
            if done(&log) {
                return log;
            }
            assert!(
                started.elapsed() < within,
                "the receiver did not see what was expected within {within:?}: {log:#?}"
            );
            tokio::time::sleep(Duration::from_millis(200)).await;
        }
    }
}

impl Drop for Receiver {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// Now, Unix milliseconds.
pub fn now_ms() -> i64 {
    chrono::Utc::now().timestamp_millis()
}

/// EIP-191 signature of `message`, 0x hex.
pub fn sign(key: &PrivateKeySigner, message: &str) -> String {
    alloy::hex::encode_prefixed(key.sign_message_sync(message.as_bytes()).expect("signs").as_bytes())
}

/// 0x-lowercase address of a key.
pub fn addr(key: &PrivateKeySigner) -> String {
    alloy::hex::encode_prefixed(key.address())
}

/// The receipt message the original SDK's `buildReceiptMessage` writes.
pub fn receipt_message(buyer: &str, agent: &str, success: bool, rating: Option<u8>, at_ms: i64) -> String {
    let mut lines = vec![
        "MainStreet receipt".to_owned(),
        format!("buyer: {buyer}"),
        format!("agent: {agent}"),
        format!("success: {success}"),
    ];
    if let Some(r) = rating {
        lines.push(format!("rating: {r}"));
    }
    lines.push(format!("timestamp={at_ms}"));
    lines.join("\n")
}

/// A signed receipt body.
pub fn receipt(key: &PrivateKeySigner, agent: &str, rating: Option<u8>, at_ms: i64) -> Value {
    let message = receipt_message(&addr(key), agent, true, rating, at_ms);
    json!({
        "buyerAddr": addr(key), "agentAddr": agent, "success": true, "rating": rating,
        "message": message, "signature": sign(key, &message),
    })
}

pub async fn post(url: &str, body: &Value) -> (u16, Value, reqwest::header::HeaderMap) {
    post_as(url, body, None).await
}

/// POSTs as if through a proxy that names `client` in `X-Forwarded-For`.
pub async fn post_as(url: &str, body: &Value, client: Option<&str>) -> (u16, Value, reqwest::header::HeaderMap) {
    let mut req = reqwest::Client::new().post(url).json(body);
    if let Some(c) = client {
        req = req.header("x-forwarded-for", c);
    }
    let resp = req.send().await.expect("answers");
    let (status, headers) = (resp.status().as_u16(), resp.headers().clone());
    (status, resp.json().await.unwrap_or(Value::Null), headers)
}

pub async fn get(url: &str) -> (u16, Value) {
    let resp = reqwest::get(url).await.expect("answers");
    let status = resp.status().as_u16();
    (status, resp.json().await.unwrap_or(Value::Null))
}
