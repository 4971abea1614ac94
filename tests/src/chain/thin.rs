//! A thinner copy of a world lake, for replays that must stay fast.
//!
//! A replay mines one block per second that has any fact, and the pinned anvil (1.7.1) rebuilds
//! the whole state trie for every block, so a replay costs about blocks × state size. Even the
//! tiny world has tens of thousands of settlement seconds (one Pareto-sized honest seller takes
//! most of them) and ten thousand funding edges. Thinning writes a new, self-consistent lake that
//! keeps every dataset as it is except:
//!
//! * **settlements**: at most `settlements_per_seller_day` per (pay_to, UTC day); a busier seller
//!   day keeps rows evenly spread over its rows in time order (row `⌊i·n/k⌋` for i < k);
//! * **funding edges** (with `drop_orphan_funding`): only edges whose funded address still
//!   appears in another dataset of the thinned lake, or funds such an address (transitively).
//!
//! The thinned lake is the world of the replay and of whatever compares against it; the labels
//! sidecar is copied as it is.

use std::collections::{BTreeMap, HashSet};
use std::path::Path;

use agentrep_lake::datasets::{
    AgentCardRow, AttestationRow, BadgeClaimRow, CrawlRunRow, DailyScoreRow, DiscoverySubmissionRow, DomainRankRow,
    EntityLabelRow, EscrowEventRow, FeedbackRow, FundingRow, LaunchObservationRow, LaunchRow, ListEntryRow, ListingRow,
    OriginProofRow, PaidProbeRow, ProbeRow, ProofRow, ReceiptRow, RegistrationRow, SettlementRow, SubmittedCardRow,
    TokenBuyRow,
};
use agentrep_lake::{Dataset, Lake, Row};
use anyhow::Context;
use chrono::NaiveDate;

use super::plan::WorldRows;

/// How much to thin.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Thinning {
    /// Most settlements kept per (pay_to, UTC day).
    pub settlements_per_seller_day: usize,
    /// Keep only funding edges of addresses still in the world (and their funders).
    pub drop_orphan_funding: bool,
}

impl Default for Thinning {
    /// 10 settlements per seller day, orphan funding edges dropped: the 3-day tiny world then
    /// replays in about two minutes alone (6.4k blocks, 39.8k transactions; 139 s on 2026-11-27).
    fn default() -> Self {
        Self { settlements_per_seller_day: 10, drop_orphan_funding: true }
    }
}

/// What thinning kept.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct ThinStats {
    /// Settlements in the source.
    pub settlements_before: u64,
    /// Settlements kept.
    pub settlements_after: u64,
    /// Funding edges in the source.
    pub funding_before: u64,
    /// Funding edges kept.
    pub funding_after: u64,
}

fn copy<R: Row>(src: &Lake, dst: &Lake) -> anyhow::Result<()> {
    for p in src.partitions(R::DATASET)? {
        dst.write_partition(p.date, &src.read_partition::<R>(p.date)?)?;
    }
    Ok(())
}

fn read_days<R: Row>(src: &Lake) -> anyhow::Result<Vec<(NaiveDate, Vec<R>)>> {
    let mut out = Vec::new();
    for p in src.partitions(R::DATASET)? {
        out.push((p.date, src.read_partition::<R>(p.date)?));
    }
    Ok(out)
}

