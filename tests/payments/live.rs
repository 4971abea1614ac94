//! The paid live re-score end to end. A copy of the shared world's lake where one seller's
//! endpoints are a fixture on loopback and anvil's relayer is a known facilitator with one known
//! payer of that seller; its last day rebuilt into a snapshot. After the snapshot, the known payer
//! and a new one each pay the seller on anvil. The official `@x402/fetch` buyer pays agentrep for a
//! live re-score, which reads both settlements from the chain (the known payer's counted, the
//! new payer's shown and not counted until the rebuild), probes the endpoints now, and answers
//! with the re-scored payload; its receipt then unlocks `?full=1`. Then each other official buyer
//! (`x402-fetch` v1, PyPI `x402` v2 and v1) pays for the same re-score once, and so does an MCP
//! caller of `agentrep_live_rescore`. A deployment whose live node is
//! down refuses after verifying the payment, and charges nothing.

use std::collections::BTreeMap;
use std::time::Duration;

use agentrep_ingest::config::{ChainConfig, IngestConfig, ProbeConfig};
use agentrep_lake::datasets::{EntityLabelRow, ListingRow, SettlementRow};
use agentrep_lake::{Dataset, Lake, Timestamp};
use agentrep_publish::{PublishConfig, SnapshotStore};
use agentrep_server::{SecretKey, ServerConfig, ServiceIdentity};
use agentrep_tests::chain::paychain::{PayChain, key_hex};
use agentrep_tests::fixtures::{Behaviour, SellerFixture};
use agentrep_tests::{RunningServer, shared_world};
use alloy::primitives::{Address, U256};
use alloy::signers::local::PrivateKeySigner;
use reqwest::StatusCode;
use serde_json::Value;

use agentrep_tests::buyers::OfficialBuyer;

use super::{Payment, funded_payer, pay, terms, v2_header};

/// The live re-score's price, micro-USDC.
const LIVE_PRICE: u64 = 50_000;

/// A snapshot of the world's last day in which `seller`'s endpoints are `fixture`'s, `relayer` is
/// a known facilitator, and `known` paid the seller once through it.
struct LiveWorld {
    dir: tempfile::TempDir,
    seller: String,
    fixture: SellerFixture,
}

