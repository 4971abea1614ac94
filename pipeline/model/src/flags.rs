//! The trust-shield flags: one table ([`FLAGS`]) that holds each flag's key, severity, score
//! penalty, condition, explainer and check. Code, `SCORING.md` and the API's explainers all come
//! from it; a test keeps `SCORING.md` in step.

use serde::{Deserialize, Serialize};

use crate::features::SellerFeatures;

/// How much a flag weighs; the order is from good news to the worst.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Severity {
    /// Good news (e.g. allowlisted).
    Positive,
    /// Worth knowing, no effect on the decision.
    Info,
    /// Weak risk signal.
    Low,
    /// Risk signal that limits the decision to `PROCEED_LOW_VALUE`.
    Medium,
    /// Strong risk signal: `CAUTION`, or `BLOCK` with a second one.
    High,
    /// Known bad: `BLOCK` whatever the score.
    Critical,
}

impl Severity {
    /// The wire name.
    pub fn as_str(self) -> &'static str {
        match self {
            Severity::Positive => "positive",
            Severity::Info => "info",
            Severity::Low => "low",
            Severity::Medium => "medium",
            Severity::High => "high",
            Severity::Critical => "critical",
        }
    }
}

/// Every flag the shield can raise.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum FlagKey {
    /// On the denylist.
    Denylisted,
    /// On the allowlist.
    AutoAllowlisted,
    /// All settlements come from one payer.
    SinglePayer,
    /// First listed less than a week ago.
    FreshOperator,
    /// Every probe of the endpoint failed.
    AllProbesFailed,
    /// The endpoint's host has a suspicious TLD.
    SuspiciousTld,
    /// The endpoint's path looks like an admin or secrets path.
    AdminPath,
    /// Most payers share one funder.
    WashFunderCluster,
    /// The seller pays itself or funds its own payers.
    SelfDealing,
    /// One payer dominates the settlements.
    PayerConcentration,
    /// Most ERC-8004 feedback comes from clients who never paid.
    UnpaidFeedback,
    /// Settled amounts differ from the advertised price.
    PriceDrift,
    /// Exact-price payments at clockwork intervals.
    MetronomePayments,
    /// The endpoint is up only part of the time.
    EndpointFlapping,
    /// No settlement in the last 30 days.
    Dormant,
    /// Paying clients rate the service poorly.
    NegativeFeedback,
    /// No identity proof of any type.
    NoIdentityProofs,
    /// Listed under several letter-case spellings, merged here.
    CaseDuplicate,
}

/// One row of the flag table.
#[derive(Debug)]
pub struct FlagDef {
    /// Which flag.
    pub key: FlagKey,
    /// Wire key, e.g. `single-payer`.
    pub name: &'static str,
    /// How much it weighs.
    pub severity: Severity,
    /// Points taken off the score when raised.
    pub penalty: u8,
    /// The condition, in words, as `SCORING.md` prints it.
    pub condition: &'static str,
    /// What it means for a buyer.
    pub explainer: &'static str,
    /// Returns the detail text when the flag is raised.
    pub check: fn(&SellerFeatures) -> Option<String>,
}

/// A raised flag with its detail.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct FlagHit {
    /// Which flag.
    pub key: FlagKey,
    /// How much it weighs.
    pub severity: Severity,
    /// What was measured.
    pub detail: String,
}

impl FlagHit {
    /// The table row of this flag.
    pub fn def(&self) -> &'static FlagDef {
        FlagKey::def(self.key)
    }
}

impl FlagKey {
    /// The table row of a flag.
    pub fn def(key: FlagKey) -> &'static FlagDef {
        FLAGS.iter().find(|d| d.key == key).expect("every FlagKey has a row in FLAGS")
    }

    /// The wire key.
    pub fn as_str(self) -> &'static str {
        FlagKey::def(self).name
    }
}

