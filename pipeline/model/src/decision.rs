//! From score and flags to the trust shield's colour, the verdict, the preflight decision and the
//! attestation tier.

use serde::{Deserialize, Serialize};

use crate::features::{ProofType, SellerFeatures};
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
    /// Below this confidence the decision is at best `PROCEED_LOW_VALUE`.
    pub const PROCEED_MIN_CONFIDENCE: f64 = 0.5;
    /// Below this trust-weighted count of paying entities the decision is at best
    /// `PROCEED_LOW_VALUE`: full `PROCEED` needs several independent customers that trust
    /// reaches in full (the cost-to-fake floor rests on it, `SCORING.md` § 6).
    pub const PROCEED_MIN_WEIGHTED_ENTITIES: f64 = 3.0;
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
    /// 0..=1: how much evidence stands behind the score.
    pub confidence: f64,
    /// Signals with no evidence, and stale sources.
    pub missing_signals: Vec<String>,
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

/// What besides the score and flags bounds the decision.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct DecisionBasis {
    /// 0..=1 confidence of the score.
    pub confidence: f64,
    /// Trust-weighted paying entities.
    pub weighted_entities: f64,
    /// A non-required source is stale.
    pub stale_sources: bool,
}

/// The decision rule, in order: a critical flag or two high flags block; a degraded score, one
/// high flag or a score under [`params::CAUTION_BELOW`] cautions; a medium flag, a score under
/// [`params::PROCEED_FROM`], a confidence under [`params::PROCEED_MIN_CONFIDENCE`], fewer than
/// [`params::PROCEED_MIN_WEIGHTED_ENTITIES`] weighted paying entities or a stale source allows
/// low-value calls only; otherwise proceed.
pub fn decide(score: Option<u8>, flags: &[FlagHit], basis: DecisionBasis) -> Decision {
    let DecisionBasis { confidence, weighted_entities, stale_sources } = basis;
    let count = |s: Severity| flags.iter().filter(|h| h.severity == s).count();
    let (critical, high, medium) = (count(Severity::Critical), count(Severity::High), count(Severity::Medium));
    match score {
        _ if critical > 0 || high >= 2 => Decision::Block,
        None => Decision::Caution,
        _ if high == 1 => Decision::Caution,
        Some(s) if s < p::CAUTION_BELOW => Decision::Caution,
        Some(s)
            if medium > 0
                || s < p::PROCEED_FROM
                || confidence < p::PROCEED_MIN_CONFIDENCE
                || weighted_entities < p::PROCEED_MIN_WEIGHTED_ENTITIES
                || stale_sources =>
        {
            Decision::ProceedLowValue
        }
        Some(_) => Decision::Proceed,
    }
}

/// External verifiers: independent parties that vouch for the wallet. A Coinbase verification
/// (`cb1-verified`, behind a KYC), a curated allowlist, and each trusted paying entity whose
/// counted review rates the seller at least 70. Self-registered names (basename, ENS, Farcaster,
/// Virtuals) cost little and verify nobody, so they do not count.
pub fn external_verifiers(f: &SellerFeatures) -> u32 {
    u32::from(f.proofs.contains(&ProofType::Cb1Verified))
        + u32::from(f.allowlist_label.is_some())
        + f.reputation.trusted_reviewers
}

/// The tier from external verifiers; an attestation fresh for less than 24 hours lifts `indexed`
/// to `attested`.
pub fn tier(f: &SellerFeatures, fresh_attestation: bool) -> Tier {
    let verifiers = external_verifiers(f);
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
    let (score, basis) = match breakdown.score() {
        Some(s) if f.degraded_sources.is_empty() => (Some(s), ScoreBasis::Measured),
        _ => (None, ScoreBasis::Degraded),
    };
    let bounds = DecisionBasis {
        confidence: breakdown.confidence,
        weighted_entities: f.demand.weighted_entities,
        stale_sources: !f.stale_sources.is_empty(),
    };
    let decision = decide(score, &flags, bounds);
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
        confidence: breakdown.confidence,
        missing_signals: breakdown.missing_signals.clone(),
        breakdown,
        success_rate: success_rate(f),
        allowlist_label: f.allowlist_label.clone(),
        tier: tier(f, f.attested),
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

    fn healthy() -> SellerFeatures {
        crate::score::tests::strong_seller()
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
        let mut f = SellerFeatures { admin_path: true, ..healthy() };
        f.demand.self_payments = f.demand.settlements;
        assert_eq!(assess_seller(&f).decision, Decision::Block);
    }

    #[test]
    fn no_trusted_payer_cautions_and_thin_evidence_caps_at_low_value() {
        let mut f = healthy();
        f.demand.trusted_entities = 0;
        assert_eq!(assess_seller(&f).decision, Decision::Caution);
        let mut thin = healthy();
        thin.reputation = Default::default();
        thin.sla = Default::default();
        thin.demand.weighted_entities = 2.0;
        thin.demand.trusted_entities = 2;
        let a = assess_seller(&thin);
        assert!(a.confidence < params::PROCEED_MIN_CONFIDENCE, "{}", a.confidence);
        assert_eq!(a.decision, Decision::ProceedLowValue);
    }

    #[test]
    fn stale_sources_cap_the_decision() {
        let f = SellerFeatures { stale_sources: vec!["funding-stale".into()], ..healthy() };
        assert_eq!(assess_seller(&f).decision, Decision::ProceedLowValue);
    }

    #[test]
    fn cheap_names_are_not_verifiers() {
        let f = SellerFeatures { proofs: vec![ProofType::Basename, ProofType::Ens], ..healthy() };
        let mut f = f;
        f.reputation.trusted_reviewers = 0;
        assert_eq!(tier(&f, false), Tier::Indexed);
    }
}
