//! ERC-8004 registration files: each registered agent's `agentURI` fetched with the probe's
//! safety rules (`web::card`), at most once a day per agent and URI, into today's `agent_cards`;
//! and the description files users submitted with `POST /discover` (the `discovery_submissions`
//! the store export wrote), each fetched once the same way, into today's `submitted_cards`.

use std::collections::BTreeSet;

use agentrep_lake::Dataset;
use agentrep_lake::datasets::{AgentCardRow, DiscoverySubmissionRow, RegistrationRow, SubmittedCardRow};
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
        let submitted = fetch_submissions(ctx).await?;
        let report = RunReport { rows: report.rows + submitted, ..report };
        Ok((CardsCheckpoint { last_round: Some(ctx.now) }, report))
    }

    fn coverage(checkpoint: &CardsCheckpoint) -> (Option<DateTime<Utc>>, Option<u64>) {
        (checkpoint.last_round, None)
    }
}

/// Fetches every submitted description file not fetched yet into today's `submitted_cards`;
/// returns how many it fetched. A file is fetched once: what it declares is a lead for the
/// operator, and a submitter cannot make the job fetch a URL again by submitting it again (the
/// store keeps one submission per URL).
async fn fetch_submissions(ctx: &RunContext<'_>) -> anyhow::Result<u64> {
    let done: BTreeSet<u64> =
        read_all::<SubmittedCardRow>(ctx.lake)?.into_iter().map(|card| card.submission_id).collect();
    let wanted: Vec<DiscoverySubmissionRow> = read_all::<DiscoverySubmissionRow>(ctx.lake)?
        .into_iter()
        .filter(|s| !done.contains(&s.submission_id))
        .collect();
    if wanted.is_empty() {
        return Ok(0);
    }
    ctx.progress.start("submitted cards", wanted.len() as u64);
    let now = ctx.now_ts();
    let fresh: Vec<SubmittedCardRow> = stream::iter(wanted)
        .map(|s| async move {
            let card = crate::web::card::fetch_card(ctx.safe_http, 0, &s.url, &ctx.config.probes, now).await;
            SubmittedCardRow {
                submission_id: s.submission_id,
                url: s.url,
                fetched_at: card.fetched_at,
                name: card.name,
                description: card.description,
                endpoints: card.endpoints,
                wallets: card.wallets,
                digest: card.digest,
                error: card.error,
            }
        })
        .buffer_unordered(ctx.config.probes.concurrency)
        .collect()
        .await;
    ctx.progress.finish();
    let today = ctx.now.date_naive();
    let mut rows: Vec<SubmittedCardRow> = ctx.lake.read_partition(today)?;
    let fetched = fresh.len() as u64;
    rows.extend(fresh);
    rows.sort_by_key(|r| r.submission_id);
    ctx.lake.write_partition(today, &rows)?;
    Ok(fetched)
}
