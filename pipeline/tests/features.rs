//! The rebuild's feature passes on a hand-made lake, where every expected value is worked out by
//! hand (attribution, entities, trust, paid reviews, matched receipts; ranked domains and paid calls).

mod support;

use agentrep_model::trust::DAMPING;
use agentrep_model::{Component, Decision, FlagKey};
use support::*;

const SELLER: &str = "0x5e11e500000000000000000000000000000000aa";
const SELLER_MIXED: &str = "0x5E11E500000000000000000000000000000000AA";

/// Seller S lists `/api` at 0.01 USDC and `/cheap` at 0.001 (two price points), once under a
/// mixed-case spelling. Anchors A1 and A2 (Coinbase-verified, funded from the exchange) pay
/// through the facilitator; A3 is a smart account funded by its verified owner O, who reviews.
/// Noise that is not demand: a payment below every price, a plain transfer, an unknown sender and
/// a testnet payment. The seller pays itself once and funds Q1 directly and Q2 through I.
fn lake() -> LakeBuilder {
    let (a1, a2, a3, o) = (addr(1), addr(2), addr(3), addr(4));
    let mut b = LakeBuilder::new();
    b.listing("https://wx.example.com/api", SELLER, 10_000, 0)
        .listing("https://wx.example.com/cheap", SELLER, 1_000, 0)
        .listing("https://wx.example.com/v2", SELLER_MIXED, 10_000, 2);
    for w in [&a1, &a2, &o] {
        b.fund(w, EXCHANGE, -60, 50_000_000).proof(w, "cb1-verified", -30);
    }
    b.fund(&a3, &o, -20, 5_000_000);
    for d in [7, 8, 9] {
        b.pay(d, 3_600, &a1, SELLER, 10_000, Via::X402);
    }
    b.pay(9, 100, &a2, SELLER, 1_000, Via::X402)
        .pay(8, 100, &a3, SELLER, 10_000, Via::X402)
        .pay(9, 200, &addr(5), SELLER, 500, Via::X402)
        .pay(9, 300, &addr(6), SELLER, 10_000, Via::Plain)
        .pay(9, 400, &addr(7), SELLER, 10_000, Via::UnknownSender)
        .pay(9, 500, &addr(8), SELLER, 10_000, Via::Testnet)
        .pay(9, 600, SELLER, SELLER, 10_000, Via::X402);
    let (q1, q2, i) = (addr(11), addr(12), addr(13));
    b.fund(&q1, SELLER, 1, 1_000_000).fund(&i, SELLER, 1, 1_000_000).fund(&q2, &i, 2, 1_000_000);
    b.pay(9, 700, &q1, SELLER, 10_000, Via::X402).pay(9, 800, &q2, SELLER, 10_000, Via::X402);
    b.register(7, SELLER)
        .review(6, 7, &a1, 80) // before A1 ever paid: does not count
        .review(9, 7, &a1, 100)
        .review(9, 7, &o, 90); // the owner of the paying smart account
    for c in 60..65 {
        b.review(9, 7, &addr(c), 0); // never paid: no weight
    }
    b.review(9, 7, &addr(66), 250); // out of range: excluded, not clamped
    b.receipt(9, &a1, SELLER, false).receipt(9, &addr(70), SELLER, false);
    // A2's payment is the builder's 4th: A2 cites it (counts), a stranger cites it (does not).
    b.receipt_citing(9, &a2, SELLER, true, 4).receipt_citing(9, &addr(71), SELLER, false, 4);
    b.probes("https://wx.example.com/api", 0, Some(402), Some(true))
        .probes("https://wx.example.com/cheap", 0, Some(403), None)
        .probes("https://wx.example.com/v2", 2, None, None);
    b
}

