//! Verdict quality on the default world stays above the floors in SCORING.md.

use agentrep_datasets::{Scale, WorldConfig};
use agentrep_lake::Lake;
use agentrep_publish::{PublishConfig, SnapshotStore};

#[test]
fn default_world_meets_the_evaluation_floors() {
    let dir = tempfile::tempdir().unwrap();
    let config = WorldConfig::new(Scale::Small);
    let lake_dir = dir.path().join("lake");
    agentrep_datasets::generate(&config, &lake_dir, &|_, _| {}).unwrap();
    let store = SnapshotStore::new(dir.path().join("snapshots"));
    agentrep_jobs::commands::rebuild_days(&Lake::new(&lake_dir), &store, &PublishConfig::default(), &[config.end])
        .unwrap();
    let report = agentrep_jobs::eval::evaluate(&lake_dir, store.root()).unwrap();
    eprintln!("{}", report.render());
    assert_eq!(report.missing, 0);
    assert!(report.bad_flagged.precision >= 0.9, "{:?}", report.bad_flagged);
    assert!(report.bad_flagged.recall >= 0.9, "{:?}", report.bad_flagged);
    assert!(report.honest_proceed.precision >= 0.95, "{:?}", report.honest_proceed);
    assert!(report.honest_proceed.recall >= 0.8, "{:?}", report.honest_proceed);
    assert!(report.deployer_avoid.precision >= 0.9, "{:?}", report.deployer_avoid);
    assert!(report.deployer_avoid.recall >= 0.75, "{:?}", report.deployer_avoid);
    assert!(report.spearman_quality >= 0.25, "spearman {}", report.spearman_quality);
    let denylisted = &report.confusion["denylisted"];
    assert_eq!(denylisted.keys().collect::<Vec<_>>(), vec!["BLOCK"], "denylisted sellers are always blocked");
}
