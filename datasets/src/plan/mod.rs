//! The world's cast, planned once from the seed: every seller and deployer with its archetype,
//! knobs, latent quality, demand, customers, endpoint, identity, and the events (funding, proofs,
//! feedback, receipts, scheduled payment streams) that its actors produce.

mod actor;
mod families;
mod kinds;

use agentrep_lake::Timestamp;
use agentrep_lake::datasets::{EntityLabelRow, ListEntryRow};
use rand::Rng;
use rand::seq::{IndexedRandom, SliceRandom};
use rayon::prelude::*;

use crate::grief::{self, Grief};
use crate::knobs::Knobs;
use crate::rng::{self, address};
use crate::{ScaleParams, WorldConfig};

pub(crate) use actor::*;
use families::{plan_customers, plan_family, plan_reviews, plan_seller};
pub(crate) use kinds::*;
pub use kinds::{DeployerKind, SellerKind};

pub(crate) const DAY: i64 = 86_400;
pub(crate) const HOUR: i64 = 3_600;
/// USDC on Base.
pub(crate) const USDC_BASE: &str = "0x833589fcd6edb6e08f4c7c32d4f71b54bda02913";
/// USDC on Base Sepolia (a test network: worthless demand).
pub(crate) const USDC_BASE_SEPOLIA: &str = "0x036cbd53842c5426634e7929541ec2318f3dcf7e";
/// EURC on Base (another asset).
pub(crate) const EURC_BASE: &str = "0x60a3e35cc302bfa44cb288bc5a4f316fdb1adb42";
pub(crate) const BASE: &str = "eip155:8453";
pub(crate) const BASE_SEPOLIA: &str = "eip155:84532";
/// Facilitator signers that broadcast x402 settlements, with the facilitator's name.
pub(crate) const FACILITATORS: &[(&str, &str)] = &[
    ("0xdbdf3d8ed80f84c35d01c6c9f9271761bad90ba6", "coinbase-cdp"),
    ("0x9c9a4b6f2b7f6b1c4e0e6a7d1b5f0c3d2e1a4b7c", "payai"),
    ("0x3be1d9e4c4b3a2f1e0d9c8b7a6f5e4d3c2b1a0f9", "x402-rs"),
    ("0x7f8e9d0c1b2a3f4e5d6c7b8a9f0e1d2c3b4a5f6e", "thirdweb"),
];
pub(super) const HUB_NAMES: &[&str] = &[
    "coinbase",
    "binance",
    "kraken",
    "okx",
    "bybit",
    "gate",
    "kucoin",
    "mexc",
    "bitget",
    "htx",
    "crypto-com",
    "upbit",
];
pub(super) const BRIDGE_NAMES: &[&str] = &["across", "stargate", "relay"];
/// Exchange hubs left unlabelled (they exist, no label source knows them).
pub(super) const UNLABELLED_HUBS: usize = 2;

/// The planned world.
#[derive(Debug)]
pub(crate) struct World {
    pub config: WorldConfig,
    pub params: ScaleParams,
    pub sellers: Vec<Seller>,
    pub hubs: Vec<String>,
    /// Denylisted (sanctioned) wallets.
    pub known_bad: Vec<String>,
    /// Pool payers, infrastructure labels and lists.
    pub common: Events,
    pub grief: Vec<Grief>,
    pub deployers: Vec<Deployer>,
}

/// What every planner needs to know about the world.
#[derive(Debug)]
pub(crate) struct Ctx<'a> {
    pub config: &'a WorldConfig,
    pub params: &'a ScaleParams,
    pub hubs: &'a [String],
    pub known_bad: &'a [String],
    /// Honest sellers live through the whole window: (address, price).
    pub catalog: &'a [(String, u64)],
}

