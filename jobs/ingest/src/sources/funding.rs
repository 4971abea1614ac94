//! First USDC funder of every payer, seller and other actor the lake knows ([`actors`]; onchain.md §9): the earliest `Transfer` to the
//! wallet, with amount and time; then the funder's own first funder, and so on, up to
//! `chain.funding_hops` steps back, so a payer funded by the seller through intermediaries is
//! seen as such. Mints (from the zero address) are issuance, not funding by a
//! wallet, and are skipped; so is a batch-settlement sweep (it pays out claims, which are
//! settlements), and an escrow payout is funded by the escrowed payment's payer, not the escrow's
//! token store. ETH funding needs traces (`trace_filter`); this job reads USDC only
//! and says so in its report.

use std::collections::{BTreeMap, BTreeSet, HashMap};

use agentrep_lake::SettlementForm;
use agentrep_lake::datasets::{FeedbackRow, FundingRow, LaunchRow, ReceiptRow, RegistrationRow, SettlementRow};
use alloy::primitives::Address;
use chrono::{DateTime, Utc};
use serde::{Deserialize, Serialize};

use super::merge::read_all;
use super::range::{self, BlockCursor};
use super::settlements::{candidate_sellers, transfers_to};
use super::{RunContext, RunReport, Source, SourceName, day_of, hex_address, ts};
use crate::chain::events::Transfer;
use crate::chain::forms::{Role, role_of};

/// The funding job's checkpoint.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct FundingCheckpoint {
    /// Every candidate known at the last run has been searched up to here.
    pub cursor: BlockCursor,
    /// Candidates searched without finding a USDC funding (searched again in newer blocks only).
    pub unfunded: BTreeSet<String>,
}

/// The funding job.
#[derive(Debug)]
pub struct Funding;

impl Source for Funding {
    const NAME: SourceName = SourceName::Funding;
    type Checkpoint = FundingCheckpoint;

    async fn run(
        ctx: &RunContext<'_>,
        checkpoint: FundingCheckpoint,
    ) -> anyhow::Result<(FundingCheckpoint, RunReport)> {
        let chain = ctx.chain(Self::NAME)?;
        let Some(range) = range::plan(chain, &checkpoint.cursor, &ctx.bounds).await? else {
            return Ok((checkpoint, RunReport::default()));
        };
        let mut report = RunReport {
            blocks: Some((range.start, range.end)),
            notes: vec!["ETH funding is not read (needs trace_filter); first funders are USDC funders".into()],
            ..RunReport::default()
        };
        // Who funded whom, as far as the lake knows; rows found below join it.
        let mut funder_of: BTreeMap<String, String> =
            read_all::<FundingRow>(ctx.lake)?.into_iter().map(|r| (r.funded, r.funder)).collect();
        let (mut frontier, escrow_payers) = actors(ctx)?;
        // A wallet seen for the first time is searched from the beginning of the history read.
        let history_start = ctx.bounds.from_block.unwrap_or(chain.config().start_block).min(range.start);
        let mut found: BTreeMap<String, FundingRow> = BTreeMap::new();
        let mut visited: BTreeSet<String> = BTreeSet::new();
        // Hop 0 is the actors; hop h their funders h steps back. A funder at the last
        // hop is kept as a funder but not searched itself.
        for _hop in 0..chain.config().funding_hops {
            frontier.retain(|a| !visited.contains(a) && a.parse::<Address>().is_ok_and(|a| a != Address::ZERO));
            if frontier.is_empty() {
                break;
            }
            visited.extend(frontier.iter().cloned());
            let open: Vec<&String> = frontier.iter().filter(|c| !funder_of.contains_key(*c)).collect();
            let (fresh, old): (Vec<&String>, Vec<&String>) =
                open.into_iter().partition(|c| !checkpoint.unfunded.contains(*c));
            for (addresses, start) in [(fresh, history_start), (old, range.start)] {
                let set: BTreeSet<Address> = addresses.iter().filter_map(|a| a.parse().ok()).collect();
                if set.is_empty() {
                    continue;
                }
                for row in first_transfers(ctx, chain, &set, start, range.end, &escrow_payers, &mut report).await? {
                    funder_of.insert(row.funded.clone(), row.funder.clone());
                    found.insert(row.funded.clone(), row);
                }
            }
            frontier = frontier.iter().filter_map(|a| funder_of.get(a).cloned()).collect();
        }
        let unfunded: BTreeSet<String> = visited.into_iter().filter(|c| !funder_of.contains_key(c)).collect();
        let covered = (day_of(range.from_time), day_of(range.to_time));
        let (days, rows) = upsert(ctx, found.into_values().collect(), covered)?;
        report.days = days;
        report.rows = rows;
        Ok((FundingCheckpoint { cursor: range.cursor(), unfunded }, report))
    }

    fn coverage(checkpoint: &FundingCheckpoint) -> (Option<DateTime<Utc>>, Option<u64>) {
        checkpoint.cursor.coverage()
    }
}

