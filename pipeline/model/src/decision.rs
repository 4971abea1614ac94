//! From score and flags to the trust shield's colour, the verdict, the preflight decision and the
//! attestation tier.

use serde::{Deserialize, Serialize};

use crate::features::SellerFeatures;
use crate::flags::{FlagHit, Severity, evaluate_flags};
use crate::score::{ScoreBreakdown, score_seller, success_rate};

/// Decision thresholds; `SCORING.md` cites them by these names.
pub mod params {
    /// Below this score the decision is at best `CAUTION`.
    pub const CAUTION_BELOW: u8 = 30;
    /// From this score, with no medium or worse flag, the decision is `PROCEED`.
    pub const PROCEED_FROM: u8 = 50;
    /// Below this score the shield is red.
    pub const RED_BELOW: u8 = 20;
    /// Below this score the shield is at best yellow.
    pub const YELLOW_BELOW: u8 = 40;
    /// External verifiers needed for `gold-verified`.
    pub const GOLD_VERIFIERS: u32 = 10;
}

use params as p;

/// Colour of the trust shield.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum ShieldColor {
    /// No risk of note.
    Green,
    /// Some risk or thin evidence.
    Yellow,
    /// Strong risk signal.
    Red,
}

/// The preflight decision a buyer acts on.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
#[serde(rename_all = "SCREAMING_SNAKE_CASE")]
pub enum Decision {
    /// Do not pay.
    Block,
    /// Pay only after looking closer.
    Caution,
    /// Pay, but only small amounts.
    ProceedLowValue,
    /// Pay.
    Proceed,
}

impl Decision {
    /// Every decision, worst first.
    pub const ALL: [Decision; 4] = [Decision::Block, Decision::Caution, Decision::ProceedLowValue, Decision::Proceed];

    /// The wire name.
    pub fn as_str(self) -> &'static str {
        match self {
            Decision::Block => "BLOCK",
            Decision::Caution => "CAUTION",
            Decision::ProceedLowValue => "PROCEED_LOW_VALUE",
            Decision::Proceed => "PROCEED",
        }
    }
}

/// The score payload's verdict.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "SCREAMING_SNAKE_CASE")]
pub enum Verdict {
    /// `PROCEED` or `PROCEED_LOW_VALUE`.
    Safe,
    /// `CAUTION`.
    Caution,
    /// `BLOCK`.
    Block,
}

/// Attestation tier (seed §2.7).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum Tier {
    /// In the snapshot, no attestation.
    Indexed,
    /// An EIP-712 attestation younger than 24 hours exists.
    Attested,
    /// One or more external parties verified it.
    SilverVerified,
    /// Ten or more external parties verified it.
    GoldVerified,
}

/// Whether a score was measured (seed `score_basis`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum ScoreBasis {
    /// A number from a real snapshot row.
    Measured,
    /// The address is in no snapshot: `score: null`, not a low score.
    NotIndexed,
    /// A source failed: `score: null`, and the decision fails closed.
    Degraded,
}

/// Everything the model says about one seller.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Assessment {
    /// Score 0..=100, `None` when a source failed.
    pub score: Option<u8>,
    /// Measured or degraded.
    pub basis: ScoreBasis,
    /// The score's components.
    pub breakdown: ScoreBreakdown,
    /// Raised flags, in table order.
    pub flags: Vec<FlagHit>,
    /// Shield colour.
    pub color: ShieldColor,
    /// Preflight decision.
    pub decision: Decision,
    /// Score verdict.
    pub verdict: Verdict,
    /// Attestation tier.
    pub tier: Tier,
    /// `<severity>:<key>` of the weightiest flag.
    pub reason_short: String,
    /// The weightiest flag's explainer.
    pub explainer: String,
    /// Shown success rate, if there is enough evidence.
    pub success_rate: Option<f64>,
    /// Label of the allowlist entry, when allowlisted.
    pub allowlist_label: Option<String>,
}

fn color_of_score(score: u8) -> ShieldColor {
    if score < p::RED_BELOW {
        ShieldColor::Red
    } else if score < p::YELLOW_BELOW {
        ShieldColor::Yellow
    } else {
        ShieldColor::Green
    }
}

fn color_of_flags(flags: &[FlagHit]) -> ShieldColor {
    match flags.iter().map(|h| h.severity).max() {
        Some(Severity::Critical | Severity::High) => ShieldColor::Red,
        Some(Severity::Medium) => ShieldColor::Yellow,
        _ => ShieldColor::Green,
    }
}

