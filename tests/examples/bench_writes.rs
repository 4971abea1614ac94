//! The write path and the events (`make bench`, `BENCH_ONLY=payments`), against the real
//! `agentrep serve` binary on loopback:
//!
//! 1. Durable signed receipts a second (`POST /receipt`: the body and the signed message parsed,
//!    the EIP-191 signer recovered, one commit with `synchronous = FULL`), from one client and
//!    from 16 at once, against the floor measured in the same run on the same disk: single-row
//!    SQLite commits with the store's pragmas, one after another.
//! 2. After a new snapshot, `SUBSCRIPTIONS` score-change subscriptions diffed and their
//!    deliveries enqueued (`Store::diff_subscriptions` with the server's event bodies), in
//!    seconds.
//! 3. Delivery throughput: the server started on that store with 200 deliveries in flight, to a
//!    receiver on loopback that answers 204, deliveries a second until every one is recorded.
//!
//! usage: bench_writes [receipts (2000)] [runs (5)] [dir (temp)] [subscriptions (1000000)];
//! prints one JSON line.

use std::collections::HashMap;
use std::convert::Infallible;
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::sync::Arc;
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::{Duration, Instant};

use agentrep_store::{ScoreChange, Store};
use alloy::signers::SignerSync;
use alloy::signers::local::PrivateKeySigner;
use futures::StreamExt;
use serde_json::{Value, json};

/// Single-row commits, one after another, with the store's pragmas: the disk's floor for a
/// durable write through SQLite.
fn sqlite_floor(dir: &Path, n: usize) -> f64 {
    let path = dir.join(format!("bench-writes-floor-{}.sqlite", std::process::id()));
    let conn = rusqlite::Connection::open(&path).expect("opens");
    conn.pragma_update(None, "journal_mode", "WAL").expect("wal");
    conn.pragma_update(None, "synchronous", "FULL").expect("full");
    conn.execute("CREATE TABLE t (id INTEGER PRIMARY KEY, v TEXT NOT NULL)", []).expect("creates");
    let started = Instant::now();
    for i in 0..n {
        conn.execute("INSERT INTO t (v) VALUES (?1)", [format!("row {i}")]).expect("commits");
    }
    let rate = n as f64 / started.elapsed().as_secs_f64();
    drop(conn);
    remove_db(&path);
    rate
}

fn remove_db(path: &Path) {
    for suffix in ["", "-wal", "-shm"] {
        let _ = std::fs::remove_file(format!("{}{suffix}", path.display()));
    }
}

/// `agentrep serve` on an empty snapshots folder (writes need no snapshot) with `store`.
struct Server {
    child: Child,
    base: String,
}

impl Server {
    fn start(dir: &Path, store: &Path, env: &[(&str, &str)]) -> Self {
        let snapshots = dir.join(format!("bench-writes-snapshots-{}", std::process::id()));
        std::fs::create_dir_all(&snapshots).expect("snapshots folder");
        let mut child = Command::new(agentrep_tests::agentrep_binary())
            .args(["serve", "--snapshots"])
            .arg(&snapshots)
            .args(["--addr", "127.0.0.1:0"])
            .env("AGENTREP_STORE", store)
            .env("RUST_LOG", "warn")
            .envs(env.iter().copied())
            .stdout(Stdio::piped())
            .stderr(Stdio::null())
            .spawn()
            .expect("agentrep starts");
        let stdout = child.stdout.take().expect("piped");
        let mut lines = std::io::BufRead::lines(std::io::BufReader::new(stdout));
        let base = lines
            .find_map(|l| l.ok().and_then(|l| l.strip_prefix("agentrep is serving on ").map(str::to_owned)))
            .expect("serving line");
        std::thread::spawn(move || for _ in lines {});
        Self { child, base }
    }
}

