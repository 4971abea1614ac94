//! x402 over MCP: the official x402 MCP client (PyPI `x402.mcp`, over the official MCP Python
//! SDK's streamable HTTP client) buys `agentrep_audit` from agentrep's MCP endpoint, in the
//! initialize-era flow and in the stateless 2026-07-28 one. The tool is the paid route: the same
//! terms, ledger and settlement; the payer's balance moves once per call.

use std::path::Path;

use agentrep_tests::chain::paychain::{PayChain, key_hex};
use agentrep_tests::test_clients;
use alloy::primitives::U256;
use serde_json::{Value, json};

use super::{PRICE, buyer, funded_payer, paid_server, top_seller};

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_official_x402_mcp_client_buys_the_audit_tool() {
    let chain = PayChain::start().await.unwrap();
    let dir = tempfile::tempdir().unwrap();
    let server = paid_server(&chain, dir.path());
    let seller = top_seller(&server.base).await;
    let mcp = format!("{}/mcp", server.base);

    // Unpaid: a tool error carrying the x402 PaymentRequired, as structuredContent and as text.
    let call = json!({"jsonrpc": "2.0", "id": 1, "method": "tools/call",
        "params": {"name": "agentrep_audit", "arguments": {"address": seller}}});
    let unpaid: Value = reqwest::Client::new()
        .post(&mcp)
        .header("mcp-protocol-version", "2025-06-18")
        .json(&call)
        .send()
        .await
        .unwrap()
        .json()
        .await
        .unwrap();
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
