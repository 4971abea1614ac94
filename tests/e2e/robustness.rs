//! Crashes and failed sources: the previous snapshot stays served; null is never zero.

use agentrep_lake::{Dataset, Lake};
use agentrep_model::sources::SourceNote;
use agentrep_publish::{PublishConfig, SnapshotStore};
use agentrep_tests::{RunningServer, build_world};

#[test]
fn a_crashed_publication_leaves_the_current_snapshot_served() {
    let world = build_world(3, 2);
    let store = SnapshotStore::new(world.snapshots());
    let current = store.current_dir().unwrap();
    // A crash mid-publication leaves a half-written work folder behind.
    let work = world.snapshots().join(agentrep_publish::store::WORK_DIR);
    std::fs::create_dir_all(work.join("score")).unwrap();
    std::fs::write(work.join("score/garbage.json"), b"{half").unwrap();
    assert_eq!(store.current_dir().unwrap(), current);
    assert!(agentrep_publish::LoadedSnapshot::load(&current).is_ok());
    // The next publication reuses the folder and drops what it did not write.
    let (input, _) = agentrep_pipeline::rebuild(&world.lake(), world.days()[2]).unwrap();
    let published = store.publish(&input, &PublishConfig::default()).unwrap();
    assert!(!published.dir.join("score/garbage.json").exists());
    assert!(!work.exists());
    assert!(agentrep_publish::LoadedSnapshot::load(&published.dir).is_ok());
}

#[test]
fn a_recycled_snapshot_keeps_the_files_that_did_not_change() {
    let world = build_world(4, 3);
    let store = SnapshotStore::new(world.snapshots());
    let (input, _) = agentrep_pipeline::rebuild(&world.lake(), world.days()[3]).unwrap();
    // Retention is full: the oldest snapshot is retired into the work folder and rewritten.
    let published = store.publish(&input, &PublishConfig { retain: 3, ..PublishConfig::default() }).unwrap();
    let w = published.written;
    assert!(w.files_kept > 0, "some files of three days before hold the same bytes: {w:?}");
    assert!(w.files_written > 0, "{w:?}");
    assert_eq!(w.files_written + w.files_kept, published.manifest.files.len() as u64);
    assert!(agentrep_publish::LoadedSnapshot::load(&published.dir).is_ok(), "every file matches the manifest");
}

#[test]
fn a_work_folder_left_by_a_crash_is_never_trusted() {
    let world = build_world(4, 3);
    let store = SnapshotStore::new(world.snapshots());
    // A crash after a snapshot was retired into the work folder and partly rewritten: its old
    // manifest is still there and no longer describes its indexes, most of which the next day
    // would write with the bytes the manifest names.
    let work = world.snapshots().join(agentrep_publish::store::WORK_DIR);
    agentrep_tests::copy_dir(&store.current_dir().unwrap(), &work).unwrap();
    for index in std::fs::read_dir(work.join("index")).unwrap() {
        let path = index.unwrap().path();
        let mut bytes = std::fs::read(&path).unwrap();
        bytes[0] ^= 1;
        std::fs::write(&path, bytes).unwrap();
    }
    let (input, _) = agentrep_pipeline::rebuild(&world.lake(), world.days()[3]).unwrap();
    let published = store.publish(&input, &PublishConfig::default()).unwrap();
    assert_eq!(published.written.files_kept, 0, "nothing in a crashed work folder is taken as written");
    assert!(agentrep_publish::LoadedSnapshot::load(&published.dir).is_ok(), "every file matches the manifest");
}

#[test]
fn retention_keeps_the_last_n_snapshots() {
    let world = build_world(4, 4);
    let store = SnapshotStore::new(world.snapshots());
    assert_eq!(store.list().unwrap().len(), 4);
    let (input, _) = agentrep_pipeline::rebuild(&world.lake(), world.days()[3]).unwrap();
    store.publish(&input, &PublishConfig { retain: 2, ..PublishConfig::default() }).unwrap();
    let ids = store.list().unwrap();
    assert_eq!(ids.len(), 2, "{ids:?}");
    assert!(store.current_dir().unwrap().ends_with(ids.last().unwrap()));
}

