//! The rebuild's settlement pass on a Ballista cluster (a scheduler and two executors, each an
//! `agentrep cluster` process on loopback, reading a local S3 server): the snapshot it publishes
//! is the embedded DuckDB run's, byte for byte; an executor killed during the run leaves either
//! that snapshot or a clear failure and nothing published; and a cluster that cannot be used (no
//! scheduler, no executor left, a folder lake) fails the run with a clear error and nothing
//! published.

use std::path::Path;
use std::process::Output;
use std::time::{Duration, Instant};

use agentrep_tests::cluster::BallistaCluster;
use agentrep_tests::process::{Process, base_command};
use agentrep_tests::s3::S3Server;

use super::bucket::assert_same_snapshot;

const LAKE: &str = "s3://agentrep-lake/world";

/// A bucket holding a world of `scale`, written from a machine of its own (cache `gen`).
fn world(s3: &S3Server, dir: &Path, scale: &str) {
    s3.create_bucket("agentrep-lake");
    let out = agentrep(&["world", "--scale", scale, "--lake", LAKE], &with_cache(s3, dir, "gen"));
    assert!(out.status.success(), "world: {}", String::from_utf8_lossy(&out.stderr));
}

/// The bucket's variables, a machine's own lake cache, and a bound on each cluster statement (a
/// cluster that cannot finish fails the run within minutes rather than the default hour).
fn with_cache(s3: &S3Server, dir: &Path, cache: &str) -> Vec<(&'static str, String)> {
    let mut env = s3.env();
    env.push(("AGENTREP_LAKE_CACHE", dir.join(cache).display().to_string()));
    env.push(("AGENTREP_CLUSTER_TIMEOUT_SECS", "300".to_owned()));
    env
}

/// The real binary, with only the variables the operators' guide documents.
fn agentrep(args: &[&str], env: &[(&str, String)]) -> Output {
    base_command().args(args).envs(env.iter().map(|(k, v)| (*k, v.as_str()))).output().expect("runs")
}

fn rebuild_args<'a>(snapshots: &'a str, scheduler: Option<&'a str>) -> Vec<&'a str> {
    let mut args = vec!["rebuild", "--lake", LAKE, "--snapshots", snapshots];
    if let Some(scheduler) = scheduler {
        args.extend(["--engine", "ballista", "--scheduler", scheduler]);
    }
    args
}

/// The keys under the bucket lake's scratch folder.
fn scratch_keys(s3: &S3Server, dir: &Path) -> Vec<String> {
    let lake = s3.lake(LAKE, &dir.join("probe"));
    lake.bucket().expect("a bucket lake").list("_scratch/").expect("lists").into_iter().map(|o| o.key).collect()
}

fn scratch_objects(s3: &S3Server, dir: &Path) -> usize {
    scratch_keys(s3, dir).len()
}

/// On the `make run` world (2,070 sellers, about 200k settlements): the tiny world has too few
/// sellers to tell a median rounded the DataFusion way from DuckDB's.
#[test]
fn the_cluster_publishes_the_embedded_runs_snapshot() {
    let s3 = S3Server::start();
    let dir = tempfile::tempdir().unwrap();
    world(&s3, dir.path(), "small");
    let cluster = BallistaCluster::start(2, &s3.env(), &dir.path().join("cluster"));

    // Two machines rebuild the same bucket lake: one on the cluster, one embedded.
    let on_cluster = dir.path().join("snap-cluster").display().to_string();
    let out = agentrep(&rebuild_args(&on_cluster, Some(&cluster.scheduler_url)), &with_cache(&s3, dir.path(), "a"));
    assert!(
        out.status.success(),
        "the cluster rebuild failed:\n{}\n{}",
        String::from_utf8_lossy(&out.stderr),
        cluster.logs()
    );
    let embedded = dir.path().join("snap-embedded").display().to_string();
    let out = agentrep(&rebuild_args(&embedded, None), &with_cache(&s3, dir.path(), "b"));
    assert!(out.status.success(), "the embedded rebuild failed: {}", String::from_utf8_lossy(&out.stderr));

    assert_same_snapshot(Path::new(&on_cluster), Path::new(&embedded));
    assert_eq!(scratch_objects(&s3, dir.path()), 0, "the run's scratch folder is removed");
    // The machine that rebuilt on the cluster never fetched a settlement: the cluster read them.
    assert!(!dir.path().join("a").join("settlements").exists(), "settlements fetched to the rebuilding machine");
    assert!(dir.path().join("b").join("settlements").exists());
}

