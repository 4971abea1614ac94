//! The world's cast, planned once from the seed: every seller and deployer with its archetype,
//! latent quality, demand, customers, endpoint and identity.

use rand::Rng;
use rand::seq::IndexedRandom;
use serde::{Deserialize, Serialize};

use crate::rng::{self, address, log_uniform, pareto};
use crate::{ScaleParams, WorldConfig};

/// Seller archetypes; `SellerClass` groups them for evaluation.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum SellerKind {
    /// Real service with real, repeat customers.
    Honest,
    /// Real service whose endpoint is up only part of the time.
    Flapping,
    /// Real service listed in the last few days.
    Young,
    /// One payer only (most x402 recipients).
    Ghost,
    /// Payers share one funder and pay the exact price on a schedule.
    Wash,
    /// Pays itself and funds its own payers.
    SelfDealing,
    /// Endpoint died; payments made after are lost.
    Dead,
    /// ERC-8004 feedback from wallets that never paid.
    SybilFeedback,
    /// Suspicious TLD or admin path, little real demand.
    ScamListing,
    /// Known bad, on the denylist.
    Denylisted,
}

/// Deployer archetypes.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum DeployerKind {
    /// Launches graduate or stay alive.
    Builder,
    /// Launches mostly fade away.
    Casual,
    /// One or two launches, at least one rugged.
    Rugger,
    /// Three or more launches, mostly rugged.
    SerialRugger,
    /// Launched in the last days; nothing is decided yet.
    Fresh,
}

/// Probability mass of each seller archetype.
const SELLER_MIX: &[(SellerKind, f64)] = &[
    (SellerKind::Honest, 0.30),
    (SellerKind::Flapping, 0.04),
    (SellerKind::Young, 0.03),
    (SellerKind::Ghost, 0.35),
    (SellerKind::Wash, 0.06),
    (SellerKind::SelfDealing, 0.04),
    (SellerKind::Dead, 0.06),
    (SellerKind::SybilFeedback, 0.05),
    (SellerKind::ScamListing, 0.05),
    (SellerKind::Denylisted, 0.02),
];

const DEPLOYER_MIX: &[(DeployerKind, f64)] = &[
    (DeployerKind::Builder, 0.25),
    (DeployerKind::Casual, 0.35),
    (DeployerKind::Rugger, 0.18),
    (DeployerKind::SerialRugger, 0.12),
    (DeployerKind::Fresh, 0.10),
];

const TAGS: &[&str] = &[
    "ai",
    "llm",
    "search",
    "weather",
    "finance",
    "prices",
    "defi",
    "nft",
    "images",
    "audio",
    "translation",
    "news",
    "sports",
    "maps",
    "scraping",
    "data",
    "analytics",
    "security",
    "social",
    "trading",
    "identity",
    "storage",
    "compute",
    "code",
    "legal",
    "health",
    "travel",
    "shopping",
    "games",
    "research",
];
const NOUNS: &[&str] = &[
    "oracle", "scout", "relay", "forge", "atlas", "pilot", "sage", "nexus", "pulse", "vault", "lens", "echo", "signal",
    "quant", "spark", "ledger", "beacon", "cortex", "harbor", "matrix",
];
const GOOD_TLDS: &[&str] = &["com", "ai", "io", "dev", "xyz", "app", "net", "org"];
/// TLDs the generator uses for scam listings; the pipeline's list is its own.
const BAD_TLDS: &[&str] = &["top", "zip", "click", "gq", "tk", "loan", "rest", "mov"];
const ADMIN_PATHS: &[&str] = &["admin", "wp-admin", ".env", "phpmyadmin", "debug"];
const ECOSYSTEMS: &[(&str, f64)] = &[("cdp-bazaar", 0.7), ("payai", 0.2), ("x402-list", 0.1)];
const PROOF_TYPES: &[&str] =
    &["virtuals-agent", "virtuals-agent-token", "farcaster-fid", "cb1-verified", "basename", "ens"];

