//! The trust-provider answer (x402 trust-provider drafts 0.1 and 02): how agentrep's own decisions
//! and evidence become `PASS` / `FAIL` / `UNCERTAIN`, in both directions. `SCORING.md` § 5e is the
//! prose form of this file; its tables are [`SELLER_DECISIONS`] and [`Origin::evidence_class`].
//!
//! Two rules bind every answer:
//! - **a `FAIL` rests on curated or behavioral evidence** (the drafts' block rule and invariant 11):
//!   a `BLOCK` whose weighty flags are all community evidence (receipts, reviews) is `UNCERTAIN`;
//! - **no score from nothing**: a wallet the snapshot does not know is `score: null` with
//!   `unknown_subject`, never a low number (invariant 4).

use serde::{Deserialize, Serialize};

use crate::MicroUsdc;
use crate::decision::Decision;
use crate::flags::{FlagKey, Origin, Severity};

/// The answer a trust provider gives.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
#[cfg_attr(feature = "schemars", derive(schemars::JsonSchema))]
#[serde(rename_all = "SCREAMING_SNAKE_CASE")]
pub enum TrustDecision {
    /// Not in good standing: do not settle (a client applies its aggregation policy).
    Fail,
    /// Not enough to say either way, or above what the evidence covers: the client's policy decides.
    Uncertain,
    /// In good standing for this payment.
    Pass,
}

impl TrustDecision {
    /// Every decision, worst first.
    pub const ALL: [TrustDecision; 3] = [TrustDecision::Fail, TrustDecision::Uncertain, TrustDecision::Pass];

    /// The wire name.
    pub fn as_str(self) -> &'static str {
        match self {
            TrustDecision::Fail => "FAIL",
            TrustDecision::Uncertain => "UNCERTAIN",
            TrustDecision::Pass => "PASS",
        }
    }
}

/// What kind of evidence a basis entry is (draft-02's `basis[].class`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
#[cfg_attr(feature = "schemars", derive(schemars::JsonSchema))]
#[serde(rename_all = "lowercase")]
pub enum EvidenceClass {
    /// The operator's lists: denylists, allowlists.
    Curated,
    /// What wallets and endpoints did: settlements, listings, probes, agentrep's own paid calls.
    Behavioral,
    /// What others said: ERC-8004 feedback, delivery receipts.
    Community,
    /// Proofs and attestations: identity proofs, signed attestations.
    Attested,
}

impl EvidenceClass {
    /// Every class, in the drafts' order.
    pub const ALL: [EvidenceClass; 4] =
        [EvidenceClass::Curated, EvidenceClass::Behavioral, EvidenceClass::Community, EvidenceClass::Attested];

    /// Whether a `FAIL` may rest on it.
    pub fn can_fail(self) -> bool {
        matches!(self, EvidenceClass::Curated | EvidenceClass::Behavioral)
    }

    /// The wire name.
    pub fn as_str(self) -> &'static str {
        match self {
            EvidenceClass::Curated => "curated",
            EvidenceClass::Behavioral => "behavioral",
            EvidenceClass::Community => "community",
            EvidenceClass::Attested => "attested",
        }
    }
}

impl Origin {
    /// The evidence class of a flag of this origin: the operator's lists are curated; the seller's
    /// own acts, agentrep's probes and paid calls, and transfers are behavioral; what trusted paying
    /// entities report (receipts, reviews) is community.
    pub fn evidence_class(self) -> EvidenceClass {
        match self {
            Origin::External => EvidenceClass::Curated,
            Origin::Seller | Origin::Probe | Origin::Oracle | Origin::Absence | Origin::Outsider => {
                EvidenceClass::Behavioral
            }
            Origin::TrustedPayers => EvidenceClass::Community,
        }
    }
}

/// Why a trust answer has no score (draft-02's `null_reason`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[cfg_attr(feature = "schemars", derive(schemars::JsonSchema))]
#[serde(rename_all = "snake_case")]
pub enum NullReason {
    /// The snapshot does not know the wallet (or the query names none agentrep can read).
    UnknownSubject,
    /// The wallet is known, but its evidence measures nothing (a degraded source, no payments).
    InsufficientSignal,
    /// The subject is on a chain agentrep does not score.
    UnsupportedChain,
}