/// The decision rule, in order: a critical flag or two high flags block; one high flag or a score
/// under [`params::CAUTION_BELOW`] cautions; a medium flag or a score under
/// [`params::PROCEED_FROM`] allows low-value calls only; otherwise proceed.
pub fn decide(score: Option<u8>, flags: &[FlagHit]) -> Decision {
    let count = |s: Severity| flags.iter().filter(|h| h.severity == s).count();
    let (critical, high, medium) = (count(Severity::Critical), count(Severity::High), count(Severity::Medium));
    match score {
        _ if critical > 0 || high >= 2 => Decision::Block,
        None => Decision::Caution,
        _ if high == 1 => Decision::Caution,
        Some(s) if s < p::CAUTION_BELOW => Decision::Caution,
        Some(s) if medium > 0 || s < p::PROCEED_FROM => Decision::ProceedLowValue,
        Some(_) => Decision::Proceed,
    }
}

/// The tier from external verifiers (distinct proof types plus paying feedback clients); an
/// attestation fresh for less than 24 hours lifts `indexed` to `attested`.
pub fn tier(f: &SellerFeatures, fresh_attestation: bool) -> Tier {
    let verifiers = f.proofs.len() as u32 + f.paid_feedback_clients;
    if verifiers >= p::GOLD_VERIFIERS {
        Tier::GoldVerified
    } else if verifiers >= 1 {
        Tier::SilverVerified
    } else if fresh_attestation {
        Tier::Attested
    } else {
        Tier::Indexed
    }
}

/// Assesses one seller: flags, score, shield, decision, verdict and tier.
pub fn assess_seller(f: &SellerFeatures) -> Assessment {
    let flags = evaluate_flags(f);
    let breakdown = score_seller(f, &flags);
    let (score, basis) = if f.degraded_sources.is_empty() {
        (Some(breakdown.score()), ScoreBasis::Measured)
    } else {
        (None, ScoreBasis::Degraded)
    };
    let decision = decide(score, &flags);
    let color = match (decision, score) {
        (Decision::Block, _) => ShieldColor::Red,
        (_, Some(s)) => color_of_flags(&flags).max(color_of_score(s)),
        (_, None) => color_of_flags(&flags).max(ShieldColor::Yellow),
    };
    let verdict = match decision {
        Decision::Block => Verdict::Block,
        Decision::Caution => Verdict::Caution,
        Decision::ProceedLowValue | Decision::Proceed => Verdict::Safe,
    };
    let worst = flags.iter().filter(|h| h.severity > Severity::Info).max_by_key(|h| h.severity);
    let lead = worst.or_else(|| flags.iter().find(|h| h.severity == Severity::Positive));
    let (reason_short, explainer) = match lead {
        Some(h) => (format!("{}:{}", h.severity.as_str(), h.key.as_str()), h.def().explainer.to_owned()),
        None => ("info:no-flags".to_owned(), "No risk flags raised.".to_owned()),
    };
    Assessment {
        score,
        basis,
        breakdown,
        success_rate: success_rate(f).map(|(rate, _)| rate),
        allowlist_label: f.allowlist_label.clone(),
        tier: tier(f, false),
        flags,
        color,
        decision,
        verdict,
        reason_short,
        explainer,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::features::SlaStats;

    fn healthy() -> SellerFeatures {
        SellerFeatures {
            listing_count: 1,
            age_days: 40,
            settlements: 500,
            settlements_30d: 300,
            distinct_payers: 40,
            repeat_payer_ratio: 0.5,
            top_payer_share: 0.1,
            days_since_last_settlement: Some(1),
            active_days_30d: 25,
            proofs: vec![crate::ProofType::Basename],
            sla: SlaStats {
                samples: 20,
                ok: 20,
                latency_p50_ms: 100,
                latency_p95_ms: 400,
                avg_latency_ms: 150,
                last_ok: Some(true),
            },
            ..Default::default()
        }
    }

    #[test]
    fn denylisted_blocks_whatever_the_score() {
        let f = SellerFeatures { denylisted: true, ..healthy() };
        let a = assess_seller(&f);
        assert_eq!(a.decision, Decision::Block);
        assert_eq!(a.color, ShieldColor::Red);
        assert_eq!(a.reason_short, "critical:denylisted");
    }

    #[test]
    fn healthy_seller_proceeds_green() {
        let a = assess_seller(&healthy());
        assert_eq!(a.decision, Decision::Proceed, "{a:?}");
        assert_eq!(a.color, ShieldColor::Green);
        assert_eq!(a.verdict, Verdict::Safe);
    }

    #[test]
    fn degraded_sources_give_no_score_and_fail_closed() {
        let f = SellerFeatures { degraded_sources: vec!["reputation-unreadable".into()], ..healthy() };
        let a = assess_seller(&f);
        assert_eq!(a.score, None);
        assert_eq!(a.basis, ScoreBasis::Degraded);
        assert_eq!(a.decision, Decision::Caution);
    }

    #[test]
    fn two_high_flags_block() {
        let f = SellerFeatures { admin_path: true, self_payments: 3, ..healthy() };
        assert_eq!(assess_seller(&f).decision, Decision::Block);
    }
}
