//! Entity labels and address lists: the curated list shipped in the repository
//! (`labels/curated.toml`, versioned, each entry with its public source), each facilitator's
//! signers (configured, refreshed from its `/supported`), and the operator's additions. A row is
//! added once, on the day it first appears; every run writes the day's partition (empty when
//! nothing is new), so freshness sees that the job ran.

use std::collections::BTreeSet;

use agentrep_lake::datasets::{EntityLabelRow, ListEntryRow};
use chrono::{DateTime, NaiveDate, Utc};
use serde::{Deserialize, Serialize};

use super::merge::read_all;
use super::{RunContext, RunReport, Source, SourceName, hex_address};

/// The curated list, compiled in.
const CURATED: &str = include_str!("../../labels/curated.toml");

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct Curated {
    version: String,
    #[serde(default)]
    entity: Vec<CuratedEntity>,
    #[serde(default)]
    deny: Vec<CuratedEntry>,
    #[serde(default)]
    allow: Vec<CuratedEntry>,
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct CuratedEntity {
    address: alloy::primitives::Address,
    entity: String,
    name: String,
    source: String,
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct CuratedEntry {
    address: alloy::primitives::Address,
    category: String,
    source: String,
}

fn curated() -> Curated {
    toml::from_str(CURATED).expect("labels/curated.toml parses (checked by a test)")
}

/// The labels job's checkpoint: when it last ran.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct LabelsCheckpoint {
    /// Last run.
    pub last_run: Option<DateTime<Utc>>,
}

/// The labels job.
#[derive(Debug)]
pub struct Labels;

impl Source for Labels {
    const NAME: SourceName = SourceName::Labels;
    type Checkpoint = LabelsCheckpoint;

    async fn run(ctx: &RunContext<'_>, _: LabelsCheckpoint) -> anyhow::Result<(LabelsCheckpoint, RunReport)> {
        let today = ctx.now.date_naive();
        let added_at = ctx.now_ts();
        let curated = curated();
        let mut report = RunReport::default();
        let mut labels: Vec<EntityLabelRow> = Vec::new();
        let label = |address: String, entity: &str, name: &str, source: String| EntityLabelRow {
            address,
            entity: entity.to_owned(),
            name: name.to_owned(),
            source,
            added_at,
        };
        for e in &curated.entity {
            labels.push(label(
                hex_address(&e.address),
                &e.entity,
                &e.name,
                format!("{}: {}", curated.version, e.source),
            ));
        }
        for f in &ctx.config.facilitators.list {
            let mut signers: BTreeSet<String> = f.signers.iter().map(hex_address).collect();
            if ctx.config.facilitators.refresh
                && let Some(url) = &f.url
            {
                match crate::web::facilitator::supported_signers(ctx.http, url).await {
                    Ok(list) => signers.extend(list.iter().map(hex_address)),
                    Err(e) => report.notes.push(format!("{}: /supported unavailable: {e}", f.name)),
                }
            }
            for s in signers {
                labels.push(label(s, "facilitator", &f.name, "x402-facilitators".into()));
            }
        }
        for e in &ctx.config.labels.extra {
            labels.push(label(hex_address(&e.address), &e.entity, &e.name, "operator".into()));
        }
        let mut lists: Vec<ListEntryRow> = Vec::new();
        let entry = |address, list: &str, category: &str, source: String| ListEntryRow {
            address,
            list: list.to_owned(),
            source,
            category: category.to_owned(),
            added_at,
        };
        for e in &curated.deny {
            lists.push(entry(
                hex_address(&e.address),
                "deny",
                &e.category,
                format!("{}: {}", curated.version, e.source),
            ));
        }
        for e in &curated.allow {
            lists.push(entry(
                hex_address(&e.address),
                "allow",
                &e.category,
                format!("{}: {}", curated.version, e.source),
            ));
        }
        for e in &ctx.config.labels.deny {
            lists.push(entry(hex_address(&e.address), "deny", &e.category, e.source.clone()));
        }
        for e in &ctx.config.labels.allow {
            lists.push(entry(hex_address(&e.address), "allow", &e.category, e.source.clone()));
        }
        let n1 =
            add_new(ctx, today, labels, |r| (r.address.clone(), r.entity.clone(), r.name.clone(), r.source.clone()))?;
        let n2 =
            add_new(ctx, today, lists, |r| (r.address.clone(), r.list.clone(), r.category.clone(), r.source.clone()))?;
        report.rows = n1 + n2;
        report.days = vec![today];
        Ok((LabelsCheckpoint { last_run: Some(ctx.now) }, report))
    }

    fn coverage(checkpoint: &LabelsCheckpoint) -> (Option<DateTime<Utc>>, Option<u64>) {
        (checkpoint.last_run, None)
    }
}

/// Adds the rows whose key the dataset does not hold yet to today's partition.
fn add_new<R, K>(ctx: &RunContext<'_>, today: NaiveDate, rows: Vec<R>, key: impl Fn(&R) -> K) -> anyhow::Result<u64>
where
    R: agentrep_lake::Row,
    K: Ord,
{
    let known: BTreeSet<K> = read_all::<R>(ctx.lake)?.iter().map(&key).collect();
    let mut day = ctx.lake.read_partition::<R>(today)?;
    let mut seen = BTreeSet::new();
    let fresh: Vec<R> = rows.into_iter().filter(|r| !known.contains(&key(r)) && seen.insert(key(r))).collect();
    let n = fresh.len() as u64;
    day.extend(fresh);
    ctx.lake.write_partition(today, &day)?;
    Ok(n)
}

#[cfg(test)]
mod tests {
    #[test]
    fn the_curated_list_parses_and_names_a_source_for_every_entry() {
        let c = super::curated();
        assert!(c.version.starts_with("agentrep-curated-v"));
        assert!(c.entity.iter().all(|e| !e.source.is_empty() && matches!(e.entity.as_str(), "exchange" | "bridge")));
        assert!(c.deny.iter().all(|e| !e.source.is_empty() && e.category.contains(':')));
    }
}