fn pick_weighted<T: Copy>(rng: &mut impl Rng, mix: &[(T, f64)]) -> T {
    let total: f64 = mix.iter().map(|(_, w)| w).sum();
    let mut x = rng.random_range(0.0..total);
    for (item, w) in mix {
        if x < *w {
            return *item;
        }
        x -= w;
    }
    mix[mix.len() - 1].0
}

/// One planned seller.
#[derive(Debug, Clone)]
pub(crate) struct Seller {
    pub index: u32,
    pub address: String,
    pub kind: SellerKind,
    /// Latent quality in 0..=1 (drives repeat demand, uptime, latency, ratings).
    pub quality: f64,
    /// Mean settlements per active day.
    pub rate: f64,
    /// Payer indices into the shared pool (honest-like demand).
    pub customers: Vec<u32>,
    /// Wash ring serving this seller.
    pub ring: Option<u32>,
    pub price: u64,
    pub resources: Vec<(String, String)>,
    pub tags: Vec<String>,
    pub description: String,
    pub ecosystem: &'static str,
    pub network: &'static str,
    /// Day index (relative to the window start, may be negative) of the first listing.
    pub first_seen_day: i32,
    /// Day index from which the endpoint is dead and nobody pays.
    pub death_day: Option<u32>,
    pub ok_rate: f64,
    pub latency_ms: f64,
    pub agent_id: Option<u64>,
    pub proofs: Vec<&'static str>,
    pub allowlisted: bool,
}

impl Seller {
    pub fn active_on(&self, day: u32) -> bool {
        i64::from(day) >= i64::from(self.first_seen_day) && self.death_day.is_none_or(|d| day < d)
    }
}

/// One wash ring: payers funded by one funder, each paying on a fixed period.
#[derive(Debug, Clone)]
pub(crate) struct Ring {
    pub funder: String,
    pub payers: Vec<String>,
    /// Period of each payer, seconds.
    pub periods: Vec<i64>,
}

/// One planned deployer.
#[derive(Debug, Clone)]
pub(crate) struct Deployer {
    pub index: u32,
    pub address: String,
    pub kind: DeployerKind,
    pub launches: u32,
    pub proofs: Vec<&'static str>,
    pub denylisted: bool,
}

/// The planned world.
#[derive(Debug)]
pub(crate) struct World {
    pub config: WorldConfig,
    pub params: ScaleParams,
    pub sellers: Vec<Seller>,
    pub rings: Vec<Ring>,
    pub hubs: Vec<String>,
    pub deployers: Vec<Deployer>,
}

impl World {
    pub fn plan(config: &WorldConfig) -> Self {
        let params = config.scale.params();
        let seed = config.seed;
        let hubs = (0..params.hubs).map(|i| address(seed, "hub", u64::from(i))).collect();
        let mut sellers: Vec<Seller> = (0..params.sellers).map(|i| plan_seller(config, &params, i)).collect();

        // Scale honest-like demand so the world holds about the target number of settlements,
        // counting only the days each seller is active.
        let days = f64::from(config.days);
        let planned: f64 = sellers
            .iter()
            .map(|s| s.rate * f64::from((0..config.days).filter(|d| s.active_on(*d)).count() as u32))
            .sum();
        let wash_share = 0.12;
        let factor = params.settlements * (1.0 - wash_share) / planned.max(1.0);
        for s in &mut sellers {
            s.rate *= factor;
        }
        let mut rings = Vec::new();
        let wash_total = params.settlements * wash_share;
        let wash_sellers = sellers.iter().filter(|s| s.kind == SellerKind::Wash).count().max(1);
        let per_wash_seller = wash_total / wash_sellers as f64;
        for s in &mut sellers {
            plan_customers(config, &params, s);
            if s.kind == SellerKind::Wash {
                let ring_index = rings.len() as u32;
                rings.push(plan_ring(seed, ring_index, per_wash_seller, days));
                s.ring = Some(ring_index);
            }
        }
        let mut agent_id = 0u64;
        for s in &mut sellers {
            if s.agent_id.is_some() {
                s.agent_id = Some(agent_id);
                agent_id += 1;
            }
        }
        // The most popular honest sellers are on the curated allowlist.
        let mut honest: Vec<_> =
            sellers.iter().filter(|s| s.kind == SellerKind::Honest).map(|s| (s.rate, s.index)).collect();
        honest.sort_by(|a, b| b.0.total_cmp(&a.0));
        for (_, index) in honest.iter().take((params.sellers / 200).max(3) as usize) {
            sellers[*index as usize].allowlisted = true;
        }
        let deployers = (0..params.deployers).map(|i| plan_deployer(seed, &params, i)).collect();
        Self { config: *config, params, sellers, rings, hubs, deployers }
    }
}

