//! Snapshots on a bucket: `agentrep rebuild --publish-to s3://…` pushes each snapshot and then the
//! bucket's `current`; two `agentrep serve --snapshots-from s3://…` replicas, each with an empty
//! folder of its own, serve what the publisher published, byte for byte, and move to the next
//! day on their own, and apply the overlay the publisher pushes beside them. A `current` that names nothing whole is refused and the replicas keep
//! serving. Real binary, real processes, only the operators' guide's flags and variables.

use std::path::Path;
use std::time::{Duration, Instant};

use agentrep_tests::process::{Process, base_command};
use agentrep_tests::read_tree;
use agentrep_tests::s3::S3Server;
use serde_json::Value;

async fn snapshot_served(base: &str) -> Option<String> {
    let status: Value = reqwest::get(format!("{base}/status")).await.ok()?.json().await.ok()?;
    status["snapshotId"].as_str().map(str::to_owned)
}

/// Waits (up to a minute) until the replica at `base` serves `id`.
async fn wait_for_snapshot(base: &str, id: &str) {
    let started = Instant::now();
    while snapshot_served(base).await.as_deref() != Some(id) {
        assert!(
            started.elapsed() < Duration::from_secs(60),
            "{base} still serves {:?}, not {id}",
            snapshot_served(base).await
        );
        tokio::time::sleep(Duration::from_millis(200)).await;
    }
}

