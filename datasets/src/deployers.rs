//! Deployer-side datasets: token launches and their daily observations, and the deployers'
//! funding edges, proofs and list entries.
//!
//! Each launch follows the path its deployer's archetype draws (graduate, stay alive, fade away,
//! rug by a creator dump at once or slowly, stay a small decoy); the observations are what an
//! indexer of pools and holders records, including the odd duplicate row of a re-run.
//!
//! Some of each day's new holders are wallets the world knows (its [`BuyerPools`]): registered
//! agents and other real sellers buy the tokens that graduate or stay alive, denylisted wallets,
//! fraudulent sellers and rugging deployers buy the rugs, the x402 payers buy a bit of
//! everything. Those buys are the `token_buys` rows; the other new holders are anonymous traders
//! the world does not name.

use agentrep_lake::Timestamp;
use std::collections::HashSet;

use agentrep_lake::datasets::{LaunchObservationRow, LaunchRow, ListEntryRow, ProofRow, TokenBuyRow};
use rand::Rng;
use rayon::prelude::*;

use crate::day_start;
use crate::labels::SellerClass;
use crate::plan::{DAY, Deployer, DeployerKind, Events, HOUR, SellerKind, World, funding_row, proof_source};
use crate::rng::{self, address};

const PLATFORMS: &[&str] = &["clanker", "zora"];

/// The path a launch takes.
#[derive(Debug, Clone, Copy, PartialEq)]
enum Path {
    Graduate,
    Alive,
    Fade,
    Rug,
    /// Sells `first` of the allocation by day 3 and the rest by `final_day`.
    SlowRug {
        first: f64,
        final_day: i64,
    },
    /// A decoy: small but alive.
    Small,
}

fn path_for(d: &Deployer, j: u32, r: &mut impl Rng) -> Path {
    let x: f64 = r.random();
    match d.kind {
        DeployerKind::Builder => {
            if x < 0.4 {
                Path::Graduate
            } else if x < 0.85 {
                Path::Alive
            } else {
                Path::Fade
            }
        }
        DeployerKind::Casual => {
            if x < 0.25 {
                Path::Alive
            } else {
                Path::Fade
            }
        }
        DeployerKind::Rugger => {
            if x < 0.7 {
                Path::Rug
            } else {
                Path::Fade
            }
        }
        DeployerKind::SerialRugger => {
            if x < 0.85 {
                Path::Rug
            } else {
                Path::Fade
            }
        }
        DeployerKind::Fresh => {
            if x < 0.5 {
                Path::Alive
            } else {
                Path::Rug
            }
        }
        DeployerKind::SlowRugger => Path::SlowRug {
            first: d.knobs.get("first_dump_share").copied().unwrap_or(0.4),
            final_day: d.knobs.get("final_day").copied().unwrap_or(7.0) as i64,
        },
        DeployerKind::DecoyRugger => {
            let group = 1 + d.knobs.get("decoys").copied().unwrap_or(2.0) as u32;
            if j.is_multiple_of(group) { Path::Rug } else { Path::Small }
        }
        DeployerKind::RuggerFunded => {
            if x < 0.4 {
                Path::Alive
            } else if x < 0.8 {
                Path::Rug
            } else {
                Path::Fade
            }
        }
    }
}

type Launch = (i64, LaunchRow);
type Observations = Vec<(i64, Observation)>;
type Buys = Vec<(i64, Buy)>;

/// One day's observation of a launch, its token named by the launch's place in
/// [`DeployerRows::launches`]. Observations and buys keep numbers, not addresses, until their day's
/// partition is written: at ten times the benchmark scale (100M buys and observations) the
/// addresses' strings alone would not fit in memory.
#[derive(Debug, Clone)]
pub(crate) struct Observation {
    launch: u32,
    liquidity: u64,
    swaps: u32,
    holders: u32,
    price: f64,
    creator_holding: f64,
}

/// A known wallet's first buy of a launch's token on one day (see [`Observation`]).
#[derive(Debug, Clone)]
pub(crate) struct Buy {
    launch: u32,
    buyer: PoolWallet,
    tokens: u32,
}

/// A wallet of the [`BuyerPools`]: its pool and its place there.
#[derive(Debug, Clone, Copy)]
struct PoolWallet {
    pool: u8,
    index: u32,
}