/// Writes a thinned copy of the lake at `src` to `dst` (a new folder).
///
/// # Errors
/// When reading or writing fails.
pub fn thin_world(src: &Lake, dst: &Path, thinning: &Thinning) -> anyhow::Result<ThinStats> {
    let out = Lake::new(dst);
    let mut stats = ThinStats::default();
    // Settlements, per (pay_to, day).
    let settlement_days = read_days::<SettlementRow>(src)?;
    let mut kept_settlements = Vec::new();
    for (date, rows) in settlement_days {
        stats.settlements_before += rows.len() as u64;
        let mut by_seller: BTreeMap<String, Vec<usize>> = BTreeMap::new();
        for (i, r) in rows.iter().enumerate() {
            by_seller.entry(r.pay_to.to_ascii_lowercase()).or_default().push(i);
        }
        let mut keep = vec![false; rows.len()];
        for idx in by_seller.values_mut() {
            idx.sort_by_key(|&i| (rows[i].block_time, i));
            let (n, k) = (idx.len(), thinning.settlements_per_seller_day.max(1));
            if n <= k {
                idx.iter().for_each(|&i| keep[i] = true);
            } else {
                (0..k).for_each(|j| keep[idx[j * n / k]] = true);
            }
        }
        let rows: Vec<SettlementRow> = rows.into_iter().zip(keep).filter(|(_, k)| *k).map(|(r, _)| r).collect();
        stats.settlements_after += rows.len() as u64;
        kept_settlements.push((date, rows));
    }
    for (date, rows) in &kept_settlements {
        out.write_partition(*date, rows)?;
    }
    // Every other dataset as it is (the match is exhaustive, so a new dataset cannot be missed).
    for dataset in Dataset::ALL {
        match dataset {
            Dataset::Settlements | Dataset::FundingEdges => {}
            Dataset::Listings => copy::<ListingRow>(src, &out)?,
            Dataset::EscrowEvents => copy::<EscrowEventRow>(src, &out)?,
            Dataset::Probes => copy::<ProbeRow>(src, &out)?,
            Dataset::Erc8004Registrations => copy::<RegistrationRow>(src, &out)?,
            Dataset::Erc8004Feedback => copy::<FeedbackRow>(src, &out)?,
            Dataset::IdentityProofs => copy::<ProofRow>(src, &out)?,
            Dataset::TokenLaunches => copy::<LaunchRow>(src, &out)?,
            Dataset::LaunchObservations => copy::<LaunchObservationRow>(src, &out)?,
            Dataset::TokenBuys => copy::<TokenBuyRow>(src, &out)?,
            Dataset::Receipts => copy::<ReceiptRow>(src, &out)?,
            Dataset::AddressLists => copy::<ListEntryRow>(src, &out)?,
            Dataset::Attestations => copy::<AttestationRow>(src, &out)?,
            Dataset::AgentCards => copy::<AgentCardRow>(src, &out)?,
            Dataset::BadgeClaims => copy::<BadgeClaimRow>(src, &out)?,
            Dataset::DiscoverySubmissions => copy::<DiscoverySubmissionRow>(src, &out)?,
            Dataset::SubmittedCards => copy::<SubmittedCardRow>(src, &out)?,
            Dataset::OriginProofs => copy::<OriginProofRow>(src, &out)?,
            Dataset::CrawlRuns => copy::<CrawlRunRow>(src, &out)?,
            Dataset::EntityLabels => copy::<EntityLabelRow>(src, &out)?,
            Dataset::DomainRanks => copy::<DomainRankRow>(src, &out)?,
            Dataset::PaidProbes => copy::<PaidProbeRow>(src, &out)?,
            Dataset::DailyScores => copy::<DailyScoreRow>(src, &out)?,
        }
    }
    // Funding edges.
    let funding_days = read_days::<FundingRow>(src)?;
    stats.funding_before = funding_days.iter().map(|(_, r)| r.len() as u64).sum();
    let keep_edge: Box<dyn Fn(&FundingRow) -> bool> = if thinning.drop_orphan_funding {
        let mut world = WorldRows::read(&out).context("reading the thinned lake")?;
        world.funding.clear();
        let mut wanted: HashSet<String> = world.addresses().into_iter().collect();
        // Funders of wanted addresses are wanted too, to a fixpoint (multi-hop funding chains).
        let edges: Vec<&FundingRow> = funding_days.iter().flat_map(|(_, r)| r.iter()).collect();
        loop {
            let before = wanted.len();
            for e in &edges {
                if wanted.contains(&e.funded.to_ascii_lowercase()) {
                    wanted.insert(e.funder.to_ascii_lowercase());
                }
            }
            if wanted.len() == before {
                break;
            }
        }
        Box::new(move |r: &FundingRow| wanted.contains(&r.funded.to_ascii_lowercase()))
    } else {
        Box::new(|_: &FundingRow| true)
    };
    for (date, rows) in funding_days {
        let rows: Vec<FundingRow> = rows.into_iter().filter(|r| keep_edge(r)).collect();
        stats.funding_after += rows.len() as u64;
        out.write_partition(date, &rows)?;
    }
    // Sidecars (labels.json).
    for entry in std::fs::read_dir(src.root())? {
        let entry = entry?;
        let path = entry.path();
        if path.is_file() {
            std::fs::copy(&path, dst.join(entry.file_name()))?;
        }
    }
    Ok(stats)
}
