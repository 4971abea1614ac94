//! The embedded default world: a deterministic, seedable generator of an x402 agent economy
//! (honest sellers of varied size and quality, and honest-but-unusual ones: flapping, young and
//! new services, company fleets, smart-account buyers, several prices, cron-like buyers; ghost
//! sellers; attack families with randomized knobs: wash rings, hub dusting, self-funding through
//! intermediaries, sock puppets, paid-once reviewers, pay-then-fail, offer mismatch, unattributed
//! demand, denylist funding, self-dealing, sybil feedback, dead endpoints, scam listings,
//! denylisted wallets; outsiders griefing honest sellers; token deployers who graduate, abandon or
//! rug at once, slowly or behind decoys), written as exactly the raw datasets the ingest jobs
//! produce, so the rebuild cannot tell it from ingested data.
//!
//! Ground-truth labels go to `labels.json` in the lake root, which the rebuild never reads; only
//! `agentrep eval` does. The generator is written from how real actors behave, never tuned to the
//! model.

pub mod cost;
mod deployers;
mod grief;
pub mod knobs;
mod labels;
mod plan;
mod receivers;
mod rng;
mod sellers;

use std::path::Path;

use agentrep_lake::{Lake, LakeError};
use chrono::{Duration, NaiveDate};

pub use knobs::KnobRange;
pub use labels::{DeployerLabel, GriefLabel, LABELS_FILE, LABELS_VERSION, Labels, SellerClass, SellerLabel};
pub use plan::{DeployerKind, SellerKind};

/// Midnight of a day, Unix seconds.
pub(crate) fn day_start(day: NaiveDate) -> i64 {
    day.and_hms_opt(0, 0, 0).expect("midnight").and_utc().timestamp()
}

/// How big a world to make.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Scale {
    /// The default world of `make run`: about 2,000 sellers and 200k settlements over 30 days.
    Small,
    /// The replay world: about 30 sellers and a few thousand settlements, small enough to play
    /// onto a local chain in a test.
    Tiny,
    /// The benchmark world: 100k sellers, 10M settlements, 1M probes, 500k feedback, 20k
    /// deployers and 100k launches.
    Bench,
    /// Ten times the benchmark world: 1M sellers, 100M settlements, 10M payers, 200k deployers
    /// and 1M launches (issue 21's scale test: does a day still fit one machine).
    Bench10,
    /// The real economy's shape, after a public census of Base's x402 settlements: 1,500 listed
    /// sellers with half their buyers one-off, among 163k receiving wallets that list nothing
    /// (ghosts, test rigs, dormant, duplicates, memecoin sellers: `receivers::CENSUS`), about 345k
    /// settlements a day. `--days 540` gives the economy's age: about 186M settlements.
    Census,
}

impl Scale {
    /// Parses `tiny`, `small`, `bench`, `bench10` or `census`.
    pub fn parse(s: &str) -> Option<Self> {
        match s {
            "tiny" => Some(Scale::Tiny),
            "small" => Some(Scale::Small),
            "bench" => Some(Scale::Bench),
            "bench10" => Some(Scale::Bench10),
            "census" => Some(Scale::Census),
            _ => None,
        }
    }

    /// The name.
    pub fn as_str(self) -> &'static str {
        match self {
            Scale::Tiny => "tiny",
            Scale::Small => "small",
            Scale::Bench => "bench",
            Scale::Bench10 => "bench10",
            Scale::Census => "census",
        }
    }
}

/// The size parameters of a scale.
#[derive(Debug, Clone, Copy)]
pub(crate) struct ScaleParams {
    pub sellers: u32,
    pub payer_pool: u32,
    pub hubs: u32,
    pub settlements: f64,
    pub probes_per_day: u32,
    pub probe_days: u32,
    pub crawl_every_days: u32,
    pub feedback_per_registered: f64,
    pub deployers: u32,
    pub launches: u32,
    /// The share of a pool-demand seller's settlements paid by a wallet never seen before.
    pub one_off_share: f64,
    /// Receiving wallets that list nothing, paid at their census rate every day.
    pub receivers: &'static [receivers::ReceiverBucket],
}

impl Scale {
    pub(crate) fn params(self) -> ScaleParams {
        match self {
            Scale::Small => ScaleParams {
                sellers: 2_000,
                payer_pool: 40_000,
                hubs: 12,
                settlements: 200_000.0,
                probes_per_day: 2,
                probe_days: 30,
                crawl_every_days: 1,
                feedback_per_registered: 12.0,
                deployers: 300,
                launches: 1_200,
                one_off_share: 0.0,
                receivers: &[],
            },
            Scale::Tiny => ScaleParams {
                sellers: 30,
                payer_pool: 600,
                hubs: 3,
                settlements: 3_000.0,
                probes_per_day: 2,
                probe_days: 7,
                crawl_every_days: 1,
                feedback_per_registered: 4.0,
                deployers: 8,
                launches: 24,
                one_off_share: 0.0,
                receivers: &[],
            },
            Scale::Bench => ScaleParams {
                sellers: 100_000,
                payer_pool: 1_000_000,
                hubs: 40,
                settlements: 10_000_000.0,
                probes_per_day: 2,
                probe_days: 5,
                crawl_every_days: 7,
                feedback_per_registered: 21.5,
                deployers: 20_000,
                launches: 100_000,
                one_off_share: 0.0,
                receivers: &[],
            },
            Scale::Bench10 => ScaleParams {
                sellers: 1_000_000,
                payer_pool: 10_000_000,
                hubs: 400,
                settlements: 100_000_000.0,
                probes_per_day: 2,
                probe_days: 5,
                crawl_every_days: 7,
                feedback_per_registered: 21.5,
                deployers: 200_000,
                launches: 1_000_000,
                one_off_share: 0.0,
                receivers: &[],
            },
            // The census's 948 active legitimate sellers carry 86.7M settlements over its 540
            // days: the listed sellers' 30 days hold 86.7M × 30 / 540. Listings crawled daily.
            Scale::Census => ScaleParams {
                sellers: 1_500,
                payer_pool: 300_000,
                hubs: 40,
                settlements: 86.7e6 * 30.0 / receivers::CENSUS_DAYS,
                probes_per_day: 2,
                probe_days: 5,
                crawl_every_days: 1,
                feedback_per_registered: 21.5,
                deployers: 2_000,
                launches: 10_000,
                one_off_share: 0.5,
                receivers: receivers::CENSUS,
            },
        }
    }
}

