//! One seller's plan: its listing and identity (`plan_seller`), its archetype's knobs, wallets,
//! funding and payment streams (`plan_family`), its customers and their reviews.

use std::collections::BTreeMap;

use agentrep_lake::Timestamp;
use agentrep_lake::datasets::{ListEntryRow, RegistrationRow};
use rand::Rng;
use rand_chacha::ChaCha8Rng;

use crate::cost;
use crate::knobs::Knobs;
use crate::rng::{self, address, hex_bytes, key, log_normal, log_uniform, pareto};
use crate::{ScaleParams, WorldConfig};

use super::*;

/// Per-kind knob family name (the label kind).
pub(super) fn family(kind: SellerKind) -> &'static str {
    kind.as_str()
}

pub(super) fn plan_seller(config: &WorldConfig, index: u32, kind: SellerKind, probe: bool) -> Seller {
    let seed = config.seed;
    let mut r = rng::stream(seed, "seller", &[u64::from(index)]);
    let address = address(seed, "seller", u64::from(index));
    let honest = kind.class() == crate::SellerClass::Honest;
    let honest_like = honest || matches!(kind, SellerKind::Denylisted | SellerKind::DenylistFunded);
    let quality = match kind {
        SellerKind::PayThenFail => r.random_range(0.05..0.3),
        _ if honest_like => r.random_range(0.35..1.0),
        SellerKind::OfferMismatch | SellerKind::Dead => r.random_range(0.2..0.8),
        _ => r.random_range(0.1..0.6),
    };
    let popularity = pareto(&mut r, 1.0, 1.2, 400.0);
    let rate = match kind {
        SellerKind::DenylistFunded => pareto(&mut r, 0.5, 1.5, 6.0) * (0.4 + quality),
        SellerKind::TreasuryFleet => popularity * (0.4 + quality) * 0.5,
        k if k.has_pool_demand() => popularity * (0.4 + quality),
        SellerKind::Ghost => r.random_range(0.05..1.2),
        SellerKind::SelfDealing => r.random_range(1.0..4.0),
        SellerKind::SybilFeedback | SellerKind::ScamListing => r.random_range(0.05..0.5),
        _ => 0.0,
    };
    let days = config.days as i32;
    let first_seen_day = match kind {
        SellerKind::Young => r.random_range((days - 20).max(1)..(days - 6).max(2)),
        SellerKind::NewHonest => days - r.random_range(1..=6),
        SellerKind::Ghost | SellerKind::ScamListing => r.random_range(-40..days - 3),
        SellerKind::DenylistFunded => r.random_range(days / 3..(days - 4).max(days / 3 + 1)),
        _ if probe => r.random_range(-10..days / 4),
        _ => r.random_range(-90..days / 3),
    };
    let ok_rate = match kind {
        SellerKind::Flapping => r.random_range(0.3..0.75),
        SellerKind::ScamListing => r.random_range(0.0..0.6),
        SellerKind::Ghost => {
            if r.random_bool(0.3) {
                0.0
            } else {
                r.random_range(0.85..1.0)
            }
        }
        SellerKind::PayThenFail => r.random_range(0.95..1.0),
        _ => (0.9 + 0.1 * quality).min(1.0) - r.random_range(0.0..0.05),
    };
    let latency_ms = 80.0 + 2500.0 * (1.0 - quality).powi(2) * r.random_range(0.5..1.5);

    let noun = NOUNS.choose(&mut r).expect("nouns");
    let name = format!("{noun}{}", index);
    let (tld, path) = match kind {
        SellerKind::ScamListing if r.random_bool(0.5) => {
            (*GOOD_TLDS.choose(&mut r).expect("tlds"), format!("{}/api", ADMIN_PATHS.choose(&mut r).expect("paths")))
        }
        SellerKind::ScamListing => (*BAD_TLDS.choose(&mut r).expect("tlds"), "api/v1/run".to_owned()),
        _ if r.random_bool(0.01) => (*BAD_TLDS.choose(&mut r).expect("tlds"), "api/v1".to_owned()),
        _ => (*GOOD_TLDS.choose(&mut r).expect("tlds"), format!("api/{}", TAGS.choose(&mut r).expect("tags"))),
    };
    let param = if r.random_bool(0.1) { "/:id" } else { "" };
    // Real x402 prices: a median of 0.01 USDC and a 90th percentile of 0.1 (SCORING.md § 8).
    let price = log_normal(&mut r, 10_000.0, 1.8, 1_000.0, 2_000_000.0).round() as u64;
    let mut resources =
        vec![Resource { url: format!("https://{name}.{tld}/{path}{param}"), pay_to: address.clone(), price }];
    if honest_like && r.random_bool(0.06) {
        let spelled = rng::mixed_case(&address, u64::from(index));
        resources.push(Resource { url: format!("https://{name}.{tld}/api/v2/batch"), pay_to: spelled, price });
    }
    let n_tags = r.random_range(0..=6usize);
    let mut tags: Vec<String> = TAGS.choose_multiple(&mut r, n_tags).map(|t| (*t).to_owned()).collect();
    tags.sort();
    let description = format!("{} {} API by {name}", tags.first().map_or("general", |t| t.as_str()), noun);
    let ecosystem = pick_weighted(&mut r, ECOSYSTEMS);
    let network = if r.random_bool(0.1) { "base" } else { BASE };
    let registered = match kind {
        SellerKind::SybilFeedback | SellerKind::PaidOnceReviewers | SellerKind::SmartAccountBuyers => true,
        SellerKind::PayThenFail => r.random_bool(0.6),
        _ if honest_like => r.random_bool(0.45),
        _ => r.random_bool(0.1),
    };
    let proofs = if honest_like && r.random_bool(0.35) {
        {
            let n = r.random_range(1..=3);
            PROOF_TYPES.choose_multiple(&mut r, n).copied().collect()
        }
    } else if !honest_like && r.random_bool(0.05) {
        vec![*CHEAP_PROOFS.choose(&mut r).expect("proofs")]
    } else {
        Vec::new()
    };
    let offer_version = if r.random_bool(0.7) { 2 } else { 1 };
    // Some real services are run by businesses whose web domain has a public rank (their own
    // stream, so the rest of the world does not move with it). Attackers' fresh domains have none.
    let mut dr = rng::stream(config.seed, "domain-rank", &[u64::from(index)]);
    let domain_rank = (kind.class() == crate::SellerClass::Honest && dr.random_bool(0.2))
        .then(|| log_uniform(&mut dr, 300.0, 3_000_000.0).round() as u32);
    Seller {
        index,
        address,
        kind,
        quality,
        rate,
        customers: Vec::new(),
        extra_payers: Vec::new(),
        extra_share: 0.0,
        self_pay_share: 0.0,
        resources,
        tags,
        description,
        ecosystem,
        network,
        first_seen_day,
        death_day: None,
        ok_rate,
        latency_ms,
        agent_id: registered.then_some(0),
        proofs,
        allowlisted: false,
        offer_version,
        mismatch: None,
        fail_share: 0.0,
        domain_rank,
        knobs: BTreeMap::new(),
        cost: None,
        cost_probe: probe,
        events: Events::default(),
    }
}

