//! The lake on a bucket: partitions, checkpoints and digests through `Lake` (library), and the
//! operator's `agentrep world` / `agentrep rebuild --lake s3://…` (the real binary, configured only
//! by the variables the operators' guide documents) against a folder lake of the same world.

use std::path::Path;

use agentrep_lake::datasets::ProofRow;
use agentrep_lake::{Dataset, Lake, Timestamp};
use agentrep_tests::process::base_command;
use agentrep_tests::s3::S3Server;
use chrono::NaiveDate;

fn proof(address: &str) -> ProofRow {
    ProofRow {
        address: address.into(),
        proof_type: "ens".into(),
        source: "test".into(),
        verified_at: Timestamp::from_secs(1_700_000_000),
    }
}

fn day(d: u32) -> NaiveDate {
    NaiveDate::from_ymd_opt(2026, 11, d).unwrap()
}

#[test]
fn a_bucket_lake_reads_what_another_machine_wrote_and_follows_its_changes() {
    let s3 = S3Server::start();
    s3.create_bucket("lake-follow");
    let dir = tempfile::tempdir().unwrap();
    // Two machines: each has its own cache folder, both the same bucket prefix.
    let writer = s3.lake("s3://lake-follow/prod", &dir.path().join("writer"));
    let reader = s3.lake("s3://lake-follow/prod", &dir.path().join("reader"));
    let folder = Lake::new(dir.path().join("folder"));
    assert!(reader.is_empty().unwrap());

    for lake in [&writer, &folder] {
        lake.write_partition(day(1), &[proof("0x01"), proof("0x02")]).unwrap();
        lake.write_partition(day(2), &[proof("0x03")]).unwrap();
        lake.write_checkpoint("identity_proofs", &7u64).unwrap();
    }
    assert!(!reader.is_empty().unwrap());
    assert_eq!(reader.partition_days(Dataset::IdentityProofs).unwrap(), [day(1), day(2)]);
    assert_eq!(reader.read_partition::<ProofRow>(day(1)).unwrap(), [proof("0x01"), proof("0x02")]);
    assert_eq!(reader.read_checkpoint::<u64>("identity_proofs").unwrap(), Some(7));
    // The same data has the same digest wherever it lives: the rebuild's carried state and
    // snapshot ids do not depend on the lake's location.
    assert_eq!(reader.input_digest(day(2)).unwrap(), folder.input_digest(day(2)).unwrap());
    let parts = reader.partitions(Dataset::IdentityProofs).unwrap();
    assert!(parts.iter().all(|p| p.path.starts_with(dir.path().join("reader"))), "local copies: {parts:?}");

    // The writer replaces day 1; the reader's next listing fetches the new version.
    for lake in [&writer, &folder] {
        lake.write_partition(day(1), &[proof("0x04")]).unwrap();
        lake.write_checkpoint("identity_proofs", &8u64).unwrap();
    }
    assert_eq!(reader.read_partition::<ProofRow>(day(1)).unwrap(), [proof("0x04")]);
    assert_eq!(reader.read_checkpoint::<u64>("identity_proofs").unwrap(), Some(8));
    assert_eq!(reader.input_digest(day(2)).unwrap(), folder.input_digest(day(2)).unwrap());
    assert_eq!(
        reader.dataset_digest(Dataset::IdentityProofs, day(2)).unwrap(),
        folder.dataset_digest(Dataset::IdentityProofs, day(2)).unwrap()
    );
    // Again, with a file of the very same size: only the bucket's version tells the copies apart.
    let size = |lake: &Lake| std::fs::metadata(lake.partition_path(Dataset::IdentityProofs, day(1))).unwrap().len();
    let before = size(&folder);
    for lake in [&writer, &folder] {
        lake.write_partition(day(1), &[proof("0x05")]).unwrap();
    }
    assert_eq!(size(&folder), before, "the test needs a rewrite of the same size");
    assert_eq!(reader.read_partition::<ProofRow>(day(1)).unwrap(), [proof("0x05")]);
    assert_eq!(reader.input_digest(day(2)).unwrap(), folder.input_digest(day(2)).unwrap());

    // A cached copy cut short on the reader's disk no longer has the size of the version it was
    // fetched as, so the next listing fetches the partition again.
    let cached = reader.partition_path(Dataset::IdentityProofs, day(2));
    std::fs::write(&cached, b"not parquet").unwrap();
    assert_eq!(reader.read_partition::<ProofRow>(day(2)).unwrap(), [proof("0x03")]);

    // A partition the bucket no longer has leaves the reader's cache: the writer's lake removes
    // nothing, so the test removes the object the way an operator would, with the bucket's API.
    s3.delete_object("lake-follow", "prod/identity_proofs/date=2026-11-02/part-0.parquet");
    assert_eq!(reader.partition_days(Dataset::IdentityProofs).unwrap(), [day(1)]);
    assert_eq!(reader.partitions(Dataset::IdentityProofs).unwrap().len(), 1);
    assert!(!cached.exists(), "the removed partition's copy is gone");

    // A pinned view (what a rebuild reads through) lists each dataset once: a partition written
    // afterwards is seen by the next view, not by this one.
    let view = reader.pinned();
    assert_eq!(view.partitions(Dataset::IdentityProofs).unwrap().len(), 1);
    writer.write_partition(day(3), &[proof("0x06")]).unwrap();
    assert_eq!(view.partition_days(Dataset::IdentityProofs).unwrap(), [day(1)]);
    assert_eq!(reader.pinned().partition_days(Dataset::IdentityProofs).unwrap(), [day(1), day(3)]);
    assert_eq!(reader.pinned().read_partition::<ProofRow>(day(3)).unwrap(), [proof("0x06")]);
}

