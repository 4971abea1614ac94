//! The Bazaar crawler and `/supported` against [`BazaarFixture`].

use agentrep_ingest::config::{DiscoverySource, MarketplaceConfig};
use agentrep_ingest::web::WebError;
use agentrep_ingest::web::bazaar::crawl;
use agentrep_ingest::web::facilitator::supported_signers;
use agentrep_ingest::web::reqwest::Url;
use agentrep_lake::Timestamp;
use agentrep_lake::datasets::ListingRow;
use agentrep_tests::fixtures::{BazaarFailure, BazaarFixture, BazaarOptions, malformed_items, v1_item, v2_item};
use serde_json::Value;

use super::{USDC, plain, wallet};

const NOW: Timestamp = Timestamp(1_760_000_000_000_000);
const ECOSYSTEM: &str = "fixture-bazaar";

/// `n` listings as the crawler should read them back: half listed in the v1 shape (`base`), half
/// in v2 (`eip155:8453`), several sharing a resource or a wallet.
fn listings(n: u64) -> Vec<ListingRow> {
    (0..n)
        .map(|i| ListingRow {
            resource: format!("https://seller{}.example/api/{}", i % 7, i / 2),
            pay_to: wallet(0xabc000 + i % 5),
            network: if i % 2 == 0 { "base" } else { "eip155:8453" }.to_owned(),
            asset: USDC.to_owned(),
            price_atomic: 1_000 + i,
            description: (i % 5 != 0).then(|| format!("Endpoint {i}")),
            tags: vec![format!("t{}", i % 3), "x402".to_owned()],
            ecosystem: ECOSYSTEM.to_owned(),
            first_seen: NOW,
            last_seen: NOW,
        })
        .collect()
}

/// Items for `listings` (v1 for even, v2 for odd positions) with the malformed items spread
/// among them; also the expected `skipped` strings.
fn items(listings: &[ListingRow]) -> (Vec<Value>, Vec<String>) {
    let mut out: Vec<Value> =
        listings.iter().enumerate().map(|(i, l)| if i % 2 == 0 { v1_item(l) } else { v2_item(l) }).collect();
    let mut reasons = Vec::new();
    for (k, (item, reason)) in malformed_items().into_iter().enumerate() {
        out.insert((k * 3 + 1).min(out.len()), item);
        reasons.push(format!("{reason}=1"));
    }
    reasons.sort();
    (out, reasons)
}

fn source(url: &str) -> DiscoverySource {
    DiscoverySource { ecosystem: ECOSYSTEM.to_owned(), url: Url::parse(url).expect("URL") }
}

fn cfg(page_size: u32, max_pages: u32) -> MarketplaceConfig {
    MarketplaceConfig { discovery: Vec::new(), page_size, max_pages, timeout_ms: 2_000 }
}

#[tokio::test]
async fn a_crawl_reads_every_page_of_v1_and_v2_items_and_counts_what_it_skips() {
    let expected = listings(25);
    let (items, skipped) = items(&expected);
    assert_eq!(items.len(), 34);
    let fixture = BazaarFixture::start(items, 10);
    // Asking for 100 a page: the server gives 10 and its total keeps the crawl going.
    let out = crawl(&plain(), &source(&fixture.discovery_url()), &cfg(100, 50), NOW).await;
    assert_eq!(out.run.error, None);
    assert_eq!(out.listings, expected);
    assert_eq!((out.run.pages, out.run.items, out.run.listings), (4, 34, 25));
    assert_eq!(out.run.skipped, skipped);
    assert_eq!(
        (out.run.source_url.as_str(), out.run.ecosystem.as_str()),
        (fixture.discovery_url().as_str(), ECOSYSTEM)
    );
    assert_eq!(out.run.started_at, NOW);
    assert!(out.run.finished_at >= NOW);
}

#[tokio::test]
async fn without_a_total_a_short_or_empty_page_ends_the_crawl() {
    for (n, pages) in [(25, 3), (20, 3), (0, 1)] {
        let expected = listings(n);
        let items: Vec<Value> = expected.iter().map(v2_item).collect();
        let fixture = BazaarFixture::start_with(
            items,
            BazaarOptions { page_size: 10, report_total: false, ..BazaarOptions::default() },
        );
        let out = crawl(&plain(), &source(&fixture.discovery_url()), &cfg(10, 50), NOW).await;
        assert_eq!(out.run.error, None, "{n} items");
        assert_eq!(out.listings, expected, "{n} items");
        assert_eq!(out.run.pages, pages, "{n} items");
    }
}

