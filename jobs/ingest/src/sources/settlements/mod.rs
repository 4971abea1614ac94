//! USDC settlements to candidate sellers (onchain.md §1, x402.md § 8), in every form x402 settles
//! in: `Transfer` logs whose `to` is the payTo of a current listing (topic filters in batches,
//! never a scan of every USDC transfer), plus the logs of the settlement contracts whose events say
//! what a Transfer alone does not (the auth-capture escrow's outcomes, the batch contract's claims).
//! The blocks holding them are read with their transactions (`eth_getBlockByNumber`, full): the
//! sender is the facilitator or relayer, a transaction that calls USDC itself says by its function
//! whether the payer's EIP-3009 authorization moved the funds, and every settling call's calldata
//! may end with ERC-8021 builder codes. Only a settlement made through another contract (a router,
//! a Permit2 proxy, the escrow) needs its receipt, which [`reading`] reads. A block with its
//! transactions costs a node less than the block's receipts (anvil builds a block's receipts in
//! time quadratic in its transactions: `BENCHMARKS.md` § 5).

mod channels;
mod escrow;
mod reading;

use std::collections::{BTreeMap, BTreeSet, HashMap};

use agentrep_lake::datasets::{EscrowEventRow, ListingRow, SettlementRow};
use alloy::primitives::{Address, B256};
use alloy::rpc::types::{Filter, Log};
use alloy::sol_types::SolEvent;
use chrono::{DateTime, Days, Utc};

use self::reading::{Payments, Reading, TransferLog};
use super::merge::{read_all, replace_range};
use super::range::{self, BlockCursor};
use super::{RunContext, RunReport, Source, SourceName, hex_address, ts};
use crate::chain::events::Transfer;
use crate::chain::forms::{self, Role};
use crate::chain::{Chain, PageStats, TxSummary, builder_codes};
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
        // The escrow's outcomes and the batch contract's claims, read whole (few logs) while the
        // transfers are scanned.
        let contract_scan = contract_logs(chain, &range);
        let ((logs, scanned), (txs, fetched), (contract_logs, stats)) = futures::try_join!(scan, read, contract_scan)?;
        report.pages += stats.pages;
        report.shrinks += stats.shrinks;
        report.logs += stats.logs;
        let of_role = |keep: fn(Role) -> bool| -> Vec<Log> {
            contract_logs.iter().filter(|l| forms::role_of(l.address()).is_some_and(keep)).cloned().collect()
        };
        let escrow_logs = of_role(|r| matches!(r, Role::Escrow(_)));
        let channel_logs = of_role(|r| r == Role::BatchSettlement);
        let mut txs: HashMap<B256, TxSummary> = txs.into_iter().map(|t| (t.hash, t)).collect();
        let classifying = std::time::Instant::now();
        let contracts = &ctx.config.contracts;
        let missing: Vec<Log> = escrow_logs
            .iter()
            .chain(&channel_logs)
            .filter(|l| l.transaction_hash.is_some_and(|h| !txs.contains_key(&h)))
            .cloned()
            .collect();
        txs.extend(
            chain
                .block_transactions(futures::stream::iter(txs_by_block(&missing)))
                .await?
                .into_iter()
                .map(|t| (t.hash, t)),
        );
        let times = chain
            .block_times(
                logs.iter()
                    .chain(&escrow_logs)
                    .chain(&channel_logs)
                    .filter_map(|l| l.block_number)
                    .collect::<BTreeSet<_>>(),
            )
            .await?;
        // The payments of earlier runs, read only when the escrow logged something in this range
        // (a run every 30 s must not read the whole dataset for nothing).
        let known = if escrow_logs.is_empty() {
            Payments::new()
        } else {
            escrow::known_payments(read_all::<EscrowEventRow>(ctx.lake)?)
        };
        let escrowed = escrow::scan(&escrow_logs, chain.config().chain_id, &txs, &times, known, &sellers);
        let network = chain.config().network();
        let claim_cx = channels::ClaimContext {
            chain_id: chain.config().chain_id,
            usdc: contracts.usdc,
            network: &network,
            sellers: &sellers,
        };
        let claims = channels::scan(&claim_cx, &channel_logs, &txs, &times);
        ctx.progress.start("settlements: receipts", routed(&logs, &txs, contracts.usdc).len() as u64);
        let classified = classify(chain, contracts, &logs, &txs, &escrowed.payments).await?;
        ctx.progress.finish();
        let mut rows = classified.rows;
        rows.extend(claims.rows);
        for (what, n) in [
            ("escrow events whose payment is not known (left out)", escrowed.unresolved),
            ("escrow payouts whose payment is not known (left out)", classified.unknown_payments),
            ("batch claims whose channel is not known (left out)", claims.unresolved),
        ] {
            if n > 0 {
                report.notes.push(format!("{n} {what}"));
            }
        }
        let classify_time = classifying.elapsed();
        let written = std::time::Instant::now();
        let (from, to) = range.times();
        let (days, n) = replace_range(ctx.lake, rows, from, to, |r| r.block_time, order)?;
        let (escrow_days, escrow_n) = replace_range(
            ctx.lake,
            escrowed.rows,
            from,
            to,
            |r| r.block_time,
            |a, b| (a.block_number, &a.tx_hash, a.log_index).cmp(&(b.block_number, &b.tx_hash, b.log_index)),
        )?;
        tracing::debug!(
            logs = logs.len(),
            escrow_logs = escrow_logs.len(),
            channel_logs = channel_logs.len(),
            scan_ms = scanned.as_millis() as u64,
            transactions_ms = fetched.as_millis() as u64,
            classify_ms = classify_time.as_millis() as u64,
            write_ms = written.elapsed().as_millis() as u64,
            "settlements: where the time went (scan and transactions overlap: each is the time it ended)"
        );
        report.rows = n + escrow_n;
        report.days = days.into_iter().chain(escrow_days).collect::<BTreeSet<_>>().into_iter().collect();
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