#[test]
fn a_view_that_reads_a_dataset_remotely_never_fetches_it_and_digests_it_the_same() {
    let s3 = S3Server::start();
    s3.create_bucket("lake-remote");
    let dir = tempfile::tempdir().unwrap();
    let writer = s3.lake("s3://lake-remote/prod", &dir.path().join("writer"));
    let folder = Lake::new(dir.path().join("folder"));
    for lake in [&writer, &folder] {
        lake.write_partition(day(1), &[proof("0x01")]).unwrap();
        lake.write_partition(day(2), &[proof("0x02"), proof("0x03")]).unwrap();
    }
    // The machine a cluster rebuild runs on: identity proofs are read where they live.
    let reader = s3.lake("s3://lake-remote/prod", &dir.path().join("reader"));
    let view = reader.pinned_remote(&[Dataset::IdentityProofs]);
    assert!(view.is_remote(Dataset::IdentityProofs) && !view.is_remote(Dataset::Settlements));
    assert_eq!(view.input_digest(day(2)).unwrap(), folder.input_digest(day(2)).unwrap(), "the same digest");
    assert_eq!(view.input_digest(day(1)).unwrap(), folder.input_digest(day(1)).unwrap());
    let remote = view.remote_partitions_up_to(Dataset::IdentityProofs, day(2)).unwrap().unwrap();
    assert_eq!(remote.iter().map(|p| p.date).collect::<Vec<_>>(), [day(1), day(2)]);
    assert_eq!(remote[1].url, "s3://lake-remote/prod/identity_proofs/date=2026-11-02/part-0.parquet");
    assert_eq!(view.partition_days(Dataset::IdentityProofs).unwrap(), [day(1), day(2)]);
    assert!(
        matches!(view.partitions(Dataset::IdentityProofs), Err(agentrep_lake::LakeError::ReadRemotely(_))),
        "no local copies are handed out"
    );
    assert!(!dir.path().join("reader").join("identity_proofs").exists(), "nothing of it was fetched");

    // A sidecar that does not name the partition's version is not trusted: the file is hashed.
    s3.put_object("lake-remote", "prod/identity_proofs/date=2026-11-02/part-0.parquet.sha256", b"0000 1 stale");
    let view = reader.pinned_remote(&[Dataset::IdentityProofs]);
    assert_eq!(view.input_digest(day(2)).unwrap(), folder.input_digest(day(2)).unwrap());
    // A folder lake has nothing remote.
    assert!(!folder.pinned_remote(&[Dataset::IdentityProofs]).is_remote(Dataset::IdentityProofs));
}

/// The files of the current snapshot under `snapshots`, by path.
fn current_snapshot(snapshots: &Path) -> (String, Vec<(String, Vec<u8>)>) {
    let id = std::fs::read_link(snapshots.join("current")).expect("a current snapshot");
    let id = id.display().to_string();
    let tree = agentrep_tests::read_snapshot(&snapshots.join(&id));
    (id, tree)
}

/// Asserts that the current snapshots under `a` and `b` are the same files, byte for byte.
pub(crate) fn assert_same_snapshot(a: &Path, b: &Path) -> String {
    let (id_a, tree_a) = current_snapshot(a);
    let (id_b, tree_b) = current_snapshot(b);
    assert_eq!(id_a, id_b, "snapshot ids");
    assert!(tree_a.len() > 100, "a snapshot holds per-wallet files");
    assert_eq!(tree_a.len(), tree_b.len());
    for ((path_a, bytes_a), (path_b, bytes_b)) in tree_a.iter().zip(&tree_b) {
        assert_eq!(path_a, path_b);
        assert!(bytes_a == bytes_b, "{path_a} differs between {} and {}", a.display(), b.display());
    }
    id_a
}

