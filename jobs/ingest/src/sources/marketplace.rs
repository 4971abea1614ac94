//! Marketplace discovery: every configured x402 Bazaar endpoint is crawled (`web::bazaar`); the
//! union of what they list replaces today's `listings` partition (a crawl is a full picture of
//! what is listed now; `first_seen` carries over from earlier crawls), and each crawl's run is
//! appended to `crawl_runs`. When every endpoint fails, nothing is replaced and the run fails.

use std::collections::BTreeMap;

use agentrep_lake::datasets::{CrawlRunRow, ListingRow};
use agentrep_lake::{Dataset, Timestamp};
use chrono::{DateTime, Utc};
use serde::{Deserialize, Serialize};

use super::{RunContext, RunReport, Source, SourceName};

/// The marketplace job's checkpoint.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct MarketplaceCheckpoint {
    /// Last successful crawl.
    pub last_crawl: Option<DateTime<Utc>>,
}

/// The marketplace job.
#[derive(Debug)]
pub struct Marketplace;

type ListingKey = (String, String, String, String, u64);

fn key(l: &ListingRow) -> ListingKey {
    (l.resource.clone(), l.pay_to.to_ascii_lowercase(), l.network.clone(), l.asset.to_ascii_lowercase(), l.price_atomic)
}

impl Source for Marketplace {
    const NAME: SourceName = SourceName::Marketplace;
    type Checkpoint = MarketplaceCheckpoint;

    async fn run(ctx: &RunContext<'_>, _: MarketplaceCheckpoint) -> anyhow::Result<(MarketplaceCheckpoint, RunReport)> {
        let now = ctx.now_ts();
        let today = ctx.now.date_naive();
        let cfg = &ctx.config.marketplace;
        let mut report = RunReport::default();
        let mut listings: BTreeMap<ListingKey, ListingRow> = BTreeMap::new();
        let mut runs: Vec<CrawlRunRow> = Vec::new();
        ctx.progress.start("marketplace: discovery endpoints", cfg.discovery.len() as u64);
        for (i, source) in cfg.discovery.iter().enumerate() {
            let outcome = crate::web::bazaar::crawl(ctx.http, source, cfg, now).await;
            for l in outcome.listings {
                listings.entry(key(&l)).or_insert(l);
            }
            if let Some(e) = &outcome.run.error {
                report.notes.push(format!("{}: {e}", source.ecosystem));
            }
            runs.push(outcome.run);
            ctx.progress.set(i as u64 + 1);
        }
        ctx.progress.finish();
        if !runs.is_empty() && runs.iter().all(|r| r.error.is_some() && r.listings == 0) {
            append_runs(ctx, today, runs)?;
            anyhow::bail!("every discovery endpoint failed: {}", report.notes.join("; "));
        }
        let first_seen = previous_first_seen(ctx, today)?;
        let mut rows: Vec<ListingRow> = listings
            .into_iter()
            .map(|(k, mut l)| {
                if let Some(seen) = first_seen.get(&k) {
                    l.first_seen = (*seen).min(l.first_seen);
                }
                l
            })
            .collect();
        rows.sort_by_key(key);
        report.rows = rows.len() as u64;
        ctx.lake.write_partition(today, &rows)?;
        append_runs(ctx, today, runs)?;
        report.days = vec![today];
        Ok((MarketplaceCheckpoint { last_crawl: Some(ctx.now) }, report))
    }

    fn coverage(checkpoint: &MarketplaceCheckpoint) -> (Option<DateTime<Utc>>, Option<u64>) {
        (checkpoint.last_crawl, None)
    }
}

/// `first_seen` of every listing in the newest partition before today (and today's, from an
/// earlier crawl today).
fn previous_first_seen(
    ctx: &RunContext<'_>,
    today: chrono::NaiveDate,
) -> anyhow::Result<BTreeMap<ListingKey, Timestamp>> {
    let mut out: BTreeMap<ListingKey, Timestamp> = BTreeMap::new();
    let parts = ctx.lake.partitions_up_to(Dataset::Listings, today)?;
    for part in parts.iter().rev().take(2) {
        for l in ctx.lake.read_partition::<ListingRow>(part.date)? {
            let seen = out.entry(key(&l)).or_insert(l.first_seen);
            *seen = (*seen).min(l.first_seen);
        }
    }
    Ok(out)
}

fn append_runs(ctx: &RunContext<'_>, today: chrono::NaiveDate, runs: Vec<CrawlRunRow>) -> anyhow::Result<()> {
    let mut rows = ctx.lake.read_partition::<CrawlRunRow>(today)?;
    rows.extend(runs);
    rows.sort_by(|a, b| (a.started_at, &a.source_url).cmp(&(b.started_at, &b.source_url)));
    ctx.lake.write_partition(today, &rows)?;
    Ok(())
}
