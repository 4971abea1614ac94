//! The trust-shield flags: one table ([`FLAGS`]) that holds each flag's key, severity, score
//! penalty, condition, explainer and check. Code, `SCORING.md` and the API's explainers all come
//! from it; a test keeps `SCORING.md` in step.

use serde::{Deserialize, Serialize};

use crate::features::{DeployerFeatures, SellerFeatures};

/// How much a flag weighs; the order is from good news to the worst.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
#[cfg_attr(feature = "schemars", derive(schemars::JsonSchema))]
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

crate::wire_name::display_as_wire_name!(Severity, FlagKey);

/// Every flag the shield can raise.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
#[cfg_attr(feature = "schemars", derive(schemars::JsonSchema))]
#[serde(rename_all = "kebab-case")]
pub enum FlagKey {
    /// On the denylist.
    Denylisted,
    /// On the allowlist.
    AutoAllowlisted,
    /// Served from a ranked domain whose offers name the wallet.
    RankedDomain,
    /// Paying, trusted buyers, or agentrep's own paid calls, report failed paid calls.
    PayThenFail,
    /// agentrep paid for a call and got nothing back.
    PaidCallUndelivered,
    /// The endpoint's 402 offer differs from its listing.
    OfferMismatch,
    /// The seller pays itself or funds its own payers.
    SelfDealing,
    /// First funded by a denylisted address or a rugging deployer.
    TaintedFunding,
    /// A token deployer first funded by a denylisted address or a rugging deployer.
    DeployerTainted,
    /// No trusted entity has paid the seller.
    UnprovenDemand,
    /// Every probe of the endpoint failed.
    AllProbesFailed,
    /// The endpoint's path looks like an admin or secrets path.
    AdminPath,
    /// The endpoint's host has a suspicious TLD.
    SuspiciousTld,
    /// All qualifying settlements come from one payer.
    SinglePayer,
    /// Several payers, but one trusted paying entity.
    SingleEntity,
    /// No trusted payment in the last 30 days.
    Dormant,
    /// Paying, trusted clients rate the service poorly.
    NegativeFeedback,
    /// The endpoint is up only part of the time.
    EndpointFlapping,
    /// First listed less than a week ago.
    FreshOperator,
    /// One trusted entity dominates the settlements.
    PayerConcentration,
    /// Exact-price payments at clockwork intervals.
    MetronomePayments,
    /// No identity proof of any type.
    NoIdentityProofs,
    /// Payers merged into far fewer funding entities.
    ClusteredPayers,
    /// ERC-8004 feedback from wallets that never paid (no weight).
    UnpaidFeedback,
    /// Transfers that are not x402 settlements at the advertised price (not counted).
    UnattributedTransfers,
    /// Listed under several letter-case spellings, merged here.
    CaseDuplicate,
}

/// Who can create the evidence a flag reads. The griefing rule: a flag whose evidence an outsider
/// can create without the seller's cooperation never weighs on the decision (severity `low` or
/// below, no penalty); `make test` checks the table against this rule.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum Origin {
    /// Curated lists and registries (denylist, allowlist).
    External,
    /// The seller's own acts: its listings, its outgoing payments and funding, its wallet's origin.
    Seller,
    /// agentrep's own probes of the endpoint.
    Probe,
    /// Paying entities with trust (costly to create; weighed by trust).
    TrustedPayers,
    /// agentrep's own paid calls, made with the operator's funds (only the operator creates them).
    Oracle,
    /// The absence of trusted evidence (an outsider can only add evidence, never remove it).
    Absence,
    /// Anyone: transfers, reviews, timing and funding of wallets the seller does not control.
    Outsider,
}

impl Origin {
    /// The wire name.
    pub fn as_str(self) -> &'static str {
        match self {
            Origin::External => "external",
            Origin::Seller => "seller",
            Origin::Probe => "probe",
            Origin::TrustedPayers => "trusted-payers",
            Origin::Oracle => "oracle",
            Origin::Absence => "absence",
            Origin::Outsider => "outsider",
        }
    }
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
    /// Who can create the evidence behind it (the griefing rule, `SCORING.md` § 3).
    pub origin: Origin,
    /// The condition, in words, as `SCORING.md` prints it.
    pub condition: &'static str,
    /// What it means for a buyer.
    pub explainer: &'static str,
    /// Whose features it reads, and the detail text when the flag is raised.
    pub check: Check,
}

