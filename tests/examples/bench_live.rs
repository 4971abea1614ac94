//! The live re-score's latency against anvil (`make bench`, `BENCH_ONLY=payments`), settlement
//! excluded: `LiveSources::rescore` end to end (the safe head, one seller's USDC transfers since
//! the snapshot with their blocks' transactions and receipts, classified as the settlements job
//! classifies them, a probe of each endpoint now, the merge and the model), for a busy seller:
//! `N` settlements since the snapshot from known and new payers through a known facilitator, 3
//! endpoints (a fixture answering correct v2 402s), a full probe window of hourly probes.
//!
//! Baseline, measured in the same run: the I/O a re-score cannot avoid, done bare: one
//! `eth_getLogs` over the same range and one GET per endpoint, concurrently.
//!
//! usage: bench_live [settlements (100)] [re-scores (300)]; prints one line of medians and
//! percentiles.

use std::time::{Duration, Instant};

use agentrep_ingest::config::{ChainConfig, IngestConfig, ProbeConfig};
use agentrep_model::live::{KnownPayer, LiveBasis, LiveListing, PayerStanding, PriceBound, ProbeSample};
use agentrep_model::sources::{EvidenceSource, SourceNote};
use agentrep_model::{DemandStats, ListingInfo, SellerFeatures};
use agentrep_publish::live::LiveSellerV1;
use agentrep_server::live::LiveSources;
use agentrep_tests::chain::paychain::PayChain;
use agentrep_tests::fixtures::{Behaviour, SellerFixture};
use alloy::signers::local::PrivateKeySigner;
use serde_json::json;

const PRICE: u64 = 10_000;

fn percentile(sorted: &[Duration], p: f64) -> f64 {
    let i = ((sorted.len() as f64 - 1.0) * p).round() as usize;
    sorted[i].as_secs_f64() * 1e3
}

fn summary(mut d: Vec<Duration>) -> (f64, f64, f64, f64) {
    d.sort_unstable();
    (percentile(&d, 0.5), percentile(&d, 0.9), percentile(&d, 0.99), percentile(&d, 1.0))
}

fn main() -> anyhow::Result<()> {
    let args: Vec<u64> = std::env::args().skip(1).filter_map(|a| a.parse().ok()).collect();
    let (settlements, rescores) = (args.first().copied().unwrap_or(100), args.get(1).copied().unwrap_or(300));
    let rt = tokio::runtime::Builder::new_multi_thread().worker_threads(2).enable_all().build()?;
    rt.block_on(run(settlements, rescores))
}