fn current_id(snapshots: &Path) -> String {
    std::fs::read_link(snapshots.join("current")).expect("a current snapshot").display().to_string()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn replicas_serve_what_the_publisher_pushes_to_the_bucket() {
    let s3 = S3Server::start();
    s3.create_bucket("agentrep-snapshots");
    let dir = tempfile::tempdir().unwrap();
    let path = |name: &str| dir.path().join(name).display().to_string();
    let bucket = "s3://agentrep-snapshots/prod";
    // The real binary, with only the variables the operators' guide documents.
    let agentrep = |args: &[&str]| {
        let out = base_command().args(args).envs(s3.env()).output().expect("runs");
        assert!(out.status.success(), "agentrep {args:?} failed:\n{}", String::from_utf8_lossy(&out.stderr));
    };
    agentrep(&["world", "--scale", "tiny", "--lake", &path("lake")]);
    let days = agentrep_lake::Lake::new(dir.path().join("lake")).source_days().unwrap();
    let (yesterday, today) = (days[days.len() - 2].to_string(), days[days.len() - 1].to_string());
    let publish = |day: &str| {
        agentrep(&[
            "rebuild",
            "--lake",
            &path("lake"),
            "--snapshots",
            &path("published"),
            "--date",
            day,
            "--publish-to",
            bucket,
        ]);
        current_id(&dir.path().join("published"))
    };
    let first = publish(&yesterday);

    let mut env = s3.env();
    env.push(("AGENTREP_SNAPSHOTS_POLL_SECS", "1".to_owned()));
    let replica = |name: &str| {
        Process::start(
            &["serve", "--snapshots", &path(name), "--snapshots-from", bucket, "--addr", "127.0.0.1:0"],
            &env,
        )
    };
    let (mut a, mut b) = (replica("replica-a"), replica("replica-b"));
    let (base_a, base_b) = (a.serving(), b.serving());
    // A replica comes up serving the bucket's current snapshot: fetched before it listens.
    assert_eq!(snapshot_served(&base_a).await.as_deref(), Some(first.as_str()));
    assert_eq!(snapshot_served(&base_b).await.as_deref(), Some(first.as_str()));

    // The next day: both replicas move to it on their own, with the publisher's very files.
    let second = publish(&today);
    assert_ne!(first, second);
    wait_for_snapshot(&base_a, &second).await;
    wait_for_snapshot(&base_b, &second).await;
    let published = read_tree(&dir.path().join("published").join(&second));
    for replica in ["replica-a", "replica-b"] {
        assert_eq!(current_id(&dir.path().join(replica)), second);
        assert!(
            read_tree(&dir.path().join(replica).join(&second)) == published,
            "{replica} holds other files than the publisher"
        );
    }
    let leaderboard = |base: String| async move {
        reqwest::get(format!("{base}/leaderboard?limit=5")).await.unwrap().text().await.unwrap()
    };
    assert_eq!(leaderboard(base_a.clone()).await, leaderboard(base_b.clone()).await);

    // Fast evidence between rebuilds: `agentrep overlay --publish-to` pushes the overlay beside
    // the snapshots, and both replicas apply it (a seller whose endpoints all died since the
    // snapshot is answered lower by each).
    let published_dir = dir.path().join("published").join(&second);
    let seller: agentrep_publish::wire::AgentRowV1 = std::fs::read_to_string(published_dir.join("index/agents.jsonl"))
        .unwrap()
        .lines()
        .map(|l| serde_json::from_str::<agentrep_publish::wire::AgentRowV1>(l).unwrap())
        .find(|r| r.decision == agentrep_publish::wire::Decision::Proceed && !r.resources.is_empty())
        .expect("a PROCEED seller with endpoints");
    let next = chrono::NaiveDate::parse_from_str(&today, "%Y-%m-%d").unwrap().succ_opt().unwrap();
    let day_end = next.and_hms_opt(0, 0, 0).unwrap().and_utc().timestamp();
    let probes = agentrep_tests::dead_probes(&seller.resources, day_end, 3);
    agentrep_lake::Lake::new(dir.path().join("lake")).write_partition(next, &probes).unwrap();
    agentrep(&["overlay", "--lake", &path("lake"), "--snapshots", &path("published"), "--publish-to", bucket]);
    for base in [&base_a, &base_b] {
        let started = Instant::now();
        loop {
            let doc: Value =
                reqwest::get(format!("{base}/preflight/{}", seller.address)).await.unwrap().json().await.unwrap();
            if doc["decision"] != "PROCEED" {
                assert_eq!(doc["overlay"]["publishedDecision"], "PROCEED", "{doc}");
                break;
            }
            assert!(started.elapsed() < Duration::from_secs(60), "{base} never applied the bucket's overlay: {doc}");
            tokio::time::sleep(Duration::from_millis(200)).await;
        }
    }

    // A bucket whose `current` names a snapshot with a damaged file: the replicas check every
    // file against the manifest, refuse it, say so, and keep serving the last good one.
    let manifest = std::fs::read(dir.path().join("published").join(&first).join("manifest.json")).unwrap();
    let forged = format!("{yesterday}-forged00000");
    let manifest = String::from_utf8(manifest).unwrap().replace(&first, &forged);
    s3.put_object("agentrep-snapshots", &format!("prod/{forged}/manifest.json"), manifest.as_bytes());
    s3.put_object("agentrep-snapshots", "prod/current", forged.as_bytes());
    let started = Instant::now();
    while !a.logs().contains("Fetching the bucket's current snapshot failed") {
        assert!(started.elapsed() < Duration::from_secs(30), "no refusal logged:\n{}", a.logs());
        tokio::time::sleep(Duration::from_millis(200)).await;
    }
    assert_eq!(snapshot_served(&base_a).await.as_deref(), Some(second.as_str()));
    assert_eq!(snapshot_served(&base_b).await.as_deref(), Some(second.as_str()));
    assert_eq!(current_id(&dir.path().join("replica-a")), second);

    // A manifest that lists a path out of the snapshot folder: refused before anything is written.
    let refusals = |p: &Process| p.logs().matches("Fetching the bucket's current snapshot failed").count();
    let before = refusals(&a);
    let escaping = format!("{yesterday}-escaping000");
    let manifest = manifest.replace(&forged, &escaping).replacen("\"path\": \"", "\"path\": \"../../", 1);
    s3.put_object("agentrep-snapshots", &format!("prod/{escaping}/manifest.json"), manifest.as_bytes());
    s3.put_object("agentrep-snapshots", "prod/current", escaping.as_bytes());
    let started = Instant::now();
    while refusals(&a) == before {
        assert!(started.elapsed() < Duration::from_secs(30), "no refusal logged:\n{}", a.logs());
        tokio::time::sleep(Duration::from_millis(200)).await;
    }
    assert!(a.logs().contains("a path outside the snapshot"), "{}", a.logs());
    assert_eq!(snapshot_served(&base_a).await.as_deref(), Some(second.as_str()));
}
