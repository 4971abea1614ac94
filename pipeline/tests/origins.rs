//! Evidence is about what it observed (methodology 3.1, SCORING.md § 1 "Origins"): listings
//! anyone can write, 402s served from hosts nobody binds and paid calls made there never move an
//! honest seller's decision, score or flags, and a URL listed under a stranger's wallet too stays
//! the seller's. A seller that takes the oracle's money at its own origin and delivers nothing is
//! still `BLOCK`. An origin the seller signed (an ownership proof, 3.2) counts as its own.

mod support;

use agentrep_model::{Decision, FlagKey, SellerRecord};
use support::*;

const OWN_URL: &str = "https://api.honest.example/v1/quote";

fn honest() -> String {
    addr(0x5001)
}

fn stranger() -> String {
    addr(0x9001)
}

/// The honest seller: 60 customers over the days, healthy probes and one delivered paid
/// call at its own URL.
fn honest_world() -> LakeBuilder {
    let mut b = LakeBuilder::new();
    let seller = honest();
    b.listing(OWN_URL, &seller, 10_000, -20);
    b.probes_naming(OWN_URL, 0, Some(402), Some(true), &[&seller]);
    b.paid_probe(5, OWN_URL, &seller, true, true);
    for p in 0..60u32 {
        let payer = addr(0x100 + p);
        b.fund(&payer, EXCHANGE, -30, 20_000_000);
        b.pay(i64::from(p % (LAST + 1)), 100 + i64::from(p), &payer, &seller, 10_000, Via::X402);
        if p % 3 == 0 {
            b.pay(i64::from((p + 4) % (LAST + 1)), 5_000 + i64::from(p), &payer, &seller, 10_000, Via::X402);
        }
    }
    b
}

/// `n` listings on strangers' hosts naming `victim`, whose probes are dead (even) or answer a 402
/// asking another wallet to be paid (odd).
fn dead_and_mismatching_traps(b: &mut LakeBuilder, victim: &str, n: u32) {
    for k in 0..n {
        let url = format!("https://trap{k}.attacker.example/api");
        b.listing(&url, victim, 1_000, 3);
        if k % 2 == 0 {
            b.probes(&url, 3, None, None);
        } else {
            b.probes_naming(&url, 3, Some(402), Some(false), &[&stranger()]);
        }
    }
}

/// `n` listings on strangers' hosts naming `victim` that answer the victim's own 402, whose paid
/// calls settled (the trap submits the authorization itself, so the money reaches the victim) and
/// answered 500.
fn paid_traps(b: &mut LakeBuilder, victim: &str, n: u32) {
    for k in 0..n {
        let url = format!("https://paid{k}.attacker.example/api");
        b.listing(&url, victim, 100, 2);
        b.probes_naming(&url, 2, Some(402), Some(true), &[victim]);
        b.paid_probe(3 + i64::from(k), &url, victim, true, false);
        b.paid_probe(6 + i64::from(k), &url, victim, true, false);
    }
}

fn rebuild(b: &LakeBuilder) -> Vec<SellerRecord> {
    b.rebuild_sellers()
}

fn of<'a>(sellers: &'a [SellerRecord], address: &str) -> &'a SellerRecord {
    sellers.iter().find(|s| s.address == address).unwrap_or_else(|| panic!("{address} is not in the snapshot"))
}

fn flags(s: &SellerRecord) -> Vec<FlagKey> {
    s.assessment.flags.iter().map(|f| f.key).collect()
}

fn same_judgement(before: &SellerRecord, after: &SellerRecord, what: &str) {
    assert_eq!(after.assessment.decision, before.assessment.decision, "{what}: decision");
    assert_eq!(after.assessment.score, before.assessment.score, "{what}: score");
    assert_eq!(flags(after), flags(before), "{what}: flags");
}

#[test]
fn the_honest_seller_alone_proceeds_at_low_value() {
    let sellers = rebuild(&honest_world());
    let s = of(&sellers, &honest());
    assert_eq!(s.assessment.decision, Decision::ProceedLowValue, "{:?}", flags(s));
    assert!(s.assessment.score.is_some_and(|x| x >= 45), "score {:?}", s.assessment.score);
}

#[test]
fn dead_and_mismatching_trap_listings_move_nothing() {
    let base = rebuild(&honest_world());
    let mut b = honest_world();
    dead_and_mismatching_traps(&mut b, &honest(), 12);
    let after = rebuild(&b);
    same_judgement(of(&base, &honest()), of(&after, &honest()), "12 trap listings");
}