/// The known wallets that buy launched tokens.
#[derive(Debug)]
pub(crate) struct BuyerPools {
    /// Registered agents that sell a real service.
    agents: Vec<String>,
    /// Denylisted wallets, fraudulent sellers and rugging deployers.
    bad: Vec<String>,
    /// x402 payers.
    payers: Vec<String>,
}

impl BuyerPools {
    pub(crate) fn of(world: &World) -> Self {
        let seed = world.config.seed;
        let agents = world
            .sellers
            .iter()
            .filter(|s| s.agent_id.is_some() && s.kind.class() == SellerClass::Honest)
            .map(|s| s.address.clone())
            .collect();
        let fraud = |k: SellerKind| k.is_attack();
        let ruggers = |k: DeployerKind| matches!(k, DeployerKind::SerialRugger | DeployerKind::Rugger);
        let bad = (world.known_bad.iter().cloned())
            .chain(world.sellers.iter().filter(|s| fraud(s.kind)).map(|s| s.address.clone()))
            .chain(world.deployers.iter().filter(|d| ruggers(d.kind)).map(|d| d.address.clone()))
            .collect();
        let payers = (0..world.params.payer_pool.min(500)).map(|p| address(seed, "payer", u64::from(p))).collect();
        Self { agents, bad, payers }
    }

    /// The share of a day's new holders that are known wallets, and the chance a known buyer comes
    /// from each pool (agents, bad, payers), by the launch's path.
    fn mix(path: Path) -> (f64, [f64; 3]) {
        match path {
            Path::Graduate => (0.6, [0.7, 0.0, 0.3]),
            Path::Alive => (0.3, [0.5, 0.0, 0.5]),
            Path::Rug | Path::SlowRug { .. } => (0.5, [0.0, 0.7, 0.3]),
            Path::Fade | Path::Small => (0.1, [0.0, 0.0, 1.0]),
        }
    }

    fn pool(&self, pool: u8) -> &[String] {
        match pool {
            0 => &self.agents,
            1 => &self.bad,
            _ => &self.payers,
        }
    }

    fn address(&self, wallet: PoolWallet) -> &str {
        &self.pool(wallet.pool)[wallet.index as usize]
    }

    fn pick(&self, weights: [f64; 3], r: &mut impl Rng) -> Option<PoolWallet> {
        let x: f64 = r.random();
        let pool = if x < weights[0] {
            0
        } else if x < weights[0] + weights[1] {
            1
        } else {
            2
        };
        let len = self.pool(pool).len();
        (len > 0).then(|| PoolWallet { pool, index: r.random_range(0..len) as u32 })
    }
}

/// The known buyers among one day's `new_holders`, at most `swaps − 1` of them (the replay buys
/// for new holders with the day's swaps and may need one for the creator), each new to the token
/// (`seen` starts with the creator, who never buys its own token here).
#[allow(clippy::too_many_arguments)]
fn day_buys<'p>(
    pools: &'p BuyerPools,
    path: Path,
    launch: u32,
    (new_holders, swaps): (u32, u32),
    at: i64,
    seen: &mut HashSet<&'p str>,
    r: &mut impl Rng,
    out: &mut Buys,
) {
    let (share, weights) = BuyerPools::mix(path);
    let room = new_holders.min(swaps.saturating_sub(1));
    let want = ((f64::from(new_holders) * share) + r.random::<f64>()).floor() as u32;
    for _ in 0..want.min(room) {
        let Some(buyer) = pools.pick(weights, r) else { continue };
        if !seen.insert(pools.address(buyer)) {
            continue;
        }
        out.push((at, Buy { launch, buyer, tokens: r.random_range(1_000..100_000u32) }));
    }
}

