//! World-level tests: determinism, the griefing counterfactual, coverage of every kind, costs.

use std::collections::{BTreeMap, BTreeSet};
use std::fmt::Debug;

use super::*;
use crate::plan::World;

fn counts(config: &WorldConfig) -> BTreeMap<SellerKind, usize> {
    let world = World::plan(config);
    let mut counts = BTreeMap::new();
    for s in &world.sellers {
        *counts.entry(s.kind).or_insert(0) += 1;
    }
    counts
}

#[test]
fn every_kind_has_instances_at_small_scale() {
    for config in [WorldConfig::new(Scale::Small), WorldConfig::test_world(Scale::Small)] {
        let counts = counts(&config);
        for kind in SellerKind::ALL {
            let n = counts.get(kind).copied().unwrap_or(0);
            assert!(n >= 25, "{} has {n} instances (seed {})", kind.as_str(), config.seed);
        }
        let honest: usize = counts.iter().filter(|(k, _)| k.class() == SellerClass::Honest).map(|(_, n)| n).sum();
        assert!(counts.values().all(|n| *n <= honest), "honest-like sellers are the largest group");
        let world = World::plan(&config);
        let deployer_kinds: BTreeSet<&str> = world.deployers.iter().map(|d| d.kind.as_str()).collect();
        assert_eq!(deployer_kinds.len(), 8, "{deployer_kinds:?}");
    }
}

#[test]
fn attack_costs_are_computed_and_finite() {
    let world = World::plan(&WorldConfig::new(Scale::Small));
    let labels = Labels::from_world(&world);
    for l in &labels.sellers {
        match l.cost_usdc {
            Some(c) => {
                assert!(l.kind.is_attack(), "{:?} has a cost", l.kind);
                assert!(c.is_finite() && c >= 0.0, "{:?}: {c}", l.kind);
            }
            None => assert!(!l.kind.is_attack(), "{:?} has no cost", l.kind),
        }
    }
    // Cost probes lie on the budget grid (their cost grows with the budget).
    for kind in [SellerKind::SockPuppets, SellerKind::WashRing, SellerKind::PaidOnceReviewers] {
        let probes: Vec<f64> =
            labels.sellers.iter().filter(|l| l.kind == kind && l.cost_probe).filter_map(|l| l.cost_usdc).collect();
        assert_eq!(probes.len(), 14, "{kind:?}");
        let (low, high) = (probes[0].max(probes[1]), probes[12].min(probes[13]));
        assert!(low < 10.0 && high > 300.0, "{kind:?}: {probes:?}");
    }
}

#[test]
fn griefing_groups_are_balanced() {
    let world = World::plan(&WorldConfig::new(Scale::Small));
    for budget in crate::grief::GRIEF_BUDGETS {
        let n = world.grief.iter().filter(|g| g.budget == *budget).count();
        assert!(n >= 30, "{budget}: {n}");
    }
    for g in &world.grief {
        assert_eq!(world.sellers[g.seller as usize].kind.class(), SellerClass::Honest);
        assert!(!g.methods.is_empty());
    }
}

fn keys<R: Debug>(rows: &[(i64, R)]) -> Vec<String> {
    rows.iter().map(|(t, r)| format!("{t} {r:?}")).collect()
}

/// Asserts every row of `small` is in `big` and reports how many `big` has on top.
fn contained(what: &str, small: Vec<String>, big: Vec<String>) -> usize {
    let mut have: BTreeMap<String, usize> = BTreeMap::new();
    for k in big.iter() {
        *have.entry(k.clone()).or_insert(0) += 1;
    }
    for k in &small {
        let n = have.get_mut(k).unwrap_or_else(|| panic!("{what}: {k} missing from the griefed world"));
        assert!(*n > 0, "{what}: {k} too often");
        *n -= 1;
    }
    big.len() - small.len()
}

