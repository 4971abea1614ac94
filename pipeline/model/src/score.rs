//! The seller score: five bounded components summed over the available ones and rescaled to
//! 0..=100, minus the penalties of raised flags. Demand is observed for every listed seller (no
//! qualifying payment is zero demand, seen); reputation, reliability and recency are `None` when
//! there is no evidence for them.
//!
//! `SCORING.md` § "Seller score" is the prose form of this file.

use serde::{Deserialize, Serialize};

use crate::features::SellerFeatures;
use crate::flags::FlagHit;

/// Constants of the score formula; `SCORING.md` cites them by these names.
pub mod params {
    /// Trusted paying entities at which the breadth of demand is full.
    pub const DEMAND_FULL_ENTITIES: f64 = 25.0;
    /// Trust mass (seed units) at which the trust part of demand is full.
    pub const TRUST_MASS_FULL: f64 = 10.0;
    /// Trusted entities needed before the repeat share counts.
    pub const REPEAT_MIN_ENTITIES: u32 = 3;
    /// Weighted paying entities at which demand reaches full confidence.
    pub const DEMAND_FULL_CONFIDENCE: f64 = 10.0;
    /// Prior rating that reviews and receipts are shrunk toward.
    pub const RATING_PRIOR: f64 = 0.6;
    /// Weight of the prior, in fully trusted reviews.
    pub const RATING_PRIOR_WEIGHT: f64 = 3.0;
    /// Review plus receipt weight at which reputation reaches full confidence.
    pub const REPUTATION_FULL_CONFIDENCE: f64 = 10.0;
    /// Probe samples at which reliability reaches full confidence.
    pub const SLA_FULL_CONFIDENCE: f64 = 10.0;
    /// p95 latency at or under which the latency points are full, milliseconds.
    pub const LATENCY_FULL_MS: f64 = 300.0;
    /// p95 latency at or over which the latency points are zero, milliseconds.
    pub const LATENCY_ZERO_MS: f64 = 3000.0;
    /// Recency decay constant, days.
    pub const RECENCY_DECAY_DAYS: f64 = 15.0;
    /// Most demand points that paying entities no trust reaches can earn (of 35): they cost an
    /// attacker little (an exchange withdrawal per wallet), so they inform the score without
    /// ever deciding it.
    pub const UNANCHORED_DEMAND_MAX: f64 = 14.0;
    /// Paying entities at which the breadth of unanchored demand is full.
    pub const UNANCHORED_FULL_ENTITIES: f64 = 25.0;
    /// Returning entities at which the return part of unanchored demand is full.
    pub const UNANCHORED_FULL_REPEAT: f64 = 10.0;
    /// Active days (of 30) at which the days part of unanchored demand is full.
    pub const UNANCHORED_FULL_DAYS: f64 = 20.0;
    /// Qualifying volume at which the volume part of unanchored demand is full, USDC.
    pub const UNANCHORED_FULL_VOLUME_USDC: f64 = 100.0;
    /// Most recency points a settlement of an untrusted entity earns (of 10).
    pub const UNANCHORED_RECENCY_MAX: f64 = 5.0;
    /// Weight of an untrusted paying entity in demand's confidence, against a trusted one's 1.
    pub const UNANCHORED_CONFIDENCE_WEIGHT: f64 = 0.2;
    /// Listing age at which longevity reaches full confidence, days.
    pub const AGE_FULL_CONFIDENCE_DAYS: f64 = 30.0;
}

use params as p;

/// The score's components.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub enum Component {
    /// Trusted, independent paying demand.
    Demand,
    /// Ratings and receipts from paying, trusted entities.
    Reputation,
    /// Probe ok-rate and latency.
    Reliability,
    /// Days since the last trusted payment.
    Recency,
    /// Age, consistency, tags and the seller's own identity proofs.
    Longevity,
}

impl Component {
    /// Every component, in breakdown order.
    pub const ALL: [Component; 5] =
        [Component::Demand, Component::Reputation, Component::Reliability, Component::Recency, Component::Longevity];