fn plan_seller(config: &WorldConfig, params: &ScaleParams, index: u32) -> Seller {
    let seed = config.seed;
    let mut r = rng::stream(seed, "seller", &[u64::from(index)]);
    let kind = pick_weighted(&mut r, SELLER_MIX);
    let address = address(seed, "seller", u64::from(index));
    let honest_like =
        matches!(kind, SellerKind::Honest | SellerKind::Flapping | SellerKind::Young | SellerKind::Denylisted);
    let quality = if honest_like { r.random_range(0.35..1.0) } else { r.random_range(0.1..0.6) };
    let popularity = pareto(&mut r, 1.0, 1.2, 400.0);
    let rate = match kind {
        SellerKind::Honest | SellerKind::Flapping | SellerKind::Young | SellerKind::Denylisted => {
            popularity * (0.4 + quality)
        }
        SellerKind::Dead => popularity * 0.6,
        SellerKind::Ghost => r.random_range(0.05..1.2),
        SellerKind::SelfDealing => r.random_range(1.0..4.0),
        SellerKind::SybilFeedback | SellerKind::ScamListing => r.random_range(0.05..0.5),
        SellerKind::Wash => 0.0,
    };
    let days = config.days as i32;
    let first_seen_day = match kind {
        SellerKind::Young => r.random_range(days - 6..days - 1),
        SellerKind::Ghost | SellerKind::ScamListing => r.random_range(-40..days - 3),
        _ => r.random_range(-90..days / 3),
    };
    let death_day = (kind == SellerKind::Dead).then(|| r.random_range(2..(days as u32).saturating_sub(8).max(3)));
    let ok_rate = match kind {
        SellerKind::Flapping => r.random_range(0.3..0.75),
        SellerKind::ScamListing => r.random_range(0.0..0.6),
        SellerKind::Ghost => {
            if r.random_bool(0.3) {
                0.0
            } else {
                r.random_range(0.85..1.0)
            }
        }
        _ => (0.9 + 0.1 * quality).min(1.0) - r.random_range(0.0..0.05),
    };
    let latency_ms = 80.0 + 2500.0 * (1.0 - quality).powi(2) * r.random_range(0.5..1.5);

    let noun = NOUNS.choose(&mut r).expect("nouns");
    let name = format!("{noun}{}", index);
    let (tld, path) = match kind {
        SellerKind::ScamListing if r.random_bool(0.5) => {
            (*GOOD_TLDS.choose(&mut r).expect("tlds"), format!("{}/api", ADMIN_PATHS.choose(&mut r).expect("paths")))
        }
        SellerKind::ScamListing => (*BAD_TLDS.choose(&mut r).expect("tlds"), "api/v1/run".to_owned()),
        _ if r.random_bool(0.01) => (*BAD_TLDS.choose(&mut r).expect("tlds"), "api/v1".to_owned()),
        _ => (*GOOD_TLDS.choose(&mut r).expect("tlds"), format!("api/{}", TAGS.choose(&mut r).expect("tags"))),
    };
    let param = if r.random_bool(0.1) { "/:id" } else { "" };
    let resource = format!("https://{name}.{tld}/{path}{param}");
    let mut resources = vec![(resource, address.clone())];
    if honest_like && r.random_bool(0.06) {
        let spelled = rng::mixed_case(&address, u64::from(index));
        resources.push((format!("https://{name}.{tld}/api/v2/batch"), spelled));
    }
    let n_tags = r.random_range(0..=6usize);
    let mut tags: Vec<String> = TAGS.choose_multiple(&mut r, n_tags).map(|t| (*t).to_owned()).collect();
    tags.sort();
    let description = format!("{} {} API by {name}", tags.first().map_or("general", |t| t.as_str()), noun);
    let price = log_uniform(&mut r, 1_000.0, 500_000.0).round() as u64;
    let ecosystem = pick_weighted(&mut r, ECOSYSTEMS);
    let network = if r.random_bool(0.1) { "base" } else { "eip155:8453" };
    let registered = match kind {
        SellerKind::SybilFeedback => true,
        SellerKind::Honest | SellerKind::Flapping | SellerKind::Denylisted => r.random_bool(0.45),
        _ => r.random_bool(0.1),
    };
    let proof_chance = if honest_like { 0.35 } else { 0.05 };
    let proofs = if r.random_bool(proof_chance) {
        let n = if honest_like { r.random_range(1..=3) } else { 1 };
        PROOF_TYPES.choose_multiple(&mut r, n).copied().collect()
    } else {
        Vec::new()
    };
    let _ = params;
    Seller {
        index,
        address,
        kind,
        quality,
        rate,
        customers: Vec::new(),
        ring: None,
        price,
        resources,
        tags,
        description,
        ecosystem,
        network,
        first_seen_day,
        death_day,
        ok_rate,
        latency_ms,
        agent_id: registered.then_some(0),
        proofs,
        allowlisted: false,
    }
}

