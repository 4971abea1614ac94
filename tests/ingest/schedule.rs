//! `agentrep schedule --serve` over the replayed world, unattended: every source on its cadence
//! against anvil, the Bazaar fixtures and loopback sellers, each day rebuilt and published once
//! every required source covers it, and the server answering from the newest snapshot with the
//! sources' status, until it is stopped.

use std::time::{Duration, Instant};

use agentrep_lake::Lake;
use agentrep_lake::datasets::ProbeRow;
use agentrep_tests::replayed::{ReplayedWorld, read_dated};

use agentrep_tests::agentrep_binary;

/// A free loopback port (bound, then released for the child to take).
fn free_port() -> u16 {
    std::net::TcpListener::bind("127.0.0.1:0").expect("binds").local_addr().expect("address").port()
}

/// Stops the child on drop, so a failing test leaves no scheduler behind.
struct Stop(std::process::Child);

impl Drop for Stop {
    fn drop(&mut self) {
        let _ = self.0.kill();
        let _ = self.0.wait();
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn schedule_serves_the_replayed_days_unattended() {
    let world = ReplayedWorld::shared();
    let anvil = world.node();
    let (bazaars, sellers) = world.bazaars_with_sellers();
    let dir = tempfile::tempdir().expect("temp dir");
    let config = world.write_config(dir.path(), anvil.url(), &bazaars);
    // Every cadence at two seconds, so the test sees several passes.
    let mut toml = std::fs::read_to_string(&config).expect("config");
    toml.push_str("\n[schedule]\nchain_every_secs = 2\nmarketplace_every_secs = 2\nprobes_every_secs = 2\nproofs_every_secs = 2\n");
    std::fs::write(&config, toml).expect("config written");
    let lake = Lake::new(dir.path().join("lake"));
    world.seed_receipts(&lake).expect("receipts exported");
    let port = free_port();
    let child = std::process::Command::new(agentrep_binary())
        .arg("schedule")
        .arg("--lake")
        .arg(lake.root())
        .arg("--snapshots")
        .arg(dir.path().join("snapshots"))
        .arg("--config")
        .arg(&config)
        .args(["--serve", "--addr", &format!("127.0.0.1:{port}"), "--clock", "chain"])
        .stdout(std::process::Stdio::null())
        .stderr(std::fs::File::create(dir.path().join("schedule.log")).expect("log file"))
        .env("RUST_LOG", "info")
        .spawn()
        .expect("agentrep schedule starts");
    let mut child = Stop(child);

    // The first crawl happens at the replayed head (the midnight after the world), so the first
    // day the scheduler can score is that one. Once the sources have run, the chain moves on past
    // its end, and the day is rebuilt, published and served, with every source's status.
    let first_crawl = world.days.last().expect("days").succ_opt().expect("day");
    let sources_file = dir.path().join("snapshots").join("sources.json");
    let started = Instant::now();
    while !std::fs::read_to_string(&sources_file).is_ok_and(|s| s.contains("\"probes\"")) {
        assert!(started.elapsed() < Duration::from_secs(120), "the sources ran within 2 minutes");
        tokio::time::sleep(Duration::from_millis(200)).await;
    }
    let next_midnight =
        first_crawl.succ_opt().expect("day").and_hms_opt(0, 0, 0).expect("midnight").and_utc().timestamp();
    // (An anvil started from a dump takes no block time before the wall clock.)
    let next = next_midnight.max(chrono::Utc::now().timestamp() + 60);
    anvil.mine_at(next).await.expect("the chain moves on");
    let last = first_crawl;
    let client = reqwest::Client::new();
    let url = format!("http://127.0.0.1:{port}/api/agent/status");
    let started = Instant::now();
    let status = loop {
        if let Some(exit) = child.0.try_wait().expect("status") {
            let log = std::fs::read_to_string(dir.path().join("schedule.log")).unwrap_or_default();
            panic!("the scheduler stopped ({exit}):\n{log}");
        }
        if let Ok(r) = client.get(&url).send().await
            && r.status().is_success()
        {
            let body: serde_json::Value = r.json().await.expect("JSON");
            if body["snapshotDate"].as_str() == Some(last.to_string().as_str()) {
                break body;
            }
        }
        if started.elapsed() > Duration::from_secs(120) {
            let log = std::fs::read_to_string(dir.path().join("schedule.log")).unwrap_or_default();
            let tail: Vec<&str> = log.lines().filter(|l| !l.contains("Request failed")).take(40).collect();
            let sources =
                std::fs::read_to_string(dir.path().join("snapshots").join("sources.json")).unwrap_or_default();
            panic!(
                "day {last} not published within 5 minutes; sources: {sources}\nthe scheduler's log:\n{}",
                tail.join("\n")
            );
        }
        tokio::time::sleep(Duration::from_millis(500)).await;
    };
    let sources: Vec<&str> =
        status["sources"].as_array().expect("sources").iter().filter_map(|s| s["source"].as_str()).collect();
    for required in ["marketplace", "settlements", "probes", "funding", "erc8004", "launches"] {
        assert!(sources.contains(&required), "{required} in /status: {sources:?}");
    }
    // Scoring starts on the day of the first crawl (earlier days have no listings to score
    // against). The chain moved on to the wall clock, so the days after it may be rebuilt too, one
    // after the other, each once.
    let rebuilt: Vec<_> =
        lake.partitions(agentrep_lake::Dataset::DailyScores).expect("scores").into_iter().map(|p| p.date).collect();
    assert_eq!(rebuilt.first(), Some(&last), "{rebuilt:?}");
    assert!(rebuilt.windows(2).all(|w| w[1] == w[0].succ_opt().unwrap()), "{rebuilt:?}");
    // Probes went to the loopback sellers and found their offers.
    let probes: Vec<ProbeRow> = read_dated::<ProbeRow>(&lake).expect("probes").into_iter().map(|(_, p)| p).collect();
    assert!(!probes.is_empty() && probes.iter().all(|p| p.offer_matches == Some(true)), "{:?}", probes.first());
    assert!(sellers.urls().iter().all(|u| probes.iter().any(|p| &p.resource == u)));
    // A second scheduler on the same lake is refused at once, and the first one runs on.
    let second = std::process::Command::new(agentrep_binary())
        .arg("schedule")
        .arg("--lake")
        .arg(lake.root())
        .arg("--snapshots")
        .arg(dir.path().join("snapshots-second"))
        .arg("--config")
        .arg(&config)
        .output()
        .expect("a second scheduler runs");
    let refused = String::from_utf8_lossy(&second.stderr);
    assert!(!second.status.success() && refused.contains("holds this lake's scheduler lease"), "{refused}");
    assert!(child.0.try_wait().expect("status").is_none(), "still running until stopped");
}
