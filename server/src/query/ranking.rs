//! Ranking reads: leaderboard views, head-to-head comparison, curated picks, 7-day trending,
//! daily movers, and a random ranked agent.

use std::sync::Arc;

use agentrep_publish::payloads;
use agentrep_publish::wire::*;
use bytes::Bytes;
use schemars::JsonSchema;
use serde::Deserialize;
use serde_json::value::RawValue;

use super::index::AgentId;
use crate::blob::{Blob, EntryJson, LeaderboardKey};
use crate::http::params::{Bounded, Flag, NetworkFilter, address};
use crate::{ApiError, ServedSnapshot};

/// `GET /leaderboard` query.
#[derive(Debug, Default, Deserialize, JsonSchema)]
pub struct LeaderboardQuery {
    /// Entries to return.
    #[serde(default)]
    pub limit: Bounded<100, 1, 500>,
    /// Only agents indexed from this marketplace.
    pub ecosystem: Option<String>,
    /// Only agents on this network.
    pub network: Option<NetworkFilter>,
    /// `1` adds `sparkline7d`: the last 7 daily scores.
    #[serde(default)]
    pub sparkline: Flag,
}

impl LeaderboardQuery {
    /// The cache key of the view and the CAIP-2 prefix it filters on.
    pub fn key(&self) -> (LeaderboardKey, Option<&'static str>) {
        let prefix = self.network.as_ref().and_then(|n| n.prefix);
        let key = LeaderboardKey {
            limit: self.limit.get(),
            ecosystem: self.ecosystem.clone().filter(|e| !e.is_empty()),
            network: self.network.as_ref().filter(|n| n.prefix.is_some()).map(|n| n.given.clone()),
            sparkline: self.sparkline.0,
        };
        (key, prefix)
    }
}

/// A leaderboard view with pre-serialised entries.
pub fn leaderboard<'a>(
    snap: &'a ServedSnapshot,
    key: &LeaderboardKey,
    prefix: Option<&str>,
) -> LeaderboardV1<&'a RawValue> {
    let results: Vec<&RawValue> = snap
        .entries
        .iter()
        .filter(|e: &&EntryJson| key.ecosystem.as_deref().is_none_or(|eco| e.ecosystem == eco))
        .filter(|e| prefix.is_none_or(|p| e.network.starts_with(p)))
        .take(key.limit as usize)
        .map(|e| if key.sparkline { &*e.with_sparkline } else { &*e.plain })
        .collect();
    let filters = FiltersV1 {
        ecosystem: key.ecosystem.clone(),
        network: key.network.clone(),
        limit: key.limit,
        with_sparkline: key.sparkline,
    };
    LeaderboardV1::assemble(&snap.generated_at, snap.date(), &snap.stats, filters, results)
}

/// The leaderboard view a query asks for, built once per snapshot and kept.
pub fn leaderboard_view(snap: &ServedSnapshot, q: &LeaderboardQuery) -> Result<Arc<Blob>, ApiError> {
    let (key, prefix) = q.key();
    Ok(snap.leaderboard_views.get_or_build(&key, || {
        let doc = leaderboard(snap, &key, prefix);
        Blob::new(Bytes::from(serde_json::to_vec(&doc).expect("leaderboard serialises")))
    }))
}

/// `GET /compare` query.
#[derive(Debug, Deserialize, JsonSchema)]
pub struct CompareQuery {
    /// First address.
    #[schemars(pattern(r"^0x[a-fA-F0-9]{40}$"))]
    pub a: String,
    /// Second address.
    #[schemars(pattern(r"^0x[a-fA-F0-9]{40}$"))]
    pub b: String,
}

fn side(snap: &ServedSnapshot, raw: &str, param: &str) -> Result<CompareSideV1, ApiError> {
    let a = address(raw).map_err(|e| ApiError::param(param, format!("{param}: {e}")))?;
    Ok(match snap.index.agent(a.as_str()) {
        Some(row) => CompareSideV1 {
            indexed: true,
            address: row.address.clone(),
            score: row.score,
            decision: Some(row.decision),
            color: Some(row.shield.color),
            description: row.description.clone(),
            metrics: Some(row.metrics.clone()),
        },
        None => CompareSideV1 {
            indexed: false,
            address: a.to_string(),
            score: None,
            decision: None,
            color: None,
            description: None,
            metrics: None,
        },
    })
}

