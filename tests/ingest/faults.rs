//! Faults during an ingest of the replayed world, each ending in the lake an undisturbed run
//! writes: a node that refuses ranges, rate-limits, stalls and drops connections; a reorg of the
//! last blocks between two runs; `agentrep ingest` killed mid-run and run again.

use std::fmt::Debug;
use std::path::Path;
use std::time::Duration;

use agentrep_lake::datasets::{
    FeedbackRow, FundingRow, LaunchObservationRow, LaunchRow, ListingRow, ProofRow, RegistrationRow, SettlementRow,
};
use agentrep_lake::{Lake, Row};
use agentrep_tests::agentrep_binary;
use agentrep_tests::chain::contracts::{IFiatToken, USDC};
use agentrep_tests::chain::reorg::{NewBlock, reorg};
use agentrep_tests::fixtures::{Fault, FaultKind, Faults, FaultyRpc, RangeShape, When};
use agentrep_tests::replayed::{CHAIN_SOURCES, ReplayedWorld, ingest, read_dated};
use alloy::primitives::{Address, U256};
use alloy::sol_types::SolCall;
use serde_json::json;

/// Every row the chain sources wrote, per dataset and day, as text (rows compare field by field).
fn contents(lake: &Lake, listings: bool) -> Vec<String> {
    fn part<R: Row + Debug>(lake: &Lake, out: &mut Vec<String>) {
        for (day, row) in read_dated::<R>(lake).expect("lake reads") {
            out.push(format!("{} {day} {row:?}", R::DATASET.name()));
        }
    }
    let mut out = Vec::new();
    if listings {
        part::<ListingRow>(lake, &mut out);
    }
    part::<SettlementRow>(lake, &mut out);
    part::<FundingRow>(lake, &mut out);
    part::<RegistrationRow>(lake, &mut out);
    part::<FeedbackRow>(lake, &mut out);
    part::<LaunchRow>(lake, &mut out);
    part::<LaunchObservationRow>(lake, &mut out);
    part::<ProofRow>(lake, &mut out);
    out
}

fn assert_same_lake(want: &Lake, got: &Lake, what: &str) {
    assert_same_rows(contents(want, true), contents(got, true), what);
}

fn assert_same_rows(want: Vec<String>, got: Vec<String>, what: &str) {
    assert!(!want.is_empty());
    let first = want.iter().zip(&got).position(|(a, b)| a != b);
    assert!(
        want == got,
        "{what}: {} rows undisturbed, {} here; first difference at {first:?}: {:?} vs {:?}",
        want.len(),
        got.len(),
        first.map(|i| &want[i]),
        first.map(|i| &got[i])
    );
}

/// A lake to ingest into (with the world's receipts, as the export job leaves them), its config
/// (in `dir/<name>-config/`) and the discovery servers the config names, alive while this is.
struct Prepared {
    lake: Lake,
    config: std::path::PathBuf,
    _bazaars: Vec<(String, agentrep_tests::fixtures::BazaarFixture)>,
}

fn prepare(world: &ReplayedWorld, dir: &Path, name: &str, rpc: &str) -> Prepared {
    let bazaars = world.bazaars();
    let config_dir = dir.join(format!("{name}-config"));
    std::fs::create_dir_all(&config_dir).expect("dir");
    let config = world.write_config(&config_dir, rpc, &bazaars);
    let lake = Lake::new(dir.join(name));
    world.seed_receipts(&lake).expect("receipts exported");
    Prepared { lake, config, _bazaars: bazaars }
}