#[test]
fn rebuilding_a_bucket_lake_publishes_the_folder_lakes_snapshot() {
    let s3 = S3Server::start();
    s3.create_bucket("agentrep-lake");
    let dir = tempfile::tempdir().unwrap();
    let path = |name: &str| dir.path().join(name).display().to_string();
    let bucket_lake = "s3://agentrep-lake/worlds/tiny";
    // The world is written from one machine (cache `gen`) and rebuilt on another (cache
    // `rebuild`), which starts with nothing but the bucket.
    let with_cache = |cache: &str| {
        let mut env = s3.env();
        env.push(("AGENTREP_LAKE_CACHE", path(cache)));
        env
    };
    // The real binary, with only the variables the operators' guide documents.
    let agentrep = |args: &[&str], env: &[(&str, String)]| {
        let out = base_command().args(args).envs(env.iter().map(|(k, v)| (*k, v.as_str()))).output().expect("runs");
        assert!(out.status.success(), "agentrep {args:?} failed:\n{}", String::from_utf8_lossy(&out.stderr));
    };
    agentrep(&["world", "--scale", "tiny", "--lake", bucket_lake], &with_cache("gen"));
    agentrep(&["world", "--scale", "tiny", "--lake", &path("folder")], &[]);
    agentrep(&["rebuild", "--lake", bucket_lake, "--snapshots", &path("snap-bucket")], &with_cache("rebuild"));
    agentrep(&["rebuild", "--lake", &path("folder"), "--snapshots", &path("snap-folder")], &[]);
    let first = assert_same_snapshot(&dir.path().join("snap-bucket"), &dir.path().join("snap-folder"));

    // News in the bucket: the newest day's identity proofs gain a row, written from the first
    // machine. The second machine's next rebuild fetches it and agrees with the folder lake again.
    let newest = agentrep_lake::Lake::new(dir.path().join("folder")).source_days().unwrap();
    let newest = *newest.last().unwrap();
    let gen_lake = s3.lake(bucket_lake, &dir.path().join("gen"));
    for lake in [gen_lake, Lake::new(dir.path().join("folder"))] {
        let mut rows: Vec<ProofRow> = lake.read_partition(newest).unwrap();
        rows.push(proof("0x00000000000000000000000000000000000000aa"));
        lake.write_partition(newest, &rows).unwrap();
    }
    agentrep(&["rebuild", "--lake", bucket_lake, "--snapshots", &path("snap-bucket")], &with_cache("rebuild"));
    agentrep(&["rebuild", "--lake", &path("folder"), "--snapshots", &path("snap-folder")], &[]);
    let second = assert_same_snapshot(&dir.path().join("snap-bucket"), &dir.path().join("snap-folder"));
    assert_ne!(first, second, "the new proof changes the input digest, so the snapshot");
}

#[test]
fn a_write_the_bucket_refuses_changes_nothing() {
    let s3 = S3Server::start();
    s3.create_bucket("lake-refuses");
    let dir = tempfile::tempdir().unwrap();
    let lake = s3.lake("s3://lake-refuses/prod", &dir.path().join("cache"));
    lake.write_partition(day(1), &[proof("0x01")]).unwrap();
    // The bucket goes away (deleted by its owner, or credentials revoked): the next write fails
    // with the bucket's error, and the cache still holds the last version the bucket had, with
    // no temporary file beside it.
    s3.delete_object("lake-refuses", "prod/identity_proofs/date=2026-11-01/part-0.parquet");
    s3.delete_object("lake-refuses", "prod/identity_proofs/date=2026-11-01/part-0.parquet.sha256");
    s3.delete_bucket("lake-refuses");
    let err = lake.write_partition(day(1), &[proof("0x02")]).unwrap_err();
    assert!(err.to_string().contains("lake-refuses"), "{err}");
    let folder = lake.partition_path(Dataset::IdentityProofs, day(1)).parent().unwrap().to_owned();
    let mut files: Vec<String> =
        std::fs::read_dir(&folder).unwrap().map(|e| e.unwrap().file_name().into_string().unwrap()).collect();
    files.sort();
    assert_eq!(files, ["part-0.parquet", "part-0.parquet.sha256", "part-0.parquet.version"]);
    let cached: Vec<ProofRow> = Lake::new(dir.path().join("cache")).read_partition(day(1)).unwrap();
    assert_eq!(cached, [proof("0x01")], "the cache keeps what the bucket last had");
}

