//! The seller score: five bounded components minus the penalties of raised flags.
//!
//! `SCORING.md` § "Seller score" is the prose form of this file.

use serde::{Deserialize, Serialize};

use crate::features::SellerFeatures;
use crate::flags::FlagHit;

/// Constants of the score formula; `SCORING.md` cites them by these names.
pub mod params {
    /// Prior success rate that feedback and receipts are shrunk toward.
    pub const SUCCESS_PRIOR: f64 = 0.7;
    /// Weight of the prior, in pseudo-observations.
    pub const SUCCESS_PRIOR_WEIGHT: f64 = 5.0;
    /// Distinct paying feedback clients needed before feedback counts.
    pub const MIN_PAID_FEEDBACK_CLIENTS: u32 = 3;
    /// Receipts needed before receipts count (when feedback does not).
    pub const MIN_RECEIPTS: u32 = 3;
    /// Observations at which reputation reaches full confidence.
    pub const REPUTATION_FULL_CONFIDENCE: f64 = 10.0;
    /// Probe samples at which reliability reaches full confidence.
    pub const SLA_FULL_CONFIDENCE: f64 = 10.0;
    /// p95 latency at or under which the latency points are full, milliseconds.
    pub const LATENCY_FULL_MS: f64 = 300.0;
    /// p95 latency at or over which the latency points are zero, milliseconds.
    pub const LATENCY_ZERO_MS: f64 = 3000.0;
    /// Recency half-life style decay constant, days.
    pub const RECENCY_DECAY_DAYS: f64 = 15.0;
}

use params as p;

/// The score's components, each already bounded; `total` is their sum before penalties.
#[derive(Debug, Clone, Copy, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ScoreBreakdown {
    /// Demand, 0..=35: distinct payers, recent settlements, repeat payers.
    pub demand: f64,
    /// Reputation, 0..=25: success rate from paid feedback or receipts, by confidence.
    pub reputation: f64,
    /// Reliability, 0..=20: probe ok-rate by confidence, plus latency.
    pub reliability: f64,
    /// Recency, 0..=10: decays with days since the last settlement.
    pub recency: f64,
    /// Longevity, 0..=10: age, consistency, tag diversity, identity proofs.
    pub longevity: f64,
    /// Points taken off by raised flags.
    pub penalty: f64,
}

impl ScoreBreakdown {
    /// The components' sum minus the penalty, rounded and clamped to 0..=100.
    pub fn score(&self) -> u8 {
        let raw = self.demand + self.reputation + self.reliability + self.recency + self.longevity - self.penalty;
        raw.round().clamp(0.0, 100.0) as u8
    }
}

/// The success rate the interface shows (`metrics.successRate`) and the number of observations
/// behind it: paid clients' ERC-8004 feedback when enough paying clients rated, else buyer
/// receipts, each shrunk toward [`params::SUCCESS_PRIOR`]; `None` without enough evidence.
pub fn success_rate(f: &SellerFeatures) -> Option<(f64, u32)> {
    let shrink = |sum: f64, n: u32| {
        (sum + p::SUCCESS_PRIOR * p::SUCCESS_PRIOR_WEIGHT) / (f64::from(n) + p::SUCCESS_PRIOR_WEIGHT)
    };
    if f.paid_feedback_clients >= p::MIN_PAID_FEEDBACK_CLIENTS && f.paid_feedback_count > 0 {
        Some((shrink(f.paid_feedback_sum, f.paid_feedback_count), f.paid_feedback_count))
    } else if f.receipts >= p::MIN_RECEIPTS {
        Some((shrink(f64::from(f.receipt_successes), f.receipts), f.receipts))
    } else {
        None
    }
}

fn step(value: u32, steps: &[(u32, f64)]) -> f64 {
    steps.iter().find(|(at, _)| value >= *at).map_or(0.0, |(_, pts)| *pts)
}

