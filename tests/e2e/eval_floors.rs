//! Verdict quality on the held-out test world (another seed, wider knob ranges than the world the
//! model was tuned on) stays above the floors reached, and `SCORING.md`'s evaluation section is
//! exactly this report.

use agentrep_datasets::{Scale, WorldConfig};
use agentrep_lake::Lake;
use agentrep_publish::{PublishConfig, SnapshotStore};

/// Floors reached on the test world. `SCORING.md` § 8 gives the figures and the targets;
/// where a target is missed, the floor here is the figure reached, so a change that loses ground
/// fails.
mod floors {
    /// CAUTION∪BLOCK recall of every attack family not listed below (the target).
    pub const FAMILY_RECALL: f64 = 0.9;
    /// Families under the target, with the recall reached.
    pub const FAMILY_RECALL_REACHED: &[(&str, f64)] =
        &[("hub-dusting", 0.10), ("pay-then-fail", 0.50), ("sybil-feedback", 0.80), ("wash-ring", 0.70)];
    /// False positives of each honest pattern not listed below (the target).
    pub const PATTERN_FP: f64 = 0.10;
    /// Patterns over the target, with the false-positive rate reached.
    pub const PATTERN_FP_REACHED: &[(&str, f64)] = &[
        ("honest", 0.10),
        ("cron-buyers", 0.20),
        ("flapping", 0.20),
        ("multi-price", 0.20),
        ("new-honest", 0.65),
        ("smart-account-buyers", 0.50),
        ("treasury-fleet", 0.65),
        ("young", 0.35),
    ];
    /// Honest false positives overall (target 0.03).
    pub const HONEST_FP: f64 = 0.17;
    /// Griefing success at 100 USDC (the target).
    pub const GRIEF_AT_100: f64 = 0.01;
    /// Cheapest non-recoverable spend that reached PROCEED, for every recipe (the target).
    pub const COST_TO_FAKE: f64 = 100.0;
}

fn reached(table: &[(&str, f64)], kind: &str, default: f64) -> f64 {
    table.iter().find(|(k, _)| *k == kind).map_or(default, |(_, v)| *v)
}

#[test]
fn test_world_meets_the_evaluation_floors() {
    let dir = tempfile::tempdir().unwrap();
    let config = WorldConfig::test_world(Scale::Small);
    let lake_dir = dir.path().join("lake");
    agentrep_datasets::generate(&config, &lake_dir, &|_, _| {}).unwrap();
    let store = SnapshotStore::new(dir.path().join("snapshots"));
    agentrep_jobs::commands::rebuild_days(&Lake::new(&lake_dir), &store, &PublishConfig::default(), &[config.end])
        .unwrap();
    let report = agentrep_jobs::eval::evaluate(&lake_dir, store.root()).unwrap();
    eprintln!("{}", report.render());
    assert_eq!(report.missing, 0);
    for k in &report.kinds {
        if let Some(r) = k.flagged {
            let floor = reached(floors::FAMILY_RECALL_REACHED, &k.kind, floors::FAMILY_RECALL);
            assert!(r.rate >= floor, "{}: recall {:?} under {floor}", k.kind, r);
        }
        if let Some(fp) = k.false_positive {
            let ceiling = reached(floors::PATTERN_FP_REACHED, &k.kind, floors::PATTERN_FP);
            assert!(fp.rate <= ceiling, "{}: false positives {:?} over {ceiling}", k.kind, fp);
        }
        if let Some(p) = k.proceed {
            assert_eq!(p.k, 0, "{}: ghosts never PROCEED", k.kind);
        }
        if k.kind == "denylisted" {
            assert_eq!(k.decisions.keys().collect::<Vec<_>>(), vec!["BLOCK"], "denylisted sellers are always blocked");
        }
    }
    assert!(report.honest_false_positive.rate <= floors::HONEST_FP, "{:?}", report.honest_false_positive);
    let grief = report.griefing.iter().find(|g| g.budget_usdc == 100.0).expect("the test world has griefing");
    assert!(grief.lowered.rate <= floors::GRIEF_AT_100, "{:?}", grief);
    for c in &report.cost_to_fake {
        assert!(
            c.cheapest_proceed_usdc.is_none_or(|usdc| usdc >= floors::COST_TO_FAKE),
            "{}: PROCEED faked for {:?} USDC",
            c.recipe,
            c.cheapest_proceed_usdc
        );
    }
    assert!(report.cost_to_fake.len() >= 5, "every spend recipe is searched");
    agentrep_tests::check_generated_section(
        "SCORING.md",
        "eval",
        "an agentrep eval of the test world",
        &report.markdown(),
    );
}
