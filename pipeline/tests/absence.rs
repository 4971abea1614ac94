//! The absence rule as a property, through the whole rebuild: over generated economies, a seller
//! with no evidence of risk never falls below `PROCEED_LOW_VALUE` when its positive evidence is
//! taken away (its customers' payments, its probes, its reviews and receipts, its proofs, its
//! ranked domain, agentrep's successful paid calls). A warning needs evidence; the lack of proof
//! is what `evidenceTier: unproven` says.

mod support;

use std::collections::BTreeMap;

use agentrep_model::Decision;
use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;
use support::*;

const CASES: u64 = 8;

fn seller(i: u32) -> String {
    addr(0x5000 + i)
}

fn resource(i: u32) -> String {
    format!("https://api.s{i}-pay.com/v1")
}

/// A random economy; the sellers `strip` names get none of their positive evidence. Some sellers
/// also carry some negative evidence (they pay themselves): those are returned, and left out of the
/// property (diluted by customers, a self-payment may stay under its flag's share).
fn economy(case: u64, strip: &dyn Fn(u32) -> bool) -> (LakeBuilder, u32, Vec<u32>) {
    let mut rng = ChaCha8Rng::seed_from_u64(case);
    let mut b = LakeBuilder::new();
    let sellers = rng.random_range(3..=6u32);
    let mut negative = Vec::new();
    for i in 0..sellers {
        let s = seller(i);
        let price = [1_000, 10_000, 50_000][rng.random_range(0..3)];
        b.listing(&resource(i), &s, price, -rng.random_range(0..40));
        b.register(u64::from(i), &s);
        // Every draw is made whether or not the seller is stripped, so both economies draw alike.
        let ranked = rng.random_bool(0.4);
        let rank = rng.random_range(100..90_000);
        let named = rng.random_bool(0.3);
        let risky = rng.random_bool(0.25);
        if risky {
            negative.push(i);
            // Negative evidence: the seller pays itself from its own wallet.
            for k in 0..5 {
                b.pay(i64::from(LAST) - 1, 100 + k, &s, &s, price, Via::X402);
            }
        }
        if strip(i) {
            continue;
        }
        b.probes(&resource(i), 0, Some(402), Some(true));
        if ranked {
            b.rank(i64::from(LAST), &format!("s{i}-pay.com"), rank);
        }
        if named {
            b.proof(&s, "basename", -3);
        }
        b.paid_probe(i64::from(LAST) - 2, &resource(i), &s, true, true);
    }
    let payers = rng.random_range(5..=30u32);
    for p in 0..payers {
        let payer = addr(0x100 + p);
        b.fund(&payer, EXCHANGE, -rng.random_range(10..90), 20_000_000);
        if rng.random_bool(0.4) {
            b.proof(&payer, "cb1-verified", -5);
        }
        for i in 0..sellers {
            if rng.random_bool(0.6) {
                for _ in 0..rng.random_range(1..=4) {
                    let (d, secs) = (rng.random_range(0..=i64::from(LAST)), rng.random_range(0..80_000));
                    if !strip(i) {
                        b.pay(d, secs, &payer, &seller(i), 50_000, Via::X402);
                    }
                }
                let (review, rating, receipt) =
                    (rng.random_bool(0.3), rng.random_range(40..=100), rng.random_bool(0.2));
                if review && !strip(i) {
                    b.review(i64::from(LAST), u64::from(i), &payer, rating);
                }
                if receipt && !strip(i) {
                    b.receipt(i64::from(LAST), &payer, &seller(i), true);
                }
            }
        }
    }
    (b, sellers, negative)
}

fn decisions(b: &LakeBuilder) -> BTreeMap<String, (Decision, Vec<String>)> {
    b.rebuild_sellers()
        .into_iter()
        .map(|s| (s.address, (s.assessment.decision, s.assessment.flags.iter().map(|f| f.detail.clone()).collect())))
        .collect()
}

#[test]
fn taking_positive_evidence_away_never_warns() {
    let (mut proven, mut stripped_checked) = (0, 0);
    for case in 0..CASES {
        let (full, sellers, negative) = economy(case, &|_| false);
        let before = decisions(&full);
        proven += before.values().filter(|d| d.0 == Decision::Proceed).count();
        let mut rng = ChaCha8Rng::seed_from_u64(case + 1_000);
        let stripped: Vec<u32> = (0..sellers).filter(|_| rng.random_bool(0.5)).collect();
        let (bare, _, _) = economy(case, &|i| stripped.contains(&i));
        let after = decisions(&bare);
        for i in stripped.iter().filter(|i| !negative.contains(i)) {
            let address = seller(*i);
            let (d0, d1) = (before[&address].0, &after[&address]);
            if d0 >= Decision::ProceedLowValue {
                stripped_checked += 1;
                assert!(
                    d1.0 >= Decision::ProceedLowValue,
                    "case {case}: stripping {address} moved it from {d0:?} to {d1:?}"
                );
            }
        }
    }
    assert!(proven > 0 && stripped_checked > 0, "the economies must include proven sellers and stripped ones");
}