fn live_world(relayer: Address, known: Address) -> LiveWorld {
    let world = shared_world();
    let day = *world.days().last().unwrap();
    let dir = tempfile::tempdir().unwrap();
    agentrep_tests::copy_dir(world.lake().root(), &dir.path().join("lake")).unwrap();
    let lake = Lake::new(dir.path().join("lake"));
    let hex = |a: Address| alloy::hex::encode_prefixed(a);

    // The seller: the busiest payTo of the day's Base settlements that is listed on Base.
    let listings: Vec<ListingRow> = lake.read_partition(day).unwrap();
    let settlements: Vec<SettlementRow> = lake.read_partition(day).unwrap();
    let mut busiest: BTreeMap<&str, usize> = BTreeMap::new();
    for s in settlements.iter().filter(|s| s.facilitator.is_some()) {
        *busiest.entry(s.pay_to.as_str()).or_default() += 1;
    }
    let on_base = |a: &str| {
        listings.iter().any(|l| l.pay_to.to_lowercase() == a && matches!(l.network.as_str(), "base" | "eip155:8453"))
    };
    let seller =
        busiest.iter().filter(|(a, _)| on_base(a)).max_by_key(|(_, n)| **n).map(|(a, _)| (*a).to_owned()).unwrap();

    // Its endpoints become a fixture on loopback that answers with a correct v2 offer.
    let mut paths: BTreeMap<String, (String, u64)> = BTreeMap::new();
    for l in listings.iter().filter(|l| l.pay_to.to_lowercase() == seller) {
        let n = paths.len();
        paths.entry(l.resource.clone()).or_insert((format!("/r{n}"), l.price_atomic));
    }
    let fixture = SellerFixture::start(
        paths
            .values()
            .map(|(path, price)| {
                let offer = Behaviour::Offer402 {
                    version: 2,
                    pay_to: seller.clone(),
                    asset: agentrep_model::chain::USDC_BASE.to_owned(),
                    network: "eip155:8453".to_owned(),
                    amount: *price,
                };
                (path.clone(), offer)
            })
            .collect(),
    );
    for part in lake.partitions(Dataset::Listings).unwrap() {
        let mut rows: Vec<ListingRow> = lake.read_partition(part.date).unwrap();
        for l in rows.iter_mut().filter(|l| l.pay_to.to_lowercase() == seller) {
            if let Some((path, _)) = paths.get(&l.resource) {
                l.resource = fixture.url(path);
                l.network = "eip155:8453".to_owned();
            }
        }
        lake.write_partition(part.date, &rows).unwrap();
    }

    // The relayer is a known facilitator, and `known` paid the seller through it that day.
    let midnight = day.and_hms_opt(0, 0, 0).unwrap().and_utc().timestamp();
    let mut labels: Vec<EntityLabelRow> = lake.read_partition(day).unwrap_or_default();
    labels.push(EntityLabelRow {
        address: hex(relayer),
        entity: "facilitator".to_owned(),
        name: "test-relayer".to_owned(),
        source: "tests/payments/live.rs".to_owned(),
        added_at: Timestamp::from_secs(midnight),
    });
    lake.write_partition(day, &labels).unwrap();
    let price = paths.values().map(|(_, p)| *p).min().unwrap();
    let mut rows = settlements.clone();
    rows.push(SettlementRow {
        tx_hash: format!("0x{}", "ab".repeat(32)),
        log_index: 0,
        block_number: 1,
        block_time: Timestamp::from_secs(midnight + 3_600),
        payer: hex(known),
        pay_to: seller.clone(),
        value: price,
        asset: agentrep_model::chain::USDC_BASE.to_lowercase(),
        facilitator: Some(hex(relayer)),
        eip3009: true,
        network: "eip155:8453".to_owned(),
        form: None,
        channel: None,
        builder_app: None,
        builder_wallet: None,
        builder_services: None,
    });
    lake.write_partition(day, &rows).unwrap();

    let store = SnapshotStore::new(dir.path().join("snapshots"));
    agentrep_jobs::commands::rebuild_days(&lake, &store, &PublishConfig::default(), &[day]).unwrap();
    LiveWorld { dir, seller, fixture }
}

/// The live sources of a test: anvil (or `rpc`), no confirmations, the fixture on loopback.
fn sources(rpc: &str) -> IngestConfig {
    IngestConfig {
        chain: ChainConfig {
            rpc_urls: vec![rpc.parse().unwrap()],
            chain_id: 8453,
            use_finalized: false,
            confirmations: 0,
            max_retries: 0,
            request_timeout_ms: 2_000,
            ..ChainConfig::default()
        },
        probes: ProbeConfig { allow_private_targets: true, timeout_ms: 5_000, ..ProbeConfig::default() },
        ..IngestConfig::default()
    }
}