/// Thresholds of the flag conditions; `SCORING.md` cites them by these names.
pub mod thresholds {
    /// `fresh-operator`: first listed fewer days ago than this.
    pub const FRESH_OPERATOR_DAYS: u32 = 7;
    /// `all-probes-failed` and `endpoint-flapping`: probes needed to judge.
    pub const MIN_PROBES: u32 = 3;
    /// `endpoint-flapping`: ok-rate band (inclusive lower, exclusive upper).
    pub const FLAPPING_OK_RATE: (f64, f64) = (0.2, 0.8);
    /// `wash-funder-cluster`: funded payers needed to judge.
    pub const WASH_MIN_FUNDED_PAYERS: u32 = 3;
    /// `wash-funder-cluster`: share of funded payers behind one funder.
    pub const WASH_TOP_FUNDER_SHARE: f64 = 0.6;
    /// `self-dealing`: share of funded payers the seller funded itself.
    pub const SELF_FUNDED_SHARE: f64 = 0.3;
    /// `payer-concentration`: share of settlements from the top payer.
    pub const TOP_PAYER_SHARE: f64 = 0.6;
    /// `unpaid-feedback`: feedback entries needed to judge.
    pub const UNPAID_FEEDBACK_MIN: u32 = 5;
    /// `unpaid-feedback`: share of feedback clients who never paid.
    pub const UNPAID_FEEDBACK_SHARE: f64 = 0.7;
    /// `price-drift` and `metronome-payments`: settlements needed to judge.
    pub const MIN_SETTLEMENTS_FOR_PRICE: u64 = 5;
    /// `price-drift`: allowed deviation of the median settled amount from the advertised price.
    pub const PRICE_DRIFT_RATIO: f64 = 0.5;
    /// `metronome-payments`: settlements needed to judge regularity.
    pub const METRONOME_MIN_SETTLEMENTS: u64 = 10;
    /// `metronome-payments`: largest coefficient of variation of the gaps.
    pub const METRONOME_MAX_CV: f64 = 0.15;
    /// `metronome-payments`: smallest share of exact-price settlements.
    pub const METRONOME_EXACT_SHARE: f64 = 0.95;
    /// `dormant`: days without a settlement.
    pub const DORMANT_DAYS: u32 = 30;
    /// `negative-feedback`: paying clients needed to judge.
    pub const NEGATIVE_FEEDBACK_MIN_CLIENTS: u32 = 3;
    /// `negative-feedback`: highest mean rating (0..=1) that counts as negative.
    pub const NEGATIVE_FEEDBACK_MEAN: f64 = 0.4;
}

use thresholds as t;

fn pct(x: f64) -> String {
    format!("{:.0}%", x * 100.0)
}

