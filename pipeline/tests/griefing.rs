//! The griefing rule as a property: over generated economies, adding evidence an outsider can
//! create without the seller's cooperation never worsens any seller's decision.
//!
//! Outsider evidence here: dust and plain transfers, payments below the price, full-price x402
//! payments from fresh puppets (one funder, or each withdrawn from an exchange), ERC-8004 reviews
//! of 0 from wallets that never paid and from puppets that paid once, failed receipts from both,
//! and a transfer to the seller from a denylisted address after it was listed.
//!
//! Listings are outsider evidence too (methodology 3.1): anyone can list any URL under any wallet
//! and serve a 402 naming any wallet, and the oracle's paid calls at such a host settle to the
//! wallet it names. Trap listings naming a seller's wallet on strangers' hosts (dead, answering a
//! 402 for another wallet, or taking the oracle's paid calls and answering 500), a stranger's
//! listing of the seller's own URL, and a secrets path listed under the seller's wallet move no
//! decision, score or flag at all.
//!
//! So are the auth-capture escrow's outcomes (methodology 3.6): anyone can open an escrowed payment
//! to any seller with themselves as operator, then void it, let it be reclaimed or refund it.

mod support;

use std::collections::BTreeMap;

use agentrep_model::Decision;
use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;
use support::*;

const CASES: u64 = 10;

fn seller(i: u32) -> String {
    addr(0x5000 + i)
}

/// A random honest-looking economy: sellers with one or two prices, anchored and plain payers
/// with long histories, probes, reviews and receipts.
fn economy(rng: &mut ChaCha8Rng) -> (LakeBuilder, u32) {
    let mut b = LakeBuilder::new();
    let sellers = rng.random_range(2..=4u32);
    for i in 0..sellers {
        let price = [1_000, 10_000, 50_000][rng.random_range(0..3)];
        b.listing(&format!("https://s{i}.example.com/api"), &seller(i), price, -rng.random_range(0..40));
        if rng.random_bool(0.3) {
            b.listing(&format!("https://s{i}.example.com/cheap"), &seller(i), price / 10, 0);
        }
        if rng.random_bool(0.8) {
            b.probes(&format!("https://s{i}.example.com/api"), 0, Some(402), Some(true));
        }
        b.register(u64::from(i), &seller(i));
    }
    let payers = rng.random_range(4..=25u32);
    for p in 0..payers {
        let payer = addr(0x100 + p);
        b.fund(&payer, EXCHANGE, -rng.random_range(10..90), 20_000_000);
        if rng.random_bool(0.5) {
            b.proof(&payer, "cb1-verified", -5);
        }
        for i in 0..sellers {
            if rng.random_bool(0.6) {
                for _ in 0..rng.random_range(1..=4) {
                    let d = rng.random_range(0..=i64::from(LAST));
                    b.pay(d, rng.random_range(0..80_000), &payer, &seller(i), 50_000, Via::X402);
                }
                if rng.random_bool(0.3) {
                    b.review(i64::from(LAST), u64::from(i), &payer, rng.random_range(40..=100));
                }
                if rng.random_bool(0.2) {
                    b.receipt(i64::from(LAST), &payer, &seller(i), rng.random_bool(0.9));
                }
            }
        }
    }
    (b, sellers)
}

/// An outsider's campaign against `target`.
fn grief(b: &mut LakeBuilder, rng: &mut ChaCha8Rng, target: &str, tag: u32) {
    let griefer = addr(0x9000 + tag);
    b.fund(&griefer, EXCHANGE, 0, 100_000_000);
    for k in 0..rng.random_range(3..=12u32) {
        let puppet = addr(0x10_000 + tag * 100 + k);
        let funder = if rng.random_bool(0.5) { griefer.as_str() } else { EXCHANGE };
        b.fund(&puppet, funder, rng.random_range(1..=7), 1_000_000);
        let d = rng.random_range(7..=i64::from(LAST));
        match rng.random_range(0..5) {
            0 => {
                b.pay(d, 10, &puppet, target, 1, Via::Plain);
            }
            1 => {
                b.pay(d, 20, &puppet, target, 1, Via::X402);
            }
            2 => {
                for s in 0..rng.random_range(1..=6) {
                    b.pay(d, 30 + s, &puppet, target, 50_000, Via::X402);
                }
            }
            _ => {}
        }
        if rng.random_bool(0.5) {
            b.pay(d, 40, &puppet, target, 50_000, Via::X402);
        }
        for agent in 0..4 {
            if target == seller(agent) {
                b.review(i64::from(LAST), u64::from(agent), &puppet, 0);
            }
        }
        b.receipt(i64::from(LAST), &puppet, target, false);
    }
    let bad = addr(0xbad0 + tag);
    b.deny(&bad);
    b.fund(&bad, EXCHANGE, -50, 1).pay(8, 50, &bad, target, 1, Via::Plain);
    if rng.random_bool(0.5) {
        b.fund(target, &bad, 8, 1);
    }
}

