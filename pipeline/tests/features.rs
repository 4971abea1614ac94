//! The DuckDB feature passes on a hand-made lake, where every expected value is worked out by
//! hand.

use agentrep_lake::datasets::*;
use agentrep_lake::{Lake, Timestamp};
use agentrep_model::{Decision, FlagKey};
use chrono::NaiveDate;

const SELLER: &str = "0x5e11e500000000000000000000000000000000aa";
const SELLER_MIXED: &str = "0x5E11E500000000000000000000000000000000AA";

fn addr(n: u32) -> String {
    format!("0x{n:040x}")
}

fn day(d: u32) -> NaiveDate {
    NaiveDate::from_ymd_opt(2026, 11, 1).unwrap() + chrono::Duration::days(i64::from(d))
}

fn at(d: u32, secs: i64) -> Timestamp {
    Timestamp::from_secs(day(d).and_hms_opt(0, 0, 0).unwrap().and_utc().timestamp() + secs)
}

fn listing(resource: &str, pay_to: &str, d: u32) -> ListingRow {
    ListingRow {
        resource: resource.into(),
        pay_to: pay_to.into(),
        network: "eip155:8453".into(),
        asset: "0x833589fcd6edb6e08f4c7c32d4f71b54bda02913".into(),
        price_atomic: 10_000,
        description: Some("weather oracle".into()),
        tags: vec!["weather".into(), "data".into()],
        ecosystem: "cdp-bazaar".into(),
        first_seen: at(0, 0),
        last_seen: at(d, 3_600),
    }
}

fn settlement(n: u32, d: u32, secs: i64, payer: &str, value: u64) -> SettlementRow {
    SettlementRow {
        tx_hash: format!("0x{n:064x}"),
        log_index: 1,
        block_number: u64::from(n),
        block_time: at(d, secs),
        payer: payer.into(),
        pay_to: SELLER.into(),
        value,
        asset: "0x833589fcd6edb6e08f4c7c32d4f71b54bda02913".into(),
        facilitator: None,
        eip3009: true,
        network: "eip155:8453".into(),
    }
}

/// Day 0..=9. Payer 1 pays the exact price every 6 hours on days 7-9 (12 payments, clockwork);
/// payers 2 and 3 pay once each on day 9, at double the price. Payers 1 and 2 were funded by
/// funder 50, payer 3 by a hub that funded 250 other wallets. Feedback: payer 1 rates 90 (paid),
/// wallets 60-64 rate 100 (never paid). One endpoint answers every probe, the mixed-case duplicate
/// listing's endpoint answers none.
fn build_lake(dir: &std::path::Path) -> Lake {
    let lake = Lake::new(dir);
    for d in 0..10 {
        lake.write_partition(
            day(d),
            &[listing("https://wx.example.com/api", SELLER, d), listing("https://wx.example.com/v2", SELLER_MIXED, d)],
        )
        .unwrap();
        let mut rows = Vec::new();
        if d >= 7 {
            for k in 0..4 {
                rows.push(settlement(d * 10 + k, d, i64::from(k) * 6 * 3_600, &addr(1), 10_000));
            }
        }
        if d == 9 {
            rows.push(settlement(900, 9, 100, &addr(2), 20_000));
            rows.push(settlement(901, 9, 200, &addr(3), 20_000));
        }
        lake.write_partition(day(d), &rows).unwrap();
        let probes: Vec<ProbeRow> = ["https://wx.example.com/api", "https://wx.example.com/v2"]
            .iter()
            .map(|r| {
                let ok = r.ends_with("api");
                ProbeRow {
                    resource: (*r).into(),
                    probed_at: at(d, 7_200),
                    status: ok.then_some(402),
                    ok,
                    latency_ms: ok.then_some(100 + d * 10),
                    error: (!ok).then(|| "timeout".into()),
                    offer_version: ok.then_some(2),
                    offer_matches: ok.then_some(true),
                }
            })
            .collect();
        lake.write_partition(day(d), &probes).unwrap();
    }
    let mut funding = vec![
        FundingRow { funded: addr(1), funder: addr(50), first_funded_at: at(0, 0), amount: 1 },
        FundingRow { funded: addr(2), funder: addr(50), first_funded_at: at(0, 0), amount: 1 },
        FundingRow { funded: addr(3), funder: addr(99), first_funded_at: at(0, 0), amount: 1 },
    ];
    funding.extend((0..250).map(|i| FundingRow {
        funded: addr(1000 + i),
        funder: addr(99),
        first_funded_at: at(0, 0),
        amount: 1,
    }));
    lake.write_partition(day(0), &funding).unwrap();
    lake.write_partition(
        day(0),
        &[RegistrationRow {
            agent_id: 7,
            owner: SELLER.into(),
            agent_wallet: Some(SELLER.into()),
            registration_uri: "ipfs://x".into(),
            registered_at: at(0, 0),
        }],
    )
    .unwrap();
    let mut feedback = vec![FeedbackRow {
        agent_id: 7,
        client: addr(1),
        feedback_index: 1,
        value: 900,
        value_decimals: 1,
        tag1: "starred".into(),
        tag2: String::new(),
        revoked: false,
        block_time: at(8, 0),
    }];
    feedback.extend((60..65).map(|c| FeedbackRow {
        agent_id: 7,
        client: addr(c),
        feedback_index: 1,
        value: 100,
        value_decimals: 0,
        tag1: "starred".into(),
        tag2: String::new(),
        revoked: false,
        block_time: at(8, 0),
    }));
    // Out of range: excluded, not clamped.
    feedback.push(FeedbackRow {
        agent_id: 7,
        client: addr(2),
        feedback_index: 1,
        value: 250,
        value_decimals: 0,
        tag1: "starred".into(),
        tag2: String::new(),
        revoked: false,
        block_time: at(9, 0),
    });
    lake.write_partition(day(8), &feedback).unwrap();
    lake
}

