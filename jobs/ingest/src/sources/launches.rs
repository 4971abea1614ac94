//! Token launches (onchain.md §7): Clanker v4 `TokenCreated` (creator = `tokenAdmin`) and Zora
//! `CoinCreatedV4` (creator = `payoutRecipient`) from the configured factories → `token_launches`.
//!
//! Daily observations (liquidity, swaps, holders, price, creator holding) need each pool's
//! and token's state per day; this job does not derive them yet and says so in its report, so
//! deployer verdicts from an ingested lake rest on launches alone (their freshness rule reports
//! `launches-stale` for the observations).

use agentrep_lake::datasets::LaunchRow;
use alloy::rpc::types::Filter;
use alloy::sol_types::SolEvent;
use chrono::{DateTime, Utc};

use super::merge::replace_range;
use super::range::{self, BlockCursor};
use super::{RunContext, RunReport, Source, SourceName, hex_address, ts};
use crate::chain::events::{CoinCreatedV4, TokenCreated};

/// The launches job.
#[derive(Debug)]
pub struct Launches;

impl Source for Launches {
    const NAME: SourceName = SourceName::Launches;
    type Checkpoint = BlockCursor;

    async fn run(ctx: &RunContext<'_>, cursor: BlockCursor) -> anyhow::Result<(BlockCursor, RunReport)> {
        let chain = ctx.chain(Self::NAME)?;
        let Some(range) = range::plan(chain, &cursor, &ctx.bounds).await? else {
            return Ok((cursor, RunReport::default()));
        };
        let mut report = RunReport {
            blocks: Some((range.start, range.end)),
            notes: vec!["launch_observations are not derived from pool and token events yet".into()],
            ..RunReport::default()
        };
        let c = &ctx.config.contracts;
        let filter = Filter::new()
            .address(vec![c.clanker_factory, c.zora_factory])
            .event_signature(vec![TokenCreated::SIGNATURE_HASH, CoinCreatedV4::SIGNATURE_HASH]);
        ctx.progress.start("launches: factory events", range.end - range.start + 1);
        let (logs, stats) = chain
            .pager()
            .scan(chain.provider(), &filter, range.start, range.end, |b| ctx.progress.set(b - range.start + 1))
            .await?;
        ctx.progress.finish();
        report.pages = stats.pages;
        report.shrinks = stats.shrinks;
        report.logs = stats.logs;
        let times = chain.block_times(logs.iter().filter_map(|l| l.block_number)).await?;
        let mut rows = Vec::new();
        for log in &logs {
            let at = ts(times[&log.block_number.expect("mined log")]);
            if log.address() == c.clanker_factory
                && let Ok(t) = log.log_decode::<TokenCreated>()
            {
                let t = t.inner.data;
                rows.push(LaunchRow {
                    token: hex_address(&t.tokenAddress),
                    deployer: hex_address(&t.tokenAdmin),
                    platform: "clanker".into(),
                    name: t.tokenName,
                    symbol: t.tokenSymbol,
                    launched_at: at,
                });
            } else if log.address() == c.zora_factory
                && let Ok(z) = log.log_decode::<CoinCreatedV4>()
            {
                let z = z.inner.data;
                rows.push(LaunchRow {
                    token: hex_address(&z.coin),
                    deployer: hex_address(&z.payoutRecipient),
                    platform: "zora".into(),
                    name: z.name,
                    symbol: z.symbol,
                    launched_at: at,
                });
            }
        }
        let (from, to) = range.times();
        let (days, n) = replace_range(
            ctx.lake,
            rows,
            from,
            to,
            |r| r.launched_at,
            |a, b| (a.launched_at, &a.token).cmp(&(b.launched_at, &b.token)),
        )?;
        report.days = days;
        report.rows = n;
        Ok((range.cursor(), report))
    }

    fn coverage(cursor: &BlockCursor) -> (Option<DateTime<Utc>>, Option<u64>) {
        cursor.coverage()
    }
}
