//! `agentrep bench logs`: the node's bare `eth_getLogs` rate, the floor `make bench` compares the
//! settlements ingest with. Raw JSON-RPC over one HTTP client, the ingest's filter (USDC
//! `Transfer` to the listed payTos, in topic batches) and the ingest's window policy (start at
//! `log_window`, double after a full sparse page up to `max_log_window`), the logs counted and
//! dropped undecoded: what is left is the node's work and the transfer.

use std::collections::BTreeSet;
use std::time::Instant;

use agentrep_ingest::chain::SPARSE_PAGE;
use agentrep_lake::datasets::ListingRow;
use agentrep_lake::{Dataset, Lake};
use anyhow::{Context, bail};
use serde::Deserialize;

/// keccak256("Transfer(address,address,uint256)").
const TRANSFER_TOPIC: &str = "0xddf252ad1be2c89b69c2b068fc378daa952ba7f163c4a11628f55a4df523b3ef";

/// What a bare scan read, and how long it took.
#[derive(Debug, Clone, Copy, PartialEq, serde::Serialize)]
pub struct BareScan {
    /// Logs returned.
    pub logs: u64,
    /// Blocks covered.
    pub blocks: u64,
    /// `eth_getLogs` calls.
    pub pages: u64,
    /// Wall time of the scan, seconds.
    pub seconds: f64,
}

/// The scan's parameters.
#[derive(Debug, Clone)]
pub struct BareLogs {
    /// Endpoint.
    pub rpc: url::Url,
    /// The token.
    pub usdc: String,
    /// First block.
    pub from: u64,
    /// Last block.
    pub to: u64,
    /// First window.
    pub log_window: u64,
    /// Largest window.
    pub max_log_window: u64,
    /// Addresses per topic list.
    pub topic_batch: usize,
}

/// Every payTo of the lake's listings, lowercase and sorted, as 32-byte topics.
fn payto_topics(lake: &Lake) -> anyhow::Result<Vec<String>> {
    let mut out = BTreeSet::new();
    for part in lake.partitions(Dataset::Listings)? {
        for l in lake.read_partition::<ListingRow>(part.date)? {
            let hex = l.pay_to.trim().to_ascii_lowercase();
            if let Some(h) =
                hex.strip_prefix("0x").filter(|h| h.len() == 40 && h.bytes().all(|b| b.is_ascii_hexdigit()))
            {
                out.insert(format!("0x{:0>64}", h));
            }
        }
    }
    Ok(out.into_iter().collect())
}

#[derive(Deserialize)]
struct Answer {
    result: Option<Vec<serde::de::IgnoredAny>>,
    error: Option<serde_json::Value>,
}

/// Runs the scan over the payTos of `lake`.
///
/// # Errors
/// When the lake cannot be read, or a call fails or is refused.
pub async fn bare_logs(scan: &BareLogs, lake: &Lake) -> anyhow::Result<BareScan> {
    agentrep_ingest::web::install_crypto_provider();
    let topics = payto_topics(lake)?;
    if topics.is_empty() {
        bail!("the lake at {} has no listings", lake.root().display());
    }
    let client = reqwest::Client::builder().no_proxy().build().context("HTTP client")?;
    let started = Instant::now();
    let mut out = BareScan { logs: 0, blocks: 0, pages: 0, seconds: 0.0 };
    // One window for the whole run, as the ingest's pager keeps it across topic batches.
    let mut window = scan.log_window.max(1);
    for batch in topics.chunks(scan.topic_batch.max(1)) {
        let mut start = scan.from;
        while start <= scan.to {
            let end = scan.to.min(start.saturating_add(window - 1));
            let body = serde_json::json!({
                "jsonrpc": "2.0", "id": out.pages, "method": "eth_getLogs",
                "params": [{
                    "address": scan.usdc,
                    "fromBlock": format!("0x{start:x}"),
                    "toBlock": format!("0x{end:x}"),
                    "topics": [TRANSFER_TOPIC, null, batch],
                }],
            });
            let bytes = client
                .post(scan.rpc.clone())
                .header("content-type", "application/json")
                .body(serde_json::to_vec(&body)?)
                .send()
                .await
                .with_context(|| format!("eth_getLogs {start}..={end}"))?
                .bytes()
                .await?;
            let answer: Answer = serde_json::from_slice(&bytes).context("eth_getLogs answer")?;
            let Some(logs) = answer.result else {
                bail!("eth_getLogs {start}..={end}: {}", answer.error.unwrap_or_default());
            };
            out.pages += 1;
            out.logs += logs.len() as u64;
            out.blocks += end - start + 1;
            if logs.len() < SPARSE_PAGE && end - start + 1 == window {
                window = (window * 2).min(scan.max_log_window.max(1));
            }
            start = end + 1;
        }
    }
    out.seconds = started.elapsed().as_secs_f64();
    Ok(out)
}
