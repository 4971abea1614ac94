//! Griefing: outsiders who do not control an honest seller spend a budget to make it look bad.
//!
//! Only when `WorldConfig::griefing` is on, and from its own random streams (`grief-*`) and its own
//! hash space (`gtx`), so a world without griefing is the same lake minus these rows.

use rand::Rng;
use rand::seq::SliceRandom;

use crate::SellerClass;
use crate::cost::GAS_PER_TX_USDC;
use crate::plan::{Actor, Ctx, DAY, Events, HOUR, Rail, Seller, Stream, tx_hash};
use crate::rng;

/// Budgets (USDC of non-recoverable spend) of the three equal groups of griefed sellers.
pub(crate) const GRIEF_BUDGETS: &[f64] = &[10.0, 100.0, 1000.0];
/// At least this many griefed sellers per budget.
const MIN_PER_BUDGET: usize = 30;

/// Griefing methods; the first three absorb any budget.
pub(crate) const METHODS: &[&str] = &[
    "dust-transfers",
    "puppet-payments",
    "denylisted-transfer",
    "unpaid-negative-feedback",
    "paid-negative-feedback",
    "failed-receipts",
];

/// One griefed seller.
#[derive(Debug)]
pub(crate) struct Grief {
    pub seller: u32,
    pub budget: f64,
    pub methods: Vec<String>,
    pub events: Events,
}

pub(crate) fn plan(ctx: &Ctx, sellers: &[Seller]) -> Vec<Grief> {
    let seed = ctx.seed();
    let days = ctx.config.days as i32;
    let mut r = rng::stream(seed, "grief-pick", &[]);
    let mut candidates: Vec<&Seller> = sellers
        .iter()
        .filter(|s| s.kind.class() == SellerClass::Honest && !s.cost_probe && s.first_seen_day < days - 3)
        .collect();
    let per_budget = (candidates.len() / 60).max(MIN_PER_BUDGET).min(candidates.len() / GRIEF_BUDGETS.len());
    let total = per_budget * GRIEF_BUDGETS.len();
    // A third from the most popular fifth (well-scored popular sellers get griefed too).
    candidates.sort_by(|a, b| b.rate.total_cmp(&a.rate).then(a.index.cmp(&b.index)));
    let (popular, rest) = candidates.split_at(candidates.len() / 5);
    let mut popular = popular.to_vec();
    let mut rest = rest.to_vec();
    popular.shuffle(&mut r);
    rest.shuffle(&mut r);
    let from_popular = (total / 3).min(popular.len());
    let mut picks: Vec<&Seller> = popular[..from_popular].to_vec();
    picks.extend(rest.iter().take(total - from_popular));
    picks.shuffle(&mut r);
    picks.sort_by_key(|s| s.index);
    let mut budgets: Vec<f64> = (0..picks.len()).map(|i| GRIEF_BUDGETS[i % GRIEF_BUDGETS.len()]).collect();
    budgets.shuffle(&mut r);
    picks.iter().zip(budgets).map(|(s, b)| grief_one(ctx, s, b)).collect()
}