#[test]
fn seller_features_match_hand_computed_values() {
    let dir = tempfile::tempdir().unwrap();
    let lake = lake().write(dir.path());
    let (input, _) = agentrep_pipeline::rebuild(&lake, day(9)).unwrap();
    assert_eq!(input.sellers.len(), 1, "case duplicates merge into one seller");
    let s = &input.sellers[0];
    let f = &s.features;
    assert_eq!(s.address, SELLER);
    assert_eq!((f.listing_count, f.case_variants, f.price_points, f.age_days), (3, 2, 2, 9));

    let d = &f.demand;
    // Qualifying: A1 ×3, A2 (the cheap price), A3, the seller itself, Q1, Q2.
    assert_eq!(d.settlements, 8);
    assert_eq!(d.volume, 3 * 10_000 + 1_000 + 10_000 + 3 * 10_000);
    assert_eq!(d.exact_price_share, 1.0, "each payment matches one of the two prices");
    assert_eq!((d.unattributed, d.below_price), (3, 1));
    assert_eq!(d.self_payments, 1);
    assert_eq!((d.seller_funded_payers, d.seller_funded_settlements), (2, 2), "Q2 is two hops below the seller");
    assert_eq!((d.payers, d.entities, d.trusted_entities), (3, 3, 3));
    assert_eq!(d.repeat_ratio, 1.0 / 3.0, "only A1 paid on two or more days");
    assert_eq!(d.days_since_last_trusted, Some(0));
    assert_eq!(d.active_days_30d, 3);
    // Trust: A1 and A2 are anchors paying only S; A3 inherits 0.85 of its owner's anchor.
    let expected_mass = DAMPING + DAMPING + DAMPING * DAMPING;
    assert!((d.trust_mass - expected_mass).abs() < 1e-9, "{}", d.trust_mass);

    let r = &f.reputation;
    assert_eq!((r.feedback, r.feedback_clients, r.unpaid_feedback_clients), (8, 7, 5));
    assert_eq!(r.reviewing_entities, 2, "A1 after paying, and the owner O for its smart account");
    assert!((r.review_sum - 1.9).abs() < 1e-9, "{}", r.review_sum);
    assert_eq!(r.trusted_reviewers, 2);
    assert_eq!((r.receipts, r.receipts_matched, r.failed_entities), (4, 2, 1));

    // Probes: /api answers a valid 402 (alive), /cheap a 403 (reachable, not alive), /v2 nothing.
    // Only /api ever answered a 402 naming the wallet, so only its probes count (3.1: which URL a
    // listing names is a claim too; /cheap and /v2 are judged by the URL preflight).
    assert_eq!((f.sla.samples, f.sla.ok, f.sla.offers, f.sla.offer_mismatches), (7, 7, 7, 0));
    assert_eq!(f.sla.latency_p50_ms, Some(106));
    assert!(f.erc8004_registered);

    let keys: Vec<FlagKey> = s.assessment.flags.iter().map(|h| h.key).collect();
    for expected in [
        FlagKey::SelfDealing,
        FlagKey::UnpaidFeedback,
        FlagKey::UnattributedTransfers,
        FlagKey::CaseDuplicate,
        FlagKey::NoIdentityProofs,
    ] {
        assert!(keys.contains(&expected), "{expected:?} not raised: {keys:?}");
    }
    assert!(!keys.contains(&FlagKey::UnprovenDemand));
    assert_eq!(s.assessment.decision, Decision::Caution, "self-dealing (3 of 8 settlements) is one high flag");
    assert_eq!(s.history.last().unwrap().date, "2026-11-10");
}

#[test]
fn nothing_after_the_rebuild_day_is_read() {
    let dir = tempfile::tempdir().unwrap();
    let lake = lake().write(dir.path());
    let (input, _) = agentrep_pipeline::rebuild(&lake, day(7)).unwrap();
    let f = &input.sellers[0].features;
    assert_eq!(f.demand.settlements, 1, "only day 7's payment");
    assert_eq!(f.reputation.feedback, 1, "only the day-6 review");
    assert_eq!(f.reputation.reviewing_entities, 0, "given before paying");
}

#[test]
fn null_is_never_zero_at_component_level() {
    // A seller paid by two anchors, never reviewed, never probed.
    let dir = tempfile::tempdir().unwrap();
    let mut b = LakeBuilder::new();
    b.listing("https://quiet.example.com/api", SELLER, 10_000, 0);
    for n in 1..=2 {
        b.fund(&addr(n), EXCHANGE, -60, 1).proof(&addr(n), "cb1-verified", -30);
        b.pay(8, 60, &addr(n), SELLER, 10_000, Via::X402);
    }
    let lake = b.write(dir.path());
    let (input, _) = agentrep_pipeline::rebuild(&lake, day(9)).unwrap();
    let a = &input.sellers[0].assessment;
    let points = |c| a.breakdown.points(c);
    assert_eq!(points(Component::Reputation), None, "no reviews: not zero, missing");
    assert_eq!(points(Component::Reliability), None, "no probes: not zero, missing");
    assert!(points(Component::Demand).is_some_and(|p| p > 0.0));
    for signal in ["paid-reviews-or-receipts", "probes"] {
        assert!(a.missing_signals.iter().any(|m| m == signal), "{signal} missing from {:?}", a.missing_signals);
    }
    assert!(a.score.is_some(), "scored on what exists");
    let sla = &input.sellers[0].features.sla;
    assert_eq!(sla.latency_p95_ms, None, "no latency is not 0 ms");
}