impl Drop for Server {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

fn receipt_bodies(n: usize) -> Vec<Value> {
    let keys: Vec<PrivateKeySigner> = (0..50).map(|_| PrivateKeySigner::random()).collect();
    let agent = "0x00000000000000000000000000000000000a6e27";
    let now_ms = chrono::Utc::now().timestamp_millis();
    (0..n)
        .map(|i| {
            let key = &keys[i % keys.len()];
            let buyer = alloy::hex::encode_prefixed(key.address());
            let message = format!(
                "MainStreet receipt\nbuyer: {buyer}\nagent: {agent}\nsuccess: true\nrating: {}\ntimestamp={}",
                i % 101,
                now_ms + i as i64
            );
            let signature = alloy::hex::encode_prefixed(key.sign_message_sync(message.as_bytes()).expect("signs").as_bytes());
            json!({ "buyerAddr": buyer, "agentAddr": agent, "success": true, "rating": i % 101, "message": message, "signature": signature })
        })
        .collect()
}

/// Receipts a second through the binary, `clients` at once; every one must be acknowledged.
async fn receipts(dir: &Path, bodies: &[Value], clients: usize, round: usize) -> f64 {
    let store = dir.join(format!("bench-writes-{}-{clients}-{round}.sqlite", std::process::id()));
    let server = Server::start(dir, &store, &[("AGENTREP_WRITE_LIMIT_PER_HOUR", "1000000000")]);
    let http = reqwest::Client::new();
    let url = format!("{}/receipt", server.base);
    let started = Instant::now();
    let acked = futures::stream::iter(bodies)
        .map(|b| {
            let (http, url) = (http.clone(), url.clone());
            async move { http.post(&url).json(b).send().await.is_ok_and(|r| r.status() == 200) }
        })
        .buffer_unordered(clients)
        .filter(|ok| std::future::ready(*ok))
        .count()
        .await;
    let rate = bodies.len() as f64 / started.elapsed().as_secs_f64();
    assert_eq!(acked, bodies.len(), "every receipt acknowledged");
    drop(server);
    remove_db(&store);
    rate
}

/// A receiver on loopback answering 204 to everything, counting what it got.
async fn receiver() -> (u16, Arc<AtomicU64>) {
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.expect("binds");
    let port = listener.local_addr().expect("addr").port();
    let count = Arc::new(AtomicU64::new(0));
    let counted = count.clone();
    tokio::spawn(async move {
        loop {
            let Ok((stream, _)) = listener.accept().await else { continue };
            let counted = counted.clone();
            tokio::spawn(async move {
                let service = hyper::service::service_fn(move |_req| {
                    counted.fetch_add(1, Ordering::Relaxed);
                    async {
                        Ok::<_, Infallible>(
                            hyper::Response::builder()
                                .status(204)
                                .body(http_body_util::Empty::<bytes::Bytes>::new())
                                .expect("response"),
                        )
                    }
                });
                let _ = hyper::server::conn::http1::Builder::new()
                    .serve_connection(hyper_util::rt::TokioIo::new(stream), service)
                    .await;
            });
        }
    });
    (port, count)
}

/// `subscriptions` subscriptions over a tenth as many wallets, 10 each, baselined at 50, in one
/// transaction (the store's own API commits one at a time).
fn seed_subscriptions(path: &Path, subscriptions: usize, url: &str) {
    drop(Store::open(path).expect("migrates"));
    let mut conn = rusqlite::Connection::open(path).expect("opens");
    let tx = conn.transaction().expect("begins");
    {
        let mut insert = tx
            .prepare(
                "INSERT INTO webhook_subscriptions (subscriber, watched, url, threshold_delta, secret, created_at, grace_until, last_score)
                 VALUES (?1, ?2, ?3, 5, 'whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw', 0, 4000000000, 50)",
            )
            .expect("prepares");
        for i in 0..subscriptions {
            insert.execute(rusqlite::params![format!("0x{i:040x}"), wallet(i / 10), url]).expect("inserts");
        }
    }
    tx.commit().expect("commits");
}

fn wallet(i: usize) -> String {
    format!("0x{:040x}", 0xabc0_0000_0000_u64 + i as u64)
}

/// Diffs every subscription against new scores where every `moved_every`-th wallet moved by 10;
/// returns seconds and deliveries enqueued.
fn diff(path: &Path, subscriptions: usize, moved_every: usize) -> (f64, u64) {
    let store = Store::open(path).expect("opens");
    let scores: HashMap<String, u8> =
        (0..subscriptions / 10).map(|i| (wallet(i), if i % moved_every == 0 { 60 } else { 50 })).collect();
    let started = Instant::now();
    let now = chrono::Utc::now().timestamp();
    let report = store
        .diff_subscriptions(
            now,
            |a| scores.get(a).copied(),
            |c: &ScoreChange<'_>| {
                let url = format!("/api/agent/score/{}", c.subscription.watched);
                agentrep_server::events::score_changed(
                    c,
                    "2026-11-25T00:00:00Z",
                    "2026-11-25-bench",
                    Some(agentrep_publish::wire::Decision::Proceed),
                    url,
                )
            },
        )
        .expect("diffs");
    (started.elapsed().as_secs_f64(), report.enqueued)
}

