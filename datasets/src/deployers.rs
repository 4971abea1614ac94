//! Deployer-side datasets: token launches and their daily observations.
//!
//! Each launch follows the path its deployer's archetype draws (graduate, stay alive, fade away,
//! or rug by a creator dump); the observations are what an indexer of pools and holders records.

use agentrep_lake::datasets::{LaunchObservationRow, LaunchRow};
use agentrep_lake::{Lake, LakeError, Timestamp};
use rand::Rng;
use rayon::prelude::*;

use crate::WorldStats;
use crate::plan::{Deployer, DeployerKind, World};
use crate::rng::{self, address};
use crate::sellers::{day_start, write_by_day};

const DAY: i64 = 86_400;
const PLATFORMS: &[&str] = &["clanker", "zora"];

/// The path a launch takes.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Path {
    Graduate,
    Alive,
    Fade,
    Rug,
}

fn path_for(kind: DeployerKind, r: &mut impl Rng) -> Path {
    let x: f64 = r.random();
    match kind {
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
    }
}

type Launch = (i64, LaunchRow);
type Observations = Vec<(i64, LaunchObservationRow)>;

fn deployer_launches(world: &World, d: &Deployer) -> (Vec<Launch>, Observations) {
    let seed = world.config.seed;
    let mut r = rng::stream(seed, "launches", &[u64::from(d.index)]);
    let end = day_start(world.config.end);
    let mut launches = Vec::new();
    let mut observations = Vec::new();
    for j in 0..d.launches {
        let token = address(seed, "token", u64::from(d.index) * 64 + u64::from(j));
        let age_days: i64 = if d.kind == DeployerKind::Fresh { r.random_range(0..2) } else { r.random_range(4..60) };
        let launched_at = end - age_days * DAY + r.random_range(0..DAY / 2);
        let platform = PLATFORMS[r.random_range(0..PLATFORMS.len())];
        launches.push((
            launched_at,
            LaunchRow {
                token: token.clone(),
                deployer: d.address.clone(),
                platform: platform.to_owned(),
                name: format!("Token {}-{}", d.index, j),
                symbol: format!("T{}{}", d.index % 1000, j),
                launched_at: Timestamp::from_secs(launched_at),
            },
        ));
        let path = path_for(d.kind, &mut r);
        let fade_day = r.random_range(1..4);
        let mut liquidity = r.random_range(1_500.0..8_000.0);
        let mut price = r.random_range(0.0001..0.01);
        let mut holding = 1.0f64;
        let mut holders = r.random_range(5..40u32);
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
            }
            observations.push((
                t,
                LaunchObservationRow {
                    token: token.clone(),
                    liquidity: (liquidity * 1_000_000.0) as u64,
                    swaps,
                    holders,
                    price,
                    creator_holding: holding,
                },
            ));
        }
    }
    (launches, observations)
}

pub(crate) fn write(world: &World, lake: &Lake, stats: &mut WorldStats) -> Result<(), LakeError> {
    let (launches, observations): (Vec<_>, Vec<_>) =
        world.deployers.par_iter().map(|d| deployer_launches(world, d)).unzip();
    stats.launches = write_by_day(lake, launches.into_iter().flatten().collect())?;
    stats.observations = write_by_day(lake, observations.into_iter().flatten().collect())?;
    Ok(())
}
