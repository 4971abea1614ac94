//! Directory reads: proofs, the denylist, top buyers, agents of interest, funding chains,
//! recent activity, canonical identities, back-links, snippets and crawl sources.

use std::collections::BTreeMap;

use agentrep_model::{Address, ProofType, usdc};
use agentrep_publish::wire::*;
use schemars::JsonSchema;
use serde::Deserialize;

pub use super::directory_index::{DirectoryIndex, TOP_BUYERS};
use crate::http::params::{Bounded, ProofTypeParam};
use crate::{ApiError, ServedSnapshot};

/// Hops `/funded-by` follows (the model's funding horizon).
pub const FUNDING_HOPS: usize = agentrep_model::trust::MAX_FUNDING_HOPS;

/// `GET /proofs` query.
#[derive(Debug, Default, Deserialize, JsonSchema)]
pub struct ProofsQuery {
    /// The proof type to list; without it, the types with their counts.
    #[serde(rename = "type")]
    pub kind: Option<ProofTypeParam>,
    /// Proofs per page.
    #[serde(default)]
    pub limit: Bounded<50, 1, 500>,
    /// Proofs to skip.
    #[serde(default)]
    pub offset: Bounded<0, 0, 10_000_000>,
}

/// Proof types with counts, or one page of the addresses with a type.
pub fn proofs(snap: &ServedSnapshot, q: &ProofsQuery) -> Result<ProofsV1, ApiError> {
    let dir = &snap.directory;
    let available_types = ProofType::ALL
        .iter()
        .map(|t| ProofTypeCountV1 {
            kind: t.as_str().to_owned(),
            count: dir.proofs_by_type.get(t.as_str()).map_or(0, |v| v.len() as u32),
        })
        .collect();
    let kind = q.kind.map(|k| k.0);
    let ids = kind.and_then(|k| dir.proofs_by_type.get(k.as_str())).map(Vec::as_slice).unwrap_or_default();
    let proofs = ids
        .iter()
        .skip(q.offset.get() as usize)
        .take(q.limit.get() as usize)
        .map(|i| dir.rows.proofs[*i as usize].clone())
        .collect();
    Ok(ProofsV1 {
        version: version("proofs"),
        available_types,
        kind: kind.map(|k| k.as_str().to_owned()),
        total: ids.len() as u32,
        offset: q.offset.get(),
        limit: q.limit.get(),
        proofs,
    })
}

/// `GET /denylist` query.
#[derive(Debug, Default, Deserialize, JsonSchema)]
pub struct DenylistQuery {
    /// Entries per page.
    #[serde(default)]
    pub limit: Bounded<500, 1, 5000>,
    /// Entries to skip.
    #[serde(default)]
    pub offset: Bounded<0, 0, 10_000_000>,
}

/// The denylist with each entry's source.
pub fn denylist(snap: &ServedSnapshot, q: &DenylistQuery) -> DenylistV1 {
    let dir = &snap.directory;
    let mut sources = BTreeMap::new();
    for i in &dir.denylist {
        *sources.entry(dir.rows.lists[*i as usize].source.clone()).or_insert(0) += 1;
    }
    let addresses: Vec<ListRowV1> = dir
        .denylist
        .iter()
        .skip(q.offset.get() as usize)
        .take(q.limit.get() as usize)
        .map(|i| dir.rows.lists[*i as usize].clone())
        .collect();
    DenylistV1 {
        version: version("denylist"),
        total: dir.denylist.len() as u32,
        sources,
        count: addresses.len() as u32,
        offset: q.offset.get(),
        addresses,
    }
}

/// `GET /top-buyers` query.
#[derive(Debug, Default, Deserialize, JsonSchema)]
pub struct TopBuyersQuery {
    /// Buyers to return.
    #[serde(default)]
    pub limit: Bounded<20, 1, 100>,
}