/// An undisturbed ingest of `rpc` into `dir/name`.
async fn ingest_into(world: &ReplayedWorld, dir: &Path, name: &str, rpc: &str) -> Lake {
    let prepared = prepare(world, dir, name, rpc);
    ingest(prepared.lake.root(), &prepared.config, CHAIN_SOURCES).await.expect("ingests");
    prepared.lake
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_faulty_node_ends_in_the_same_lake() {
    let world = ReplayedWorld::shared();
    let anvil = world.node();
    let dir = tempfile::tempdir().expect("temp dir");
    let undisturbed = world.undisturbed_ingest();

    let faults = Faults::none()
        .range_limit(500, RangeShape::AlchemySuggested)
        .with(Fault::TooManyRequests { retry_after: None, json_body: true }, &["eth_getLogs"], When::Every(5))
        .with(Fault::Unavailable, &[], When::Seeded { one_in: 17, seed: 1 })
        .with(Fault::Timeout { hold: Duration::from_secs(7) }, &["eth_getLogs"], When::First(1))
        .with(Fault::Drop, &[], When::Seeded { one_in: 13, seed: 2 });
    let proxy = FaultyRpc::start(anvil.url(), faults);
    let faulty = ingest_into(world, dir.path(), "faulty", &proxy.url()).await;
    let injected = proxy.injected();
    for kind in [
        FaultKind::RangeTooLarge,
        FaultKind::TooManyRequests,
        FaultKind::Unavailable,
        FaultKind::Timeout,
        FaultKind::Dropped,
    ] {
        assert!(injected.get(kind) > 0, "{kind:?} fired: {injected:?}");
    }
    assert_same_lake(&undisturbed, &faulty, "through a faulty node");
}

/// A USDC payment as an `eth_sendTransaction` object.
fn payment(payer: Address, seller: Address, value: u64, nonce: u64) -> serde_json::Value {
    let transfer = IFiatToken::transferCall { to: seller, value: U256::from(value) }.abi_encode();
    json!({"from": payer, "to": USDC, "data": alloy::primitives::Bytes::from(transfer), "gas": "0x30000",
           "gasPrice": "0x77359400", "nonce": format!("0x{nonce:x}"), "value": "0x0"})
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_reorg_between_runs_is_repaired() {
    let world = ReplayedWorld::shared();
    let anvil = world.node();
    let dir = tempfile::tempdir().expect("temp dir");
    let lake = ingest_into(world, dir.path(), "before", anvil.url()).await;

    // The chain goes on after the world (anvil keeps states only from its load on, and a reorg
    // needs them): a payment A, a payment B, a closing block. Ingest. Then B and the closing
    // block give way to a payment C and a new closing block. Ingest again.
    let last = read_dated::<SettlementRow>(&lake).expect("reads").pop().expect("a settlement").1;
    let (payer, seller): (Address, Address) =
        (last.payer.parse().expect("address"), last.pay_to.parse().expect("address"));
    let head = anvil.block_number().await.expect("head");
    let block: serde_json::Value =
        anvil.rpc("eth_getBlockByNumber", (format!("0x{head:x}"), false)).await.expect("head block");
    let t = i64::from_str_radix(block["timestamp"].as_str().expect("time").trim_start_matches("0x"), 16).expect("hex");
    // An anvil started from a dump keeps time from the wall clock on: new blocks come after both.
    let t = t.max(chrono::Utc::now().timestamp() + 60);
    anvil.set_balance(payer, U256::from(10u128.pow(18))).await.expect("gas money");
    let nonce: U256 = anvil.rpc("eth_getTransactionCount", (payer, "latest")).await.expect("nonce");
    let nonce = nonce.to::<u64>();
    let (a, b, c) = (4_241u64, 4_242u64, 4_243u64);
    for (i, value) in [a, b].into_iter().enumerate() {
        let _: serde_json::Value =
            anvil.rpc("eth_sendTransaction", (payment(payer, seller, value, nonce + i as u64),)).await.expect("sent");
        anvil.mine_at(t + 10 * (i as i64 + 1)).await.expect("mined");
    }
    anvil.mine_at(t + 30).await.expect("closing block");
    let config = dir.path().join("before-config").join("agentrep.toml");
    // The marketplace is not what this test is about (and its crawl is dated by the new head).
    let chain_only = &CHAIN_SOURCES[1..];
    ingest(lake.root(), &config, chain_only).await.expect("ingests the new blocks");
    let values = |lake: &Lake| -> Vec<u64> {
        read_dated::<SettlementRow>(lake)
            .expect("reads")
            .into_iter()
            .map(|(_, s)| s.value)
            .filter(|v| [a, b, c].contains(v))
            .collect()
    };
    assert_eq!(values(&lake), vec![a, b], "the payments before the reorg are in");

    let replaced = reorg(
        &anvil,
        2,
        &[NewBlock { t: t + 21, txs: vec![payment(payer, seller, c, nonce + 1)] }, NewBlock { t: t + 40, txs: vec![] }],
    )
    .await
    .expect("reorgs");
    assert_eq!(replaced.fork_point, head + 1);
    ingest(lake.root(), &config, chain_only).await.expect("ingests again");
    assert_eq!(values(&lake), vec![a, c], "B left the lake with its block, C came in");
    let fresh = ingest_into(world, dir.path(), "fresh", anvil.url()).await;
    assert_same_rows(contents(&fresh, false), contents(&lake, false), "after a reorg");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_killed_ingest_resumes_to_the_same_lake() {
    let world = ReplayedWorld::shared();
    let anvil = world.node();
    let dir = tempfile::tempdir().expect("temp dir");
    let undisturbed = world.undisturbed_ingest();

    let Prepared { lake, config, _bazaars } = prepare(world, dir.path(), "killed", anvil.url());
    let run = |source: &str| {
        let mut cmd = std::process::Command::new(agentrep_binary());
        cmd.arg("ingest").arg("--lake").arg(lake.root()).arg("--config").arg(&config);
        cmd.args(["--source", source, "--clock", "chain"]);
        cmd.stdout(std::process::Stdio::null()).stderr(std::process::Stdio::null());
        cmd
    };
    // Each source killed part-way through its first run (SIGKILL: no cleanup runs), then the
    // whole sequence run to the end.
    let mut kills = 0;
    for (i, source) in CHAIN_SOURCES.iter().enumerate() {
        let mut child = run(source.as_str()).spawn().expect("agentrep starts");
        std::thread::sleep(Duration::from_millis(300 + 150 * i as u64));
        if child.try_wait().expect("status").is_none() {
            child.kill().expect("killed");
            kills += 1;
        }
        let _ = child.wait();
    }
    assert!(kills > 0, "at least one run was killed mid-way");
    for source in CHAIN_SOURCES {
        let status = run(source.as_str()).status().expect("agentrep runs");
        assert!(status.success(), "{source} resumes");
    }
    assert_same_lake(&undisturbed, &lake, "after kills and restarts");
}
