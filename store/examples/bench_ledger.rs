//! How many paid answers a second the payment ledger records durably: each is four commits
//! (claim, keep the answer, record the broadcast, settle) with `synchronous = FULL` in WAL mode,
//! i.e. four WAL syncs, the cost every paid 200 waits for. Run on one thread and on one thread
//! per core (the server claims from many requests at once), against a baseline of bare
//! `fsync`s of a 4 KiB append in the same folder (the disk's floor for durable commits).
//!
//! `cargo run --release -p agentrep-store --example bench_ledger -- [payments] [runs] [dir]`
//! prints one JSON line: payments per second per run and as medians, and syncs per second.

use std::io::Write;
use std::path::Path;
use std::sync::Arc;
use std::time::Instant;

use agentrep_store::ledger::Settlement;
use agentrep_store::{Claim, PaymentClaim, Store, StoredAnswer};

fn claim(worker: usize, i: usize) -> PaymentClaim {
    PaymentClaim {
        payer: format!("0x{worker:040x}"),
        nonce: format!("0x{i:064x}"),
        x402_version: 2,
        network: "eip155:8453".to_owned(),
        asset: "0x833589fcd6edb6e08f4c7c32d4f71b54bda02913".to_owned(),
        pay_to: "0x00000000000000000000000000000000000a6e27".to_owned(),
        value: "250000".to_owned(),
        price: 250_000,
        route: "/audit/{agentAddress}".to_owned(),
        resource: "http://127.0.0.1/api/agent/audit/0x01".to_owned(),
        payload_digest: format!("{worker}-{i}"),
        payment_id: None,
        valid_before: 2_000_000_000,
    }
}

fn lifecycle(store: &Store, worker: usize, i: usize, answer: &StoredAnswer) {
    let Claim::New(id) = store.claim(&claim(worker, i), 1).expect("claims") else { panic!("a fresh payment") };
    store.begin_settlement(id, answer, 2).expect("keeps the answer");
    store.record_broadcast(id, "0xabc", 3).expect("records the broadcast");
    store.finish_settlement(id, &Settlement::Settled { tx_hash: "0xabc".to_owned() }, Some("{}"), 4).expect("settles");
}

fn run(dir: &Path, payments: usize, threads: usize, round: usize) -> f64 {
    let path = dir.join(format!("bench-ledger-{}-{threads}-{round}.sqlite", std::process::id()));
    let store = Arc::new(Store::open(&path).expect("opens"));
    let answer = StoredAnswer { status: 200, content_type: "application/json".to_owned(), body: vec![b'x'; 8 * 1024] };
    let started = Instant::now();
    std::thread::scope(|s| {
        for worker in 0..threads {
            let (store, answer) = (store.clone(), answer.clone());
            s.spawn(move || {
                for i in (worker..payments).step_by(threads) {
                    lifecycle(&store, worker, i, &answer);
                }
            });
        }
    });
    let rate = payments as f64 / started.elapsed().as_secs_f64();
    drop(store);
    for suffix in ["", "-wal", "-shm"] {
        let _ = std::fs::remove_file(format!("{}{suffix}", path.display()));
    }
    rate
}

fn fsyncs(dir: &Path, n: usize) -> f64 {
    let path = dir.join(format!("bench-ledger-fsync-{}.bin", std::process::id()));
    let mut f = std::fs::File::create(&path).expect("creates");
    let block = [7u8; 4096];
    let started = Instant::now();
    for _ in 0..n {
        f.write_all(&block).expect("writes");
        f.sync_data().expect("syncs");
    }
    let rate = n as f64 / started.elapsed().as_secs_f64();
    let _ = std::fs::remove_file(&path);
    rate
}

fn median(mut v: Vec<f64>) -> f64 {
    v.sort_by(f64::total_cmp);
    v[v.len() / 2]
}

fn main() {
    let mut args = std::env::args().skip(1);
    let payments: usize = args.next().and_then(|a| a.parse().ok()).unwrap_or(2_000);
    let runs: usize = args.next().and_then(|a| a.parse().ok()).unwrap_or(5);
    let dir = args.next().map(std::path::PathBuf::from).unwrap_or_else(std::env::temp_dir);
    let cores = std::thread::available_parallelism().map_or(2, |n| n.get());
    let one: Vec<f64> = (0..runs).map(|r| run(&dir, payments, 1, r)).collect();
    let many: Vec<f64> = (0..runs).map(|r| run(&dir, payments, cores, r)).collect();
    let syncs: Vec<f64> = (0..runs).map(|_| fsyncs(&dir, payments)).collect();
    let fmt = |v: &[f64]| v.iter().map(|x| format!("{x:.0}")).collect::<Vec<_>>().join(",");
    let (m1, mn, ms) = (median(one.clone()), median(many.clone()), median(syncs.clone()));
    println!(
        "{{\"payments\":{payments},\"runs\":{runs},\"threads\":{cores},\"one_thread_per_s\":[{}],\"median_one_thread_per_s\":{m1:.0},\"all_threads_per_s\":[{}],\"median_all_threads_per_s\":{mn:.0},\"fsync_per_s\":[{}],\"median_fsync_per_s\":{ms:.0},\"commits_per_payment\":4,\"one_thread_commits_vs_fsync_floor\":{:.2}}}",
        fmt(&one),
        fmt(&many),
        fmt(&syncs),
        m1 * 4.0 / ms
    );
}
