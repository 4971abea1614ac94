//! What an ingest of the replayed world must find, computed from the world and the replay's
//! counts, with every difference the chain forces named here.

use std::collections::{BTreeMap, BTreeSet};

use agentrep_lake::datasets::{FeedbackRow, FundingRow, ListingRow, RegistrationRow, SettlementRow};
use agentrep_lake::{Lake, SettlementForm};
use agentrep_tests::chain::plan::BASE_NETWORK;
use agentrep_tests::replayed::read_dated;

/// USDC on Base, as the ingest writes it.
pub const USDC: &str = "0x833589fcd6edb6e08f4c7c32d4f71b54bda02913";

/// A settlement as the chain shows it: payer, payee, value, time, form, relayer.
pub type SettlementFact = (String, String, u64, i64, SettlementForm, Option<String>);

/// A settlement's chain-independent fields.
pub fn settlement_fact(s: &SettlementRow) -> SettlementFact {
    (
        s.payer.to_ascii_lowercase(),
        s.pay_to.to_ascii_lowercase(),
        s.value,
        s.block_time.secs(),
        SettlementForm::of(s.form, s.eip3009),
        s.facilitator.as_ref().map(|f| f.to_ascii_lowercase()),
    )
}

/// Whether the replay played this world settlement (Base, USDC): others live on other chains.
pub fn played(s: &SettlementRow) -> bool {
    s.network == BASE_NETWORK && s.asset.eq_ignore_ascii_case(USDC)
}

/// The transfers the settlements job must find: every played world settlement to a listed
/// seller, plus each funding edge to a listed seller. On chain a funding transfer to a seller is a
/// transfer to the seller like any other: the job stores it as a plain transfer (no EIP-3009, no
/// relayer), which the model counts as unattributed, never as demand.
pub fn expected_settlements(world: &Lake, sellers: &BTreeSet<String>) -> anyhow::Result<Vec<SettlementFact>> {
    let mut out: Vec<SettlementFact> = read_dated::<SettlementRow>(world)?
        .into_iter()
        .map(|(_, s)| s)
        .filter(|s| played(s) && sellers.contains(&s.pay_to.to_ascii_lowercase()))
        .map(|s| settlement_fact(&s))
        .collect();
    for (_, f) in read_dated::<FundingRow>(world)? {
        if sellers.contains(&f.funded.to_ascii_lowercase()) {
            out.push((
                f.funder.to_ascii_lowercase(),
                f.funded.to_ascii_lowercase(),
                f.amount,
                f.first_funded_at.secs(),
                SettlementForm::Transfer,
                None,
            ));
        }
    }
    out.sort();
    Ok(out)
}

/// The listed sellers (lowercase) of a set of listings.
pub fn sellers(listings: &[ListingRow]) -> BTreeSet<String> {
    listings.iter().map(|l| l.pay_to.to_ascii_lowercase()).collect()
}

/// A first funding as the chain shows it: funded, funder, time, amount.
pub type FundingFact = (String, String, i64, u64);

/// The first funders the funding job must find: for every actor (payers, sellers, feedback
/// clients, agent owners and wallets, deployers, receipt buyers) and then for their funders up to
/// `hops` steps back, the earliest USDC
/// transfer to it among everything the replay played (funding edges and settlements; mints are
/// issuance, not funding). Within one second the replay plays funding edges before settlements,
/// each in lake order, and so does this.
pub fn expected_funding(world: &Lake, actors: &BTreeSet<String>, hops: usize) -> anyhow::Result<Vec<FundingFact>> {
    // Every played USDC transfer, in chain order.
    let mut transfers: Vec<(i64, u8, usize, String, String, u64)> = Vec::new();
    for (i, (_, f)) in read_dated::<FundingRow>(world)?.into_iter().enumerate() {
        transfers.push((
            f.first_funded_at.secs(),
            0,
            i,
            f.funder.to_ascii_lowercase(),
            f.funded.to_ascii_lowercase(),
            f.amount,
        ));
    }
    for (i, (_, s)) in read_dated::<SettlementRow>(world)?.into_iter().enumerate() {
        // A channel's claims reach the seller in a sweep, which funds nobody (the funding job
        // passes it over); an escrow payout is funded by the payment's payer, as a direct payment.
        if played(&s) && SettlementForm::of(s.form, s.eip3009) != SettlementForm::BatchClaim {
            transfers.push((
                s.block_time.secs(),
                1,
                i,
                s.payer.to_ascii_lowercase(),
                s.pay_to.to_ascii_lowercase(),
                s.value,
            ));
        }
    }
    transfers.sort();
    let mut first: BTreeMap<&str, (&str, i64, u64)> = BTreeMap::new();
    for (t, _, _, from, to, value) in &transfers {
        first.entry(to.as_str()).or_insert((from.as_str(), *t, *value));
    }
    let mut frontier: BTreeSet<String> = actors.clone();
    let mut visited: BTreeSet<String> = BTreeSet::new();
    let mut out = Vec::new();
    for _ in 0..hops {
        frontier.retain(|a| !visited.contains(a));
        visited.extend(frontier.iter().cloned());
        let mut next = BTreeSet::new();
        for a in &frontier {
            if let Some((funder, t, amount)) = first.get(a.as_str()) {
                out.push((a.clone(), (*funder).to_owned(), *t, *amount));
                next.insert((*funder).to_owned());
            }
        }
        frontier = next;
    }
    out.sort();
    Ok(out)
}