/// The flag table, in the order flags are listed in a shield.
pub const FLAGS: &[FlagDef] = &[
    FlagDef {
        key: FlagKey::Denylisted,
        name: "denylisted",
        severity: Severity::Critical,
        penalty: 100,
        condition: "the address is on the denylist",
        explainer: "Known-bad address (sanctions, scams or exploits); never pay it.",
        check: |f| f.denylisted.then(|| "address is on the denylist".to_owned()),
    },
    FlagDef {
        key: FlagKey::AutoAllowlisted,
        name: "auto-allowlisted",
        severity: Severity::Positive,
        penalty: 0,
        condition: "the address is on the allowlist",
        explainer: "Operator vetted by a curated allowlist.",
        check: |f| f.allowlist_label.as_ref().map(|l| format!("allowlisted as {l}")),
    },
    FlagDef {
        key: FlagKey::SinglePayer,
        name: "single-payer",
        severity: Severity::Medium,
        penalty: 15,
        condition: "settlements >= 1 and distinct payers == 1",
        explainer: "Every payment comes from one wallet: no independent demand is proven.",
        check: |f| {
            (f.settlements >= 1 && f.distinct_payers == 1)
                .then(|| format!("{} settlements, all from one payer", f.settlements))
        },
    },
    FlagDef {
        key: FlagKey::FreshOperator,
        name: "fresh-operator",
        severity: Severity::Low,
        penalty: 5,
        condition: "first listed fewer than FRESH_OPERATOR_DAYS (7) days ago",
        explainer: "New operator: too little history to judge.",
        check: |f| {
            (f.listing_count > 0 && f.age_days < t::FRESH_OPERATOR_DAYS)
                .then(|| format!("first listed {} days ago", f.age_days))
        },
    },
    FlagDef {
        key: FlagKey::AllProbesFailed,
        name: "all-probes-failed",
        severity: Severity::High,
        penalty: 25,
        condition: "probes >= MIN_PROBES (3) and none alive",
        explainer: "The paid endpoint never answered: payments are likely lost.",
        check: |f| {
            (f.sla.samples >= t::MIN_PROBES && f.sla.ok == 0).then(|| format!("0 of {} probes alive", f.sla.samples))
        },
    },
    FlagDef {
        key: FlagKey::SuspiciousTld,
        name: "suspicious-tld",
        severity: Severity::Medium,
        penalty: 10,
        condition: "an endpoint host ends in a TLD on the suspicious list",
        explainer: "Endpoint hosted under a TLD favoured by throwaway scam domains.",
        check: |f| f.suspicious_tld.then(|| "endpoint host has a suspicious TLD".to_owned()),
    },
    FlagDef {
        key: FlagKey::AdminPath,
        name: "admin-path",
        severity: Severity::High,
        penalty: 20,
        condition: "an endpoint path contains an admin or secrets segment (admin, wp-admin, .env, phpmyadmin, debug, .git)",
        explainer: "Endpoint path looks like an admin or secrets route, not a public API.",
        check: |f| f.admin_path.then(|| "endpoint path looks like an admin route".to_owned()),
    },
    FlagDef {
        key: FlagKey::WashFunderCluster,
        name: "wash-funder-cluster",
        severity: Severity::High,
        penalty: 35,
        condition: "funded payers >= WASH_MIN_FUNDED_PAYERS (3) and one funder behind >= WASH_TOP_FUNDER_SHARE (60%) of them",
        explainer: "Most payers were funded by the same wallet: the demand looks manufactured.",
        check: |f| {
            (f.payers_with_funder >= t::WASH_MIN_FUNDED_PAYERS && f.top_funder_share >= t::WASH_TOP_FUNDER_SHARE).then(
                || format!("{} of {} funded payers share one funder", pct(f.top_funder_share), f.payers_with_funder),
            )
        },
    },
    FlagDef {
        key: FlagKey::SelfDealing,
        name: "self-dealing",
        severity: Severity::High,
        penalty: 35,
        condition: "the seller paid itself, or funded >= SELF_FUNDED_SHARE (30%) of its funded payers",
        explainer: "The seller pays itself or bankrolls its own buyers.",
        check: |f| {
            if f.self_payments > 0 {
                Some(format!("{} settlements paid by the seller itself", f.self_payments))
            } else if f.payers_with_funder > 0 && f.seller_funded_share >= t::SELF_FUNDED_SHARE {
                Some(format!("seller funded {} of its payers", pct(f.seller_funded_share)))
            } else {
                None
            }
        },
    },
    FlagDef {
        key: FlagKey::PayerConcentration,
        name: "payer-concentration",
        severity: Severity::Medium,
        penalty: 10,
        condition: "distinct payers >= 2 and the top payer made >= TOP_PAYER_SHARE (60%) of settlements",
        explainer: "One payer dominates: revenue depends on a single client.",
        check: |f| {
            (f.distinct_payers >= 2 && f.top_payer_share >= t::TOP_PAYER_SHARE)
                .then(|| format!("top payer made {} of settlements", pct(f.top_payer_share)))
        },
    },
    FlagDef {
        key: FlagKey::UnpaidFeedback,
        name: "unpaid-feedback",
        severity: Severity::High,
        penalty: 30,
        condition: "feedback >= UNPAID_FEEDBACK_MIN (5) and >= UNPAID_FEEDBACK_SHARE (70%) of feedback clients never paid",
        explainer: "ERC-8004 feedback comes from wallets that never paid: likely sybil reviews.",
        check: |f| {
            if f.feedback_count < t::UNPAID_FEEDBACK_MIN || f.feedback_clients == 0 {
                return None;
            }
            let unpaid = 1.0 - f64::from(f.paid_feedback_clients) / f64::from(f.feedback_clients);
            (unpaid >= t::UNPAID_FEEDBACK_SHARE)
                .then(|| format!("{} of {} feedback clients never paid", pct(unpaid), f.feedback_clients))
        },
    },
    FlagDef {
        key: FlagKey::PriceDrift,
        name: "price-drift",
        severity: Severity::Medium,
        penalty: 10,
        condition: "settlements >= MIN_SETTLEMENTS_FOR_PRICE (5) and the median settled amount is off the advertised price by > PRICE_DRIFT_RATIO (50%)",
        explainer: "Buyers pay amounts unlike the advertised price: listing stale or misleading.",
        check: |f| {
            let ratio = f.median_price_ratio?;
            (f.settlements >= t::MIN_SETTLEMENTS_FOR_PRICE && (ratio - 1.0).abs() > t::PRICE_DRIFT_RATIO)
                .then(|| format!("median settlement is {ratio:.2}x the advertised price"))
        },
    },
    FlagDef {
        key: FlagKey::MetronomePayments,
        name: "metronome-payments",
        severity: Severity::Medium,
        penalty: 15,
        condition: "settlements >= METRONOME_MIN_SETTLEMENTS (10), gap CV <= METRONOME_MAX_CV (0.15) and exact-price share >= METRONOME_EXACT_SHARE (95%)",
        explainer: "Exact-price payments at clockwork intervals: typical of scripted wash trading.",
        check: |f| {
            let cv = f.interval_cv?;
            (f.settlements >= t::METRONOME_MIN_SETTLEMENTS
                && cv <= t::METRONOME_MAX_CV
                && f.exact_price_share >= t::METRONOME_EXACT_SHARE)
                .then(|| format!("gap CV {cv:.2}, {} at the exact price", pct(f.exact_price_share)))
        },
    },
    FlagDef {
        key: FlagKey::EndpointFlapping,
        name: "endpoint-flapping",
        severity: Severity::Low,
        penalty: 5,
        condition: "probes >= MIN_PROBES (3) and ok-rate in [20%, 80%)",
        explainer: "The endpoint is up only part of the time.",
        check: |f| {
            let rate = f.sla.ok_rate()?;
            (f.sla.samples >= t::MIN_PROBES && rate >= t::FLAPPING_OK_RATE.0 && rate < t::FLAPPING_OK_RATE.1)
                .then(|| format!("{} of {} probes alive", f.sla.ok, f.sla.samples))
        },
    },
    FlagDef {
        key: FlagKey::Dormant,
        name: "dormant",
        severity: Severity::Medium,
        penalty: 10,
        condition: "settlements >= 1 and none in the last DORMANT_DAYS (30) days",
        explainer: "No one has paid this seller for a month.",
        check: |f| {
            let days = f.days_since_last_settlement?;
            (days >= t::DORMANT_DAYS).then(|| format!("last settlement {days} days ago"))
        },
    },
    FlagDef {
        key: FlagKey::NegativeFeedback,
        name: "negative-feedback",
        severity: Severity::Medium,
        penalty: 10,
        condition: "paying feedback clients >= NEGATIVE_FEEDBACK_MIN_CLIENTS (3) and their mean rating < NEGATIVE_FEEDBACK_MEAN (40/100)",
        explainer: "Clients who paid rate the service poorly.",
        check: |f| {
            if f.paid_feedback_clients < t::NEGATIVE_FEEDBACK_MIN_CLIENTS || f.paid_feedback_count == 0 {
                return None;
            }
            let mean = f.paid_feedback_sum / f64::from(f.paid_feedback_count);
            (mean < t::NEGATIVE_FEEDBACK_MEAN).then(|| format!("paying clients rate it {:.0}/100", mean * 100.0))
        },
    },
    FlagDef {
        key: FlagKey::NoIdentityProofs,
        name: "no-identity-proofs",
        severity: Severity::Low,
        penalty: 0,
        condition: "no identity proof of any type",
        explainer: "No multi-source identity proofs: unverified provenance.",
        check: |f| f.proofs.is_empty().then(|| "0 identity proofs".to_owned()),
    },
    FlagDef {
        key: FlagKey::CaseDuplicate,
        name: "case-duplicate",
        severity: Severity::Info,
        penalty: 0,
        condition: "listings spell the address in more than one letter case",
        explainer: "Listed under several spellings of one address; merged into one entry.",
        check: |f| (f.case_variants > 1).then(|| format!("{} spellings merged", f.case_variants)),
    },
];