/// A flag's condition, over the features of the wallet it is raised on.
#[derive(Debug, Clone, Copy)]
pub enum Check {
    /// Raised on a seller: its shield, score and preflight show it.
    Seller(fn(&SellerFeatures) -> Option<String>),
    /// Raised on a token deployer: its record and the risk report show it.
    Deployer(fn(&DeployerFeatures) -> Option<String>),
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
    /// `pay-then-fail`: trusted paying entities reporting failures.
    pub const PAY_THEN_FAIL_ENTITIES: u32 = 2;
    /// `pay-then-fail`: trust-weighted share of failed matched receipts (buyers' word, so most of
    /// them must report failures).
    pub const PAY_THEN_FAIL_SHARE: f64 = 0.75;
    /// `pay-then-fail`: share of agentrep's settled paid calls that delivered nothing.
    pub const PAY_THEN_FAIL_PROBE_SHARE: f64 = 0.5;
    /// `pay-then-fail`: agentrep's settled paid calls that delivered nothing.
    pub const PAY_THEN_FAIL_PAID_PROBES: u32 = 2;
    /// `pay-then-fail` and `paid-call-undelivered`: distinct days with a settled paid call that
    /// delivered nothing (one bad day of the seller's, or of the network between, is no pattern).
    pub const PAID_CALL_FLAG_DAYS: u32 = 2;
    /// `offer-mismatch`: mismatching offers needed to judge.
    pub const OFFER_MISMATCH_MIN: u32 = 2;
    /// `offer-mismatch`: share of offers that mismatch.
    pub const OFFER_MISMATCH_SHARE: f64 = 0.3;
    /// `self-dealing`: share of qualifying settlements paid by the seller or by payers it funded.
    pub const SELF_DEALING_SHARE: f64 = 0.2;
    /// `payer-concentration`: share of trusted settlements from the top trusted entity.
    pub const TOP_ENTITY_SHARE: f64 = 0.6;
    /// `unpaid-feedback`: feedback clients who never paid, needed to mention it.
    pub const UNPAID_FEEDBACK_MIN: u32 = 5;
    /// `metronome-payments`: settlements needed to judge regularity.
    pub const METRONOME_MIN_SETTLEMENTS: u64 = 10;
    /// `metronome-payments`: largest coefficient of variation of the gaps.
    pub const METRONOME_MAX_CV: f64 = 0.15;
    /// `metronome-payments`: smallest share of exact-price settlements.
    pub const METRONOME_EXACT_SHARE: f64 = 0.95;
    /// `clustered-payers`: payers per entity from which the merge is mentioned.
    pub const CLUSTER_RATIO: f64 = 3.0;
    /// `dormant`: days without a trusted settlement.
    pub const DORMANT_DAYS: u32 = 30;
    /// `negative-feedback`: counted reviewing entities needed to judge.
    pub const NEGATIVE_FEEDBACK_MIN_ENTITIES: u32 = 3;
    /// `negative-feedback`: counted review weight needed to judge.
    pub const NEGATIVE_FEEDBACK_MIN_WEIGHT: f64 = 1.0;
    /// `negative-feedback`: highest weighted mean rating (0..=1) that counts as negative.
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
        origin: Origin::External,
        condition: "the address is on the denylist",
        explainer: "Known-bad address (sanctions, scams or exploits); never pay it.",
        check: Check::Seller(|f| f.denylisted.then(|| "address is on the denylist".to_owned())),
    },
    FlagDef {
        key: FlagKey::AutoAllowlisted,
        name: "auto-allowlisted",
        severity: Severity::Positive,
        penalty: 0,
        origin: Origin::External,
        condition: "the address is on the allowlist",
        explainer: "Operator vetted by a curated allowlist.",
        check: Check::Seller(|f| f.allowlist_label.as_ref().map(|l| format!("allowlisted as {l}"))),
    },
    FlagDef {
        key: FlagKey::RankedDomain,
        name: "ranked-domain",
        severity: Severity::Positive,
        penalty: 0,
        origin: Origin::Probe,
        condition: "a listing host's registrable domain is in the ranked-domain list and the 402 offers served from it in the probe window name the wallet",
        explainer: "Its paid endpoints are served from an established, publicly ranked domain, and that domain's offers name this wallet.",
        check: Check::Seller(|f| {
            f.domain.as_ref().map(|d| {
                format!(
                    "{} is #{} in {}; {} offers there name this wallet",
                    d.domain, d.rank, d.list, d.matching_offers
                )
            })
        }),
    },
    FlagDef {
        key: FlagKey::PayThenFail,
        name: "pay-then-fail",
        severity: Severity::Critical,
        penalty: 60,
        origin: Origin::TrustedPayers,
        condition: "agentrep's own settled paid calls that showed non-delivery (402 after payment, 5xx, an empty 2xx) >= PAY_THEN_FAIL_PAID_PROBES (2), on >= PAID_CALL_FLAG_DAYS (2) days, and >= PAY_THEN_FAIL_PROBE_SHARE (50%) of them; or trusted paying entities reporting failed paid calls >= PAY_THEN_FAIL_ENTITIES (2) and the trust-weighted failed share of matched receipts >= PAY_THEN_FAIL_SHARE (75%)",
        explainer: "Buyers who paid, or agentrep paying with its own funds, got nothing back: payments are taken without delivery.",
        check: Check::Seller(|f| {
            let pp = &f.paid_probes;
            if pp.undelivered >= t::PAY_THEN_FAIL_PAID_PROBES
                && pp.undelivered_days >= t::PAID_CALL_FLAG_DAYS
                && f64::from(pp.undelivered) >= t::PAY_THEN_FAIL_PROBE_SHARE * f64::from(pp.paid)
            {
                return Some(format!(
                    "{} of agentrep's {} settled paid calls delivered nothing",
                    pp.undelivered, pp.paid
                ));
            }
            let r = &f.reputation;
            if r.failed_entities < t::PAY_THEN_FAIL_ENTITIES || r.receipt_weight <= 0.0 {
                return None;
            }
            let failed = 1.0 - r.receipt_success / r.receipt_weight;
            (failed >= t::PAY_THEN_FAIL_SHARE).then(|| {
                format!(
                    "{} paying entities report failures; {} of weighted receipts failed",
                    r.failed_entities,
                    pct(failed)
                )
            })
        }),
    },
    FlagDef {
        key: FlagKey::PaidCallUndelivered,
        name: "paid-call-undelivered",
        severity: Severity::High,
        penalty: 30,
        origin: Origin::Oracle,
        condition: "agentrep paid for calls with its own funds (the authorization was used on chain) in the last 30 days and their answers showed non-delivery (402 after payment, 5xx, an empty 2xx) on >= PAID_CALL_FLAG_DAYS (2) days; a timeout, reset, redirect, 204 or other 4xx shows nothing",
        explainer: "agentrep paid this seller and got nothing back: the money was taken without delivery.",
        check: Check::Seller(|f| {
            let pp = &f.paid_probes;
            (pp.undelivered_days >= t::PAID_CALL_FLAG_DAYS).then(|| {
                format!(
                    "{} of agentrep's {} settled paid calls delivered nothing, on {} days",
                    pp.undelivered, pp.paid, pp.undelivered_days
                )
            })
        }),
    },
    FlagDef {
        key: FlagKey::OfferMismatch,
        name: "offer-mismatch",
        severity: Severity::High,
        penalty: 30,
        origin: Origin::Probe,
        condition: "mismatching 402 offers >= OFFER_MISMATCH_MIN (2) and >= OFFER_MISMATCH_SHARE (30%) of well-formed offers in the probe window",
        explainer: "The endpoint asks to be paid differently (payTo, asset, network or price) than its listing says.",
        check: Check::Seller(|f| {
            let s = &f.sla;
            (s.offer_mismatches >= t::OFFER_MISMATCH_MIN
                && f64::from(s.offer_mismatches) >= t::OFFER_MISMATCH_SHARE * f64::from(s.offers))
            .then(|| format!("{} of {} offers differ from the listing", s.offer_mismatches, s.offers))
        }),
    },
    FlagDef {
        key: FlagKey::SelfDealing,
        name: "self-dealing",
        severity: Severity::High,
        penalty: 35,
        origin: Origin::Seller,
        condition: "settlements paid by the seller itself or by payers whose funding chain starts at the seller (up to MAX_FUNDING_HOPS, 4) >= SELF_DEALING_SHARE (20%) of qualifying settlements",
        explainer: "The seller pays itself or bankrolls its own buyers.",
        check: Check::Seller(|f| {
            let d = &f.demand;
            let own = d.self_payments + d.seller_funded_settlements;
            (d.settlements > 0 && own as f64 >= t::SELF_DEALING_SHARE * d.settlements as f64).then(|| {
                format!(
                    "{own} of {} settlements paid by the seller or by {} payers it funded",
                    d.settlements, d.seller_funded_payers
                )
            })
        }),
    },
    FlagDef {
        key: FlagKey::TaintedFunding,
        name: "tainted-funding",
        severity: Severity::High,
        penalty: 30,
        origin: Origin::Seller,
        condition: "the wallet's first funders (up to TAINT_HOPS, 4) include a denylisted address or a deployer whose verdict is AVOID, and it was funded before it was first listed",
        explainer: "The wallet was bankrolled by a known-bad address: not a clean slate.",
        check: Check::Seller(|f| f.tainted_by.as_ref().map(|by| format!("first funded by {by}"))),
    },
    FlagDef {
        key: FlagKey::DeployerTainted,
        name: "deployer-tainted",
        severity: Severity::High,
        penalty: 0,
        origin: Origin::Seller,
        condition: "a token deployer whose first funders (up to TAINT_HOPS, 4) include a denylisted address or a deployer whose verdict is AVOID; raised on the deployer, whose verdict it makes CAUTION",
        explainer: "The deployer was bankrolled by a rugger or a known-bad address.",
        check: Check::Deployer(|d| {
            d.tainted_by.as_ref().map(|by| format!("funded by {by}, who rugged or is denylisted"))
        }),
    },
    FlagDef {
        key: FlagKey::UnprovenDemand,
        name: "unproven-demand",
        severity: Severity::Info,
        penalty: 0,
        origin: Origin::Absence,
        condition: "no paying entity reaches TRUSTED_ENTITY_MIN (0.01) trust",
        explainer: "No buyer with an independent, costly history has paid this seller yet: its demand is counted, but not proven. Not a sign of harm.",
        check: Check::Seller(|f| {
            let d = &f.demand;
            (d.trusted_entities == 0).then(|| {
                format!(
                    "{} qualifying settlements from {} untrusted entities; {} other transfers not counted",
                    d.settlements,
                    d.entities,
                    d.unattributed + d.below_price
                )
            })
        }),
    },
    FlagDef {
        key: FlagKey::AllProbesFailed,
        name: "all-probes-failed",
        severity: Severity::High,
        penalty: 25,
        origin: Origin::Probe,
        condition: "probes >= MIN_PROBES (3) and none alive (alive: 200, 201, 204, or 402 with a well-formed x402 offer)",
        explainer: "The paid endpoint never answered: payments are likely lost.",
        check: Check::Seller(|f| {
            (f.sla.samples >= t::MIN_PROBES && f.sla.ok == 0).then(|| format!("0 of {} probes alive", f.sla.samples))
        }),
    },
    FlagDef {
        key: FlagKey::AdminPath,
        name: "admin-path",
        severity: Severity::High,
        penalty: 20,
        origin: Origin::Seller,
        condition: "an endpoint path has a segment that only a web server's secrets or admin panel has (wp-admin, wp-login.php, phpmyadmin, .env, .git, .aws, .ssh, server-status)",
        explainer: "A listed paid endpoint is a path of a web server's secrets or admin panel, never a public API.",
        check: Check::Seller(|f| f.admin_path.then(|| "endpoint path looks like an admin route".to_owned())),
    },
    FlagDef {
        key: FlagKey::SuspiciousTld,
        name: "suspicious-tld",
        severity: Severity::Medium,
        penalty: 10,
        origin: Origin::Seller,
        condition: "an endpoint host ends in a TLD on the suspicious list",
        explainer: "Endpoint hosted under a TLD favoured by throwaway scam domains.",
        check: Check::Seller(|f| f.suspicious_tld.then(|| "endpoint host has a suspicious TLD".to_owned())),
    },
    FlagDef {
        key: FlagKey::SinglePayer,
        name: "single-payer",
        severity: Severity::Low,
        penalty: 0,
        origin: Origin::Absence,
        condition: "qualifying settlements >= 1 and distinct qualifying payers == 1",
        explainer: "Every payment comes from one wallet: no independent demand is proven.",
        check: Check::Seller(|f| {
            let d = &f.demand;
            (d.settlements >= 1 && d.payers == 1).then(|| format!("{} settlements, all from one payer", d.settlements))
        }),
    },
    FlagDef {
        key: FlagKey::SingleEntity,
        name: "single-entity",
        severity: Severity::Low,
        penalty: 0,
        origin: Origin::Absence,
        condition: "distinct qualifying payers >= 2 and exactly one trusted paying entity",
        explainer: "Several wallets pay, but they belong to one funding entity: one customer at most.",
        check: Check::Seller(|f| {
            let d = &f.demand;
            (d.payers >= 2 && d.trusted_entities == 1)
                .then(|| format!("{} payers in {} entities, 1 trusted", d.payers, d.entities))
        }),
    },
    FlagDef {
        key: FlagKey::Dormant,
        name: "dormant",
        severity: Severity::Low,
        penalty: 0,
        origin: Origin::Absence,
        condition: "trusted demand exists and none in the last DORMANT_DAYS (30) days",
        explainer: "No trusted buyer has paid this seller for a month.",
        check: Check::Seller(|f| {
            let days = f.demand.days_since_last_trusted?;
            (days >= t::DORMANT_DAYS).then(|| format!("last trusted settlement {days} days ago"))
        }),
    },
    FlagDef {
        key: FlagKey::NegativeFeedback,
        name: "negative-feedback",
        severity: Severity::Medium,
        penalty: 10,
        origin: Origin::TrustedPayers,
        condition: "counted reviewing entities >= NEGATIVE_FEEDBACK_MIN_ENTITIES (3), counted weight >= NEGATIVE_FEEDBACK_MIN_WEIGHT (1) and their weighted mean rating < NEGATIVE_FEEDBACK_MEAN (40/100)",
        explainer: "Trusted clients who paid rate the service poorly.",
        check: Check::Seller(|f| {
            let r = &f.reputation;
            if r.reviewing_entities < t::NEGATIVE_FEEDBACK_MIN_ENTITIES
                || r.review_weight < t::NEGATIVE_FEEDBACK_MIN_WEIGHT
            {
                return None;
            }
            let mean = r.review_sum / r.review_weight;
            (mean < t::NEGATIVE_FEEDBACK_MEAN).then(|| format!("paying clients rate it {:.0}/100", mean * 100.0))
        }),
    },
    FlagDef {
        key: FlagKey::EndpointFlapping,
        name: "endpoint-flapping",
        severity: Severity::Low,
        penalty: 5,
        origin: Origin::Probe,
        condition: "probes >= MIN_PROBES (3) and ok-rate in [20%, 80%)",
        explainer: "The endpoint is up only part of the time.",
        check: Check::Seller(|f| {
            let rate = f.sla.ok_rate()?;
            (f.sla.samples >= t::MIN_PROBES && rate >= t::FLAPPING_OK_RATE.0 && rate < t::FLAPPING_OK_RATE.1)
                .then(|| format!("{} of {} probes alive", f.sla.ok, f.sla.samples))
        }),
    },
    FlagDef {
        key: FlagKey::FreshOperator,
        name: "fresh-operator",
        severity: Severity::Low,
        penalty: 5,
        origin: Origin::Seller,
        condition: "first listed fewer than FRESH_OPERATOR_DAYS (7) days ago",
        explainer: "New operator: too little history to judge.",
        check: Check::Seller(|f| {
            (f.listing_count > 0 && f.age_days < t::FRESH_OPERATOR_DAYS)
                .then(|| format!("first listed {} days ago", f.age_days))
        }),
    },
    FlagDef {
        key: FlagKey::PayerConcentration,
        name: "payer-concentration",
        severity: Severity::Low,
        penalty: 0,
        origin: Origin::TrustedPayers,
        condition: "trusted entities >= 2 and the top trusted entity made >= TOP_ENTITY_SHARE (60%) of trusted settlements",
        explainer: "One customer dominates: revenue depends on a single client.",
        check: Check::Seller(|f| {
            let d = &f.demand;
            (d.trusted_entities >= 2 && d.top_entity_share >= t::TOP_ENTITY_SHARE)
                .then(|| format!("top entity made {} of trusted settlements", pct(d.top_entity_share)))
        }),
    },
    FlagDef {
        key: FlagKey::MetronomePayments,
        name: "metronome-payments",
        severity: Severity::Low,
        penalty: 0,
        origin: Origin::Outsider,
        condition: "qualifying settlements >= METRONOME_MIN_SETTLEMENTS (10), gap CV <= METRONOME_MAX_CV (0.15) and exact-price share >= METRONOME_EXACT_SHARE (95%)",
        explainer: "Exact-price payments at clockwork intervals: scripted buyers (monitoring bots, or wash trading).",
        check: Check::Seller(|f| {
            let d = &f.demand;
            let cv = d.interval_cv?;
            (d.settlements >= t::METRONOME_MIN_SETTLEMENTS
                && cv <= t::METRONOME_MAX_CV
                && d.exact_price_share >= t::METRONOME_EXACT_SHARE)
                .then(|| format!("gap CV {cv:.2}, {} at an advertised price", pct(d.exact_price_share)))
        }),
    },
    FlagDef {
        key: FlagKey::NoIdentityProofs,
        name: "no-identity-proofs",
        severity: Severity::Info,
        penalty: 0,
        origin: Origin::Absence,
        condition: "no identity proof of any type",
        explainer: "No multi-source identity proofs: unverified provenance.",
        check: Check::Seller(|f| f.proofs.is_empty().then(|| "0 identity proofs".to_owned())),
    },
    FlagDef {
        key: FlagKey::ClusteredPayers,
        name: "clustered-payers",
        severity: Severity::Info,
        penalty: 0,
        origin: Origin::Outsider,
        condition: "qualifying payers >= CLUSTER_RATIO (3) × paying entities",
        explainer: "Many paying wallets share a few funders; they count as one customer each funder.",
        check: Check::Seller(|f| {
            let d = &f.demand;
            (d.entities > 0 && f64::from(d.payers) >= t::CLUSTER_RATIO * f64::from(d.entities))
                .then(|| format!("{} payers merged into {} entities", d.payers, d.entities))
        }),
    },
    FlagDef {
        key: FlagKey::UnpaidFeedback,
        name: "unpaid-feedback",
        severity: Severity::Info,
        penalty: 0,
        origin: Origin::Outsider,
        condition: "feedback clients whose entity never paid the seller >= UNPAID_FEEDBACK_MIN (5)",
        explainer: "ERC-8004 feedback from wallets that never paid: given no weight.",
        check: Check::Seller(|f| {
            let r = &f.reputation;
            (r.unpaid_feedback_clients >= t::UNPAID_FEEDBACK_MIN)
                .then(|| format!("{} of {} feedback clients never paid", r.unpaid_feedback_clients, r.feedback_clients))
        }),
    },
    FlagDef {
        key: FlagKey::UnattributedTransfers,
        name: "unattributed-transfers",
        severity: Severity::Info,
        penalty: 0,
        origin: Origin::Outsider,
        condition: "transfers that are not facilitator-settled payments in an x402 settlement form on the listing's network and asset, or are below every advertised price, >= 1",
        explainer: "Transfers that are not x402 payments at the advertised price: shown, never counted as demand.",
        check: Check::Seller(|f| {
            let d = &f.demand;
            (d.unattributed + d.below_price > 0)
                .then(|| format!("{} unattributed, {} below price", d.unattributed, d.below_price))
        }),
    },
    FlagDef {
        key: FlagKey::CaseDuplicate,
        name: "case-duplicate",
        severity: Severity::Info,
        penalty: 0,
        origin: Origin::Seller,
        condition: "listings spell the address in more than one letter case",
        explainer: "Listed under several spellings of one address; merged into one entry.",
        check: Check::Seller(|f| (f.case_variants > 1).then(|| format!("{} spellings merged", f.case_variants))),
    },
];