/// Attack families and honest patterns: knobs, wallets, funding, scheduled payments, cost.
pub(super) fn plan_family(ctx: &Ctx, s: &mut Seller, budget: Option<f64>) {
    let seed = ctx.seed();
    let mut r = rng::stream(seed, "family", &[u64::from(s.index)]);
    let mut k = Knobs::new(ctx.config.knobs, family(s.kind));
    let attacker = s.kind.is_attack();
    let mut a = Actor::new(ctx, "seller-actor", u64::from(s.index), attacker);
    let days = ctx.config.days as i32;
    let active_from = ctx.day_secs(s.first_seen_day.max(0));
    let (start, end) = (ctx.start(), ctx.end());
    let listed_at = ctx.day_secs(s.first_seen_day.max(-90));
    let seller = s.address.clone();
    let price = s.price();

    // The seller's own wallet: first funded by its operator (an exchange, a personal wallet), or
    // as the family dictates below.
    let operator = a.wallet("operator", 0);
    let own_funded_at = listed_at - r.random_range(DAY..30 * DAY);
    let mut own_funding = true;

    match s.kind {
        SellerKind::WashRing | SellerKind::HubDusting | SellerKind::SelfFundingIntermediaries => {
            let payers_n = k.draw(&mut r, "payers") as u32;
            let hops = if s.kind == SellerKind::HubDusting { 0 } else { k.draw(&mut r, "hops") as u32 };
            let jitter = k.draw(&mut r, "jitter");
            let per_day = k.draw(&mut r, "pays_per_day");
            let mut spend = k.draw(&mut r, "honest_spend_usdc");
            let payers_n = match budget {
                Some(b) => ((3.0 * b.sqrt()).round() as u32).clamp(3, 120),
                None => payers_n,
            };
            k.set("payers", f64::from(payers_n));
            // Roots of the funding tree.
            let roots: Vec<String> = match s.kind {
                SellerKind::WashRing => {
                    let f = k.draw(&mut r, "funders") as u32;
                    a.withdraw(&operator, own_funded_at - 20 * DAY, 2_000_000_000, &mut r);
                    // The seller's proceeds go back to the operator, who funded it.
                    a.fund(&seller, &operator, own_funded_at, 10_000_000);
                    own_funding = false;
                    let decoy = k.draw(&mut r, "decoy") > 0.5;
                    if decoy {
                        let url = format!("{}/lite", s.resources[0].url.trim_end_matches("/:id"));
                        s.resources.push(Resource {
                            url,
                            pay_to: seller.clone(),
                            price: price.saturating_sub(1).max(1),
                        });
                    }
                    (0..f)
                        .map(|i| {
                            let w = a.wallet("ring-funder", u64::from(i));
                            a.fund(&w, &operator, start - r.random_range(12 * DAY..20 * DAY), 300_000_000);
                            w
                        })
                        .collect()
                }
                SellerKind::HubDusting => {
                    let fake = a.wallet("fake-hub", 0);
                    a.withdraw(&fake, start - r.random_range(30 * DAY..45 * DAY), 1_000_000_000, &mut r);
                    let mut fan_out = k.draw(&mut r, "fan_out") as u32;
                    let mut dust = k.draw(&mut r, "dust_micro");
                    if let Some(b) = budget {
                        // Bigger budgets: a wider, heavier dusting.
                        fan_out = ((150.0 + b * 2.0) as u32).min(1_500);
                        dust = (b * 1e6 * 0.2 / f64::from(fan_out)).clamp(1.0, 1_000_000.0);
                        k.set("fan_out", f64::from(fan_out));
                        k.set("dust_micro", dust.round());
                    }
                    for j in 0..fan_out {
                        let target = a.wallet("dust-target", u64::from(j));
                        let amount = r.random_range(1..=(dust.round() as u64).max(1));
                        a.fund(&target, &fake, start - r.random_range(3 * DAY..28 * DAY), amount);
                        a.tally.external_usdc += amount as f64 / 1e6;
                    }
                    vec![fake]
                }
                _ => {
                    // The seller's own wallet is the root.
                    a.withdraw(&seller, own_funded_at, 1_000_000_000, &mut r);
                    own_funding = false;
                    vec![seller.clone()]
                }
            };
            let payers: Vec<String> = (0..payers_n).map(|j| a.wallet("payer", u64::from(j))).collect();
            // A cost probe's bigger ring spreads a normal ring's volume over more payers.
            let per_day = if budget.is_some() { per_day * (8.0 / f64::from(payers_n)).min(1.0) } else { per_day };
            let period = (DAY as f64 / per_day) as i64;
            let mut funded = Vec::new();
            for (j, payer) in payers.iter().enumerate() {
                let first = active_from.max(start) + r.random_range(0..period.max(1));
                let root = roots[j % roots.len()].clone();
                funded.push(a.fund_chain(&mut r, &root, payer, j as u64, hops, first));
                a.stream(
                    Stream {
                        payer: payer.clone(),
                        pay_to: seller.clone(),
                        first,
                        period: (period as f64 * r.random_range(0.9..1.1)) as i64,
                        count: u32::MAX,
                        jitter,
                        value: price,
                        rail: Rail::X402,
                        tag: 0,
                    },
                    true,
                );
            }
            if let Some(b) = budget {
                spend = ((b - a.tally.usdc()) / f64::from(payers_n)).max(0.0);
                k.set("honest_spend_usdc", spend);
            }
            for (payer, at) in payers.iter().zip(&funded) {
                a.buy_honest(&mut r, payer, spend, (*at + HOUR).max(start), end);
            }
        }
        SellerKind::SockPuppets => {
            let mut n = k.draw(&mut r, "puppets") as u32;
            let ratio = k.draw(&mut r, "price_ratio");
            let lead = k.draw(&mut r, "lead_days") as i64;
            let mut spend = k.draw(&mut r, "honest_spend_usdc");
            let mut proof_share = k.draw(&mut r, "proof_share");
            let per_day = k.draw(&mut r, "pays_per_day");
            let mut probe_proofs: &[&str] = &[];
            if let Some(b) = budget {
                n = ((3.0 * b.sqrt()).round() as u32).clamp(2, 120);
                k.set("puppets", f64::from(n));
            }
            let mut puppets = Vec::new();
            let per_day = if budget.is_some() { per_day * (8.0 / f64::from(n)).min(1.0) } else { per_day };
            for j in 0..n {
                let p = a.wallet("puppet", u64::from(j));
                let first = active_from.max(start) + r.random_range(0..(end - active_from.max(start)).max(DAY) / 2);
                a.withdraw(
                    &p,
                    first - lead * DAY - r.random_range(HOUR..DAY),
                    r.random_range(5_000_000..60_000_000),
                    &mut r,
                );
                let value = ((price as f64) * r.random_range(ratio..=1.0)).round().max(1.0) as u64;
                a.stream(
                    Stream {
                        payer: p.clone(),
                        pay_to: seller.clone(),
                        first,
                        period: (DAY as f64 / per_day) as i64,
                        count: u32::MAX,
                        jitter: 0.95,
                        value,
                        rail: Rail::X402,
                        tag: 0,
                    },
                    true,
                );
                puppets.push((p, first));
            }
            if let Some(b) = budget {
                // Per puppet: identity proofs first (basename 3, then ens 5), the rest spent
                // at honest sellers.
                let per = ((b - a.tally.usdc()) / f64::from(n)).max(0.0);
                probe_proofs = if per >= 10.0 {
                    &["basename", "ens"]
                } else if per >= 4.0 {
                    &["basename"]
                } else {
                    &[]
                };
                proof_share = if probe_proofs.is_empty() { 0.0 } else { 1.0 };
                let proofs_cost: f64 = probe_proofs.iter().filter_map(|p| cost::proof_cost(p)).sum();
                spend = (per - proofs_cost).max(0.0);
                k.set("proof_share", proof_share);
                k.set("honest_spend_usdc", spend);
            }
            for (p, first) in &puppets {
                let funded = *first - lead * DAY;
                a.buy_honest(&mut r, p, spend, funded.max(start), (*first).max(start + DAY));
                if r.random_bool(proof_share.clamp(0.0, 1.0)) {
                    let at = (funded + r.random_range(HOUR..DAY)).min(end - 1);
                    if budget.is_some() {
                        for (i, t) in probe_proofs.iter().enumerate() {
                            a.proof(p, t, at + i as i64 * HOUR);
                        }
                    } else {
                        let t = *CHEAP_PROOFS.choose(&mut r).expect("proofs");
                        a.proof(p, t, at);
                    }
                }
            }
        }
        SellerKind::PaidOnceReviewers => {
            let mut n = k.draw(&mut r, "reviewers") as u32;
            let ratio = k.draw(&mut r, "pay_ratio");
            let rating_min = k.draw(&mut r, "rating_min");
            let mut spend = k.draw(&mut r, "honest_spend_usdc");
            let mut seller_proofs = true;
            if let Some(b) = budget {
                n = ((3.0 * b.sqrt()).round() as u32).clamp(3, 150);
                seller_proofs = b >= 10.0;
                k.set("reviewers", f64::from(n));
            }
            k.set("seller_proofs", f64::from(u8::from(seller_proofs)));
            if seller_proofs {
                a.proof(&seller, "basename", listed_at + r.random_range(0..DAY));
                let second = if r.random_bool(0.5) { "ens" } else { "farcaster-fid" };
                a.proof(&seller, second, listed_at + r.random_range(DAY..3 * DAY));
            }
            let farm = a.wallet("review-farm", 0);
            a.withdraw(&farm, start - r.random_range(5 * DAY..20 * DAY), 100_000_000, &mut r);
            let value = ((price as f64) * ratio).round().max(1.0) as u64;
            let agent = s.agent_id.expect("reviewed sellers are registered");
            let mut reviewers = Vec::new();
            for j in 0..n {
                let w = a.wallet("reviewer", u64::from(j));
                let at = active_from.max(start) + r.random_range(0..(end - active_from.max(start) - DAY).max(HOUR));
                let funded = at - r.random_range(HOUR..4 * DAY);
                a.fund(&w, &farm, funded, 2_000_000);
                a.pay_once(&w, &seller, at, value, Rail::X402, true);
                let rating = r.random_range(rating_min..=100.0);
                a.feedback(agent, &w, rating, (at + r.random_range(HOUR..DAY)).min(end - 1), &mut r);
                reviewers.push((w, funded));
            }
            if let Some(b) = budget {
                spend = ((b - a.tally.usdc()) / f64::from(n)).max(0.0);
                k.set("honest_spend_usdc", spend);
            }
            for (w, funded) in &reviewers {
                a.buy_honest(&mut r, w, spend, (*funded + HOUR).max(start), end);
            }
        }
        SellerKind::PayThenFail => {
            s.fail_share = k.draw(&mut r, "fail_share");
        }
        SellerKind::OfferMismatch => {
            let mode = k.draw(&mut r, "mode") as u32;
            let factor = k.draw(&mut r, "price_factor");
            let share = k.draw(&mut r, "mismatch_share");
            let from = r.random_range(0..(days / 2).max(1)) as u32;
            k.set("mismatch_from_day", f64::from(from));
            let m = match mode {
                0 => Mismatch::PayTo,
                1 => Mismatch::AssetNetwork,
                _ => Mismatch::Price(factor),
            };
            s.mismatch = Some((m, from, share));
        }
        SellerKind::UnattributedDemand => {
            let n = k.draw(&mut r, "puppets") as u32;
            let plain = k.draw(&mut r, "plain_share");
            let per_day = k.draw(&mut r, "pays_per_day");
            let funder = a.wallet("funder", 0);
            a.withdraw(&funder, start - r.random_range(5 * DAY..30 * DAY), 200_000_000, &mut r);
            let per_day = if budget.is_some() { per_day * (8.0 / f64::from(n)).min(1.0) } else { per_day };
            for j in 0..n {
                let p = a.wallet("puppet", u64::from(j));
                let first = active_from.max(start) + r.random_range(0..DAY);
                a.fund(&p, &funder, first - r.random_range(HOUR..5 * DAY), 20_000_000);
                let rail = if r.random_bool(plain) {
                    Rail::Plain
                } else if r.random_bool(0.5) {
                    Rail::Testnet
                } else {
                    Rail::OtherAsset
                };
                a.stream(
                    Stream {
                        payer: p,
                        pay_to: seller.clone(),
                        first,
                        period: (DAY as f64 / per_day) as i64,
                        count: u32::MAX,
                        jitter: 0.9,
                        value: price,
                        rail,
                        tag: 0,
                    },
                    true,
                );
            }
        }
        SellerKind::DenylistFunded => {
            let hops = k.draw(&mut r, "hops") as u32;
            let bad = ctx.known_bad[r.random_range(0..ctx.known_bad.len())].clone();
            a.fund_chain(&mut r, &bad, &seller, 0, hops, own_funded_at + 3 * HOUR);
            // fund_chain counts the edges as the attacker's transactions: they are.
            own_funding = false;
        }
        SellerKind::SelfDealing => {
            let n = k.draw(&mut r, "payers") as u32;
            s.self_pay_share = k.draw(&mut r, "self_pay_share");
            a.withdraw(&seller, own_funded_at, 500_000_000, &mut r);
            own_funding = false;
            for j in 0..n {
                let p = a.wallet("payer", u64::from(j));
                a.fund(&p, &seller, start - r.random_range(DAY..10 * DAY), 20_000_000);
                s.extra_payers.push(p);
            }
            s.extra_share = 1.0;
            // Own settlements: the whole demand.
            let active = (0..ctx.config.days).filter(|d| s.active_on(*d)).count() as f64;
            a.tally.own_settlements += (s.rate * active).round() as u64;
        }
        SellerKind::SybilFeedback => {
            let n = k.draw(&mut r, "reviewers") as u32;
            let rating_min = k.draw(&mut r, "rating_min");
            let farm = a.wallet("sybil-farm", 0);
            a.withdraw(&farm, start - r.random_range(10 * DAY..20 * DAY), 50_000_000, &mut r);
            let agent = s.agent_id.expect("sybil sellers are registered");
            for j in 0..n {
                let c = a.wallet("sybil-client", u64::from(j));
                a.fund(&c, &farm, start - r.random_range(DAY..10 * DAY), 1_000_000);
                let at = active_from.max(start) + r.random_range(0..(end - active_from.max(start)).max(HOUR));
                let rating = r.random_range(rating_min..=100.0);
                a.feedback(agent, &c, rating, at, &mut r);
            }
        }
        SellerKind::Dead => {
            let dead_for = k.draw(&mut r, "dead_for_days") as i32;
            s.death_day = Some((days - dead_for).clamp(1, days - 1) as u32);
        }
        SellerKind::TreasuryFleet => {
            let n = k.draw(&mut r, "fleet") as u32;
            let hours = k.draw(&mut r, "period_hours") as i64;
            let ordinary = k.draw(&mut r, "ordinary_customers") > 0.5;
            if !ordinary {
                s.rate = 0.0;
            }
            let treasury = a.wallet("treasury", 0);
            a.withdraw(&treasury, start - r.random_range(60 * DAY..200 * DAY), 50_000_000_000, &mut r);
            let period = hours * HOUR;
            for j in 0..n {
                let w = a.wallet("fleet-agent", u64::from(j));
                let first = active_from.max(start) + r.random_range(0..period);
                a.fund(&w, &treasury, first - r.random_range(DAY..20 * DAY), 100_000_000);
                a.stream(
                    Stream {
                        payer: w,
                        pay_to: seller.clone(),
                        first,
                        period,
                        count: u32::MAX,
                        jitter: 0.0005,
                        value: price,
                        rail: Rail::X402,
                        tag: 0,
                    },
                    false,
                );
            }
        }
        SellerKind::SmartAccountBuyers => {
            let n = k.draw(&mut r, "accounts") as u32;
            s.extra_share = k.draw(&mut r, "smart_share");
            for j in 0..n {
                let owner = a.wallet("sa-owner", u64::from(j));
                let account = a.wallet("smart-account", u64::from(j));
                let owner_at = start - r.random_range(30 * DAY..300 * DAY);
                a.withdraw(&owner, owner_at, r.random_range(20_000_000..2_000_000_000), &mut r);
                a.fund(
                    &account,
                    &owner,
                    owner_at + r.random_range(DAY..25 * DAY),
                    r.random_range(5_000_000..200_000_000),
                );
                s.extra_payers.push(account);
            }
        }
        SellerKind::MultiPrice => {
            let m = k.draw(&mut r, "resources") as usize;
            let cheap = k.draw(&mut r, "cheap") > 0.5;
            let base = s.resources[0].url.trim_end_matches("/:id").to_owned();
            for j in 1..m {
                let p = if cheap && j == 1 {
                    r.random_range(1..=100)
                } else {
                    ((price as f64) * log_uniform(&mut r, 0.2, 5.0)).round().max(1.0) as u64
                };
                s.resources.push(Resource { url: format!("{base}/tier{j}"), pay_to: seller.clone(), price: p });
            }
        }
        SellerKind::NewHonest => {
            k.set("listed_days_ago", f64::from(days - s.first_seen_day));
        }
        SellerKind::CronBuyers => {
            let n = k.draw(&mut r, "bots") as u32;
            let minutes = k.draw(&mut r, "period_minutes") as i64;
            for j in 0..n {
                let w = a.wallet("cron-bot", u64::from(j));
                let first = active_from.max(start) + r.random_range(0..minutes * 60);
                a.withdraw(&w, start - r.random_range(5 * DAY..90 * DAY), 50_000_000, &mut r);
                a.stream(
                    Stream {
                        payer: w,
                        pay_to: seller.clone(),
                        first,
                        period: minutes * 60,
                        count: u32::MAX,
                        jitter: 0.0005,
                        value: price,
                        rail: Rail::X402,
                        tag: 0,
                    },
                    false,
                );
            }
        }
        SellerKind::Honest
        | SellerKind::Flapping
        | SellerKind::Young
        | SellerKind::Ghost
        | SellerKind::ScamListing
        | SellerKind::Denylisted => {}
    }

    if own_funding {
        if attacker {
            // The attacker's own wallet: one withdrawal (its operator's exchange account).
            a.withdraw(&seller, own_funded_at, 200_000_000, &mut r);
        } else if r.random_bool(0.8) {
            let hub = ctx.hub(&mut r);
            a.fund(&seller, &hub, own_funded_at, r.random_range(10_000_000..5_000_000_000));
        } else {
            let personal = a.wallet("operator-personal", 0);
            a.withdraw(&personal, own_funded_at - r.random_range(DAY..200 * DAY), 1_000_000_000, &mut r);
            a.fund(&seller, &personal, own_funded_at, r.random_range(10_000_000..500_000_000));
        }
    }
    // Registration and the operator's proofs.
    if let Some(agent_id) = s.agent_id {
        let at = listed_at + r.random_range(0..DAY);
        if attacker {
            a.tally.txs += 1;
        }
        a.ev.registrations.push((
            at,
            RegistrationRow {
                agent_id,
                owner: seller.clone(),
                agent_wallet: Some(seller.clone()),
                registration_uri: format!("ipfs://bafy{}", &hex_bytes(key(seed, "uri", &[agent_id]), 16)[2..]),
                registered_at: Timestamp::from_secs(at),
            },
        ));
    }
    for p in std::mem::take(&mut s.proofs) {
        let at = (listed_at + r.random_range(0..5 * DAY)).min(end - 1);
        a.proof(&seller, p, at);
        s.proofs.push(p);
    }
    if s.kind == SellerKind::Denylisted {
        let at = start - DAY;
        a.ev.lists.push((
            at,
            ListEntryRow {
                address: seller.clone(),
                list: "deny".to_owned(),
                source: "scamsniffer".to_owned(),
                category: "phishing:scammer".to_owned(),
                added_at: Timestamp::from_secs(at),
            },
        ));
    }
    s.knobs = k.values;
    s.cost = attacker.then(|| a.tally.usdc());
    s.events = a.ev;
}

