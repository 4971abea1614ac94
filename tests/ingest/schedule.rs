//! `agentrep schedule --serve` as an operator runs it, with every source of the sources table on:
//! the replayed world on anvil (the chain sources, one block a second from the world's next
//! midnight on), loopback fixtures for the Bazaar discovery API, a ranked-domain list (Tranco's
//! two-step download: the newest id, then the list), a Farcaster hub and the world's sellers, the
//! server's store for the store export, and sellers that take real payments on the chain and then
//! deliver, fail after payment, deliver only to the wallets they know, or deliver slowly. Only the
//! guide's variables are set (the paid probe's key). The scheduler runs its cycles over two
//! chain days, is killed (SIGKILL) in the middle of a paid call and restarted, rebuilds and
//! publishes each day, and the answers are read through the HTTP API.

use std::collections::BTreeMap;
use std::path::Path;
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

use agentrep_ingest::sources::paid_probes_wallet_pool;
use agentrep_lake::datasets::{DailyScoreRow, ListingRow, PaidProbeRow, ProbeRow};
use agentrep_lake::sources::freshness_rules;
use agentrep_lake::{Dataset, Lake, SourceName, Timestamp};
use agentrep_publish::{PublishConfig, SnapshotStore};
use agentrep_tests::agentrep_binary;
use agentrep_tests::chain::contracts::{IFiatToken, USDC};
use agentrep_tests::chain::paychain::key_hex;
use agentrep_tests::fixtures::{
    AfterPay, BazaarFixture, BazaarOptions, Behaviour, HubFixture, PaidEndpoint, PaidSellerFixture, SellerFixture,
    v2_item,
};
use agentrep_tests::replayed::{ReplayedWorld, read_dated};
use alloy::primitives::{Address, U256};
use alloy::signers::local::PrivateKeySigner;
use alloy::sol_types::SolCall;
use chrono::{DateTime, NaiveDate};
use serde_json::Value;

/// What each paid call costs: the paid sellers' price, and the paid probe's cap (the world's
/// sellers are priced above it, so only the paid sellers are called).
const PRICE: u64 = 10;
/// The host the honest seller serves from, resolved to loopback by `probes.hosts`.
const HONEST_HOST: &str = "api.honest-shop.test";

/// A free loopback port (bound, then released for the child to take).
fn free_port() -> u16 {
    std::net::TcpListener::bind("127.0.0.1:0").expect("binds").local_addr().expect("address").port()
}

/// Stops the child on drop, so a failing test leaves no scheduler behind.
struct Stop(Child);

impl Drop for Stop {
    fn drop(&mut self) {
        let _ = self.0.kill();
        let _ = self.0.wait();
    }
}

/// The world's best-scored honest business on its last day (its ground truth, its own rebuild):
/// the seller whose standing the ranked domain should prove.
fn busiest_clean_seller(world: &ReplayedWorld, scratch: &Path) -> String {
    let labels: Value =
        serde_json::from_slice(&std::fs::read(world.world_dir().join("labels.json")).expect("labels")).expect("JSON");
    let honest: Vec<&str> = labels["sellers"]
        .as_array()
        .expect("sellers")
        .iter()
        .filter(|s| s["kind"] == "honest")
        .filter_map(|s| s["address"].as_str())
        .collect();
    let lake = Lake::new(scratch.join("world"));
    agentrep_tests::copy_dir(&world.world_dir(), lake.root()).expect("world copied");
    let last = *world.days.last().expect("days");
    let store = SnapshotStore::new(scratch.join("world-snapshots"));
    agentrep_jobs::commands::rebuild_days(&lake, &store, &PublishConfig::default(), &[last]).expect("rebuilds");
    let (_, listings) = world.last_listings();
    read_dated::<DailyScoreRow>(&lake)
        .expect("scores")
        .into_iter()
        .filter(|(day, r)| *day == last && r.decision.starts_with("PROCEED") && honest.contains(&r.address.as_str()))
        .filter(|(_, r)| listings.iter().any(|l| l.pay_to.eq_ignore_ascii_case(&r.address)))
        .max_by_key(|(_, r)| (r.score, r.settlements))
        .map(|(_, r)| r.address)
        .expect("the world has a clean listed seller")
}