#[test]
fn without_griefing_is_the_same_world_minus_the_griefing() {
    let griefed_config = WorldConfig { days: 12, ..WorldConfig::new(Scale::Small) };
    let plain_config = WorldConfig { griefing: false, ..griefed_config };
    let mut griefed = World::plan(&griefed_config);
    let mut plain = World::plan(&plain_config);
    assert!(plain.grief.is_empty() && !griefed.grief.is_empty());
    let (g, p) = (sellers::static_rows(&mut griefed), sellers::static_rows(&mut plain));
    let mut extra = 0;
    extra += contained("funding", keys(&p.events.funding), keys(&g.events.funding));
    extra += contained("feedback", keys(&p.events.feedback), keys(&g.events.feedback));
    extra += contained("receipts", keys(&p.events.receipts), keys(&g.events.receipts));
    assert_eq!(keys(&p.events.proofs), keys(&g.events.proofs));
    assert_eq!(keys(&p.events.registrations), keys(&g.events.registrations));
    assert_eq!(keys(&p.events.lists), keys(&g.events.lists));
    assert_eq!(keys(&p.deployers.launches), keys(&g.deployers.launches));
    assert_eq!(keys(&p.deployers.observations), keys(&g.deployers.observations));
    assert_eq!(keys(&p.deployers.buys), keys(&g.deployers.buys));
    assert!(extra > 0);
    let mut extra_settlements = 0;
    for (i, day) in griefed_config.days().into_iter().enumerate() {
        let a = sellers::day_rows(&griefed, i as u32, day);
        let b = sellers::day_rows(&plain, i as u32, day);
        let dbg = |rows: &[agentrep_lake::datasets::SettlementRow]| -> Vec<String> {
            rows.iter().map(|r| format!("{r:?}")).collect()
        };
        extra_settlements += contained("settlements", dbg(&b.settlements), dbg(&a.settlements));
        assert_eq!(format!("{:?}", a.probes), format!("{:?}", b.probes));
        assert_eq!(format!("{:?}", a.listings), format!("{:?}", b.listings));
    }
    assert!(extra_settlements > 0);
    // Labels differ only in `griefing` and the griefed marks.
    let (lg, lp) = (Labels::from_world(&griefed), Labels::from_world(&plain));
    assert_eq!(lg.sellers.len(), lp.sellers.len());
    for (a, b) in lg.sellers.iter().zip(&lp.sellers) {
        assert_eq!(SellerLabel { griefed: None, ..a.clone() }, *b);
    }
}

#[test]
fn one_first_funder_per_wallet() {
    let mut world = World::plan(&WorldConfig::test_world(Scale::Small));
    let rows = sellers::static_rows(&mut world);
    let mut seen = BTreeSet::new();
    for (_, r) in &rows.events.funding {
        assert!(seen.insert(r.funded.clone()), "{} funded twice", r.funded);
    }
}

fn files(root: &Path) -> BTreeMap<String, Vec<u8>> {
    let mut out = BTreeMap::new();
    let mut stack = vec![root.to_owned()];
    while let Some(dir) = stack.pop() {
        for entry in std::fs::read_dir(&dir).unwrap() {
            let path = entry.unwrap().path();
            if path.is_dir() {
                stack.push(path);
            } else {
                let rel = path.strip_prefix(root).unwrap().to_string_lossy().into_owned();
                out.insert(rel, std::fs::read(&path).unwrap());
            }
        }
    }
    out
}

