//! The ingest's client (`Chain`: the retry layer, `LogPager::scan`, `block_times`, `receipts`)
//! through each fault: the fault fires, and what the ingest reads equals what anvil holds.

use std::collections::{BTreeMap, HashMap};
use std::time::Instant;

use agentrep_ingest::chain::{Chain, PageStats};
use agentrep_tests::fixtures::{Fault, FaultKind, Faults, FaultyRpc, RangeShape, When};
use alloy::eips::BlockNumberOrTag;
use alloy::primitives::B256;
use alloy::providers::Provider;
use alloy::rpc::types::{Log, TransactionReceipt};
use serde_json::Value;
use std::time::Duration;

use super::{PAGED, WIDE, World, connect, direct_logs, get_logs, transfers, world};

/// Scans every Transfer of the world through `proxy` with the ingest's pager.
async fn scan(chain: &Chain, world: &World) -> (Vec<Log>, PageStats) {
    chain
        .pager()
        .scan(chain.provider(), &transfers(), 1, world.head, |_| {})
        .await
        .expect("the scan survives the faults")
}

/// Starts a proxy with `faults` in front of a new world, scans it (first window `log_window`) and
/// checks the logs are anvil's.
async fn scan_with(faults: Faults, log_window: u64) -> (World, FaultyRpc, PageStats) {
    let world = world(None).await;
    let proxy = FaultyRpc::start(world.anvil.url(), faults);
    let chain = connect(&proxy, log_window).await;
    let (logs, stats) = scan(&chain, &world).await;
    let expected = direct_logs(&world).await;
    assert_eq!(expected.len(), 408, "the world's transfers");
    assert_eq!(logs, expected, "the logs read through the faults are anvil's");
    (world, proxy, stats)
}

