//! The snapshot's record tables hold every record the rebuild handed the publisher, and
//! `agentrep export-static`, run as an operator runs it, renders from them the per-wallet files the
//! publisher rendered from the rebuild's records before the snapshot became columnar, byte for
//! byte, beside the snapshot's other files (the tables aside) and a manifest that lists them all.

use agentrep_model::SnapshotInput;
use agentrep_pipeline::rebuild;
use agentrep_publish::exports;
use agentrep_publish::layout::{
    COUNTERPARTIES_CSV, FileKind, LIVE_BASIS, LIVE_CONTEXT, MANIFEST, SELLERS_TABLE, classify,
};
use agentrep_publish::static_export::{context_of, is_rendered, render_tree};
use agentrep_publish::tables::SnapshotRecords;
use agentrep_publish::wire::{ManifestFileV1, ManifestV1};
use agentrep_publish::{PublishConfig, Published, SnapshotStore};
use agentrep_tests::process::base_command;
use agentrep_tests::{build_world, read_tree};
use sha2::Digest as _;
use tempfile::TempDir;

/// A snapshot published from a fresh rebuild, with the records it was published from.
fn published() -> (TempDir, SnapshotInput, Published) {
    let world = build_world(4, 3);
    let (input, _) = rebuild(&world.lake(), world.days()[3]).expect("rebuilds");
    let dir = tempfile::tempdir().unwrap();
    let published = SnapshotStore::new(dir.path()).publish(&input, &PublishConfig::default()).expect("publishes");
    (dir, input, published)
}

#[test]
fn the_tables_read_back_the_records_the_rebuild_published() {
    let (_dir, input, published) = published();
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
    // The snapshot holds the records, not the rendered files.
    assert!(!published.manifest.files.iter().any(|f| is_rendered(&f.path)));
    assert!(!published.dir.join("score").exists() && !published.dir.join("badge").exists());
}

/// Equal as JSON: a count that is not a number (days since no settlement) equals itself.
fn same<T: serde::Serialize>(a: &T, b: &T) -> bool {
    serde_json::to_value(a).expect("encodes") == serde_json::to_value(b).expect("encodes")
}

#[test]
fn export_static_writes_the_rendered_tree_from_the_tables() {
    let (dir, input, published) = published();
    let id = published.manifest.snapshot_id.clone();
    let out = tempfile::tempdir().unwrap();
    let to = out.path().join("static");
    let run = base_command()
        .args(["export-static", "--snapshot", &id, "--to"])
        .arg(&to)
        .env("AGENTREP_SNAPSHOTS", dir.path())
        .output()
        .expect("runs");
    assert!(run.status.success(), "export-static failed: {}", String::from_utf8_lossy(&run.stderr));
    let said = String::from_utf8_lossy(&run.stdout);
    assert!(said.contains("rendered from its tables"), "{said}");

    // What the publisher wrote from the rebuild's records: the rendered files, and every other
    // file of the snapshot but the tables.
    let reference = out.path().join("reference");
    let ctx = context_of(&published.manifest);
    let rendered =
        render_tree(&reference, &ctx, &input.sellers, &input.deployers, &input.buyer_trust).expect("renders");
    assert!(rendered.len() > 2 * input.sellers.len(), "the tree renders every wallet");
    // The counterparties as the CSV the publisher wrote before it wrote them as Parquet: the
    // export converts the Parquet file, this writes the rows.
    let mut csv = Vec::new();
    exports::counterparties().write_csv(&mut csv, &input.counterparties).expect("writes");
    assert!(!input.counterparties.is_empty());
    std::fs::write(reference.join(COUNTERPARTIES_CSV), &csv).unwrap();
    let mut rendered = rendered;
    rendered.push(ManifestFileV1 {
        path: COUNTERPARTIES_CSV.to_owned(),
        size: csv.len() as u64,
        sha256: hex::encode(sha2::Sha256::digest(&csv)),
    });
    let mut expected = read_tree(&reference);
    expected.extend(
        read_tree(&published.dir).into_iter().filter(|(p, _)| p != MANIFEST && classify(p) != FileKind::ServerOnly),
    );
    expected.sort();
    let mut manifest = published.manifest.clone();
    manifest.files.retain(|f| classify(&f.path) != FileKind::ServerOnly);
    manifest.files.extend(rendered);
    manifest.files.sort_by(|a, b| a.path.cmp(&b.path));

    let mut exported = read_tree(&to);
    let at = exported.iter().position(|(p, _)| p == MANIFEST).expect("a manifest");
    let (_, manifest_bytes) = exported.remove(at);
    assert_eq!(serde_json::from_slice::<ManifestV1>(&manifest_bytes).expect("a manifest"), manifest);
    let paths = |t: &[(String, Vec<u8>)]| t.iter().map(|(p, _)| p.clone()).collect::<Vec<_>>();
    assert_eq!(paths(&exported), paths(&expected), "the trees hold other files");
    for private in [LIVE_BASIS, LIVE_CONTEXT, SELLERS_TABLE] {
        assert!(published.dir.join(private).exists(), "the snapshot holds {private}");
        assert!(!to.join(private).exists(), "the static tree leaks the server's {private}");
    }
    for ((path, a), (_, b)) in exported.iter().zip(&expected) {
        assert!(a == b, "{path} differs from the file the records render");
    }

    // Into a folder that holds files it refuses, and leaves them as they were.
    let exported = read_tree(&to);
    let again = base_command()
        .args(["export-static", "--to"])
        .arg(&to)
        .env("AGENTREP_SNAPSHOTS", dir.path())
        .output()
        .expect("runs");
    assert!(!again.status.success());
    let stderr = String::from_utf8_lossy(&again.stderr);
    assert!(stderr.contains("is not empty"), "{stderr}");
    assert!(read_tree(&to) == exported);
    // An unknown snapshot id is named in the error.
    let unknown = base_command()
        .args(["export-static", "--snapshot", "2026-01-01-nothing", "--to"])
        .arg(out.path().join("other"))
        .env("AGENTREP_SNAPSHOTS", dir.path())
        .output()
        .expect("runs");
    assert!(String::from_utf8_lossy(&unknown.stderr).contains("no snapshot 2026-01-01-nothing"));
}

/// A payer's tenure (the trust-provider payer score's time part) spans its own qualifying
/// payments: present exactly for the wallets that paid, first before last, none after the day.
#[test]
fn a_payers_tenure_spans_its_own_payments() {
    let world = build_world(4, 3);
    let day = world.days()[3];
    let (input, _) = rebuild(&world.lake(), day).expect("rebuilds");
    let end_of_day = day.succ_opt().unwrap().and_hms_opt(0, 0, 0).unwrap().and_utc().timestamp();
    let mut spans_days = 0;
    for c in &input.counterparties {
        match (c.first_paid_at, c.last_paid_at) {
            (Some(first), Some(last)) => {
                assert!(c.payments > 0, "{}: a tenure without payments", c.address);
                assert!(first <= last && last < end_of_day, "{}: {first}..{last}", c.address);
                spans_days += usize::from(last - first >= 86_400);
            }
            (None, None) => assert_eq!(c.payments, 0, "{}: payments without a tenure", c.address),
            other => panic!("{}: half a tenure {other:?}", c.address),
        }
    }
    assert!(spans_days > 0, "some payer of a four-day world paid on more than one day");
}