    /// The wire name.
    pub fn as_str(self) -> &'static str {
        match self {
            Component::Demand => "demand",
            Component::Reputation => "reputation",
            Component::Reliability => "reliability",
            Component::Recency => "recency",
            Component::Longevity => "longevity",
        }
    }

    /// The component's maximum points.
    pub fn max(self) -> f64 {
        match self {
            Component::Demand => 35.0,
            Component::Reputation => 25.0,
            Component::Reliability => 20.0,
            Component::Recency => 10.0,
            Component::Longevity => 10.0,
        }
    }
}

/// One component of a score: its points (`None` without evidence), its maximum, how sure it is,
/// and the evidence counts behind it.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ComponentScore {
    /// Which component.
    pub component: Component,
    /// Points, `None` when there is no evidence for it.
    pub points: Option<f64>,
    /// Maximum points (of the evidence present: reliability without latency is out of 15).
    pub max: f64,
    /// 0..=1: how much evidence stands behind the points.
    pub confidence: f64,
    /// Evidence counts, by name. A count without a value (days since a settlement that never
    /// happened: not a number) is written `null` and read back as not a number.
    #[serde(deserialize_with = "evidence_with_nulls")]
    pub evidence: Vec<(String, f64)>,
}

/// Reads [`ComponentScore::evidence`] as JSON writes it: a non-finite count became `null`.
fn evidence_with_nulls<'de, D: serde::Deserializer<'de>>(d: D) -> Result<Vec<(String, f64)>, D::Error> {
    let counts: Vec<(String, Option<f64>)> = Deserialize::deserialize(d)?;
    Ok(counts.into_iter().map(|(name, value)| (name, value.unwrap_or(f64::NAN))).collect())
}

/// The score's components and how they combine.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct ScoreBreakdown {
    /// The components, in [`Component::ALL`] order.
    pub components: Vec<ComponentScore>,
    /// Points taken off by raised flags.
    pub penalty: f64,
    /// 0..=1: the components' confidences weighed by their full maxima (a missing one counts 0).
    pub confidence: f64,
    /// Signals with no evidence (`reputation`, `probes`, …) and stale sources.
    pub missing_signals: Vec<String>,
}

impl ScoreBreakdown {
    /// Sum of the available components' points, rescaled to 0..=100, minus the penalty, rounded and
    /// clamped; `None` when no component has evidence.
    pub fn score(&self) -> Option<u8> {
        let (points, max) = self
            .components
            .iter()
            .filter_map(|c| c.points.map(|pts| (pts, c.max)))
            .fold((0.0, 0.0), |(a, b), (pts, max)| (a + pts, b + max));
        (max > 0.0).then(|| (100.0 * points / max - self.penalty).round().clamp(0.0, 100.0) as u8)
    }

    /// The points of one component.
    pub fn points(&self, component: Component) -> Option<f64> {
        self.components.iter().find(|c| c.component == component).and_then(|c| c.points)
    }
}

/// The rating the interface shows (`metrics.successRate`): counted reviews and matched receipts,
/// each weighed by its entity's trust, shrunk toward [`params::RATING_PRIOR`]; `None` without
/// any counted review or receipt. Adding a rating below the current value always lowers it.
pub fn success_rate(f: &SellerFeatures) -> Option<f64> {
    let r = &f.reputation;
    let weight = r.review_weight + r.receipt_weight;
    (weight > 0.0).then(|| {
        (r.review_sum + r.receipt_success + p::RATING_PRIOR * p::RATING_PRIOR_WEIGHT)
            / (weight + p::RATING_PRIOR_WEIGHT)
    })
}

fn step(value: u32, steps: &[(u32, f64)]) -> f64 {
    steps.iter().find(|(at, _)| value >= *at).map_or(0.0, |(_, pts)| *pts)
}

fn log_share(x: f64, full: f64) -> f64 {
    ((1.0 + x.max(0.0)).ln() / (1.0 + full).ln()).min(1.0)
}

fn evidence(pairs: &[(&str, f64)]) -> Vec<(String, f64)> {
    pairs.iter().map(|(k, v)| ((*k).to_owned(), *v)).collect()
}

