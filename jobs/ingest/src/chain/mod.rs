//! Reading an Ethereum JSON-RPC node well: an alloy provider with retries and backoff, the safe
//! head (`finalized`, or head − confirmations), block times from headers with a cache, block by
//! timestamp (a binary search, never an assumed block time), blocks' transactions, receipts by
//! block or by transaction, and the adaptive `eth_getLogs` pager (`pager.rs`).

pub mod builder_codes;
pub mod events;
pub mod forms;
mod pager;

use std::collections::{BTreeMap, HashMap, HashSet};
use std::sync::Mutex;
use std::time::Duration;

use alloy::eips::BlockNumberOrTag;
use alloy::primitives::{Address, B256, Bytes, TxKind};
use alloy::providers::{DynProvider, Provider, ProviderBuilder};
use alloy::rpc::client::{BatchRequest, ClientBuilder};
use alloy::rpc::types::{TransactionInput, TransactionReceipt, TransactionRequest};
use alloy::transports::layers::{RateLimitRetryPolicy, RetryBackoffLayer, RetryPolicy};
use alloy::transports::{TransportError, TransportErrorKind};
use anyhow::{Context, bail};
use futures::{StreamExt, TryStreamExt, stream};

pub use pager::{LogPager, PageStats, SPARSE_PAGE};

use crate::config::ChainConfig;

/// A connected node, with the caches and the pager's state of one run.
#[derive(Debug)]
pub struct Chain {
    provider: DynProvider,
    config: ChainConfig,
    rpc_url: String,
    times: Mutex<HashMap<u64, i64>>,
    block_receipts: Mutex<Option<bool>>,
    /// Whether the node answers JSON-RPC batches (`None` until a batch was tried).
    batches: Mutex<Option<bool>>,
    pager: LogPager,
}

/// What the sources need of a transaction: its hash, who sent it, to what, with which input.
/// Read from `eth_getBlockByNumber` with full transactions, these fields only, so that every
/// transaction type parses (Base's deposit transactions included).
#[derive(Debug, Clone, PartialEq, Eq, serde::Deserialize)]
pub struct TxSummary {
    /// Transaction hash.
    pub hash: B256,
    /// Sender.
    pub from: Address,
    /// Recipient; `None` for a contract creation.
    #[serde(default)]
    pub to: Option<Address>,
    /// Call data.
    #[serde(default)]
    pub input: Bytes,
}

/// A block as [`Chain::block_transactions`] reads it.
#[derive(Debug, serde::Deserialize)]
struct BlockTransactions {
    timestamp: alloy::primitives::U64,
    transactions: Vec<TxSummary>,
}

/// What a transport error means for a retry: rate limits and 503 (alloy's own policy), plus any
/// 5xx, and the HTTP client's timeouts, connection failures and bodies cut off mid-answer.
fn transient(error: &TransportError) -> bool {
    match error {
        alloy::transports::RpcError::Transport(kind) => match kind {
            TransportErrorKind::HttpError(e) => e.status >= 500 || e.status == 429,
            TransportErrorKind::Custom(e) => e
                .downcast_ref::<reqwest::Error>()
                .is_some_and(|e| e.is_timeout() || e.is_connect() || e.is_request() || e.is_body() || body_cut_off(e)),
            TransportErrorKind::BackendGone | TransportErrorKind::MissingBatchResponse(_) => true,
            _ => false,
        },
        alloy::transports::RpcError::DeserError { text, .. } => text.trim().is_empty(),
        _ => false,
    }
}

/// Whether the answer's body could not be read in full (the connection closed short of its
/// `Content-Length`): reqwest reports that as a decode error, not a body error. alloy reads the
/// raw bytes and parses them itself, so from its transport a decode error means nothing else.
fn body_cut_off(error: &reqwest::Error) -> bool {
    error.is_decode()
}

/// The retry policy: alloy's (rate limits, 503, "header not found", …) or [`transient`], but never
/// an `eth_getLogs` refused for its size. Infura refuses with code -32005 ("query returned more
/// than 10000 results"), the code alloy takes for Infura's rate limit: retried, the refusal only
/// came back after every retry, wrapped as "Max retries exceeded" where the pager no longer sees
/// it, and the scan failed instead of shrinking its window.
#[derive(Debug, Clone, Copy)]
struct RetryTransient;

