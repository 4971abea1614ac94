//! Knob ranges of every attack family and honest pattern: each instance draws its knobs uniformly
//! from the range of its world's [`KnobRange`]. The `Test` range of a knob always contains its
//! `Tune` range (and is wider for most knobs), so the held-out world holds instances the model was
//! never tuned on.

use std::collections::BTreeMap;

use rand::Rng;
use serde::{Deserialize, Serialize};

/// Which knob ranges a world draws from.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum KnobRange {
    /// The ranges the model may be tuned on.
    Tune,
    /// Wider ranges (supersets) for the held-out evaluation world.
    Test,
}

impl KnobRange {
    /// `tune` or `test`.
    pub fn as_str(self) -> &'static str {
        match self {
            KnobRange::Tune => "tune",
            KnobRange::Test => "test",
        }
    }
}

/// One knob of one family.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct KnobSpec {
    /// Family (seller or deployer kind, kebab-case).
    pub family: &'static str,
    /// Knob name (as in the labels).
    pub knob: &'static str,
    /// Tune range, inclusive.
    pub tune: (f64, f64),
    /// Test range, inclusive.
    pub test: (f64, f64),
    /// Drawn as an integer.
    pub integer: bool,
}

const fn k(family: &'static str, knob: &'static str, tune: (f64, f64), test: (f64, f64), integer: bool) -> KnobSpec {
    KnobSpec { family, knob, tune, test, integer }
}

/// Every knob.
pub const KNOBS: &[KnobSpec] = &[
    // Attack families.
    k("wash-ring", "payers", (3.0, 12.0), (3.0, 20.0), true),
    k("wash-ring", "funders", (1.0, 3.0), (1.0, 5.0), true),
    k("wash-ring", "hops", (1.0, 2.0), (1.0, 3.0), true),
    k("wash-ring", "jitter", (0.0, 0.25), (0.0, 0.5), false),
    k("wash-ring", "decoy", (0.0, 1.0), (0.0, 1.0), true),
    k("wash-ring", "pays_per_day", (0.2, 2.0), (0.1, 4.0), false),
    k("wash-ring", "honest_spend_usdc", (0.0, 0.0), (0.0, 2.0), false),
    k("hub-dusting", "fan_out", (150.0, 300.0), (150.0, 400.0), true),
    k("hub-dusting", "dust_micro", (1.0, 500.0), (1.0, 1000.0), true),
    k("hub-dusting", "payers", (3.0, 10.0), (3.0, 20.0), true),
    k("hub-dusting", "jitter", (0.0, 0.25), (0.0, 0.5), false),
    k("hub-dusting", "pays_per_day", (0.2, 2.0), (0.1, 4.0), false),
    k("hub-dusting", "honest_spend_usdc", (0.0, 0.0), (0.0, 2.0), false),
    k("self-funding-intermediaries", "hops", (1.0, 2.0), (1.0, 3.0), true),
    k("self-funding-intermediaries", "payers", (3.0, 10.0), (2.0, 20.0), true),
    k("self-funding-intermediaries", "jitter", (0.0, 0.3), (0.0, 0.6), false),
    k("self-funding-intermediaries", "pays_per_day", (0.2, 2.0), (0.1, 4.0), false),
    k("self-funding-intermediaries", "honest_spend_usdc", (0.0, 0.0), (0.0, 2.0), false),
    k("sock-puppets", "puppets", (2.0, 30.0), (2.0, 50.0), true),
    k("sock-puppets", "price_ratio", (0.8, 1.0), (0.5, 1.0), false),
    k("sock-puppets", "lead_days", (0.0, 60.0), (0.0, 90.0), true),
    k("sock-puppets", "honest_spend_usdc", (0.0, 10.0), (0.0, 20.0), false),
    k("sock-puppets", "proof_share", (0.0, 0.5), (0.0, 1.0), false),
    k("sock-puppets", "pays_per_day", (0.05, 0.6), (0.03, 1.2), false),
    k("paid-once-reviewers", "reviewers", (5.0, 40.0), (5.0, 60.0), true),
    k("paid-once-reviewers", "pay_ratio", (0.5, 1.0), (0.01, 1.0), false),
    k("paid-once-reviewers", "rating_min", (93.0, 97.0), (90.0, 97.0), false),
    k("paid-once-reviewers", "honest_spend_usdc", (0.0, 0.0), (0.0, 2.0), false),
    k("pay-then-fail", "fail_share", (0.7, 1.0), (0.6, 1.0), false),
    k("offer-mismatch", "mode", (0.0, 2.0), (0.0, 2.0), true),
    k("offer-mismatch", "price_factor", (1.5, 3.0), (1.1, 10.0), false),
    k("offer-mismatch", "mismatch_share", (0.8, 1.0), (0.5, 1.0), false),
    k("unattributed-demand", "puppets", (3.0, 15.0), (2.0, 30.0), true),
    k("unattributed-demand", "plain_share", (0.5, 1.0), (0.2, 1.0), false),
    k("unattributed-demand", "pays_per_day", (0.2, 1.5), (0.1, 3.0), false),
    k("denylist-funded", "hops", (0.0, 1.0), (0.0, 2.0), true),
    k("self-dealing", "self_pay_share", (0.2, 0.4), (0.1, 0.6), false),
    k("self-dealing", "payers", (3.0, 6.0), (2.0, 10.0), true),
    k("sybil-feedback", "reviewers", (8.0, 40.0), (5.0, 80.0), true),
    k("sybil-feedback", "rating_min", (92.0, 95.0), (85.0, 95.0), false),
    k("dead", "dead_for_days", (8.0, 25.0), (3.0, 28.0), true),
    // Honest patterns.
    k("treasury-fleet", "fleet", (3.0, 12.0), (3.0, 30.0), true),
    k("treasury-fleet", "period_hours", (6.0, 24.0), (2.0, 24.0), true),
    k("treasury-fleet", "ordinary_customers", (0.0, 1.0), (0.0, 1.0), true),
    k("smart-account-buyers", "accounts", (5.0, 40.0), (3.0, 80.0), true),
    k("smart-account-buyers", "smart_share", (0.5, 0.8), (0.3, 1.0), false),
    k("multi-price", "resources", (2.0, 3.0), (2.0, 4.0), true),
    k("multi-price", "cheap", (0.0, 1.0), (0.0, 1.0), true),
    k("new-honest", "listed_days_ago", (1.0, 6.0), (1.0, 6.0), true),
    k("cron-buyers", "bots", (1.0, 2.0), (1.0, 4.0), true),
    k("cron-buyers", "period_minutes", (60.0, 720.0), (15.0, 1440.0), true),
    // Deployers.
    k("slow-rugger", "first_dump_share", (0.35, 0.45), (0.25, 0.55), false),
    k("slow-rugger", "final_day", (5.0, 8.0), (5.0, 10.0), true),
    k("decoy-rugger", "decoys", (2.0, 2.0), (1.0, 3.0), true),
    k("rugger-funded", "from_denylist", (0.0, 1.0), (0.0, 1.0), true),
];