/// Trap listings against `target` on `tag`'s hosts, and its own URL listed under a stranger.
fn trap_listings(b: &mut LakeBuilder, rng: &mut ChaCha8Rng, target: &str, own_url: &str, tag: u32) {
    let stranger = addr(0x9100 + tag);
    for k in 0..rng.random_range(1..=8u32) {
        let url = format!("https://t{k}.griefer{tag}.example/{}", ["api", "v1/x", "admin", ".env"][k as usize % 4]);
        let from = rng.random_range(0..=i64::from(LAST));
        b.listing(&url, target, [1, 1_000, 50_000][rng.random_range(0..3)], from);
        match rng.random_range(0..4) {
            0 => {
                b.probes(&url, from, None, None);
            }
            1 => {
                b.probes_naming(&url, from, Some(402), Some(false), &[&stranger]);
            }
            2 => {
                b.probes_naming(&url, from, Some([404, 500][rng.random_range(0..2)]), None, &[]);
            }
            _ => {
                // A host that serves the target's own 402 and takes the oracle's paid calls.
                b.probes_naming(&url, from, Some(402), Some(true), &[target]);
                for d in from..=i64::from(LAST) {
                    if rng.random_bool(0.5) {
                        b.paid_probe(d, &url, target, true, false);
                    }
                }
            }
        }
    }
    if rng.random_bool(0.5) {
        b.listing(own_url, &stranger, 1_000, rng.random_range(0..=i64::from(LAST)));
    }
}

type Judgement = (Decision, Option<u8>, Vec<agentrep_model::FlagKey>);

fn judgements(b: &LakeBuilder) -> BTreeMap<String, Judgement> {
    b.rebuild_sellers()
        .into_iter()
        .map(|s| {
            let flags = s.assessment.flags.iter().map(|f| f.key).collect();
            (s.address, (s.assessment.decision, s.assessment.score, flags))
        })
        .collect()
}

/// Over `CASES` generated economies (seeds from `seed`), `grief` adds a stranger's evidence about
/// every seller `i`; no seller's decision, score or flags may move.
fn strangers_move_nothing(seed: u64, what: &str, grief: impl Fn(&mut LakeBuilder, &mut ChaCha8Rng, u32)) {
    let mut judged = 0;
    for case in 0..CASES {
        let mut rng = ChaCha8Rng::seed_from_u64(seed + case);
        let (base, sellers) = economy(&mut rng);
        let before = judgements(&base);
        let mut griefed = base.clone();
        for i in 0..sellers {
            grief(&mut griefed, &mut rng, i);
        }
        let after = judgements(&griefed);
        for (address, j0) in &before {
            assert_eq!(&after[address], j0, "case {case}: {what} moved {address}");
        }
        judged += before.len();
    }
    assert!(judged > 0, "the generated economies have sellers to judge");
}

#[test]
fn listings_strangers_make_move_no_decision_score_or_flag() {
    strangers_move_nothing(1_000, "trap listings", |griefed, rng, i| {
        trap_listings(griefed, rng, &seller(i), &format!("https://s{i}.example.com/api"), i);
    });
}

fn decisions(b: &LakeBuilder) -> BTreeMap<String, Decision> {
    b.rebuild_sellers().into_iter().map(|s| (s.address, s.assessment.decision)).collect()
}

#[test]
fn outsider_evidence_never_worsens_a_decision() {
    let mut proceeds = 0;
    for case in 0..CASES {
        let mut rng = ChaCha8Rng::seed_from_u64(case);
        let (base, sellers) = economy(&mut rng);
        let before = decisions(&base);
        let mut griefed = base.clone();
        for i in 0..sellers {
            if rng.random_bool(0.7) {
                grief(&mut griefed, &mut rng, &seller(i), i);
            }
        }
        let after = decisions(&griefed);
        for (address, d0) in &before {
            proceeds += usize::from(*d0 == Decision::Proceed);
            let d1 = after[address];
            assert!(d1 >= *d0, "case {case}: outsider evidence moved {address} from {d0:?} to {d1:?}");
        }
    }
    assert!(proceeds > 0, "the generated economies must include sellers with something to lose");
}

#[test]
fn escrow_outcomes_strangers_cause_move_no_decision_score_or_flag() {
    use agentrep_lake::EscrowAction;
    strangers_move_nothing(2_000, "escrow outcomes", |griefed, rng, i| {
        let (operator, payer) = (addr(0xe000 + i), addr(0xe100 + i));
        for action in EscrowAction::ALL {
            let d = rng.random_range(0..=i64::from(LAST));
            griefed.escrow_event(d, action, &operator, &payer, &seller(i), rng.random_range(1..100_000));
        }
    });
}