#[test]
fn paid_calls_made_at_trap_origins_move_nothing() {
    let base = rebuild(&honest_world());
    let mut b = honest_world();
    paid_traps(&mut b, &honest(), 3);
    let after = rebuild(&b);
    let s = of(&after, &honest());
    same_judgement(of(&base, &honest()), s, "3 paid traps");
    assert!(!flags(s).contains(&FlagKey::PayThenFail));
}

#[test]
fn a_stranger_listing_the_sellers_url_takes_nothing_from_it() {
    let base = rebuild(&honest_world());
    let mut b = honest_world();
    // Listed under the stranger's wallet, crawled later than the seller's listing; the URL's 402s
    // still ask the seller to be paid.
    b.listing(OWN_URL, &stranger(), 10_000, 2);
    let after = rebuild(&b);
    same_judgement(of(&base, &honest()), of(&after, &honest()), "co-listed URL");
    assert_eq!(of(&after, &honest()).features.sla, of(&base, &honest()).features.sla, "the seller keeps its probes");
    let s = of(&after, &stranger());
    assert_eq!(s.features.sla.offer_mismatches, s.features.sla.offers, "the URL's offers never name the stranger");
}

#[test]
fn every_trap_at_once_moves_nothing() {
    let base = rebuild(&honest_world());
    let mut b = honest_world();
    dead_and_mismatching_traps(&mut b, &honest(), 12);
    paid_traps(&mut b, &honest(), 3);
    b.listing(OWN_URL, &stranger(), 10_000, 2);
    b.listing("https://trap.attacker.xyz/.env", &honest(), 1, 4);
    b.probes_naming("https://trap.attacker.xyz/.env", 4, Some(402), Some(true), &[&honest()]);
    let after = rebuild(&b);
    same_judgement(of(&base, &honest()), of(&after, &honest()), "every trap");
}

const HONEYPOT_URL: &str = "https://api.honeypot.example/v1/data";

fn honeypot() -> String {
    addr(0x6001)
}

/// A seller with 20 customers that took the oracle's money at its own URL on two days and
/// delivered nothing.
fn honeypot_world() -> LakeBuilder {
    let mut b = LakeBuilder::new();
    let seller = honeypot();
    b.listing(HONEYPOT_URL, &seller, 10_000, -20);
    b.probes_naming(HONEYPOT_URL, 0, Some(402), Some(true), &[&seller]);
    b.paid_probe(4, HONEYPOT_URL, &seller, true, false);
    b.paid_probe(7, HONEYPOT_URL, &seller, true, false);
    for p in 0..20u32 {
        let payer = addr(0x300 + p);
        b.fund(&payer, EXCHANGE, -30, 20_000_000);
        b.pay(i64::from(p % (LAST + 1)), 100 + i64::from(p), &payer, &seller, 10_000, Via::X402);
    }
    b
}

fn assert_blocked_for_pay_then_fail(b: &LakeBuilder) {
    let sellers = rebuild(b);
    let s = of(&sellers, &honeypot());
    assert_eq!(s.assessment.decision, Decision::Block, "{:?}", flags(s));
    assert!(flags(s).contains(&FlagKey::PayThenFail));
}

#[test]
fn a_honeypot_at_its_own_origin_is_still_blocked() {
    assert_blocked_for_pay_then_fail(&honeypot_world());
}

#[test]
fn a_honeypot_that_lists_a_dead_decoy_beside_its_origin_is_still_blocked() {
    // The decoys were probed and never answered a 402 asking for the wallet, so they are no
    // evidence of it and cannot rank before the origin that took the oracle's money (3.2; in 3.1 a
    // never-paid origin always did). A dead host, and a made-up URL on someone's host that answers
    // 404 (the prober reaches every listing within its round, so neither stays unprobed).
    let mut b = honeypot_world();
    let seller = honeypot();
    b.listing("https://decoy.honeypot.example/x", &seller, 10_000, 2);
    b.probes("https://decoy.honeypot.example/x", 2, None, None);
    b.listing("https://made-up.example/y", &seller, 10_000, 2);
    b.probes_naming("https://made-up.example/y", 2, Some(404), None, &[]);
    assert_blocked_for_pay_then_fail(&b);
}