fn live_server(chain: &PayChain, world: &LiveWorld, rpc: &str, store: &str) -> RunningServer {
    RunningServer::start_config(ServerConfig {
        snapshots: world.dir.path().join("snapshots"),
        reload_interval: Duration::from_millis(100),
        identity: ServiceIdentity {
            pay_to: Some(alloy::hex::encode_prefixed(chain.pay_to)),
            ..ServiceIdentity::default()
        },
        payments: chain.direct_settings(world.dir.path().join(store)),
        operator_key: Some(SecretKey::new(key_hex(&chain.operator))),
        live_sources: Some(sources(rpc)),
        ..ServerConfig::default()
    })
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_official_buyer_pays_for_a_live_rescore_that_reads_the_chain_and_probes_now() {
    let chain = PayChain::start().await.unwrap();
    let known = PrivateKeySigner::random();
    let world = live_world(chain.relayer.address(), known.address());
    let server = live_server(&chain, &world, chain.anvil.url(), "store.sqlite");
    let seller: Address = world.seller.parse().unwrap();
    let snapshot: Value =
        reqwest::get(format!("{}/score/{}", server.base, world.seller)).await.unwrap().json().await.unwrap();
    let job_count = snapshot["metrics"]["jobCount"].as_u64().unwrap();
    assert!(snapshot.get("live").is_none(), "a snapshot payload carries no live section");

    // After the snapshot: the known payer and a new one pay the seller through the relayer.
    let fresh = PrivateKeySigner::random();
    for payer in [&known, &fresh] {
        chain.fund(payer.address(), 1_000_000).await.unwrap();
        chain.settle_as_relayer(payer, seller, 1_000_000).await.unwrap();
    }

    let buyer_key = funded_payer(&chain, 1_000_000).await;
    let url = format!("{}/score/{}?live=1", server.base, world.seller);
    let out = OfficialBuyer::FetchV2.pay(&url, &buyer_key, LIVE_PRICE).await;
    assert_eq!(out["status"], 200, "{out}");
    let body = &out["body"];
    assert_eq!((body["billed"].as_str(), body["gated"].as_bool()), (Some("paid"), Some(false)));
    let live = &body["live"];
    assert_eq!(
        live["settlements"],
        serde_json::json!({"read": 2, "counted": 1, "fromNewPayers": 1, "notQualifying": 0}),
        "{live}"
    );
    assert_eq!(body["metrics"]["jobCount"].as_u64(), Some(job_count + 1), "the known payer's settlement counts");
    let endpoints = world.fixture.urls().len() as u64;
    assert_eq!(
        (live["probes"]["taken"].as_u64(), live["probes"]["alive"].as_u64()),
        (Some(endpoints), Some(endpoints))
    );
    assert!(world.fixture.urls().iter().all(|u| world.fixture.hits(&u[world.fixture.base().len()..]) >= 1));
    assert_eq!(body["health"]["alive"], true);
    assert_eq!(live["basis"].as_array().map(Vec::len), Some(agentrep_model::live::PART_BASES.len()));
    assert_eq!(body["score_basis"], snapshot["score_basis"]);
    assert_eq!(chain.balance(buyer_key.address()).await.unwrap(), U256::from(1_000_000 - LIVE_PRICE), "paid once");

    // The receipt unlocks the full profile; nothing else does.
    let full = format!("{}/score/{}?full=1", server.base, world.seller);
    let locked = reqwest::get(&full).await.unwrap();
    assert_eq!(locked.status(), StatusCode::FORBIDDEN);
    let locked: Value = locked.json().await.unwrap();
    assert_eq!(locked["error"]["code"], "full_profile_locked");
    let receipt = &out["settlement"]["extensions"]["offer-receipt"]["info"]["receipt"];
    assert!(receipt.is_object(), "{out}");
    let header = agentrep_payments::wire::encode_base64(&serde_json::to_vec(receipt).unwrap());
    let unlocked = reqwest::Client::new().get(&full).header("X-Agentrep-Receipt", &header).send().await.unwrap();
    assert_eq!(unlocked.status(), StatusCode::OK);
    let profile: Value = unlocked.json().await.unwrap();
    assert_eq!(profile["score"]["gated"], false);
    assert!(profile["history"].is_object() && profile["preflight"].is_object(), "{profile}");
    let other = format!("{}/score/{}?full=1", server.base, top_other(&server.base, &world.seller).await);
    let elsewhere = reqwest::Client::new().get(&other).header("X-Agentrep-Receipt", &header).send().await.unwrap();
    assert_eq!(elsewhere.status(), StatusCode::FORBIDDEN, "a receipt unlocks only the wallet it paid for");

    // The other official buyers pay for the same live re-score, each once.
    for official in OfficialBuyer::ALL.into_iter().filter(|b| *b != OfficialBuyer::FetchV2) {
        let name = official.name();
        let payer = funded_payer(&chain, 1_000_000).await;
        let out = official.pay(&url, &payer, LIVE_PRICE).await;
        assert_eq!(out["status"], 200, "{name}: {out}");
        assert_eq!((out["body"]["billed"].as_str(), out["body"]["gated"].as_bool()), (Some("paid"), Some(false)));
        assert_eq!(out["body"]["live"]["settlements"]["counted"], 1, "{name}: the same evidence");
        assert_eq!(out["settlement"]["success"], true, "{name}: {out}");
        assert_eq!(chain.balance(payer.address()).await.unwrap(), U256::from(1_000_000 - LIVE_PRICE), "{name}");
    }

    // Over MCP, `agentrep_live_rescore` is the same sale (the tool-result binding the official MCP
    // clients read; the payment signed here).
    let mcp = format!("{}/mcp", server.base);
    let headers = [("mcp-protocol-version", "2025-06-18")];
    let call = |meta: Value| {
        serde_json::json!({"jsonrpc": "2.0", "id": 1, "method": "tools/call",
            "params": {"name": "agentrep_live_rescore", "arguments": {"address": world.seller}, "_meta": meta}})
    };
    let unpaid = super::mcp::post(&mcp, &headers, &call(serde_json::json!({}))).await;
    let accepted = unpaid["result"]["structuredContent"]["accepts"][0].clone();
    assert_eq!(accepted["amount"], LIVE_PRICE.to_string(), "{unpaid}");
    let payer = funded_payer(&chain, 1_000_000).await;
    let p = Payment { value: LIVE_PRICE, ..Payment::new(payer.address(), chain.pay_to) };
    let header = v2_header(&payer, &p, &accepted, None);
    let payment: Value = serde_json::from_slice(&agentrep_payments::wire::decode_base64(&header).unwrap()).unwrap();
    let paid = super::mcp::post(&mcp, &headers, &call(serde_json::json!({"x402/payment": payment}))).await;
    let result = &paid["result"];
    assert_eq!(result["isError"], false, "{paid}");
    assert_eq!(result["structuredContent"]["billed"], "paid");
    assert_eq!(result["structuredContent"]["live"]["settlements"]["counted"], 1);
    assert_eq!(result["_meta"]["x402/payment-response"]["success"], true, "{paid}");
    assert_eq!(chain.balance(payer.address()).await.unwrap(), U256::from(1_000_000 - LIVE_PRICE), "MCP paid once");
}

async fn top_other(base: &str, not: &str) -> String {
    let lb: Value = reqwest::get(format!("{base}/leaderboard?limit=5")).await.unwrap().json().await.unwrap();
    lb["results"].as_array().unwrap().iter().filter_map(|e| e["payTo"].as_str()).find(|a| *a != not).unwrap().to_owned()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_live_rescore_that_fails_after_verification_charges_nothing() {
    let chain = PayChain::start().await.unwrap();
    let world = live_world(chain.relayer.address(), PrivateKeySigner::random().address());
    // The payment network is up; the live sources' node is not.
    let server = live_server(&chain, &world, "http://127.0.0.1:9/", "store.sqlite");
    let payer = funded_payer(&chain, 1_000_000).await;
    let url = format!("{}/score/{}?live=1", server.base, world.seller);
    let accepted = terms(&url).await["accepts"][0].clone();
    let p = Payment { value: LIVE_PRICE, ..Payment::new(payer.address(), chain.pay_to) };
    let header = v2_header(&payer, &p, &accepted, None);
    let answer = pay(&url, ("payment-signature", &header)).await;
    assert_eq!(answer.status, StatusCode::SERVICE_UNAVAILABLE, "{:?}", answer.body);
    assert_eq!(answer.body["error"]["code"], "live_source_unavailable");
    assert!(answer.settlement.is_none());
    assert_eq!(chain.balance(payer.address()).await.unwrap(), U256::from(1_000_000), "nothing charged");
    let ledger = agentrep_store::Store::open(&world.dir.path().join("store.sqlite")).unwrap();
    // The deployment's one payment row: claimed, then released when the answer failed.
    assert_eq!(ledger.payment(1).unwrap().map(|r| r.state), Some(agentrep_store::PaymentState::Released));
    assert!(ledger.open_payments().unwrap().is_empty());
    // Released: the same authorization may pay again once the answer can be produced.
    let again = pay(&url, ("payment-signature", &header)).await;
    assert_eq!(again.status, StatusCode::SERVICE_UNAVAILABLE);
    assert_eq!(chain.balance(payer.address()).await.unwrap(), U256::from(1_000_000));
}
