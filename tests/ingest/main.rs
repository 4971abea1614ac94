//! The ingest end to end: a tiny world replayed onto anvil (real `transferWithAuthorization`s,
//! registrations, feedback, attestations, launches and swaps at the world's times), its listings
//! served by Bazaar fixtures, `agentrep ingest` into an empty lake, and then:
//!
//! * the ingested lake holds the world's facts, compared on the fields that do not depend on the
//!   chain (hashes, block numbers and log indexes aside), with each difference the chain forces
//!   stated in [`expected`];
//! * a rebuild of every day from the ingested facts gives the same scores and decisions as the
//!   rebuild from the world itself.
//!
//! The datasets no chain or marketplace can replay (probes, receipts, lists, labels, agent cards,
//! the proofs other than Coinbase attestations, and the listings' crawl history) come from the
//! world in both rebuilds.

mod expected;
mod faults;
mod forms;
mod schedule;
mod sources_table;

use std::collections::{BTreeMap, BTreeSet};
use std::path::Path;

use agentrep_lake::datasets::{
    DailyScoreRow, FeedbackRow, FundingRow, LaunchRow, ListingRow, ProofRow, ReceiptRow, RegistrationRow,
    SettlementRow, TokenBuyRow,
};
use agentrep_lake::{Dataset, Lake};
use agentrep_publish::{PublishConfig, SnapshotStore};
use agentrep_tests::chain::plan::CB1_PROOF;
use agentrep_tests::replayed::{ReplayedWorld, read_dated};
use chrono::NaiveDate;
use expected::{
    FundingFact, assert_same, expected_feedback, expected_funding, expected_settlements, feedback_fact, sellers,
    settlement_fact,
};

/// The datasets the hybrid lake takes from the ingest (the rest come from the world).
const INGESTED: &[Dataset] = &[
    Dataset::Settlements,
    Dataset::FundingEdges,
    Dataset::Erc8004Registrations,
    Dataset::Erc8004Feedback,
    Dataset::TokenLaunches,
];

fn rows<R: agentrep_lake::Row>(lake: &Lake) -> Vec<R> {
    read_dated::<R>(lake).expect("lake reads").into_iter().map(|(_, r)| r).collect()
}

/// Every day's (address → score, decision) after rebuilding every day of `lake`.
fn rebuild(
    lake: &Lake,
    snapshots: &Path,
    days: &[NaiveDate],
) -> BTreeMap<NaiveDate, BTreeMap<String, (Option<u32>, String)>> {
    let store = SnapshotStore::new(snapshots);
    agentrep_jobs::commands::rebuild_days(lake, &store, &PublishConfig::default(), days).expect("rebuilds");
    let mut out = BTreeMap::new();
    for (day, row) in read_dated::<DailyScoreRow>(lake).expect("scores read") {
        out.entry(day).or_insert_with(BTreeMap::new).insert(row.address, (row.score, row.decision));
    }
    out
}

/// Rewrites the world's facts that no chain can hold as the chain holds them: feedback the
/// registry refuses is gone and each (agent, client)'s feedback is dated in index order
/// ([`expected_feedback`]); every launch is a Clanker launch (the replay has only that factory).
/// The funding edges are the ones the funding job reads (`funding`, checked equal above): it
/// follows the actors' first funders, so a funder's fan-out to wallets that are no actor is not
/// seen and a behavioural hub is judged on what the actors show (ARCHITECTURE.md, ingest "Not
/// yet"), in the reference as in the ingested lake.
fn as_the_chain_holds_it(world: &Lake, funding: &[FundingFact]) {
    let mut feedback: BTreeMap<NaiveDate, Vec<FeedbackRow>> = BTreeMap::new();
    for f in expected_feedback(world).expect("expected feedback") {
        let (agent_id, client, feedback_index, value, value_decimals, tag1, tag2, revoked, t) = f;
        let row = FeedbackRow {
            agent_id,
            client,
            feedback_index,
            value,
            value_decimals,
            tag1,
            tag2,
            revoked,
            block_time: agentrep_lake::Timestamp::from_secs(t),
        };
        let day = chrono::DateTime::from_timestamp(t, 0).expect("in range").date_naive();
        feedback.entry(day).or_default().push(row);
    }
    std::fs::remove_dir_all(world.dataset_dir(Dataset::Erc8004Feedback)).expect("feedback removed");
    for (day, rows) in feedback {
        world.write_partition(day, &rows).expect("feedback written");
    }
    let mut edges: BTreeMap<NaiveDate, Vec<FundingRow>> = BTreeMap::new();
    for (funded, funder, t, amount) in funding {
        let day = chrono::DateTime::from_timestamp(*t, 0).expect("in range").date_naive();
        let first_funded_at = agentrep_lake::Timestamp::from_secs(*t);
        edges.entry(day).or_default().push(FundingRow {
            funded: funded.clone(),
            funder: funder.clone(),
            first_funded_at,
            amount: *amount,
        });
    }
    std::fs::remove_dir_all(world.dataset_dir(Dataset::FundingEdges)).expect("funding removed");
    for (day, rows) in edges {
        world.write_partition(day, &rows).expect("funding written");
    }
    for (day, launches) in read_dated_days::<LaunchRow>(world) {
        let rows: Vec<LaunchRow> =
            launches.into_iter().map(|l| LaunchRow { platform: "clanker".into(), ..l }).collect();
        world.write_partition(day, &rows).expect("launches written");
    }
}