/// The wallets that spent the most on indexed sellers.
pub fn top_buyers(snap: &ServedSnapshot, q: &TopBuyersQuery) -> TopBuyersV1 {
    let buyers: Vec<BuyerV1> = snap.directory.top_buyers.iter().take(q.limit.get() as usize).cloned().collect();
    TopBuyersV1 { version: version("top-buyers"), count: buyers.len() as u32, buyers }
}

/// The filters of `/agents-of-interest` (seed §2.5).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Deserialize, JsonSchema)]
#[serde(rename_all = "kebab-case")]
pub enum InterestFilter {
    /// Much demand, little trust.
    #[default]
    HighActivityLowTrust,
    /// Newly listed.
    RecentNewcomers,
    /// The most identity proofs.
    TopByProofs,
}

impl InterestFilter {
    /// Every filter.
    pub const ALL: [InterestFilter; 3] =
        [InterestFilter::HighActivityLowTrust, InterestFilter::RecentNewcomers, InterestFilter::TopByProofs];

    /// The wire name.
    pub fn as_str(self) -> &'static str {
        match self {
            InterestFilter::HighActivityLowTrust => "high-activity-low-trust",
            InterestFilter::RecentNewcomers => "recent-newcomers",
            InterestFilter::TopByProofs => "top-by-proofs",
        }
    }

    /// What it selects.
    pub fn describe(self) -> &'static str {
        match self {
            InterestFilter::HighActivityLowTrust => {
                "sellers with at least the median settlement count whose preflight is not PROCEED: much demand, little trust"
            }
            InterestFilter::RecentNewcomers => "sellers first listed in the last 14 days, newest first",
            InterestFilter::TopByProofs => "sellers with the most identity proofs, then the best score",
        }
    }
}

/// `GET /agents-of-interest` query.
#[derive(Debug, Default, Deserialize, JsonSchema)]
pub struct AgentsOfInterestQuery {
    /// The shortlist (default `high-activity-low-trust`).
    pub filter: Option<InterestFilter>,
    /// Agents to return.
    #[serde(default)]
    pub limit: Bounded<20, 1, 100>,
}

fn seen_at(row: &AgentRowV1, date: &str) -> String {
    let iso = row.last_settlement_at.as_deref().or(row.probed_at.as_deref());
    iso.map_or_else(|| format!("{date} 00:00:00"), |t| t.replace('T', " ").trim_end_matches('Z').to_owned())
}

/// A shortlist of sellers worth a closer look, each with its audit link.
pub fn agents_of_interest(
    snap: &ServedSnapshot,
    base: &str,
    q: &AgentsOfInterestQuery,
) -> Result<AgentsOfInterestV1, ApiError> {
    let filter = q.filter.unwrap_or_default();
    let rows = &snap.index.rows;
    let mut picked: Vec<&AgentRowV1> = match filter {
        InterestFilter::HighActivityLowTrust => {
            let mut counts: Vec<u64> = rows.iter().map(|r| r.metrics.job_count).filter(|n| *n > 0).collect();
            counts.sort_unstable();
            let median = counts.get(counts.len() / 2).copied().unwrap_or(1).max(1);
            let mut v: Vec<&AgentRowV1> =
                rows.iter().filter(|r| r.metrics.job_count >= median && r.decision != Decision::Proceed).collect();
            v.sort_by(|a, b| b.metrics.job_count.cmp(&a.metrics.job_count).then_with(|| a.address.cmp(&b.address)));
            v
        }
        InterestFilter::RecentNewcomers => {
            let mut v: Vec<&AgentRowV1> = rows.iter().filter(|r| r.listing_age_days <= 14).collect();
            v.sort_by(|a, b| a.listing_age_days.cmp(&b.listing_age_days).then_with(|| super::index::best_first(a, b)));
            v
        }
        InterestFilter::TopByProofs => {
            let mut v: Vec<&AgentRowV1> = rows.iter().filter(|r| !r.proofs.is_empty()).collect();
            v.sort_by(|a, b| b.proofs.len().cmp(&a.proofs.len()).then_with(|| super::index::best_first(a, b)));
            v
        }
    };
    picked.truncate(q.limit.get() as usize);
    let agents: Vec<AgentOfInterestV1> = picked
        .into_iter()
        .map(|r| AgentOfInterestV1 {
            address: r.address.clone(),
            name: r.name.clone().unwrap_or_default(),
            score: r.score.unwrap_or_default(),
            last_seen_at: seen_at(r, snap.date()),
            settlement_count: r.metrics.job_count,
            proof_count: r.proofs.len() as u32,
            audit_url: format!("{base}/audit/{}", r.address),
            audit_price: "0.25".to_owned(),
            free_score_url: format!("{base}/score/{}", r.address),
        })
        .collect();
    Ok(AgentsOfInterestV1 {
        version: version("agents-of-interest"),
        filter: filter.as_str().to_owned(),
        count: agents.len() as u32,
        hint: "check the free score first; the paid audit lists proofs, launches, settlements, SLA, receipts and ERC-8004 feedback".to_owned(),
        filters: InterestFilter::ALL.iter().map(|f| (f.as_str().to_owned(), f.describe().to_owned())).collect(),
        agents,
    })
}