#[test]
fn duplicate_observations_of_a_day_count_once_and_the_pick_is_fixed() {
    // A token trading with 2,000 USDC of liquidity every day; the indexer re-ran day 9 and wrote
    // a second row with a collapsed price. Either row order on disk gives the same launch.
    let path: Vec<(u64, f64, f64)> = (0..=9).map(|_| (2_000, 1.0, 1.0)).collect();
    let outcomes: Vec<_> = [true, false]
        .into_iter()
        .map(|duplicate_first| {
            let dir = tempfile::tempdir().unwrap();
            let mut b = LakeBuilder::new();
            b.listing("https://x.example.com/api", SELLER, 10_000, 0);
            if duplicate_first {
                b.observe("0x70", 9, 10, 0.001, 1.0);
            }
            b.launch("0x70", &addr(77), 0, &path);
            if !duplicate_first {
                b.observe("0x70", 9, 10, 0.001, 1.0);
            }
            let (input, _) = agentrep_pipeline::rebuild(&b.write(dir.path()), day(9)).unwrap();
            input.deployers[0].launches[0].clone()
        })
        .collect();
    assert_eq!(outcomes[0], outcomes[1]);
    assert_eq!(outcomes[0].outcome, agentrep_model::LaunchOutcome::Alive, "the liquid row of day 9 wins");
}

/// A ranked domain stands for the seller whose offers it serves, and for nobody when it serves
/// several sellers' offers (a platform); a host that embeds an IP address has no domain; a list
/// older than the freshness window proves nothing. agentrep's own paid calls that took the money
/// and delivered nothing are pay-then-fail evidence.
#[test]
fn ranked_domains_and_paid_calls_reach_the_features() {
    let (own, shared_a, shared_b, ip, old) = (addr(0xa1), addr(0xa2), addr(0xa3), addr(0xa4), addr(0xa5));
    let mut b = LakeBuilder::new();
    b.listing("https://api.own-shop.com/x", &own, 10_000, 0)
        .listing("https://a.shared-host.com/x", &shared_a, 10_000, 0)
        .listing("https://b.shared-host.com/y", &shared_b, 10_000, 0)
        .listing("https://tools.10-1-2-3.sslip.io/x", &ip, 10_000, 0)
        .listing("https://api.old-list.com/x", &old, 10_000, 0);
    for r in [
        "https://api.own-shop.com/x",
        "https://a.shared-host.com/x",
        "https://b.shared-host.com/y",
        "https://tools.10-1-2-3.sslip.io/x",
        "https://api.old-list.com/x",
    ] {
        b.probes(r, 0, Some(402), Some(true));
    }
    b.rank(i64::from(LAST), "own-shop.com", 4_000).rank(i64::from(LAST), "shared-host.com", 900);
    b.rank(i64::from(LAST), "sslip.io", 3_000).rank(-60, "old-list.com", 50);
    b.paid_probe(7, "https://api.own-shop.com/x", &own, true, true);
    b.paid_probe(5, "https://a.shared-host.com/x", &shared_a, true, false)
        .paid_probe(8, "https://a.shared-host.com/x", &shared_a, true, false)
        .paid_probe(9, "https://a.shared-host.com/x", &shared_a, false, false);
    let dir = tempfile::tempdir().unwrap();
    let lake = b.write(dir.path());
    let (input, _) = agentrep_pipeline::rebuild(&lake, day(i64::from(LAST))).unwrap();
    let of = |a: &str| input.sellers.iter().find(|s| s.address == a).unwrap();
    let own_domain = of(&own).features.domain.clone().expect("a ranked domain stands for its seller");
    assert_eq!(
        (own_domain.domain.as_str(), own_domain.rank, own_domain.matching_offers),
        ("own-shop.com", 4_000, 7),
        "one probe a day in the 7-day window"
    );
    assert!(of(&own).assessment.proven());
    for (who, why) in
        [(&shared_a, "a platform"), (&shared_b, "a platform"), (&ip, "an IP-embedding host"), (&old, "a stale list")]
    {
        assert_eq!(of(who).features.domain, None, "{why}");
    }
    let paid = of(&shared_a).features.paid_probes;
    assert_eq!((paid.paid, paid.delivered, paid.undelivered, paid.unpaid_failures), (2, 0, 2, 1));
    assert!(of(&shared_a).assessment.flags.iter().any(|f| f.key == FlagKey::PayThenFail));
    assert_eq!(of(&shared_a).assessment.decision, Decision::Block);
    assert_eq!(of(&own).features.paid_probes.delivered, 1);
}