impl Ctx<'_> {
    pub fn seed(&self) -> u64 {
        self.config.seed
    }
    /// Midnight of a day index (may be negative), seconds.
    pub fn day_secs(&self, day: i32) -> i64 {
        crate::day_start(self.config.start()) + i64::from(day) * DAY
    }
    pub fn start(&self) -> i64 {
        self.day_secs(0)
    }
    pub fn end(&self) -> i64 {
        self.day_secs(self.config.days as i32)
    }
    pub fn hub(&self, r: &mut impl Rng) -> String {
        // Zipf-like: low indices are the big exchanges.
        let h = ((self.hubs.len() as f64) * r.random::<f64>().powi(2)) as usize;
        self.hubs[h.min(self.hubs.len() - 1)].clone()
    }
}

impl World {
    pub fn plan(config: &WorldConfig) -> Self {
        let params = config.scale.params();
        let seed = config.seed;
        let hubs: Vec<String> = (0..params.hubs).map(|i| address(seed, "hub", u64::from(i))).collect();
        let known_bad: Vec<String> = (0..20).map(|i| address(seed, "known-bad", i)).collect();

        // Kinds by quota, shuffled; cost probes appended.
        let n = params.sellers as usize;
        let mut kinds = Vec::with_capacity(n);
        for (kind, share) in SELLER_MIX {
            kinds.extend(std::iter::repeat_n(*kind, (share * n as f64).round() as usize));
        }
        kinds.truncate(n);
        kinds.resize(n, SellerKind::Honest);
        kinds.shuffle(&mut rng::stream(seed, "kinds", &[]));
        let mut probes = Vec::new();
        for kind in PROBE_FAMILIES {
            for budget in PROBE_BUDGETS {
                for _ in 0..PROBES_PER_BUDGET {
                    probes.push((*kind, Some(*budget)));
                }
            }
        }
        let all: Vec<(SellerKind, Option<f64>)> = kinds.into_iter().map(|k| (k, None)).chain(probes).collect();

        let mut sellers: Vec<Seller> = all
            .par_iter()
            .enumerate()
            .map(|(i, (kind, budget))| plan_seller(config, i as u32, *kind, budget.is_some()))
            .collect();

        let mut agent_id = 0u64;
        for s in &mut sellers {
            if s.agent_id.is_some() {
                s.agent_id = Some(agent_id);
                agent_id += 1;
            }
        }
        let catalog: Vec<(String, u64)> = sellers
            .iter()
            .filter(|s| s.kind == SellerKind::Honest && s.first_seen_day <= 0 && s.ok_rate > 0.9)
            .map(|s| (s.address.clone(), s.price()))
            .collect();
        let ctx = Ctx { config, params: &params, hubs: &hubs, known_bad: &known_bad, catalog: &catalog };

        // Scripted actors first (their streams count towards the settlement target).
        sellers.par_iter_mut().zip(all.par_iter()).for_each(|(s, (_, budget))| plan_family(&ctx, s, *budget));
        let end = ctx.end();
        let scripted: f64 = sellers.iter().flat_map(|s| &s.events.streams).map(|st| st.expected(end) as f64).sum();
        // Scale pool demand so the world holds about the target number of settlements, counting
        // only the days each seller is active.
        let volume = |s: &Seller| s.rate * f64::from((0..config.days).filter(|d| s.active_on(*d)).count() as u32);
        let planned: f64 = sellers.iter().filter(|s| s.kind.has_pool_demand()).map(volume).sum();
        let unscaled: f64 = sellers.iter().filter(|s| !s.kind.has_pool_demand()).map(volume).sum();
        let settlements = config.settlement_target();
        let target = (settlements - scripted - unscaled).max(settlements * 0.5);
        let factor = target / planned.max(1.0);
        for s in sellers.iter_mut().filter(|s| s.kind.has_pool_demand()) {
            s.rate *= factor;
        }
        sellers.par_iter_mut().for_each(|s| {
            plan_customers(config, &params, s);
            plan_reviews(&ctx, s);
        });

        // The most popular honest sellers are on the curated allowlist.
        let mut honest: Vec<_> =
            sellers.iter().filter(|s| s.kind == SellerKind::Honest).map(|s| (s.rate, s.index)).collect();
        honest.sort_by(|a, b| b.0.total_cmp(&a.0));
        for (_, index) in honest.iter().take((params.sellers / 200).max(3) as usize) {
            sellers[*index as usize].allowlisted = true;
        }

        let common = plan_common(&ctx, &sellers);
        let deployers = plan_deployers(config, &params);
        let grief = if config.griefing { grief::plan(&ctx, &sellers) } else { Vec::new() };
        Self { config: *config, params, sellers, hubs, known_bad, common, grief, deployers }
    }
}