/// Two agents side by side, with a winner when both are scored.
pub fn compare(snap: &ServedSnapshot, q: &CompareQuery) -> Result<CompareV1, ApiError> {
    let a = side(snap, &q.a, "a")?;
    let b = side(snap, &q.b, "b")?;
    let (winner, margin, recommendation) = match (a.score, b.score) {
        _ if a.address == b.address => (None, None, "the same address was given twice".to_owned()),
        (Some(x), Some(y)) => {
            let margin = x.abs_diff(y);
            let (w, ws, wd) = if x >= y { ("a", &a, a.decision) } else { ("b", &b, b.decision) };
            let blocked = wd.filter(|d| matches!(d, Decision::Block | Decision::Caution));
            let text = if margin == 0 {
                "tie: equal scores; compare price and SLA".to_owned()
            } else if let Some(decision) = blocked {
                format!("{w} scores {margin} points higher, but its preflight says {decision}: check /preflight first")
            } else if margin < 5 {
                format!("{w} scores {margin} points higher: a small margin; compare price and SLA")
            } else {
                format!("prefer {w} ({}): it scores {margin} points higher", ws.address)
            };
            (Some(if margin == 0 { "tie" } else { w }.to_owned()), Some(margin), text)
        }
        (None, Some(_)) => (None, None, format!("no winner: a ({}) has no score", a.address)),
        (Some(_), None) => (None, None, format!("no winner: b ({}) has no score", b.address)),
        (None, None) => (None, None, "no winner: neither address has a score".to_owned()),
    };
    Ok(CompareV1 {
        version: version("compare"),
        a,
        b,
        winner,
        margin,
        recommendation,
        snapshot_date: snap.date().to_owned(),
    })
}

/// Score change of a row over the last `days` days of its recent scores: (before, since, delta).
fn gain(row: &AgentRowV1, date: &str, days: i64) -> Option<(u8, String, i32)> {
    let today = row.score?;
    let day = chrono::NaiveDate::parse_from_str(date, "%Y-%m-%d").ok()?;
    let from = (day - chrono::Duration::days(days)).to_string();
    let first = row.recent_scores.iter().find(|p| p.snapshot_date >= from && p.snapshot_date.as_str() < date)?;
    let before = first.score?;
    Some((before, first.snapshot_date.clone(), i32::from(today) - i32::from(before)))
}

/// Days the trending window spans.
pub const TRENDING_DAYS: u32 = 7;

/// `GET /trending` query.
#[derive(Debug, Default, Deserialize, JsonSchema)]
pub struct TrendingQuery {
    /// Entries to return.
    #[serde(default)]
    pub limit: Bounded<10, 1, 100>,
}

/// Ranked agents with the largest score gains over the last 7 days.
pub fn trending(snap: &ServedSnapshot, q: &TrendingQuery) -> TrendingV1 {
    let date = snap.date();
    let mut gains: Vec<TrendingEntryV1> = snap
        .index
        .ranked
        .iter()
        .map(|id| snap.index.row(*id))
        .filter_map(|row| {
            let (before, since, delta) = gain(row, date, i64::from(TRENDING_DAYS))?;
            (delta > 0).then(|| TrendingEntryV1 {
                pay_to: row.address.clone(),
                score: row.score.unwrap_or_default(),
                score_before: before,
                since,
                delta,
                description: row.description.clone(),
            })
        })
        .collect();
    let any_history = snap.index.rows.iter().any(|r| r.recent_scores.len() > 1);
    gains.sort_by(|a, b| b.delta.cmp(&a.delta).then(b.score.cmp(&a.score)).then_with(|| a.pay_to.cmp(&b.pay_to)));
    gains.truncate(q.limit.get() as usize);
    TrendingV1 {
        version: version("trending"),
        days: TRENDING_DAYS,
        count: gains.len() as u32,
        results: gains,
        note: (!any_history).then(|| "no history yet: trending needs two daily snapshots".to_owned()),
    }
}

/// `GET /movers` query.
#[derive(Debug, Default, Deserialize, JsonSchema)]
pub struct MoversQuery {
    /// Movers each way.
    #[serde(default)]
    pub limit: Bounded<10, 1, 100>,
}

/// Daily movers with the asked limit.
pub fn movers(snap: &ServedSnapshot, q: &MoversQuery) -> MoversV1 {
    payloads::movers(snap.date(), &snap.index.rows, q.limit.get() as usize)
}

