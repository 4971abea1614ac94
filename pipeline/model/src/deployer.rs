//! Token deployers: each launch's outcome from its daily observations, then the deployer's score
//! and verdict from its outcomes.
//!
//! The outcome rules follow the heuristics in `reference/onchain.md` §7 (creator dump for rugs,
//! swaps and liquidity for life); the thresholds are ours and are listed in `SCORING.md`.

use serde::{Deserialize, Serialize};

use crate::MicroUsdc;
pub use crate::features::{DeployerFeatures, LaunchOutcome, LaunchSummary, OutcomeCounts};

/// Thresholds of the launch and deployer rules.
pub mod params {
    use crate::MicroUsdc;

    /// Launches younger than this many days are `inconclusive`.
    pub const MIN_DAYS_OBSERVED: u32 = 3;
    /// Creator share sold (of its initial holding) that counts as a dump.
    pub const RUG_CREATOR_SOLD: f64 = 0.5;
    /// The dump may take this many days from launch (slow dumps sell in steps over days).
    pub const RUG_WINDOW_DAYS: u32 = 14;
    /// ...and the price must fall to at most this share of its peak.
    pub const RUG_PRICE_FLOOR: f64 = 0.1;
    /// Peak liquidity that counts as graduation (pools with no bonding curve).
    pub const GRADUATION_LIQUIDITY: MicroUsdc = 50_000_000_000;
    /// Days without swaps after which a launch is `abandoned`.
    pub const ABANDONED_AFTER_DAYS: u32 = 14;
    /// Price at or under this share of the all-time high is `abandoned`.
    pub const ABANDONED_PRICE_FLOOR: f64 = 0.05;
    /// `alive` needs a swap within this many days...
    pub const ALIVE_SWAP_WITHIN_DAYS: u32 = 7;
    /// ...and at least this much liquidity.
    pub const ALIVE_LIQUIDITY: MicroUsdc = 1_000_000_000;
    /// Prior rug rate that a deployer's rug rate is shrunk toward.
    pub const RUG_PRIOR: f64 = 0.1;
    /// Prior survival rate.
    pub const SURVIVAL_PRIOR: f64 = 0.5;
    /// Weight of the priors, in pseudo-launches.
    pub const PRIOR_WEIGHT: f64 = 2.0;
    /// Launches of a serial deployer (seed: the sketchy list needs 3 or more).
    pub const SERIAL_LAUNCHES: u32 = 3;
    /// Below this score the verdict is at best `CAUTION`.
    pub const CAUTION_BELOW: u8 = 40;
    /// Rugged launches from which the verdict is `AVOID` whatever the rate (decoy launches cannot
    /// dilute a count).
    pub const RUG_COUNT_AVOID: u32 = 2;
    /// Rug rate over decided launches from which the verdict is `AVOID`.
    pub const RUG_RATE_AVOID: f64 = 0.5;
}

use params as p;

/// One day's observation of a launched token.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
pub struct LaunchObservation {
    /// Days since launch (0 = launch day).
    pub day: u32,
    /// Pool liquidity, micro-USDC.
    pub liquidity: MicroUsdc,
    /// Swaps that day.
    pub swaps: u32,
    /// Holders at the end of the day.
    pub holders: u32,
    /// Price in USD at the end of the day.
    pub price: f64,
    /// Share of its initial allocation the creator still holds, 0..=1.
    pub creator_holding: f64,
}