/// Chooses the seller's customers: each pays `1 + 4·quality` times on average, so better
/// services keep more repeat customers.
pub(super) fn plan_customers(config: &WorldConfig, params: &ScaleParams, s: &mut Seller) {
    let mut r = rng::stream(config.seed, "customers", &[u64::from(s.index)]);
    let active_days = (config.days as i32 - s.first_seen_day.max(0)).max(1) as f64;
    let expected = s.rate * active_days * (1.0 - s.extra_share);
    let count = match s.kind {
        SellerKind::Ghost => 1,
        SellerKind::SybilFeedback | SellerKind::ScamListing => r.random_range(1..=3),
        SellerKind::SelfDealing => 0,
        // Most real customers pay a seller on one day (a quarter of real (payer, seller) pairs
        // pay on two or more days): few payments per customer, more for a better service.
        k if k.has_pool_demand() && s.rate > 0.0 => {
            ((expected / (1.0 + 0.5 * s.quality)).round() as u32).clamp(5, 5_000)
        }
        _ => 0,
    };
    // Most real payers pay one seller; a few busy agents pay many (27 % pay two or more sellers, 9 %
    // five or more: SCORING.md § 8). A share of every seller's customers comes from a small set of
    // busy payers at the front of the pool.
    let busy = (params.payer_pool / BUSY_PAYER_DIVISOR).max(1);
    s.customers = (0..count)
        .map(|_| {
            if r.random_bool(BUSY_PAYER_SHARE) { r.random_range(0..busy) } else { r.random_range(0..params.payer_pool) }
        })
        .collect();
}