/// Why the answer is what it is (`reason_code`): one closed set for both directions.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[cfg_attr(feature = "schemars", derive(schemars::JsonSchema))]
#[serde(rename_all = "snake_case")]
pub enum ReasonCode {
    /// `PROCEED`: proven, scored, nothing wrong seen.
    Proceed,
    /// `PROCEED_LOW_VALUE` and an amount within [`LOW_VALUE_CAP`].
    LowValueWithinCap,
    /// `PROCEED_LOW_VALUE` and an amount above [`LOW_VALUE_CAP`].
    LowValueAboveCap,
    /// `PROCEED_LOW_VALUE` and no amount (or one in an asset agentrep cannot price) in the query.
    LowValueAmountUnknown,
    /// `CAUTION`: one strong warning.
    Caution,
    /// `BLOCK` on curated or behavioral evidence.
    Block,
    /// `BLOCK` whose weighty flags are all community evidence: at most `UNCERTAIN`.
    BlockOnCommunityEvidence,
    /// On a denylist.
    Denylisted,
    /// The 402 given is a decoy or a price trap (the URL preflight's `block` warnings).
    OfferRefused,
    /// The URL preflight questions the 402 given (a `caution` warning: an unlisted network, no offer).
    OfferQuestioned,
    /// A payer with qualifying payments to listed sellers and nothing against it.
    PayerInGoodStanding,
    /// A wallet known only as a funder or a listed address: nothing it paid to judge it by.
    PayerWithoutPayments,
    /// The snapshot does not know the wallet.
    UnknownSubject,
    /// The subject is on a chain agentrep does not score.
    UnsupportedChain,
}

/// The most a client may pay a `PROCEED_LOW_VALUE` seller and get `PASS`: 1 USDC, the official
/// x402 clients' default cap per payment. Below it, a trust answer changes nothing the client
/// would not do unasked; above it, only a proven seller (`PROCEED`) passes.
pub const LOW_VALUE_CAP: MicroUsdc = 1_000_000;

/// How agentrep's seller decision becomes a trust decision: one row per decision.
#[derive(Debug, Clone, Copy)]
pub struct SellerDecisionRow {
    /// agentrep's decision.
    pub decision: Decision,
    /// The trust decision.
    pub answer: SellerAnswer,
    /// The rule, in words, as `SCORING.md` § 5e prints it.
    pub rule: &'static str,
}

/// The trust decision a row gives.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum SellerAnswer {
    /// Always this decision.
    Always(TrustDecision, ReasonCode),
    /// `PASS` within [`LOW_VALUE_CAP`], `UNCERTAIN` above it or without an amount.
    WithinLowValueCap,
    /// `FAIL` when a weighty flag is curated or behavioral evidence, else `UNCERTAIN`.
    FailOnHardEvidence,
}

/// The seller direction's table.
pub const SELLER_DECISIONS: &[SellerDecisionRow] = &[
    SellerDecisionRow {
        decision: Decision::Proceed,
        answer: SellerAnswer::Always(TrustDecision::Pass, ReasonCode::Proceed),
        rule: "`PASS`",
    },
    SellerDecisionRow {
        decision: Decision::ProceedLowValue,
        answer: SellerAnswer::WithinLowValueCap,
        rule: "`PASS` when the query's amount is at most `LOW_VALUE_CAP` = 1 USDC; `UNCERTAIN` above it, or when the query gives no amount in USDC",
    },
    SellerDecisionRow {
        decision: Decision::Caution,
        answer: SellerAnswer::Always(TrustDecision::Uncertain, ReasonCode::Caution),
        rule: "`UNCERTAIN`: one strong warning is for the client's policy to weigh, not a block",
    },
    SellerDecisionRow {
        decision: Decision::Block,
        answer: SellerAnswer::FailOnHardEvidence,
        rule: "`FAIL` when a `critical` or `high` flag is curated or behavioral evidence; `UNCERTAIN` when they are all community evidence",
    },
];

/// The seller direction: agentrep's decision for the payee, its raised flags, and the amount the
/// query is about (micro-USDC; `None` when it gives none in USDC).
pub fn seller_answer(decision: Decision, flags: &[FlagKey], amount: Option<MicroUsdc>) -> (TrustDecision, ReasonCode) {
    let row = SELLER_DECISIONS.iter().find(|r| r.decision == decision).expect("every decision has a row");
    match row.answer {
        SellerAnswer::Always(d, r) => (d, r),
        SellerAnswer::WithinLowValueCap => match amount {
            Some(a) if a <= LOW_VALUE_CAP => (TrustDecision::Pass, ReasonCode::LowValueWithinCap),
            Some(_) => (TrustDecision::Uncertain, ReasonCode::LowValueAboveCap),
            None => (TrustDecision::Uncertain, ReasonCode::LowValueAmountUnknown),
        },
        SellerAnswer::FailOnHardEvidence => {
            if flags.contains(&FlagKey::Denylisted) {
                (TrustDecision::Fail, ReasonCode::Denylisted)
            } else if flags.iter().any(|k| is_weighty(*k) && origin_can_fail(FlagKey::def(*k).origin)) {
                (TrustDecision::Fail, ReasonCode::Block)
            } else {
                (TrustDecision::Uncertain, ReasonCode::BlockOnCommunityEvidence)
            }
        }
    }
}