/// The spec of a knob.
pub fn spec(family: &str, knob: &str) -> &'static KnobSpec {
    KNOBS.iter().find(|s| s.family == family && s.knob == knob).unwrap_or_else(|| panic!("no knob {family}.{knob}"))
}

/// The drawn knobs of one instance.
#[derive(Debug, Clone)]
pub(crate) struct Knobs {
    pub range: KnobRange,
    pub family: &'static str,
    pub values: BTreeMap<String, f64>,
}

impl Knobs {
    pub fn new(range: KnobRange, family: &'static str) -> Self {
        Self { range, family, values: BTreeMap::new() }
    }

    /// Draws a knob uniformly from its range and records it.
    pub fn draw(&mut self, r: &mut impl Rng, knob: &'static str) -> f64 {
        let s = spec(self.family, knob);
        let (lo, hi) = match self.range {
            KnobRange::Tune => s.tune,
            KnobRange::Test => s.test,
        };
        let v = if s.integer {
            r.random_range(lo.round() as i64..=hi.round() as i64) as f64
        } else if hi > lo {
            r.random_range(lo..=hi)
        } else {
            lo
        };
        self.values.insert(knob.to_owned(), v);
        v
    }

    /// Records a knob's value (e.g. one a cost probe set).
    pub fn set(&mut self, knob: &str, v: f64) {
        self.values.insert(knob.to_owned(), v);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn test_ranges_contain_tune_ranges() {
        let mut wider = std::collections::BTreeSet::new();
        for s in KNOBS {
            assert!(s.tune.0 <= s.tune.1 && s.test.0 <= s.test.1, "{}.{}", s.family, s.knob);
            assert!(s.test.0 <= s.tune.0 && s.tune.1 <= s.test.1, "{}.{} test ⊉ tune", s.family, s.knob);
            if s.test != s.tune {
                wider.insert(s.family);
            }
        }
        for family in [
            "wash-ring",
            "hub-dusting",
            "self-funding-intermediaries",
            "sock-puppets",
            "paid-once-reviewers",
            "pay-then-fail",
            "offer-mismatch",
            "unattributed-demand",
            "denylist-funded",
        ] {
            assert!(wider.contains(family), "{family} has no wider test knob");
        }
    }
}