/// Raises every flag whose condition holds, in table order.
pub fn evaluate_flags(features: &SellerFeatures) -> Vec<FlagHit> {
    FLAGS
        .iter()
        .filter_map(|def| (def.check)(features).map(|detail| FlagHit { key: def.key, severity: def.severity, detail }))
        .collect()
}

/// The flag table as Markdown, as `SCORING.md` prints it between its `flags` markers.
pub fn markdown_table() -> String {
    let mut out = String::from("| key | severity | penalty | condition | explainer |\n|---|---|---|---|---|\n");
    for d in FLAGS {
        out.push_str(&format!(
            "| `{}` | {} | {} | {} | {} |\n",
            d.name,
            d.severity.as_str(),
            d.penalty,
            d.condition,
            d.explainer
        ));
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn table_has_one_row_per_key_and_unique_names() {
        let mut names: Vec<_> = FLAGS.iter().map(|d| d.name).collect();
        names.sort_unstable();
        names.dedup();
        assert_eq!(names.len(), FLAGS.len());
        assert!(FLAGS.len() >= 12);
        for d in FLAGS {
            assert_eq!(FlagKey::def(d.key).name, d.name);
            let wire = serde_json_key(d.key);
            assert_eq!(wire, d.name, "serde name and table name differ");
        }
    }

    fn serde_json_key(k: FlagKey) -> String {
        serde_json::to_value(k).unwrap().as_str().unwrap().to_owned()
    }

    #[test]
    fn seed_flag_keys_exist() {
        for key in [
            "auto-allowlisted",
            "single-payer",
            "fresh-operator",
            "all-probes-failed",
            "suspicious-tld",
            "admin-path",
            "denylisted",
        ] {
            assert!(FLAGS.iter().any(|d| d.name == key), "{key} missing");
        }
    }

    #[test]
    fn single_payer_fires_only_with_one_payer() {
        let mut f = SellerFeatures { settlements: 10, distinct_payers: 1, ..Default::default() };
        assert!(evaluate_flags(&f).iter().any(|h| h.key == FlagKey::SinglePayer));
        f.distinct_payers = 2;
        assert!(!evaluate_flags(&f).iter().any(|h| h.key == FlagKey::SinglePayer));
    }
}
