//! Probes: one unpaid request to every resource of the newest listings (`web::probe`), appended
//! to today's `probes` partition (several rounds a day).

use agentrep_lake::Dataset;
use agentrep_lake::datasets::{ListingRow, ProbeRow};
use chrono::{DateTime, Utc};
use serde::{Deserialize, Serialize};

use super::{RunContext, RunReport, Source, SourceName};

/// The probes job's checkpoint.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct ProbesCheckpoint {
    /// Last round.
    pub last_round: Option<DateTime<Utc>>,
}

/// The probes job.
#[derive(Debug)]
pub struct Probes;

impl Source for Probes {
    const NAME: SourceName = SourceName::Probes;
    type Checkpoint = ProbesCheckpoint;

    async fn run(ctx: &RunContext<'_>, _: ProbesCheckpoint) -> anyhow::Result<(ProbesCheckpoint, RunReport)> {
        let today = ctx.now.date_naive();
        let mut report = RunReport::default();
        let listings: Vec<ListingRow> = match ctx.lake.partitions_up_to(Dataset::Listings, today)?.last() {
            Some(part) => ctx.lake.read_partition(part.date)?,
            None => {
                report.notes.push("no listings in the lake: nothing to probe".into());
                Vec::new()
            }
        };
        ctx.progress.start("probes", listings.len() as u64);
        let mut fresh = crate::web::probe::probe_all(ctx.safe_http, &listings, &ctx.config.probes).await;
        for row in &mut fresh {
            row.probed_at = ctx.on_clock(row.probed_at);
        }
        ctx.progress.finish();
        let mut rows: Vec<ProbeRow> = ctx.lake.read_partition(today)?;
        report.rows = fresh.len() as u64;
        rows.extend(fresh);
        rows.sort_by(|a, b| (a.probed_at, &a.resource).cmp(&(b.probed_at, &b.resource)));
        ctx.lake.write_partition(today, &rows)?;
        report.days = vec![today];
        Ok((ProbesCheckpoint { last_round: Some(ctx.now) }, report))
    }

    fn coverage(checkpoint: &ProbesCheckpoint) -> (Option<DateTime<Utc>>, Option<u64>) {
        (checkpoint.last_round, None)
    }
}