/// Demand points from trusted entities only (the part that costs real spend to fake), `None`
/// without a trusted entity.
fn proven_demand(d: &crate::DemandStats) -> Option<f64> {
    (d.trusted_entities > 0).then(|| {
        let breadth = 20.0 * log_share(f64::from(d.trusted_entities), p::DEMAND_FULL_ENTITIES);
        let mass = 8.0 * log_share(d.trust_mass, p::TRUST_MASS_FULL);
        let repeat =
            if d.trusted_entities >= p::REPEAT_MIN_ENTITIES { 7.0 * d.repeat_ratio.clamp(0.0, 1.0) } else { 0.0 };
        breadth + mass + repeat
    })
}

/// Demand points from every independent paying entity, trusted or not, bounded by
/// [`params::UNANCHORED_DEMAND_MAX`]: how many entities paid, how many came back, on how many
/// days, and how much.
fn unanchored_demand(d: &crate::DemandStats) -> f64 {
    let breadth = 6.0 * log_share(f64::from(d.entities), p::UNANCHORED_FULL_ENTITIES);
    let returning = 3.0 * log_share(f64::from(d.repeat_entities), p::UNANCHORED_FULL_REPEAT);
    let days = 3.0 * log_share(f64::from(d.active_days_30d_all), p::UNANCHORED_FULL_DAYS);
    let volume = 2.0 * log_share(crate::usdc(d.volume), p::UNANCHORED_FULL_VOLUME_USDC);
    (breadth + returning + days + volume).min(p::UNANCHORED_DEMAND_MAX)
}

fn demand(f: &SellerFeatures) -> ComponentScore {
    let d = &f.demand;
    let proven = proven_demand(d);
    let points = (f.listing_count > 0).then(|| proven.unwrap_or(0.0).max(unanchored_demand(d)));
    let weight = d.weighted_entities + p::UNANCHORED_CONFIDENCE_WEIGHT * f64::from(d.entities);
    ComponentScore {
        component: Component::Demand,
        points,
        max: Component::Demand.max(),
        confidence: if points.is_some() { (weight / p::DEMAND_FULL_CONFIDENCE).min(1.0) } else { 0.0 },
        evidence: evidence(&[
            ("qualifyingSettlements", d.settlements as f64),
            ("payers", f64::from(d.payers)),
            ("entities", f64::from(d.entities)),
            ("returningEntities", f64::from(d.repeat_entities)),
            ("activeDays30d", f64::from(d.active_days_30d_all)),
            ("trustedEntities", f64::from(d.trusted_entities)),
            ("weightedEntities", d.weighted_entities),
            ("trustMass", d.trust_mass),
            ("repeatRatio", d.repeat_ratio),
            ("unattributed", d.unattributed as f64),
            ("belowPrice", d.below_price as f64),
        ]),
    }
}

fn reputation(f: &SellerFeatures) -> ComponentScore {
    let r = &f.reputation;
    let rate = success_rate(f);
    let weight = r.review_weight + r.receipt_weight;
    ComponentScore {
        component: Component::Reputation,
        points: rate.map(|rate| 25.0 * rate),
        max: Component::Reputation.max(),
        confidence: (weight / p::REPUTATION_FULL_CONFIDENCE).min(1.0),
        evidence: evidence(&[
            ("reviewingEntities", f64::from(r.reviewing_entities)),
            ("reviewWeight", r.review_weight),
            ("unpaidFeedbackClients", f64::from(r.unpaid_feedback_clients)),
            ("receipts", f64::from(r.receipts)),
            ("receiptsMatched", f64::from(r.receipts_matched)),
            ("receiptWeight", r.receipt_weight),
        ]),
    }
}

