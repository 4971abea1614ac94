//! From score and flags to the trust shield's colour, the verdict, the preflight decision and the
//! attestation tier.

use crate::wire_name::display_as_wire_name;
use serde::{Deserialize, Serialize};

use crate::features::{ProofType, SellerFeatures};
use crate::flags::{FlagHit, Severity, evaluate_flags};
use crate::score::{ScoreBreakdown, score_seller, success_rate};

/// Decision thresholds; `SCORING.md` cites them by these names.
pub mod params {
    /// From this score, proven, with no medium or worse flag, the decision is `PROCEED`.
    pub const PROCEED_FROM: u8 = 45;
    /// External verifiers needed for `gold-verified`.
    pub const GOLD_VERIFIERS: u32 = 10;
    /// Trust-weighted paying entities that prove demand: several independent customers that
    /// trust reaches in full (the cost-to-fake floor of this proof rests on it, `SCORING.md` § 7).
    pub const PROCEED_MIN_WEIGHTED_ENTITIES: f64 = 3.0;
    /// A ranked domain proves standing up to this rank (1 = most visited).
    pub const DOMAIN_PROVEN_RANK: u32 = 100_000;
    /// Probes a `PROCEED` needs behind it (the endpoint is seen to answer).
    pub const PROCEED_MIN_PROBES: u32 = 3;
}

use params as p;

/// Colour of the trust shield.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
#[cfg_attr(feature = "schemars", derive(schemars::JsonSchema))]
#[serde(rename_all = "lowercase")]
pub enum ShieldColor {
    /// No risk of note.
    Green,
    /// Some risk or thin evidence.
    Yellow,
    /// Strong risk signal.
    Red,
}

impl ShieldColor {
    /// Every colour, lightest first.
    pub const ALL: [ShieldColor; 3] = [ShieldColor::Green, ShieldColor::Yellow, ShieldColor::Red];

    /// The colour whose wire name is `name`.
    pub fn named(name: &str) -> Option<Self> {
        Self::ALL.into_iter().find(|c| c.as_str() == name)
    }

    /// The wire name.
    pub fn as_str(self) -> &'static str {
        match self {
            ShieldColor::Green => "green",
            ShieldColor::Yellow => "yellow",
            ShieldColor::Red => "red",
        }
    }
}

/// The preflight decision a buyer acts on.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
#[cfg_attr(feature = "schemars", derive(schemars::JsonSchema))]
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

    /// The decision whose wire name is `name` (as published).
    pub fn named(name: &str) -> Option<Self> {
        Self::ALL.into_iter().find(|d| d.as_str() == name)
    }

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

/// The decision and shield colour of an address agentrep does not index as a seller: nothing
/// measured is not a low score, so `CAUTION` (yellow), or `BLOCK` (red) when a curated denylist
/// names it. Every read of an unindexed address answers this.
pub fn unindexed(denylisted: bool) -> (Decision, ShieldColor) {
    if denylisted { (Decision::Block, ShieldColor::Red) } else { (Decision::Caution, ShieldColor::Yellow) }
}

/// The score payload's verdict.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[cfg_attr(feature = "schemars", derive(schemars::JsonSchema))]
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
#[cfg_attr(feature = "schemars", derive(schemars::JsonSchema))]
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

impl Verdict {
    /// The wire name.
    pub fn as_str(self) -> &'static str {
        match self {
            Verdict::Safe => "SAFE",
            Verdict::Caution => "CAUTION",
            Verdict::Block => "BLOCK",
        }
    }
}

impl Tier {
    /// The wire name.
    pub fn as_str(self) -> &'static str {
        match self {
            Tier::Indexed => "indexed",
            Tier::Attested => "attested",
            Tier::SilverVerified => "silver-verified",
            Tier::GoldVerified => "gold-verified",
        }
    }
}

display_as_wire_name!(ShieldColor, Decision, Verdict, Tier);

