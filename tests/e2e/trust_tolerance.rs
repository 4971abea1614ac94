//! Trust stops at a stated tolerance (`agentrep_model::trust::TOLERANCE`), not after a fixed count
//! of iterations: a rebuild that iterates trust to its exact fixed point decides every seller,
//! deployer and token the same way, with the same scores and flags.

use agentrep_lake::Lake;
use agentrep_model::SnapshotInput;
use agentrep_pipeline::{RebuildOptions, rebuild_with};
use agentrep_tests::{copy_dir, shared_world};

fn rebuild(lake: &Lake, day: chrono::NaiveDate, exact_trust: bool) -> SnapshotInput {
    rebuild_with(lake, day, RebuildOptions { exact_trust, ..Default::default() }).expect("rebuilds").0
}

#[test]
fn trust_at_its_tolerance_decides_as_the_exact_fixed_point_does() {
    let world = shared_world();
    let dir = tempfile::tempdir().unwrap();
    copy_dir(world.lake().root(), &dir.path().join("lake")).unwrap();
    let lake = Lake::new(dir.path().join("lake"));
    let day = *world.days().last().expect("a day");
    let (tolerant, exact) = (rebuild(&lake, day, false), rebuild(&lake, day, true));

    assert_eq!(tolerant.sellers.len(), exact.sellers.len());
    // The figures trust feeds agree to far below what any threshold or published rounding sees
    // (the bound is 6e-9 seed units over every wallet), and trust does reach the sellers.
    let mass = |i: &SnapshotInput| i.sellers.iter().map(|s| s.features.demand.trust_mass).collect::<Vec<_>>();
    let (m1, m2) = (mass(&tolerant), mass(&exact));
    assert!(m2.iter().filter(|m| **m > 0.0).count() > 100, "trust reaches the sellers");
    let apart: f64 = m1.iter().zip(&m2).map(|(a, b)| (a - b).abs()).sum();
    assert!(apart < 1e-7, "trust mass differs by {apart:e} in all");
    for (a, b) in tolerant.sellers.iter().zip(&exact.sellers) {
        let (x, y) = (a.features.demand.weighted_entities, b.features.demand.weighted_entities);
        assert!((x - y).abs() < 1e-7, "{}: weighted entities {x} against {y}", a.address);
    }
    assert!(tolerant.sellers.len() > 1_000, "the small world scores its sellers");
    for (a, b) in tolerant.sellers.iter().zip(&exact.sellers) {
        assert_eq!(a.address, b.address);
        let (x, y) = (&a.assessment, &b.assessment);
        assert_eq!((x.score, x.decision, &x.flags, x.tier), (y.score, y.decision, &y.flags, y.tier), "{}", a.address);
        assert!((x.confidence - y.confidence).abs() < 1e-6, "{}: confidence", a.address);
    }
    for (a, b) in tolerant.deployers.iter().zip(&exact.deployers) {
        assert_eq!(
            (&a.address, a.assessment.score, a.assessment.verdict),
            (&b.address, b.assessment.score, b.assessment.verdict)
        );
    }
    assert_eq!(tolerant.buyer_trust.len(), exact.buyer_trust.len());
    for (a, b) in tolerant.buyer_trust.iter().zip(&exact.buyer_trust) {
        assert_eq!((&a.token, &a.verdict), (&b.token, &b.verdict));
    }
}