/// What world to make.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct WorldConfig {
    /// Seed of every random stream.
    pub seed: u64,
    /// Size.
    pub scale: Scale,
    /// Last day of the world.
    pub end: NaiveDate,
    /// Days of activity up to and including `end`.
    pub days: u32,
    /// Knob ranges the attack families and honest patterns draw from.
    pub knobs: KnobRange,
    /// Whether outsiders grief honest sellers (off: the same lake minus the griefing rows).
    pub griefing: bool,
    /// The number of days the scale's settlement count is spread over: `None` spreads it over
    /// `days`; `Some(30)` keeps the 30-day world's daily rate whatever `days` is, so a longer
    /// history holds proportionally more settlements (the history-length benchmarks).
    pub settlement_days: Option<u32>,
    /// Multiplier of every seller's pool demand on the last day: 1 is an ordinary day, 10 a day
    /// with ten times the usual new settlements (the news-day benchmark).
    pub last_day_surge: u32,
}

/// Last day of the default world; fixed so that the default world, its snapshots and the figures
/// in `SCORING.md` are reproducible.
pub const DEFAULT_END: NaiveDate = match NaiveDate::from_ymd_opt(2026, 11, 20) {
    Some(d) => d,
    None => panic!("valid date"),
};

/// Seed of the default (tuning) world.
pub const DEFAULT_SEED: u64 = 8402;

/// Seed of the held-out evaluation world.
pub const TEST_SEED: u64 = 20261122;

impl WorldConfig {
    /// The default (tuning) world at a scale: seed [`DEFAULT_SEED`], tune knob ranges, griefing.
    pub fn new(scale: Scale) -> Self {
        Self {
            seed: DEFAULT_SEED,
            scale,
            end: DEFAULT_END,
            days: 30,
            knobs: KnobRange::Tune,
            griefing: true,
            settlement_days: None,
            last_day_surge: 1,
        }
    }

    /// The held-out world at a scale: seed [`TEST_SEED`], the wider test knob ranges, griefing.
    pub fn test_world(scale: Scale) -> Self {
        Self { seed: TEST_SEED, knobs: KnobRange::Test, ..Self::new(scale) }
    }

    /// First day of activity.
    pub fn start(&self) -> NaiveDate {
        self.end - Duration::days(i64::from(self.days) - 1)
    }

    /// The settlements the plan aims at: the scale's count, over `days` or at the daily rate of
    /// [`Self::settlement_days`].
    pub(crate) fn settlement_target(&self) -> f64 {
        let count = self.scale.params().settlements;
        self.settlement_days.map_or(count, |per| count * f64::from(self.days) / f64::from(per.max(1)))
    }

    /// The world's days, oldest first.
    pub fn days(&self) -> Vec<NaiveDate> {
        (0..self.days).map(|d| self.start() + Duration::days(i64::from(d))).collect()
    }
}

/// What a generation wrote.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct WorldStats {
    /// Listing rows.
    pub listings: u64,
    /// Settlements.
    pub settlements: u64,
    /// Probes.
    pub probes: u64,
    /// Feedback entries.
    pub feedback: u64,
    /// Launches.
    pub launches: u64,
    /// Launch observations.
    pub observations: u64,
    /// Known wallets' buys of launched tokens.
    pub token_buys: u64,
    /// Funding edges.
    pub funding_edges: u64,
}

/// Generation failed.
#[derive(Debug, thiserror::Error)]
pub enum WorldError {
    /// Writing the lake failed.
    #[error(transparent)]
    Lake(#[from] LakeError),
    /// Encoding the labels failed.
    #[error("encoding labels: {0}")]
    Labels(#[from] serde_json::Error),
}

/// Generates the world into a lake folder at `root`, calling `progress(step, steps)` as it goes.
pub fn generate(
    config: &WorldConfig,
    root: &Path,
    progress: &(dyn Fn(u64, u64) + Sync),
) -> Result<WorldStats, WorldError> {
    generate_into(config, &Lake::new(root), progress)
}

/// Generates the world into `lake` (a folder or a bucket), calling `progress(step, steps)`.
pub fn generate_into(
    config: &WorldConfig,
    lake: &Lake,
    progress: &(dyn Fn(u64, u64) + Sync),
) -> Result<WorldStats, WorldError> {
    let mut world = plan::World::plan(config);
    let mut stats = WorldStats::default();
    let steps = u64::from(config.days) + 2;
    let days = config.days();
    sellers::write_static(&mut world, lake, &days, &mut stats)?;
    progress(1, steps);
    for (i, day) in days.iter().enumerate() {
        sellers::write_day(&world, lake, i as u32, *day, &mut stats)?;
        progress(2 + i as u64, steps);
    }
    let labels = Labels::from_world(&world);
    lake.write_sidecar(LABELS_FILE, &serde_json::to_vec(&labels)?)?;
    progress(steps, steps);
    Ok(stats)
}

#[cfg(test)]
mod tests;