/// Starts the server on the store and waits (at most 10 minutes) until every delivery is
/// recorded as delivered; returns deliveries a second from the first received to the last
/// recorded.
async fn deliver(dir: &Path, path: &Path, count: &AtomicU64, expected: u64) -> f64 {
    let server =
        Server::start(dir, path, &[("AGENTREP_WEBHOOK_ALLOW_PRIVATE", "1"), ("AGENTREP_WEBHOOK_CONCURRENCY", "200")]);
    let deadline = Instant::now() + Duration::from_secs(600);
    while count.load(Ordering::Relaxed) == 0 {
        assert!(Instant::now() < deadline, "no delivery arrived");
        tokio::time::sleep(Duration::from_millis(5)).await;
    }
    let started = Instant::now();
    let store = Store::open(path).expect("opens");
    loop {
        let (_, delivered, _) = store.delivery_counts().expect("counts");
        if delivered >= expected {
            break;
        }
        assert!(Instant::now() < deadline, "{delivered} of {expected} delivered in 10 minutes");
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
    let rate = expected as f64 / started.elapsed().as_secs_f64();
    drop(server);
    rate
}

fn median(mut v: Vec<f64>) -> f64 {
    v.sort_by(f64::total_cmp);
    v[v.len() / 2]
}

fn main() {
    let mut args = std::env::args().skip(1);
    let n: usize = args.next().and_then(|a| a.parse().ok()).unwrap_or(2_000);
    let runs: usize = args.next().and_then(|a| a.parse().ok()).unwrap_or(5);
    let dir: PathBuf = args.next().map(PathBuf::from).unwrap_or_else(std::env::temp_dir);
    let subscriptions: usize = args.next().and_then(|a| a.parse().ok()).unwrap_or(1_000_000);
    std::fs::create_dir_all(&dir).expect("bench folder");
    let rt = tokio::runtime::Builder::new_multi_thread().worker_threads(2).enable_all().build().expect("runtime");
    let bodies = receipt_bodies(n);
    let mut floor = Vec::new();
    let (mut one, mut many) = (Vec::new(), Vec::new());
    for round in 0..runs {
        floor.push(sqlite_floor(&dir, n));
        one.push(rt.block_on(receipts(&dir, &bodies, 1, round)));
        many.push(rt.block_on(receipts(&dir, &bodies, 16, round)));
    }
    let (floor_m, one_m, many_m) = (median(floor.clone()), median(one.clone()), median(many.clone()));

    let events = dir.join(format!("bench-writes-events-{}.sqlite", std::process::id()));
    remove_db(&events);
    let (port, count) = rt.block_on(receiver());
    seed_subscriptions(&events, subscriptions, &format!("http://127.0.0.1:{port}/hook"));
    // One wallet in 20 moves: 5 % of the subscriptions fire.
    let (diff_secs, enqueued) = diff(&events, subscriptions, 20);
    let delivered_per_s = rt.block_on(deliver(&dir, &events, &count, enqueued));
    remove_db(&events);

    let fmt = |v: &[f64]| v.iter().map(|x| format!("{x:.0}")).collect::<Vec<_>>().join(",");
    println!(
        "{{\"receipts\":{n},\"runs\":{runs},\"sqlite_commit_floor_per_s\":[{}],\"median_floor_per_s\":{floor_m:.0},\"receipts_one_client_per_s\":[{}],\"median_one_client_per_s\":{one_m:.0},\"receipts_16_clients_per_s\":[{}],\"median_16_clients_per_s\":{many_m:.0},\"one_client_vs_floor\":{:.2},\"16_clients_vs_floor\":{:.2},\"subscriptions\":{subscriptions},\"diff_and_enqueue_s\":{diff_secs:.2},\"enqueued\":{enqueued},\"delivered_per_s_200_in_flight\":{delivered_per_s:.0}}}",
        fmt(&floor),
        fmt(&one),
        fmt(&many),
        one_m / floor_m,
        many_m / floor_m
    );
}