#[test]
fn a_proxy_serving_the_listed_terms_does_not_outrank_a_seller_whose_402_differs_from_its_listing() {
    // The seller's 402 names it at other terms than its listing says (the listing lags a price
    // change); a stranger's proxy serves a 402 at the listed terms, takes the oracle's paid calls
    // at the price buyers pay, settles them and answers 500 on two days. The seller's own origin
    // names the wallet, so it stays eligible, and as the never-paid origin it ranks first: the
    // proxy lowers nothing.
    let mut b = LakeBuilder::new();
    let seller = honest();
    b.listing(OWN_URL, &seller, 10_000, -20);
    b.probes_naming(OWN_URL, 0, Some(402), Some(false), &[&seller]);
    for p in 0..30u32 {
        let payer = addr(0x700 + p);
        b.fund(&payer, EXCHANGE, -30, 20_000_000);
        b.pay(i64::from(p % (LAST + 1)), 100 + i64::from(p), &payer, &seller, 10_000, Via::X402);
    }
    let base = rebuild(&b);
    let proxy = "https://proxy.attacker.example/api";
    b.listing(proxy, &seller, 10_000, 2);
    b.probes_naming(proxy, 2, Some(402), Some(true), &[&seller]);
    b.paid_probe(4, proxy, &seller, true, false);
    b.paid_probe(7, proxy, &seller, true, false);
    let after = rebuild(&b);
    let (before, after) = (of(&base, &seller), of(&after, &seller));
    assert!(after.assessment.decision >= before.assessment.decision, "lowered: {:?}", flags(after));
    assert!(!flags(after).iter().any(|f| matches!(f, FlagKey::PayThenFail | FlagKey::PaidCallUndelivered)));
    // What the proxy does move (a rule of 3.1, open): its 402 at the listed terms takes the wallet,
    // so the seller's own mismatching probes stop counting and its `offer-mismatch` goes.
    assert!(!flags(after).contains(&FlagKey::OfferMismatch), "{:?}", flags(after));
}

#[test]
fn an_origin_the_seller_binds_counts_even_beside_a_delivering_one() {
    // The seller's agent card names both origins: the failing one is its own, and counts.
    let (mut b, _) = with_failing_second_origin();
    let seller = honest();
    let unbound = rebuild(&b);
    assert_ne!(of(&unbound, &seller).assessment.decision, Decision::Block, "unbound: judged by its best origin");
    b.register(7, &seller);
    b.card(7, &[OWN_URL, SECOND_URL]);
    let bound = rebuild(&b);
    let s = of(&bound, &seller);
    assert_eq!(s.assessment.decision, Decision::Block, "bound: {:?}", flags(s));
}

const SECOND_URL: &str = "https://billing.honest.example/charge";

/// The honest seller with a second origin of its own whose paid calls settle and fail, bound by
/// nothing yet; and that origin.
fn with_failing_second_origin() -> (LakeBuilder, &'static str) {
    let mut b = honest_world();
    let seller = honest();
    b.listing(SECOND_URL, &seller, 10_000, -10);
    b.probes_naming(SECOND_URL, 0, Some(402), Some(true), &[&seller]);
    b.paid_probe(4, SECOND_URL, &seller, true, false);
    b.paid_probe(7, SECOND_URL, &seller, true, false);
    (b, "https://billing.honest.example")
}

#[test]
fn an_origin_the_seller_signed_counts_even_beside_a_delivering_one() {
    // The origin serves the seller's ownership proof (3.2): it is the seller's own, and counts.
    let (mut b, origin) = with_failing_second_origin();
    let seller = honest();
    b.origin_proof(2, origin, &[&seller], true);
    let s = of(&rebuild(&b), &seller).clone();
    assert_eq!(s.assessment.decision, Decision::Block, "signed: {:?}", flags(&s));
    // A later fetch nothing answered keeps what the origin last served.
    b.origin_proof(6, origin, &[], false);
    assert_eq!(of(&rebuild(&b), &seller).assessment.decision, Decision::Block, "an unanswered fetch unbinds nothing");
    // A document without the proof, answered later, unbinds it.
    b.origin_proof(8, origin, &[], true);
    assert_ne!(of(&rebuild(&b), &seller).assessment.decision, Decision::Block, "the proof taken down");
}

#[test]
fn a_proof_by_another_wallet_binds_nothing_for_the_seller() {
    let (mut b, origin) = with_failing_second_origin();
    let seller = honest();
    // The origin proves it belongs to a stranger (who signed it), not to the seller it lists.
    b.origin_proof(2, origin, &[&stranger()], true);
    assert_ne!(of(&rebuild(&b), &seller).assessment.decision, Decision::Block, "another wallet's proof");
}