fn step(snap: &ServedSnapshot, hop: u32, f: &FundingRowV1) -> FundingStepV1 {
    let denylisted = snap.counterparties.get(&f.funder).is_some_and(|c| c.denylisted)
        || snap.index.agent(&f.funder).is_some_and(|r| r.denylisted);
    FundingStepV1 {
        hop,
        funded: f.funded.clone(),
        funder: f.funder.clone(),
        amount_usdc: f.amount_usdc,
        first_funded_at: f.first_funded_at.clone(),
        funder_is_seller: snap.index.agent(&f.funder).is_some(),
        funder_denylisted: denylisted,
    }
}

/// The first-funding chain of an address.
pub fn funded_by(snap: &ServedSnapshot, a: &Address) -> FundedByV1 {
    let dir = &snap.directory;
    let mut chain = Vec::new();
    let mut at = a.as_str().to_owned();
    for hop in 1..=FUNDING_HOPS as u32 {
        let Some(i) = dir.funding_by_funded.get(&at) else { break };
        let row = &dir.rows.funding[*i as usize];
        chain.push(step(snap, hop, row));
        at = row.funder.clone();
    }
    let first_funder = chain.first().cloned();
    let funder_fan_out = first_funder.as_ref().map_or(0, |f| dir.fan_out.get(&f.funder).copied().unwrap_or(0));
    FundedByV1 {
        version: version("funded-by"),
        address: a.to_string(),
        note: if first_funder.is_some() {
            "the first USDC transfer into each wallet, followed back; later top-ups are not recorded, so this is the funding origin, not a ranking of every funder".to_owned()
        } else {
            "no first USDC funding is recorded for this address (only sellers, deployers and their funding chains are published)".to_owned()
        },
        first_funder,
        chain,
        funder_fan_out,
    }
}

/// Days `/recent-activity` covers.
pub const ACTIVITY_DAYS: u32 = 7;

/// Earnings, spend and buyers of the last 7 days.
pub fn recent_activity(snap: &ServedSnapshot, a: &Address) -> RecentActivityV1 {
    let as_seller = snap.index.agent(a.as_str()).map(|r| SellerActivityV1 {
        earned_usdc: r.earned_7d,
        settlements: r.settlements_7d,
        unique_buyers: r.buyers_7d,
        last_settlement_at: r.last_settlement_at.clone(),
    });
    let as_buyer = snap.counterparties.get(a.as_str()).filter(|c| c.spent > 0).map(|c| BuyerActivityV1 {
        spent_usdc: usdc(c.spent_7d),
        payments: c.payments_7d,
        sellers_paid: c.sellers_paid_7d,
    });
    RecentActivityV1 {
        version: version("recent-activity"),
        address: a.to_string(),
        days: ACTIVITY_DAYS,
        as_seller,
        as_buyer,
        snapshot_date: snap.date().to_owned(),
    }
}

