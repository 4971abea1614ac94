//! ERC-8004 registries (onchain.md §2): IdentityRegistry `Registered`, `URIUpdated`,
//! `MetadataSet("agentWallet")`; ReputationRegistry `NewFeedback`, `FeedbackRevoked`,
//! `ResponseAppended`. A registration row holds the agent's URI and wallet as the contract says at
//! the end of the range (read with `tokenURI` / `getAgentWallet` at that block), so later updates
//! reach rows registered in earlier runs.

use std::collections::{BTreeMap, BTreeSet};

use agentrep_lake::datasets::{FeedbackRow, RegistrationRow};
use alloy::primitives::{Address, B256, U256, keccak256};
use alloy::rpc::types::{Filter, Log};
use alloy::sol_types::{SolCall, SolEvent};
use chrono::{DateTime, Utc};

use super::merge::{replace_range, update_rows};
use super::range::{self, BlockCursor, BlockRange};
use super::{RunContext, RunReport, Source, SourceName, hex_address, ts};
use crate::chain::Chain;
use crate::chain::events::{
    FeedbackRevoked, MetadataSet, NewFeedback, Registered, ResponseAppended, URIUpdated, getAgentWalletCall,
    tokenURICall,
};

/// The ERC-8004 job.
#[derive(Debug)]
pub struct Erc8004;

impl Source for Erc8004 {
    const NAME: SourceName = SourceName::Erc8004;
    type Checkpoint = BlockCursor;

    async fn run(ctx: &RunContext<'_>, cursor: BlockCursor) -> anyhow::Result<(BlockCursor, RunReport)> {
        let chain = ctx.chain(Self::NAME)?;
        let Some(range) = range::plan(chain, &cursor, &ctx.bounds).await? else {
            return Ok((cursor, RunReport::default()));
        };
        let mut report = RunReport { blocks: Some((range.start, range.end)), ..RunReport::default() };
        let contracts = &ctx.config.contracts;
        let identity = Filter::new().address(contracts.identity_registry).event_signature(vec![
            Registered::SIGNATURE_HASH,
            URIUpdated::SIGNATURE_HASH,
            MetadataSet::SIGNATURE_HASH,
        ]);
        let reputation = Filter::new().address(contracts.reputation_registry).event_signature(vec![
            NewFeedback::SIGNATURE_HASH,
            FeedbackRevoked::SIGNATURE_HASH,
            ResponseAppended::SIGNATURE_HASH,
        ]);
        ctx.progress.start("erc8004: registry events", 2 * (range.end - range.start + 1));
        let (id_logs, s1) = chain.pager().scan(chain.provider(), &identity, range.start, range.end, |_| {}).await?;
        let (rep_logs, s2) = chain.pager().scan(chain.provider(), &reputation, range.start, range.end, |_| {}).await?;
        ctx.progress.finish();
        for s in [s1, s2] {
            report.pages += s.pages;
            report.shrinks += s.shrinks;
            report.logs += s.logs;
        }
        let blocks: BTreeSet<u64> = id_logs.iter().chain(&rep_logs).filter_map(|l| l.block_number).collect();
        let times = chain.block_times(blocks).await?;
        let (from, to) = range.times();

        let registrations = registrations(ctx, chain, &id_logs, &times, &range).await?;
        let (mut days, mut rows) = replace_range(
            ctx.lake,
            registrations.fresh,
            from,
            to,
            |r| r.registered_at,
            |a, b| a.agent_id.cmp(&b.agent_id),
        )?;
        if !registrations.updated.is_empty() {
            days.extend(update_rows::<RegistrationRow>(ctx.lake, |row| {
                match registrations.updated.get(&row.agent_id) {
                    Some((uri, wallet)) if (&row.registration_uri, &row.agent_wallet) != (uri, wallet) => {
                        row.registration_uri = uri.clone();
                        row.agent_wallet = wallet.clone();
                        true
                    }
                    _ => false,
                }
            })?);
        }

        let feedback = feedback(&rep_logs, &times);
        report.notes.push(format!("{} responses to feedback seen (not stored)", feedback.responses));
        let (fdays, frows) = replace_range(
            ctx.lake,
            feedback.fresh,
            from,
            to,
            |r| r.block_time,
            |a, b| {
                (a.block_time, a.agent_id, &a.client, a.feedback_index).cmp(&(
                    b.block_time,
                    b.agent_id,
                    &b.client,
                    b.feedback_index,
                ))
            },
        )?;
        days.extend(fdays);
        rows += frows;
        if !feedback.revoked.is_empty() {
            days.extend(update_rows::<FeedbackRow>(ctx.lake, |row| {
                let key = (row.agent_id, row.client.clone(), row.feedback_index);
                let revoke = !row.revoked && feedback.revoked.contains(&key);
                row.revoked |= revoke;
                revoke
            })?);
        }
        days.sort_unstable();
        days.dedup();
        report.days = days;
        report.rows = rows;
        Ok((range.cursor(), report))
    }

