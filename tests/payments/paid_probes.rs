//! The paid probe as an operator runs it (`agentrep ingest --source paid-probes` with the key in
//! `AGENTREP_PROBE_KEY`), against sellers that take real payments on anvil: it pays only what a
//! listing promises, records whether the money moved (read on chain once the authorization has
//! expired) and whether the answer came, and stays within its budget.

use agentrep_lake::datasets::{ListingRow, PaidProbeRow};
use agentrep_lake::{Lake, Timestamp};
use agentrep_tests::agentrep_binary;
use agentrep_tests::chain::paychain::{PayChain, key_hex};
use agentrep_tests::fixtures::{AfterPay, PaidEndpoint, PaidSellerFixture};
use alloy::primitives::{Address, U256};
use alloy::signers::local::PrivateKeySigner;

const PRICE: u64 = 10_000;

fn listing(resource: &str, pay_to: Address, price: u64) -> ListingRow {
    let now = chrono::Utc::now().timestamp();
    ListingRow {
        resource: resource.to_owned(),
        pay_to: format!("{pay_to:#x}"),
        network: "eip155:8453".to_owned(),
        asset: agentrep_model::chain::USDC_BASE.to_owned(),
        price_atomic: price,
        description: None,
        tags: Vec::new(),
        ecosystem: "test".to_owned(),
        first_seen: Timestamp::from_secs(now - 86_400),
        last_seen: Timestamp::from_secs(now - 60),
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_paid_probe_pays_what_listings_promise_and_records_delivery() {
    let chain = PayChain::start().await.unwrap();
    // A block a second, as a live chain: an authorization is known unused once the chain's time has
    // passed its `validBefore`.
    let _: serde_json::Value = chain.anvil.rpc("evm_setIntervalMining", (1,)).await.unwrap();
    let oracle = PrivateKeySigner::random();
    chain.fund(oracle.address(), 1_000_000).await.unwrap();
    let known = PrivateKeySigner::random().address();
    let sellers: Vec<Address> = (0..6).map(|_| PrivateKeySigner::random().address()).collect();
    let endpoint = |i: usize, after: AfterPay, price| PaidEndpoint {
        path: format!("/s{i}"),
        pay_to: sellers[i],
        price,
        after,
        other_offers: Vec::new(),
    };
    let fixture = PaidSellerFixture::start(
        chain.anvil.url(),
        chain.relayer.address(),
        vec![
            endpoint(0, AfterPay::Deliver, PRICE),
            endpoint(1, AfterPay::FailAfterSettle, PRICE),
            endpoint(2, AfterPay::FailWithoutSettle, PRICE),
            endpoint(3, AfterPay::DeliverOnlyTo(vec![known]), PRICE),
            // Its 402 asks for more than the listing says: not paid.
            endpoint(4, AfterPay::Deliver, PRICE * 3),
            // Listed above the probe's price limit: not called.
            endpoint(5, AfterPay::Deliver, 200_000),
        ],
    );
    let dir = tempfile::tempdir().unwrap();
    let lake = Lake::new(dir.path().join("lake"));
    let today = chrono::Utc::now().date_naive();
    let mut listings: Vec<ListingRow> =
        (0..4).map(|i| listing(&fixture.url(&format!("/s{i}")), sellers[i], PRICE)).collect();
    listings.push(listing(&fixture.url("/s4"), sellers[4], PRICE));
    listings.push(listing(&fixture.url("/s5"), sellers[5], 200_000));
    lake.write_partition(today, &listings).unwrap();
    let config = dir.path().join("agentrep.toml");
    std::fs::write(
        &config,
        format!(
            "[chain]\nrpc_urls = [\"{}\"]\nchain_id = 8453\nuse_finalized = false\nconfirmations = 0\n\
             [probes]\nallow_private_targets = true\ntimeout_ms = 10000\n\
             [paid_probes]\nenabled = true\nmax_price = 50000\nbudget_per_day = 1000000\nevery_days = 7\nauthorization_secs = 4\nwallets = 1\n",
            chain.anvil.url()
        ),
    )
    .unwrap();
    let (lake_root, config_path) = (lake.root().to_path_buf(), config.clone());
    let run = move |key: Option<String>| {
        let mut cmd = std::process::Command::new(agentrep_binary());
        cmd.arg("ingest").arg("--lake").arg(&lake_root).arg("--config").arg(&config_path);
        cmd.args(["--source", "paid-probes"]).env_remove("AGENTREP_PROBE_KEY");
        if let Some(k) = key {
            cmd.env("AGENTREP_PROBE_KEY", k);
        }
        cmd.output().unwrap()
    };
    // Without its key the source refuses to run, and says why.
    let refused = run(None);
    assert!(!refused.status.success());
    assert!(String::from_utf8_lossy(&refused.stderr).contains("AGENTREP_PROBE_KEY"));

    // A dry run names the pool and the calls it would buy, and pays nothing.
    let dry = {
        let mut cmd = std::process::Command::new(agentrep_binary());
        cmd.arg("ingest").arg("--lake").arg(lake.root()).arg("--config").arg(&config);
        cmd.args(["--source", "paid-probes", "--dry-run"]).env("AGENTREP_PROBE_KEY", key_hex(&oracle));
        tokio::task::spawn_blocking(move || cmd.output().unwrap()).await.unwrap()
    };
    let printed = String::from_utf8_lossy(&dry.stdout).into_owned();
    assert!(dry.status.success(), "{printed}{}", String::from_utf8_lossy(&dry.stderr));
    assert!(printed.contains(&format!("{:#x}  1000000", oracle.address())), "the pool with its balance: {printed}");
    assert!(printed.contains("5 calls for 50000 micro-USDC"), "{printed}");
    assert!(printed.contains("1 are priced over the cap"), "{printed}");
    for (i, seller) in sellers.iter().enumerate().take(5) {
        assert!(printed.contains(&format!("{seller:#x}")), "seller {i} would be called: {printed}");
    }
    assert!(!printed.contains(&format!("{:#x}", sellers[5])), "over the cap: {printed}");
    assert_eq!(chain.balance(oracle.address()).await.unwrap(), U256::from(1_000_000), "a dry run pays nothing");
    assert!(lake.partition_days(agentrep_lake::Dataset::PaidProbes).unwrap().is_empty(), "and writes nothing");

    let out = tokio::task::spawn_blocking({
        let (key, run) = (key_hex(&oracle), run.clone());
        move || run(Some(key))
    })
    .await
    .unwrap();
    let stderr = String::from_utf8_lossy(&out.stderr).into_owned();
    assert!(out.status.success(), "{stderr}");
    assert!(!stderr.contains(&key_hex(&oracle)[2..]), "the key is never logged");
    let rows: Vec<PaidProbeRow> = lake.read_partition(today).unwrap();
    let row = |i: usize| rows.iter().find(|r| r.pay_to == format!("{:#x}", sellers[i]));
    let summary = |i: usize| row(i).map(|r| (r.settled, r.delivered, r.error.clone()));
    assert_eq!(summary(0), Some((Some(true), true, None)), "{rows:?}");
    assert_eq!(summary(1), Some((Some(true), false, Some("http-500".into()))));
    assert_eq!(summary(2), Some((Some(false), false, Some("http-500".into()))), "failed without taking the money");
    assert_eq!(summary(3), Some((Some(true), false, Some("http-500".into()))), "delivers only to payers it knows");
    assert_eq!(summary(4), Some((Some(false), false, Some("too-expensive".into()))));
    assert_eq!(row(4).unwrap().amount, 0, "nothing authorised");
    assert!(row(5).is_none(), "a listing over the price limit is not called");
    assert!(row(0).unwrap().tx_hash.as_deref().is_some_and(|t| t.len() == 66));
    // A seller cannot tell the oracle's calls from the official Node client's by their headers:
    // the unpaid request and the paid retry both say `node`, with Node's fetch headers, and never
    // agentrep's prober's name.
    let seen = fixture.seen();
    assert!(seen.iter().any(|r| r.paid) && seen.iter().any(|r| !r.paid), "{seen:?}");
    for request in &seen {
        let header = |name: &str| request.headers.iter().find(|(n, _)| n == name).map(|(_, v)| v.as_str());
        assert_eq!(header("user-agent"), Some("node"), "{request:?}");
        assert_eq!((header("accept-language"), header("sec-fetch-mode")), (Some("*"), Some("cors")), "{request:?}");
        assert!(!request.headers.iter().any(|(_, v)| v.contains("agentrep")), "{request:?}");
    }
    // The chain agrees: three calls were paid, the one that failed without settling was not.
    assert_eq!(chain.balance(oracle.address()).await.unwrap(), U256::from(1_000_000 - 3 * PRICE));
    for (i, paid) in [(0, PRICE), (1, PRICE), (2, 0), (3, PRICE), (4, 0)] {
        assert_eq!(chain.balance(sellers[i]).await.unwrap(), U256::from(paid), "seller {i}");
    }

    // Run again the same day: every seller was probed within `every_days`, nothing is paid twice.
    let again = tokio::task::spawn_blocking({
        let key = key_hex(&oracle);
        move || run(Some(key))
    })
    .await
    .unwrap();
    assert!(again.status.success());
    let rows_after: Vec<PaidProbeRow> = lake.read_partition(today).unwrap();
    assert_eq!(rows_after.len(), rows.len());
    assert_eq!(chain.balance(oracle.address()).await.unwrap(), U256::from(1_000_000 - 3 * PRICE));
}