impl RetryPolicy for RetryTransient {
    fn should_retry(&self, error: &TransportError) -> bool {
        pager::too_large(error).is_none() && (RateLimitRetryPolicy::default().should_retry(error) || transient(error))
    }

    fn backoff_hint(&self, error: &TransportError) -> Option<Duration> {
        RateLimitRetryPolicy::default().backoff_hint(error)
    }
}

impl Chain {
    /// Connects to the first RPC URL that answers with the configured chain id.
    pub async fn connect(config: &ChainConfig) -> anyhow::Result<Self> {
        // reqwest is built without a TLS crypto provider: building a client before one is
        // installed panics, whatever the URL's scheme.
        crate::web::install_crypto_provider();
        let mut failures = Vec::new();
        for url in &config.rpc_urls {
            let http = reqwest::Client::builder()
                .timeout(Duration::from_millis(config.request_timeout_ms))
                .build()
                .context("building the RPC HTTP client")?;
            let retry = RetryBackoffLayer::new_with_policy(
                config.max_retries,
                config.initial_backoff_ms,
                u64::MAX,
                RetryTransient,
            );
            let client = ClientBuilder::default().layer(retry).http_with_client(http, url.clone());
            let provider = ProviderBuilder::new().disable_recommended_fillers().connect_client(client).erased();
            match provider.get_chain_id().await {
                Ok(id) if id == config.chain_id => {
                    return Ok(Self {
                        provider,
                        config: config.clone(),
                        rpc_url: redact(url),
                        times: Mutex::new(HashMap::new()),
                        block_receipts: Mutex::new(None),
                        batches: Mutex::new(None),
                        pager: LogPager::new(config.log_window, config.max_log_window),
                    });
                }
                Ok(id) => failures.push(format!("{}: chain id {id}, expected {}", redact(url), config.chain_id)),
                Err(e) => failures.push(format!("{}: {e}", redact(url))),
            }
        }
        bail!("no RPC endpoint is usable: {}", failures.join("; "))
    }

    /// The provider, for calls the helpers here do not cover.
    pub fn provider(&self) -> &DynProvider {
        &self.provider
    }

    /// The endpoint in use, without credentials or query (API keys live there).
    pub fn rpc_url(&self) -> &str {
        &self.rpc_url
    }

    /// The configuration.
    pub fn config(&self) -> &ChainConfig {
        &self.config
    }

    /// The pager (its window carries over between the sources of one run).
    pub fn pager(&self) -> &LogPager {
        &self.pager
    }

    /// The newest block it is safe to read: `finalized` when the node has it and the config asks
    /// for it, else head − confirmations.
    pub async fn safe_head(&self) -> anyhow::Result<u64> {
        if self.config.use_finalized
            && let Ok(Some(block)) = self.provider.get_block_by_number(BlockNumberOrTag::Finalized).await
        {
            self.remember_time(block.header.number, block.header.timestamp as i64);
            return Ok(block.header.number);
        }
        let head = self.provider.get_block_number().await.context("eth_blockNumber")?;
        Ok(head.saturating_sub(self.config.confirmations))
    }

    fn remember_time(&self, block: u64, time: i64) {
        self.times.lock().expect("time cache").insert(block, time);
    }

    /// Unix time of a block, from its header (cached).
    pub async fn block_time(&self, block: u64) -> anyhow::Result<i64> {
        if let Some(t) = self.times.lock().expect("time cache").get(&block) {
            return Ok(*t);
        }
        let header = self
            .provider
            .get_block_by_number(BlockNumberOrTag::Number(block))
            .await
            .with_context(|| format!("eth_getBlockByNumber({block})"))?
            .with_context(|| format!("block {block} does not exist"))?;
        let time = header.header.timestamp as i64;
        self.remember_time(block, time);
        Ok(time)
    }

