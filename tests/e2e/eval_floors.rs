//! Verdict quality on the held-out test world (another seed, wider knob ranges than the world the
//! model was tuned on) stays above the floors reached, and `SCORING.md`'s evaluation section is
//! exactly this report.

use agentrep_datasets::{Scale, WorldConfig};
use agentrep_lake::Lake;
use agentrep_publish::{PublishConfig, SnapshotStore};

/// Floors reached on the test world (`SCORING.md` § 7 gives the figures and the targets).
mod floors {
    /// Every attack family's CAUTION∪BLOCK recall, except those listed in `FAMILY_EXCEPTIONS`.
    pub const FAMILY_RECALL: f64 = 0.9;
    /// Families below `FAMILY_RECALL`, with their own floor.
    pub const FAMILY_EXCEPTIONS: &[(&str, f64)] = &[];
    /// Honest false positives overall.
    pub const HONEST_FP: f64 = 0.03;
    /// Each unusual-honest pattern's false positives.
    pub const PATTERN_FP: f64 = 0.10;
    /// Griefing success at 100 USDC.
    pub const GRIEF_AT_100: f64 = 0.01;
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
            let floor = floors::FAMILY_EXCEPTIONS
                .iter()
                .find(|(kind, _)| *kind == k.kind)
                .map_or(floors::FAMILY_RECALL, |(_, f)| *f);
            assert!(r.rate >= floor, "{}: recall {:?} under {floor}", k.kind, r);
        }
        if let Some(fp) = k.false_positive {
            assert!(fp.rate <= floors::PATTERN_FP, "{}: false positives {:?}", k.kind, fp);
        }
        if k.kind == "denylisted" {
            assert_eq!(k.decisions.keys().collect::<Vec<_>>(), vec!["BLOCK"], "denylisted sellers are always blocked");
        }
    }
    assert!(report.honest_false_positive.rate <= floors::HONEST_FP, "{:?}", report.honest_false_positive);
    let grief = report.griefing.iter().find(|g| g.budget_usdc == 100.0).expect("the test world has griefing");
    assert!(grief.lowered.rate <= floors::GRIEF_AT_100, "{:?}", grief);
    agentrep_tests::check_generated_section(
        "SCORING.md",
        "eval",
        "an agentrep eval of the test world",
        &report.markdown(),
    );
}