/// Sorted multiset difference: (in `expected` only, in `got` only).
pub fn diff<T: Ord + Clone>(expected: &[T], got: &[T]) -> (Vec<T>, Vec<T>) {
    let mut counts: BTreeMap<&T, i64> = BTreeMap::new();
    for e in expected {
        *counts.entry(e).or_default() += 1;
    }
    for g in got {
        *counts.entry(g).or_default() -= 1;
    }
    let mut missing = Vec::new();
    let mut extra = Vec::new();
    for (k, n) in counts {
        for _ in 0..n.max(0) {
            missing.push(k.clone());
        }
        for _ in 0..(-n).max(0) {
            extra.push(k.clone());
        }
    }
    (missing, extra)
}

/// Asserts two multisets are equal, printing a few of the differences.
pub fn assert_same<T: Ord + Clone + std::fmt::Debug>(what: &str, expected: &[T], got: &[T]) {
    let (missing, extra) = diff(expected, got);
    assert!(
        missing.is_empty() && extra.is_empty(),
        "{what}: {} expected, {} ingested; {} missing, e.g. {:#?}; {} extra, e.g. {:#?}",
        expected.len(),
        got.len(),
        missing.len(),
        &missing[..missing.len().min(5)],
        extra.len(),
        &extra[..extra.len().min(5)]
    );
}

/// A feedback as the chain shows it: agent, client, index, value, decimals, tags, revoked, time.
pub type FeedbackFact = (u64, String, u64, i64, u32, String, String, bool, i64);

/// A feedback row's chain-independent fields.
pub fn feedback_fact(f: &FeedbackRow) -> FeedbackFact {
    (
        f.agent_id,
        f.client.to_ascii_lowercase(),
        f.feedback_index,
        f.value,
        f.value_decimals,
        f.tag1.clone(),
        f.tag2.clone(),
        f.revoked,
        f.block_time.secs(),
    )
}

/// The feedback the ERC-8004 job must find: the world's, less what the registry refuses (feedback
/// by the agent's owner, or for an agent not registered yet), and with each (agent, client)'s
/// times handed out in index order, because the registry numbers feedback in the order it arrives
/// (the world sometimes dates a later index earlier).
pub fn expected_feedback(world: &Lake) -> anyhow::Result<Vec<FeedbackFact>> {
    let registered: BTreeMap<u64, (String, i64)> = read_dated::<RegistrationRow>(world)?
        .into_iter()
        .map(|(_, r)| (r.agent_id, (r.owner.to_ascii_lowercase(), r.registered_at.secs())))
        .rev()
        .collect();
    let mut groups: BTreeMap<(u64, String), Vec<FeedbackFact>> = BTreeMap::new();
    for (_, f) in read_dated::<FeedbackRow>(world)? {
        let fact = feedback_fact(&f);
        let accepted = registered.get(&fact.0).is_some_and(|(owner, at)| *owner != fact.1 && *at <= fact.8);
        if accepted {
            groups.entry((fact.0, fact.1.clone())).or_default().push(fact);
        }
    }
    let mut out = Vec::new();
    for (_, mut group) in groups {
        group.sort_by_key(|f| f.2);
        let mut times: Vec<i64> = group.iter().map(|f| f.8).collect();
        times.sort_unstable();
        for (f, t) in group.iter_mut().zip(times) {
            f.8 = t;
        }
        out.extend(group);
    }
    out.sort();
    Ok(out)
}