fn read_dated_days<R: agentrep_lake::Row>(lake: &Lake) -> BTreeMap<NaiveDate, Vec<R>> {
    let mut out: BTreeMap<NaiveDate, Vec<R>> = BTreeMap::new();
    for (day, r) in read_dated::<R>(lake).expect("lake reads") {
        out.entry(day).or_default().push(r);
    }
    out
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn ingests_the_replayed_world_and_scores_it_the_same() {
    let world = ReplayedWorld::shared();
    let world_lake = world.world();
    let dir = tempfile::tempdir().expect("temp dir");
    let carried = world.to_world(&world.undisturbed_ingest(), &dir.path().join("carried")).expect("carries");

    // Listings: the world's last crawl, on every field a listing has (the crawl's own times aside).
    let (_, listed) = world.last_listings();
    let listing = |l: &ListingRow| {
        (
            l.resource.clone(),
            l.pay_to.to_ascii_lowercase(),
            l.network.clone(),
            l.asset.to_ascii_lowercase(),
            l.price_atomic,
            l.description.clone(),
            l.tags.clone(),
            l.ecosystem.clone(),
        )
    };
    let got: Vec<_> = rows::<ListingRow>(&carried).iter().map(listing).collect();
    assert_same("listings", &listed.iter().map(listing).collect::<Vec<_>>(), &got);

    // Settlements: every played settlement to a listed seller, and funding transfers to sellers.
    let sellers = sellers(&listed);
    let ingested_settlements = rows::<SettlementRow>(&carried);
    let got: Vec<_> = ingested_settlements.iter().map(settlement_fact).collect();
    let want = expected_settlements(&world_lake, &sellers).expect("expected settlements");
    assert_same("settlements", &want, &got);

    // First funders of every actor, followed back as far as the model looks.
    let mut actors: BTreeSet<String> = sellers.clone();
    actors.extend(ingested_settlements.iter().map(|s| s.payer.to_ascii_lowercase()));
    actors.extend(rows::<FeedbackRow>(&carried).into_iter().map(|f| f.client));
    for r in rows::<RegistrationRow>(&carried) {
        actors.insert(r.owner);
        actors.extend(r.agent_wallet);
    }
    actors.extend(rows::<LaunchRow>(&carried).into_iter().map(|l| l.deployer));
    actors.extend(rows::<ReceiptRow>(&world_lake).into_iter().map(|r| r.buyer.to_ascii_lowercase()));
    let hops = agentrep_ingest::config::ChainConfig::default().funding_hops;
    let funding = expected_funding(&world_lake, &actors, hops).expect("expected funding");
    let got: Vec<_> = rows::<FundingRow>(&carried)
        .into_iter()
        .map(|f| (f.funded, f.funder, f.first_funded_at.secs(), f.amount))
        .collect();
    assert_same("funding edges", &funding, &got);

    // ERC-8004 registrations and feedback.
    let registration = |r: &RegistrationRow| {
        (r.agent_id, r.owner.clone(), r.agent_wallet.clone(), r.registration_uri.clone(), r.registered_at.secs())
    };
    let got: Vec<_> = rows::<RegistrationRow>(&carried).iter().map(registration).collect();
    let want: Vec<_> = rows::<RegistrationRow>(&world_lake).iter().map(registration).collect();
    assert_same("registrations", &want, &got);
    let got: Vec<_> = rows::<FeedbackRow>(&carried).iter().map(feedback_fact).collect();
    assert_same("feedback", &expected_feedback(&world_lake).expect("expected feedback"), &got);

    // Coinbase attestations.
    let proof = |p: &ProofRow| (p.address.clone(), p.proof_type.clone(), p.source.clone(), p.verified_at.secs());
    let got: Vec<_> = rows::<ProofRow>(&carried).iter().map(proof).collect();
    let want: Vec<_> = rows::<ProofRow>(&world_lake).iter().filter(|p| p.proof_type == CB1_PROOF).map(proof).collect();
    assert_same("cb1 proofs", &want, &got);

    // Launches: the replay launches every world token through the Clanker factory (the chain
    // has no Zora or Virtuals double), so every ingested launch is a Clanker one.
    let launch =
        |l: &LaunchRow| (l.token.clone(), l.deployer.clone(), l.name.clone(), l.symbol.clone(), l.launched_at.secs());
    let ingested_launches = rows::<LaunchRow>(&carried);
    assert!(ingested_launches.iter().all(|l| l.platform == "clanker"));
    let got: Vec<_> = ingested_launches.iter().map(launch).collect();
    let want: Vec<_> = rows::<LaunchRow>(&world_lake).iter().map(launch).collect();
    assert_same("launches", &want, &got);

    // Token buys: every world buy, as the world has it; the replay's own traders' buys besides.
    assert_eq!(world.replay.counts.token_buys_unplayed, 0, "every world buy fits its day");
    // Tokens to a millionth (wei / 1e18 in f64 is exact to far less than that).
    let buy = |b: &TokenBuyRow| {
        (b.token.clone(), b.buyer.clone(), b.buys, (b.tokens * 1e6).round() as u64, b.first_at.secs())
    };
    let synthetic = |b: &TokenBuyRow| {
        b.buyer.parse::<alloy::primitives::Address>().is_ok_and(|a| world.replay.synthetic.contains_key(&a))
    };
    let ingested_buys = rows::<TokenBuyRow>(&carried);
    let got: Vec<_> = ingested_buys.iter().filter(|b| !synthetic(b)).map(buy).collect();
    let want: Vec<_> = rows::<TokenBuyRow>(&world_lake).iter().map(buy).collect();
    assert!(want.len() as u64 == world.replay.counts.token_buys && !want.is_empty());
    assert_same("token buys", &want, &got);
    assert!(ingested_buys.len() > got.len(), "the replay's fresh traders buy too");

    // The same scores and decisions, every day.
    let hybrid_dir = dir.path().join("hybrid");
    agentrep_tests::copy_dir(&world.world_dir(), &hybrid_dir).expect("copies");
    let hybrid = Lake::new(&hybrid_dir);
    let _ = std::fs::remove_dir_all(hybrid.dataset_dir(Dataset::DailyScores));
    for dataset in INGESTED {
        std::fs::remove_dir_all(hybrid.dataset_dir(*dataset)).expect("world dataset removed");
        agentrep_tests::copy_dir(
            &Lake::new(dir.path().join("carried")).dataset_dir(*dataset),
            &hybrid.dataset_dir(*dataset),
        )
        .expect("copies");
    }
    let mut proofs: BTreeMap<NaiveDate, Vec<ProofRow>> = BTreeMap::new();
    for (day, p) in
        read_dated::<ProofRow>(&world_lake).expect("proofs").into_iter().filter(|(_, p)| p.proof_type != CB1_PROOF)
    {
        proofs.entry(day).or_default().push(p);
    }
    for (day, p) in read_dated::<ProofRow>(&carried).expect("proofs") {
        proofs.entry(day).or_default().push(p);
    }
    std::fs::remove_dir_all(hybrid.dataset_dir(Dataset::IdentityProofs)).expect("proofs removed");
    for (day, rows) in proofs {
        hybrid.write_partition(day, &rows).expect("proofs written");
    }
    let reference_dir = dir.path().join("reference");
    agentrep_tests::copy_dir(&world.world_dir(), &reference_dir).expect("copies");
    let reference = Lake::new(&reference_dir);
    let _ = std::fs::remove_dir_all(reference.dataset_dir(Dataset::DailyScores));
    as_the_chain_holds_it(&reference, &funding);
    let want = rebuild(&reference, &dir.path().join("reference-snapshots"), &world.days);
    let got = rebuild(&hybrid, &dir.path().join("hybrid-snapshots"), &world.days);
    assert_eq!(want.len(), world.days.len());
    for (day, scores) in &want {
        let ingested = &got[day];
        let differ: Vec<_> =
            scores.iter().filter(|(a, s)| ingested.get(*a) != Some(s)).map(|(a, s)| (a, s, ingested.get(a))).collect();
        assert!(
            differ.is_empty(),
            "{day}: {} of {} wallets score differently, e.g. {:#?}",
            differ.len(),
            scores.len(),
            &differ[..differ.len().min(8)]
        );
        assert_eq!(scores.len(), ingested.len(), "{day}: same wallets scored");
    }
}