/// Classifies a launch from its observations (any order) as of `age_days` after launch.
pub fn classify_launch(age_days: u32, observations: &[LaunchObservation]) -> LaunchOutcome {
    if observations.is_empty() || age_days < p::MIN_DAYS_OBSERVED {
        return LaunchOutcome::Inconclusive;
    }
    let mut obs = observations.to_vec();
    obs.sort_by_key(|o| o.day);
    let peak_price = obs.iter().map(|o| o.price).fold(0.0, f64::max);
    let last = obs[obs.len() - 1];
    let dumped_early =
        obs.iter().filter(|o| o.day <= p::RUG_WINDOW_DAYS).any(|o| 1.0 - o.creator_holding >= p::RUG_CREATOR_SOLD);
    let collapsed = peak_price > 0.0 && last.price <= peak_price * p::RUG_PRICE_FLOOR;
    if dumped_early && collapsed {
        return LaunchOutcome::Rugged;
    }
    let peak_liquidity = obs.iter().map(|o| o.liquidity).max().unwrap_or(0);
    if peak_liquidity >= p::GRADUATION_LIQUIDITY {
        return LaunchOutcome::Graduated;
    }
    let last_swap_day = obs.iter().filter(|o| o.swaps > 0).map(|o| o.day).max();
    let days_since_swap = last_swap_day.map_or(age_days, |d| age_days.saturating_sub(d));
    let faded = peak_price > 0.0 && last.price <= peak_price * p::ABANDONED_PRICE_FLOOR;
    if days_since_swap >= p::ABANDONED_AFTER_DAYS || faded {
        return LaunchOutcome::Abandoned;
    }
    if days_since_swap <= p::ALIVE_SWAP_WITHIN_DAYS && last.liquidity >= p::ALIVE_LIQUIDITY {
        return LaunchOutcome::Alive;
    }
    LaunchOutcome::Inconclusive
}

/// The deployer verdict (the risk report's vocabulary), from the best to the worst.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
#[cfg_attr(feature = "schemars", derive(schemars::JsonSchema))]
#[serde(rename_all = "SCREAMING_SNAKE_CASE")]
pub enum DeployerVerdict {
    /// Launches tend to survive.
    Ok,
    /// Mixed or thin record.
    Caution,
    /// Rugs dominate, or denylisted.
    Avoid,
}

impl DeployerVerdict {
    /// Every verdict.
    pub const ALL: [DeployerVerdict; 3] = [DeployerVerdict::Ok, DeployerVerdict::Caution, DeployerVerdict::Avoid];

    /// The verdict of a wire name.
    pub fn named(name: &str) -> Option<Self> {
        Self::ALL.into_iter().find(|v| v.as_str() == name)
    }

    /// The wire name.
    pub fn as_str(self) -> &'static str {
        match self {
            DeployerVerdict::Ok => "OK",
            DeployerVerdict::Caution => "CAUTION",
            DeployerVerdict::Avoid => "AVOID",
        }
    }
}

crate::wire_name::display_as_wire_name!(DeployerVerdict);

/// The risk report's verdict on a wallet that sells, launched tokens, or both: the worse of its
/// seller decision (`BLOCK` is `AVOID`, `CAUTION` is `CAUTION`, a proceed is `OK`) and its deployer
/// verdict; `OK` when it is neither.
pub fn risk_verdict(seller: Option<crate::Decision>, deployer: Option<DeployerVerdict>) -> DeployerVerdict {
    let as_seller = seller.map(|d| match d {
        crate::Decision::Block => DeployerVerdict::Avoid,
        crate::Decision::Caution => DeployerVerdict::Caution,
        crate::Decision::ProceedLowValue | crate::Decision::Proceed => DeployerVerdict::Ok,
    });
    as_seller.into_iter().chain(deployer).max().unwrap_or(DeployerVerdict::Ok)
}

/// Whether a deployer's score was measured.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[cfg_attr(feature = "schemars", derive(schemars::JsonSchema))]
#[serde(rename_all = "kebab-case")]
pub enum DeployerBasis {
    /// At least one launch has a decided outcome.
    Measured,
    /// No launch is decided yet (all too young or unobserved): no score, verdict `CAUTION`.
    InsufficientHistory,
}

/// Score, verdict and rates of one deployer.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct DeployerAssessment {
    /// Score 0..=100, `None` without a decided launch.
    pub score: Option<u8>,
    /// Measured or insufficient history.
    pub basis: DeployerBasis,
    /// Verdict.
    pub verdict: DeployerVerdict,
    /// Raw survival rate over decided launches.
    pub survival: Option<f64>,
    /// Raw rug rate over decided launches.
    pub rug_rate: Option<f64>,
    /// Serial deployer (3+ launches) whose decided launches are mostly rugged.
    pub sketchy: bool,
    /// The score's terms, by name, as the formula adds them.
    pub breakdown: Vec<(String, f64)>,
    /// Why the verdict is what it is, shortest first.
    pub reasons: Vec<String>,
    /// The deployer flags of [`crate::FLAGS`] its features raise.
    #[serde(default)]
    pub flags: Vec<crate::FlagHit>,
}