/// `sql/origins.sql` classes every paid call's answer as the model's `PaidCallOutcome::of` does:
/// one seller per answer shape, one settled call each.
#[test]
fn every_paid_call_answer_is_classed_as_the_model_classes_it() {
    use agentrep_model::PaidCallOutcome;
    let shapes: [(Option<u32>, u64); 14] = [
        (Some(200), 10),
        (Some(201), 1),
        (Some(200), 0),
        (Some(202), 0),
        (Some(204), 0),
        (Some(301), 0),
        (Some(400), 9),
        (Some(402), 120),
        (Some(404), 9),
        (Some(405), 9),
        (Some(429), 9),
        (Some(500), 9),
        (Some(503), 0),
        (None, 0),
    ];
    let mut b = LakeBuilder::new();
    for (i, (status, body)) in shapes.iter().enumerate() {
        let seller = addr(0x7000 + i as u32);
        let url = format!("https://s{i}.example.com/x");
        b.listing(&url, &seller, 1_000, -5);
        b.probes(&url, 0, Some(402), Some(true));
        b.paid_answer(i64::from(LAST), &url, &seller, *status, *body);
    }
    let sellers = b.rebuild_sellers();
    for (i, (status, body)) in shapes.iter().enumerate() {
        let seller = addr(0x7000 + i as u32);
        let pp = sellers.iter().find(|s| s.address == seller).expect("seller").features.paid_probes;
        let counted = match (pp.delivered, pp.undelivered, pp.inconclusive) {
            (1, 0, 0) => PaidCallOutcome::Delivered,
            (0, 1, 0) => PaidCallOutcome::NotDelivered,
            (0, 0, 1) => PaidCallOutcome::Inconclusive,
            other => panic!("{status:?} with {body} bytes counted as {other:?}"),
        };
        assert_eq!(counted, PaidCallOutcome::of(*status, *body), "{status:?} with {body} bytes");
        assert_eq!(pp.undelivered_days, pp.undelivered, "one call, on one day");
    }
}

/// The evidence horizon (methodology 3.3, SCORING.md § 1): a (seller, payer) relationship counts
/// until `RELATIONSHIP_HORIZON_DAYS` after its last qualifying payment. Old ones last paid one
/// day past the horizon and is no payer; Edge last paid one day inside it and counts, as does
/// Returning, first seen well past the horizon and back this week. The seller's settlement count
/// and volume are its relationships' within the horizon.
#[test]
fn a_relationship_counts_until_the_horizon_after_its_last_payment() {
    use agentrep_model::trust::RELATIONSHIP_HORIZON_DAYS as H;
    let (old, edge, returning) = (addr(0x71), addr(0x72), addr(0x73));
    let last = i64::from(LAST);
    let mut b = LakeBuilder::new();
    b.listing("https://api.example/v1", SELLER, 10_000, 0);
    for payer in [&edge, &returning] {
        b.fund(payer, EXCHANGE, last - H - 30, 20_000_000);
    }
    // Old is Edge's wallet (Edge funded it): one entity, whose receipts count only for payments of
    // its relationships within the horizon.
    b.fund(&old, &edge, last - H - 20, 1_000_000);
    // The horizon is `H` days before the day's end (midnight after day LAST).
    b.pay(last - H, 100, &old, SELLER, 10_000, Via::X402);
    b.pay(last - H + 1, 100, &edge, SELLER, 10_000, Via::X402);
    b.pay(last - H - 10, 100, &returning, SELLER, 10_000, Via::X402);
    b.pay(last - 2, 100, &returning, SELLER, 10_000, Via::X402);
    // Each cites its own payment (the builder's 1st and 2nd), within the receipt window after it.
    b.receipt_citing(last - H + 5, &old, SELLER, true, 1).receipt_citing(last - H + 5, &edge, SELLER, true, 2);
    let sellers = b.rebuild_sellers();
    let r = &sellers[0].features.reputation;
    assert_eq!(
        (r.receipts, r.receipts_matched),
        (2, 1),
        "Old's payment is past the horizon: its receipt proves nothing"
    );
    let d = &sellers[0].features.demand;
    assert_eq!((d.payers, d.entities), (2, 2), "Edge and Returning, not Old");
    assert_eq!(
        (d.settlements, d.volume),
        (3, 30_000),
        "the relationships within the horizon, Returning's old payment with it"
    );
    let payers: Vec<&str> = sellers[0].live.payers.iter().map(|p| p.address.as_str()).collect();
    assert!(!payers.contains(&old.as_str()) && payers.contains(&edge.as_str()), "the live basis: {payers:?}");
}