/// Whether a `FAIL` may rest on a flag of this origin: curated or behavioral evidence, and not
/// evidence an outsider can create or the absence of evidence (those flags are never above `low`
/// anyway, `SCORING.md` § 4; this keeps the rule even if one were).
pub fn origin_can_fail(origin: Origin) -> bool {
    origin.evidence_class().can_fail() && !matches!(origin, Origin::Absence | Origin::Outsider)
}

/// Whether a flag can move a decision to `CAUTION` or `BLOCK`.
pub fn is_weighty(key: FlagKey) -> bool {
    FlagKey::def(key).severity >= Severity::High
}

/// What the snapshot knows of a wallet as a payer: its qualifying payments to listed sellers
/// (the rebuild's attribution, `SCORING.md` § 1) and the lists.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct PayerFacts {
    /// Qualifying settlements it paid.
    pub payments: u64,
    /// Distinct sellers it paid.
    pub sellers_paid: u32,
    /// Qualifying volume it paid, micro-USDC.
    pub spent: MicroUsdc,
    /// On a denylist the operator configured.
    pub denylisted: bool,
    /// Days from its first qualifying payment to its last, both counted (0: it paid nothing).
    pub paying_days: u32,
}

/// Spend at which the payer score's volume part is full: 100 USDC.
pub const PAYER_FULL_SPEND: MicroUsdc = 100_000_000;
/// Distinct sellers at which the payer score's breadth part is full.
pub const PAYER_FULL_SELLERS: u32 = 5;
/// Qualifying settlements at which the payer score's repeat part is full.
pub const PAYER_FULL_PAYMENTS: u64 = 50;
/// Days of paying (first to last qualifying payment) at which the payer score's tenure part is full.
pub const PAYER_FULL_DAYS: u32 = 90;

/// The payer direction, for a wallet the snapshot knows: `FAIL` only on a denylist (curated);
/// otherwise `PASS` with a score when it paid listed sellers, `UNCERTAIN` with no score when it
/// paid none. Nothing a stranger can do to the wallet (send it funds, fund it, review it) is an
/// input, so nothing a stranger does lowers it.
pub fn payer_answer(f: &PayerFacts) -> (TrustDecision, ReasonCode, Option<f64>) {
    if f.denylisted {
        return (TrustDecision::Fail, ReasonCode::Denylisted, Some(0.0));
    }
    if f.payments == 0 {
        return (TrustDecision::Uncertain, ReasonCode::PayerWithoutPayments, None);
    }
    (TrustDecision::Pass, ReasonCode::PayerInGoodStanding, Some(payer_score(f)))
}

/// A paying wallet's standing, 0..=1, rounded to two decimals: volume (log scale to 100 USDC),
/// breadth (distinct sellers to 5), repeat payments (to 50) and tenure (days from its first
/// qualifying payment to its last, to 90), weighed 0.35 / 0.3 / 0.15 / 0.2. It only rises with the
/// wallet's own qualifying payments and the time it kept paying.
pub fn payer_score(f: &PayerFacts) -> f64 {
    let volume = ((1.0 + f.spent as f64).ln() / (1.0 + PAYER_FULL_SPEND as f64).ln()).min(1.0);
    let breadth = (f64::from(f.sellers_paid) / f64::from(PAYER_FULL_SELLERS)).min(1.0);
    let repeat = (f.payments as f64 / PAYER_FULL_PAYMENTS as f64).min(1.0);
    let tenure = (f64::from(f.paying_days) / f64::from(PAYER_FULL_DAYS)).min(1.0);
    let s = 0.35 * volume + 0.3 * breadth + 0.15 * repeat + 0.2 * tenure;
    (s * 100.0).round() / 100.0
}

/// A seller's score (0..=100) as a trust score (0..=1).
pub fn seller_score(score: u8) -> f64 {
    f64::from(score.min(100)) / 100.0
}