#[test]
fn a_stranger_who_signs_its_own_trap_hosts_binds_them_to_itself_only() {
    let base = rebuild(&honest_world());
    let mut b = honest_world();
    paid_traps(&mut b, &honest(), 3);
    dead_and_mismatching_traps(&mut b, &honest(), 4);
    for k in 0..3 {
        b.origin_proof(1, &format!("https://paid{k}.attacker.example"), &[&stranger()], true);
    }
    for k in 0..4 {
        b.origin_proof(1, &format!("https://trap{k}.attacker.example"), &[&stranger()], true);
    }
    let after = rebuild(&b);
    same_judgement(of(&base, &honest()), of(&after, &honest()), "traps signed by their owner");
}

/// The seller's listing nothing has probed yet, beside a stranger's host that serves the seller's
/// own 402 (a proxy) and so was its best origin at the rebuild.
fn with_a_proxy_as_best_origin() -> (LakeBuilder, &'static str) {
    let mut b = LakeBuilder::new();
    let seller = honest();
    let proxy = "https://proxy.attacker.example/api";
    b.listing(OWN_URL, &seller, 10_000, -20);
    b.listing(proxy, &seller, 10_000, 3);
    b.probes_naming(proxy, 3, Some(402), Some(true), &[&seller]);
    for p in 0..30u32 {
        let payer = addr(0x700 + p);
        b.fund(&payer, EXCHANGE, -30, 20_000_000);
        b.pay(i64::from(p % (LAST + 1)), 100 + i64::from(p), &payer, &seller, 10_000, Via::X402);
    }
    (b, proxy)
}

/// Dead probes of `url` in the six hours after the snapshot, as the overlay folds them.
fn dead_after_the_snapshot(s: &SellerRecord, url: &str) -> agentrep_model::live::FastEvidence {
    let day_end = s.live.day_end;
    agentrep_model::live::FastEvidence {
        as_of: day_end + 6 * 3_600,
        probes: (1..=6)
            .map(|h| agentrep_model::live::ProbeSample {
                resource: url.into(),
                t: day_end + h * 3_600,
                status: None,
                latency_ms: None,
                offer_version: None,
                offer_matches: None,
            })
            .collect(),
        ..Default::default()
    }
}

#[test]
fn a_strangers_host_that_was_the_best_origin_and_then_fails_lowers_nobody_before_the_rebuild() {
    let (b, proxy) = with_a_proxy_as_best_origin();
    let sellers = rebuild(&b);
    let s = of(&sellers, &honest());
    let unbound = s.live.unbound.as_ref().expect("the proxy is the counted origin nobody binds");
    assert_eq!(unbound.rank.origin, "https://proxy.attacker.example");
    assert_eq!(unbound.rival.as_ref().map(|r| r.origin.as_str()), Some("https://api.honest.example"));
    // The proxy goes dark after the rebuild: the seller's own origin would count instead, so the
    // overlay's fold (and the live re-score's) leave the proxy's newer probes out.
    let folded = agentrep_model::live::fold_fast(&s.features, &s.live, &dead_after_the_snapshot(s, proxy));
    let after = agentrep_model::assess_seller(&folded);
    assert_eq!(after.decision, s.assessment.decision, "{:?}", after.flags);
    assert_eq!(after.score, s.assessment.score);
}

#[test]
fn a_sellers_only_origin_failing_after_the_rebuild_lowers_it_at_once() {
    let mut b = LakeBuilder::new();
    let seller = honest();
    b.listing(OWN_URL, &seller, 10_000, -20);
    b.probes_naming(OWN_URL, 0, Some(402), Some(true), &[&seller]);
    for p in 0..30u32 {
        let payer = addr(0x700 + p);
        b.fund(&payer, EXCHANGE, -30, 20_000_000);
        b.pay(i64::from(p % (LAST + 1)), 100 + i64::from(p), &payer, &seller, 10_000, Via::X402);
    }
    let sellers = rebuild(&b);
    let s = of(&sellers, &seller);
    assert!(s.live.unbound.as_ref().is_some_and(|u| u.rival.is_none()), "{:?}", s.live.unbound);
    let folded = agentrep_model::live::fold_fast(&s.features, &s.live, &dead_after_the_snapshot(s, OWN_URL));
    assert_eq!(folded.sla.last_ok, Some(false), "its own origin's death counts at once");
}

