//! ERC-8004 registration files: each registered agent's `agentURI` fetched with the probe's
//! safety rules (`web::card`), at most once a day per agent and URI, into today's `agent_cards`.

use std::collections::BTreeSet;

use agentrep_lake::Dataset;
use agentrep_lake::datasets::{AgentCardRow, RegistrationRow};
use chrono::{DateTime, Duration, Utc};
use futures::{StreamExt, stream};
use serde::{Deserialize, Serialize};

use super::merge::read_all;
use super::{RunContext, RunReport, Source, SourceName};

/// The registration-file job's checkpoint.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct CardsCheckpoint {
    /// Last round.
    pub last_round: Option<DateTime<Utc>>,
}

/// The registration-file job.
#[derive(Debug)]
pub struct AgentCards;

impl Source for AgentCards {
    const NAME: SourceName = SourceName::AgentCards;
    type Checkpoint = CardsCheckpoint;

    async fn run(ctx: &RunContext<'_>, _: CardsCheckpoint) -> anyhow::Result<(CardsCheckpoint, RunReport)> {
        let today = ctx.now.date_naive();
        let since = ctx.now - Duration::days(1);
        let mut recent: BTreeSet<(u64, String)> = BTreeSet::new();
        for part in ctx.lake.partitions(Dataset::AgentCards)?.iter().rev().take(2) {
            for card in ctx.lake.read_partition::<AgentCardRow>(part.date)? {
                if card.fetched_at.0 >= since.timestamp_micros() {
                    recent.insert((card.agent_id, card.uri));
                }
            }
        }
        let wanted: BTreeSet<(u64, String)> = read_all::<RegistrationRow>(ctx.lake)?
            .into_iter()
            .map(|r| (r.agent_id, r.registration_uri))
            .filter(|k| !k.1.is_empty() && !recent.contains(k))
            .collect();
        ctx.progress.start("agent cards", wanted.len() as u64);
        let now = ctx.now_ts();
        let fresh: Vec<AgentCardRow> = stream::iter(wanted)
            .map(|(id, uri)| async move {
                crate::web::card::fetch_card(ctx.safe_http, id, &uri, &ctx.config.probes, now).await
            })
            .buffer_unordered(ctx.config.probes.concurrency)
            .collect()
            .await;
        ctx.progress.finish();
        let mut rows: Vec<AgentCardRow> = ctx.lake.read_partition(today)?;
        let report = RunReport { rows: fresh.len() as u64, days: vec![today], ..RunReport::default() };
        rows.extend(fresh);
        rows.sort_by(|a, b| (a.agent_id, a.fetched_at, &a.uri).cmp(&(b.agent_id, b.fetched_at, &b.uri)));
        ctx.lake.write_partition(today, &rows)?;
        Ok((CardsCheckpoint { last_round: Some(ctx.now) }, report))
    }

    fn coverage(checkpoint: &CardsCheckpoint) -> (Option<DateTime<Utc>>, Option<u64>) {
        (checkpoint.last_round, None)
    }
}
