//! ERC-8004 registries (onchain.md §2): IdentityRegistry `Registered`, `URIUpdated`,
//! `MetadataSet("agentWallet")`; ReputationRegistry `NewFeedback`, `FeedbackRevoked`,
//! `ResponseAppended`. A registration row holds the agent's URI and wallet as the events leave them
//! at the end of the range: `Registered` and `URIUpdated` carry the URI, `MetadataSet("agentWallet")`
//! the wallet (20 bytes; empty when a transfer cleared it). Updates reach rows registered in earlier
//! runs. Nothing is read from state, so any node serves it, archive or not.

use std::collections::{BTreeMap, BTreeSet};

use agentrep_lake::datasets::{FeedbackRow, RegistrationRow};
use alloy::primitives::{Address, B256, U256, keccak256};
use alloy::rpc::types::{Filter, Log};
use alloy::sol_types::SolEvent;
use chrono::{DateTime, Utc};

use super::merge::{replace_range, update_rows};
use super::range::{self, BlockCursor};
use super::{RunContext, RunReport, Source, SourceName, hex_address, ts};
use crate::chain::events::{FeedbackRevoked, MetadataSet, NewFeedback, Registered, ResponseAppended, URIUpdated};

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

        let registrations = registrations(&id_logs, &times);
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
                let Some(change) = registrations.updated.get(&row.agent_id) else { return false };
                let before = (row.registration_uri.clone(), row.agent_wallet.clone());
                if let Some(uri) = &change.uri {
                    row.registration_uri = uri.clone();
                }
                if let Some(wallet) = &change.wallet {
                    row.agent_wallet = wallet.clone();
                }
                before != (row.registration_uri.clone(), row.agent_wallet.clone())
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

/// Registrations of the range, and the changes to agents registered before it.
struct Registrations {
    fresh: Vec<RegistrationRow>,
    updated: BTreeMap<u64, AgentChange>,
}

/// What the range's events changed of one agent: `None` is "unchanged".
#[derive(Debug, Default, Clone, PartialEq, Eq)]
struct AgentChange {
    uri: Option<String>,
    /// `Some(None)`: the wallet was cleared.
    wallet: Option<Option<String>>,
}

/// The agent wallet a `MetadataSet("agentWallet", value)` leaves: 20 bytes are an address, anything
/// else (the empty value a transfer writes) clears it.
fn wallet_of(value: &[u8]) -> Option<String> {
    (value.len() == 20).then(|| Address::from_slice(value)).filter(|a| *a != Address::ZERO).map(|a| hex_address(&a))
}

/// Folds the identity registry's events, in chain order, into new registrations and changes.
fn registrations(logs: &[Log], times: &BTreeMap<u64, i64>) -> Registrations {
    let wallet_key: B256 = keccak256("agentWallet");
    let mut registered: BTreeMap<u64, (String, i64)> = BTreeMap::new();
    let mut changes: BTreeMap<u64, AgentChange> = BTreeMap::new();
    for log in logs {
        let time = times[&log.block_number.expect("mined log")];
        if let Ok(r) = log.log_decode::<Registered>() {
            let id = to_u64(r.inner.data.agentId);
            registered.insert(id, (hex_address(&r.inner.data.owner), time));
            changes.entry(id).or_default().uri = Some(r.inner.data.agentURI.clone());
        } else if let Ok(u) = log.log_decode::<URIUpdated>() {
            changes.entry(to_u64(u.inner.data.agentId)).or_default().uri = Some(u.inner.data.newURI.clone());
        } else if log.topic0() == Some(&MetadataSet::SIGNATURE_HASH)
            && log.topics().get(2) == Some(&wallet_key)
            && let Ok(m) = log.log_decode::<MetadataSet>()
        {
            changes.entry(to_u64(m.inner.data.agentId)).or_default().wallet =
                Some(wallet_of(&m.inner.data.metadataValue));
        }
    }
    let fresh = registered
        .iter()
        .map(|(id, (owner, time))| {
            let change = changes.remove(id).unwrap_or_default();
            RegistrationRow {
                agent_id: *id,
                owner: owner.clone(),
                agent_wallet: change.wallet.flatten(),
                registration_uri: change.uri.unwrap_or_default(),
                registered_at: ts(*time),
            }
        })
        .collect();
    Registrations { fresh, updated: changes }
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

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn agent_wallet_values() {
        let a = Address::repeat_byte(0xab);
        assert_eq!(wallet_of(a.as_slice()), Some(hex_address(&a)));
        assert_eq!(wallet_of(&[]), None, "a transfer clears the wallet");
        assert_eq!(wallet_of(Address::ZERO.as_slice()), None);
        assert_eq!(wallet_of(&[0xab; 32]), None, "not an address");
    }
}