/// Pool payers' first funding and proofs, and the infrastructure's labels and lists.
fn plan_common(ctx: &Ctx, sellers: &[Seller]) -> Events {
    let seed = ctx.seed();
    let start = ctx.start();
    let mut used: Vec<u32> = sellers.iter().flat_map(|s| s.customers.iter().copied()).collect();
    used.sort_unstable();
    used.dedup();
    let per_payer: Vec<Events> = used
        .par_iter()
        .map(|&p| {
            let mut r = rng::stream(seed, "funding", &[u64::from(p)]);
            let mut a = Actor::new(ctx, "pool", u64::from(p), false);
            let payer = address(seed, "payer", u64::from(p));
            let at = start - r.random_range(7 * DAY..180 * DAY);
            let amount = r.random_range(5_000_000..500_000_000);
            let x: f64 = r.random();
            if x < 0.75 {
                a.withdraw(&payer, at, amount, &mut r);
            } else if x < 0.8 {
                let bridge = address(seed, "bridge", r.random_range(0..BRIDGE_NAMES.len() as u64));
                a.fund(&payer, &bridge, at, amount);
            } else {
                let personal = address(seed, "personal-funder", u64::from(p));
                a.withdraw(&personal, at - r.random_range(DAY..300 * DAY), amount * 3, &mut r);
                a.fund(&payer, &personal, at, amount);
            }
            if r.random_bool(0.1) {
                let t = pick_weighted(&mut r, PAYER_PROOFS);
                a.proof(&payer, t, at + r.random_range(DAY..5 * DAY));
            }
            a.ev
        })
        .collect();
    let mut common = Events::with_capacity_for(per_payer.iter());
    for mut e in per_payer {
        common.funding.append(&mut e.funding);
        common.proofs.append(&mut e.proofs);
    }
    let labelled = start - 120 * DAY;
    let label = |address: &str, entity: &str, name: &str, source: &str, at: i64| {
        (
            at,
            EntityLabelRow {
                address: address.to_owned(),
                entity: entity.to_owned(),
                name: name.to_owned(),
                source: source.to_owned(),
                added_at: Timestamp::from_secs(at),
            },
        )
    };
    for (i, hub) in ctx.hubs.iter().enumerate() {
        if i + UNLABELLED_HUBS >= ctx.hubs.len() {
            continue;
        }
        let name = HUB_NAMES[i % HUB_NAMES.len()];
        let name = if i < HUB_NAMES.len() { name.to_owned() } else { format!("{name}-{}", i / HUB_NAMES.len() + 1) };
        common.labels.push(label(hub, "exchange", &name, "etherscan-labels", labelled + i as i64 * DAY));
    }
    for (i, name) in BRIDGE_NAMES.iter().enumerate().take(2) {
        common.labels.push(label(&address(seed, "bridge", i as u64), "bridge", name, "etherscan-labels", labelled));
    }
    for (signer, name) in FACILITATORS {
        common.labels.push(label(signer, "facilitator", name, "x402-facilitators", labelled));
    }
    let listed_at = start - DAY;
    let entry = |address: &str, list: &str, source: &str, category: String| {
        (
            listed_at,
            ListEntryRow {
                address: address.to_owned(),
                list: list.to_owned(),
                source: source.to_owned(),
                category,
                added_at: Timestamp::from_secs(listed_at),
            },
        )
    };
    for s in sellers.iter().filter(|s| s.allowlisted) {
        common.lists.push(entry(
            &s.address,
            "allow",
            "agentrep-curated",
            format!("curated:{}", s.description.split(' ').nth(1).unwrap_or("agent")),
        ));
    }
    for bad in ctx.known_bad {
        common.lists.push(entry(bad, "deny", "ofac", "sanctions:listed".to_owned()));
    }
    common
}

