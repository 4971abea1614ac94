//! The overlay's griefing property (`SCORING.md` § 7), on the generated world: evidence an
//! outsider can create after the snapshot (full-price x402 settlements from fresh wallets, zero
//! ratings, failed receipts) never reaches the overlay, and the operator's own evidence (its
//! probes, its paid calls, its denylist entries) only ever lowers a decision.

use std::collections::BTreeMap;

use agentrep_jobs::overlay::publish_overlay;
use agentrep_lake::Timestamp;
use agentrep_lake::datasets::{FeedbackRow, ListEntryRow, PaidProbeRow, ProbeRow, ReceiptRow, SettlementRow};
use agentrep_model::decision::Decision;
use agentrep_publish::store::SnapshotStore;
use agentrep_publish::wire::{AgentRowV1, OverlaySellerV1};
use agentrep_tests::{BuiltWorld, build_world};

const CASES: u64 = 3;

/// A small deterministic generator (SplitMix64): the cases are the same on every run.
struct Draw(u64);

impl Draw {
    fn next(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9e37_79b9_7f4a_7c15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
        z ^ (z >> 31)
    }

    fn below(&mut self, n: usize) -> usize {
        (self.next() % n as u64) as usize
    }

    fn chance(&mut self, percent: u64) -> bool {
        self.next() % 100 < percent
    }
}

fn wallet(n: u64) -> String {
    format!("0x{n:040x}")
}

struct Snapshot {
    rows: Vec<AgentRowV1>,
    next: chrono::NaiveDate,
    day_end: i64,
}

fn snapshot_of(world: &BuiltWorld) -> Snapshot {
    let current = world.snapshots().join("current");
    let rows = std::fs::read_to_string(current.join("index/agents.jsonl"))
        .unwrap()
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    let manifest: serde_json::Value =
        serde_json::from_slice(&std::fs::read(current.join("manifest.json")).unwrap()).unwrap();
    let day = chrono::NaiveDate::parse_from_str(manifest["snapshotDate"].as_str().unwrap(), "%Y-%m-%d").unwrap();
    let next = day.succ_opt().unwrap();
    Snapshot { rows, next, day_end: next.and_hms_opt(0, 0, 0).unwrap().and_utc().timestamp() }
}

/// An outsider's campaign after the snapshot against `targets`.
fn outsider_evidence(world: &BuiltWorld, snap: &Snapshot, draw: &mut Draw, targets: &[&AgentRowV1]) {
    let (mut settlements, mut feedback, mut receipts) = (Vec::new(), Vec::new(), Vec::new());
    for (k, target) in targets.iter().enumerate() {
        let price = target.price.as_ref().and_then(|p| p.amount.parse().ok()).unwrap_or(10_000);
        for n in 0..1 + draw.below(8) as u64 {
            let puppet = wallet(0xdead_0000 + k as u64 * 100 + n);
            let t = snap.day_end + 60 + draw.below(3_000) as i64;
            settlements.push(SettlementRow {
                tx_hash: format!("0x{:064x}", draw.next()),
                log_index: 0,
                block_number: 1,
                block_time: Timestamp::from_secs(t),
                payer: puppet.clone(),
                pay_to: target.address.clone(),
                value: if draw.chance(50) { price } else { 1 },
                asset: agentrep_model::chain::USDC_BASE.to_ascii_lowercase(),
                facilitator: None,
                eip3009: true,
                network: "eip155:8453".to_owned(),
                form: None,
                channel: None,
                builder_app: None,
                builder_wallet: None,
                builder_services: None,
            });
            feedback.push(FeedbackRow {
                agent_id: draw.below(50) as u64,
                client: puppet.clone(),
                feedback_index: 1,
                value: 0,
                value_decimals: 0,
                tag1: String::new(),
                tag2: String::new(),
                revoked: false,
                block_time: Timestamp::from_secs(t),
            });
            receipts.push(ReceiptRow {
                buyer: puppet,
                agent: target.address.clone(),
                tx_hash: None,
                success: false,
                latency_ms: None,
                rating: Some(0),
                comment: Some("never delivered".to_owned()),
                received_at: Timestamp::from_secs(t),
            });
        }
    }
    let lake = world.lake();
    lake.write_partition(snap.next, &settlements).unwrap();
    lake.write_partition(snap.next, &feedback).unwrap();
    lake.write_partition(snap.next, &receipts).unwrap();
}

