//! Replays a tiny world onto a real local chain (anvil, 127.0.0.1 only) and checks the chain
//! against the world with `eth_getLogs`: every USDC transfer (payer, seller, value, block time) is
//! a world settlement or funding edge, registrations and feedback match, block times are the
//! world's times, and its first third replayed again ends on the same block hash.
//!
//! The world is the one the ingest tests share ([`ReplayedWorld`]): `Scale::Tiny` over 3 days
//! (the smallest the generator makes), thinned ([`Thinning`]) so the replay stays around two minutes
//! on the pinned anvil. The ignored `times_one_replay` times other sizes: `REPLAY_THIN=0` replays
//! the tiny world whole (tens of minutes), `REPLAY_THIN=k` keeps k settlements per seller day.

use std::collections::{BTreeMap, BTreeSet};
use std::path::Path;
use std::time::Instant;

use agentrep_datasets::{Scale, WorldConfig};
use agentrep_ingest::sources::{Bounds, SourceName, read_status};
use agentrep_jobs::cli::SourceArg;
use agentrep_jobs::ingest::{Clock, IngestArgs, ingest};
use agentrep_lake::datasets::{LaunchObservationRow, LaunchRow};
use agentrep_lake::{Dataset, Lake, SettlementForm};
use agentrep_tests::chain::anvil::Anvil;
use agentrep_tests::chain::contracts::{
    AUTH_CAPTURE_ESCROW, BATCH_SETTLEMENT, COINBASE_ATTESTER, CREATOR_ALLOCATION, EAS, IClankerFactory,
    IDENTITY_REGISTRY, IEAS, IFiatToken, IIdentityRegistry, ILaunchToken, IPoolManager, IReputationRegistry,
    POOL_MANAGER, REPUTATION_REGISTRY, USDC, VERIFIED_ACCOUNT_SCHEMA,
};
use agentrep_tests::chain::plan::{self, BASE_NETWORK, CB1_PROOF, WorldRows};
use agentrep_tests::chain::replay::{Replay, ReplayOptions, replay_on_new_anvil};
use agentrep_tests::chain::{Thinning, thin_world};
use agentrep_tests::replayed::ReplayedWorld;
use alloy::primitives::{Address, B256, U256};
use alloy::providers::Provider;
use alloy::rpc::types::{Filter, Log};
use alloy::sol_types::SolEvent;
use chrono::NaiveDate;

fn env<T: std::str::FromStr>(name: &str, default: T) -> T {
    std::env::var(name).ok().and_then(|d| d.parse().ok()).unwrap_or(default)
}

/// Every log of one contract and event, oldest first.
async fn logs(anvil: &Anvil, replay: &Replay, address: Address, topic0: B256) -> Vec<Log> {
    let provider = anvil.provider();
    let last = replay.head_number;
    let mut out = Vec::new();
    let mut from = 1u64;
    while from <= last {
        let to = (from + 4_999).min(last);
        let filter = Filter::new().address(address).event_signature(topic0).from_block(from).to_block(to);
        out.extend(provider.get_logs(&filter).await.expect("eth_getLogs"));
        from = to + 1;
    }
    out
}

/// The block time of a log.
fn time_of(replay: &Replay, log: &Log) -> i64 {
    let n = log.block_number.expect("mined log") as usize;
    replay.block_times[n - 1]
}

fn day_of(t: i64) -> NaiveDate {
    chrono::DateTime::from_timestamp(t, 0).expect("in range").date_naive()
}

fn chain(replay: &Replay, world: &str) -> Address {
    replay.chain_address(world).unwrap_or_else(|| panic!("{world} is mapped"))
}