    /// Times of many blocks, fetched with bounded concurrency.
    pub async fn block_times(&self, blocks: impl IntoIterator<Item = u64>) -> anyhow::Result<BTreeMap<u64, i64>> {
        let blocks: Vec<u64> = blocks.into_iter().collect();
        stream::iter(blocks)
            .map(|b| async move { self.block_time(b).await.map(|t| (b, t)) })
            .buffer_unordered(self.config.concurrency)
            .try_collect()
            .await
    }

    /// The transactions `wanted` of each block (`eth_getBlockByNumber` with full transactions),
    /// fetched with bounded concurrency as `blocks` yields them; the blocks' times are remembered
    /// as [`Chain::block_time`]'s. Only the wanted transactions are held, so a long range of full
    /// blocks never is.
    pub async fn block_transactions(
        &self,
        blocks: impl futures::Stream<Item = (u64, Vec<B256>)>,
    ) -> anyhow::Result<Vec<TxSummary>> {
        let kept: Vec<Vec<TxSummary>> = blocks
            .map(|(b, wanted)| async move {
                let block: Option<BlockTransactions> = self
                    .provider
                    .raw_request("eth_getBlockByNumber".into(), (BlockNumberOrTag::Number(b), true))
                    .await
                    .with_context(|| format!("eth_getBlockByNumber({b}, full)"))?;
                let block = block.with_context(|| format!("block {b} does not exist"))?;
                self.remember_time(b, block.timestamp.to::<i64>());
                let wanted: HashSet<B256> = wanted.into_iter().collect();
                anyhow::Ok(block.transactions.into_iter().filter(|t| wanted.contains(&t.hash)).collect())
            })
            .buffer_unordered(self.config.concurrency)
            .try_collect()
            .await?;
        Ok(kept.into_iter().flatten().collect())
    }

    /// The first block in `[lo, hi]` whose time is ≥ `time`, or `hi + 1` when none is: a binary
    /// search over headers (about log2(hi − lo) calls), since block times are not constant.
    pub async fn first_block_at_or_after(&self, time: i64, lo: u64, hi: u64) -> anyhow::Result<u64> {
        let (mut lo, mut hi) = (lo, hi + 1);
        while lo < hi {
            let mid = lo + (hi - lo) / 2;
            if self.block_time(mid).await? >= time {
                hi = mid;
            } else {
                lo = mid + 1;
            }
        }
        Ok(lo)
    }

    /// The receipts of the transactions `txs` (grouped by block): `eth_getBlockReceipts` where the
    /// node has it, else one `eth_getTransactionReceipt` per transaction.
    pub async fn receipts(&self, txs: &BTreeMap<u64, Vec<B256>>) -> anyhow::Result<HashMap<B256, TransactionReceipt>> {
        let mut out = HashMap::new();
        let by_block = *self.block_receipts.lock().expect("receipts mode") != Some(false);
        if by_block {
            let fetched: Result<Vec<_>, _> = stream::iter(txs.keys().copied())
                .map(|b| async move { (b, self.provider.get_block_receipts(BlockNumberOrTag::Number(b).into()).await) })
                .buffer_unordered(self.config.concurrency)
                .map(|(b, r)| match r {
                    Ok(Some(receipts)) => Ok(receipts),
                    Ok(None) => Err(anyhow::anyhow!("block {b} has no receipts (pruned node?)")),
                    Err(e) => Err(anyhow::Error::new(e).context(format!("eth_getBlockReceipts({b})"))),
                })
                .try_collect()
                .await;
            match fetched {
                Ok(blocks) => {
                    *self.block_receipts.lock().expect("receipts mode") = Some(true);
                    for r in blocks.into_iter().flatten() {
                        out.insert(r.transaction_hash, r);
                    }
                    return Ok(out);
                }
                Err(e) if is_method_missing(&e) => {
                    tracing::info!("the node has no eth_getBlockReceipts; reading receipts one transaction at a time");
                    *self.block_receipts.lock().expect("receipts mode") = Some(false);
                }
                Err(e) => return Err(e),
            }
        }
        let hashes: Vec<B256> = txs.values().flatten().copied().collect();
        self.transaction_receipts(&hashes).await
    }