/// The logs of the escrows and the batch settlement contract in the run's range (all of them:
/// their events do not index the receiver, so there is no seller to filter on), in chain order.
async fn contract_logs(chain: &Chain, range: &range::BlockRange) -> anyhow::Result<(Vec<Log>, PageStats)> {
    let addresses = forms::addresses(|r| matches!(r, Role::Escrow(_) | Role::BatchSettlement));
    let topics: Vec<B256> = escrow::topics().into_iter().chain(channels::topics()).collect();
    let filter = Filter::new().address(addresses).event_signature(topics);
    let (mut logs, stats) =
        chain.pager().scan_pages(chain.provider(), &filter, range.start, range.end, |_, _| {}).await?;
    logs.sort_by_key(|l| (l.block_number, l.log_index));
    Ok((logs, stats))
}

/// One seller's settlements in blocks `[start, end]`, classified as the settlements job classifies
/// them: what the server's live re-score reads of the chain since a snapshot. A capture's payment
/// is read from the capture's own call or event (the escrow's earlier events are not scanned
/// here), and batch claims are left to the day's run.
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
    Ok(classify(chain, contracts, &logs, &txs, &Payments::new()).await?.rows)
}

/// The transactions of `logs` that went through another contract than USDC: only their receipts
/// tell how the Transfer was made.
fn routed(logs: &[Log], txs: &HashMap<B256, TxSummary>, usdc: Address) -> Vec<B256> {
    let mut out: Vec<B256> = logs
        .iter()
        .filter_map(|l| l.transaction_hash)
        .filter(|h| txs.get(h).is_some_and(|t| t.to != Some(usdc)))
        .collect();
    out.sort_unstable();
    out.dedup();
    out
}

/// What [`classify`] made of the Transfer logs.
struct Classified {
    rows: Vec<SettlementRow>,
    /// Escrow payouts whose payment was not known (left out rather than paid by the token store).
    unknown_payments: u64,
}

/// Turns Transfer logs into settlement rows (with `txs`, their transactions, and `payments`, the
/// escrowed payments known): block time, true payer, seller, value, form, who relayed it, and the
/// builder codes on the settling call.
async fn classify(
    chain: &Chain,
    contracts: &Contracts,
    logs: &[Log],
    txs: &HashMap<B256, TxSummary>,
    payments: &Payments,
) -> anyhow::Result<Classified> {
    let usdc = contracts.usdc;
    let receipts = chain.transaction_receipts(&routed(logs, txs, usdc)).await?;
    // Remembered from the blocks read: no more calls.
    let times = chain.block_times(logs.iter().filter_map(|l| l.block_number).collect::<BTreeSet<_>>()).await?;
    tracing::debug!(receipts = receipts.len(), "settlements: receipts of settlements through contracts");
    let network = chain.config().network();
    let asset = hex_address(&usdc);
    let mut out = Classified { rows: Vec::with_capacity(logs.len()), unknown_payments: 0 };
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
        let receipt = receipts.get(&hash);
        if receipt.is_none() && tx.to != Some(usdc) {
            anyhow::bail!("no receipt for {hash}");
        }
        let (form, payer, facilitator) = match reading::read(
            usdc,
            chain.config().chain_id,
            tx,
            receipt,
            TransferLog { from, to, index },
            payments,
        ) {
            Reading::Settlement { form, payer, facilitator } => (form, payer, facilitator),
            Reading::Sweep | Reading::PayoutFee => continue,
            Reading::UnknownPayment => {
                out.unknown_payments += 1;
                continue;
            }
        };
        let (builder_app, builder_wallet, builder_services) =
            builder_codes::parse(&tx.input).unwrap_or_default().into_columns();
        out.rows.push(SettlementRow {
            tx_hash: format!("{hash:#x}"),
            log_index: index as u32,
            block_number: block,
            block_time: ts(times[&block]),
            payer: hex_address(&payer),
            pay_to: hex_address(&to),
            value: u64::try_from(value).unwrap_or(u64::MAX),
            asset: asset.clone(),
            facilitator: facilitator.map(|f| hex_address(&f)),
            eip3009: form == agentrep_lake::SettlementForm::Eip3009,
            network: network.clone(),
            form: Some(form),
            channel: None,
            builder_app,
            builder_wallet,
            builder_services,
        });
    }
    Ok(out)
}