/// Listing age under which a ranked agent counts as a newcomer.
pub const NEWCOMER_DAYS: u32 = 14;

/// Four picks: the 7-day trending leader, the best newcomer, the volume leader, and a hidden
/// gem (a high score on few jobs). Every pick is a ranked agent; no agent is picked twice.
pub fn featured(snap: &ServedSnapshot) -> FeaturedV1 {
    let ranked: Vec<(AgentId, &AgentRowV1)> = snap.index.ranked.iter().map(|id| (*id, snap.index.row(*id))).collect();
    let mut taken: Vec<AgentId> = Vec::new();
    let mut picks = Vec::new();
    let mut pick = |label: &str, best: Option<(AgentId, &AgentRowV1)>, reason: String, taken: &mut Vec<AgentId>| {
        if let Some((id, row)) = best {
            taken.push(id);
            picks.push(PickV1 {
                label: label.to_owned(),
                pay_to: row.address.clone(),
                score: row.score,
                description: row.description.clone(),
                reason,
            });
        }
    };
    let date = snap.date();
    let trending = ranked
        .iter()
        .filter_map(|(id, r)| gain(r, date, 7).filter(|g| g.2 > 0).map(|g| (*id, *r, g.2)))
        .max_by(|a, b| a.2.cmp(&b.2).then(a.1.score.cmp(&b.1.score)).then_with(|| b.1.address.cmp(&a.1.address)));
    pick(
        "trending",
        trending.map(|(id, r, _)| (id, r)),
        trending.map_or_else(String::new, |t| format!("score up {} points in 7 days", t.2)),
        &mut taken,
    );
    let newcomer =
        ranked.iter().filter(|(id, r)| !taken.contains(id) && r.listing_age_days <= NEWCOMER_DAYS).copied().next();
    pick(
        "newcomer",
        newcomer,
        newcomer.map_or_else(String::new, |(_, r)| format!("listed {} days ago, already ranked", r.listing_age_days)),
        &mut taken,
    );
    let volume = ranked.iter().filter(|(id, _)| !taken.contains(id)).copied().max_by(|a, b| {
        a.1.metrics.usdc_volume.total_cmp(&b.1.metrics.usdc_volume).then_with(|| b.1.address.cmp(&a.1.address))
    });
    pick(
        "volume",
        volume,
        volume.map_or_else(String::new, |(_, r)| {
            format!("{:.2} USDC settled by qualifying payers", r.metrics.usdc_volume)
        }),
        &mut taken,
    );
    let mut jobs: Vec<u64> = ranked.iter().map(|(_, r)| r.metrics.job_count).collect();
    jobs.sort_unstable();
    let median_jobs = jobs.get(jobs.len() / 2).copied().unwrap_or_default();
    let gem = ranked.iter().filter(|(id, r)| !taken.contains(id) && r.metrics.job_count < median_jobs).copied().next();
    pick(
        "gem",
        gem,
        gem.map_or_else(String::new, |(_, r)| {
            format!(
                "score {} on {} jobs, below the median of {median_jobs}",
                r.score.unwrap_or_default(),
                r.metrics.job_count
            )
        }),
        &mut taken,
    );
    FeaturedV1 { version: version("featured"), picks, snapshot_date: date.to_owned() }
}

/// `GET /random` query.
#[derive(Debug, Default, Deserialize, JsonSchema)]
pub struct RandomQuery {
    /// Draw only from this network (as `/leaderboard`'s filter).
    pub network: Option<NetworkFilter>,
}

/// One ranked agent drawn uniformly, as a leaderboard entry.
pub fn random(snap: &ServedSnapshot, q: &RandomQuery) -> Result<RandomV1, ApiError> {
    let prefix = q.network.as_ref().and_then(|n| n.prefix);
    let pool: Vec<&EntryJson> =
        snap.entries.iter().filter(|e| prefix.is_none_or(|p| e.network.starts_with(p))).collect();
    let agent = match pool.len() {
        0 => None,
        n => Some(
            serde_json::from_str(pool[fastrand::usize(..n)].plain.get())
                .map_err(|e| ApiError::snapshot_unreadable("leaderboard entry", &e))?,
        ),
    };
    Ok(RandomV1 { version: version("random"), pool: pool.len() as u32, agent })
}