/// One scheduler per lake, wherever it runs: the lease of a bucket lake keeps a second holder out
/// on another machine (another cache folder), is renewed while held, is taken over once a killed
/// holder's lease has run out, and tells a holder whose lease was taken that it lost it.
#[test]
fn a_bucket_lake_lease_has_one_holder_across_machines() {
    use agentrep_lake::LakeError;
    use std::time::Duration;
    let s3 = S3Server::start();
    s3.create_bucket("lake-lease");
    let dir = tempfile::tempdir().unwrap();
    let one = s3.lake("s3://lake-lease/prod", &dir.path().join("one"));
    let two = s3.lake("s3://lake-lease/prod", &dir.path().join("two"));
    let lasts = Duration::from_secs(2);

    let held = one.lease_for("scheduler", lasts).unwrap();
    let refused = two.lease_for("scheduler", lasts).unwrap_err();
    assert!(matches!(refused, LakeError::LeaseHeld { .. }), "{refused}");
    assert!(refused.to_string().contains(&format!("process {}", std::process::id())), "names its holder: {refused}");
    // Held past its duration: the renewals keep it.
    std::thread::sleep(lasts + Duration::from_secs(1));
    held.check().unwrap();
    assert!(matches!(two.lease_for("scheduler", lasts), Err(LakeError::LeaseHeld { .. })));
    drop(held);
    let held = two.lease_for("scheduler", lasts).expect("a released lease is free");
    drop(held);

    // A holder killed without releasing: its lease object stays, unrenewed, until it runs out.
    let bucket = one.bucket().unwrap();
    let killed = br#"{"holder":"process 1 on a machine that died","duration_secs":2,"renewed_at":0}"#;
    bucket.put("_checkpoints/scheduler.lease", killed.to_vec()).unwrap();
    let refused = two.lease_for("scheduler", lasts).unwrap_err();
    assert!(refused.to_string().contains("a machine that died"), "{refused}");
    std::thread::sleep(lasts + Duration::from_secs(1));
    let held = two.lease_for("scheduler", lasts).expect("an expired lease is taken over");

    // Taken from under its holder (as a takeover after a long cut-off would): the holder's next
    // renewal is refused, and it knows before it writes again.
    bucket.put("_checkpoints/scheduler.lease", killed.to_vec()).unwrap();
    std::thread::sleep(lasts);
    let lost = held.check().unwrap_err();
    assert!(matches!(lost, LakeError::LeaseLost { .. }), "{lost}");
    drop(held);
    assert!(bucket.get("_checkpoints/scheduler.lease").unwrap().is_some(), "a lost lease is not released by its loser");

    // A folder lake: the same refusal, by a lock the OS drops with its holder.
    let folder = Lake::new(dir.path().join("folder"));
    let held = folder.lease("scheduler").unwrap();
    assert!(matches!(folder.lease("scheduler"), Err(LakeError::LeaseHeld { .. })));
    drop(held);
    folder.lease("scheduler").expect("released");
}

/// The operator's `agentrep schedule --lake s3://…` (the real binary, only the operators' guide's
/// variables): refused while another machine's lease is live, with its holder named; and a
/// scheduler that ends (here on a bad configuration) exits with its error, not a panic, and
/// leaves no lease behind.
#[test]
fn agentrep_schedule_on_a_bucket_lake_is_refused_while_another_holds_the_lease() {
    let s3 = S3Server::start();
    s3.create_bucket("lake-scheduler");
    let dir = tempfile::tempdir().unwrap();
    let lease_key = "prod/_checkpoints/scheduler.lease";
    let schedule = |config: &str| {
        let mut env = s3.env();
        env.push(("AGENTREP_LAKE_CACHE", dir.path().join("cache").display().to_string()));
        env.push(("AGENTREP_CONFIG", config.to_owned()));
        let snapshots = dir.path().join("snapshots");
        base_command()
            .args(["schedule", "--lake", "s3://lake-scheduler/prod", "--snapshots"])
            .arg(&snapshots)
            .envs(env.iter().map(|(k, v)| (*k, v.as_str())))
            .output()
            .expect("runs")
    };
    let missing = dir.path().join("missing.toml").display().to_string();
    let live = br#"{"holder":"process 42 on another machine","duration_secs":60,"renewed_at":0}"#;
    s3.put_object("lake-scheduler", lease_key, live);
    let refused = schedule(&missing);
    let stderr = String::from_utf8_lossy(&refused.stderr);
    assert_eq!(refused.status.code(), Some(1), "{stderr}");
    assert!(stderr.contains("scheduler lease: process 42 on another machine"), "{stderr}");

    s3.delete_object("lake-scheduler", lease_key);
    let ended = schedule(&missing);
    let stderr = String::from_utf8_lossy(&ended.stderr);
    assert_eq!(ended.status.code(), Some(1), "an error, not a panic: {stderr}");
    assert!(stderr.contains("bad configuration") && !stderr.contains("panicked"), "{stderr}");
    let lake = s3.lake("s3://lake-scheduler/prod", &dir.path().join("reader"));
    assert_eq!(lake.bucket().unwrap().get("_checkpoints/scheduler.lease").unwrap(), None, "released on exit");
}