/// Sends `data` to USDC as `from` (anvil impersonates every sender) and waits for its block.
async fn send_usdc(anvil: &agentrep_tests::chain::anvil::Anvil, from: Address, data: Vec<u8>) {
    let tx: String = anvil
        .rpc(
            "eth_sendTransaction",
            (serde_json::json!({"from": from, "to": USDC, "data": alloy::hex::encode_prefixed(data)}),),
        )
        .await
        .expect("sent");
    for _ in 0..100 {
        let receipt: Value = anvil.rpc("eth_getTransactionReceipt", (tx.clone(),)).await.expect("receipt");
        if !receipt.is_null() {
            assert_eq!(receipt["status"], "0x1", "{receipt}");
            return;
        }
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
    panic!("{tx} was not mined");
}

async fn usdc_balance(anvil: &agentrep_tests::chain::anvil::Anvil, who: Address) -> u64 {
    let data = IFiatToken::balanceOfCall { account: who }.abi_encode();
    let out: alloy::primitives::Bytes = anvil
        .rpc("eth_call", (serde_json::json!({"to": USDC, "data": alloy::hex::encode_prefixed(data)}), "latest"))
        .await
        .expect("balanceOf");
    u64::try_from(U256::from_be_slice(&out)).expect("a small balance")
}

/// Moves the chain to `t` (Unix seconds) and keeps it mining one block a second from there.
async fn jump(anvil: &agentrep_tests::chain::anvil::Anvil, t: i64) {
    let _: Value = anvil.rpc("evm_setIntervalMining", (0,)).await.expect("interval mining paused");
    anvil.mine_at(t).await.expect("the chain moves on");
    let _: Value = anvil.rpc("evm_setIntervalMining", (1,)).await.expect("interval mining resumed");
}

fn midnight_after(day: NaiveDate) -> i64 {
    day.succ_opt().expect("day").and_hms_opt(0, 0, 0).expect("midnight").and_utc().timestamp()
}

/// The scheduler as the operators' guide runs it: a cleared environment with the paid probe's key only
/// (and what any process needs: PATH, HOME, TMPDIR).
fn scheduler(lake: &Path, snapshots: &Path, config: &Path, port: u16, key: &str, log: &Path) -> Stop {
    let mut cmd = Command::new(agentrep_binary());
    cmd.env_clear();
    for var in ["PATH", "HOME", "TMPDIR"] {
        if let Some(v) = std::env::var_os(var) {
            cmd.env(var, v);
        }
    }
    let log = std::fs::OpenOptions::new().create(true).append(true).open(log).expect("log file");
    let child = cmd
        .arg("schedule")
        .arg("--lake")
        .arg(lake)
        .arg("--snapshots")
        .arg(snapshots)
        .arg("--config")
        .arg(config)
        .args(["--serve", "--addr", &format!("127.0.0.1:{port}"), "--clock", "chain"])
        .env("AGENTREP_PROBE_KEY", key)
        .env("RUST_LOG", "info")
        .stdout(Stdio::null())
        .stderr(log)
        .spawn()
        .expect("agentrep schedule starts");
    Stop(child)
}

/// The sources' status as the scheduler last published it.
fn sources_status(snapshots: &Path) -> Vec<Value> {
    std::fs::read_to_string(snapshots.join("sources.json"))
        .ok()
        .and_then(|s| serde_json::from_str::<Vec<Value>>(&s).ok())
        .unwrap_or_default()
}

/// Waits until `done` holds, failing with the scheduler's log after `limit`.
async fn wait_for(what: &str, limit: Duration, log: &Path, child: &mut Stop, mut done: impl FnMut() -> bool) {
    let started = Instant::now();
    while !done() {
        if let Some(exit) = child.0.try_wait().expect("status") {
            panic!(
                "the scheduler stopped ({exit}) waiting for {what}:\n{}",
                std::fs::read_to_string(log).unwrap_or_default()
            );
        }
        if started.elapsed() > limit {
            let text = std::fs::read_to_string(log).unwrap_or_default();
            let tail: Vec<&str> = text.lines().rev().take(60).collect::<Vec<_>>().into_iter().rev().collect();
            panic!("{what}: not within {limit:?}; the scheduler's log ends:\n{}", tail.join("\n"));
        }
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
}

/// The paid probe's spending as `/status` shows it, for `day`, once nothing is pending.
fn settled_spend(snapshots: &Path, day: NaiveDate) -> Option<Value> {
    let status = sources_status(snapshots);
    let paid = status.iter().find(|s| s["source"] == "paid-probes")?;
    let spend = &paid["spend"];
    (spend["day"] == day.to_string() && spend["pending"] == 0 && spend["calls"].as_u64() >= Some(4))
        .then(|| spend.clone())
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn schedule_runs_every_source_and_their_evidence_reaches_the_answers() {
    let world = ReplayedWorld::shared();
    let dir = tempfile::tempdir().expect("temp dir");
    let honest_world = busiest_clean_seller(world, &dir.path().join("pick"));
    let honest = world.replay.translate(&honest_world);
    let (_, world_listings) = world.last_listings();
    assert!(
        world_listings.iter().all(|l| l.price_atomic > PRICE),
        "the paid probe's cap leaves the world's sellers out"
    );
    let (mut bazaars, sellers) =
        world.bazaars_with_sellers_hosted(&BTreeMap::from([(honest_world.clone(), HONEST_HOST.to_owned())]));

    // The chain: the replayed world, then one block a second from the world's next midnight on.
    let anvil = world.node();
    let head: Value = anvil.rpc("eth_getBlockByNumber", ("latest", false)).await.expect("head");
    let head_time =
        i64::from_str_radix(head["timestamp"].as_str().expect("timestamp").trim_start_matches("0x"), 16).expect("hex");
    let first_day = DateTime::from_timestamp(head_time, 0).expect("time").date_naive();
    let _: Value = anvil.rpc("anvil_setTime", (head_time + 1,)).await.expect("clock set");
    let _: Value = anvil.rpc("evm_setIntervalMining", (1,)).await.expect("interval mining");

    // agentrep's paying wallets, funded; a relayer with gas for the paid sellers' settlements.
    let key = key_hex(&PrivateKeySigner::random());
    let pool: Vec<Address> =
        paid_probes_wallet_pool(&key, 2).expect("pool").iter().map(alloy::signers::Signer::address).collect();
    let relayer = PrivateKeySigner::random().address();
    anvil.set_balance(relayer, U256::from(10u128.pow(20))).await.expect("gas");
    for wallet in &pool {
        send_usdc(&anvil, relayer, IFiatToken::mintCall { to: *wallet, amount: U256::from(1_000_000u64) }.abi_encode())
            .await;
    }
    let known_customer = PrivateKeySigner::random().address();
    let paid: Vec<(&str, AfterPay, Address)> = vec![
        ("/delivers", AfterPay::Deliver, PrivateKeySigner::random().address()),
        ("/honeypot", AfterPay::FailAfterSettle, PrivateKeySigner::random().address()),
        ("/picky", AfterPay::DeliverOnlyTo(vec![known_customer]), PrivateKeySigner::random().address()),
        ("/slow", AfterPay::DeliverAfter(Duration::from_secs(15)), PrivateKeySigner::random().address()),
    ];
    let paid_sellers = PaidSellerFixture::start(
        anvil.url(),
        relayer,
        paid.iter()
            .map(|(path, after, pay_to)| PaidEndpoint {
                path: (*path).to_owned(),
                pay_to: *pay_to,
                price: PRICE,
                after: after.clone(),
                other_offers: Vec::new(),
            })
            .collect(),
    );
    let now = Timestamp::from_secs(head_time);
    let items = paid
        .iter()
        .map(|(path, _, pay_to)| {
            v2_item(&ListingRow {
                resource: paid_sellers.url(path),
                pay_to: format!("{pay_to:#x}"),
                network: "eip155:8453".to_owned(),
                asset: format!("{USDC:#x}"),
                price_atomic: PRICE,
                description: Some("a paid test seller".to_owned()),
                tags: Vec::new(),
                ecosystem: "test-market".to_owned(),
                first_seen: now,
                last_seen: now,
            })
        })
        .collect();
    bazaars.push(("test-market".to_owned(), BazaarFixture::start_with(items, BazaarOptions::default())));

    // The ranked-domain list, as Tranco publishes it: the newest list's id, then the list.
    let document = |content_type: &str, body: &str| Behaviour::Document {
        content_type: content_type.to_owned(),
        body: body.as_bytes().to_vec(),
    };
    let ranks = SellerFixture::start(vec![
        ("/top-1m-id".to_owned(), document("text/plain", "TEST7\n")),
        ("/download/TEST7/1000000".to_owned(), document("text/csv", "1,google.com\n4200,honest-shop.test\n")),
    ]);
    let hub = HubFixture::start(Vec::new(), Vec::new());
    // The registration files the world's agents name (`ipfs://…`), behind a loopback gateway.
    let registrations: Vec<(NaiveDate, agentrep_lake::datasets::RegistrationRow)> =
        read_dated(&world.world()).expect("registrations");
    let cards = SellerFixture::start(
        registrations
            .iter()
            .filter_map(|(_, r)| r.registration_uri.strip_prefix("ipfs://").map(|cid| (r, cid)))
            .map(|(r, cid)| {
                let card = serde_json::json!({
                    "type": "https://eips.ethereum.org/EIPS/eip-8004#registration-v1",
                    "name": format!("Agent {}", r.agent_id),
                    "description": "a registered agent of the replayed world",
                    "services": [{"name": "agentWallet", "endpoint": format!("eip155:8453:{}", r.agent_wallet.as_deref().map(|w| world.replay.translate(w)).unwrap_or_default())}],
                    "x402Support": true,
                    "active": true
                });
                (format!("/ipfs/{cid}"), document("application/json", &card.to_string()))
            })
            .collect(),
    );

    let config = world.write_config(dir.path(), anvil.url(), &bazaars);
    let mut toml =
        std::fs::read_to_string(&config).expect("config").replace("http://127.0.0.1:9/ipfs/", &cards.url("/ipfs/"));
    toml.push_str(&world.operator_config().expect("the world's labels"));
    toml.push_str(&format!(
        "\n[probes.hosts]\n\"{HONEST_HOST}\" = \"127.0.0.1\"\n\n\
         [domain_ranks]\nenabled = true\nurl = \"{}/download/{{list_id}}/1000000\"\nlatest_id_url = \"{}\"\n\n\
         [proofs]\nfarcaster_hub_url = \"{}\"\n\n\
         [paid_probes]\nenabled = true\nmax_price = {PRICE}\nbudget_per_day = {}\nevery_days = 1\n\
         authorization_secs = 4\nwallets = 2\n\n[schedule.every_secs]\n",
        ranks.base(),
        ranks.url("/top-1m-id"),
        hub.base(),
        4 * PRICE,
    ));
    for source in SourceName::ALL {
        toml.push_str(&format!("{} = 2\n", source.cadence().key));
    }
    std::fs::write(&config, toml).expect("config written");
    let lake = Lake::new(dir.path().join("lake"));
    world.seed_receipts(&lake).expect("receipts exported");
    world.seed_names(&lake).expect("names");
    let snapshots = dir.path().join("snapshots");
    let log = dir.path().join("schedule.log");
    let port = free_port();
    let start = || scheduler(lake.root(), &snapshots, &config, port, &key, &log);
    let mut child = start();

    // Day one: every source runs; killed (SIGKILL: no cleanup) while the slow seller's paid call
    // is in flight, its authorization journaled.
    // The journal is append-only: one file per authorization, written once.
    let journal_dir = lake.root().join("_checkpoints").join("paid-probes.journal");
    let entries = || -> Vec<Value> {
        let Ok(dir) = std::fs::read_dir(&journal_dir) else { return Vec::new() };
        dir.filter_map(Result::ok)
            .filter(|e| e.file_name().to_str().is_some_and(|n| n.ends_with(".json") && !n.starts_with('.')))
            .filter_map(|e| serde_json::from_str(&std::fs::read_to_string(e.path()).ok()?).ok())
            .collect()
    };
    let in_flight = || entries().iter().any(|e| e["resource"].as_str().is_some_and(|r| r.contains("/slow")));
    wait_for("the slow paid call", Duration::from_secs(180), &log, &mut child, in_flight).await;
    let journaled = entries();
    child.0.kill().expect("killed");
    child.0.wait().expect("reaped");
    let mut child = start();
    wait_for("day one's paid calls", Duration::from_secs(120), &log, &mut child, || {
        settled_spend(&snapshots, first_day).is_some()
    })
    .await;

    // Day two: the chain moves past midnight; every paid seller is called once more.
    let second_day = first_day.succ_opt().expect("day");
    jump(&anvil, midnight_after(first_day) + 30).await;
    wait_for("day two's paid calls", Duration::from_secs(120), &log, &mut child, || {
        settled_spend(&snapshots, second_day).is_some()
    })
    .await;
    // `PROCEED` wants three probes of an endpoint in the window: let the rounds come.
    let probed = || {
        let rows: Vec<(NaiveDate, ProbeRow)> = read_dated(&lake).unwrap_or_default();
        let honest_rounds = rows.iter().filter(|(_, p)| p.resource.contains(HONEST_HOST)).count();
        honest_rounds >= 2 * agentrep_model::decision::params::PROCEED_MIN_PROBES as usize
    };
    wait_for("probe rounds", Duration::from_secs(120), &log, &mut child, probed).await;
    // Past the second midnight, day two is covered, rebuilt and published.
    jump(&anvil, midnight_after(second_day) + 30).await;
    let client = reqwest::Client::new();
    let api = format!("http://127.0.0.1:{port}/api/agent");
    let published = || async {
        let r = client.get(format!("{api}/status")).send().await.ok()?;
        let body: Value = r.json().await.ok()?;
        (body["snapshotDate"] == second_day.to_string()).then_some(body)
    };
    let started = Instant::now();
    let status = loop {
        if let Some(status) = published().await {
            break status;
        }
        if let Some(exit) = child.0.try_wait().expect("status") {
            panic!("the scheduler stopped ({exit}):\n{}", std::fs::read_to_string(&log).unwrap_or_default());
        }
        assert!(started.elapsed() < Duration::from_secs(180), "day two published within 3 minutes");
        tokio::time::sleep(Duration::from_millis(300)).await;
    };

    // Every source of the table ran, is on, and says when it runs next; every dataset it feeds the
    // rebuild has a fresh partition for the published day.
    let sources = status["sources"].as_array().expect("sources");
    let names: Vec<&str> = sources.iter().filter_map(|s| s["source"].as_str()).collect();
    assert_eq!(names, SourceName::ALL.iter().map(|s| s.as_str()).collect::<Vec<_>>(), "in the table's order");
    for s in sources {
        assert_eq!(s["on"], true, "{s}");
        if s["source"] == SourceName::PaidProbes.as_str() {
            // When the paid calls come is no one's business: no time, no cadence, only the spend.
            for key in ["lastRunAt", "lastSuccessAt", "nextDueAt", "coveredUntil", "lagSeconds"] {
                assert!(s[key].is_null(), "the paid probe's schedule is public ({key}): {s}");
            }
            assert!(s["spend"].is_object(), "{s}");
            continue;
        }
        assert!(s["lastRunAt"].is_string() && s["lastSuccessAt"].is_string(), "{s}");
        assert!(s["nextDueAt"].is_string() && s["everySecs"] == 2, "{s}");
    }
    for (source, rule) in freshness_rules() {
        let newest = lake.partition_days(rule.dataset).expect("partitions").into_iter().rfind(|d| *d <= second_day);
        let fresh = newest.is_some_and(|d| (second_day - d).num_days() <= rule.max_age_days);
        assert!(fresh, "{source}: {} has no fresh partition on {second_day} (newest {newest:?})", rule.dataset.name());
    }
    let fetched: Vec<agentrep_lake::datasets::AgentCardRow> =
        read_dated(&lake).expect("cards").into_iter().map(|(_, c)| c).collect();
    assert!(
        fetched.iter().any(|c| c.error.is_none() && c.name.as_deref().is_some_and(|n| n.starts_with("Agent "))),
        "{fetched:?}"
    );
    let ranked: Vec<agentrep_lake::datasets::DomainRankRow> =
        read_dated(&lake).expect("ranks").into_iter().map(|(_, r)| r).collect();
    assert!(ranked.iter().any(|r| r.domain == "honest-shop.test" && r.list_id == "TEST7"), "{ranked:?}");

    let preflight = |address: String| {
        let (client, api) = (client.clone(), api.clone());
        async move {
            client
                .get(format!("{api}/preflight/{address}"))
                .send()
                .await
                .expect("preflight")
                .json::<Value>()
                .await
                .expect("JSON")
        }
    };
    let flags = |p: &Value| -> Vec<String> {
        p["trustShield"]["flags"]
            .as_array()
            .expect("flags")
            .iter()
            .filter_map(|f| f["key"].as_str().map(str::to_owned))
            .collect()
    };
    // The seller served from a ranked domain it controls is proven by it.
    let p = preflight(honest.clone()).await;
    assert_eq!(p["decision"], "PROCEED", "{p}");
    assert!(flags(&p).contains(&"ranked-domain".to_owned()), "{p}");
    // The seller that takes the money and delivers nothing is blocked.
    let honeypot = format!("{:#x}", paid[1].2);
    let p = preflight(honeypot).await;
    assert_eq!(p["decision"], "BLOCK", "{p}");
    assert!(flags(&p).contains(&"pay-then-fail".to_owned()), "{p}");
    // The seller that serves only the wallets it knows meets the oracle's wallets it does not know.
    let picky = format!("{:#x}", paid[2].2);
    let p = preflight(picky).await;
    assert!(["BLOCK", "CAUTION"].contains(&p["decision"].as_str().unwrap_or_default()), "{p}");
    assert!(flags(&p).iter().any(|f| f == "pay-then-fail" || f == "paid-call-undelivered"), "{p}");
    // The one that delivers is not warned against.
    let p = preflight(format!("{:#x}", paid[0].2)).await;
    assert!(p["decision"].as_str().unwrap_or_default().starts_with("PROCEED"), "{p}");

    // A second scheduler on the same lake is refused at once, and the first one runs on.
    let second = Command::new(agentrep_binary())
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
    // So is a manual run of the paid probe beside it: it would spend the day's budget again, pay
    // the same sellers twice and write the journal and the day's partition over the scheduler's.
    let manual = Command::new(agentrep_binary())
        .args(["ingest", "--source", "paid-probes", "--clock", "chain", "--lake"])
        .arg(lake.root())
        .arg("--snapshots")
        .arg(dir.path().join("snapshots-manual"))
        .arg("--config")
        .arg(&config)
        .env("AGENTREP_PROBE_KEY", &key)
        .output()
        .expect("a manual paid run runs");
    let refused = String::from_utf8_lossy(&manual.stderr);
    assert!(!manual.status.success() && refused.contains("holds this lake's scheduler lease"), "{refused}");
    assert!(child.0.try_wait().expect("status").is_none(), "still running until stopped");
    // Stopped (the third day's paid calls may be under way), what the lake says is read whole.
    child.0.kill().expect("killed");
    child.0.wait().expect("reaped");

    // The budget held on both days; the kill lost no record and paid nothing twice: every
    // authorization journaled before the kill has its row, each paid seller was paid once a day,
    // and the chain's balances agree with the rows (the third day's last calls may not be known
    // settled yet: they bound the balances from above).
    let rows: Vec<(NaiveDate, PaidProbeRow)> = read_dated(&lake).expect("paid probes");
    for day in [first_day, second_day] {
        let spent: u64 =
            rows.iter().filter(|(d, r)| *d == day && r.settled != Some(false)).map(|(_, r)| r.amount).sum();
        assert!(spent <= 4 * PRICE, "{day}: {spent} over the budget");
        for (path, _, pay_to) in &paid {
            let calls = rows.iter().filter(|(d, r)| *d == day && r.pay_to == format!("{pay_to:#x}")).count();
            assert_eq!(calls, 1, "{path} called once on {day}: {rows:?}");
        }
        assert!(
            rows.iter().filter(|(d, _)| *d == day).all(|(_, r)| r.settled.is_some()),
            "every call of {day} is known settled or not"
        );
    }
    assert!(!journaled.is_empty());
    for a in &journaled {
        let nonce = a["nonce"].as_str().expect("nonce");
        assert!(rows.iter().any(|(_, r)| r.nonce == nonce), "the journaled {a} has its row");
    }
    let interrupted: Vec<&PaidProbeRow> = rows
        .iter()
        .filter(|(d, r)| *d == first_day && r.error.as_deref() == Some("interrupted"))
        .map(|(_, r)| r)
        .collect();
    assert_eq!(interrupted.len(), 1, "only the call in flight was interrupted: {interrupted:?}");
    assert!(interrupted[0].resource.ends_with("/slow"));
    let journal_after = entries();
    let third_day = midnight_after(second_day);
    let pending_journal: Vec<&Value> = journal_after.iter().collect();
    assert!(
        pending_journal.iter().all(|a| a["probed_at"].as_i64().is_some_and(|t| t >= third_day)),
        "nothing of days one and two is left pending: {pending_journal:?}"
    );
    let amount_of = |a: &&Value| a["amount"].as_u64().expect("amount");
    let (mut settled_total, mut unknown_total) = (0, 0);
    for (path, _, pay_to) in &paid {
        let ours = |r: &PaidProbeRow| r.pay_to == format!("{pay_to:#x}");
        let settled: u64 = rows.iter().filter(|(_, r)| ours(r) && r.settled == Some(true)).map(|(_, r)| r.amount).sum();
        let unknown: u64 =
            rows.iter().filter(|(_, r)| ours(r) && r.settled.is_none()).map(|(_, r)| r.amount).sum::<u64>()
                + pending_journal.iter().filter(|a| a["pay_to"] == format!("{pay_to:#x}")).map(amount_of).sum::<u64>();
        let balance = usdc_balance(&anvil, *pay_to).await;
        assert!(settled <= balance && balance <= settled + unknown, "{path}: {balance} against {settled} (+{unknown})");
        settled_total += settled;
        unknown_total += unknown;
    }
    let mut left = 0;
    for wallet in &pool {
        left += usdc_balance(&anvil, *wallet).await;
    }
    let paid_out = 2_000_000 - left;
    assert!(settled_total <= paid_out && paid_out <= settled_total + unknown_total, "the pool paid what the rows say");
    let pool_hex: Vec<String> = pool.iter().map(|w| format!("{w:#x}")).collect();
    assert!(rows.iter().all(|(_, r)| pool_hex.contains(&r.payer)), "every call paid from the pool: {rows:?}");

    // Probes went to the loopback sellers and the ranked host, and found their offers.
    let probes: Vec<ProbeRow> = read_dated::<ProbeRow>(&lake).expect("probes").into_iter().map(|(_, p)| p).collect();
    assert!(probes.iter().any(|p| p.resource.contains(HONEST_HOST) && p.offer_matches == Some(true)));
    assert!(sellers.urls().iter().all(|u| probes.iter().any(|p| &p.resource == u || p.resource.contains(HONEST_HOST))));
    // Every day from the first crawl on was rebuilt once, in order.
    let rebuilt: Vec<NaiveDate> =
        lake.partitions(Dataset::DailyScores).expect("scores").into_iter().map(|p| p.date).collect();
    assert_eq!(rebuilt, [first_day, second_day], "{rebuilt:?}");
}