/// Whether a score was measured (seed `score_basis`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[cfg_attr(feature = "schemars", derive(schemars::JsonSchema))]
#[serde(rename_all = "kebab-case")]
pub enum ScoreBasis {
    /// A number from a real snapshot row.
    Measured,
    /// The address is in no snapshot: `score: null`, not a low score.
    NotIndexed,
    /// A source failed: `score: null`, and the decision is at most `PROCEED_LOW_VALUE` unless
    /// evidence of risk says worse.
    Degraded,
}

impl ScoreBasis {
    /// The wire name.
    pub fn as_str(self) -> &'static str {
        match self {
            ScoreBasis::Measured => "measured",
            ScoreBasis::NotIndexed => "not-indexed",
            ScoreBasis::Degraded => "degraded",
        }
    }
}

display_as_wire_name!(ScoreBasis);

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
    /// What proves the seller; empty when its evidence is unproven.
    #[serde(default)]
    pub proven_by: Vec<Proof>,
}

impl Assessment {
    /// Whether something proves the seller (the leaderboard and `/match` rank proven sellers
    /// first, and only they can `PROCEED`).
    pub fn proven(&self) -> bool {
        !self.proven_by.is_empty()
    }

    /// [`Assessment::proven`], as payloads name it.
    pub fn evidence_tier(&self) -> EvidenceTier {
        if self.proven() { EvidenceTier::Proven } else { EvidenceTier::Unproven }
    }
}

/// Whether something costly to fake proves a seller (`proven_by`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[cfg_attr(feature = "schemars", derive(schemars::JsonSchema))]
#[serde(rename_all = "lowercase")]
pub enum EvidenceTier {
    /// A proof stands behind it.
    Proven,
    /// Nothing proves it.
    Unproven,
}

impl EvidenceTier {
    /// The wire name.
    pub fn as_str(self) -> &'static str {
        match self {
            EvidenceTier::Proven => "proven",
            EvidenceTier::Unproven => "unproven",
        }
    }
}

display_as_wire_name!(EvidenceTier);

fn color_of_flags(flags: &[FlagHit]) -> ShieldColor {
    match flags.iter().map(|h| h.severity).max() {
        Some(Severity::Critical | Severity::High) => ShieldColor::Red,
        Some(Severity::Medium) => ShieldColor::Yellow,
        _ => ShieldColor::Green,
    }
}

/// Evidence that a seller is what it claims, each piece costing more to fake than a `PROCEED`
/// earns (`SCORING.md` § 5 and § 7). A seller's own Coinbase verification is not one: a verified
/// account can be bought for less than that; it makes the seller established for its payers'
/// histories and counts toward its tier.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(tag = "kind", rename_all = "kebab-case")]
pub enum Proof {
    /// At least [`params::PROCEED_MIN_WEIGHTED_ENTITIES`] trust-weighted paying entities.
    TrustedDemand {
        /// Weighted entities, two decimals.
        weighted_entities_hundredths: u32,
    },
    /// The wallet's offers are served from a domain ranked within [`params::DOMAIN_PROVEN_RANK`].
    RankedDomain {
        /// The registrable domain.
        domain: String,
        /// Its rank.
        rank: u32,
    },
    /// A curated allowlist entry.
    Allowlisted,
}

impl Proof {
    /// In words, for payloads (`provenBy`).
    pub fn describe(&self) -> String {
        match self {
            Proof::TrustedDemand { weighted_entities_hundredths } => {
                format!(
                    "trusted-demand: {:.2} weighted paying entities",
                    f64::from(*weighted_entities_hundredths) / 100.0
                )
            }
            Proof::RankedDomain { domain, rank } => format!("ranked-domain: {domain} (#{rank}) names this wallet"),
            Proof::Allowlisted => "allowlisted".to_owned(),
        }
    }
}

/// What proves the seller, strongest first; empty when nothing does (its evidence is then
/// counted but unproven, which by itself is never a warning).
pub fn proofs(f: &SellerFeatures) -> Vec<Proof> {
    let mut out = Vec::new();
    if f.allowlist_label.is_some() {
        out.push(Proof::Allowlisted);
    }
    if let Some(d) = f.domain.as_ref().filter(|d| d.rank <= p::DOMAIN_PROVEN_RANK && d.matching_offers > 0) {
        out.push(Proof::RankedDomain { domain: d.domain.clone(), rank: d.rank });
    }
    if f.demand.weighted_entities >= p::PROCEED_MIN_WEIGHTED_ENTITIES {
        out.push(Proof::TrustedDemand {
            weighted_entities_hundredths: (f.demand.weighted_entities * 100.0).round() as u32,
        });
    }
    out
}