#[tokio::test]
async fn a_stale_source_degrades_scores_to_null_not_zero() {
    let world = build_world(10, 0);
    let lake = world.lake();
    // The probe job has not written the last 9 days.
    for part in lake.partitions(Dataset::Probes).unwrap() {
        if part.date > world.days()[0] {
            std::fs::remove_dir_all(part.path.parent().unwrap()).unwrap();
        }
    }
    let day = *world.days().last().unwrap();
    let (input, _) = agentrep_pipeline::rebuild(&Lake::new(lake.root()), day).unwrap();
    assert!(input.sellers.iter().all(|s| s.assessment.score.is_none()));
    let probes_stale = SourceNote::Degraded("probes-stale".into());
    assert!(input.sellers.iter().all(|s| s.sources.contains(&probes_stale)));
    // Without a score nothing is proven: no seller proceeds, and only evidence of risk warns (a
    // stale source is the oracle's blindness, not the seller's fault).
    for s in input.sellers.iter().filter(|s| !s.features.denylisted) {
        let warned = s.assessment.flags.iter().any(|f| f.severity >= agentrep_model::Severity::High);
        let expected = if warned {
            s.assessment.decision <= agentrep_model::Decision::Caution
        } else {
            s.assessment.decision == agentrep_model::Decision::ProceedLowValue
        };
        assert!(expected, "{}: {:?} with flags {:?}", s.address, s.assessment.decision, s.assessment.flags);
    }
    SnapshotStore::new(world.snapshots()).publish(&input, &PublishConfig::default()).unwrap();
    let server = RunningServer::start(&world.snapshots());
    let addr = &input.sellers[0].address;
    let v: serde_json::Value =
        reqwest::get(format!("{}/score/{addr}", server.base)).await.unwrap().json().await.unwrap();
    assert_eq!(v["score"], serde_json::Value::Null);
    assert_eq!(v["score_basis"], "degraded");
}

#[test]
fn rebuilding_an_older_day_does_not_move_current_back() {
    let world = build_world(3, 3);
    let store = SnapshotStore::new(world.snapshots());
    let newest = store.current_id().unwrap();
    let (input, _) = agentrep_pipeline::rebuild(&world.lake(), world.days()[0]).unwrap();
    let published = store.publish(&input, &PublishConfig::default()).unwrap();
    assert!(!published.became_current);
    assert_eq!(store.current_id().unwrap(), newest);
    assert!(published.dir.join("manifest.json").is_file(), "the older snapshot is still published");
}

#[tokio::test]
async fn a_corrupt_snapshot_is_refused_and_the_previous_one_stays_served() {
    let world = build_world(3, 2);
    let store = SnapshotStore::new(world.snapshots());
    let good = store.current_id().unwrap();
    let server = RunningServer::start(&world.snapshots());
    // Publish into a staging root, corrupt one file, then move it in and point `current` at it.
    let staging = tempfile::tempdir().unwrap();
    let (input, _) = agentrep_pipeline::rebuild(&world.lake(), world.days()[2]).unwrap();
    let published = SnapshotStore::new(staging.path()).publish(&input, &PublishConfig::default()).unwrap();
    let victim = published.dir.join("scores.csv");
    let mut bytes = std::fs::read(&victim).unwrap();
    bytes[0] ^= 1;
    std::fs::write(&victim, bytes).unwrap();
    assert!(agentrep_publish::LoadedSnapshot::load(&published.dir).is_err(), "the reader verifies hashes");
    std::fs::rename(&published.dir, world.snapshots().join(&published.id)).unwrap();
    store.point_current_at(&published.id).unwrap();
    tokio::time::sleep(std::time::Duration::from_millis(800)).await;
    let status: serde_json::Value =
        reqwest::get(format!("{}/status", server.base)).await.unwrap().json().await.unwrap();
    assert_eq!(status["snapshotId"], good.as_str(), "the corrupt snapshot is not served");
}

#[tokio::test]
async fn a_failed_rebuild_is_logged_and_shown_in_status() {
    let world = build_world(3, 2);
    let store = SnapshotStore::new(world.snapshots());
    let server = RunningServer::start(&world.snapshots());
    // A day long before the world's first listing: there is nothing to score.
    let empty_day = world.days()[0] - chrono::Duration::days(400);
    let result = agentrep_jobs::commands::rebuild_days(&world.lake(), &store, &PublishConfig::default(), &[empty_day]);
    assert!(result.is_err());
    let last = store.recent_runs(1).pop().unwrap();
    assert_eq!(last.date, empty_day.to_string());
    assert!(last.outcome.starts_with("error:"), "{}", last.outcome);
    assert!(last.snapshot_id.is_empty());
    tokio::time::sleep(std::time::Duration::from_millis(600)).await;
    let status: serde_json::Value =
        reqwest::get(format!("{}/status", server.base)).await.unwrap().json().await.unwrap();
    let jobs = status["jobs"].as_array().unwrap();
    assert_eq!(jobs.len(), 3, "two good runs and the failed one");
    assert!(jobs.last().unwrap()["outcome"].as_str().unwrap().contains("no listings"), "{status}");
}