/// Computes the components of a seller's score given its raised flags.
pub fn score_seller(f: &SellerFeatures, flags: &[FlagHit]) -> ScoreBreakdown {
    let payers = f64::from(f.distinct_payers);
    let repeat = if f.distinct_payers >= 3 { 7.0 * f.repeat_payer_ratio.clamp(0.0, 1.0) } else { 0.0 };
    let demand =
        (8.0 * (1.0 + payers).log10()).min(20.0) + (4.0 * (1.0 + f.settlements_30d as f64).log10()).min(8.0) + repeat;

    let reputation =
        success_rate(f).map_or(0.0, |(rate, n)| 25.0 * rate * (f64::from(n) / p::REPUTATION_FULL_CONFIDENCE).min(1.0));

    let reliability = f.sla.ok_rate().map_or(0.0, |rate| {
        let confidence = (f64::from(f.sla.samples) / p::SLA_FULL_CONFIDENCE).min(1.0);
        let latency = if f.sla.ok == 0 {
            0.0
        } else {
            let p95 = f64::from(f.sla.latency_p95_ms);
            5.0 * ((p::LATENCY_ZERO_MS - p95) / (p::LATENCY_ZERO_MS - p::LATENCY_FULL_MS)).clamp(0.0, 1.0)
        };
        15.0 * rate * confidence + latency
    });

    let recency = f.days_since_last_settlement.map_or(0.0, |d| 10.0 * (-f64::from(d) / p::RECENCY_DECAY_DAYS).exp());

    let longevity = step(f.age_days, &[(30, 3.0), (14, 2.0), (7, 1.0)])
        + step(f.active_days_30d, &[(21, 3.0), (10, 2.0), (5, 1.0)])
        + step(f.tag_count, &[(5, 2.0), (2, 1.0)])
        + (f.proofs.len() as f64).min(2.0);

    let penalty = flags.iter().map(|h| f64::from(h.def().penalty)).sum();

    ScoreBreakdown { demand, reputation, reliability, recency, longevity, penalty }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::features::SlaStats;
    use crate::flags::evaluate_flags;

    fn strong_seller() -> SellerFeatures {
        SellerFeatures {
            listing_count: 1,
            tag_count: 5,
            age_days: 60,
            settlements: 4000,
            settlements_30d: 900,
            volume: 40_000_000,
            distinct_payers: 120,
            repeat_payer_ratio: 0.7,
            top_payer_share: 0.05,
            days_since_last_settlement: Some(0),
            active_days_30d: 30,
            sla: SlaStats {
                samples: 30,
                ok: 30,
                latency_p50_ms: 200,
                latency_p95_ms: 600,
                avg_latency_ms: 250,
                last_ok: Some(true),
            },
            paid_feedback_clients: 12,
            paid_feedback_count: 20,
            paid_feedback_sum: 18.0,
            feedback_clients: 12,
            feedback_count: 20,
            ..Default::default()
        }
    }

    #[test]
    fn components_stay_within_their_bounds() {
        let f = strong_seller();
        let b = score_seller(&f, &evaluate_flags(&f));
        assert!(b.demand <= 35.0 && b.reputation <= 25.0 && b.reliability <= 20.0);
        assert!(b.recency <= 10.0 && b.longevity <= 10.0);
        assert!(b.score() >= 85, "strong seller scored {}", b.score());
    }

    #[test]
    fn shrinkage_pulls_thin_feedback_toward_the_prior() {
        let thin = SellerFeatures {
            paid_feedback_clients: 3,
            paid_feedback_count: 3,
            paid_feedback_sum: 3.0,
            ..Default::default()
        };
        let (rate, _) = success_rate(&thin).unwrap();
        assert!(rate < 0.85 && rate > 0.7);
        let unpaid = SellerFeatures {
            paid_feedback_clients: 2,
            paid_feedback_count: 9,
            paid_feedback_sum: 9.0,
            ..Default::default()
        };
        assert_eq!(success_rate(&unpaid), None, "fewer than 3 paying clients must not count");
    }

    #[test]
    fn penalties_lower_the_score_and_clamp_at_zero() {
        let f = strong_seller();
        let clean = score_seller(&f, &[]).score();
        let denied = SellerFeatures { denylisted: true, ..f };
        let b = score_seller(&denied, &evaluate_flags(&denied));
        assert!(b.score() < clean);
        assert_eq!(b.score(), 0);
    }
}
