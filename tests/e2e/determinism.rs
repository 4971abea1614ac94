//! Same lake, same day: byte-identical snapshot folders, whatever the wall clock.

use agentrep_publish::{PublishConfig, SnapshotStore};
use agentrep_tests::{read_tree, shared_world};

#[test]
fn rebuilding_a_day_twice_gives_byte_identical_snapshots() {
    let world = shared_world();
    let day = world.days()[3];
    let lake = world.lake();
    let roots = [tempfile::tempdir().unwrap(), tempfile::tempdir().unwrap()];
    let mut trees = Vec::new();
    for root in &roots {
        let (input, _) = agentrep_pipeline::rebuild(&lake, day).unwrap();
        let published = SnapshotStore::new(root.path()).publish(&input, &PublishConfig::default()).unwrap();
        trees.push((published.id, agentrep_tests::read_snapshot(&published.dir)));
    }
    assert_eq!(trees[0].0, trees[1].0, "snapshot ids differ");
    assert!(trees[0].1.len() > 1000, "a snapshot holds per-wallet files");
    let (a, b) = (&trees[0].1, &trees[1].1);
    assert_eq!(a.len(), b.len());
    for ((pa, ba), (pb, bb)) in a.iter().zip(b) {
        assert_eq!(pa, pb);
        assert!(ba == bb, "{pa} differs between two rebuilds of the same lake");
    }
}

#[test]
fn manifest_lists_every_file_with_its_hash() {
    let world = shared_world();
    let dir = SnapshotStore::new(world.snapshots()).current_dir().unwrap();
    // Loading verifies every size and SHA-256 against the manifest.
    let loaded = agentrep_publish::LoadedSnapshot::load(&dir).unwrap();
    let on_disk = read_tree(&dir).len();
    assert_eq!(loaded.manifest.files.len() + 1, on_disk, "manifest lists every file but itself");
    assert_eq!(loaded.manifest.methodology, agentrep_model::METHODOLOGY_VERSION);
    assert!(loaded.manifest.generated_at.ends_with("T00:00:00Z"));
}