/// A range refusal in `shape`'s words makes the pager shrink its window; with a suggested range,
/// the next request asks exactly that range.
async fn range_refusals(shape: RangeShape) {
    const MAX_SPAN: u64 = 50;
    let (_world, proxy, stats) = scan_with(Faults::none().range_limit(MAX_SPAN, shape), WIDE).await;
    let injected = proxy.injected();
    assert!(injected.range_too_large > 0, "{shape:?}: the node refused some ranges");
    assert_eq!(stats.shrinks, injected.range_too_large, "{shape:?}: every refusal reached the pager once, unretried");
    let calls = get_logs(&proxy);
    for (i, call) in calls.iter().enumerate() {
        let (from, to) = call.blocks.expect("eth_getLogs with block numbers");
        if call.fault.is_none() {
            assert!(to - from < MAX_SPAN, "{shape:?}: only ranges within the limit are answered");
            continue;
        }
        let (next_from, next_to) =
            calls.get(i + 1).and_then(|c| c.blocks).expect("a refusal is followed by a smaller request");
        assert_eq!(next_from, from, "{shape:?}: after a refusal the pager asks from the same block");
        if shape.suggests_range() {
            assert_eq!((next_from, next_to), (from, from + MAX_SPAN - 1), "{shape:?}: the pager takes the suggestion");
        } else {
            assert_eq!(next_to - next_from, (to - from).div_ceil(2) - 1, "{shape:?}: the pager halves the window");
        }
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn alchemy_range_refusals_use_the_suggested_range() {
    range_refusals(RangeShape::AlchemySuggested).await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn infura_result_refusals_use_the_suggested_range() {
    range_refusals(RangeShape::InfuraSuggested).await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn infura_range_limits_halve_the_window() {
    range_refusals(RangeShape::InfuraRangeLimit).await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn quicknode_413_range_limits_halve_the_window() {
    range_refusals(RangeShape::QuickNode413).await;
}

/// The request after each injected fault asks the same blocks again: the client retried it.
fn assert_retried(proxy: &FaultyRpc, kind: FaultKind) {
    let calls = get_logs(proxy);
    let faulted: Vec<usize> = (0..calls.len()).filter(|&i| calls[i].fault == Some(kind)).collect();
    assert!(!faulted.is_empty(), "{kind:?} fired on eth_getLogs");
    for i in faulted {
        let next =
            calls.get(i + 1).unwrap_or_else(|| panic!("{kind:?}: the last eth_getLogs failed and was not retried"));
        assert_eq!(next.blocks, calls[i].blocks, "{kind:?}: the client asked the same blocks again");
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn rate_limits_are_retried() {
    let faults = Faults::none()
        .with(Fault::TooManyRequests { retry_after: None, json_body: false }, &["eth_getLogs"], When::Every(2))
        .with(Fault::TooManyRequests { retry_after: None, json_body: true }, &["eth_getLogs"], When::Every(3));
    let (_world, proxy, _) = scan_with(faults, PAGED).await;
    assert!(proxy.injected().too_many_requests >= 2, "{:?}", proxy.injected());
    assert_retried(&proxy, FaultKind::TooManyRequests);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn retry_after_is_waited_for() {
    let faults = Faults::none().with(
        Fault::TooManyRequests { retry_after: Some(1), json_body: false },
        &["eth_getLogs"],
        When::First(1),
    );
    let started = Instant::now();
    let (_world, proxy, _) = scan_with(faults, PAGED).await;
    assert_eq!(proxy.injected().too_many_requests, 1);
    assert_retried(&proxy, FaultKind::TooManyRequests);
    assert!(started.elapsed() >= Duration::from_secs(1), "the client waited the second Retry-After asked for");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn unavailable_is_retried() {
    let (_world, proxy, _) = scan_with(Faults::none().with(Fault::Unavailable, &[], When::Every(2)), PAGED).await;
    assert!(proxy.injected().unavailable > 0);
    assert_retried(&proxy, FaultKind::Unavailable);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn timeouts_are_retried() {
    // The client gives up after 500 ms; the proxy holds two requests for 1.5 s.
    let hold = Duration::from_millis(1_500);
    let (_world, proxy, _) =
        scan_with(Faults::none().with(Fault::Timeout { hold }, &["eth_getLogs"], When::First(2)), PAGED).await;
    assert_eq!(proxy.injected().timeouts, 2);
    assert_retried(&proxy, FaultKind::Timeout);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn dropped_connections_are_retried() {
    let (_world, proxy, _) = scan_with(Faults::none().with(Fault::Drop, &["eth_getLogs"], When::Every(2)), PAGED).await;
    assert!(proxy.injected().dropped > 0);
    assert_retried(&proxy, FaultKind::Dropped);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn every_fault_at_once_with_a_range_limit() {
    let faults = Faults::none()
        .range_limit(40, RangeShape::AlchemySuggested)
        .with(Fault::Drop, &["eth_getLogs"], When::Seeded { one_in: 5, seed: 3 })
        .with(Fault::Unavailable, &["eth_getLogs"], When::Seeded { one_in: 6, seed: 2 })
        .with(Fault::TooManyRequests { retry_after: None, json_body: true }, &["eth_getLogs"], When::Every(7))
        .with(Fault::Timeout { hold: Duration::from_millis(1_000) }, &["eth_getLogs"], When::First(1));
    let (_world, proxy, _) = scan_with(faults, WIDE).await;
    let injected = proxy.injected();
    for kind in [
        FaultKind::RangeTooLarge,
        FaultKind::Dropped,
        FaultKind::Unavailable,
        FaultKind::TooManyRequests,
        FaultKind::Timeout,
    ] {
        assert!(injected.get(kind) > 0, "{kind:?} fired: {injected:?}");
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn block_times_survive_a_lagging_node() {
    let world = world(None).await;
    // A node 10 blocks behind answers "header not found" for the newest blocks, three times.
    let faults = Faults::none().with(
        Fault::HeaderNotFound { above: world.head - 10 },
        &["eth_getBlockByNumber"],
        When::First(3),
    );
    let proxy = FaultyRpc::start(world.anvil.url(), faults);
    let chain = connect(&proxy, PAGED).await;
    let blocks: Vec<u64> = world.txs.keys().copied().collect();
    let times = chain.block_times(blocks.iter().copied()).await.expect("block times survive");
    assert_eq!(proxy.injected().header_not_found, 3);
    let mut expected = BTreeMap::new();
    for b in blocks {
        let block = world.anvil.provider().get_block_by_number(BlockNumberOrTag::Number(b)).await.expect("block");
        expected.insert(b, block.expect("exists").header.timestamp as i64);
    }
    assert_eq!(times, expected);
}

/// The receipts of settlements made through contracts are asked for in JSON-RPC batches; batches
/// cut off or answered 503 are retried whole, and every receipt arrives as the node has it.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn batched_receipts_survive_drops_and_503s() {
    let world = world(None).await;
    let faults = Faults::none().with(Fault::Drop, &["eth_getTransactionReceipt"], When::Every(3)).with(
        Fault::Unavailable,
        &["eth_getTransactionReceipt"],
        When::Every(4),
    );
    let proxy = FaultyRpc::start(world.anvil.url(), faults);
    let chain = connect(&proxy, PAGED).await;
    let hashes: Vec<B256> = world.txs.values().flatten().copied().collect();
    let receipts = chain.transaction_receipts(&hashes).await.expect("receipts survive");
    let injected = proxy.injected();
    assert!(injected.dropped > 0 && injected.unavailable > 0, "{injected:?}");
    assert!(injected.forwarded_calls >= 5 * injected.forwarded, "asked in batches: {injected:?}");
    assert_eq!(receipts.len(), hashes.len());
    assert_eq!(as_json(&receipts), expected_receipts(&world).await);
}

/// A node that refuses batches is asked one receipt at a time, and every receipt arrives.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_node_that_refuses_batches_is_asked_one_receipt_at_a_time() {
    let world = world(None).await;
    let proxy = FaultyRpc::start(world.anvil.url(), Faults::none().with(Fault::BatchesRefused, &[], When::Always));
    let chain = connect(&proxy, PAGED).await;
    let hashes: Vec<B256> = world.txs.values().flatten().copied().collect();
    let receipts = chain.transaction_receipts(&hashes).await.expect("receipts one at a time");
    assert_eq!(as_json(&receipts), expected_receipts(&world).await);
    let injected = proxy.injected();
    assert!(injected.batches_refused >= 1, "{injected:?}");
    // Refused once per batch in flight at most, then never asked again.
    assert!(injected.batches_refused <= 4, "{injected:?}");
    assert_eq!(injected.forwarded_calls, injected.forwarded, "single calls only");
}

fn as_json(receipts: &HashMap<B256, TransactionReceipt>) -> HashMap<B256, Value> {
    receipts.iter().map(|(h, r)| (*h, serde_json::to_value(r).expect("JSON"))).collect()
}

/// The world's receipts, as the node has them.
async fn expected_receipts(world: &World) -> HashMap<B256, Value> {
    let mut expected = HashMap::new();
    for b in world.txs.keys() {
        let block = world.anvil.provider().get_block_receipts(BlockNumberOrTag::Number(*b).into()).await;
        for r in block.expect("receipts").expect("block exists") {
            expected.insert(r.transaction_hash, serde_json::to_value(&r).expect("JSON"));
        }
    }
    expected
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn receipts_survive_drops_and_503s() {
    let world = world(None).await;
    let faults = Faults::none().with(Fault::Drop, &["eth_getBlockReceipts"], When::Every(3)).with(
        Fault::Unavailable,
        &["eth_getBlockReceipts"],
        When::Every(4),
    );
    let proxy = FaultyRpc::start(world.anvil.url(), faults);
    let chain = connect(&proxy, PAGED).await;
    let receipts = chain.receipts(&world.txs).await.expect("receipts survive");
    let injected = proxy.injected();
    assert!(injected.dropped > 0 && injected.unavailable > 0, "{injected:?}");
    assert_eq!(receipts.len(), 408);
    assert_eq!(as_json(&receipts), expected_receipts(&world).await);
}
