//! Identity proofs: Coinbase Verified Account attestations (EAS `Attested` by Coinbase's attester
//! for the schema, `Revoked` removes them) → `cb1-verified`; Farcaster (a hub's HTTP API:
//! custody address → fid, the fid's verified addresses) → `farcaster-fid` for candidate sellers.
//! Basename/ENS reverse names need the reverse registrar's events and a forward check; this job
//! does not read them yet and says so in its report.

use std::collections::BTreeSet;

use agentrep_lake::datasets::ProofRow;
use alloy::primitives::Address;
use alloy::rpc::types::Filter;
use alloy::sol_types::SolEvent;
use chrono::{DateTime, Utc};
use serde::{Deserialize, Serialize};

use super::merge::{read_all, replace_owned_range};
use super::range::{self, BlockCursor};
use super::settlements::candidate_sellers;
use super::{RunContext, RunReport, Source, SourceName, hex_address, ts};
use crate::chain::events::{Attested, Revoked};

const CB1: &str = "cb1-verified";
const CB1_SOURCE: &str = "coinbase-verifications";
const FARCASTER: &str = "farcaster-fid";
const FARCASTER_SOURCE: &str = "farcaster-id-registry";

/// The proofs job's checkpoint.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct ProofsCheckpoint {
    /// EAS events read up to here.
    pub cursor: BlockCursor,
    /// Last Farcaster lookup round.
    pub farcaster_at: Option<DateTime<Utc>>,
}

/// The proofs job.
#[derive(Debug)]
pub struct Proofs;

impl Source for Proofs {
    const NAME: SourceName = SourceName::Proofs;
    type Checkpoint = ProofsCheckpoint;

    async fn run(
        ctx: &RunContext<'_>,
        mut checkpoint: ProofsCheckpoint,
    ) -> anyhow::Result<(ProofsCheckpoint, RunReport)> {
        let chain = ctx.chain(Self::NAME)?;
        let mut report =
            RunReport { notes: vec!["basename and ens reverse names are not read yet".into()], ..RunReport::default() };
        if let Some(range) = range::plan(chain, &checkpoint.cursor, &ctx.bounds).await? {
            let c = &ctx.config.contracts;
            let filter = Filter::new()
                .address(c.eas)
                .event_signature(vec![Attested::SIGNATURE_HASH, Revoked::SIGNATURE_HASH])
                .topic2(c.coinbase_attester.into_word())
                .topic3(c.verified_account_schema);
            let (logs, stats) = chain.pager().scan(chain.provider(), &filter, range.start, range.end, |_| {}).await?;
            report.pages += stats.pages;
            report.logs += stats.logs;
            report.blocks = Some((range.start, range.end));
            let times = chain.block_times(logs.iter().filter_map(|l| l.block_number)).await?;
            let mut rows: Vec<ProofRow> = Vec::new();
            let mut revoked: BTreeSet<String> = BTreeSet::new();
            for log in &logs {
                let at = ts(times[&log.block_number.expect("mined log")]);
                if let Ok(a) = log.log_decode::<Attested>() {
                    let recipient = hex_address(&a.inner.data.recipient);
                    revoked.remove(&recipient);
                    rows.retain(|r| r.address != recipient);
                    rows.push(ProofRow {
                        address: recipient,
                        proof_type: CB1.into(),
                        source: CB1_SOURCE.into(),
                        verified_at: at,
                    });
                } else if let Ok(r) = log.log_decode::<Revoked>() {
                    let recipient = hex_address(&r.inner.data.recipient);
                    rows.retain(|row| row.address != recipient);
                    revoked.insert(recipient);
                }
            }
            let (from, to) = range.times();
            let (days, n) = replace_owned_range(
                ctx.lake,
                rows,
                from,
                to,
                |r| r.verified_at,
                |a, b| (a.verified_at, &a.address, &a.proof_type).cmp(&(b.verified_at, &b.address, &b.proof_type)),
                |r| r.proof_type == CB1,
            )?;
            report.days.extend(days);
            report.rows += n;
            if !revoked.is_empty() {
                remove_proofs(ctx, CB1, &revoked)?;
            }
            checkpoint.cursor = range.cursor();
        }
        if let Some(hub) = &ctx.config.proofs.farcaster_hub_url {
            report.rows += farcaster(ctx, hub, &mut report).await?;
            checkpoint.farcaster_at = Some(ctx.now);
        } else {
            report.notes.push("no farcaster hub configured: no farcaster-fid proofs".into());
        }
        report.days.sort_unstable();
        report.days.dedup();
        Ok((checkpoint, report))
    }

    fn coverage(checkpoint: &ProofsCheckpoint) -> (Option<DateTime<Utc>>, Option<u64>) {
        checkpoint.cursor.coverage()
    }
}

/// Drops the proofs of one type held by `addresses`, wherever they are.
fn remove_proofs(ctx: &RunContext<'_>, proof_type: &str, addresses: &BTreeSet<String>) -> anyhow::Result<()> {
    for part in ctx.lake.partitions(agentrep_lake::Dataset::IdentityProofs)? {
        let rows = ctx.lake.read_partition::<ProofRow>(part.date)?;
        let kept: Vec<ProofRow> =
            rows.iter().filter(|r| !(r.proof_type == proof_type && addresses.contains(&r.address))).cloned().collect();
        if kept.len() != rows.len() {
            ctx.lake.write_partition(part.date, &kept)?;
        }
    }
    Ok(())
}

/// Looks up candidate sellers without a Farcaster proof; adds the ones the hub knows (custody, or
/// verified by their fid) to today's partition.
async fn farcaster(ctx: &RunContext<'_>, hub: &url::Url, report: &mut RunReport) -> anyhow::Result<u64> {
    let have: BTreeSet<String> =
        read_all::<ProofRow>(ctx.lake)?.into_iter().filter(|r| r.proof_type == FARCASTER).map(|r| r.address).collect();
    let wanted: Vec<Address> = candidate_sellers(ctx)?
        .into_iter()
        .filter(|a| !have.contains(&hex_address(a)))
        .take(ctx.config.proofs.max_lookups)
        .collect();
    let wanted_set: BTreeSet<String> = wanted.iter().map(hex_address).collect();
    let mut found: BTreeSet<String> = BTreeSet::new();
    let mut failures = 0u64;
    for address in &wanted {
        match crate::web::farcaster::fid_by_custody(ctx.http, hub, *address).await {
            Ok(Some(fid)) => {
                found.insert(hex_address(address));
                match crate::web::farcaster::verified_addresses(ctx.http, hub, fid).await {
                    Ok(list) => found.extend(list.into_iter().filter(|a| wanted_set.contains(a))),
                    Err(_) => failures += 1,
                }
            }
            Ok(None) => {}
            Err(_) => failures += 1,
        }
    }
    if failures > 0 {
        report.notes.push(format!("farcaster hub: {failures} lookups failed"));
    }
    let today = ctx.now.date_naive();
    let mut rows = ctx.lake.read_partition::<ProofRow>(today)?;
    let n = found.len() as u64;
    rows.extend(found.into_iter().map(|address| ProofRow {
        address,
        proof_type: FARCASTER.into(),
        source: FARCASTER_SOURCE.into(),
        verified_at: ctx.now_ts(),
    }));
    rows.sort_by(|a, b| (a.verified_at, &a.address, &a.proof_type).cmp(&(b.verified_at, &b.address, &b.proof_type)));
    ctx.lake.write_partition(today, &rows)?;
    report.days.push(today);
    Ok(n)
}