fn reliability(f: &SellerFeatures) -> ComponentScore {
    let sla = &f.sla;
    let latency = sla.latency_p95_ms.map(|p95| {
        5.0 * ((p::LATENCY_ZERO_MS - f64::from(p95)) / (p::LATENCY_ZERO_MS - p::LATENCY_FULL_MS)).clamp(0.0, 1.0)
    });
    ComponentScore {
        component: Component::Reliability,
        points: sla.ok_rate().map(|rate| 15.0 * rate + latency.unwrap_or(0.0)),
        max: if latency.is_some() || sla.samples == 0 { 20.0 } else { 15.0 },
        confidence: (f64::from(sla.samples) / p::SLA_FULL_CONFIDENCE).min(1.0),
        evidence: evidence(&[
            ("probes", f64::from(sla.samples)),
            ("alive", f64::from(sla.ok)),
            ("latencyP95Ms", sla.latency_p95_ms.map_or(f64::NAN, f64::from)),
        ]),
    }
}

fn recency(f: &SellerFeatures) -> ComponentScore {
    let decay = |days: u32| (-f64::from(days) / p::RECENCY_DECAY_DAYS).exp();
    let trusted = f.demand.days_since_last_trusted.map(|d| 10.0 * decay(d));
    let any = f.demand.days_since_last.map(|d| p::UNANCHORED_RECENCY_MAX * decay(d));
    let points = match (trusted, any) {
        (Some(t), Some(a)) => Some(t.max(a)),
        (t, a) => t.or(a),
    };
    ComponentScore {
        component: Component::Recency,
        points,
        max: Component::Recency.max(),
        confidence: if points.is_some() { 1.0 } else { 0.0 },
        evidence: evidence(&[
            ("daysSinceLastTrustedSettlement", f.demand.days_since_last_trusted.map_or(f64::NAN, f64::from)),
            ("daysSinceLastSettlement", f.demand.days_since_last.map_or(f64::NAN, f64::from)),
        ]),
    }
}

fn longevity(f: &SellerFeatures) -> ComponentScore {
    let active = step(f.demand.active_days_30d, &[(21, 3.0), (10, 2.0), (5, 1.0)])
        .max(step(f.demand.active_days_30d_all, &[(21, 2.0), (10, 1.0)]));
    let points = step(f.age_days, &[(30, 3.0), (14, 2.0), (7, 1.0)])
        + active
        + step(f.tag_count, &[(5, 2.0), (2, 1.0)])
        + (f.proofs.len() as f64).min(2.0);
    ComponentScore {
        component: Component::Longevity,
        points: (f.listing_count > 0).then_some(points),
        max: Component::Longevity.max(),
        confidence: (f64::from(f.age_days) / p::AGE_FULL_CONFIDENCE_DAYS).min(1.0),
        evidence: evidence(&[
            ("ageDays", f64::from(f.age_days)),
            ("activeDays30d", f64::from(f.demand.active_days_30d)),
            ("tags", f64::from(f.tag_count)),
            ("proofTypes", f.proofs.len() as f64),
        ]),
    }
}

/// Computes the components of a seller's score given its raised flags.
pub fn score_seller(f: &SellerFeatures, flags: &[FlagHit]) -> ScoreBreakdown {
    let components = vec![demand(f), reputation(f), reliability(f), recency(f), longevity(f)];
    let confidence = components.iter().map(|c| c.component.max() * c.confidence).sum::<f64>() / 100.0;
    let mut missing_signals: Vec<String> = components
        .iter()
        .filter(|c| c.points.is_none())
        .map(|c| match c.component {
            Component::Demand | Component::Longevity => "listing".to_owned(),
            Component::Reputation => "paid-reviews-or-receipts".to_owned(),
            Component::Reliability => "probes".to_owned(),
            Component::Recency => "qualifying-settlement".to_owned(),
        })
        .collect();
    if f.demand.trusted_entities == 0 {
        missing_signals.push("trusted-demand".to_owned());
    }
    if f.sla.samples > 0 && f.sla.latency_p95_ms.is_none() {
        missing_signals.push("latency".to_owned());
    }
    // Nobody has paid this seller on agentrep's behalf lately (the paid probe is off, has not
    // reached it yet, or its price is over the probe's cap): whether it delivers after payment is
    // unverified. Information, never a warning.
    if f.paid_probes.paid == 0 {
        missing_signals.push("delivery-unverified".to_owned());
    }
    missing_signals.extend(f.stale_sources.iter().cloned());
    let penalty = flags.iter().map(|h| f64::from(h.def().penalty)).sum();
    ScoreBreakdown { components, penalty, confidence, missing_signals }
}

