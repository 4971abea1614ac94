//! x402 over MCP: the official x402 MCP client (PyPI `x402.mcp`, over the official MCP Python
//! SDK's streamable HTTP client) buys `agentrep_audit` from agentrep's MCP endpoint, in the
//! initialize-era flow and in the stateless 2026-07-28 one (both on the tool-result binding). The
//! tool is the paid route: the same terms, ledger and settlement; the payer's balance moves once
//! per call. No official client speaks the `org.x402/payment` extension binding yet, so its test
//! sends the JSON-RPC itself.

use std::path::Path;

use agentrep_tests::chain::paychain::{PayChain, key_hex};
use agentrep_tests::test_clients;
use alloy::primitives::U256;
use serde_json::{Value, json};

use agentrep_tests::buyers::run_buyer as buyer;

use super::{PRICE, Payment, funded_payer, paid_server, top_seller};

/// Posts one JSON-RPC message to `mcp` with `headers`; returns the response.
pub(crate) async fn post(mcp: &str, headers: &[(&str, &str)], message: &Value) -> Value {
    let mut request = reqwest::Client::new().post(mcp).json(message);
    for (name, value) in headers {
        request = request.header(*name, *value);
    }
    request.send().await.unwrap().json().await.unwrap()
}

/// A chain, a paid server on it, its top seller and its MCP URL.
async fn paid_mcp() -> (PayChain, tempfile::TempDir, agentrep_tests::RunningServer, String, String) {
    let chain = PayChain::start().await.unwrap();
    let dir = tempfile::tempdir().unwrap();
    let server = paid_server(&chain, dir.path());
    let seller = top_seller(&server.base).await;
    let mcp = format!("{}/mcp", server.base);
    (chain, dir, server, seller, mcp)
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_official_x402_mcp_client_buys_the_audit_tool() {
    let (chain, _dir, _server, seller, mcp) = paid_mcp().await;

    // Unpaid: a tool error carrying the x402 PaymentRequired, as structuredContent and as text.
    let call = json!({"jsonrpc": "2.0", "id": 1, "method": "tools/call",
        "params": {"name": "agentrep_audit", "arguments": {"address": seller}}});
    let unpaid = post(&mcp, &[("mcp-protocol-version", "2025-06-18")], &call).await;
    let result = &unpaid["result"];
    assert_eq!(result["isError"], true, "{unpaid}");
    assert_eq!(result["structuredContent"]["x402Version"], 2);
    assert_eq!(result["structuredContent"]["accepts"][0]["amount"], PRICE.to_string());
    let text: Value = serde_json::from_str(result["content"][0]["text"].as_str().unwrap()).unwrap();
    assert_eq!(text, result["structuredContent"]);

    let script = Path::new(env!("CARGO_MANIFEST_DIR")).join("payments/clients/x402_mcp_buyer.py");
    let python = test_clients().join("py/bin/python");
    for mode in ["legacy", "2026-07-28"] {
        let payer = funded_payer(&chain, 1_000_000).await;
        let out = tokio::task::spawn_blocking({
            let args = [
                script.display().to_string(),
                mcp.clone(),
                key_hex(&payer),
                "agentrep_audit".into(),
                seller.clone(),
                mode.into(),
            ];
            let python = python.clone();
            move || buyer(&python, &args.iter().map(String::as_str).collect::<Vec<_>>())
        })
        .await
        .unwrap();
        assert_eq!((out["listed"].as_bool(), out["isError"].as_bool()), (Some(true), Some(false)), "{mode}: {out}");
        assert_eq!(out["paymentMade"], true, "{mode}");
        assert_eq!(out["paymentResponse"]["success"], true, "{mode}: {out}");
        assert_eq!(out["answer"]["agentAddress"], seller.as_str(), "{mode}");
        assert_eq!(chain.balance(payer.address()).await.unwrap(), U256::from(1_000_000 - PRICE), "{mode}: paid once");
    }
}

/// A 2026-07-28 `tools/call` of `agentrep_audit` from a client that advertises the x402 extension
/// binding, carrying `payment` when given.
async fn modern_call(mcp: &str, seller: &str, payment: Option<Value>, extension: bool) -> Value {
    let extensions = if extension { json!({"org.x402/payment": {}}) } else { json!({}) };
    let mut meta = json!({
        "io.modelcontextprotocol/protocolVersion": "2026-07-28",
        "io.modelcontextprotocol/clientCapabilities": {"extensions": extensions},
    });
    if let Some(payment) = payment {
        meta["x402/payment"] = payment;
    }
    let call = json!({"jsonrpc": "2.0", "id": 7, "method": "tools/call",
        "params": {"name": "agentrep_audit", "arguments": {"address": seller}, "_meta": meta}});
    let headers =
        [("mcp-protocol-version", "2026-07-28"), ("mcp-method", "tools/call"), ("mcp-name", "agentrep_audit")];
    post(mcp, &headers, &call).await
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_extension_binding_answers_clients_that_advertise_it() {
    let (chain, _dir, _server, seller, mcp) = paid_mcp().await;

    let discover = json!({"jsonrpc": "2.0", "id": 1, "method": "server/discover", "params": {"_meta": {
        "io.modelcontextprotocol/protocolVersion": "2026-07-28",
        "io.modelcontextprotocol/clientCapabilities": {}}}});
    let discovered =
        post(&mcp, &[("mcp-protocol-version", "2026-07-28"), ("mcp-method", "server/discover")], &discover).await;
    assert_eq!(discovered["result"]["capabilities"]["extensions"]["org.x402/payment"], json!({}), "{discovered}");

    // Unpaid, advertised: payment_required, not a tool error; unadvertised: the tool-result binding.
    let unpaid = modern_call(&mcp, &seller, None, true).await;
    let result = &unpaid["result"];
    assert_eq!(result["resultType"], "payment_required", "{unpaid}");
    assert!(result.get("isError").is_none() && result.get("content").is_none(), "{unpaid}");
    let required = result["paymentRequired"].clone();
    assert_eq!(
        (required["x402Version"].clone(), required["accepts"][0]["amount"].clone()),
        (json!(2), json!(PRICE.to_string()))
    );
    // Only an address reaches the route: nothing a caller appends becomes part of its URI.
    let smuggled = modern_call(&mcp, &format!("{seller}?full=1&"), None, true).await;
    assert_eq!(smuggled["result"]["isError"], true, "{smuggled}");
    assert!(smuggled["result"]["content"][0]["text"].as_str().unwrap().contains("needs a wallet address"));
    let plain = modern_call(&mcp, &seller, None, false).await;
    assert_eq!(
        (plain["result"]["resultType"].clone(), plain["result"]["isError"].clone()),
        (json!("complete"), json!(true))
    );

    // A payment for less than the price: payment_required again, with the reason, nothing moved.
    let payer = funded_payer(&chain, 1_000_000).await;
    let accepted = required["accepts"][0].clone();
    let payload = |p: &Payment| -> Value {
        let header = super::v2_header(&payer, p, &accepted, None);
        serde_json::from_slice(&agentrep_payments::wire::decode_base64(&header).unwrap()).unwrap()
    };
    let mut cheap = Payment::new(payer.address(), chain.pay_to);
    cheap.value = PRICE - 1;
    let refused = modern_call(&mcp, &seller, Some(payload(&cheap)), true).await;
    assert_eq!(refused["result"]["resultType"], "payment_required", "{refused}");
    assert_eq!(refused["result"]["paymentRequired"]["error"], "invalid_exact_evm_payload_authorization_value_mismatch");

    // Paid: the answer, complete, with the settlement in _meta; the balance moves once.
    let paid = modern_call(&mcp, &seller, Some(payload(&Payment::new(payer.address(), chain.pay_to))), true).await;
    let result = &paid["result"];
    assert_eq!((result["resultType"].clone(), result["isError"].clone()), (json!("complete"), json!(false)), "{paid}");
    assert_eq!(result["structuredContent"]["agentAddress"], seller.as_str());
    assert_eq!(result["_meta"]["x402/payment-response"]["success"], true, "{paid}");
    assert!(result["_meta"]["io.modelcontextprotocol/serverInfo"].is_object());
    assert_eq!(chain.balance(payer.address()).await.unwrap(), U256::from(1_000_000 - PRICE));
}