#[test]
fn seller_features_match_hand_computed_values() {
    let dir = tempfile::tempdir().unwrap();
    let lake = build_lake(dir.path());
    let (input, _) = agentrep_pipeline::rebuild(&lake, day(9)).unwrap();
    assert_eq!(input.sellers.len(), 1, "case duplicates merge into one seller");
    let s = &input.sellers[0];
    let f = &s.features;
    assert_eq!(s.address, SELLER);
    assert_eq!(f.listing_count, 2);
    assert_eq!(f.case_variants, 2);
    assert_eq!(f.age_days, 9);
    assert_eq!(f.settlements, 14);
    assert_eq!(f.volume, 12 * 10_000 + 2 * 20_000);
    assert_eq!(f.distinct_payers, 3);
    assert!((f.repeat_payer_ratio - 1.0 / 3.0).abs() < 1e-9);
    assert!((f.top_payer_share - 12.0 / 14.0).abs() < 1e-9);
    assert!((f.exact_price_share - 12.0 / 14.0).abs() < 1e-9);
    assert_eq!(f.median_price_ratio, Some(1.0));
    assert_eq!(f.days_since_last_settlement, Some(0));
    assert_eq!(f.active_days_30d, 3);
    assert_eq!(f.interval_cv, Some(0.0), "payer 1 pays every 6 hours exactly");
    // Payer 3's funder is a hub (251 funded) and is ignored; payers 1 and 2 share funder 50.
    assert_eq!(f.payers_with_funder, 2);
    assert_eq!(f.top_funder_share, 1.0);
    // Probes in the 7 days up to day 9: both endpoints, once a day.
    assert_eq!(f.sla.samples, 14);
    assert_eq!(f.sla.ok, 7);
    assert_eq!(f.sla.latency_p50_ms, 160);
    // Feedback: 6 in range from 6 clients, 1 of whom paid (rating 90.0).
    assert_eq!(f.feedback_count, 6);
    assert_eq!(f.feedback_clients, 6);
    assert_eq!(f.paid_feedback_clients, 1);
    assert!((f.paid_feedback_sum - 0.9).abs() < 1e-9);
    assert!(f.erc8004_registered);

    let keys: Vec<FlagKey> = s.assessment.flags.iter().map(|h| h.key).collect();
    for expected in
        [FlagKey::PayerConcentration, FlagKey::UnpaidFeedback, FlagKey::EndpointFlapping, FlagKey::CaseDuplicate]
    {
        assert!(keys.contains(&expected), "{expected:?} not raised: {keys:?}");
    }
    assert!(!keys.contains(&FlagKey::WashFunderCluster), "two funded payers are too few to judge");
    assert_eq!(s.assessment.decision, Decision::Caution, "one high flag (unpaid feedback) cautions");
    assert_eq!(s.history.last().unwrap().date, "2026-11-10");
}

#[test]
fn nothing_after_the_rebuild_day_is_read() {
    let dir = tempfile::tempdir().unwrap();
    let lake = build_lake(dir.path());
    let (input, _) = agentrep_pipeline::rebuild(&lake, day(7)).unwrap();
    let f = &input.sellers[0].features;
    assert_eq!(f.settlements, 4, "only day 7's payments");
    assert_eq!(f.distinct_payers, 1);
    assert_eq!(f.feedback_count, 0, "feedback arrives on day 8");
}
