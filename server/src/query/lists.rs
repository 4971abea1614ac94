//! Lists over the index: categories, the agents of one category, the scored marketplace list,
//! and the health summary.

use agentrep_publish::categories::{self, CATEGORIES};
use agentrep_publish::payloads::caip2;
use agentrep_publish::wire::*;
use schemars::JsonSchema;
use serde::Deserialize;

use crate::http::params::{Bounded, Flag};
use crate::{ApiError, ServedSnapshot};

/// Every category with its counts.
pub fn categories(snap: &ServedSnapshot, base: &str) -> CategoriesV1 {
    let categories: Vec<CategoryCountV1> = CATEGORIES
        .iter()
        .map(|c| {
            let members = snap.index.categories.get(c.slug).map(Vec::as_slice).unwrap_or_default();
            CategoryCountV1 {
                slug: c.slug.to_owned(),
                label: c.label.to_owned(),
                count: members.len() as u32,
                ranked: members.iter().filter(|id| snap.index.row(**id).rank.is_some()).count() as u32,
                browse: format!("{base}/by-category/{}", c.slug),
            }
        })
        .collect();
    CategoriesV1 {
        version: version("categories"),
        count: categories.len() as u32,
        total_indexed: snap.index.rows.len() as u32,
        categories,
        method: "the category whose words the listing's tags (weight 3) and description (weight 1) hit most; ties go to the earlier category; none: other".to_owned(),
    }
}

/// `GET /by-category/{cat}` query.
#[derive(Debug, Default, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct ByCategoryQuery {
    /// `1` drops red-shielded agents.
    #[serde(default)]
    pub safe_only: Flag,
    /// Agents to return.
    #[serde(default)]
    pub limit: Bounded<50, 1, 200>,
}

/// The agents of a category: ranked ones by category rank, then the others best first.
pub fn by_category(snap: &ServedSnapshot, slug: &str, q: &ByCategoryQuery) -> Result<ByCategoryV1, ApiError> {
    let def = categories::find(&slug.to_lowercase()).ok_or_else(|| {
        ApiError::UnknownName(format!("no category '{slug}'; GET /categories lists the 30 categories"))
    })?;
    let members: Vec<&AgentRowV1> = snap
        .index
        .categories
        .get(def.slug)
        .into_iter()
        .flatten()
        .map(|id| snap.index.row(*id))
        .filter(|r| !q.safe_only.0 || r.shield.color != ShieldColor::Red)
        .collect();
    let results: Vec<CategoryAgentV1> = members
        .iter()
        .take(q.limit.get() as usize)
        .map(|r| CategoryAgentV1 {
            pay_to: r.address.clone(),
            score: r.score,
            rank_in_category: r.category_rank,
            decision: r.decision,
            description: r.description.clone(),
            resource_path: r.resource_path.clone(),
            price: r.price.clone(),
            tags: r.tags.clone(),
            trust_shield: r.shield.clone(),
        })
        .collect();
    Ok(ByCategoryV1 {
        version: version("by-category"),
        category: def.slug.to_owned(),
        label: def.label.to_owned(),
        safe_only: q.safe_only.0,
        total: members.len() as u32,
        count: results.len() as u32,
        results,
    })
}

/// `GET /bazaar-scored` query.
#[derive(Debug, Default, Deserialize, JsonSchema)]
pub struct BazaarQuery {
    /// Items to return.
    #[serde(default)]
    pub limit: Bounded<100, 1, 500>,
    /// Items to skip.
    #[serde(default)]
    pub offset: Bounded<0, 0, 1_000_000>,
}

/// Every listed resource with its seller's trust score, best sellers first.
pub fn bazaar_scored(snap: &ServedSnapshot, q: &BazaarQuery) -> BazaarScoredV1 {
    let total: usize = snap.index.rows.iter().map(|r| r.resources.len().max(1)).sum();
    let items: Vec<BazaarItemV1> = snap
        .index
        .best
        .iter()
        .map(|id| snap.index.row(*id))
        .flat_map(|r| {
            let resources = if r.resources.is_empty() { vec![r.resource_path.clone()] } else { r.resources.clone() };
            resources.into_iter().map(move |resource| BazaarItemV1 {
                resource,
                pay_to: r.address.clone(),
                ecosystem: r.ecosystem.clone(),
                network: caip2(&r.network),
                description: r.description.clone(),
                price: r.price.clone(),
                score: r.score,
                decision: r.decision,
                color: r.shield.color,
                endpoint_alive: r.endpoint_alive,
            })
        })
        .skip(q.offset.get() as usize)
        .take(q.limit.get() as usize)
        .collect();
    BazaarScoredV1 {
        version: version("bazaar-scored"),
        total: total as u32,
        offset: q.offset.get(),
        count: items.len() as u32,
        items,
    }
}

/// Alive sellers `/health-summary` lists.
pub const ALIVE_TOP: usize = 10;

/// Probe coverage of the indexed sellers (seed §2.6).
pub fn health_summary(snap: &ServedSnapshot) -> HealthSummaryV1 {
    let probed: Vec<&AgentRowV1> = snap.index.rows.iter().filter(|r| r.metrics.sla.samples > 0).collect();
    let alive = probed.iter().filter(|r| r.endpoint_alive).count() as u32;
    let total_probed = probed.len() as u32;
    let mut alive_rows: Vec<&AgentRowV1> = probed.iter().copied().filter(|r| r.endpoint_alive).collect();
    alive_rows.sort_by(|a, b| super::index::best_first(a, b));
    HealthSummaryV1 {
        version: version("health-summary"),
        total_indexed: snap.index.rows.len() as u32,
        total_probed,
        alive,
        dead: total_probed - alive,
        uptime_pct: if total_probed == 0 {
            0
        } else {
            (f64::from(alive) * 100.0 / f64::from(total_probed)).round() as u32
        },
        alive_top: alive_rows
            .into_iter()
            .take(ALIVE_TOP)
            .map(|r| AliveAgentV1 {
                pay_to: r.address.clone(),
                description: r.description.clone(),
                score: r.score,
                resource_path: r.resource_path.clone(),
            })
            .collect(),
        note: (total_probed == 0).then(|| "no seller was probed in the last 7 days".to_owned()),
    }
}