fn deployer_launches(world: &World, pools: &BuyerPools, d: &Deployer) -> (Vec<Launch>, Observations, Buys) {
    let seed = world.config.seed;
    let mut r = rng::stream(seed, "launches", &[u64::from(d.index)]);
    let mut dup = rng::stream(seed, "observation-duplicates", &[u64::from(d.index)]);
    // Its own stream, so the launches and observations do not depend on the buys.
    let mut buy_rng = rng::stream(seed, "token-buys", &[u64::from(d.index)]);
    let mut buys = Vec::new();
    let end = day_start(world.config.end);
    let mut launches = Vec::new();
    let mut observations = Vec::new();
    // Decoy ruggers launch a rug and its decoys together.
    let mut group_age = 0i64;
    for j in 0..d.launches {
        let token = address(seed, "token", u64::from(d.index) * 64 + u64::from(j));
        let path = path_for(d, j, &mut r);
        let age_days: i64 = match d.kind {
            DeployerKind::Fresh => r.random_range(0..2),
            DeployerKind::RuggerFunded => {
                let max = ((end - d.funded_at) / DAY).max(1);
                r.random_range(0..max.min(10))
            }
            DeployerKind::DecoyRugger if path == Path::Small => (group_age - r.random_range(0..2)).max(0),
            _ => r.random_range(4..60),
        };
        if path == Path::Rug {
            group_age = age_days;
        }
        let launched_at = end - age_days * DAY + r.random_range(0..DAY / 2);
        let platform = PLATFORMS[r.random_range(0..PLATFORMS.len())];
        launches.push((
            launched_at,
            LaunchRow {
                token,
                deployer: d.address.clone(),
                platform: platform.to_owned(),
                name: format!("Token {}-{}", d.index, j),
                symbol: format!("T{}{}", d.index % 1000, j),
                launched_at: Timestamp::from_secs(launched_at),
            },
        ));
        let fade_day = r.random_range(1..4);
        let mut liquidity =
            if path == Path::Small { r.random_range(300.0..1_500.0) } else { r.random_range(1_500.0..8_000.0) };
        let mut price = r.random_range(0.0001..0.01);
        let mut holding = 1.0f64;
        let mut holders = r.random_range(5..40u32);
        let mut seen = HashSet::from([d.address.as_str()]);
        let mut held = 0u32;
        for day in 0..=age_days {
            let t = launched_at - launched_at.rem_euclid(DAY) + day * DAY + 20 * 3_600;
            let swaps;
            match path {
                Path::Graduate => {
                    liquidity *= r.random_range(1.15..1.45);
                    price *= r.random_range(1.0..1.2);
                    holders += r.random_range(5..60);
                    swaps = r.random_range(50..400);
                }
                Path::Alive => {
                    liquidity *= r.random_range(0.97..1.06);
                    price *= r.random_range(0.95..1.07);
                    holders += r.random_range(0..6);
                    swaps = r.random_range(3..60);
                }
                Path::Small => {
                    liquidity *= r.random_range(0.98..1.03);
                    price *= r.random_range(0.97..1.04);
                    holders += r.random_range(0..2);
                    swaps = r.random_range(1..8);
                }
                Path::Fade => {
                    let quiet = day > fade_day;
                    liquidity *= if quiet { 0.9 } else { 1.0 };
                    price *= if quiet { r.random_range(0.6..0.85) } else { r.random_range(0.9..1.2) };
                    swaps = if quiet { 0 } else { r.random_range(1..20) };
                }
                Path::Rug => {
                    if day >= 1 {
                        holding = (holding * 0.15).max(0.02);
                        price *= if day == 1 { 0.05 } else { 0.7 };
                        liquidity *= 0.3;
                        holders = holders.saturating_sub(r.random_range(0..5));
                    } else {
                        price *= 1.6;
                    }
                    swaps = if day <= 2 { r.random_range(20..150) } else { r.random_range(0..2) };
                }
                Path::SlowRug { first, final_day } => {
                    if day == 0 {
                        price *= 1.4;
                        swaps = r.random_range(30..150);
                    } else if day <= 3 {
                        holding = 1.0 - first * day as f64 / 3.0;
                        price *= r.random_range(0.8..0.95);
                        liquidity *= r.random_range(0.85..0.95);
                        swaps = r.random_range(20..100);
                    } else if day <= final_day {
                        let left = (final_day - day) as f64 / (final_day - 3) as f64;
                        holding = (0.02 + (1.0 - first - 0.02) * left).max(0.02);
                        price *= r.random_range(0.55..0.8);
                        liquidity *= r.random_range(0.6..0.8);
                        holders = holders.saturating_sub(r.random_range(0..4));
                        swaps = r.random_range(5..60);
                    } else {
                        holding = 0.02;
                        price *= r.random_range(0.8..0.95);
                        liquidity *= 0.9;
                        swaps = r.random_range(0..3);
                    }
                }
            }
            let new_holders = holders.saturating_sub(held);
            held = holders;
            day_buys(pools, path, j, (new_holders, swaps), t, &mut seen, &mut buy_rng, &mut buys);
            let obs = Observation {
                launch: j,
                liquidity: (liquidity * 1_000_000.0) as u64,
                swaps,
                holders,
                price,
                creator_holding: holding,
            };
            // An indexer re-run now and then writes the same (token, day) twice.
            let x: f64 = dup.random();
            let again = if x < 0.004 {
                Some((t, obs.clone()))
            } else if x < 0.008 {
                let mut near = obs.clone();
                near.liquidity = (near.liquidity as f64 * dup.random_range(0.995..1.005)) as u64;
                near.holders += dup.random_range(0..2);
                Some((t + dup.random_range(60..1_800), near))
            } else {
                None
            };
            observations.push((t, obs));
            observations.extend(again);
        }
    }
    (launches, observations, buys)
}