#[test]
fn an_executor_killed_mid_run_leaves_the_same_snapshot_or_a_clear_failure() {
    let s3 = S3Server::start();
    let dir = tempfile::tempdir().unwrap();
    world(&s3, dir.path(), "tiny");
    let mut cluster = BallistaCluster::start(2, &s3.env(), &dir.path().join("cluster"));

    let on_cluster = dir.path().join("snap-cluster").display().to_string();
    // Either outcome is allowed; a run that cannot finish fails within two minutes.
    let mut env = with_cache(&s3, dir.path(), "a");
    env.retain(|(k, _)| *k != "AGENTREP_CLUSTER_TIMEOUT_SECS");
    env.push(("AGENTREP_CLUSTER_TIMEOUT_SECS", "120".to_owned()));
    let mut rebuild = Process::start(&rebuild_args(&on_cluster, Some(&cluster.scheduler_url)), &env);
    // Once the pass's first statement has written its table (the attributed settlements) to the
    // scratch folder, one executor dies without a word: the statements after it lose the tasks
    // and shuffle files it held.
    let started = Instant::now();
    while !scratch_keys(&s3, dir.path()).iter().any(|k| k.contains("/s/")) {
        assert!(started.elapsed() < Duration::from_secs(180), "the pass never got going:\n{}", rebuild.logs());
        std::thread::sleep(Duration::from_millis(20));
    }
    cluster.executors[0].kill_hard();
    let status = rebuild.wait(Duration::from_secs(600));

    let published = Path::new(&on_cluster).join("current").exists();
    eprintln!("with an executor killed, the run {}", if status.success() { "completed" } else { "failed" });
    if status.success() {
        let embedded = dir.path().join("snap-embedded").display().to_string();
        let out = agentrep(&rebuild_args(&embedded, None), &with_cache(&s3, dir.path(), "b"));
        assert!(out.status.success());
        assert_same_snapshot(Path::new(&on_cluster), Path::new(&embedded));
    } else {
        let logs = rebuild.logs();
        assert!(logs.contains("ballista"), "the failure names the engine:\n{logs}");
        assert!(!published, "a failed run publishes nothing:\n{logs}");
    }
    assert_eq!(scratch_objects(&s3, dir.path()), 0, "the run's scratch folder is removed either way");
}

#[test]
fn a_cluster_that_cannot_be_used_is_refused_and_nothing_is_published() {
    let s3 = S3Server::start();
    let dir = tempfile::tempdir().unwrap();
    world(&s3, dir.path(), "tiny");

    // No scheduler listens there.
    let port = std::net::TcpListener::bind("127.0.0.1:0").unwrap().local_addr().unwrap().port();
    let snapshots = dir.path().join("snap").display().to_string();
    let nobody = format!("df://127.0.0.1:{port}");
    let out = agentrep(&rebuild_args(&snapshots, Some(&nobody)), &with_cache(&s3, dir.path(), "a"));
    assert!(!out.status.success());
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(stderr.contains("ballista"), "{stderr}");
    assert!(!Path::new(&snapshots).join("current").exists(), "nothing is published");

    // A cluster whose only executor is gone: the statement waits for an executor until its time
    // limit, then the run fails, publishes nothing and leaves no scratch behind.
    let mut cluster = BallistaCluster::start(1, &s3.env(), &dir.path().join("cluster"));
    cluster.executors[0].kill_hard();
    let mut env = with_cache(&s3, dir.path(), "a");
    env.retain(|(k, _)| *k != "AGENTREP_CLUSTER_TIMEOUT_SECS");
    env.push(("AGENTREP_CLUSTER_TIMEOUT_SECS", "15".to_owned()));
    let out = agentrep(&rebuild_args(&snapshots, Some(&cluster.scheduler_url)), &env);
    assert!(!out.status.success());
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(stderr.contains("ran over 15s"), "the failure says why: {stderr}");
    assert!(!Path::new(&snapshots).join("current").exists(), "nothing is published");
    assert_eq!(scratch_objects(&s3, dir.path()), 0, "the run's scratch folder is removed");

    // A folder lake cannot be read by executors on other machines.
    let folder = dir.path().join("folder");
    let out = agentrep(&["world", "--scale", "tiny", "--lake", &folder.display().to_string()], &[]);
    assert!(out.status.success());
    let args = [
        "rebuild",
        "--lake",
        &folder.display().to_string(),
        "--snapshots",
        &snapshots,
        "--engine",
        "ballista",
        "--scheduler",
        &nobody,
    ];
    let out = agentrep(&args, &[]);
    assert!(!out.status.success());
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(stderr.contains("--lake s3://"), "the error says what to do: {stderr}");
    assert!(!Path::new(&snapshots).join("current").exists(), "nothing is published");
}
