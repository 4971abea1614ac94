//! USDC settlements to candidate sellers (onchain.md §1): `Transfer` logs whose `to` is the payTo
//! of a current listing (topic filters in batches, never a scan of every USDC transfer). The
//! blocks holding them are read with their transactions (`eth_getBlockByNumber`, full): the
//! sender is the facilitator or relayer, and a transaction that calls USDC itself says by its
//! function whether the payer's EIP-3009 authorization moved the funds. Only a settlement made
//! through another contract (a router, the x402 Permit2 proxy) needs its receipt: whether an
//! `AuthorizationUsed` by the payer immediately precedes the Transfer, or the proxy settled it
//! (`Settled()`). A block with its transactions costs a node less than the block's receipts
//! (anvil builds a block's receipts in time quadratic in its transactions: `BENCHMARKS.md` § 5).

use std::collections::{BTreeMap, BTreeSet, HashMap};

use agentrep_lake::datasets::{ListingRow, SettlementRow};
use alloy::primitives::{Address, B256};
use alloy::rpc::types::{Filter, Log, TransactionReceipt};
use alloy::sol_types::{SolCall, SolEvent};
use chrono::{DateTime, Days, Utc};

use super::merge::replace_range;
use super::range::{self, BlockCursor};
use super::{RunContext, RunReport, Source, SourceName, hex_address, ts};
use crate::chain::events::{
    AuthorizationUsed, Settled, Transfer, receiveWithAuthorization_0Call, receiveWithAuthorization_1Call,
    transferWithAuthorization_0Call, transferWithAuthorization_1Call,
};
use crate::chain::{Chain, TxSummary};
use crate::config::Contracts;

/// Listings seen within this many days make their payTo a candidate seller.
const CANDIDATE_DAYS: u64 = 30;

/// The settlements job.
#[derive(Debug)]
pub struct Settlements;

impl Source for Settlements {
    const NAME: SourceName = SourceName::Settlements;
    type Checkpoint = BlockCursor;

    async fn run(ctx: &RunContext<'_>, cursor: BlockCursor) -> anyhow::Result<(BlockCursor, RunReport)> {
        let chain = ctx.chain(Self::NAME)?;
        let Some(range) = range::plan(chain, &cursor, &ctx.bounds).await? else {
            return Ok((cursor, RunReport::default()));
        };
        let sellers = candidate_sellers(ctx)?;
        let mut report = RunReport { blocks: Some((range.start, range.end)), ..RunReport::default() };
        if sellers.is_empty() {
            report
                .notes
                .push("no listings in the lake: no candidate sellers (run the marketplace source first)".into());
        }
        // Each page's blocks are read (with their transactions) while the next page is scanned.
        let started = std::time::Instant::now();
        let (wanted, blocks) = futures::channel::mpsc::unbounded::<(u64, Vec<B256>)>();
        let scan = async {
            let send = |_: u64, page: &[Log]| {
                // A closed channel means the block reader failed; its error is the one returned.
                for item in txs_by_block(page) {
                    let _ = wanted.unbounded_send(item);
                }
            };
            let logs = transfers_to(ctx, chain, &sellers, range.start, range.end, &mut report, send).await;
            // The last page is sent: the block reader ends once it has read it.
            wanted.close_channel();
            logs.map(|logs| (logs, started.elapsed()))
        };
        let read = async { chain.block_transactions(blocks).await.map(|txs| (txs, started.elapsed())) };
        let ((logs, scanned), (txs, fetched)) = futures::try_join!(scan, read)?;
        let txs: HashMap<B256, TxSummary> = txs.into_iter().map(|t| (t.hash, t)).collect();
        let classifying = std::time::Instant::now();
        let contracts = &ctx.config.contracts;
        let routed = txs.values().filter(|t| t.to != Some(contracts.usdc)).count() as u64;
        ctx.progress.start("settlements: receipts", routed);
        let rows = classify(chain, contracts, &logs, &txs).await?;
        ctx.progress.finish();
        let classified = classifying.elapsed();
        let written = std::time::Instant::now();
        let (from, to) = range.times();
        let (days, n) = replace_range(ctx.lake, rows, from, to, |r| r.block_time, order)?;
        tracing::debug!(
            logs = logs.len(),
            scan_ms = scanned.as_millis() as u64,
            transactions_ms = fetched.as_millis() as u64,
            classify_ms = classified.as_millis() as u64,
            write_ms = written.elapsed().as_millis() as u64,
            "settlements: where the time went (scan and transactions overlap: each is the time it ended)"
        );
        report.rows = n;
        report.days = days;
        Ok((range.cursor(), report))
    }

    fn coverage(cursor: &BlockCursor) -> (Option<DateTime<Utc>>, Option<u64>) {
        cursor.coverage()
    }
}

fn order(a: &SettlementRow, b: &SettlementRow) -> std::cmp::Ordering {
    (a.block_number, &a.tx_hash, a.log_index).cmp(&(b.block_number, &b.tx_hash, b.log_index))
}