/// What besides the score and flags bounds the decision.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct DecisionBasis {
    /// Something proves the seller ([`proofs`] is not empty).
    pub proven: bool,
    /// Probes taken in the window.
    pub probes: u32,
    /// The most recent probe found the endpoint alive.
    pub last_probe_alive: bool,
    /// A non-required source is stale.
    pub stale_sources: bool,
}

/// The decision rule (`SCORING.md` § 5). A warning needs evidence; absence of proof alone gives
/// at most `PROCEED_LOW_VALUE`:
/// - `BLOCK`: evidence of harm: a critical flag, or two high flags;
/// - `CAUTION`: evidence of risk: one high flag;
/// - `PROCEED`: proven, with a score of at least [`params::PROCEED_FROM`], no medium flag,
///   at least [`params::PROCEED_MIN_PROBES`] probes, the last of them alive, and no stale source;
/// - `PROCEED_LOW_VALUE` otherwise (nothing wrong seen, not proven), a degraded score included.
///
/// Flags of origin `absence` and `outsider` are never above `low`, so they cannot move it.
pub fn decide(score: Option<u8>, flags: &[FlagHit], basis: DecisionBasis) -> Decision {
    let DecisionBasis { proven, probes, last_probe_alive, stale_sources } = basis;
    let count = |s: Severity| flags.iter().filter(|h| h.severity == s).count();
    let (critical, high, medium) = (count(Severity::Critical), count(Severity::High), count(Severity::Medium));
    if critical > 0 || high >= 2 {
        return Decision::Block;
    }
    if high == 1 {
        return Decision::Caution;
    }
    match score {
        Some(s)
            if proven
                && s >= p::PROCEED_FROM
                && medium == 0
                && probes >= p::PROCEED_MIN_PROBES
                && last_probe_alive
                && !stale_sources =>
        {
            Decision::Proceed
        }
        _ => Decision::ProceedLowValue,
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
    let proven_by = proofs(f);
    let bounds = DecisionBasis {
        proven: !proven_by.is_empty(),
        probes: f.sla.samples,
        last_probe_alive: f.sla.last_ok == Some(true),
        stale_sources: !f.stale_sources.is_empty(),
    };
    let decision = decide(score, &flags, bounds);
    // The colour follows the evidence, never the score alone: a low score from thin evidence is
    // yellow (not proven), not red (a warning).
    let color = match decision {
        Decision::Block | Decision::Caution => ShieldColor::Red,
        Decision::ProceedLowValue => color_of_flags(&flags).max(ShieldColor::Yellow),
        Decision::Proceed => color_of_flags(&flags),
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
        proven_by,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The closed sets travel to the wire as themselves (serde) and print as `as_str`: the two
    /// names must be one.
    #[test]
    fn wire_names_are_the_serde_names() {
        fn same<T: Serialize + std::fmt::Display>(values: &[T]) {
            for v in values {
                assert_eq!(serde_json::to_value(v).unwrap(), v.to_string(), "{v}");
            }
        }
        same(&ShieldColor::ALL);
        same(&Decision::ALL);
        same(&[Verdict::Safe, Verdict::Caution, Verdict::Block]);
        same(&[Tier::Indexed, Tier::Attested, Tier::SilverVerified, Tier::GoldVerified]);
        same(&crate::DeployerVerdict::ALL);
        same(&crate::deployer::LaunchOutcome::ALL);
        same(&[ScoreBasis::Measured, ScoreBasis::NotIndexed, ScoreBasis::Degraded]);
        same(&[EvidenceTier::Proven, EvidenceTier::Unproven]);
        use crate::Severity as S;
        same(&[S::Positive, S::Info, S::Low, S::Medium, S::High, S::Critical]);
    }

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
    fn a_degraded_score_is_unproven_not_a_warning() {
        let f = SellerFeatures { degraded_sources: vec!["settlements-stale".into()], ..healthy() };
        let a = assess_seller(&f);
        assert_eq!(a.score, None);
        assert_eq!(a.basis, ScoreBasis::Degraded);
        assert_eq!(a.decision, Decision::ProceedLowValue);
        let f = SellerFeatures { admin_path: true, ..f };
        assert_eq!(assess_seller(&f).decision, Decision::Caution, "evidence of risk still warns");
    }

    #[test]
    fn two_high_flags_block() {
        let mut f = SellerFeatures { admin_path: true, ..healthy() };
        f.demand.self_payments = f.demand.settlements;
        assert_eq!(assess_seller(&f).decision, Decision::Block);
    }

    #[test]
    fn unproven_demand_is_low_value_and_a_ranked_domain_proves_it() {
        let mut f = healthy();
        f.demand.trusted_entities = 0;
        f.demand.weighted_entities = 0.0;
        f.demand.days_since_last_trusted = None;
        let a = assess_seller(&f);
        assert_eq!(a.decision, Decision::ProceedLowValue, "{a:?}");
        assert_eq!(a.color, ShieldColor::Yellow);
        assert!(!a.proven());
        f.domain = Some(crate::DomainStanding {
            domain: "example.com".into(),
            rank: 5_000,
            list: "tranco 2026-11-20".into(),
            matching_offers: 4,
        });
        let a = assess_seller(&f);
        assert_eq!(a.decision, Decision::Proceed, "{a:?}");
        assert_eq!(a.proven_by, vec![Proof::RankedDomain { domain: "example.com".into(), rank: 5_000 }]);
        // A domain whose offers never named the wallet, or ranked too low, proves nothing.
        f.domain.as_mut().unwrap().matching_offers = 0;
        assert_eq!(assess_seller(&f).decision, Decision::ProceedLowValue);
        f.domain = Some(crate::DomainStanding {
            matching_offers: 3,
            rank: params::DOMAIN_PROVEN_RANK + 1,
            ..f.domain.clone().unwrap()
        });
        assert_eq!(assess_seller(&f).decision, Decision::ProceedLowValue);
    }

    #[test]
    fn paid_calls_that_delivered_nothing_on_two_days_caution_and_mostly_block() {
        let mut f = healthy();
        let stats = |paid, delivered, undelivered, undelivered_days| crate::PaidProbeStats {
            paid,
            delivered,
            undelivered,
            undelivered_days,
            ..crate::PaidProbeStats::default()
        };
        f.paid_probes = stats(3, 2, 1, 1);
        assert_eq!(assess_seller(&f).decision, Decision::Proceed, "one failed call among good ones is an accident");
        f.paid_probes = stats(1, 0, 1, 1);
        assert_eq!(assess_seller(&f).decision, Decision::Proceed, "one day proves no pattern");
        f.paid_probes = stats(2, 0, 2, 1);
        assert_eq!(assess_seller(&f).decision, Decision::Proceed, "two failures on one day are one bad day");
        f.paid_probes = stats(5, 3, 2, 2);
        assert_eq!(assess_seller(&f).decision, Decision::Caution);
        f.paid_probes = stats(3, 1, 2, 2);
        assert_eq!(assess_seller(&f).decision, Decision::Block);
        // A call that failed without the money moving harms nobody, nor one that showed nothing.
        f.paid_probes =
            crate::PaidProbeStats { paid: 6, delivered: 2, unpaid_failures: 3, inconclusive: 4, ..stats(0, 0, 0, 0) };
        assert_eq!(assess_seller(&f).decision, Decision::Proceed);
    }

    #[test]
    fn only_answers_that_show_non_delivery_are_non_delivery() {
        use crate::PaidCallOutcome::{Delivered, Inconclusive, NotDelivered};
        let cases = [
            (Some(200), 10, Delivered),
            (Some(201), 1, Delivered),
            (Some(200), 0, NotDelivered),
            (Some(402), 0, NotDelivered),
            (Some(500), 20, NotDelivered),
            (Some(503), 0, NotDelivered),
            (Some(204), 0, Inconclusive),
            (Some(302), 0, Inconclusive),
            (Some(400), 5, Inconclusive),
            (Some(404), 5, Inconclusive),
            (Some(405), 5, Inconclusive),
            (Some(429), 5, Inconclusive),
            (None, 0, Inconclusive),
        ];
        for (status, body, outcome) in cases {
            assert_eq!(crate::PaidCallOutcome::of(status, body), outcome, "{status:?} with {body} bytes");
        }
    }

    /// A deterministic generator of seller features, for the absence property.
    fn random_features(state: &mut u64) -> SellerFeatures {
        let mut next = |n: u64| {
            *state = state.wrapping_mul(6364136223846793005).wrapping_add(1442695040888963407);
            (*state >> 33) % n.max(1)
        };
        let mut f =
            SellerFeatures { listing_count: 1 + next(3) as u32, age_days: next(90) as u32, ..Default::default() };
        let d = &mut f.demand;
        d.settlements = next(500);
        d.payers = next(60) as u32;
        d.entities = d.payers.min(next(60) as u32);
        d.repeat_entities = d.entities.min(next(20) as u32);
        d.trusted_entities = d.entities.min(next(8) as u32);
        d.weighted_entities = f64::from(d.trusted_entities) * (next(100) as f64 / 100.0);
        d.trust_mass = next(20) as f64;
        d.repeat_ratio = next(100) as f64 / 100.0;
        d.active_days_30d_all = next(31) as u32;
        d.active_days_30d = d.active_days_30d_all.min(next(31) as u32);
        d.days_since_last = (next(2) == 1).then(|| next(40) as u32);
        d.days_since_last_trusted = (d.trusted_entities > 0).then(|| next(40) as u32);
        d.volume = next(100_000_000);
        f.sla.samples = next(20) as u32;
        f.sla.ok = f.sla.samples.min(next(20) as u32);
        f.reputation.review_weight = next(5) as f64;
        f.reputation.review_sum = f.reputation.review_weight * (next(100) as f64 / 100.0);
        f.reputation.reviewing_entities = next(6) as u32;
        if next(3) == 0 {
            f.proofs.push(ProofType::Cb1Verified);
        }
        if next(3) == 0 {
            f.domain = Some(crate::DomainStanding {
                domain: "d.com".into(),
                rank: next(300_000) as u32 + 1,
                list: "l".into(),
                matching_offers: next(5) as u32,
            });
        }
        f
    }

    /// The absence rule as a property: take away any positive evidence from a seller with no
    /// evidence of risk, and its decision never falls below `PROCEED_LOW_VALUE`.
    #[test]
    fn removing_positive_evidence_never_warns() {
        let mut state = 0x5eed;
        let strip: [fn(&mut SellerFeatures); 8] = [
            |f| f.demand = Default::default(),
            |f| {
                f.demand.trusted_entities = 0;
                f.demand.weighted_entities = 0.0;
                f.demand.days_since_last_trusted = None;
            },
            |f| f.sla = Default::default(),
            |f| f.reputation = Default::default(),
            |f| f.proofs.clear(),
            |f| f.domain = None,
            |f| f.age_days = 0,
            |f| f.listing_count = 1,
        ];
        for _ in 0..2_000 {
            let f = random_features(&mut state);
            let evidence_of_risk = evaluate_flags(&f).iter().any(|h| h.severity >= Severity::High);
            let before = assess_seller(&f).decision;
            assert_eq!(evidence_of_risk, before < Decision::ProceedLowValue, "{f:?}");
            let mut g = f.clone();
            for (i, cut) in strip.iter().enumerate() {
                let mut h = f.clone();
                cut(&mut h);
                cut(&mut g);
                for stripped in [&h, &g] {
                    let risk = evaluate_flags(stripped).iter().any(|x| x.severity >= Severity::High);
                    if !risk {
                        let after = assess_seller(stripped).decision;
                        assert!(after >= Decision::ProceedLowValue, "cut {i} warned: {stripped:?}");
                    }
                }
            }
        }
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