/// ERC-8004 feedback and buyer receipts from a seller's real customers.
pub(super) fn plan_reviews(ctx: &Ctx, s: &mut Seller) {
    let seed = ctx.seed();
    let mut r = rng::stream(seed, "reviews", &[u64::from(s.index)]);
    let mut a = Actor::new(ctx, "seller-reviews", u64::from(s.index), false);
    let days = ctx.config.days as i32;
    let first = s.first_seen_day.max(0);
    let last_day = s.death_day.map_or(days, |d| d as i32).max(first + 1);
    let when = |r: &mut ChaCha8Rng| ctx.day_secs(r.random_range(first..last_day)) + r.random_range(0..DAY);
    let bad_service = s.kind == SellerKind::PayThenFail;
    // The reviewer of a payment: smart accounts review from their owner EOA.
    let client = |r: &mut ChaCha8Rng| -> String {
        if !s.extra_payers.is_empty() && (s.customers.is_empty() || r.random_bool(s.extra_share)) {
            let j = r.random_range(0..s.extra_payers.len());
            if s.kind == SellerKind::SmartAccountBuyers {
                Actor::new(ctx, "seller-actor", u64::from(s.index), false).wallet("sa-owner", j as u64)
            } else {
                s.extra_payers[j].clone()
            }
        } else {
            address(seed, "payer", u64::from(s.customers[r.random_range(0..s.customers.len())]))
        }
    };
    let has_customers = !s.customers.is_empty() || !s.extra_payers.is_empty();
    if let Some(agent_id) = s.agent_id
        && has_customers
        && s.kind != SellerKind::SelfDealing
    {
        let n = (rng::poisson(&mut r, ctx.params.feedback_per_registered) as usize)
            .min((s.customers.len() + s.extra_payers.len()) * 2);
        for _ in 0..n {
            let c = client(&mut r);
            let rating =
                if bad_service { r.random_range(0.0..30.0) } else { 100.0 * s.quality + r.random_range(-15.0..15.0) };
            let at = when(&mut r);
            a.feedback(agent_id, &c, rating, at, &mut r);
        }
    }
    let honest = s.kind.class() == crate::SellerClass::Honest;
    if has_customers && (bad_service || (honest && r.random_bool(0.2))) {
        let n = if bad_service { r.random_range(10..=40) } else { r.random_range(3..=15) };
        for _ in 0..n {
            let at = when(&mut r);
            let c = client(&mut r);
            let (success, rating) = if bad_service {
                let failed = r.random_bool(s.fail_share.clamp(0.0, 1.0));
                (!failed, if failed { r.random_range(0..=20) } else { r.random_range(30..=70) })
            } else {
                let ok = r.random_bool(s.quality.clamp(0.05, 0.99));
                (ok, (100.0 * s.quality + r.random_range(-10.0..10.0)).clamp(0.0, 100.0) as u32)
            };
            a.receipt(&c, &s.address, None, success, Some(s.latency_ms as u32), Some(rating), at);
        }
    }
    s.events.feedback.append(&mut a.ev.feedback);
    s.events.receipts.append(&mut a.ev.receipts);
}