#[cfg(test)]
pub(crate) mod tests {
    use super::*;
    use crate::features::{DemandStats, ReputationStats, SlaStats};
    use crate::flags::evaluate_flags;

    pub(crate) fn strong_seller() -> SellerFeatures {
        SellerFeatures {
            listing_count: 1,
            tag_count: 5,
            age_days: 60,
            price_points: 1,
            demand: DemandStats {
                settlements: 4000,
                settlements_30d: 900,
                volume: 40_000_000,
                payers: 120,
                entities: 110,
                trusted_entities: 90,
                weighted_entities: 80.0,
                trust_mass: 30.0,
                repeat_ratio: 0.7,
                top_entity_share: 0.05,
                days_since_last_trusted: Some(0),
                active_days_30d: 30,
                exact_price_share: 0.9,
                ..Default::default()
            },
            sla: SlaStats {
                samples: 30,
                ok: 30,
                latency_p50_ms: Some(200),
                latency_p95_ms: Some(600),
                avg_latency_ms: Some(250),
                last_ok: Some(true),
                offers: 30,
                offer_mismatches: 0,
            },
            reputation: ReputationStats {
                feedback: 20,
                feedback_clients: 12,
                reviewing_entities: 12,
                review_weight: 12.0,
                review_sum: 10.8,
                trusted_reviewers: 12,
                ..Default::default()
            },
            paid_probes: crate::features::PaidProbeStats { paid: 2, delivered: 2, ..Default::default() },
            ..Default::default()
        }
    }

    #[test]
    fn components_stay_within_their_bounds() {
        let f = strong_seller();
        let b = score_seller(&f, &evaluate_flags(&f));
        for c in &b.components {
            let pts = c.points.expect("all evidence present");
            assert!(pts >= 0.0 && pts <= c.max + 1e-9, "{c:?}");
        }
        assert!(b.score().unwrap() >= 85, "strong seller scored {:?}", b.score());
        assert!(b.confidence > 0.9);
        assert!(b.missing_signals.is_empty(), "{:?}", b.missing_signals);
        let unprobed = SellerFeatures { paid_probes: Default::default(), ..f.clone() };
        let b = score_seller(&unprobed, &evaluate_flags(&unprobed));
        assert_eq!(b.missing_signals, ["delivery-unverified"], "no paid call reached it: delivery is unverified");
        assert_eq!(b.score(), score_seller(&f, &evaluate_flags(&f)).score(), "information, never a penalty");
    }

    #[test]
    fn null_is_never_zero_missing_components_are_left_out() {
        let mut f = strong_seller();
        f.reputation = ReputationStats::default();
        f.sla = SlaStats::default();
        let b = score_seller(&f, &[]);
        assert_eq!(b.points(Component::Reputation), None);
        assert_eq!(b.points(Component::Reliability), None);
        assert!(b.missing_signals.contains(&"paid-reviews-or-receipts".to_owned()));
        assert!(b.missing_signals.contains(&"probes".to_owned()));
        // Scored on what exists: demand, recency and longevity are strong, so the score stays high.
        assert!(b.score().unwrap() >= 85, "{:?}", b.score());
        assert!(b.confidence < 0.6, "missing evidence lowers confidence: {}", b.confidence);
    }

    #[test]
    fn a_lower_rating_never_raises_the_rate() {
        let mut f = strong_seller();
        let before = success_rate(&f).unwrap();
        f.reputation.review_weight += 1.0;
        f.reputation.review_sum += 0.1;
        assert!(success_rate(&f).unwrap() < before);
        assert_eq!(success_rate(&SellerFeatures::default()), None);
    }

    #[test]
    fn missing_latency_is_not_the_best_latency() {
        let mut f = strong_seller();
        f.sla.latency_p95_ms = None;
        let b = score_seller(&f, &[]);
        let r = b.components.iter().find(|c| c.component == Component::Reliability).unwrap();
        assert_eq!(r.max, 15.0, "reliability without latency is out of 15");
        assert!(b.missing_signals.contains(&"latency".to_owned()));
    }
}