/// The payTos of listings seen in the last 30 days of the lake, as addresses.
pub(crate) fn candidate_sellers(ctx: &RunContext<'_>) -> anyhow::Result<BTreeSet<Address>> {
    let parts = ctx.lake.partitions(agentrep_lake::Dataset::Listings)?;
    let Some(newest) = parts.last().map(|p| p.date) else { return Ok(BTreeSet::new()) };
    let oldest = newest.checked_sub_days(Days::new(CANDIDATE_DAYS)).unwrap_or(newest);
    let mut out = BTreeSet::new();
    for part in parts.iter().filter(|p| p.date >= oldest) {
        for listing in ctx.lake.read_partition::<ListingRow>(part.date)? {
            if let Ok(a) = listing.pay_to.parse::<Address>() {
                out.insert(a);
            }
        }
    }
    Ok(out)
}

/// USDC `Transfer` logs to any of `recipients` in `[start, end]`, in chain order; `on_page` sees
/// each page as it arrives (with more than `topic_batch` recipients, the range is scanned once per
/// batch, so a block may come in more than one page).
pub(crate) async fn transfers_to(
    ctx: &RunContext<'_>,
    chain: &Chain,
    recipients: &BTreeSet<Address>,
    start: u64,
    end: u64,
    report: &mut RunReport,
    mut on_page: impl FnMut(u64, &[Log]),
) -> anyhow::Result<Vec<Log>> {
    let usdc = ctx.config.contracts.usdc;
    let list: Vec<Address> = recipients.iter().copied().collect();
    let batches = list.chunks(chain.config().topic_batch).count() as u64;
    ctx.progress.start("settlements: USDC transfers to sellers", (end - start + 1) * batches.max(1));
    let mut out = Vec::new();
    for (i, batch) in list.chunks(chain.config().topic_batch).enumerate() {
        let topics: Vec<B256> = batch.iter().map(|a| a.into_word()).collect();
        let filter = usdc_transfers_to(usdc, topics);
        let base = i as u64 * (end - start + 1);
        let (logs, stats) = chain
            .pager()
            .scan_pages(chain.provider(), &filter, start, end, |b, page| {
                ctx.progress.set(base + b - start + 1);
                on_page(b, page);
            })
            .await?;
        report.pages += stats.pages;
        report.shrinks += stats.shrinks;
        report.logs += stats.logs;
        out.extend(logs);
    }
    ctx.progress.finish();
    out.sort_by_key(|l| (l.block_number, l.log_index));
    Ok(out)
}

/// The USDC `Transfer` logs to any of `recipients` (as topics).
fn usdc_transfers_to(usdc: Address, recipients: Vec<B256>) -> Filter {
    Filter::new().address(usdc).event_signature(Transfer::SIGNATURE_HASH).topic2(recipients)
}

/// The transactions of `logs`, by block (what the block reader fetches).
fn txs_by_block(logs: &[Log]) -> BTreeMap<u64, Vec<B256>> {
    let mut by_block: BTreeMap<u64, Vec<B256>> = BTreeMap::new();
    for log in logs {
        if let (Some(block), Some(tx)) = (log.block_number, log.transaction_hash) {
            by_block.entry(block).or_default().push(tx);
        }
    }
    by_block
}

/// One seller's settlements in blocks `[start, end]`, classified as the settlements job classifies
/// them: what the server's live re-score reads of the chain since a snapshot.
pub async fn settlements_of(
    chain: &Chain,
    contracts: &Contracts,
    seller: Address,
    start: u64,
    end: u64,
) -> anyhow::Result<Vec<SettlementRow>> {
    if start > end {
        return Ok(Vec::new());
    }
    let filter = usdc_transfers_to(contracts.usdc, vec![seller.into_word()]);
    let (mut logs, _) = chain.pager().scan_pages(chain.provider(), &filter, start, end, |_, _| {}).await?;
    logs.sort_by_key(|l| (l.block_number, l.log_index));
    let txs = chain.block_transactions(futures::stream::iter(txs_by_block(&logs))).await?;
    let txs: HashMap<B256, TxSummary> = txs.into_iter().map(|t| (t.hash, t)).collect();
    classify(chain, contracts, &logs, &txs).await
}