#[tokio::test]
async fn the_same_listing_on_two_pages_is_kept_once() {
    let expected = listings(12);
    let mut items: Vec<Value> = expected.iter().map(v1_item).collect();
    items.insert(11, v1_item(&expected[3]));
    let fixture = BazaarFixture::start(items, 5);
    let out = crawl(&plain(), &source(&fixture.discovery_url()), &cfg(5, 50), NOW).await;
    assert_eq!(out.listings, expected);
    assert_eq!(out.run.skipped, vec!["duplicate=1".to_owned()]);
    assert_eq!(out.run.items, 13);
}

#[tokio::test]
async fn max_pages_stops_the_crawl_and_the_run_says_so() {
    let expected = listings(25);
    let fixture = BazaarFixture::start(expected.iter().map(v2_item).collect(), 10);
    let out = crawl(&plain(), &source(&fixture.discovery_url()), &cfg(10, 2), NOW).await;
    assert_eq!(out.listings.as_slice(), &expected[..20]);
    assert_eq!(out.run.pages, 2);
    assert!(out.run.error.as_deref().is_some_and(|e| e.contains("max_pages")), "{:?}", out.run.error);
}

#[tokio::test]
async fn an_http_error_or_bad_json_ends_the_run_and_keeps_what_was_read() {
    let expected = listings(25);
    for (failure, says) in [(BazaarFailure::Status(500), "HTTP 500"), (BazaarFailure::BadJson, "not JSON")] {
        let fixture = BazaarFixture::start_with(
            expected.iter().map(v1_item).collect(),
            BazaarOptions { page_size: 10, fail_from_offset: Some((10, failure)), ..BazaarOptions::default() },
        );
        let out = crawl(&plain(), &source(&fixture.discovery_url()), &cfg(10, 50), NOW).await;
        assert_eq!(out.listings.as_slice(), &expected[..10], "{says}");
        assert_eq!(out.run.pages, 1);
        let error = out.run.error.expect("an error");
        assert!(error.contains("offset 10") && error.contains(says), "{error}");
    }
    // Nothing listening at all.
    let closed = std::net::TcpListener::bind("127.0.0.1:0").unwrap().local_addr().unwrap().port();
    let out =
        crawl(&plain(), &source(&format!("http://127.0.0.1:{closed}/discovery/resources")), &cfg(10, 5), NOW).await;
    assert_eq!((out.run.pages, out.listings.len()), (0, 0));
    assert!(out.run.error.as_deref().is_some_and(|e| e.contains("connect")), "{:?}", out.run.error);
}

#[tokio::test]
async fn facilitator_signers_come_from_supported() {
    let signers = vec![
        "0xDBDF3D8ED80F84C35D01C6C9F9271761BAD90BA6".to_owned(),
        "0x0000000000000000000000000000000000000002".to_owned(),
        "0xdbdf3d8ed80f84c35d01c6c9f9271761bad90ba6".to_owned(),
    ];
    let fixture = BazaarFixture::start_with(Vec::new(), BazaarOptions { signers, ..BazaarOptions::default() });
    let got = supported_signers(&plain(), &Url::parse(&fixture.base()).unwrap()).await.unwrap();
    let got: Vec<String> = got.iter().map(|a| a.to_string().to_lowercase()).collect();
    assert_eq!(
        got,
        vec![
            "0x0000000000000000000000000000000000000002".to_owned(),
            "0xdbdf3d8ed80f84c35d01c6c9f9271761bad90ba6".to_owned(),
        ]
    );
    let missing = supported_signers(&plain(), &Url::parse(&format!("{}/nowhere", fixture.base())).unwrap()).await;
    let e = missing.unwrap_err();
    assert!(matches!(&e, WebError::In { source, .. } if matches!(**source, WebError::Status(404))), "{e:?}");
    assert!(e.to_string().ends_with("/nowhere/supported: HTTP 404"), "{e}");
}