/// One replay of the tiny world, for timing: `REPLAY_THIN=0` (default here) replays it whole.
/// `cargo test --workspace --features agentrep-jobs/cluster --test integration -- replay:: --ignored --nocapture`.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
#[ignore = "timing only: the whole tiny world takes tens of minutes on anvil 1.7.1"]
async fn times_one_replay() {
    let dir = tempfile::tempdir().expect("temp dir");
    let config = WorldConfig { days: env("REPLAY_DAYS", 3), ..WorldConfig::new(Scale::Tiny) };
    let world_dir = dir.path().join("world");
    agentrep_datasets::generate(&config, &world_dir, &|_, _| {}).expect("world generates");
    let k: usize = env("REPLAY_THIN", 0);
    let lake = if k == 0 {
        Lake::new(&world_dir)
    } else {
        let thinning = Thinning { settlements_per_seller_day: k, drop_orphan_funding: true };
        thin_world(&Lake::new(&world_dir), &dir.path().join("thin"), &thinning).expect("thins");
        Lake::new(dir.path().join("thin"))
    };
    let opts = ReplayOptions { progress_every: 2_000, ..ReplayOptions::default() };
    let (_anvil, replay) = replay_on_new_anvil(&lake, &opts).await.expect("replays");
    eprintln!(
        "days {} thin {k}: {} blocks, {} transactions in {:.1} s (planning {:.1} s, verifying {:.1} s)",
        config.days,
        replay.block_times.len(),
        replay.transactions,
        replay.elapsed.as_secs_f64(),
        replay.planning.as_secs_f64(),
        replay.verifying.as_secs_f64(),
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn replays_a_tiny_world() {
    // The replay the ingest tests share (the tiny world thinned, replayed with verification) is
    // the one checked here. Its first third replayed again onto a fresh anvil ends on the same
    // block: the same plan, sent the same way, gives the same chain (the plan itself is checked
    // to be deterministic by `plans_and_thins_deterministically`).
    let shared = ReplayedWorld::shared();
    let (lake, replay) = (shared.world(), &shared.replay);
    let world = WorldRows::read(&lake).expect("world reads");
    let third = replay.block_times.len() / 3;
    let again = ReplayOptions { verify: false, blocks: Some(third), ..ReplayOptions::default() };
    let (anvil2, replay2) = replay_on_new_anvil(&lake, &again).await.expect("replays the first third again");
    drop(anvil2);
    // A node from the shared chain's dump: the replay's blocks, and one empty block after them.
    let anvil = shared.node();
    eprintln!(
        "replayed {} blocks, {} transactions in {:.1} s (planning {:.1} s, verifying {:.1} s; its first {} blocks again {:.1} s)\n{:#?}",
        replay.block_times.len(),
        replay.transactions,
        replay.elapsed.as_secs_f64(),
        replay.planning.as_secs_f64(),
        replay.verifying.as_secs_f64(),
        third,
        replay2.elapsed.as_secs_f64(),
        replay.counts
    );
    assert!(third > 1_000, "a third of the replay is {third} blocks");
    assert_eq!(replay2.head_number, third as u64);
    assert_eq!(replay2.head_hash, block_hash(&anvil, replay2.head_number).await, "same world, same chain");

    // The dump keeps the chain: the node started from it holds the replay's head block, and the
    // closing block after it.
    assert_eq!(anvil.block_number().await.expect("head"), replay.head_number + 1);
    assert_eq!(block_hash(&anvil, replay.head_number).await, replay.head_hash, "same head after a reload");

    assert_eq!(replay.counts.unplayable, 0, "every row of this world can be played");
    // Blocks: one per second that has a fact, strictly increasing, after genesis.
    assert!(replay.block_times.windows(2).all(|w| w[0] < w[1]), "one block per second, in order");
    assert!(replay.genesis_time < replay.block_times[0]);

    // USDC: every non-mint Transfer is a replayable settlement or a funding edge, with its payer,
    // seller, value and block time; the EIP-3009 ones carry AuthorizationUsed.
    let replayable: Vec<_> = world
        .settlements
        .iter()
        .filter(|s| s.network == BASE_NETWORK && s.asset.eq_ignore_ascii_case(&USDC.to_string()))
        .collect();
    assert_eq!(replayable.len() as u64, replay.counts.settlements);
    assert_eq!(world.settlements.len() - replayable.len(), replay.counts.settlements_skipped as usize);
    let mut expected: BTreeMap<(Address, Address, U256, i64), u64> = BTreeMap::new();
    for s in &replayable {
        let (payer, pay_to, value, t) =
            (chain(replay, &s.payer), chain(replay, &s.pay_to), U256::from(s.value), s.block_time.secs());
        // Through the escrow or a channel, the money passes the contract on its way.
        let through = match SettlementForm::of(s.form, s.eip3009) {
            SettlementForm::AuthCapture => Some(AUTH_CAPTURE_ESCROW),
            SettlementForm::BatchClaim => Some(BATCH_SETTLEMENT),
            _ => None,
        };
        for key in match through {
            Some(c) => vec![(payer, c, value, t), (c, pay_to, value, t)],
            None => vec![(payer, pay_to, value, t)],
        } {
            *expected.entry(key).or_default() += 1;
        }
    }
    for f in &world.funding {
        let key = (chain(replay, &f.funder), chain(replay, &f.funded), U256::from(f.amount), f.first_funded_at.secs());
        *expected.entry(key).or_default() += 1;
    }
    let transfers = logs(&anvil, replay, USDC, IFiatToken::Transfer::SIGNATURE_HASH).await;
    let mut found: BTreeMap<(Address, Address, U256, i64), u64> = BTreeMap::new();
    let mut mints = 0u64;
    for l in &transfers {
        let t = IFiatToken::Transfer::decode_log(&l.inner).expect("Transfer decodes");
        if t.from.is_zero() {
            mints += 1;
            continue;
        }
        *found.entry((t.from, t.to, t.value, time_of(replay, l))).or_default() += 1;
    }
    assert_eq!(mints, replay.counts.topup_mints);
    assert!(found == expected, "USDC transfers differ from the world's settlements and funding edges");
    // The brief's count: USDC Transfer logs to mapped sellers = replayable settlements (plus the
    // funding edges that fund a seller, which are transfers to sellers too).
    let sellers: BTreeSet<Address> = replayable.iter().map(|s| chain(replay, &s.pay_to)).collect();
    let to_sellers = found.iter().filter(|(k, _)| sellers.contains(&k.1)).map(|(_, n)| n).sum::<u64>();
    let funding_to_sellers =
        world.funding.iter().filter(|f| sellers.contains(&chain(replay, &f.funded))).count() as u64;
    assert_eq!(to_sellers, replayable.len() as u64 + funding_to_sellers);
    let authorizations = logs(&anvil, replay, USDC, IFiatToken::AuthorizationUsed::SIGNATURE_HASH).await;
    assert_eq!(authorizations.len(), replayable.iter().filter(|s| s.eip3009).count());

    // ERC-8004 registrations: one per agent, by its owner, at its time, ids from 0.
    let registered = logs(&anvil, replay, IDENTITY_REGISTRY, IIdentityRegistry::Registered::SIGNATURE_HASH).await;
    let agents: BTreeSet<u64> = world.registrations.iter().map(|r| r.agent_id).collect();
    assert_eq!(registered.len(), agents.len());
    assert_eq!(replay.agents.len(), agents.len());
    for r in &world.registrations {
        let id = replay.agents[&r.agent_id];
        let l = &registered[id as usize];
        let e = IIdentityRegistry::Registered::decode_log(&l.inner).expect("Registered decodes");
        assert_eq!(e.agentId, U256::from(id));
        assert_eq!(e.owner, chain(replay, &r.owner));
        assert_eq!(e.agentURI, r.registration_uri);
        assert_eq!(time_of(replay, l), r.registered_at.secs(), "registration time");
    }

    // Feedback: every row (none is skipped in this world), value, index and revocation; the block
    // times of each (agent, client) are the world's.
    assert_eq!(replay.counts.feedback_from_owner + replay.counts.feedback_unregistered, 0);
    let given = logs(&anvil, replay, REPUTATION_REGISTRY, IReputationRegistry::NewFeedback::SIGNATURE_HASH).await;
    let revoked = logs(&anvil, replay, REPUTATION_REGISTRY, IReputationRegistry::FeedbackRevoked::SIGNATURE_HASH).await;
    assert_eq!(given.len(), world.feedback.len());
    assert_eq!(revoked.len(), world.feedback.iter().filter(|f| f.revoked).count());
    let mut chain_feedback: BTreeMap<(U256, Address, u64), (i128, u8, i64)> = BTreeMap::new();
    let mut chain_times: BTreeMap<(U256, Address), Vec<i64>> = BTreeMap::new();
    for l in &given {
        let e = IReputationRegistry::NewFeedback::decode_log(&l.inner).expect("NewFeedback decodes");
        chain_feedback.insert((e.agentId, e.clientAddress, e.feedbackIndex), (e.value, e.valueDecimals, 0));
        chain_times.entry((e.agentId, e.clientAddress)).or_default().push(time_of(replay, l));
    }
    let mut world_times: BTreeMap<(U256, Address), Vec<i64>> = BTreeMap::new();
    for f in &world.feedback {
        let agent = U256::from(replay.agents[&f.agent_id]);
        let client = chain(replay, &f.client);
        let index = replay.feedback_indices[&(f.agent_id, f.client.to_ascii_lowercase(), f.feedback_index)];
        assert_eq!(index, f.feedback_index, "chain feedback index is the world's");
        let (value, decimals, _) = chain_feedback[&(agent, client, index)];
        assert_eq!((value, u32::from(decimals)), (i128::from(f.value), f.value_decimals));
        world_times.entry((agent, client)).or_default().push(f.block_time.secs());
    }
    for v in world_times.values_mut() {
        v.sort_unstable();
    }
    assert_eq!(chain_times, world_times, "feedback block times are the world's");

    // Coinbase attestations: one per cb1-verified proof, from the Coinbase attester, at its time.
    let attested = logs(&anvil, replay, EAS, IEAS::Attested::SIGNATURE_HASH).await;
    let mut expected: Vec<(Address, i64)> = world
        .proofs
        .iter()
        .filter(|p| p.proof_type == CB1_PROOF)
        .map(|p| (chain(replay, &p.address), p.verified_at.secs()))
        .collect();
    let mut found: Vec<(Address, i64)> = attested
        .iter()
        .map(|l| {
            let e = IEAS::Attested::decode_log(&l.inner).expect("Attested decodes");
            assert_eq!((e.attester, e.schemaUID), (COINBASE_ATTESTER, VERIFIED_ACCOUNT_SCHEMA));
            (e.recipient, time_of(replay, l))
        })
        .collect();
    expected.sort();
    found.sort();
    assert_eq!(found, expected);

    // Launches: every world token at the chain token the replay reports, by its deployer, at its time.
    let created = logs(
        &anvil,
        replay,
        agentrep_tests::chain::contracts::CLANKER_FACTORY,
        IClankerFactory::TokenCreated::SIGNATURE_HASH,
    )
    .await;
    assert_eq!(created.len(), world.launches.len());
    for launch in &world.launches {
        let token = replay.tokens[&launch.token.to_ascii_lowercase()];
        let l = created
            .iter()
            .find(|l| IClankerFactory::TokenCreated::decode_log(&l.inner).expect("decodes").tokenAddress == token)
            .expect("launched");
        let e = IClankerFactory::TokenCreated::decode_log(&l.inner).expect("decodes");
        assert_eq!(e.tokenAdmin, chain(replay, &launch.deployer));
        assert_eq!(e.tokenName, launch.name);
        assert_eq!(time_of(replay, l), launch.launched_at.secs());
        assert_eq!(e.poolId, replay.pool_ids[&token], "the factory's pool id is the plan's");
        assert_eq!(replay.translate(&launch.token), format!("{token:#x}"));
        assert_eq!(replay.untranslate(token), Some(launch.token.to_ascii_lowercase()));
    }
    let seller = &replayable[0].pay_to;
    assert_eq!(replay.translate(seller), format!("{:#x}", chain(replay, seller)));
    assert_eq!(replay.untranslate(chain(replay, seller)).as_deref(), Some(seller.to_ascii_lowercase().as_str()));
    assert_eq!(replay.translate(&USDC.to_string()), USDC.to_string(), "contracts are not mapped");

    // Launch observations, decoded as `SwapEncoding` documents: per token day, the Swap count,
    // the last Swap's liquidity and price, holders and the creator's share at the end of the day.
    let swaps = logs(&anvil, replay, POOL_MANAGER, IPoolManager::Swap::SIGNATURE_HASH).await;
    let mut observed: BTreeMap<(String, NaiveDate), &LaunchObservationRow> = BTreeMap::new();
    for (date, o) in &world.observations {
        observed.entry((o.token.to_ascii_lowercase(), *date)).or_insert(o);
    }
    let mut checked = 0;
    for launch in &world.launches {
        let world_token = launch.token.to_ascii_lowercase();
        let token = replay.tokens[&world_token];
        let pool = replay.pool_ids[&token];
        let creator = chain(replay, &launch.deployer);
        let mut by_day: BTreeMap<NaiveDate, Vec<IPoolManager::Swap>> = BTreeMap::new();
        for l in swaps.iter().filter(|l| l.topics()[1] == pool) {
            let day = day_of(time_of(replay, l));
            by_day.entry(day).or_default().push(IPoolManager::Swap::decode_log(&l.inner).expect("Swap decodes").data);
        }
        let moves = logs(&anvil, replay, token, ILaunchToken::Transfer::SIGNATURE_HASH).await;
        let mut balances: BTreeMap<Address, U256> = BTreeMap::new();
        let mut next = 0;
        for ((t, date), o) in
            observed.range((world_token.clone(), NaiveDate::MIN)..=(world_token.clone(), NaiveDate::MAX))
        {
            assert_eq!(*t, world_token);
            let end = date.and_hms_opt(0, 0, 0).expect("midnight").and_utc().timestamp() + 86_400;
            while next < moves.len() && time_of(replay, &moves[next]) < end {
                let e = ILaunchToken::Transfer::decode_log(&moves[next].inner).expect("Transfer decodes");
                if !e.from.is_zero() {
                    *balances.get_mut(&e.from).expect("sender holds") -= e.value;
                }
                *balances.entry(e.to).or_default() += e.value;
                next += 1;
            }
            let day = by_day.get(date).map_or(&[][..], Vec::as_slice);
            assert_eq!(day.len(), o.swaps as usize, "{t} {date}: swaps");
            if let Some(last) = day.last() {
                assert_eq!(last.liquidity, u128::from(o.liquidity), "{t} {date}: liquidity");
                let price = plan::price_of(last.sqrtPriceX96);
                assert!((price / o.price - 1.0).abs() < 1e-12, "{t} {date}: price {price} vs {}", o.price);
            }
            let holders = balances
                .iter()
                .filter(|(a, b)| !b.is_zero() && !a.is_zero() && ![POOL_MANAGER, creator].contains(a))
                .count();
            assert_eq!(holders, o.holders as usize, "{t} {date}: holders");
            let held = balances.get(&creator).copied().unwrap_or_default();
            let share = f64::from(held) / CREATOR_ALLOCATION as f64;
            assert!(
                (share - o.creator_holding).abs() < 1e-12,
                "{t} {date}: creator holding {share} vs {}",
                o.creator_holding
            );
            checked += 1;
        }
    }
    assert_eq!(checked, replay.counts.observations);

    // The ingest's launches source reads the same observations back from the node.
    let dir = tempfile::tempdir().expect("temp dir");
    ingests_the_observations(&anvil, replay, &world, dir.path()).await;
    drop(anvil);
}

/// The hash of block `number`.
async fn block_hash(anvil: &Anvil, number: u64) -> B256 {
    let block: serde_json::Value =
        anvil.rpc("eth_getBlockByNumber", (format!("0x{number:x}"), false)).await.expect("block");
    serde_json::from_value(block["hash"].clone()).expect("block hash")
}

/// Every observation partition of a lake: (token, day) → row.
fn observations_of(lake: &Lake) -> BTreeMap<(String, NaiveDate), LaunchObservationRow> {
    let mut out = BTreeMap::new();
    for part in lake.partitions(Dataset::LaunchObservations).expect("partitions") {
        for row in lake.read_partition::<LaunchObservationRow>(part.date).expect("reads") {
            let key = (row.token.clone(), part.date);
            assert!(out.insert(key, row).is_none(), "one row per token day");
        }
    }
    out
}

/// Runs the ingest's launches source (in process, as `agentrep ingest --source launches --clock
/// chain`) against a replayed chain into an empty lake, and checks that it decodes the world's
/// observations: every (token, day) the world has and no other, with the world's swaps, holders
/// and creator holding, and on days with swaps its liquidity and price. Quiet days cannot carry a
/// price or liquidity on chain (`SwapEncoding`): there the ingest carries the last swap's forward,
/// which is the world's row of the token's last day with swaps, not the quiet day's own (the world
/// lets the price drift on days without trades). A world's second row for a (token, day) (an
/// indexer re-run) is not on chain either: its first row is compared, the one the replay plays. A
/// second run resumes from the checkpoint's token states and rewrites its days identically.
async fn ingests_the_observations(anvil: &Anvil, replay: &Replay, world: &WorldRows, dir: &Path) {
    // The ingest reads whole seconds only up to a block whose successor is later: the node's
    // closing block is that successor.
    let config = dir.join("agentrep.toml");
    std::fs::write(&config, "[chain]\nuse_finalized = false\nconfirmations = 0\nstart_block = 0\n").expect("writes");
    let args = IngestArgs {
        lake: agentrep_lake::Lake::new(dir.join("ingested")),
        rpc: Some(anvil.url().parse().expect("anvil URL")),
        config: Some(config),
        snapshots: dir.join("snapshots"),
    };
    let run = || ingest(&args, SourceArg::One(SourceName::Launches), Bounds::default(), Clock::Chain);
    let started = Instant::now();
    run().await.expect("the launches source runs");
    let first_run = started.elapsed();
    let lake = args.lake.clone();

    // Launches: every world token, by its deployer, at its time.
    let mut launches: Vec<LaunchRow> = Vec::new();
    for part in lake.partitions(Dataset::TokenLaunches).expect("partitions") {
        launches.extend(lake.read_partition::<LaunchRow>(part.date).expect("reads"));
    }
    assert_eq!(launches.len(), world.launches.len());
    for l in &launches {
        let token = replay.untranslate(l.token.parse().expect("address")).expect("a world token");
        let w = world.launches.iter().find(|w| w.token.eq_ignore_ascii_case(&token)).expect("launched in the world");
        assert_eq!(l.launched_at, w.launched_at);
        assert_eq!(l.deployer, replay.translate(&w.deployer));
    }

    // Observations, in world terms.
    let ingested: BTreeMap<(String, NaiveDate), LaunchObservationRow> = observations_of(&lake)
        .into_iter()
        .map(|((token, day), row)| {
            let world_token = replay.untranslate(token.parse().expect("address")).expect("a world token");
            ((world_token, day), row)
        })
        .collect();
    let mut expected: BTreeMap<(String, NaiveDate), &LaunchObservationRow> = BTreeMap::new();
    for (date, o) in &world.observations {
        expected.entry((o.token.to_ascii_lowercase(), *date)).or_insert(o);
    }
    let extra: Vec<_> = ingested.keys().filter(|k| !expected.contains_key(*k)).take(10).collect();
    let missing: Vec<_> = expected.keys().filter(|k| !ingested.contains_key(*k)).take(10).collect();
    assert!(extra.is_empty() && missing.is_empty(), "token days: not in the world {extra:?}, not ingested {missing:?}");
    let mut last_traded: Option<(&str, &LaunchObservationRow)> = None;
    let (mut traded, mut quiet) = (0, 0);
    for ((token, date), o) in &expected {
        let got = &ingested[&(token.clone(), *date)];
        assert_eq!(got.swaps, o.swaps, "{token} {date}: swaps");
        assert_eq!(got.holders, o.holders, "{token} {date}: holders");
        assert!(
            (got.creator_holding - o.creator_holding).abs() < 1e-9,
            "{token} {date}: creator holding {} vs {}",
            got.creator_holding,
            o.creator_holding
        );
        if o.swaps > 0 {
            last_traded = Some((token, o));
            traded += 1;
        } else {
            quiet += 1;
        }
        // On a quiet day, the token's last day with swaps (launch days always trade).
        let (t, source) = last_traded.expect("the launch day trades");
        assert_eq!(t, token, "{token} {date}: a day with swaps before");
        assert_eq!(got.liquidity, source.liquidity, "{token} {date}: liquidity");
        assert!(
            (got.price / source.price - 1.0).abs() < 1e-9,
            "{token} {date}: price {} vs {}",
            got.price,
            source.price
        );
    }
    assert_eq!(quiet, replay.counts.observations_quiet);

    // A second run rewinds `reorg_depth` blocks, resumes from the stored token states and rewrites
    // the days from theirs: the same rows.
    let started = Instant::now();
    run().await.expect("the launches source runs again");
    let second_run = started.elapsed();
    let status = read_status(&lake, SourceName::Launches).expect("status").expect("written");
    let report = status.last_report.expect("a report");
    let (start, _) = report.blocks.expect("blocks read");
    assert!(start > 1, "the second run reads the last blocks only");
    assert!(report.notes.iter().all(|n| !n.contains("rebuilt")), "resumed: {:?}", report.notes);
    let again: BTreeMap<_, _> = observations_of(&lake);
    assert_eq!(again.len(), ingested.len());
    let first: BTreeMap<_, _> =
        ingested.into_iter().map(|((world_token, day), row)| ((replay.translate(&world_token), day), row)).collect();
    assert!(again == first, "a re-run replaces its days with the same rows");
    eprintln!(
        "ingested {traded} traded and {quiet} quiet token days: first run {:.1} s, second run {:.1} s \
         (days {:?})",
        first_run.as_secs_f64(),
        second_run.as_secs_f64(),
        report.days
    );
}

/// Planning is pure: the same lake plans the same blocks; thinning keeps its promises.
#[test]
fn plans_and_thins_deterministically() {
    let dir = tempfile::tempdir().expect("temp dir");
    let config = WorldConfig { days: 3, ..WorldConfig::new(Scale::Tiny) };
    agentrep_datasets::generate(&config, &dir.path().join("world"), &|_, _| {}).expect("world generates");
    let source = Lake::new(dir.path().join("world"));
    let thinning = Thinning { settlements_per_seller_day: 5, drop_orphan_funding: true };
    let stats = thin_world(&source, &dir.path().join("a"), &thinning).expect("thins");
    thin_world(&source, &dir.path().join("b"), &thinning).expect("thins again");
    let (a, b) = (Lake::new(dir.path().join("a")), Lake::new(dir.path().join("b")));
    let (wa, full) = (WorldRows::read(&a).expect("reads"), WorldRows::read(&source).expect("reads"));
    assert_eq!(wa.settlements.len() as u64, stats.settlements_after);
    assert_eq!(wa.funding.len() as u64, stats.funding_after);
    let mut per_seller_day: BTreeMap<(String, NaiveDate), usize> = BTreeMap::new();
    for s in &wa.settlements {
        *per_seller_day.entry((s.pay_to.clone(), day_of(s.block_time.secs()))).or_default() += 1;
    }
    assert!(per_seller_day.values().all(|n| *n <= 5));
    assert_eq!(wa.feedback, full.feedback);
    assert_eq!(wa.launches, full.launches);
    assert_eq!(wa.observations, full.observations);
    assert!(dir.path().join("a").join(agentrep_datasets::LABELS_FILE).is_file());
    let (pa, pb) = (plan::plan(&a).expect("plans"), plan::plan(&b).expect("plans again"));
    assert_eq!(pa.blocks, pb.blocks);
    assert_eq!(pa.expected_logs, pb.expected_logs);
    assert!(pa.blocks.windows(2).all(|w| w[0].t < w[1].t));
    assert_eq!(pa.counts.settlements + pa.counts.settlements_skipped, stats.settlements_after);
}