/// The operator's own evidence after the snapshot: probes (alive or dead), paid calls (delivered
/// or not) and denylist entries for `targets`, drawn from `seed` so two worlds get the same.
fn operator_evidence(world: &BuiltWorld, snap: &Snapshot, seed: u64, targets: &[&AgentRowV1]) {
    let mut draw = Draw(seed);
    let (mut probes, mut paid, mut deny) = (Vec::new(), Vec::new(), Vec::new());
    for target in targets {
        let alive = draw.chance(40);
        for round in 1..=1 + draw.below(4) as i64 {
            for resource in &target.resources {
                probes.push(ProbeRow {
                    resource: resource.clone(),
                    probed_at: Timestamp::from_secs(snap.day_end + round * 900),
                    status: alive.then_some(402),
                    ok: alive,
                    latency_ms: alive.then_some(120),
                    error: (!alive).then(|| "timed out".to_owned()),
                    offer_version: alive.then_some(2),
                    offer_matches: alive.then_some(true),
                    offer_pay_tos: if alive { vec![target.address.clone()] } else { Vec::new() },
                });
            }
        }
        if draw.chance(30) {
            paid.push(PaidProbeRow {
                resource: target.resources[0].clone(),
                pay_to: target.address.clone(),
                probed_at: Timestamp::from_secs(snap.day_end + 2_000),
                payer: wallet(0xaa),
                network: "eip155:8453".to_owned(),
                asset: agentrep_model::chain::USDC_BASE.to_owned(),
                amount: 1_000,
                nonce: format!("0x{:x}", draw.next()),
                status: Some(200),
                body_bytes: 10,
                delivered: draw.chance(50),
                settled: Some(true),
                tx_hash: None,
                error: None,
            });
        }
        if draw.chance(10) {
            deny.push(ListEntryRow {
                address: target.address.clone(),
                list: "deny".to_owned(),
                source: "operator".to_owned(),
                category: "scam:seller".to_owned(),
                added_at: Timestamp::from_secs(snap.day_end + 3_000),
            });
        }
    }
    let lake = world.lake();
    lake.write_partition(snap.next, &probes).unwrap();
    lake.write_partition(snap.next, &paid).unwrap();
    lake.write_partition(snap.next, &deny).unwrap();
}

fn overlay(world: &BuiltWorld) -> BTreeMap<String, OverlaySellerV1> {
    let store = SnapshotStore::new(world.snapshots());
    publish_overlay(&world.lake(), &store, None).unwrap().expect("the snapshot has a live basis").sellers
}

#[test]
fn outsider_evidence_never_reaches_the_overlay_and_the_operators_only_lowers() {
    let mut lowered = 0;
    for case in 0..CASES {
        let mut draw = Draw(case);
        let griefed = build_world(3, 3);
        let snap = snapshot_of(&griefed);
        let with_resources: Vec<&AgentRowV1> = snap.rows.iter().filter(|r| !r.resources.is_empty()).collect();
        let targets: Vec<&AgentRowV1> = (0..12).map(|_| with_resources[draw.below(with_resources.len())]).collect();
        outsider_evidence(&griefed, &snap, &mut draw, &targets);
        assert!(overlay(&griefed).is_empty(), "case {case}: outsider evidence reached the overlay");

        let seed = draw.next();
        operator_evidence(&griefed, &snap, seed, &targets);
        let both = overlay(&griefed);
        let clean = build_world(3, 3);
        operator_evidence(&clean, &snap, seed, &targets);
        assert_eq!(both, overlay(&clean), "case {case}: outsider evidence changed the overlay");

        let published: BTreeMap<&str, Decision> = snap.rows.iter().map(|r| (r.address.as_str(), r.decision)).collect();
        for (address, seller) in &both {
            let before = published[address.as_str()];
            assert!(seller.decision <= before, "case {case}: the overlay raised {address}: {seller:?}");
            assert_eq!(seller.published_decision, before);
            lowered += usize::from(seller.decision < before);
        }
    }
    assert!(lowered > 0, "the operator's evidence must lower someone, or the property is vacuous");
}