/// Turns Transfer logs into settlement rows (with `txs`, their transactions): block time, payer,
/// seller, value, who sent the transaction, whether EIP-3009 paired it.
async fn classify(
    chain: &Chain,
    contracts: &Contracts,
    logs: &[Log],
    txs: &HashMap<B256, TxSummary>,
) -> anyhow::Result<Vec<SettlementRow>> {
    let usdc = contracts.usdc;
    // Settlements through another contract: only their receipts tell.
    let routed: Vec<B256> = txs.values().filter(|t| t.to != Some(usdc)).map(|t| t.hash).collect();
    let receipts = chain.transaction_receipts(&routed).await?;
    // Remembered from the blocks read: no more calls.
    let times = chain.block_times(logs.iter().filter_map(|l| l.block_number).collect::<BTreeSet<_>>()).await?;
    tracing::debug!(receipts = receipts.len(), "settlements: receipts of settlements through contracts");
    let proxy = contracts.permit2_proxy;
    let network = chain.config().network();
    let asset = hex_address(&usdc);
    let mut rows = Vec::with_capacity(logs.len());
    for log in logs {
        let Ok(transfer) = log.log_decode::<Transfer>() else { continue };
        let (Some(block), Some(hash), Some(index)) = (log.block_number, log.transaction_hash, log.log_index) else {
            continue;
        };
        let Transfer { from, to, value } = transfer.inner.data;
        if from == Address::ZERO {
            // A mint is issuance, not a payment by anyone.
            continue;
        }
        let tx = txs.get(&hash).ok_or_else(|| anyhow::anyhow!("transaction {hash} is not in block {block}"))?;
        let (eip3009, permit2) = match receipts.get(&hash) {
            Some(receipt) => (authorization_precedes(receipt, usdc, from, index), settled_by_proxy(receipt, proxy)),
            None if tx.to == Some(usdc) => (authorizes(&tx.input, from), false),
            None => anyhow::bail!("no receipt for {hash}"),
        };
        let relayed = tx.from != from;
        rows.push(SettlementRow {
            tx_hash: format!("{hash:#x}"),
            log_index: index as u32,
            block_number: block,
            block_time: ts(times[&block]),
            payer: hex_address(&from),
            pay_to: hex_address(&to),
            value: u64::try_from(value).unwrap_or(u64::MAX),
            asset: asset.clone(),
            facilitator: (relayed || permit2).then(|| hex_address(&tx.from)),
            eip3009,
            network: network.clone(),
        });
    }
    Ok(rows)
}

/// A call to USDC itself is one of its EIP-3009 functions with `payer` as `from` (the first
/// argument): USDC then emits the payer's `AuthorizationUsed` immediately before the Transfer,
/// which is what [`authorization_precedes`] looks for in a receipt. Any other call to USDC
/// (`transfer`, `transferFrom`) moves funds without an authorization.
fn authorizes(input: &[u8], payer: Address) -> bool {
    const SELECTORS: [[u8; 4]; 4] = [
        transferWithAuthorization_0Call::SELECTOR,
        transferWithAuthorization_1Call::SELECTOR,
        receiveWithAuthorization_0Call::SELECTOR,
        receiveWithAuthorization_1Call::SELECTOR,
    ];
    input.len() >= 36 && SELECTORS.iter().any(|s| input[..4] == s[..]) && input[4..36] == payer.into_word()[..]
}

/// An `AuthorizationUsed(authorizer == payer)` from the token at log index − 1 (USDC emits it
/// immediately before the Transfer).
fn authorization_precedes(receipt: &TransactionReceipt, token: Address, payer: Address, index: u64) -> bool {
    receipt.inner.logs().iter().any(|l| {
        l.log_index == Some(index.wrapping_sub(1))
            && l.address() == token
            && l.log_decode::<AuthorizationUsed>().is_ok_and(|a| a.inner.data.authorizer == payer)
    })
}

/// The transaction went to the x402 Permit2 proxy, which logged `Settled()`.
fn settled_by_proxy(receipt: &TransactionReceipt, proxy: Address) -> bool {
    receipt.to == Some(proxy)
        && receipt.inner.logs().iter().any(|l| l.address() == proxy && l.topic0() == Some(&Settled::SIGNATURE_HASH))
}

#[cfg(test)]
mod tests {
    use alloy::primitives::{U256, address};

    use super::*;

    #[test]
    fn a_direct_eip3009_call_by_the_payer_authorizes() {
        let payer = address!("0x00000000000000000000000000000000000000aa");
        let seller = address!("0x00000000000000000000000000000000000000bb");
        let (value, after, before, nonce) = (U256::from(10_000u64), U256::ZERO, U256::MAX, B256::repeat_byte(7));
        let vrs = transferWithAuthorization_0Call {
            from: payer,
            to: seller,
            value,
            validAfter: after,
            validBefore: before,
            nonce,
            v: 27,
            r: B256::ZERO,
            s: B256::ZERO,
        }
        .abi_encode();
        let bytes = receiveWithAuthorization_1Call {
            from: payer,
            to: seller,
            value,
            validAfter: after,
            validBefore: before,
            nonce,
            signature: vec![1u8; 65].into(),
        }
        .abi_encode();
        assert!(authorizes(&vrs, payer));
        assert!(authorizes(&bytes, payer));
        assert!(!authorizes(&vrs, seller), "another wallet's authorization");
        let mut transfer = vec![0xa9, 0x05, 0x9c, 0xbb];
        transfer.extend_from_slice(&vrs[4..]);
        assert!(!authorizes(&transfer, payer), "transfer(…) uses no authorization");
        assert!(!authorizes(&vrs[..20], payer));
    }
}