/// Chooses the seller's customers: each pays `1 + 4·quality` times on average, so better
/// services keep more repeat customers.
fn plan_customers(config: &WorldConfig, params: &ScaleParams, s: &mut Seller) {
    let mut r = rng::stream(config.seed, "customers", &[u64::from(s.index)]);
    let active_days = (config.days as i32 - s.first_seen_day.max(0)).max(1) as f64;
    let expected = s.rate * active_days;
    let count = match s.kind {
        SellerKind::Ghost => 1,
        SellerKind::SybilFeedback | SellerKind::ScamListing => r.random_range(1..=3),
        SellerKind::Wash => 0,
        SellerKind::SelfDealing => r.random_range(3..=6),
        _ => ((expected / (1.0 + 4.0 * s.quality)).round() as u32).clamp(5, 5_000),
    };
    s.customers = (0..count).map(|_| r.random_range(0..params.payer_pool)).collect();
}

fn plan_ring(seed: u64, index: u32, settlements: f64, days: f64) -> Ring {
    let mut r = rng::stream(seed, "ring", &[u64::from(index)]);
    let size = r.random_range(5..=9u32);
    let per_payer_per_day = (settlements / days / f64::from(size)).max(0.5);
    let base_period = (86_400.0 / per_payer_per_day) as i64;
    Ring {
        funder: address(seed, "ring-funder", u64::from(index)),
        payers: (0..size).map(|j| address(seed, "ring-payer", u64::from(index) * 16 + u64::from(j))).collect(),
        periods: (0..size).map(|_| (base_period as f64 * r.random_range(0.9..1.1)) as i64).collect(),
    }
}

fn plan_deployer(seed: u64, params: &ScaleParams, index: u32) -> Deployer {
    let mut r = rng::stream(seed, "deployer", &[u64::from(index)]);
    let kind = pick_weighted(&mut r, DEPLOYER_MIX);
    let mean = f64::from(params.launches) / f64::from(params.deployers);
    let launches = match kind {
        DeployerKind::SerialRugger => r.random_range(3..=((mean * 2.5) as u32).max(4)),
        DeployerKind::Rugger | DeployerKind::Fresh => r.random_range(1..=2),
        _ => r.random_range(1..=((mean * 2.2) as u32).max(2)),
    };
    let proofs = if kind == DeployerKind::Builder && r.random_bool(0.4) {
        PROOF_TYPES.choose_multiple(&mut r, 2).copied().collect()
    } else {
        Vec::new()
    };
    let denylisted = kind == DeployerKind::SerialRugger && r.random_bool(0.2);
    Deployer { index, address: address(seed, "deployer", u64::from(index)), kind, launches, proofs, denylisted }
}