    /// The receipts of `hashes`: `eth_getTransactionReceipt` in JSON-RPC batches of
    /// `receipts_per_batch` where the node answers batches (`BENCHMARKS.md` § 5c), else one call
    /// each (for the rest of the run once a node refused a batch); with bounded concurrency.
    pub async fn transaction_receipts(&self, hashes: &[B256]) -> anyhow::Result<HashMap<B256, TransactionReceipt>> {
        let per_batch = self.config.receipts_per_batch;
        let batched = per_batch > 1 && *self.batches.lock().expect("batch mode") != Some(false);
        if batched && hashes.len() > 1 {
            let chunks: Vec<Vec<B256>> = hashes.chunks(per_batch).map(<[B256]>::to_vec).collect();
            let fetched: Result<Vec<Vec<TransactionReceipt>>, _> = stream::iter(chunks)
                .map(|chunk| self.receipts_batch(chunk))
                .buffer_unordered(self.config.concurrency)
                .try_collect()
                .await;
            match fetched {
                Ok(batches) => {
                    *self.batches.lock().expect("batch mode") = Some(true);
                    return Ok(batches.into_iter().flatten().map(|r| (r.transaction_hash, r)).collect());
                }
                Err(ReceiptsError::BatchRefused(e)) => {
                    tracing::info!(error = %format!("{e:#}"), "the node refuses JSON-RPC batches; reading receipts one call at a time");
                    *self.batches.lock().expect("batch mode") = Some(false);
                }
                Err(ReceiptsError::Call(e)) => return Err(e),
            }
        }
        let receipts: Vec<TransactionReceipt> = stream::iter(hashes.iter().copied())
            .map(|h| async move {
                self.provider
                    .get_transaction_receipt(h)
                    .await
                    .with_context(|| format!("eth_getTransactionReceipt({h})"))?
                    .with_context(|| format!("no receipt for {h}"))
            })
            .buffer_unordered(self.config.concurrency)
            .try_collect()
            .await?;
        Ok(receipts.into_iter().map(|r| (r.transaction_hash, r)).collect())
    }

    /// The receipts of `hashes` in one batch. A batch the node does not answer as a batch (an
    /// error for the whole request) is `BatchRefused`; a call in it that fails is `Call`.
    async fn receipts_batch(&self, hashes: Vec<B256>) -> Result<Vec<TransactionReceipt>, ReceiptsError> {
        let mut batch = BatchRequest::new(self.provider.client());
        let mut waiters = Vec::with_capacity(hashes.len());
        for h in &hashes {
            let waiter = batch
                .add_call::<_, Option<TransactionReceipt>>("eth_getTransactionReceipt", &(h,))
                .map_err(|e| ReceiptsError::BatchRefused(anyhow::Error::new(e).context("building a receipts batch")))?;
            waiters.push(waiter);
        }
        batch.send().await.map_err(|e| ReceiptsError::BatchRefused(anyhow::Error::new(e)))?;
        let mut out = Vec::with_capacity(hashes.len());
        for (h, waiter) in hashes.iter().zip(waiters) {
            let receipt = waiter.await.map_err(|e| {
                // A node that takes a batch but answers each call with an error does not batch
                // (judged on the node's own words, before ours are added).
                let cause = anyhow::Error::new(e);
                let refused = is_method_missing(&cause) || is_batch_refusal(&cause);
                let e = cause.context(format!("eth_getTransactionReceipt({h}) in a batch"));
                if refused { ReceiptsError::BatchRefused(e) } else { ReceiptsError::Call(e) }
            })?;
            out.push(receipt.with_context(|| format!("no receipt for {h}")).map_err(ReceiptsError::Call)?);
        }
        Ok(out)
    }

    /// `eth_call` of `data` on `to` at `block`.
    pub async fn call(&self, to: Address, data: Bytes, block: u64) -> anyhow::Result<Bytes> {
        let tx =
            TransactionRequest { to: Some(TxKind::Call(to)), input: TransactionInput::new(data), ..Default::default() };
        self.provider
            .call(tx)
            .block(BlockNumberOrTag::Number(block).into())
            .await
            .with_context(|| format!("eth_call to {to}"))
    }
}

