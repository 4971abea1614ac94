//! The snapshot's record tables hold every record the rebuild handed the publisher, and
//! `agentrep export-static`, run as an operator runs it, renders from them the file tree the
//! publisher wrote, byte for byte: the snapshot without its tables, with a manifest that lists the
//! rest.

use agentrep_pipeline::rebuild;
use agentrep_publish::layout::{FileKind, MANIFEST, classify};
use agentrep_publish::static_export::is_rendered;
use agentrep_publish::tables::SnapshotRecords;
use agentrep_publish::wire::ManifestV1;
use agentrep_publish::{PublishConfig, SnapshotStore};
use agentrep_tests::process::base_command;
use agentrep_tests::{build_world, read_tree, shared_world};

#[test]
fn the_tables_read_back_the_records_the_rebuild_published() {
    let world = build_world(4, 3);
    let (input, _) = rebuild(&world.lake(), world.days()[3]).expect("rebuilds");
    let dir = tempfile::tempdir().unwrap();
    let published = SnapshotStore::new(dir.path()).publish(&input, &PublishConfig::default()).expect("publishes");

    let records = SnapshotRecords::open(&published.dir).expect("the tables open");
    assert!(!input.sellers.is_empty() && !input.deployers.is_empty());
    let sellers = records.all_sellers().expect("sellers decode");
    assert_eq!(sellers.len(), input.sellers.len());
    for (read, published) in sellers.iter().zip(&input.sellers) {
        let (read, published) = (serde_json::to_value(read).unwrap(), serde_json::to_value(published).unwrap());
        assert_eq!(read, published, "seller {}", published["address"]);
    }
    assert!(same(&records.all_deployers().expect("deployers decode"), &input.deployers), "the deployers differ");
    assert!(same(&records.all_tokens().expect("tokens decode"), &input.buyer_trust), "the tokens differ");
    let one = &input.sellers[input.sellers.len() / 2];
    let row = records.sellers.get(&one.address).expect("decodes").expect("has a row");
    assert!(same(&(&row.assessment, &row.history), &(&one.assessment, &one.history)));
}

/// Equal as JSON: a count that is not a number (days since no settlement) equals itself.
fn same<T: serde::Serialize>(a: &T, b: &T) -> bool {
    serde_json::to_value(a).expect("encodes") == serde_json::to_value(b).expect("encodes")
}

#[test]
fn export_static_writes_the_published_tree_from_the_tables() {
    let world = shared_world();
    let store = SnapshotStore::new(world.snapshots());
    let current = store.current_dir().expect("a current snapshot");
    let id = current.file_name().expect("a folder").to_string_lossy().into_owned();
    let out = tempfile::tempdir().unwrap();
    let to = out.path().join("static");

    let run = base_command()
        .args(["export-static", "--snapshot", &id, "--to"])
        .arg(&to)
        .env("AGENTREP_SNAPSHOTS", world.snapshots())
        .output()
        .expect("runs");
    assert!(run.status.success(), "export-static failed: {}", String::from_utf8_lossy(&run.stderr));
    let said = String::from_utf8_lossy(&run.stdout);
    assert!(said.contains("rendered from its tables"), "{said}");

    let mut published = read_tree(&current);
    let exported = read_tree(&to);
    // The tables are the export's source, not part of the static tree; its manifest lists the rest.
    published.retain(|(path, _)| classify(path) != FileKind::Table);
    let manifest = |bytes: &[u8]| serde_json::from_slice::<ManifestV1>(bytes).expect("a manifest");
    let entry = |t: &[(String, Vec<u8>)]| t.iter().position(|(p, _)| p == MANIFEST).expect("a manifest");
    let (at, mut expected) = (entry(&published), manifest(&published[entry(&published)].1));
    assert_eq!(expected.files.iter().filter(|f| classify(&f.path) == FileKind::Table).count(), 3);
    expected.files.retain(|f| classify(&f.path) != FileKind::Table);
    assert_eq!(manifest(&exported[entry(&exported)].1), expected);
    published.remove(at);
    assert!(published.iter().filter(|(path, _)| is_rendered(path)).count() > 2_000, "the tree renders wallets");
    let paths = |t: &[(String, Vec<u8>)]| t.iter().map(|(p, _)| p.clone()).collect::<Vec<_>>();
    let mut exported_paths = paths(&exported);
    exported_paths.retain(|p| p != MANIFEST);
    assert_eq!(exported_paths, paths(&published), "the trees hold other files");
    for ((path, a), (_, b)) in exported.iter().filter(|(p, _)| p != MANIFEST).zip(&published) {
        assert!(a == b, "{path} differs from the published file");
    }

    // Into a folder that holds files it refuses, and leaves them as they were.
    let again = base_command()
        .args(["export-static", "--to"])
        .arg(&to)
        .env("AGENTREP_SNAPSHOTS", world.snapshots())
        .output()
        .expect("runs");
    assert!(!again.status.success());
    assert!(
        String::from_utf8_lossy(&again.stderr).contains("is not empty"),
        "{}",
        String::from_utf8_lossy(&again.stderr)
    );
    assert!(read_tree(&to) == exported);
    // An unknown snapshot id is named in the error.
    let unknown = base_command()
        .args(["export-static", "--snapshot", "2026-01-01-nothing", "--to"])
        .arg(out.path().join("other"))
        .env("AGENTREP_SNAPSHOTS", world.snapshots())
        .output()
        .expect("runs");
    assert!(String::from_utf8_lossy(&unknown.stderr).contains("no snapshot 2026-01-01-nothing"));
}