fn plan_deployers(config: &WorldConfig, params: &ScaleParams) -> Vec<Deployer> {
    let seed = config.seed;
    let start = crate::day_start(config.start());
    let mut deployers: Vec<Deployer> = (0..params.deployers)
        .into_par_iter()
        .map(|index| {
            let mut r = rng::stream(seed, "deployer", &[u64::from(index)]);
            let kind = pick_weighted(&mut r, DEPLOYER_MIX);
            let mean = f64::from(params.launches) / f64::from(params.deployers);
            let mut knobs = Knobs::new(config.knobs, kind.as_str());
            let launches = match kind {
                DeployerKind::SerialRugger => r.random_range(3..=((mean * 2.5) as u32).max(4)),
                DeployerKind::Rugger | DeployerKind::Fresh | DeployerKind::RuggerFunded => r.random_range(1..=2),
                DeployerKind::SlowRugger => {
                    knobs.draw(&mut r, "first_dump_share");
                    knobs.draw(&mut r, "final_day");
                    r.random_range(1..=3)
                }
                DeployerKind::DecoyRugger => {
                    let decoys = knobs.draw(&mut r, "decoys") as u32;
                    r.random_range(1..=2) * (1 + decoys)
                }
                _ => r.random_range(1..=((mean * 2.2) as u32).max(2)),
            };
            let proofs = if kind == DeployerKind::Builder && r.random_bool(0.4) {
                PROOF_TYPES.choose_multiple(&mut r, 2).copied().collect()
            } else {
                Vec::new()
            };
            let denylisted = kind == DeployerKind::SerialRugger && r.random_bool(0.2);
            let hub = address(seed, "hub", (params.hubs as f64 * r.random::<f64>().powi(2)) as u64);
            let (funder, funded_at) = match kind {
                DeployerKind::Builder | DeployerKind::Fresh => (hub, start - r.random_range(65 * DAY..400 * DAY)),
                DeployerKind::Casual if r.random_bool(0.3) => {
                    (address(seed, "deployer-personal", u64::from(index)), start - r.random_range(65 * DAY..300 * DAY))
                }
                DeployerKind::Casual => (hub, start - r.random_range(65 * DAY..300 * DAY)),
                DeployerKind::RuggerFunded => (String::new(), start + r.random_range(0..10 * DAY)),
                _ => (address(seed, "rug-funder", u64::from(index)), start - r.random_range(65 * DAY..120 * DAY)),
            };
            Deployer {
                index,
                address: address(seed, "deployer", u64::from(index)),
                kind,
                launches,
                proofs,
                denylisted,
                knobs: knobs.values,
                funder,
                funded_at,
            }
        })
        .collect();
    // Rugger-funded wallets: first funded by a known rugging deployer or a denylisted address.
    let ruggers: Vec<String> = deployers
        .iter()
        .filter(|d| matches!(d.kind, DeployerKind::Rugger | DeployerKind::SerialRugger))
        .map(|d| d.address.clone())
        .collect();
    for d in &mut deployers {
        if d.kind == DeployerKind::RuggerFunded {
            let mut r = rng::stream(seed, "rugger-funded", &[u64::from(d.index)]);
            let mut knobs = Knobs::new(config.knobs, "rugger-funded");
            let from_denylist = knobs.draw(&mut r, "from_denylist") > 0.5 || ruggers.is_empty();
            d.funder = if from_denylist {
                address(seed, "known-bad", r.random_range(0..20))
            } else {
                ruggers[r.random_range(0..ruggers.len())].clone()
            };
            d.knobs = knobs.values;
        }
    }
    deployers
}