fn grief_one(ctx: &Ctx, s: &Seller, budget: f64) -> Grief {
    let seed = ctx.seed();
    let mut r = rng::stream(seed, "grief", &[u64::from(s.index)]);
    let mut a = Actor::new(ctx, "griefer", u64::from(s.index), true);
    let days = ctx.config.days as i32;
    let end = ctx.end();
    let d0 = r.random_range((s.first_seen_day.max(0) + 1).max(days / 3)..(days - 1));
    let from = ctx.day_secs(d0);
    let to = ctx.day_secs((d0 + r.random_range(1..=7)).min(days)).min(end);
    let price = s.price();
    let price_usdc = price as f64 / 1e6;

    // Methods: one to four, at least one that can absorb the budget.
    let mut methods: Vec<&str> =
        METHODS.iter().copied().filter(|m| s.agent_id.is_some() || !m.contains("feedback")).collect();
    methods.shuffle(&mut r);
    methods.truncate(r.random_range(1..=4));
    if !methods.iter().any(|m| METHODS[..3].contains(m)) {
        methods.push(METHODS[r.random_range(0..3)]);
    }
    if methods.contains(&"puppet-payments") && !methods.iter().any(|m| m.contains("transfer")) {
        // Puppets' payments are capped: plain transfers take what they cannot spend.
        methods.push("dust-transfers");
    }
    methods.sort_by_key(|m| METHODS.iter().position(|x| x == m));
    let weights: Vec<f64> = methods.iter().map(|_| r.random_range(0.2..1.0)).collect();
    let sum: f64 = weights.iter().sum();

    let funder = a.wallet("funder", 0);
    a.withdraw(&funder, from - r.random_range(DAY..5 * DAY), (budget * 1.2 * 1e6) as u64, &mut r);
    let mut wallets = 0u64;
    let mut fresh = |a: &mut Actor, r: &mut rand_chacha::ChaCha8Rng, what: &str| {
        let w = a.wallet(what, wallets);
        wallets += 1;
        let at = from - r.random_range(HOUR..DAY);
        a.fund(&w, &funder, at, r.random_range(1_000_000..20_000_000));
        w
    };
    let when = |r: &mut rand_chacha::ChaCha8Rng| r.random_range(from..to);
    // Capped methods first (feedback, receipts, then puppet payments, whose count is capped);
    // the transfer methods, whose amounts can grow, share what is left.
    let rank = |m: &str| match m {
        "dust-transfers" | "denylisted-transfer" => 2,
        "puppet-payments" => 1,
        _ => 0,
    };
    let mut left = budget - a.tally.usdc();
    let mut order: Vec<usize> = (0..methods.len()).collect();
    order.sort_by_key(|&i| rank(methods[i]));
    let absorbing_weight: f64 = order.iter().filter(|&&i| rank(methods[i]) > 0).map(|&i| weights[i]).sum();
    let mut absorbing_left = absorbing_weight;
    for &i in &order {
        let method = methods[i];
        let before = a.tally.usdc();
        let share = if rank(method) > 0 {
            let share = left * weights[i] / absorbing_left;
            absorbing_left -= weights[i];
            share
        } else {
            budget * weights[i] / sum
        };
        match method {
            "dust-transfers" => {
                let n = ((share / 0.05) as u32).clamp(3, 200);
                let k = r.random_range(3..=10u32);
                let value = ((share / f64::from(n) - GAS_PER_TX_USDC) * 1e6).max(1.0) as u64;
                let senders: Vec<String> = (0..k).map(|_| fresh(&mut a, &mut r, "duster")).collect();
                for j in 0..n {
                    let at = when(&mut r);
                    a.pay_once(&senders[(j % k) as usize], &s.address, at, value, Rail::Plain, false);
                }
            }
            "puppet-payments" => {
                let m = r.random_range(3..=30u32);
                let puppets: Vec<String> = (0..m).map(|_| fresh(&mut a, &mut r, "puppet")).collect();
                let count = ((share / price_usdc) as u32).clamp(1, 200);
                let per = count.div_ceil(m);
                for (j, p) in puppets.iter().enumerate() {
                    let c = per.min(count.saturating_sub(per * j as u32));
                    if c == 0 {
                        break;
                    }
                    let first = when(&mut r);
                    a.stream(
                        Stream {
                            payer: p.clone(),
                            pay_to: s.address.clone(),
                            first,
                            period: ((end - first) / i64::from(c)).clamp(60, (to - from).max(60)),
                            count: c,
                            jitter: 0.8,
                            value: price,
                            rail: Rail::X402,
                            tag: 0,
                        },
                        false,
                    );
                }
            }
            "denylisted-transfer" => {
                let n = r.random_range(1..=3u32);
                let bad = ctx.known_bad[r.random_range(0..ctx.known_bad.len())].clone();
                let value = ((share / f64::from(n) - GAS_PER_TX_USDC) * 1e6).max(1.0) as u64;
                for _ in 0..n {
                    let at = when(&mut r);
                    a.pay_once(&bad, &s.address, at, value, Rail::Plain, false);
                }
            }
            "unpaid-negative-feedback" => {
                let agent = s.agent_id.expect("feedback methods need an agent");
                let n = ((share / (2.0 * GAS_PER_TX_USDC)) as u32).clamp(3, 100);
                for _ in 0..n {
                    let w = fresh(&mut a, &mut r, "critic");
                    let rating = r.random_range(0.0..20.0);
                    let at = when(&mut r);
                    a.feedback(agent, &w, rating, at, &mut r);
                }
            }
            "paid-negative-feedback" => {
                let agent = s.agent_id.expect("feedback methods need an agent");
                let n = ((share / (price_usdc + 2.0 * GAS_PER_TX_USDC)) as u32).clamp(1, 100);
                for _ in 0..n {
                    let w = fresh(&mut a, &mut r, "paying-critic");
                    let at = when(&mut r);
                    a.pay_once(&w, &s.address, at, price, Rail::X402, false);
                    let rating = r.random_range(0.0..10.0);
                    a.feedback(agent, &w, rating, (at + r.random_range(600..6 * HOUR)).min(end - 1), &mut r);
                }
            }
            "failed-receipts" => {
                let paid = ((share / (price_usdc + GAS_PER_TX_USDC)) as u32).clamp(1, 60);
                for _ in 0..paid {
                    let w = fresh(&mut a, &mut r, "receipt-payer");
                    let at = when(&mut r);
                    let tag = a.pay_once(&w, &s.address, at, price, Rail::X402, false);
                    let rating = r.random_range(0..=10);
                    let at = (at + r.random_range(60..HOUR)).min(end - 1);
                    a.receipt(&w, &s.address, Some(tx_hash(seed, "gtx", tag, 0)), false, None, Some(rating), at);
                }
                for j in 0..r.random_range(3..=30u64) {
                    let w = a.wallet("receipt-stranger", j);
                    let at = when(&mut r);
                    let rating = r.random_range(0..=10);
                    a.receipt(&w, &s.address, None, false, None, Some(rating), at);
                }
            }
            _ => unreachable!("unknown griefing method"),
        }
        left -= a.tally.usdc() - before;
    }
    Grief { seller: s.index, budget, methods: methods.iter().map(|m| (*m).to_owned()).collect(), events: a.ev }
}