/// Launches, observations and the deployers' other rows.
#[derive(Debug)]
pub(crate) struct DeployerRows {
    pub launches: Vec<(i64, LaunchRow)>,
    pub observations: Vec<(i64, Observation)>,
    pub buys: Vec<(i64, Buy)>,
    /// The wallets the buys name.
    pub pools: BuyerPools,
    pub events: Events,
}

impl DeployerRows {
    /// The lake row of an observation.
    pub(crate) fn observation_row(&self, o: Observation) -> LaunchObservationRow {
        LaunchObservationRow {
            token: self.launches[o.launch as usize].1.token.clone(),
            liquidity: o.liquidity,
            swaps: o.swaps,
            holders: o.holders,
            price: o.price,
            creator_holding: o.creator_holding,
        }
    }

    /// The lake row of a buy made at `at`.
    pub(crate) fn buy_row(&self, at: i64, b: Buy) -> TokenBuyRow {
        TokenBuyRow {
            token: self.launches[b.launch as usize].1.token.clone(),
            buyer: self.pools.address(b.buyer).to_owned(),
            buys: 1,
            tokens: b.tokens.into(),
            first_at: Timestamp::from_secs(at),
        }
    }
}

pub(crate) fn rows(world: &World) -> DeployerRows {
    let seed = world.config.seed;
    let pools = BuyerPools::of(world);
    let per_deployer: Vec<_> = world.deployers.par_iter().map(|d| deployer_launches(world, &pools, d)).collect();
    // Sized once: grown by doubling, the largest of them (the buys) would hold up to twice its rows.
    let count = |f: fn(&(Vec<Launch>, Observations, Buys)) -> usize| per_deployer.iter().map(f).sum::<usize>();
    let mut launches = Vec::with_capacity(count(|d| d.0.len()));
    let mut observations = Vec::with_capacity(count(|d| d.1.len()));
    let mut buys = Vec::with_capacity(count(|d| d.2.len()));
    for (l, o, b) in per_deployer {
        // Each deployer numbered its launches from 0; here they take their place in `launches`.
        let first = launches.len() as u32;
        launches.extend(l);
        observations.extend(o.into_iter().map(|(t, o)| (t, Observation { launch: first + o.launch, ..o })));
        buys.extend(b.into_iter().map(|(t, b)| (t, Buy { launch: first + b.launch, ..b })));
    }
    let start = day_start(world.config.start());
    let mut events = Events::default();
    let mut r = rng::stream(seed, "deployer-static", &[]);
    let edge = funding_row;
    for d in &world.deployers {
        events.funding.push(edge(&d.address, &d.funder, d.funded_at, r.random_range(50_000_000..2_000_000_000)));
        // Intermediate funders have their own first funding (from an exchange).
        let own_funder = d.funder == address(seed, "deployer-personal", u64::from(d.index))
            || d.funder == address(seed, "rug-funder", u64::from(d.index));
        if own_funder {
            let hub = &world.hubs[r.random_range(0..world.hubs.len())];
            events.funding.push(edge(&d.funder, hub, d.funded_at - r.random_range(HOUR..30 * DAY), 3_000_000_000));
        }
        for p in &d.proofs {
            let at = start - r.random_range(DAY..60 * DAY);
            events.proofs.push((
                at,
                ProofRow {
                    address: d.address.clone(),
                    proof_type: (*p).to_owned(),
                    source: proof_source(p).to_owned(),
                    verified_at: Timestamp::from_secs(at),
                },
            ));
        }
        if d.denylisted {
            let at = start - DAY;
            events.lists.push((
                at,
                ListEntryRow {
                    address: d.address.clone(),
                    list: "deny".to_owned(),
                    source: "defi-rekt".to_owned(),
                    category: "rugpull:token".to_owned(),
                    added_at: Timestamp::from_secs(at),
                },
            ));
        }
    }
    DeployerRows { launches, observations, buys, pools, events }
}