/// The receipt window (methodology 3.5, SCORING.md § 1): a receipt cites a settlement only when it
/// was received within `RECEIPT_WINDOW_DAYS` after it. Prompt's receipt comes a day before the
/// window closes and counts; Stale's names a payment of its own as old as the window and a day,
/// and proves nothing. Both are receipts; one is matched.
#[test]
fn a_receipt_cites_a_payment_only_within_the_receipt_window_after_it() {
    use agentrep_model::trust::RECEIPT_WINDOW_DAYS as W;
    let (prompt, stale) = (addr(0x91), addr(0x92));
    let last = i64::from(LAST);
    let mut b = LakeBuilder::new();
    b.listing("https://api.example/v1", SELLER, 10_000, -W - 5);
    for payer in [&prompt, &stale] {
        b.fund(payer, EXCHANGE, -W - 20, 20_000_000);
    }
    b.pay(last - W + 1, 100, &prompt, SELLER, 10_000, Via::X402);
    b.pay(last - W - 1, 100, &stale, SELLER, 10_000, Via::X402);
    b.receipt_citing(last, &prompt, SELLER, true, 1).receipt_citing(last, &stale, SELLER, true, 2);
    let sellers = b.rebuild_sellers();
    let r = &sellers[0].features.reputation;
    assert_eq!((r.receipts, r.receipts_matched), (2, 1), "only Prompt's receipt cites its payment");
}

/// Attribution against the claims in force (methodology 3.3, SCORING.md § 1): a settlement is
/// judged against the prices listed on its own day, a claim's first span reaching back to the
/// chain's start. The seller listed 0.01 USDC from day -60 to day -40, then 0.02 from day -5. A
/// stranger listed the seller's wallet at 0.05 on days -80 to -75, before the seller's own listing
/// was first crawled.
/// Before paid 0.01 on day -70 and Early on day -50: both qualify, though today's price is 0.02
/// (3.2 judged them by today's claims) and though the stranger's dearer claim came first (it adds
/// a price, never raises the cheapest). Late paid 0.01 on day 0, when only 0.02 was the seller's
/// price: below it.
#[test]
fn settlements_are_attributed_against_the_claims_in_force_on_their_day() {
    let (before, early, late) = (addr(0x81), addr(0x82), addr(0x83));
    let last = i64::from(LAST);
    let mut b = LakeBuilder::new();
    b.listing_between("https://api.example/v1", SELLER, 50_000, -80, -75)
        .listing_between("https://api.example/v1", SELLER, 10_000, -60, -40)
        .listing_between("https://api.example/v1", SELLER, 20_000, -5, last);
    for payer in [&before, &early, &late] {
        b.fund(payer, EXCHANGE, -90, 20_000_000);
    }
    b.pay(-70, 100, &before, SELLER, 10_000, Via::X402).pay(-50, 100, &early, SELLER, 10_000, Via::X402).pay(
        0,
        100,
        &late,
        SELLER,
        10_000,
        Via::X402,
    );
    let sellers = b.rebuild_sellers();
    let d = &sellers[0].features.demand;
    assert_eq!((d.payers, d.settlements, d.volume), (2, 2, 20_000), "Before and Early");
    assert_eq!((d.below_price, d.unattributed), (1, 0), "Late below the price");
}

/// A day on which every claim of the seller's had lapsed (crawled again only later) attributes
/// nothing: the seller listed 0.01 on days -60 to -40 and again from day -5; a payment on day -8
/// is unattributed, one on day -50 and one on day 0 qualify.
#[test]
fn a_day_with_no_claim_in_force_attributes_nothing() {
    let (early, gap, late) = (addr(0x91), addr(0x92), addr(0x93));
    let mut b = LakeBuilder::new();
    b.listing_between("https://api.example/v1", SELLER, 10_000, -60, -40).listing_between(
        "https://api.example/v1",
        SELLER,
        10_000,
        -5,
        i64::from(LAST),
    );
    for payer in [&early, &gap, &late] {
        b.fund(payer, EXCHANGE, -90, 20_000_000);
    }
    b.pay(-50, 100, &early, SELLER, 10_000, Via::X402).pay(-8, 100, &gap, SELLER, 10_000, Via::X402).pay(
        0,
        100,
        &late,
        SELLER,
        10_000,
        Via::X402,
    );
    let sellers = b.rebuild_sellers();
    let d = &sellers[0].features.demand;
    assert_eq!((d.payers, d.settlements, d.unattributed), (2, 2, 1), "Early and Late; Gap unattributed");
}