async fn run(settlements: u64, rescores: u64) -> anyhow::Result<()> {
    let chain = PayChain::start().await?;
    let seller = PrivateKeySigner::random().address();
    let seller_hex = alloy::hex::encode_prefixed(seller);
    let fixture = SellerFixture::start(
        (0..3)
            .map(|i| {
                let offer = Behaviour::Offer402 {
                    version: 2,
                    pay_to: seller_hex.clone(),
                    asset: agentrep_model::chain::USDC_BASE.to_owned(),
                    network: "eip155:8453".to_owned(),
                    amount: PRICE,
                };
                (format!("/api/{i}"), offer)
            })
            .collect(),
    );
    let snapshot_end = chrono::Utc::now().timestamp() - 1;
    // 20 payers the snapshot knows (half of them trusted) and 10 it does not.
    let payers: Vec<PrivateKeySigner> = (0..30).map(|_| PrivateKeySigner::random()).collect();
    for p in &payers {
        chain.fund(p.address(), 100_000_000).await?;
    }
    for i in 0..settlements {
        chain.settle_as_relayer(&payers[(i % 30) as usize], seller, PRICE).await?;
    }
    let day_end = (snapshot_end.div_euclid(86_400)) * 86_400;
    let listings: Vec<LiveListing> = fixture
        .urls()
        .into_iter()
        .map(|resource| LiveListing {
            resource,
            pay_to: seller_hex.clone(),
            network: "eip155:8453".into(),
            asset: agentrep_model::chain::USDC_BASE.into(),
            price: PRICE,
        })
        .collect();
    let probes: Vec<ProbeSample> = (0..7 * 24)
        .flat_map(|h| {
            listings.iter().map(move |l| ProbeSample {
                resource: l.resource.clone(),
                t: day_end - 7 * 86_400 + h * 3_600,
                status: Some(402),
                latency_ms: Some(80 + (h as u32 % 40)),
                offer_version: Some(2),
                offer_matches: Some(true),
            })
        })
        .collect();
    let mut known: Vec<KnownPayer> = payers[..20]
        .iter()
        .enumerate()
        .map(|(i, p)| KnownPayer {
            address: alloy::hex::encode_prefixed(p.address()),
            standing: if i < 10 { PayerStanding::Trusted } else { PayerStanding::Untrusted },
            entity: Some((i as u32, day_end / 86_400 - 30)),
        })
        .collect();
    known.sort_by(|a, b| a.address.cmp(&b.address));
    let line = LiveSellerV1 {
        listing: ListingInfo { resource: listings[0].resource.clone(), ..ListingInfo::default() },
        features: SellerFeatures {
            listing_count: 3,
            age_days: 60,
            demand: DemandStats {
                settlements: 5_000,
                trusted_entities: 10,
                weighted_entities: 8.0,
                ..DemandStats::default()
            },
            ..SellerFeatures::default()
        },
        basis: LiveBasis {
            day_end,
            evidence_from: snapshot_end,
            prices: vec![PriceBound {
                network: "eip155:8453".into(),
                asset: agentrep_model::chain::USDC_BASE.to_lowercase(),
                prices: vec![PRICE],
            }],
            listings,
            payers: known,
            settled_days: (0..30).map(|d| (day_end / 86_400 - 30 + d, 150)).collect(),
            exact_settlements: 5_000,
            trusted_days: (0..30).map(|d| day_end / 86_400 - 30 + d).collect(),
            last_trusted_at: Some(day_end - 3_600),
            active_days: (0..30).map(|d| day_end / 86_400 - 30 + d).collect(),
            last_at: Some(day_end - 3_600),
            repeating_entities: Vec::new(),
            domain_resources: Vec::new(),
            unbound: None,
            probes,
        },
        sources: vec![SourceNote::Evidence(EvidenceSource::Marketplace)],
        last_probe: None,
    };
    let context = agentrep_publish::live::LiveContextV1 {
        version: agentrep_publish::live::LIVE_CONTEXT_VERSION.to_owned(),
        snapshot_date: "bench".to_owned(),
        facilitators: vec![alloy::hex::encode_prefixed(chain.relayer.address())],
        oracle_payers: Vec::new(),
    };
    let config = IngestConfig {
        chain: ChainConfig {
            rpc_urls: vec![chain.anvil.url().parse()?],
            chain_id: 8453,
            use_finalized: false,
            confirmations: 0,
            ..ChainConfig::default()
        },
        probes: ProbeConfig { allow_private_targets: true, ..ProbeConfig::default() },
        ..IngestConfig::default()
    };
    let live = LiveSources::new(config).map_err(anyhow::Error::msg)?;

    // Warm up (connection, the first block of the snapshot's coverage), and check what it reads.
    let first = live.rescore(&seller_hex, &line, &context, "bench").await?;
    anyhow::ensure!(first.report.settlements.read == settlements as u32, "read {:?}", first.report.settlements);
    anyhow::ensure!(first.report.probes.alive == 3, "probes {:?}", first.report.probes);
    for _ in 0..9 {
        live.rescore(&seller_hex, &line, &context, "bench").await?;
    }

    // Baseline: the bare I/O, concurrently, as the re-score does it.
    let http = reqwest::Client::new();
    let filter = json!([{
        "address": agentrep_model::chain::USDC_BASE,
        "fromBlock": format!("0x{:x}", first.report.blocks.from),
        "toBlock": format!("0x{:x}", first.report.blocks.to),
        "topics": [
            "0xddf252ad1be2c89b69c2b068fc378daa952ba7f163c4a11628f55a4df523b3ef",
            null,
            format!("0x{:0>64}", &seller_hex[2..]),
        ],
    }]);
    let mut bare = Vec::new();
    for _ in 0..rescores {
        let started = Instant::now();
        let logs = http
            .post(chain.anvil.url())
            .json(&json!({"jsonrpc": "2.0", "id": 1, "method": "eth_getLogs", "params": filter}))
            .send();
        let gets = futures::future::join_all(fixture.urls().into_iter().map(|u| http.get(u).send()));
        let (logs, gets) = tokio::join!(logs, gets);
        let body: serde_json::Value = logs?.json().await?;
        anyhow::ensure!(body["result"].as_array().map(Vec::len) == Some(settlements as usize), "{body}");
        anyhow::ensure!(gets.into_iter().all(|g| g.is_ok_and(|r| r.status() == 402)));
        bare.push(started.elapsed());
    }
    let mut measured = Vec::new();
    for _ in 0..rescores {
        let started = Instant::now();
        let r = live.rescore(&seller_hex, &line, &context, "bench").await?;
        measured.push(started.elapsed());
        let known = (0..settlements).filter(|i| i % 30 < 20).count() as u32;
        anyhow::ensure!(r.report.settlements.counted == known, "{:?}", r.report.settlements);
    }
    let (b50, _, b99, _) = summary(bare);
    let (p50, p90, p99, max) = summary(measured);
    println!(
        "{rescores} re-scores of a seller with {settlements} settlements since the snapshot and 3 endpoints: \
         p50 {p50:.1} ms, p90 {p90:.1} ms, p99 {p99:.1} ms, max {max:.1} ms; bare I/O (eth_getLogs + 3 GETs) \
         p50 {b50:.1} ms, p99 {b99:.1} ms; p50 {:.1}x, p99 {:.1}x the bare I/O",
        p50 / b50,
        p99 / b99
    );
    Ok(())
}