#[test]
fn same_config_same_lake_bytes_and_a_partition_every_day() {
    let config = WorldConfig { days: 8, ..WorldConfig::test_world(Scale::Small) };
    let (a, b) = (tempfile::tempdir().unwrap(), tempfile::tempdir().unwrap());
    let stats = generate(&config, a.path(), &|_, _| {}).unwrap();
    // Another thread count must not matter either.
    let pool = rayon::ThreadPoolBuilder::new().num_threads(1).build().unwrap();
    let stats_b = pool.install(|| generate(&config, b.path(), &|_, _| {})).unwrap();
    assert_eq!(stats, stats_b);
    let (fa, fb) = (files(a.path()), files(b.path()));
    assert_eq!(fa.keys().collect::<Vec<_>>(), fb.keys().collect::<Vec<_>>());
    for (name, bytes) in &fa {
        assert!(bytes == &fb[name], "{name} differs");
    }
    let labels: Labels = serde_json::from_slice(&fa[LABELS_FILE]).unwrap();
    assert_eq!(labels.version, "agentrep-world-labels-v2");
    assert_eq!(labels.knobs, "test");
    use agentrep_lake::Dataset;
    let lake = Lake::new(a.path());
    // Registration files and crawl runs exist only in ingested lakes; attestations, badge claims
    // and discovery submissions (and the files fetched for them) only in lakes a serving
    // deployment's store was exported to: the world has none of them. Nor does it write the
    // escrow's events: its escrow charges are settlement rows, their events come from a chain.
    let ingest_only = [
        Dataset::EscrowEvents,
        Dataset::AgentCards,
        Dataset::CrawlRuns,
        Dataset::Attestations,
        Dataset::BadgeClaims,
        Dataset::DiscoverySubmissions,
        Dataset::SubmittedCards,
    ];
    for dataset in Dataset::ALL.iter().filter(|d| !d.is_derived() && !ingest_only.contains(d)) {
        let days: BTreeSet<_> = lake.partitions(*dataset).unwrap().into_iter().map(|p| p.date).collect();
        let expected: Vec<_> = match dataset {
            Dataset::Probes => {
                config.days().into_iter().rev().take(Scale::Small.params().probe_days as usize).collect()
            }
            _ => config.days(),
        };
        for day in expected {
            assert!(days.contains(&day), "{} has no partition on {day}", dataset.name());
        }
    }
}

#[test]
fn every_payer_was_funded_before_it_paid() {
    let config = WorldConfig { days: 10, ..WorldConfig::test_world(Scale::Small) };
    let mut world = World::plan(&config);
    let rows = sellers::static_rows(&mut world);
    let funded: BTreeMap<&str, i64> =
        rows.events.funding.iter().map(|(_, r)| (r.funded.as_str(), r.first_funded_at.secs())).collect();
    let known_bad: BTreeSet<String> = (0..20).map(|i| crate::rng::address(config.seed, "known-bad", i)).collect();
    let (mut payments, mut late) = (0, Vec::new());
    for (i, day) in config.days().into_iter().enumerate() {
        for s in sellers::day_rows(&world, i as u32, day).settlements {
            payments += 1;
            if known_bad.contains(&s.payer) {
                continue;
            }
            match funded.get(s.payer.as_str()) {
                Some(at) if *at < s.block_time.secs() => {}
                other => late.push((s.payer.clone(), other.copied(), s.block_time.secs())),
            }
        }
    }
    assert!(payments > 10_000);
    let mut kinds: BTreeMap<String, usize> = BTreeMap::new();
    for (payer, _, _) in &late {
        let owner = world
            .sellers
            .iter()
            .find(|s| s.events.streams.iter().any(|st| &st.payer == payer) || s.extra_payers.contains(payer))
            .map(|s| s.kind.as_str().to_owned())
            .or_else(|| {
                world
                    .grief
                    .iter()
                    .any(|g| g.events.streams.iter().any(|st| &st.payer == payer))
                    .then(|| "grief".to_owned())
            })
            .unwrap_or_else(|| "pool".to_owned());
        *kinds.entry(owner).or_insert(0) += 1;
    }
    assert!(late.is_empty(), "{} of {payments} payments from payers funded later, by owner: {kinds:?}", late.len());
}