/// Scores a deployer: `30 + 50·survival' − 60·rug' + 10·min(1, graduated/3) +
/// 5·min(1, proofs/2) + 5·min(1, age/60)`, with survival' and rug' shrunk toward their priors; no
/// score without a decided launch. `AVOID` when denylisted, with [`params::RUG_COUNT_AVOID`] rugs, or a rug rate of
/// [`params::RUG_RATE_AVOID`]; `CAUTION` without history, with any rug, tainted funding or a low
/// score.
pub fn assess_deployer(f: &DeployerFeatures) -> DeployerAssessment {
    let o = &f.outcomes;
    let decided = f64::from(o.decided());
    let shrink = |k: u32, prior: f64| (f64::from(k) + prior * p::PRIOR_WEIGHT) / (decided + p::PRIOR_WEIGHT);
    let breakdown: Vec<(String, f64)> = [
        ("base", 30.0),
        ("survival", 50.0 * shrink(o.graduated + o.alive, p::SURVIVAL_PRIOR)),
        ("rugs", -60.0 * shrink(o.rugged, p::RUG_PRIOR)),
        ("graduations", 10.0 * (f64::from(o.graduated) / 3.0).min(1.0)),
        ("proofs", 5.0 * (f64::from(f.proof_count) / 2.0).min(1.0)),
        ("age", 5.0 * (f64::from(f.age_days) / 60.0).min(1.0)),
    ]
    .into_iter()
    .map(|(k, v)| (k.to_owned(), v))
    .collect();
    let raw: f64 = breakdown.iter().map(|(_, v)| v).sum();
    let basis = if o.decided() == 0 { DeployerBasis::InsufficientHistory } else { DeployerBasis::Measured };
    let score = match basis {
        _ if f.denylisted => Some(0),
        DeployerBasis::InsufficientHistory => None,
        DeployerBasis::Measured => Some(raw.round().clamp(0.0, 100.0) as u8),
    };
    let rug_rate = (o.decided() > 0).then(|| f64::from(o.rugged) / decided);
    let sketchy = o.total >= p::SERIAL_LAUNCHES && rug_rate.is_some_and(|r| r > 0.5);
    let mut reasons = Vec::new();
    if f.denylisted {
        reasons.push("denylisted".to_owned());
    }
    if o.rugged >= p::RUG_COUNT_AVOID {
        reasons.push(format!("{} rugged launches", o.rugged));
    } else if rug_rate.is_some_and(|r| r >= p::RUG_RATE_AVOID) {
        reasons.push(format!("rug rate {:.0}%", rug_rate.unwrap_or(0.0) * 100.0));
    }
    let avoid = !reasons.is_empty();
    if !avoid {
        if basis == DeployerBasis::InsufficientHistory {
            reasons.push("insufficient history: no launch decided yet".to_owned());
        }
        if o.rugged > 0 {
            reasons.push(format!("{} rugged launch", o.rugged));
        }
        if let Some(by) = &f.tainted_by {
            reasons.push(format!("funded by {by}"));
        }
        if score.is_some_and(|s| s < p::CAUTION_BELOW) {
            reasons.push(format!("score under {}", p::CAUTION_BELOW));
        }
    }
    let verdict = if avoid {
        DeployerVerdict::Avoid
    } else if !reasons.is_empty() {
        DeployerVerdict::Caution
    } else {
        DeployerVerdict::Ok
    };
    let flags = crate::flags::evaluate_deployer_flags(f);
    DeployerAssessment { score, basis, verdict, survival: o.survival(), rug_rate, sketchy, breakdown, reasons, flags }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn obs(day: u32, liquidity: MicroUsdc, swaps: u32, price: f64, creator_holding: f64) -> LaunchObservation {
        LaunchObservation { day, liquidity, swaps, holders: 10, price, creator_holding }
    }

    #[test]
    fn creator_dump_with_collapse_is_a_rug() {
        let o = [
            obs(0, 5_000_000_000, 50, 1.0, 1.0),
            obs(1, 4_000_000_000, 80, 1.2, 0.3),
            obs(5, 100_000_000, 1, 0.05, 0.1),
        ];
        assert_eq!(classify_launch(10, &o), LaunchOutcome::Rugged);
    }

    #[test]
    fn young_launch_is_inconclusive_and_quiet_one_abandoned() {
        let o = [obs(0, 5_000_000_000, 50, 1.0, 1.0)];
        assert_eq!(classify_launch(1, &o), LaunchOutcome::Inconclusive);
        assert_eq!(classify_launch(30, &o), LaunchOutcome::Abandoned);
    }

    #[test]
    fn liquid_trading_launch_is_alive_and_big_one_graduates() {
        let alive = [obs(0, 2_000_000_000, 20, 1.0, 1.0), obs(9, 2_500_000_000, 15, 1.1, 0.9)];
        assert_eq!(classify_launch(10, &alive), LaunchOutcome::Alive);
        let big = [obs(0, 2_000_000_000, 20, 1.0, 1.0), obs(9, 60_000_000_000, 300, 4.0, 0.8)];
        assert_eq!(classify_launch(10, &big), LaunchOutcome::Graduated);
    }

    #[test]
    fn serial_rugger_is_avoid_and_sketchy() {
        let mut outcomes = OutcomeCounts::default();
        for _ in 0..4 {
            outcomes.add(LaunchOutcome::Rugged);
        }
        outcomes.add(LaunchOutcome::Abandoned);
        let a = assess_deployer(&DeployerFeatures { outcomes, age_days: 40, ..Default::default() });
        assert_eq!(a.verdict, DeployerVerdict::Avoid);
        assert!(a.sketchy);
        assert!(a.score.unwrap() < 20);
    }

    #[test]
    fn decoy_launches_do_not_dilute_rugs() {
        let mut outcomes = OutcomeCounts::default();
        for o in [LaunchOutcome::Rugged, LaunchOutcome::Rugged, LaunchOutcome::Alive, LaunchOutcome::Alive] {
            outcomes.add(o);
        }
        for _ in 0..4 {
            outcomes.add(LaunchOutcome::Alive);
        }
        let a = assess_deployer(&DeployerFeatures { outcomes, age_days: 40, ..Default::default() });
        assert_eq!(a.verdict, DeployerVerdict::Avoid, "two rugs among eight launches");
    }

    #[test]
    fn no_decided_launch_is_insufficient_history_never_ok() {
        let mut outcomes = OutcomeCounts::default();
        outcomes.add(LaunchOutcome::Inconclusive);
        outcomes.add(LaunchOutcome::Inconclusive);
        let a = assess_deployer(&DeployerFeatures { outcomes, age_days: 1, proof_count: 2, ..Default::default() });
        assert_eq!(a.basis, DeployerBasis::InsufficientHistory);
        assert_eq!(a.score, None);
        assert_eq!(a.verdict, DeployerVerdict::Caution);
    }

    #[test]
    fn slow_dump_is_a_rug() {
        let o = [
            obs(0, 5_000_000_000, 50, 1.0, 1.0),
            obs(3, 4_000_000_000, 40, 0.9, 0.6),
            obs(5, 500_000_000, 10, 0.2, 0.05),
            obs(8, 100_000_000, 1, 0.05, 0.05),
        ];
        assert_eq!(classify_launch(12, &o), LaunchOutcome::Rugged);
    }

    #[test]
    fn tainted_funding_cautions() {
        let mut outcomes = OutcomeCounts::default();
        for _ in 0..3 {
            outcomes.add(LaunchOutcome::Alive);
        }
        let f = DeployerFeatures { outcomes, age_days: 40, tainted_by: Some("0xbad".into()), ..Default::default() };
        assert_eq!(assess_deployer(&f).verdict, DeployerVerdict::Caution);
        let clean = DeployerFeatures { tainted_by: None, ..f };
        assert_eq!(assess_deployer(&clean).verdict, DeployerVerdict::Ok);
    }
}