/// Raises every seller flag whose condition holds, in table order.
pub fn evaluate_flags(features: &SellerFeatures) -> Vec<FlagHit> {
    raise(|check| match check {
        Check::Seller(check) => check(features),
        Check::Deployer(_) => None,
    })
}

/// Raises every deployer flag whose condition holds, in table order.
pub fn evaluate_deployer_flags(features: &DeployerFeatures) -> Vec<FlagHit> {
    raise(|check| match check {
        Check::Deployer(check) => check(features),
        Check::Seller(_) => None,
    })
}

fn raise(detail: impl Fn(Check) -> Option<String>) -> Vec<FlagHit> {
    FLAGS
        .iter()
        .filter_map(|def| detail(def.check).map(|detail| FlagHit { key: def.key, severity: def.severity, detail }))
        .collect()
}

/// The flag table as Markdown, as `SCORING.md` prints it between its `flags` markers.
pub fn markdown_table() -> String {
    let mut out = String::from(
        "| key | severity | penalty | evidence from | condition | explainer |\n|---|---|---|---|---|---|\n",
    );
    for d in FLAGS {
        out.push_str(&format!(
            "| `{}` | {} | {} | {} | {} | {} |\n",
            d.name,
            d.severity.as_str(),
            d.penalty,
            d.origin.as_str(),
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
    fn conditions_quote_the_thresholds_they_use() {
        let quoted = |name: &str, value: String| {
            let text = format!("{name} ({value})");
            assert!(FLAGS.iter().any(|d| d.condition.contains(&text)), "no condition quotes {text}");
        };
        quoted("PAY_THEN_FAIL_ENTITIES", t::PAY_THEN_FAIL_ENTITIES.to_string());
        quoted("PAY_THEN_FAIL_SHARE", pct(t::PAY_THEN_FAIL_SHARE));
        quoted("PAY_THEN_FAIL_PROBE_SHARE", pct(t::PAY_THEN_FAIL_PROBE_SHARE));
        quoted("PAY_THEN_FAIL_PAID_PROBES", t::PAY_THEN_FAIL_PAID_PROBES.to_string());
        quoted("OFFER_MISMATCH_MIN", t::OFFER_MISMATCH_MIN.to_string());
        quoted("OFFER_MISMATCH_SHARE", pct(t::OFFER_MISMATCH_SHARE));
        quoted("SELF_DEALING_SHARE", pct(t::SELF_DEALING_SHARE));
        quoted("TRUSTED_ENTITY_MIN", crate::trust::TRUSTED_ENTITY_MIN.to_string());
        quoted("MIN_PROBES", t::MIN_PROBES.to_string());
        quoted("FRESH_OPERATOR_DAYS", t::FRESH_OPERATOR_DAYS.to_string());
        quoted("TOP_ENTITY_SHARE", pct(t::TOP_ENTITY_SHARE));
        quoted("UNPAID_FEEDBACK_MIN", t::UNPAID_FEEDBACK_MIN.to_string());
        quoted("METRONOME_MIN_SETTLEMENTS", t::METRONOME_MIN_SETTLEMENTS.to_string());
        quoted("METRONOME_MAX_CV", t::METRONOME_MAX_CV.to_string());
        quoted("METRONOME_EXACT_SHARE", pct(t::METRONOME_EXACT_SHARE));
        quoted("CLUSTER_RATIO", t::CLUSTER_RATIO.to_string());
        quoted("DORMANT_DAYS", t::DORMANT_DAYS.to_string());
        quoted("NEGATIVE_FEEDBACK_MIN_ENTITIES", t::NEGATIVE_FEEDBACK_MIN_ENTITIES.to_string());
        quoted("NEGATIVE_FEEDBACK_MIN_WEIGHT", t::NEGATIVE_FEEDBACK_MIN_WEIGHT.to_string());
        for hops in [
            format!("TAINT_HOPS, {}", crate::trust::TAINT_HOPS),
            format!("MAX_FUNDING_HOPS, {}", crate::trust::MAX_FUNDING_HOPS),
        ] {
            assert!(FLAGS.iter().any(|d| d.condition.contains(&hops)), "no condition quotes {hops}");
        }
    }

    #[test]
    fn outsider_evidence_never_weighs_on_the_decision() {
        for d in FLAGS.iter().filter(|d| d.origin == Origin::Outsider) {
            assert!(d.severity <= Severity::Low && d.penalty == 0, "{} breaks the griefing rule", d.name);
        }
    }

    /// The absence rule (`SCORING.md` § 4): a flag that fires on missing evidence never weighs on
    /// the decision; a warning needs evidence.
    #[test]
    fn absence_of_evidence_never_weighs_on_the_decision() {
        for d in FLAGS.iter().filter(|d| d.origin == Origin::Absence) {
            assert!(d.severity <= Severity::Low && d.penalty == 0, "{} breaks the absence rule", d.name);
        }
    }

    #[test]
    fn single_payer_fires_only_with_one_payer() {
        let mut f = SellerFeatures::default();
        f.demand.settlements = 10;
        f.demand.payers = 1;
        assert!(evaluate_flags(&f).iter().any(|h| h.key == FlagKey::SinglePayer));
        f.demand.payers = 2;
        assert!(!evaluate_flags(&f).iter().any(|h| h.key == FlagKey::SinglePayer));
    }
}