#[test]
fn token_buyers_are_known_wallets_that_fit_the_days_new_holders() {
    let mut world = World::plan(&WorldConfig::test_world(Scale::Small));
    let sellers_by_address: BTreeMap<String, SellerKind> =
        world.sellers.iter().map(|s| (s.address.clone(), s.kind)).collect();
    let deployers: BTreeMap<String, DeployerKind> =
        world.deployers.iter().map(|d| (d.address.clone(), d.kind)).collect();
    let known_bad: BTreeSet<String> = world.known_bad.iter().cloned().collect();
    let rows = sellers::static_rows(&mut world).deployers;
    let buys: Vec<_> = rows.buys.iter().map(|(t, b)| (*t, rows.buy_row(*t, b.clone()))).collect();
    let observations: Vec<_> = rows.observations.iter().map(|(t, o)| (*t, rows.observation_row(o.clone()))).collect();
    assert!(buys.len() > 500, "{} buys", buys.len());
    let creator: BTreeMap<&str, &str> =
        rows.launches.iter().map(|(_, l)| (l.token.as_str(), l.deployer.as_str())).collect();
    // (token, day) → (holders, swaps) of the first observation row.
    let mut observed: BTreeMap<(&str, i64), (u32, u32)> = BTreeMap::new();
    for (t, o) in &observations {
        observed.entry((o.token.as_str(), t.div_euclid(86_400))).or_insert((o.holders, o.swaps));
    }
    let mut seen = BTreeSet::new();
    let mut per_day: BTreeMap<(&str, i64), u32> = BTreeMap::new();
    let (mut from_agents, mut from_bad) = (0, 0);
    for (t, b) in &buys {
        assert!(seen.insert((b.token.as_str(), b.buyer.as_str())), "{} bought {} twice", b.buyer, b.token);
        assert_ne!(creator[b.token.as_str()], b.buyer, "a creator buys its own token");
        assert_eq!(b.first_at.secs(), *t);
        assert!(observed.contains_key(&(b.token.as_str(), t.div_euclid(86_400))), "a buy on a day without swaps");
        *per_day.entry((b.token.as_str(), t.div_euclid(86_400))).or_default() += 1;
        let bad = known_bad.contains(&b.buyer)
            || sellers_by_address.get(&b.buyer).is_some_and(|k| k.is_attack())
            || deployers.contains_key(&b.buyer);
        from_bad += u32::from(bad);
        from_agents += u32::from(sellers_by_address.get(&b.buyer).is_some_and(|k| k.class() == SellerClass::Honest));
    }
    assert!(from_agents > 50 && from_bad > 50, "agents {from_agents}, bad {from_bad}");
    // The replay plays each buy as a new holder's swap: never more than the swaps (less one).
    for ((token, day), n) in per_day {
        let (_, swaps) = observed[&(token, day)];
        assert!(n < swaps.max(1), "{token} on day {day}: {n} buys, {swaps} swaps");
    }
}

/// Settlements the world generates on each of its days.
fn daily_settlements(config: &WorldConfig) -> Vec<usize> {
    let world = World::plan(config);
    config
        .days()
        .into_iter()
        .enumerate()
        .map(|(i, day)| sellers::day_rows(&world, i as u32, day).settlements.len())
        .collect()
}

#[test]
fn a_news_day_surges_only_the_last_day() {
    let ordinary = WorldConfig { days: 8, ..WorldConfig::new(Scale::Small) };
    let news = WorldConfig { last_day_surge: 10, ..ordinary };
    let (plain, surged) = (daily_settlements(&ordinary), daily_settlements(&news));
    assert_eq!(plain[..7], surged[..7], "the days before the news are the same world");
    let ratio = surged[7] as f64 / plain[7] as f64;
    assert!((8.5..=11.5).contains(&ratio), "last day {} against {} ({ratio:.1}x)", surged[7], plain[7]);
}