    fn coverage(cursor: &BlockCursor) -> (Option<DateTime<Utc>>, Option<u64>) {
        cursor.coverage()
    }
}

/// Registrations of the range, and the agents whose URI or wallet changed.
struct Registrations {
    fresh: Vec<RegistrationRow>,
    updated: BTreeMap<u64, (String, Option<String>)>,
}

async fn registrations(
    ctx: &RunContext<'_>,
    chain: &Chain,
    logs: &[Log],
    times: &BTreeMap<u64, i64>,
    range: &BlockRange,
) -> anyhow::Result<Registrations> {
    let wallet_key: B256 = keccak256("agentWallet");
    let mut registered: BTreeMap<u64, (String, i64)> = BTreeMap::new();
    let mut touched: BTreeSet<u64> = BTreeSet::new();
    for log in logs {
        let time = times[&log.block_number.expect("mined log")];
        if let Ok(r) = log.log_decode::<Registered>() {
            let id = to_u64(r.inner.data.agentId);
            registered.insert(id, (hex_address(&r.inner.data.owner), time));
        } else if let Ok(u) = log.log_decode::<URIUpdated>() {
            touched.insert(to_u64(u.inner.data.agentId));
        } else if log.topic0() == Some(&MetadataSet::SIGNATURE_HASH) && log.topics().get(2) == Some(&wallet_key) {
            touched.insert(to_u64(U256::from_be_bytes(log.topics()[1].0)));
        }
    }
    let registry = ctx.config.contracts.identity_registry;
    let mut state: BTreeMap<u64, (String, Option<String>)> = BTreeMap::new();
    for id in registered.keys().chain(&touched) {
        if state.contains_key(id) {
            continue;
        }
        let agent = U256::from(*id);
        let uri = chain.call(registry, tokenURICall { agentId: agent }.abi_encode().into(), range.end).await?;
        let uri = tokenURICall::abi_decode_returns(&uri).unwrap_or_default();
        let wallet = chain.call(registry, getAgentWalletCall { agentId: agent }.abi_encode().into(), range.end).await?;
        let wallet = getAgentWalletCall::abi_decode_returns(&wallet).ok().filter(|w| *w != Address::ZERO);
        state.insert(*id, (uri, wallet.as_ref().map(hex_address)));
    }
    let fresh = registered
        .iter()
        .map(|(id, (owner, time))| {
            let (uri, wallet) = state[id].clone();
            RegistrationRow {
                agent_id: *id,
                owner: owner.clone(),
                agent_wallet: wallet,
                registration_uri: uri,
                registered_at: ts(*time),
            }
        })
        .collect();
    let updated =
        touched.into_iter().filter(|id| !registered.contains_key(id)).map(|id| (id, state[&id].clone())).collect();
    Ok(Registrations { fresh, updated })
}

/// Feedback of the range, revocations and the number of responses.
struct Feedback {
    fresh: Vec<FeedbackRow>,
    revoked: BTreeSet<(u64, String, u64)>,
    responses: u64,
}

fn feedback(logs: &[Log], times: &BTreeMap<u64, i64>) -> Feedback {
    let mut out = Feedback { fresh: Vec::new(), revoked: BTreeSet::new(), responses: 0 };
    for log in logs {
        let time = times[&log.block_number.expect("mined log")];
        if let Ok(f) = log.log_decode::<NewFeedback>() {
            let f = f.inner.data;
            out.fresh.push(FeedbackRow {
                agent_id: to_u64(f.agentId),
                client: hex_address(&f.clientAddress),
                feedback_index: f.feedbackIndex,
                value: i64::try_from(f.value).unwrap_or(if f.value < 0 { i64::MIN } else { i64::MAX }),
                value_decimals: u32::from(f.valueDecimals),
                tag1: f.tag1,
                tag2: f.tag2,
                revoked: false,
                block_time: ts(time),
            });
        } else if let Ok(r) = log.log_decode::<FeedbackRevoked>() {
            let r = r.inner.data;
            out.revoked.insert((to_u64(r.agentId), hex_address(&r.clientAddress), r.feedbackIndex));
        } else if log.log_decode::<ResponseAppended>().is_ok() {
            out.responses += 1;
        }
    }
    for row in &mut out.fresh {
        row.revoked = out.revoked.contains(&(row.agent_id, row.client.clone(), row.feedback_index));
    }
    out
}

fn to_u64(v: U256) -> u64 {
    u64::try_from(v).unwrap_or(u64::MAX)
}
