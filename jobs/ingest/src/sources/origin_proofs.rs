//! Ownership proofs: each origin of the newest listings is asked for its x402 discovery document
//! (`web::ownership`), at most once a day per origin, into today's `origin_proofs`. The rebuild
//! binds an origin to every wallet whose proof its newest answered fetch held (`origins.sql`).

use std::collections::BTreeSet;

use agentrep_lake::Dataset;
use agentrep_lake::datasets::{ListingRow, OriginProofRow};
use chrono::{DateTime, Duration, Utc};
use futures::{StreamExt, stream};
use serde::{Deserialize, Serialize};

use super::{RunContext, RunReport, Source, SourceName};

/// The origin-proof job's checkpoint.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct OriginProofsCheckpoint {
    /// Last round.
    pub last_round: Option<DateTime<Utc>>,
}

/// The origin-proof job.
#[derive(Debug)]
pub struct OriginProofs;

impl Source for OriginProofs {
    const NAME: SourceName = SourceName::OriginProofs;
    type Checkpoint = OriginProofsCheckpoint;

    async fn run(
        ctx: &RunContext<'_>,
        _: OriginProofsCheckpoint,
    ) -> anyhow::Result<(OriginProofsCheckpoint, RunReport)> {
        let today = ctx.now.date_naive();
        let mut report = RunReport::default();
        let listings: Vec<ListingRow> = match ctx.lake.partitions_up_to(Dataset::Listings, today)?.last() {
            Some(part) => ctx.lake.read_partition(part.date)?,
            None => {
                report.notes.push("no listings in the lake: no origin to ask".into());
                Vec::new()
            }
        };
        let since = (ctx.now - Duration::days(1)).timestamp_micros();
        let mut recent: BTreeSet<String> = BTreeSet::new();
        for part in ctx.lake.partitions(Dataset::OriginProofs)?.iter().rev().take(2) {
            for row in ctx.lake.read_partition::<OriginProofRow>(part.date)? {
                if row.fetched_at.0 >= since {
                    recent.insert(row.origin);
                }
            }
        }
        let wanted: BTreeSet<String> = listings
            .iter()
            .map(|l| agentrep_model::live::origin(&l.resource))
            .filter(|o| o.starts_with("http://") || o.starts_with("https://"))
            .filter(|o| !recent.contains(o))
            .collect();
        ctx.progress.start("origin proofs", wanted.len() as u64);
        let now = ctx.now_ts();
        let fresh: Vec<OriginProofRow> = stream::iter(wanted)
            .map(|origin| async move { crate::web::ownership::fetch_proofs(ctx.safe_http, &origin, now).await })
            .buffer_unordered(ctx.config.probes.concurrency)
            .collect()
            .await;
        ctx.progress.finish();
        let mut rows: Vec<OriginProofRow> = ctx.lake.read_partition(today)?;
        report.rows = fresh.len() as u64;
        report.days = vec![today];
        rows.extend(fresh);
        rows.sort_by(|a, b| (&a.origin, a.fetched_at).cmp(&(&b.origin, b.fetched_at)));
        ctx.lake.write_partition(today, &rows)?;
        Ok((OriginProofsCheckpoint { last_round: Some(ctx.now) }, report))
    }

    fn coverage(checkpoint: &OriginProofsCheckpoint) -> (Option<DateTime<Utc>>, Option<u64>) {
        (checkpoint.last_round, None)
    }
}