#[test]
fn a_longer_history_keeps_the_daily_rate() {
    let month = WorldConfig { days: 10, ..WorldConfig::new(Scale::Small) };
    let quarter = WorldConfig { days: 30, settlement_days: Some(10), ..month };
    let spread = WorldConfig { days: 30, ..month };
    let per_day = |c: &WorldConfig| daily_settlements(c).iter().sum::<usize>() as f64 / f64::from(c.days);
    let (m, q, s) = (per_day(&month), per_day(&quarter), per_day(&spread));
    assert!((q / m - 1.0).abs() < 0.25, "30 days at the 10-day rate: {q:.0} a day against {m:.0}");
    assert!(s < q * 0.6, "without it the same total is spread thinner: {s:.0} a day against {q:.0}");
}

/// The census world (issue 53, part 6): its unlisted receivers are paid at the census's daily
/// rate and in its shape, none of them is a listed seller, test rigs have at most two payers,
/// dormant wallets stop, and half a listed seller's pool demand comes from one-off buyers.
#[test]
fn the_census_world_has_the_census_shape() {
    let config = WorldConfig { days: 10, ..WorldConfig::new(Scale::Census) };
    let world = World::plan(&config);
    assert!((1_500..1_600).contains(&world.sellers.len()), "1,500 listed sellers and the cost probes");
    let listed: BTreeSet<&str> = world.sellers.iter().map(|s| s.address.as_str()).collect();
    let names: Vec<&str> = receivers::CENSUS.iter().map(|b| b.name).collect();
    let bucket_of: BTreeMap<String, usize> = receivers::CENSUS
        .iter()
        .enumerate()
        .flat_map(|(b, bucket)| {
            (0..bucket.wallets).map(move |w| (receivers::receiver_address(config.seed, bucket, w), b))
        })
        .collect();
    assert_eq!(bucket_of.len(), 162_469, "every unlisted receiver has its own address");

    let mut rig_payers: BTreeMap<&str, BTreeSet<String>> = BTreeMap::new();
    let mut per_bucket = vec![0usize; names.len()];
    let (mut seller_rows, mut payers_seen) = (0usize, BTreeMap::<String, usize>::new());
    let sampled = [0u32, 3, 9];
    let rows: Vec<_> =
        sampled.iter().map(|&d| sellers::day_rows(&world, d, config.days()[d as usize]).settlements).collect();
    for (&day, day_rows) in sampled.iter().zip(&rows) {
        let mut dormant = 0;
        for row in day_rows {
            match bucket_of.get(&row.pay_to) {
                Some(&b) => {
                    assert!(!listed.contains(row.pay_to.as_str()), "a receiver is never listed");
                    per_bucket[b] += 1;
                    dormant += usize::from(names[b] == "dormant");
                    if names[b] == "test-rig" {
                        rig_payers.entry(&row.pay_to).or_default().insert(row.payer.clone());
                    }
                }
                None if listed.contains(row.pay_to.as_str()) => {
                    seller_rows += 1;
                    *payers_seen.entry(row.payer.clone()).or_default() += 1;
                }
                None => {}
            }
        }
        assert_eq!(dormant > 0, day < 4, "dormant wallets are paid in the first 40 % of the days only (day {day})");
    }
    for (b, bucket) in receivers::CENSUS.iter().enumerate() {
        let active = sampled.iter().filter(|&&d| bucket.active_on(d, config.days)).count() as f64;
        let expected = bucket.daily_rate() * active;
        let got = per_bucket[b] as f64;
        assert!(
            (got - expected).abs() <= 0.05 * expected + 10.0,
            "{}: {got} settlements, {expected:.0} expected",
            bucket.name
        );
    }
    assert!(rig_payers.values().all(|p| p.len() <= 2), "a test rig has at most two payers");
    let once = payers_seen.values().filter(|n| **n == 1).count() as f64 / payers_seen.len() as f64;
    assert!(once > 0.8, "most of the listed sellers' payers pay once: {once:.2} of {}", payers_seen.len());
    assert!(seller_rows > 0);
}