/// Why a batch of receipts was not read.
enum ReceiptsError {
    /// The node did not take the batch as a batch: ask one call at a time.
    BatchRefused(anyhow::Error),
    /// A receipt could not be read.
    Call(anyhow::Error),
}

/// Whether `e` says the node does not take batches (or not this large).
fn is_batch_refusal(e: &anyhow::Error) -> bool {
    let text = format!("{e:#}").to_ascii_lowercase();
    text.contains("batch")
}

fn is_method_missing(e: &anyhow::Error) -> bool {
    let text = format!("{e:#}").to_ascii_lowercase();
    text.contains("method not found") || text.contains("-32601") || text.contains("not supported")
}

/// An RPC URL as it may be shown: scheme, host and port only.
pub fn redact(url: &url::Url) -> String {
    match (url.host_str(), url.port()) {
        (Some(host), Some(port)) => format!("{}://{host}:{port}", url.scheme()),
        (Some(host), None) => format!("{}://{host}", url.scheme()),
        _ => url.scheme().to_owned(),
    }
}

#[cfg(test)]
mod tests {
    use std::io::{Read, Write};

    use super::*;

    fn rpc_error(code: i64, message: &str) -> TransportError {
        alloy::transports::RpcError::ErrorResp(
            serde_json::from_value(serde_json::json!({"code": code, "message": message})).expect("payload"),
        )
    }

    /// A loopback server that answers one request with a `Content-Length` of 100 but 16 bytes of
    /// body, then closes the connection.
    fn cut_off_server() -> String {
        let listener = std::net::TcpListener::bind("127.0.0.1:0").expect("binds");
        let url = format!("http://{}/", listener.local_addr().expect("address"));
        std::thread::spawn(move || {
            let (mut s, _) = listener.accept().expect("a client");
            s.set_read_timeout(Some(Duration::from_secs(5))).expect("timeout");
            let mut request = Vec::new();
            let mut buf = [0u8; 1024];
            // The whole request (its body is `{}`), so closing does not reset the connection.
            while !request.ends_with(b"{}") {
                match s.read(&mut buf) {
                    Ok(0) | Err(_) => break,
                    Ok(n) => request.extend_from_slice(&buf[..n]),
                }
            }
            let _ = s.write_all(
                b"HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nContent-Length: 100\r\n\r\n{\"jsonrpc\":\"2.0\"",
            );
        });
        url
    }

    #[tokio::test]
    async fn a_body_cut_off_mid_answer_is_retried() {
        crate::web::install_crypto_provider();
        let with_timeout = reqwest::Client::builder().timeout(Duration::from_secs(10)).build().expect("client");
        for client in [reqwest::Client::new(), with_timeout] {
            let response = client.post(cut_off_server()).body("{}").send().await.expect("headers arrive");
            // What alloy's HTTP transport does with a body it cannot read.
            let error = TransportErrorKind::custom(response.bytes().await.expect_err("the body is cut off"));
            assert!(transient(&error), "{error}");
            assert!(RetryTransient.should_retry(&error));
        }
    }

    #[test]
    fn size_refusals_are_not_retried_and_rate_limits_are() {
        let infura_size =
            rpc_error(-32005, "query returned more than 10000 results. Try with this block range [0x1, 0x32].");
        assert!(RateLimitRetryPolicy::default().should_retry(&infura_size), "alloy takes -32005 for a rate limit");
        assert!(!RetryTransient.should_retry(&infura_size), "the pager shrinks instead");
        assert!(!RetryTransient.should_retry(&rpc_error(-32602, "range 1000000 exceeds limit of 10000")));
        for retried in [
            rpc_error(-32005, "daily request count exceeded, request rate limited"),
            rpc_error(429, "Your app has exceeded its compute units per second capacity."),
            rpc_error(-32000, "header not found"),
            TransportErrorKind::http_error(429, "Too Many Requests".into()),
            TransportErrorKind::http_error(503, "Service Unavailable".into()),
            TransportErrorKind::http_error(502, String::new()),
        ] {
            assert!(RetryTransient.should_retry(&retried), "{retried}");
        }
    }
}