/// The names an address is known by.
pub fn canonical_id(snap: &ServedSnapshot, a: &Address) -> CanonicalIdV1 {
    let identity = snap.directory.identity(a.as_str());
    let row = snap.index.agent(a.as_str());
    CanonicalIdV1 {
        version: version("canonical-id"),
        address: a.to_string(),
        basename: None,
        ens: None,
        erc8004_agent_id: identity.map(|i| i.agent_id),
        erc8004_owner: identity.map(|i| i.owner.clone()),
        agent_description_url: identity.map(|i| i.uri.clone()),
        name: identity.and_then(|i| i.name.clone()),
        tier: row.map(|r| r.tier),
        proofs: snap.directory.proofs_of(a.as_str()),
        note: "basename and ens stay null until the identity-proof job reads reverse names (the proofs list still shows a verified basename or ens proof); the ERC-8004 fields come from the registration whose agentWallet is this address".to_owned(),
    }
}

/// Whether the agent's registration file links back to this service.
pub fn has_ref(snap: &ServedSnapshot, a: &Address) -> HasRefV1 {
    let identity = snap.directory.identity(a.as_str());
    let reason = match identity {
        None => {
            "no ERC-8004 registration declares this address as its agentWallet, so there is no file to read".to_owned()
        }
        Some(i) if i.card_fetched_at.is_none() => format!("the registration file {} has not been fetched yet", i.uri),
        Some(i) if i.card_error.is_some() => {
            format!("the last fetch of {} failed: {}", i.uri, i.card_error.as_deref().unwrap_or_default())
        }
        Some(i) if i.links_back => format!("{} links back to this service", i.uri),
        Some(i) => format!("{} does not link back to this service", i.uri),
    };
    HasRefV1 {
        version: version("has-ref"),
        address: a.to_string(),
        has_ref: identity.is_some_and(|i| i.links_back && i.card_error.is_none()),
        agent_id: identity.map(|i| i.agent_id),
        uri: identity.map(|i| i.uri.clone()),
        checked_at: identity.and_then(|i| i.card_fetched_at.clone()),
        reason,
    }
}

/// The block an agent adds to its registration file to link back here.
pub fn snippet(base: &str, a: &Address) -> SnippetV1 {
    SnippetV1 {
        version: version("snippet"),
        instructions: "add `reputation` to the agent's ERC-8004 registration file (its agentURI document); the next crawl of the file records the back-link".to_owned(),
        reputation: SnippetBlockV1 {
            service: "agentrep".to_owned(),
            address: a.to_string(),
            score: format!("{base}/score/{a}"),
            preflight: format!("{base}/preflight/{a}"),
            badge: format!("{base}/badge/{a}.svg"),
            shield: format!("{base}/shield/{a}.json"),
        },
        markdown: format!("![agentrep score]({base}/badge/{a}.svg)"),
    }
}

/// Crawl sources ranked by the seed's crawler score.
pub fn crawlers(snap: &ServedSnapshot) -> CrawlersV1 {
    let mut crawlers: Vec<CrawlerV1> = snap
        .directory
        .rows
        .crawlers
        .iter()
        .map(|c| {
            let failed = c.last_error.is_some();
            let score =
                i64::from(c.addresses) + if failed { -20 } else { 10 } + if c.ecosystem.is_empty() { 0 } else { 5 };
            CrawlerV1 {
                source_url: c.source_url.clone(),
                ecosystem: c.ecosystem.clone(),
                score,
                address_count: c.addresses,
                last_error: c.last_error.clone(),
                runs: c.runs,
                failed_runs: c.failed_runs,
                last_run_at: c.last_run_at.clone(),
            }
        })
        .collect();
    crawlers.sort_by(|a, b| b.score.cmp(&a.score).then_with(|| a.source_url.cmp(&b.source_url)));
    CrawlersV1 { version: version("crawlers"), count: crawlers.len() as u32, crawlers }
}