#[test]
fn answers_that_show_nothing_are_never_non_delivery_and_one_bad_day_is_no_pattern() {
    let base = rebuild(&honest_world());
    let seller = honest();
    // At the seller's own URL: a timeout, a 204, a redirect, a 405 (a method the listing did not
    // name), a 429, each on its own day, all after the money moved.
    let mut b = honest_world();
    for (d, status) in [(1, None), (2, Some(204)), (3, Some(302)), (4, Some(405)), (6, Some(429))] {
        b.paid_answer(d, OWN_URL, &seller, status, 0);
    }
    let after = rebuild(&b);
    same_judgement(of(&base, &seller), of(&after, &seller), "answers that show nothing");
    assert_eq!(of(&after, &seller).features.paid_probes.inconclusive, 5);

    // Two 500s on one day: one bad day, no flag.
    let mut b = honest_world();
    b.paid_answer(7, OWN_URL, &seller, Some(500), 0).paid_answer(7, OWN_URL, &seller, Some(500), 0);
    let one_day = rebuild(&b);
    assert!(
        flags(of(&one_day, &seller)).iter().all(|f| !matches!(f, FlagKey::PayThenFail | FlagKey::PaidCallUndelivered))
    );

    // On two days, and more than half of the calls: pay-then-fail.
    b.paid_answer(8, OWN_URL, &seller, Some(402), 0);
    let two_days = rebuild(&b);
    assert_eq!(of(&two_days, &seller).assessment.decision, Decision::Block, "{:?}", flags(of(&two_days, &seller)));
}

#[test]
fn a_seller_that_moved_to_an_origin_nothing_probed_yet_keeps_its_listings_there() {
    let mut b = LakeBuilder::new();
    let seller = addr(0x6101);
    b.register(9, &seller);
    b.card(9, &["https://old.seller.example/api"]);
    b.listing("http://127.0.0.1:4000/r0", &seller, 1_000, -5);
    let sellers = rebuild(&b);
    let s = of(&sellers, &seller);
    let listed: Vec<&str> = s.live.listings.iter().map(|l| l.resource.as_str()).collect();
    assert_eq!(listed, ["http://127.0.0.1:4000/r0"]);
}

#[test]
fn an_origin_the_seller_no_longer_lists_does_not_push_out_the_one_it_lists() {
    // Delivered paid calls at the origin the seller left; its listing is now elsewhere.
    let mut b = LakeBuilder::new();
    let seller = addr(0x6201);
    b.listing("http://127.0.0.1:4000/r0", &seller, 1_000, -5);
    b.paid_probe(3, "https://old.seller.example/api", &seller, true, true);
    let sellers = rebuild(&b);
    let listed: Vec<&str> = of(&sellers, &seller).live.listings.iter().map(|l| l.resource.as_str()).collect();
    assert_eq!(listed, ["http://127.0.0.1:4000/r0"]);
}

#[test]
fn a_made_up_path_of_the_sellers_own_host_listed_under_its_wallet_moves_nothing() {
    let base = rebuild(&honest_world());
    let mut b = honest_world();
    for path in ["nonexistent", "admin", "v1/down"] {
        let url = format!("https://api.honest.example/{path}");
        b.listing(&url, &honest(), 10_000, 3);
        b.probes(&url, 3, Some(404), None);
    }
    let after = rebuild(&b);
    same_judgement(of(&base, &honest()), of(&after, &honest()), "made-up paths on the seller's host");
    assert_eq!(of(&after, &honest()).features.sla, of(&base, &honest()).features.sla);
    let listed: Vec<&str> = of(&after, &honest()).live.listings.iter().map(|l| l.resource.as_str()).collect();
    assert_eq!(listed, [OWN_URL], "the live re-score and the overlay probe the URL that takes the wallet");
}

/// The oracle's own paid calls settle on chain like a customer's payment: those settlements are
/// its paid probes (judged as such), never the seller's demand. A seller paid only by the
/// oracle's wallet has no payer; the honest seller's demand is its customers' alone.
#[test]
fn the_oracles_own_payments_are_no_demand() {
    let base = rebuild(&honest_world());
    let mut b = honest_world();
    let oracle = addr(0xa9e);
    b.fund(&oracle, EXCHANGE, -30, 50_000_000);
    for d in 0..5 {
        b.pay(d, 20_000 + d, &oracle, &honest(), 10_000, Via::X402);
    }
    let lonely = addr(0x7001);
    let url = "https://api.lonely.example/v1/x";
    b.listing(url, &lonely, 10_000, -10);
    b.probes_naming(url, 0, Some(402), Some(true), &[&lonely]);
    b.paid_probe(3, url, &lonely, true, true);
    b.pay(3, 30_000, &oracle, &lonely, 10_000, Via::X402);
    let after = rebuild(&b);
    assert_eq!(
        of(&after, &honest()).features.demand,
        of(&base, &honest()).features.demand,
        "the oracle's calls are no demand"
    );
    same_judgement(of(&base, &honest()), of(&after, &honest()), "the oracle's payments");
    assert_eq!(of(&after, &lonely).features.demand.payers, 0, "a seller paid only by the oracle has no payer");
}