/// `SCORING.md` § 5e's tables: the seller decisions and the evidence class of each flag origin.
pub fn markdown_table() -> String {
    let mut out = String::from("| agentrep decision | trust answer |\n|---|---|\n");
    for r in SELLER_DECISIONS {
        out.push_str(&format!("| `{}` | {} |\n", r.decision.as_str(), r.rule));
    }
    out.push_str("\n| flag origin | evidence class | a `FAIL` may rest on it |\n|---|---|---|\n");
    for o in [
        Origin::External,
        Origin::Seller,
        Origin::Probe,
        Origin::Oracle,
        Origin::TrustedPayers,
        Origin::Absence,
        Origin::Outsider,
    ] {
        let class = o.evidence_class();
        out.push_str(&format!(
            "| `{}` | `{}` | {} |\n",
            o.as_str(),
            class.as_str(),
            if origin_can_fail(o) { "yes" } else { "no" }
        ));
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::flags::FLAGS;

    #[test]
    fn every_decision_has_one_row() {
        for d in Decision::ALL {
            assert_eq!(SELLER_DECISIONS.iter().filter(|r| r.decision == d).count(), 1, "{d}");
        }
    }

    #[test]
    fn a_block_fails_only_on_curated_or_behavioral_evidence() {
        for def in FLAGS.iter().filter(|d| is_weighty(d.key)) {
            let (answer, _) = seller_answer(Decision::Block, &[def.key], None);
            let want =
                if def.origin.evidence_class().can_fail() { TrustDecision::Fail } else { TrustDecision::Uncertain };
            assert_eq!(answer, want, "{}", def.name);
        }
        // Receipts alone (pay-then-fail from trusted payers' reports) are community evidence.
        assert_eq!(
            seller_answer(Decision::Block, &[FlagKey::PayThenFail], None),
            (TrustDecision::Uncertain, ReasonCode::BlockOnCommunityEvidence)
        );
        // agentrep's own undelivered paid call beside it is behavioral.
        assert_eq!(
            seller_answer(Decision::Block, &[FlagKey::PayThenFail, FlagKey::PaidCallUndelivered], None).0,
            TrustDecision::Fail
        );
    }

    #[test]
    fn no_decision_but_block_fails() {
        for d in [Decision::Proceed, Decision::ProceedLowValue, Decision::Caution] {
            for amount in [None, Some(1), Some(LOW_VALUE_CAP), Some(LOW_VALUE_CAP + 1)] {
                let all: Vec<FlagKey> = FLAGS.iter().map(|f| f.key).collect();
                assert_ne!(seller_answer(d, &all, amount).0, TrustDecision::Fail, "{d} {amount:?}");
            }
        }
    }

    #[test]
    fn low_value_passes_within_its_cap_only() {
        let at = |amount| seller_answer(Decision::ProceedLowValue, &[], amount).0;
        assert_eq!(at(Some(LOW_VALUE_CAP)), TrustDecision::Pass);
        assert_eq!(at(Some(LOW_VALUE_CAP + 1)), TrustDecision::Uncertain);
        assert_eq!(at(None), TrustDecision::Uncertain);
        assert_eq!(seller_answer(Decision::Proceed, &[], Some(50 * LOW_VALUE_CAP)).0, TrustDecision::Pass);
    }

    #[test]
    fn a_payer_fails_only_on_a_list_and_never_gets_a_score_from_nothing() {
        let known = PayerFacts { payments: 3, sellers_paid: 2, spent: 30_000, denylisted: false, paying_days: 2 };
        assert_eq!(payer_answer(&known).0, TrustDecision::Pass);
        assert_eq!(payer_answer(&PayerFacts { denylisted: true, ..known }).0, TrustDecision::Fail);
        let (d, r, s) = payer_answer(&PayerFacts::default());
        assert_eq!((d, r, s), (TrustDecision::Uncertain, ReasonCode::PayerWithoutPayments, None));
    }

    #[test]
    fn the_payer_score_only_rises_with_its_own_payments() {
        let mut last = 0.0;
        for n in 1..200u64 {
            let f = PayerFacts {
                payments: n,
                sellers_paid: (n / 10) as u32 + 1,
                spent: n * 10_000,
                denylisted: false,
                paying_days: (n / 2) as u32 + 1,
            };
            let s = payer_score(&f);
            assert!((0.0..=1.0).contains(&s));
            assert!(s >= last, "{n}: {s} < {last}");
            last = s;
        }
        let full =
            PayerFacts { payments: 50, sellers_paid: 5, spent: PAYER_FULL_SPEND, denylisted: false, paying_days: 90 };
        assert_eq!(payer_score(&full), 1.0);
    }
}