/// A seller's own change between rebuilds (a URL now paying a new wallet of its, a raised price),
/// crawled after the snapshot, reaches the URL preflight through the overlay: the 402 naming the
/// new payTo or price is judged against the claim and is no decoy or price trap; a payTo no crawl
/// names is still a decoy. No seller's decision moves for it.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn listings_crawled_since_the_snapshot_reach_the_url_preflight() {
    use agentrep_lake::datasets::ListingRow;
    use agentrep_publish::wire::ListingRowV1;
    use serde_json::{Value, json};

    let world = build_world(3, 3);
    let snap = snapshot_of(&world);
    let current = world.snapshots().join("current");
    let listings: Vec<ListingRowV1> = std::fs::read_to_string(current.join("index/listings.jsonl"))
        .unwrap()
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    let listed = listings.iter().find(|l| l.price.parse::<u64>().unwrap() > 0).expect("a priced listing").clone();
    let (rotated, raised) = (wallet(0x5e11_0001), listed.price.parse::<u64>().unwrap() * 2);
    let crawl = |pay_to: &str, price: u64| ListingRow {
        resource: listed.resource.clone(),
        pay_to: pay_to.to_owned(),
        network: listed.network.clone(),
        asset: listed.asset.clone(),
        price_atomic: price,
        description: None,
        tags: Vec::new(),
        ecosystem: listed.ecosystem.clone(),
        first_seen: Timestamp::from_secs(snap.day_end + 600),
        last_seen: Timestamp::from_secs(snap.day_end + 600),
    };
    // And a cheaper claim of the seller's own URL and payTo, crawled last, as anyone can get listed.
    let undercut = ListingRow {
        last_seen: Timestamp::from_secs(snap.day_end + 1_200),
        ..crawl(&listed.pay_to, listed.price.parse::<u64>().unwrap() / 2)
    };
    world
        .lake()
        .write_partition(snap.next, &[crawl(&rotated, 1_000), crawl(&listed.pay_to, raised), undercut])
        .unwrap();
    let store = SnapshotStore::new(world.snapshots());
    let overlay = publish_overlay(&world.lake(), &store, None).unwrap().unwrap();
    assert_eq!(overlay.listings.len(), 3, "only the claims the snapshot does not hold: {:?}", overlay.listings);
    assert!(overlay.sellers.is_empty(), "a crawl lowers nobody: {:?}", overlay.sellers);

    let server = agentrep_tests::RunningServer::start(&world.snapshots());
    let ask = |pay_to: String, amount: u64| {
        let body = json!({"url": listed.resource, "paymentRequired": {"x402Version": 2,
            "resource": {"url": listed.resource},
            "accepts": [{"scheme": "exact", "network": listed.network, "amount": amount.to_string(),
                "asset": listed.asset, "payTo": pay_to, "maxTimeoutSeconds": 60}]}});
        let url = format!("{}/preflight", server.base);
        async move {
            let resp = reqwest::Client::new().post(url).json(&body).send().await.unwrap();
            let doc: Value = resp.json().await.unwrap();
            let codes: Vec<String> =
                doc["warnings"].as_array().unwrap().iter().map(|w| w["code"].as_str().unwrap().to_owned()).collect();
            (doc, codes)
        }
    };
    let (doc, codes) = ask(rotated.clone(), 1_000).await;
    assert!(!codes.iter().any(|c| c == "decoy"), "the seller's rotation is called a decoy: {doc}");
    assert!(codes.iter().any(|c| c == "listing_conflict"), "{doc}");
    let (doc, codes) = ask(listed.pay_to.clone(), raised).await;
    assert!(!codes.iter().any(|c| c == "price_trap"), "the seller's new price is called a price trap: {doc}");
    let (doc, codes) = ask(listed.pay_to.clone(), listed.price.parse().unwrap()).await;
    assert!(!codes.iter().any(|c| c == "price_trap"), "a later, cheaper claim made the listed price a trap: {doc}");
    let (doc, codes) = ask(wallet(0xbad), 1_000).await;
    assert!(codes.iter().any(|c| c == "decoy"), "a payTo no crawl names is no decoy: {doc}");
}