/// Every wallet the lake knows as an actor, lowercase: listed sellers, payers, feedback clients,
/// agent owners and wallets, token deployers and receipt buyers. Their first funders are what the
/// model groups into entities and counts toward behavioural hubs. Also, from the same read of the
/// settlements, who paid each escrow payout ([`EscrowPayers`]).
fn actors(ctx: &RunContext<'_>) -> anyhow::Result<(BTreeSet<String>, EscrowPayers)> {
    let mut out: BTreeSet<String> = candidate_sellers(ctx)?.iter().map(hex_address).collect();
    let mut escrow_payers = EscrowPayers::new();
    for s in read_all::<SettlementRow>(ctx.lake)? {
        if SettlementForm::of(s.form, s.eip3009) == SettlementForm::AuthCapture {
            escrow_payers.insert((s.tx_hash.to_ascii_lowercase(), s.log_index), s.payer.clone());
        }
        out.insert(s.payer);
    }
    out.extend(read_all::<FeedbackRow>(ctx.lake)?.into_iter().map(|f| f.client));
    for r in read_all::<RegistrationRow>(ctx.lake)? {
        out.insert(r.owner);
        out.extend(r.agent_wallet);
    }
    out.extend(read_all::<LaunchRow>(ctx.lake)?.into_iter().map(|l| l.deployer));
    out.extend(read_all::<ReceiptRow>(ctx.lake)?.into_iter().map(|r| r.buyer));
    Ok((out.into_iter().map(|a| a.to_ascii_lowercase()).collect(), escrow_payers))
}

/// The payer of each escrow payout the settlements job recorded, by (transaction, log index): the
/// payout's `Transfer` comes from the operator's token store, which funds nobody; the escrowed
/// payment's payer does, as an EIP-3009 payment's payer does.
type EscrowPayers = HashMap<(String, u32), String>;

/// The earliest non-mint USDC `Transfer` to each of `wallets` in `[start, end]`, as funding rows.
/// A batch-settlement sweep pays out claims already made (settlements, not funding) and is passed
/// over; an escrow payout is funded by the escrowed payment's payer (`escrow_payers`).
async fn first_transfers(
    ctx: &RunContext<'_>,
    chain: &crate::chain::Chain,
    wallets: &BTreeSet<Address>,
    start: u64,
    end: u64,
    escrow_payers: &EscrowPayers,
    report: &mut RunReport,
) -> anyhow::Result<Vec<FundingRow>> {
    let logs = transfers_to(ctx, chain, wallets, start, end, report, |_, _| {}).await?;
    let blocks: BTreeSet<u64> = logs.iter().filter_map(|l| l.block_number).collect();
    let times = chain.block_times(blocks).await?;
    let mut first: BTreeMap<Address, FundingRow> = BTreeMap::new();
    for log in &logs {
        let Ok(t) = log.log_decode::<Transfer>() else { continue };
        let Transfer { from, to, value } = t.inner.data;
        if from == Address::ZERO || role_of(from) == Some(Role::BatchSettlement) {
            continue;
        }
        let key =
            (log.transaction_hash.map(|h| format!("{h:#x}")).unwrap_or_default(), log.log_index.unwrap_or(0) as u32);
        let funder = escrow_payers.get(&key).cloned().unwrap_or_else(|| hex_address(&from));
        // Logs are in chain order: the first seen is the earliest.
        first.entry(to).or_insert_with(|| FundingRow {
            funded: hex_address(&to),
            funder,
            first_funded_at: ts(times[&log.block_number.expect("mined log")]),
            amount: u64::try_from(value).unwrap_or(u64::MAX),
        });
    }
    Ok(first.into_values().collect())
}

/// Adds first-funding rows to their days, keeping the earliest row per funded wallet; every day
/// of `covered` gets a partition (empty when nobody was first funded that day).
fn upsert(
    ctx: &RunContext<'_>,
    rows: Vec<FundingRow>,
    covered: (chrono::NaiveDate, chrono::NaiveDate),
) -> anyhow::Result<(Vec<chrono::NaiveDate>, u64)> {
    let mut by_day: BTreeMap<chrono::NaiveDate, Vec<FundingRow>> = BTreeMap::new();
    let mut day = covered.0;
    while day <= covered.1 {
        by_day.insert(day, Vec::new());
        day = day.succ_opt().expect("day in range");
    }
    for row in rows {
        by_day.entry(day_of(row.first_funded_at.secs())).or_default().push(row);
    }
    let mut written = 0;
    let days: Vec<_> = by_day.keys().copied().collect();
    for (day, fresh) in by_day {
        let mut merged: BTreeMap<String, FundingRow> = BTreeMap::new();
        for row in ctx.lake.read_partition::<FundingRow>(day)?.into_iter().chain(fresh) {
            match merged.get(&row.funded) {
                Some(existing)
                    if (existing.first_funded_at, &existing.funder) <= (row.first_funded_at, &row.funder) => {}
                _ => {
                    merged.insert(row.funded.clone(), row);
                }
            }
        }
        let mut rows: Vec<FundingRow> = merged.into_values().collect();
        rows.sort_by(|a, b| (a.first_funded_at, &a.funded).cmp(&(b.first_funded_at, &b.funded)));
        written += rows.len() as u64;
        ctx.lake.write_partition(day, &rows)?;
    }
    Ok((days, written))
}
