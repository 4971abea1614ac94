//! Probes against [`SellerFixture`].

use std::collections::BTreeMap;
use std::time::{Duration, Instant};

use agentrep_ingest::config::ProbeConfig;
use agentrep_ingest::web::probe::probe_all;
use agentrep_ingest::web::safe::SafeClient;
use agentrep_lake::Timestamp;
use agentrep_lake::datasets::{ListingRow, ProbeRow};
use agentrep_tests::fixtures::{Behaviour, SellerFixture};

use super::{USDC, listing, probe_cfg, wallet};

fn offer(version: u32, pay_to: &str, amount: u64) -> Behaviour {
    let network = if version == 1 { "base" } else { "eip155:8453" };
    Behaviour::Offer402 {
        version,
        pay_to: pay_to.to_owned(),
        asset: USDC.to_owned(),
        network: network.to_owned(),
        amount,
    }
}

fn now() -> Timestamp {
    let d = std::time::SystemTime::now().duration_since(std::time::UNIX_EPOCH).unwrap();
    Timestamp(i64::try_from(d.as_micros()).unwrap())
}

fn by_resource(rows: Vec<ProbeRow>) -> BTreeMap<String, ProbeRow> {
    rows.into_iter().map(|r| (r.resource.clone(), r)).collect()
}

/// A seller with one endpoint of each behaviour, and its listings.
fn seller() -> (SellerFixture, Vec<ListingRow>, String) {
    let a = wallet(0xa11ce);
    let fixture = SellerFixture::start(vec![
        ("/v1-match".into(), offer(1, &a.to_lowercase(), 1_000)),
        ("/v2-match".into(), offer(2, &a, 2_000)),
        ("/v2-mismatch".into(), offer(2, &a, 999)),
        ("/shared".into(), offer(1, &a, 500)),
        ("/ok".into(), Behaviour::Ok200),
        ("/dead".into(), Behaviour::Status(503)),
        ("/no-offer".into(), Behaviour::Status(402)),
        ("/hang".into(), Behaviour::Hang),
        ("/slow".into(), Behaviour::Slow { ms: 60 }),
        ("/flap".into(), Behaviour::Flapping { period: 1 }),
        ("/moved".into(), Behaviour::Redirect { to: "/ok".into() }),
    ]);
    let u = |p: &str| fixture.url(p);
    let closed = std::net::TcpListener::bind("127.0.0.1:0").unwrap().local_addr().unwrap().port();
    let closed_url = format!("http://127.0.0.1:{closed}/gone");
    let listings = vec![
        listing(&u("/v1-match"), &a, "eip155:8453", 1_000),
        listing(&u("/v2-match"), &a.to_lowercase(), "base", 2_000),
        listing(&u("/v2-mismatch"), &a, "eip155:8453", 3_000),
        listing(&u("/shared"), &a, "base", 400),
        listing(&u("/shared"), &a, "base", 500),
        listing(&u("/ok"), &a, "base", 1),
        listing(&u("/dead"), &a, "base", 1),
        listing(&u("/no-offer"), &a, "base", 1),
        listing(&u("/hang"), &a, "base", 1),
        listing(&u("/slow"), &a, "base", 1),
        listing(&u("/flap"), &a, "base", 1),
        listing(&u("/moved"), &a, "base", 1),
        listing(&closed_url, &a, "base", 1),
        listing("ftp://files.example/x", &a, "base", 1),
    ];
    (fixture, listings, closed_url)
}

