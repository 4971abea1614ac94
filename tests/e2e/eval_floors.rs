//! Verdict quality on the held-out test world (another seed, wider knob ranges than the world the
//! model was tuned on) stays above the floors reached, and `SCORING.md`'s evaluation section is
//! exactly this report.

use agentrep_datasets::{Scale, WorldConfig};
use agentrep_lake::Lake;
use agentrep_publish::{PublishConfig, SnapshotStore};

/// The targets of methodology 3.0.0 on the test world (`agentrep_jobs::eval::targets`), all met
/// when this was written; a change that loses one fails.
mod floors {
    /// False positives of each honest pattern.
    pub const PATTERN_FP: f64 = 0.10;
    /// Honest false positives overall.
    pub const HONEST_FP: f64 = 0.03;
    /// Griefing success at 100 USDC.
    pub const GRIEF_AT_100: f64 = 0.01;
    /// Cheapest non-recoverable spend that reached PROCEED, for every recipe.
    pub const COST_TO_FAKE: f64 = 100.0;
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
    use agentrep_jobs::eval::targets;
    for k in &report.kinds {
        if let Some(r) = k.flagged.filter(|_| targets::EVIDENCE_FAMILIES.contains(&k.kind.as_str())) {
            assert!(r.rate >= targets::FAMILY_RECALL, "{}: recall {:?} under {}", k.kind, r, targets::FAMILY_RECALL);
        }
        if let Some(fp) = k.false_positive {
            assert!(fp.rate <= floors::PATTERN_FP, "{}: false positives {:?} over {}", k.kind, fp, floors::PATTERN_FP);
        }
        if let Some(p) = k.proceed {
            assert!(p.rate <= targets::FAMILY_PROCEED, "{}: PROCEED {:?} over {}", k.kind, p, targets::FAMILY_PROCEED);
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
