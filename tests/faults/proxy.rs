//! What a client sees of each fault of [`FaultyRpc`], over plain HTTP.

use std::io::{Read, Write};
use std::net::TcpStream;
use std::time::{Duration, Instant};

use agentrep_tests::chain::anvil::Anvil;
use agentrep_tests::fixtures::{Fault, FaultCounts, FaultKind, Faults, FaultyRpc, RangeShape, When};
use serde_json::{Value, json};

use super::GENESIS;

/// Anvil with 20 empty blocks.
async fn anvil() -> Anvil {
    let anvil = Anvil::start(GENESIS);
    let _: Value = anvil.rpc("anvil_mine", ("0x14", "0x1")).await.expect("mines");
    anvil
}

/// POSTs `body` to `url`: (status, `Retry-After`, body).
async fn post(url: &str, body: &Value) -> (u16, Option<String>, String) {
    let response = reqwest::Client::new().post(url).json(body).send().await.expect("answers");
    let status = response.status().as_u16();
    let retry_after = response.headers().get("retry-after").map(|v| v.to_str().expect("ASCII").to_owned());
    (status, retry_after, response.text().await.expect("whole body"))
}

fn call(id: u64, method: &str, params: Value) -> Value {
    json!({"jsonrpc": "2.0", "id": id, "method": method, "params": params})
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_dropped_response_announces_more_than_it_sends() {
    let anvil = anvil().await;
    let proxy = FaultyRpc::start(anvil.url(), Faults::none().with(Fault::Drop, &[], When::Always));
    let addr = proxy.url().trim_start_matches("http://").to_owned();
    let raw = tokio::task::spawn_blocking(move || {
        let body = call(1, "eth_blockNumber", json!([])).to_string();
        let mut s = TcpStream::connect(&addr).expect("connects");
        s.set_read_timeout(Some(Duration::from_secs(10))).expect("timeout");
        write!(
            s,
            "POST / HTTP/1.1\r\nHost: {addr}\r\nContent-Type: application/json\r\nContent-Length: {}\r\n\r\n{body}",
            body.len()
        )
        .expect("sends");
        let mut out = Vec::new();
        // Reads until the proxy closes the connection (a keep-alive answer would time out here).
        s.read_to_end(&mut out).expect("the proxy closes the connection");
        String::from_utf8(out).expect("UTF-8")
    })
    .await
    .expect("joins");
    let (head, body) = raw.split_once("\r\n\r\n").expect("headers end");
    assert!(head.starts_with("HTTP/1.1 200"), "{head}");
    let length: usize = head
        .lines()
        .find_map(|l| l.to_ascii_lowercase().strip_prefix("content-length: ").map(str::to_owned))
        .expect("a Content-Length")
        .trim()
        .parse()
        .expect("a number");
    assert!(!body.is_empty() && body.len() < length, "sent {} of the {length} bytes announced: {body}", body.len());
    assert!(r#"{"jsonrpc":"2.0","id":1,"result":"0x14"}"#.starts_with(body), "the start of anvil's answer: {body}");
    let injected = proxy.injected();
    assert_eq!((injected.dropped, injected.forwarded, injected.received), (1, 1, 1));
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn rate_limits_and_unavailability_answer_their_status() {
    let anvil = anvil().await;
    let faults = Faults::none()
        .with(Fault::TooManyRequests { retry_after: Some(3), json_body: false }, &[], When::First(1))
        .with(Fault::TooManyRequests { retry_after: None, json_body: true }, &[], When::First(1))
        .with(Fault::Unavailable, &["eth_blockNumber"], When::First(1));
    let proxy = FaultyRpc::start(anvil.url(), faults);
    let url = proxy.url();
    let block_number = call(7, "eth_blockNumber", json!([]));
    assert_eq!(post(&url, &block_number).await, (429, Some("3".to_owned()), "Too Many Requests".to_owned()));
    let (status, retry_after, body) = post(&url, &block_number).await;
    assert_eq!((status, retry_after), (429, None));
    let body: Value = serde_json::from_str(&body).expect("a JSON-RPC error");
    assert_eq!((body["id"].as_u64(), body["error"]["code"].as_i64()), (Some(7), Some(429)));
    assert_eq!(post(&url, &block_number).await, (503, None, "Service Unavailable".to_owned()));
    let (status, _, body) = post(&url, &block_number).await;
    assert_eq!((status, body.as_str()), (200, r#"{"jsonrpc":"2.0","id":7,"result":"0x14"}"#));
    let injected = proxy.injected();
    assert_eq!(
        injected,
        FaultCounts {
            too_many_requests: 2,
            unavailable: 1,
            received: 4,
            forwarded: 1,
            forwarded_calls: 1,
            ..FaultCounts::default()
        }
    );
    assert_eq!(injected.total(), 3);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn batches_are_refused_call_by_call() {
    let anvil = anvil().await;
    let faults = Faults::none().range_limit(10, RangeShape::InfuraRangeLimit).with(
        Fault::HeaderNotFound { above: 15 },
        &["eth_getBlockByNumber"],
        When::Always,
    );
    let proxy = FaultyRpc::start(anvil.url(), faults);
    let batch = json!([
        call(1, "eth_getLogs", json!([{"fromBlock": "0x1", "toBlock": "0x14"}])),
        call(2, "eth_getLogs", json!([{"fromBlock": "0x1", "toBlock": "0x5"}])),
        call(3, "eth_blockNumber", json!([])),
        call(4, "eth_getBlockByNumber", json!(["0x10", false])),
        call(5, "eth_getBlockByNumber", json!(["0x1", false])),
        call(6, "eth_getLogs", json!([{"fromBlock": "0xa", "toBlock": "latest"}])),
    ]);
    let (status, _, body) = post(&proxy.url(), &batch).await;
    assert_eq!(status, 200);
    let replies: Vec<Value> = serde_json::from_str(&body).expect("a batch answer");
    let ids: Vec<u64> = replies.iter().map(|r| r["id"].as_u64().expect("id")).collect();
    assert_eq!(ids, [1, 2, 3, 4, 5, 6]);
    assert_eq!(replies[0]["error"], json!({"code": -32602, "message": "range 20 exceeds limit of 10"}));
    assert_eq!(replies[1]["result"], json!([]));
    assert_eq!(replies[2]["result"], "0x14");
    assert_eq!(replies[3]["error"], json!({"code": -32000, "message": "header not found"}));
    assert_eq!(replies[4]["result"]["number"], "0x1");
    assert_eq!(replies[5]["error"]["message"], "range 11 exceeds limit of 10", "`latest` is the upstream's head");
    let injected = proxy.injected();
    assert_eq!((injected.range_too_large, injected.header_not_found), (2, 1));
    assert_eq!((injected.forwarded, injected.forwarded_calls), (1, 3));
    let faults: Vec<Option<FaultKind>> = proxy.exchanges().iter().map(|e| e.fault).collect();
    assert_eq!(
        faults,
        [
            Some(FaultKind::RangeTooLarge),
            None,
            None,
            Some(FaultKind::HeaderNotFound),
            None,
            Some(FaultKind::RangeTooLarge)
        ]
    );

    // A single refused call: QuickNode answers 413 with the JSON-RPC error.
    proxy.set_faults(Faults::none().range_limit(10, RangeShape::QuickNode413));
    let (status, _, body) =
        post(&proxy.url(), &call(9, "eth_getLogs", json!([{"fromBlock": "0x1", "toBlock": "0x14"}]))).await;
    assert_eq!(status, 413);
    let body: Value = serde_json::from_str(&body).expect("JSON");
    assert_eq!(body["id"], 9);
    assert_eq!(body["error"], json!({"code": -32614, "message": "eth_getLogs is limited to a 10 range"}));
    for shape in [RangeShape::AlchemySuggested, RangeShape::InfuraSuggested] {
        proxy.set_faults(Faults::none().range_limit(10, shape));
        let (status, _, body) =
            post(&proxy.url(), &call(9, "eth_getLogs", json!([{"fromBlock": "0x3", "toBlock": "0x14"}]))).await;
        assert_eq!(status, 200);
        let body: Value = serde_json::from_str(&body).expect("JSON");
        let message = body["error"]["message"].as_str().expect("a message");
        assert!(message.contains("[0x3, 0xc]"), "{shape:?} suggests the first 10 blocks: {message}");
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_held_request_is_answered_late() {
    let anvil = anvil().await;
    let hold = Duration::from_millis(400);
    let proxy = FaultyRpc::start(anvil.url(), Faults::none().with(Fault::Timeout { hold }, &[], When::First(1)));
    let started = Instant::now();
    let (status, _, body) = post(&proxy.url(), &call(1, "eth_blockNumber", json!([]))).await;
    assert!(started.elapsed() >= hold);
    assert_eq!((status, body.as_str()), (200, r#"{"jsonrpc":"2.0","id":1,"result":"0x14"}"#));
    let started = Instant::now();
    post(&proxy.url(), &call(1, "eth_blockNumber", json!([]))).await;
    assert!(started.elapsed() < hold, "only the first request is held");
    assert_eq!(proxy.injected().timeouts, 1);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_rule_that_never_matches_injects_nothing() {
    let anvil = anvil().await;
    let proxy = FaultyRpc::start(anvil.url(), Faults::none().with(Fault::Unavailable, &["eth_getLogs"], When::Always));
    for id in 0..3 {
        assert_eq!(post(&proxy.url(), &call(id, "eth_blockNumber", json!([]))).await.0, 200);
    }
    let injected = proxy.injected();
    assert_eq!((injected.total(), injected.forwarded), (0, 3), "a test asserting its fault fired would fail");
}

#[test]
fn schedules_are_deterministic() {
    let fired = |w: &When| (1..=1_000u64).filter(|n| w.fires(*n)).collect::<Vec<_>>();
    assert_eq!(fired(&When::First(3)), [1, 2, 3]);
    assert_eq!(fired(&When::Every(250)), [250, 500, 750, 1_000]);
    assert_eq!(fired(&When::Always).len(), 1_000);
    let seeded = When::Seeded { one_in: 4, seed: 42 };
    let a = fired(&seeded);
    assert_eq!(a, fired(&seeded), "the same seed fires on the same requests");
    assert!((200..300).contains(&a.len()), "about one in 4: {}", a.len());
    assert_ne!(a, fired(&When::Seeded { one_in: 4, seed: 43 }), "another seed, other requests");
}