#[tokio::test]
async fn probes_classify_every_behaviour() {
    let (fixture, listings, closed_url) = seller();
    let cfg = ProbeConfig { timeout_ms: 400, ..probe_cfg() };
    let client = SafeClient::new(&cfg).unwrap();
    let before = now();
    let rows = probe_all(&client, &listings, &cfg).await;
    let after = now();
    assert_eq!(rows.len(), 13, "one row per distinct resource");
    assert!(rows.windows(2).all(|w| w[0].resource < w[1].resource), "sorted by resource");
    assert!(rows.iter().all(|r| r.probed_at >= before && r.probed_at <= after));
    assert_eq!(fixture.hits("/shared"), 1, "a shared resource is probed once");
    let rows = by_resource(rows);
    let row = |p: &str| rows[&fixture.url(p)].clone();
    // (status, ok, error, offer_version, offer_matches)
    let summary = |r: ProbeRow| (r.status, r.ok, r.error, r.offer_version, r.offer_matches);
    assert_eq!(summary(row("/v1-match")), (Some(402), true, None, Some(1), Some(true)));
    assert_eq!(summary(row("/v2-match")), (Some(402), true, None, Some(2), Some(true)));
    assert_eq!(summary(row("/v2-mismatch")), (Some(402), true, None, Some(2), Some(false)));
    assert_eq!(summary(row("/shared")), (Some(402), true, None, Some(1), Some(true)), "matches one of its listings");
    assert_eq!(summary(row("/ok")), (Some(200), true, None, None, None));
    assert_eq!(summary(row("/flap")), (Some(200), true, None, None, None));
    assert_eq!(summary(row("/moved")), (Some(200), true, None, None, None));
    assert_eq!(summary(row("/dead")), (Some(503), false, Some("http-503".into()), None, None));
    assert_eq!(summary(row("/no-offer")), (Some(402), false, Some("bad-offer".into()), None, None));
    assert_eq!(summary(row("/hang")), (None, false, Some("timeout".into()), None, None));
    assert_eq!(summary(rows[&closed_url].clone()), (None, false, Some("connect".into()), None, None));
    assert_eq!(summary(rows["ftp://files.example/x"].clone()), (None, false, Some("bad-url".into()), None, None));
    assert!(row("/slow").latency_ms.is_some_and(|ms| ms >= 60), "{:?}", row("/slow").latency_ms);
    assert_eq!(row("/hang").latency_ms, None);
    assert!(row("/ok").latency_ms.is_some());
    // The flapping endpoint answers 503 the next time.
    let again = by_resource(probe_all(&client, &listings[10..11], &cfg).await);
    assert_eq!(again[&fixture.url("/flap")].error.as_deref(), Some("http-503"));
}

#[tokio::test]
async fn loopback_endpoints_are_refused_without_allow_private() {
    let (fixture, listings, _) = seller();
    let cfg = ProbeConfig { allow_private_targets: false, ..probe_cfg() };
    let rows = probe_all(&SafeClient::new(&cfg).unwrap(), &listings, &cfg).await;
    assert_eq!(rows.len(), 13);
    for r in &rows {
        let expected = if r.resource.starts_with("ftp:") { "bad-url" } else { "refused-private" };
        assert_eq!((r.status, r.ok, r.error.as_deref()), (None, false, Some(expected)), "{}", r.resource);
    }
    assert!(fixture.urls().iter().all(|u| fixture.hits(&u[fixture.base().len()..]) == 0), "nothing reached the server");
}

#[tokio::test]
async fn two_hundred_endpoints_on_one_server() {
    let a = wallet(0xb0b);
    let endpoints: Vec<(String, Behaviour)> = (0..200u64)
        .map(|i| {
            let b = match i % 4 {
                0 => Behaviour::Ok200,
                1 => offer(1, &a, 1_000 + i),
                2 => offer(2, &a, 1_000 + i),
                _ => Behaviour::Slow { ms: 5 },
            };
            (format!("/e/{i:03}"), b)
        })
        .collect();
    let fixture = SellerFixture::start(endpoints);
    let listings: Vec<ListingRow> =
        (0..200u64).map(|i| listing(&fixture.url(&format!("/e/{i:03}")), &a, "base", 1_000 + i)).collect();
    let cfg = ProbeConfig { concurrency: 32, timeout_ms: 5_000, ..probe_cfg() };
    let rows = probe_all(&SafeClient::new(&cfg).unwrap(), &listings, &cfg).await;
    assert_eq!(rows.len(), 200);
    for (i, r) in rows.iter().enumerate() {
        assert!(r.ok, "{r:?}");
        let offered = matches!(i % 4, 1 | 2);
        assert_eq!(r.offer_matches, offered.then_some(true), "{r:?}");
        assert_eq!(fixture.hits(&format!("/e/{i:03}")), 1);
    }
}

#[tokio::test]
async fn the_per_host_rate_limit_spaces_requests() {
    let fixture = SellerFixture::start((0..15).map(|i| (format!("/r{i:02}"), Behaviour::Ok200)).collect());
    let listings: Vec<ListingRow> = fixture.urls().iter().map(|u| listing(u, &wallet(1), "base", 1)).collect();
    let cfg = ProbeConfig { per_host_per_second: 10, ..probe_cfg() };
    let started = Instant::now();
    let rows = probe_all(&SafeClient::new(&cfg).unwrap(), &listings, &cfg).await;
    // A burst of 10, then one every 100 ms: the 15th starts 500 ms in.
    assert!(started.elapsed() >= Duration::from_millis(450), "{:?}", started.elapsed());
    assert!(rows.iter().all(|r| r.ok));
}
