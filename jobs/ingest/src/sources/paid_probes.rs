//! The paid probe: agentrep buys one call of a seller's cheapest listed resource with its own
//! funds, on the budget and cadence of `[paid_probes]`, and records what happened in
//! `paid_probes`: the status and size of the answer and, once the authorization can no longer be
//! used, whether the money moved (read on chain with the token's `authorizationState`, never taken
//! from the seller's word). Only the operator creates this evidence, so non-delivery after a
//! settled payment may lower a decision (`pay-then-fail`).
//!
//! It pays only what a listing promises: USDC on the configured chain, to the listing's payTo, at
//! no more than `max_price`; any other 402 is recorded and not paid. The paid retry follows no
//! redirect, and every request goes through the SSRF-safe client.
//!
//! **Money an operator can trust it with.**
//! - *The budget holds across processes.* Every run that can pay holds the lake's scheduler lease
//!   (`agentrep schedule` for its life, `agentrep ingest` with the paid probe on for its run), so
//!   the day's budget, the journal and the day's partition have one writer.
//! - *The budget holds across crashes.* Every authorization is appended to an append-only journal
//!   in the lake (`_checkpoints/paid-probes.journal/`, one entry of its own per authorization,
//!   written once and never rewritten: [`Lake::journal_append`]) before the paid retry is sent, and
//!   its entry is removed once the call's row is in
//!   the day's partition (written as soon as the answer came, `settled` unknown until the
//!   authorization has expired). A run first turns what an interrupted run left in the journal
//!   into rows (`error = "interrupted"`: the answer was lost with the run, so the row is no
//!   evidence about the seller), so the day's rows count every authorization against the budget
//!   and mark every seller called: a restart after a kill never exceeds the budget and never pays
//!   a seller twice. Whether each authorization was used is read on chain once the chain's time
//!   has passed its `validBefore`, by the run or the next one.
//! - *Who is called first.* New listings (first seen in the last week), then sellers never called
//!   in the last 30 days, then by demand (settlements in the last 7 days), ties in an order that
//!   rotates daily. A seller called within `every_days` waits, unless its last call's answer did not
//!   deliver (non-delivery, or nothing shown either way): it is called again the next day, since a
//!   flag from paid calls needs calls on two days (`agentrep_model::PaidCallOutcome`); one whose
//!   cheapest resource costs
//!   more than `max_price` is never called and stays unverified (`/status` counts them).
//! - *Wallets a seller cannot tell from a customer's.* The calls pay from a pool of `wallets`
//!   wallets derived from the key (`AGENTREP_PROBE_KEY` is wallet 0), one picked per seller and
//!   day among those funded enough, so a seller that serves one known oracle address and robs
//!   everyone else meets a wallet it has never seen.

use std::collections::{BTreeMap, BTreeSet};
use std::time::Duration;

use agentrep_lake::Dataset;
use agentrep_lake::datasets::{AgentCardRow, ListingRow, OriginProofRow, PaidProbeRow, RegistrationRow, SettlementRow};
use agentrep_payments::{ChainReader, PaymentNetwork};
use alloy::primitives::{Address, B256, U256, keccak256};
use alloy::signers::local::PrivateKeySigner;
use chrono::{DateTime, NaiveDate, Utc};
use serde::{Deserialize, Serialize};
use sha2::{Digest, Sha256};
use tracing::info;

use super::merge::read_all;
use super::{RunContext, RunReport, Source, SourceName, ts};
use crate::web::pay::{self, Expected};

/// The environment variable holding the paid probe's private key (hex).
pub const PROBE_KEY_ENV: &str = "AGENTREP_PROBE_KEY";

/// Seconds of chain time waited past an authorization's expiry before reading whether it was used.
const SETTLE_MARGIN_SECS: u64 = 3;

/// The append-only journal of authorizations signed but not yet recorded in the lake.
const JOURNAL: &str = "paid-probes";

/// What `error` says of a call whose run was interrupted after it was authorized.
pub const INTERRUPTED: &str = "interrupted";

/// Days a listing counts as new.
const NEW_LISTING_DAYS: i64 = 7;

/// Days of settlements that make a seller's demand.
const DEMAND_DAYS: i64 = 7;

/// Days of paid calls looked back at (the rebuild's window of paid-call evidence).
const HISTORY_DAYS: i64 = 30;

/// The paid probe's checkpoint.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct PaidProbesCheckpoint {
    /// Last run.
    pub last_run: Option<DateTime<Utc>>,
}

/// One authorization, journaled before it is sent.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
struct Authorized {
    resource: String,
    pay_to: String,
    payer: Address,
    amount: u64,
    nonce: B256,
    valid_before: u64,
    /// Unix seconds.
    probed_at: i64,
}

/// The journal: what an interrupted run left, read back, and where this run appends.
struct Journal;

impl Journal {
    /// The entry id of an authorization: its nonce, unique by construction.
    fn id(nonce: B256) -> String {
        format!("{nonce:#x}")
    }

    /// Appends `a`, durably, before its paid retry is sent.
    fn append(ctx: &RunContext<'_>, a: &Authorized) -> anyhow::Result<()> {
        ctx.lake.journal_append(JOURNAL, &Self::id(a.nonce), a)?;
        Ok(())
    }

    /// Every authorization journaled and not yet removed.
    fn pending(ctx: &RunContext<'_>) -> anyhow::Result<Vec<Authorized>> {
        Ok(ctx.lake.journal_entries::<Authorized>(JOURNAL)?.into_iter().map(|(_, a)| a).collect())
    }

    /// Removes the entries of `nonces`, whose rows are in the lake.
    fn settle(ctx: &RunContext<'_>, nonces: &[B256]) -> anyhow::Result<()> {
        ctx.lake.journal_remove(JOURNAL, &nonces.iter().map(|n| Self::id(*n)).collect::<Vec<_>>())?;
        Ok(())
    }
}

/// What the paid calls spent on one day, and with what outcome (micro-USDC), as `/status` shows.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct PaidProbeSpend {
    /// The day.
    pub day: NaiveDate,
    /// The day's budget.
    pub budget: u64,
    /// The most one call may cost.
    pub max_price: u64,
    /// Authorized that day (settled, or not known to have expired unused).
    pub spent: u64,
    /// Paid calls made.
    pub calls: u32,
    /// Settled and delivered.
    pub delivered: u32,
    /// Settled and delivered nothing.
    pub undelivered: u32,
    /// Failed without the money moving.
    pub unpaid_failures: u32,
    /// Authorized, outcome not known yet.
    pub pending: u32,
    /// Sellers priced above the cap.
    pub over_cap_sellers: u32,
    /// Sellers due that the budget did not reach.
    pub waiting_sellers: u32,
}

/// The paid probe job.
#[derive(Debug)]
pub struct PaidProbes;

/// The network the chain config names (Base or Base Sepolia).
fn network_of(chain_id: u64) -> anyhow::Result<PaymentNetwork> {
    [PaymentNetwork::base(), PaymentNetwork::base_sepolia()]
        .into_iter()
        .find(|n| n.chain_id == chain_id)
        .ok_or_else(|| anyhow::anyhow!("paid probes pay USDC on Base or Base Sepolia; chain {chain_id} is neither"))
}

/// The pool of paying wallets: the key's own, then `count − 1` derived from it (the Keccak-256
/// of a label, the key and the index), deterministic so a restart pays from the same pool.
///
/// # Errors
/// When the key is not a 32-byte hex private key.
pub fn wallet_pool(key: &str, count: u32) -> anyhow::Result<Vec<PrivateKeySigner>> {
    let root: PrivateKeySigner =
        key.trim().parse().map_err(|_| anyhow::anyhow!("{PROBE_KEY_ENV} is not a 32-byte hex private key"))?;
    let seed = root.to_bytes();
    let mut pool = vec![root];
    for index in 1..count.max(1) {
        let mut material = b"agentrep paid-probe wallet".to_vec();
        material.extend_from_slice(seed.as_slice());
        material.extend_from_slice(&index.to_be_bytes());
        // A digest that is no valid secp256k1 scalar (odds about 2^-128) is skipped.
        if let Ok(signer) = PrivateKeySigner::from_bytes(&keccak256(&material)) {
            pool.push(signer);
        }
    }
    Ok(pool)
}

/// One call to make: the seller, the resource its buyers pay for and its price.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Target {
    /// The seller (lowercase).
    pub pay_to: String,
    /// The listed resource at the price its buyers paid most often in the last week (so a cheap
    /// `/ping` beside it cannot stand in for it), else its cheapest.
    pub resource: String,
    /// Listed price, micro-USDC.
    pub price: u64,
    /// A listing first seen in the last week.
    pub new_listing: bool,
    /// Independent demand: distinct wallets, not the oracle's own, that paid it in the last week.
    pub demand: u64,
    /// The paying wallet picked for it (set when the run or the dry run picks one).
    pub wallet: Option<Address>,
}

/// A seller's last paid call in the history window: its day, and whether it is called again the
/// next day (its answer, once settled, did not deliver).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
struct LastCall {
    day: NaiveDate,
    again_tomorrow: bool,
}

impl LastCall {
    /// The later of two calls (on one day, the one that asks for another call wins).
    fn later(self, other: Self) -> Self {
        match self.day.cmp(&other.day) {
            std::cmp::Ordering::Less => other,
            std::cmp::Ordering::Greater => self,
            std::cmp::Ordering::Equal => {
                Self { day: self.day, again_tomorrow: self.again_tomorrow || other.again_tomorrow }
            }
        }
    }

    /// Whether a call of a row asks for another call the next day: it settled and its answer was
    /// no delivery, or nothing answered yet whether it settled.
    fn of(row: &PaidProbeRow, day: NaiveDate) -> Self {
        let undelivered = row.settled != Some(false)
            && !row.nonce.is_empty()
            && agentrep_model::PaidCallOutcome::of(row.status, row.body_bytes)
                != agentrep_model::PaidCallOutcome::Delivered;
        Self { day, again_tomorrow: undelivered }
    }
}

/// Who is due a call today, in order, and who is left out.
#[derive(Debug, Clone, Default)]
struct Due {
    targets: Vec<Target>,
    over_cap: u32,
}

/// A seller's demand in the last [`DEMAND_DAYS`] days, from settlements to it whose payer is not
/// one of the oracle's wallets (its own paid calls are not the seller's demand).
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Demand {
    /// Distinct independent payers.
    pub payers: u64,
    /// The amount they paid most often (the smaller on ties), when they paid.
    pub usual_price: Option<u64>,
}

impl Demand {
    /// Every seller's demand from `settlements`, leaving out those paid from `pool`.
    fn of<'a>(settlements: impl IntoIterator<Item = &'a SettlementRow>, pool: &[Address]) -> BTreeMap<String, Demand> {
        let own: BTreeSet<String> = pool.iter().map(|a| format!("{a:#x}")).collect();
        let mut payers: BTreeMap<String, BTreeSet<String>> = BTreeMap::new();
        let mut prices: BTreeMap<String, BTreeMap<u64, u64>> = BTreeMap::new();
        for s in settlements {
            let payer = s.payer.to_ascii_lowercase();
            if own.contains(&payer) {
                continue;
            }
            let seller = s.pay_to.to_ascii_lowercase();
            *prices.entry(seller.clone()).or_default().entry(s.value).or_default() += 1;
            payers.entry(seller).or_default().insert(payer);
        }
        payers
            .into_iter()
            .map(|(seller, set)| {
                let usual = prices.get(&seller).and_then(|p| p.iter().max_by(|a, b| a.1.cmp(b.1).then(b.0.cmp(a.0))));
                (seller, Demand { payers: set.len() as u64, usual_price: usual.map(|(price, _)| *price) })
            })
            .collect()
    }
}

/// The day's budget as the run spends it: the whole budget, and the share of it sellers nobody
/// independent paid in the last week may take while sellers with buyers still wait for theirs
/// (anyone can list wallets by the thousand; they cannot starve the sellers buyers pay, and take
/// what those leave).
#[derive(Debug, Clone)]
struct DayBudget {
    budget: u64,
    spent: u64,
    unproven_cap: u64,
    unproven_spent: u64,
    /// The prices of the due sellers with independent demand not reached yet.
    proven_waiting: u64,
}

impl DayBudget {
    /// The part of the budget sellers without independent demand may take: a quarter.
    const UNPROVEN_SHARE_DIVISOR: u64 = 4;

    fn new(budget: u64, spent: u64, unproven_spent: u64, due: &[Target]) -> Self {
        let proven_waiting = due.iter().filter(|t| t.demand > 0).map(|t| t.price).sum();
        Self { budget, spent, unproven_cap: budget / Self::UNPROVEN_SHARE_DIVISOR, unproven_spent, proven_waiting }
    }

    /// Whether `target` (taken in the due order, each once) may be paid for now; if so, it is
    /// counted. One without independent demand takes its share, or what the sellers with demand
    /// still due leave.
    fn take(&mut self, target: &Target) -> bool {
        let unproven = target.demand == 0;
        if !unproven {
            self.proven_waiting = self.proven_waiting.saturating_sub(target.price);
        }
        let over_budget = self.spent + target.price > self.budget;
        let leaves_room = self.budget.saturating_sub(self.spent) >= target.price + self.proven_waiting;
        let over_share = unproven && self.unproven_spent + target.price > self.unproven_cap && !leaves_room;
        if over_budget || over_share {
            return false;
        }
        self.spent += target.price;
        if unproven {
            self.unproven_spent += target.price;
        }
        true
    }
}

/// The sellers due a paid call, each at the resource its buyers pay for (on an origin it bound,
/// `bound`: (seller, origin) pairs, when one is at that price): sellers never called in
/// the history window first, then by independent demand, then new listings before old, ties by a
/// hash of seller and day (so a small budget reaches every seller over the days). `called` maps
/// each seller called in the window to its last call; a seller called within `every_days` waits,
/// but one whose last call did not deliver is due again the next day.
fn due(
    listings: &[ListingRow],
    network: &PaymentNetwork,
    cfg: &crate::config::PaidProbeConfig,
    called: &BTreeMap<String, LastCall>,
    demand: &BTreeMap<String, Demand>,
    bound: &BTreeSet<(String, String)>,
    now: DateTime<Utc>,
) -> Due {
    let today = now.date_naive();
    let new_since = ts((now - chrono::Duration::days(NEW_LISTING_DAYS)).timestamp());
    type Rank = (bool, bool, u64, agentrep_lake::Timestamp, String);
    let mut chosen: BTreeMap<String, (Rank, Target)> = BTreeMap::new();
    for l in listings {
        let asset_ok = l.asset.parse::<Address>().is_ok_and(|a| a == network.asset);
        if !asset_ok || !network.is_named(&l.network) || l.price_atomic == 0 {
            continue;
        }
        let pay_to = l.pay_to.to_ascii_lowercase();
        let seen = demand.get(&pay_to).cloned().unwrap_or_default();
        // The resource at the usual price first (the one buyers pay for), on an origin the seller
        // bound (an ownership proof, an agent card) before one nobody binds (a stranger can list
        // its own host at that price), then the cheapest, then the earliest listed (the seller's
        // own listing is older than a trap naming it): the origin the rebuild counts is called.
        let rank = |l: &ListingRow| {
            let own = bound.contains(&(pay_to.clone(), agentrep_model::live::origin(&l.resource)));
            (seen.usual_price != Some(l.price_atomic), !own, l.price_atomic, l.first_seen, l.resource.clone())
        };
        let entry = chosen.entry(pay_to.clone()).or_insert_with(|| {
            (
                rank(l),
                Target {
                    pay_to: pay_to.clone(),
                    resource: l.resource.clone(),
                    price: l.price_atomic,
                    new_listing: false,
                    demand: seen.payers,
                    wallet: None,
                },
            )
        });
        entry.1.new_listing |= l.first_seen >= new_since;
        let this = rank(l);
        if this < entry.0 {
            entry.1.price = l.price_atomic;
            entry.1.resource = l.resource.clone();
            entry.0 = this;
        }
    }
    let mut out = Due::default();
    let every = i64::from(cfg.every_days.max(1));
    for (_, target) in chosen.into_values() {
        if target.price > cfg.max_price {
            out.over_cap += 1;
        } else if called.get(&target.pay_to).is_none_or(|last| {
            let wait = if last.again_tomorrow { 1 } else { every };
            (today - last.day).num_days() >= wait
        }) {
            out.targets.push(target);
        }
    }
    out.targets.sort_by_cached_key(|t| {
        let rotation = Sha256::digest(format!("{}{today}", t.pay_to)).to_vec();
        (called.contains_key(&t.pay_to), std::cmp::Reverse(t.demand), !t.new_listing, rotation)
    });
    out
}

/// The (wallet, origin) pairs the wallets' owners bound, as `origins.sql` binds them: every signer
/// of each origin's newest answered proof fetch in the last [`HISTORY_DAYS`] days, and every origin
/// the newest registration file of an agent names whose `agentWallet` is the wallet. (A ranked
/// domain binds too, once the rebuild has judged that the domain's 402s name the wallet alone;
/// the paid probe does not judge domains.)
fn bound_origins(ctx: &RunContext<'_>, today: NaiveDate) -> anyhow::Result<BTreeSet<(String, String)>> {
    let since = today - chrono::Duration::days(HISTORY_DAYS);
    let mut newest: BTreeMap<String, OriginProofRow> = BTreeMap::new();
    for part in ctx.lake.partitions_up_to(Dataset::OriginProofs, today)?.into_iter().filter(|p| p.date >= since) {
        for row in ctx.lake.read_partition::<OriginProofRow>(part.date)? {
            if row.answered
                && newest.get(&row.origin).is_none_or(|n| (n.fetched_at, &n.url) < (row.fetched_at, &row.url))
            {
                newest.insert(row.origin.clone(), row);
            }
        }
    }
    let mut bound: BTreeSet<(String, String)> =
        newest.into_values().flat_map(|row| row.signers.into_iter().map(move |s| (s, row.origin.clone()))).collect();
    let mut cards: BTreeMap<u64, AgentCardRow> = BTreeMap::new();
    for card in read_all::<AgentCardRow>(ctx.lake)? {
        if card.error.is_none()
            && cards.get(&card.agent_id).is_none_or(|c| (c.fetched_at, &c.uri) < (card.fetched_at, &card.uri))
        {
            cards.insert(card.agent_id, card);
        }
    }
    for registration in read_all::<RegistrationRow>(ctx.lake)? {
        let (Some(wallet), Some(card)) = (registration.agent_wallet, cards.get(&registration.agent_id)) else {
            continue;
        };
        let wallet = wallet.to_ascii_lowercase();
        bound.extend(
            card.endpoints
                .iter()
                .map(|e| agentrep_model::live::origin(e))
                .filter(|o| !o.is_empty())
                .map(|o| (wallet.clone(), o)),
        );
    }
    Ok(bound)
}

/// The wallet of `pool` that pays `target`: picked by seller and day among those whose balance
/// covers the price, or none when no wallet does.
fn pick_wallet(pool: &[PrivateKeySigner], balances: &[u64], target: &Target, today: NaiveDate) -> Option<usize> {
    let digest = Sha256::digest(format!("wallet {} {today}", target.pay_to));
    let start = usize::from(u16::from_be_bytes([digest[0], digest[1]])) % pool.len();
    (0..pool.len()).map(|i| (start + i) % pool.len()).find(|i| balances[*i] >= target.price)
}

/// Everything a run or a dry run needs to know before it pays anything.
struct Prepared {
    network: PaymentNetwork,
    reader: ChainReader,
    pool: Vec<PrivateKeySigner>,
    balances: Vec<u64>,
    due: Due,
    /// Authorized today: the day's rows not known to have expired unused (an interrupted run's
    /// journal is already rows by then).
    spent_today: u64,
    /// The rest of the day's budget, with the share of sellers without independent demand.
    budget: DayBudget,
}

async fn prepare(ctx: &RunContext<'_>) -> anyhow::Result<Prepared> {
    let cfg = &ctx.config.paid_probes;
    let key = std::env::var(PROBE_KEY_ENV).ok().filter(|k| !k.trim().is_empty());
    let Some(key) = key else { anyhow::bail!("paid_probes.enabled needs the paying key in {PROBE_KEY_ENV}") };
    let pool = wallet_pool(&key, cfg.wallets)?;
    let network = network_of(ctx.config.chain.chain_id)?;
    let rpc = ctx
        .config
        .chain
        .rpc_urls
        .first()
        .ok_or_else(|| anyhow::anyhow!("paid probes read the chain: no chain.rpc_urls"))?;
    let timeout = Duration::from_millis(ctx.config.chain.request_timeout_ms);
    let reader = ChainReader::connect(rpc.as_str(), network.clone(), timeout)
        .await
        .map_err(|e| anyhow::anyhow!("the paid probe's node: {e}"))?;
    let mut balances = Vec::with_capacity(pool.len());
    for wallet in &pool {
        let balance = reader.balance(wallet.address()).await.map_err(|e| anyhow::anyhow!("a wallet's balance: {e}"))?;
        balances.push(u64::try_from(balance.min(U256::from(u64::MAX))).unwrap_or(u64::MAX));
    }

    let today = ctx.now.date_naive();
    let listings: Vec<ListingRow> = match ctx.lake.partitions_up_to(Dataset::Listings, today)?.last() {
        Some(part) => ctx.lake.read_partition(part.date)?,
        None => Vec::new(),
    };
    let mut called: BTreeMap<String, LastCall> = BTreeMap::new();
    let mut spent_today = 0u64;
    let mut spent_by_seller: BTreeMap<String, u64> = BTreeMap::new();
    let since = today - chrono::Duration::days(HISTORY_DAYS);
    for part in ctx.lake.partitions_up_to(Dataset::PaidProbes, today)?.into_iter().filter(|p| p.date >= since) {
        let rows: Vec<PaidProbeRow> = ctx.lake.read_partition(part.date)?;
        for r in rows {
            if part.date == today && r.settled != Some(false) {
                spent_today += r.amount;
                *spent_by_seller.entry(r.pay_to.to_ascii_lowercase()).or_default() += r.amount;
            }
            let call = LastCall::of(&r, part.date);
            let last = called.entry(r.pay_to).or_insert(call);
            *last = last.later(call);
        }
    }
    let demand_since = today - chrono::Duration::days(DEMAND_DAYS);
    let mut recent: Vec<SettlementRow> = Vec::new();
    for part in ctx.lake.partitions_up_to(Dataset::Settlements, today)?.into_iter().filter(|p| p.date > demand_since) {
        recent.extend(ctx.lake.read_partition::<SettlementRow>(part.date)?);
    }
    let addresses: Vec<Address> = pool.iter().map(PrivateKeySigner::address).collect();
    let demand = Demand::of(&recent, &addresses);
    let unproven_spent = spent_by_seller
        .iter()
        .filter(|(seller, _)| demand.get(*seller).is_none_or(|d| d.payers == 0))
        .map(|(_, spent)| spent)
        .sum();
    let bound = bound_origins(ctx, today)?;
    let due = due(&listings, &network, cfg, &called, &demand, &bound, ctx.now);
    let budget = DayBudget::new(cfg.budget_per_day, spent_today, unproven_spent, &due.targets);
    Ok(Prepared { network, reader, pool, balances, due, spent_today, budget })
}

/// What a dry run found: the calls it would buy now, in order, and the pool.
#[derive(Debug, Clone)]
pub struct DryRun {
    /// The calls within today's remaining budget, each with the wallet that would pay.
    pub calls: Vec<Target>,
    /// Sellers due that today's budget does not reach.
    pub waiting: usize,
    /// Sellers priced above the cap (never called).
    pub over_cap: u32,
    /// Authorized today already.
    pub spent_today: u64,
    /// The day's budget.
    pub budget: u64,
    /// Every wallet of the pool and its balance, micro-USDC.
    pub wallets: Vec<(Address, u64)>,
}

/// The calls a run would buy now, without paying or writing anything.
///
/// # Errors
/// When the key, the node or the lake cannot be read.
pub async fn dry_run(ctx: &RunContext<'_>) -> anyhow::Result<DryRun> {
    let mut p = prepare(ctx).await?;
    let budget = ctx.config.paid_probes.budget_per_day;
    let mut balances = p.balances.clone();
    let mut calls = Vec::new();
    let mut waiting = 0;
    for mut target in std::mem::take(&mut p.due.targets) {
        let wallet = pick_wallet(&p.pool, &balances, &target, ctx.now.date_naive());
        match wallet {
            Some(w) if p.budget.take(&target) => {
                balances[w] -= target.price;
                target.wallet = Some(p.pool[w].address());
                calls.push(target);
            }
            _ => waiting += 1,
        }
    }
    Ok(DryRun {
        calls,
        waiting,
        over_cap: p.due.over_cap,
        spent_today: p.spent_today,
        budget,
        wallets: p.pool.iter().map(|w| w.address()).zip(p.balances).collect(),
    })
}

/// A row for `target` before anything is known of the call.
fn blank_row(target: &Target, payer: Address, network: &PaymentNetwork, at: DateTime<Utc>) -> PaidProbeRow {
    PaidProbeRow {
        resource: target.resource.clone(),
        pay_to: target.pay_to.clone(),
        probed_at: ts(at.timestamp()),
        payer: format!("{payer:#x}"),
        network: network.caip2.clone(),
        asset: format!("{:#x}", network.asset),
        amount: 0,
        nonce: String::new(),
        status: None,
        body_bytes: 0,
        delivered: false,
        settled: Some(false),
        tx_hash: None,
        error: None,
    }
}

/// Adds `rows` to their days' partitions (a row whose nonce is there already is not added again).
fn record(ctx: &RunContext<'_>, rows: Vec<PaidProbeRow>) -> anyhow::Result<()> {
    let mut by_day: BTreeMap<NaiveDate, Vec<PaidProbeRow>> = BTreeMap::new();
    for row in rows {
        by_day.entry(super::day_of(row.probed_at.0.div_euclid(1_000_000))).or_default().push(row);
    }
    for (day, rows) in by_day {
        let mut partition: Vec<PaidProbeRow> = ctx.lake.read_partition(day)?;
        for row in rows {
            if row.nonce.is_empty() || !partition.iter().any(|r| r.nonce == row.nonce) {
                partition.push(row);
            }
        }
        partition.sort_by(|a, b| (a.probed_at, &a.resource).cmp(&(b.probed_at, &b.resource)));
        ctx.lake.write_partition(day, &partition)?;
    }
    Ok(())
}

/// Turns what an interrupted run left in the journal into rows (`interrupted`, settlement not
/// known yet; a row already there for a nonce is kept) and removes those entries.
fn recover_journal(ctx: &RunContext<'_>, network: &PaymentNetwork) -> anyhow::Result<()> {
    let left = Journal::pending(ctx)?;
    if left.is_empty() {
        return Ok(());
    }
    let rows = left
        .iter()
        .map(|a| {
            let target = Target {
                pay_to: a.pay_to.clone(),
                resource: a.resource.clone(),
                price: a.amount,
                new_listing: false,
                demand: 0,
                wallet: None,
            };
            let at = DateTime::from_timestamp(a.probed_at, 0).unwrap_or_default();
            PaidProbeRow {
                amount: a.amount,
                nonce: format!("{:#x}", a.nonce),
                settled: None,
                error: Some(INTERRUPTED.to_owned()),
                ..blank_row(&target, a.payer, network, at)
            }
        })
        .collect();
    record(ctx, rows)?;
    Journal::settle(ctx, &left.iter().map(|a| a.nonce).collect::<Vec<_>>())?;
    Ok(())
}

/// The chain's newest block time (Unix seconds): an authorization can no longer be used once it
/// is past the authorization's `validBefore`.
async fn chain_time(reader: &ChainReader) -> anyhow::Result<u64> {
    use alloy::providers::Provider;
    let block = reader
        .provider()
        .get_block_by_number(alloy::eips::BlockNumberOrTag::Latest)
        .await
        .map_err(|e| anyhow::anyhow!("reading the chain's head: {e}"))?
        .ok_or_else(|| anyhow::anyhow!("the node has no head block"))?;
    Ok(block.header.timestamp)
}

/// Reads on chain whether each recorded authorization of the last two days whose outcome is not
/// known was used, for those the chain's time has passed (`probed_at + authorization_secs`, which
/// is never before their `validBefore`). Returns how many are still unknown.
async fn resolve_pending(ctx: &RunContext<'_>, reader: &ChainReader, today: NaiveDate) -> anyhow::Result<u32> {
    let horizon = chain_time(reader).await?;
    let secs = ctx.config.paid_probes.authorization_secs + SETTLE_MARGIN_SECS;
    let mut still_pending = 0;
    for day in [today - chrono::Duration::days(1), today] {
        let mut partition: Vec<PaidProbeRow> = ctx.lake.read_partition(day)?;
        let mut changed = false;
        for row in partition.iter_mut().filter(|r| r.settled.is_none() && !r.nonce.is_empty()) {
            let expired_at = u64::try_from(row.probed_at.0.div_euclid(1_000_000)).unwrap_or(0) + secs;
            if expired_at > horizon {
                still_pending += 1;
                continue;
            }
            let (Ok(payer), Ok(nonce)) = (row.payer.parse::<Address>(), row.nonce.parse::<B256>()) else { continue };
            let used = reader
                .authorization_used(payer, nonce)
                .await
                .map_err(|e| anyhow::anyhow!("reading the authorization's state: {e}"))?;
            row.settled = Some(used);
            changed = true;
        }
        if changed {
            ctx.lake.write_partition(day, &partition)?;
        }
    }
    Ok(still_pending)
}

/// Waits until the chain's time has passed `valid_before` (plus a margin), at most the
/// authorization's lifetime and a minute more; whatever is still unknown then is resolved by the
/// next run.
async fn wait_for_expiry(reader: &ChainReader, valid_before: u64, lifetime: u64) -> anyhow::Result<()> {
    let deadline = tokio::time::Instant::now() + Duration::from_secs(lifetime + 60);
    while chain_time(reader).await? < valid_before + SETTLE_MARGIN_SECS {
        if tokio::time::Instant::now() >= deadline {
            break;
        }
        tokio::time::sleep(Duration::from_millis(500)).await;
    }
    Ok(())
}

/// The day's spending, from its partition.
fn spend_of(rows: &[PaidProbeRow], day: NaiveDate, cfg: &crate::config::PaidProbeConfig) -> PaidProbeSpend {
    let count =
        |f: &dyn Fn(&PaidProbeRow) -> bool| u32::try_from(rows.iter().filter(|r| f(r)).count()).unwrap_or(u32::MAX);
    PaidProbeSpend {
        day,
        budget: cfg.budget_per_day,
        max_price: cfg.max_price,
        spent: rows.iter().filter(|r| r.settled != Some(false)).map(|r| r.amount).sum::<u64>(),
        calls: count(&|r| r.amount > 0),
        delivered: count(&|r| r.settled == Some(true) && r.delivered),
        undelivered: count(&|r| r.settled == Some(true) && !r.delivered && r.error.as_deref() != Some(INTERRUPTED)),
        unpaid_failures: count(&|r| r.settled == Some(false) && !r.delivered),
        pending: count(&|r| r.settled.is_none() && r.amount > 0),
        over_cap_sellers: 0,
        waiting_sellers: 0,
    }
}

/// One paid call: the unpaid request, the checks of its 402, the journaled authorization and the
/// paid retry. Returns the row (settlement unknown when something was authorized).
async fn call(
    ctx: &RunContext<'_>,
    p: &mut Prepared,
    target: &Target,
    wallet: usize,
    at: DateTime<Utc>,
) -> anyhow::Result<PaidProbeRow> {
    let cfg = &ctx.config.paid_probes;
    let signer = &p.pool[wallet];
    let mut row = blank_row(target, signer.address(), &p.network, at);
    let first = match ctx.paid_http.get(&target.resource).await {
        Err(e) => {
            row.error = Some(e.class().to_owned());
            return Ok(row);
        }
        Ok(first) => first,
    };
    row.status = Some(u32::from(first.status));
    if first.status != 402 {
        row.error = Some(format!("http-{}", first.status));
        return Ok(row);
    }
    let pay_to: Address = target.pay_to.parse().map_err(|_| anyhow::anyhow!("listing payTo {}", target.pay_to))?;
    let expected = Expected { pay_to, asset: p.network.asset, max_amount: target.price.min(cfg.max_price) };
    let picked = match pay::pick(&first.headers, &first.body, &p.network, &expected) {
        Err(refusal) => {
            row.error = Some(refusal.as_str().to_owned());
            return Ok(row);
        }
        Ok(picked) => picked,
    };
    // Valid as the official clients make it, from the call on by the run's clock (never longer
    // than `authorization_secs`, which bounds the wait for whether the money moved).
    let validity = picked.validity(u64::try_from(at.timestamp()).unwrap_or(0), cfg.authorization_secs);
    let valid_before = validity.1;
    let signed = pay::sign(signer, &p.network, &picked, pay_to, validity)
        .map_err(|e| anyhow::anyhow!("signing the paid probe: {e}"))?;
    // Durable before it is sent: a kill from here on is recovered by the next run, which counts
    // it against the day's budget and never pays this seller again that day.
    Journal::append(
        ctx,
        &Authorized {
            resource: target.resource.clone(),
            pay_to: target.pay_to.clone(),
            payer: signer.address(),
            amount: picked.amount,
            nonce: signed.nonce,
            valid_before,
            probed_at: at.timestamp(),
        },
    )?;
    row.amount = picked.amount;
    row.nonce = format!("{:#x}", signed.nonce);
    row.settled = None;
    p.spent_today += picked.amount;
    p.balances[wallet] -= picked.amount.min(p.balances[wallet]);
    match ctx.paid_http.get_with_header(&target.resource, (signed.header, &signed.value)).await {
        Ok(paid) => {
            row.status = Some(u32::from(paid.status));
            row.body_bytes = paid.body.len() as u64;
            row.delivered = (200..300).contains(&paid.status) && !paid.body.is_empty();
            row.tx_hash = pay::settlement_tx(&paid.headers);
            if !row.delivered {
                row.error = Some(format!("http-{}", paid.status));
            }
        }
        Err(e) => {
            row.status = None;
            row.error = Some(e.class().to_owned());
        }
    }
    Ok(row)
}

impl Source for PaidProbes {
    const NAME: SourceName = SourceName::PaidProbes;
    type Checkpoint = PaidProbesCheckpoint;

    async fn run(
        ctx: &RunContext<'_>,
        checkpoint: PaidProbesCheckpoint,
    ) -> anyhow::Result<(PaidProbesCheckpoint, RunReport)> {
        let mut report = RunReport::default();
        let cfg = &ctx.config.paid_probes;
        if !cfg.enabled {
            report.notes.push("paid probes are off (paid_probes.enabled): agentrep pays for no call".into());
            return Ok((checkpoint, report));
        }
        // What an interrupted run left becomes rows first, so the budget and the order see it.
        recover_journal(ctx, &network_of(ctx.config.chain.chain_id)?)?;
        let mut p = prepare(ctx).await?;
        let today = ctx.now.date_naive();
        resolve_pending(ctx, &p.reader, today).await?;

        // The run's clock (the chain's with `--clock chain`) moves on with the wall clock.
        let clock = || ctx.clock();
        let mut waiting = 0u32;
        let mut calls = 0u64;
        let mut authorized = false;
        let targets = std::mem::take(&mut p.due.targets);
        ctx.progress.start("paid probes", targets.len() as u64);
        for target in targets {
            let wallet = pick_wallet(&p.pool, &p.balances, &target, today);
            let Some(wallet) = wallet.filter(|_| p.budget.take(&target)) else {
                waiting += 1;
                continue;
            };
            let row = call(ctx, &mut p, &target, wallet, clock()).await?;
            info!(
                seller = %row.pay_to,
                resource = %row.resource,
                amount = row.amount,
                wallet = %row.payer,
                status = ?row.status,
                delivered = row.delivered,
                error = ?row.error,
                "Paid probe."
            );
            let nonce = row.nonce.clone();
            authorized |= !nonce.is_empty();
            record(ctx, vec![row])?;
            // Only once its row is written may the authorization leave the journal.
            if !nonce.is_empty() {
                let nonce: B256 = nonce.parse().map_err(|e| anyhow::anyhow!("the row's nonce {nonce}: {e}"))?;
                Journal::settle(ctx, &[nonce])?;
            }
            calls += 1;
            ctx.progress.set(calls);
        }
        ctx.progress.finish();

        // Whether the money moved is known for sure once no authorization can be used any more.
        if authorized {
            let last = u64::try_from(clock().timestamp()).unwrap_or(0) + cfg.authorization_secs;
            wait_for_expiry(&p.reader, last, cfg.authorization_secs).await?;
        }
        let pending = resolve_pending(ctx, &p.reader, today).await?;
        let partition: Vec<PaidProbeRow> = ctx.lake.read_partition(today)?;
        let mut spend = spend_of(&partition, today, cfg);
        spend.over_cap_sellers = p.due.over_cap;
        spend.waiting_sellers = waiting;
        report.rows = calls;
        report.notes.push(format!(
            "{}: {} of {} micro-USDC spent on {} paid calls ({} delivered, {} delivered nothing, {} unpaid failures, \
             {} pending); {} sellers wait (the day's budget is spent, or no wallet holds enough), {} are priced \
             over the cap",
            spend.day,
            spend.spent,
            spend.budget,
            spend.calls,
            spend.delivered,
            spend.undelivered,
            spend.unpaid_failures,
            pending,
            spend.waiting_sellers,
            spend.over_cap_sellers
        ));
        if waiting > 0 {
            report.notes.push(format!(
                "{waiting} sellers wait for tomorrow: the day's budget ({} micro-USDC) or the wallets' funds ran out",
                cfg.budget_per_day
            ));
        }
        report.spend = Some(spend);
        report.days = vec![today];
        Ok((PaidProbesCheckpoint { last_run: Some(ctx.now) }, report))
    }

    fn coverage(checkpoint: &PaidProbesCheckpoint) -> (Option<DateTime<Utc>>, Option<u64>) {
        (checkpoint.last_run, None)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use agentrep_lake::Timestamp;

    fn listing(pay_to: &str, resource: &str, price: u64, first_seen_days_ago: i64, now: DateTime<Utc>) -> ListingRow {
        ListingRow {
            resource: resource.to_owned(),
            pay_to: pay_to.to_owned(),
            network: "eip155:8453".to_owned(),
            asset: agentrep_model::chain::USDC_BASE.to_owned(),
            price_atomic: price,
            description: None,
            tags: Vec::new(),
            ecosystem: "test".to_owned(),
            first_seen: Timestamp::from_secs((now - chrono::Duration::days(first_seen_days_ago)).timestamp()),
            last_seen: Timestamp::from_secs(now.timestamp()),
        }
    }

    fn demand(payers: u64, usual_price: Option<u64>) -> Demand {
        Demand { payers, usual_price }
    }

    #[test]
    fn the_never_called_then_independent_demand_go_first_and_the_recent_and_the_dear_wait() {
        let now = DateTime::parse_from_rfc3339("2026-11-28T12:00:00Z").unwrap().with_timezone(&Utc);
        let today = now.date_naive();
        let cfg = crate::config::PaidProbeConfig::default();
        let listings = vec![
            listing("0xold-busy", "https://a/1", 1_000, 60, now),
            listing("0xold-quiet", "https://b/1", 1_000, 60, now),
            listing("0xnew", "https://c/1", 1_000, 2, now),
            listing("0xcalled-long-ago", "https://d/1", 1_000, 60, now),
            listing("0xcalled-yesterday", "https://e/1", 1_000, 60, now),
            listing("0xdear", "https://f/1", cfg.max_price + 1, 60, now),
            // A cheaper `/ping` beside the resource its buyers pay: not the one called.
            listing("0xold-busy", "https://a/ping", 500, 60, now),
            // A seller nobody has paid: its cheapest resource.
            listing("0xold-quiet", "https://b/0", 700, 60, now),
        ];
        let call = |days: i64, again_tomorrow| LastCall { day: today - chrono::Duration::days(days), again_tomorrow };
        let called = BTreeMap::from([
            ("0xcalled-long-ago".to_owned(), call(20, false)),
            ("0xcalled-yesterday".to_owned(), call(1, false)),
        ]);
        let demand = BTreeMap::from([
            ("0xold-busy".to_owned(), demand(40, Some(1_000))),
            ("0xcalled-long-ago".to_owned(), demand(900, Some(1_000))),
        ]);
        let due = due(&listings, &PaymentNetwork::base(), &cfg, &called, &demand, &BTreeSet::new(), now);
        let order: Vec<&str> = due.targets.iter().map(|t| t.pay_to.as_str()).collect();
        assert_eq!(order, ["0xold-busy", "0xnew", "0xold-quiet", "0xcalled-long-ago"]);
        assert_eq!((due.targets[0].resource.as_str(), due.targets[0].price), ("https://a/1", 1_000));
        assert_eq!((due.targets[2].resource.as_str(), due.targets[2].price), ("https://b/0", 700));
        assert_eq!(due.over_cap, 1);
    }

    /// A stranger's host listed under the seller's payTo at the seller's usual price is not the
    /// one called: the origin the seller signed is, and with no signed origin, the earliest listed.
    #[test]
    fn the_signed_origin_then_the_earliest_listing_is_called_at_the_usual_price() {
        let now = DateTime::parse_from_rfc3339("2026-11-28T12:00:00Z").unwrap().with_timezone(&Utc);
        let cfg = crate::config::PaidProbeConfig::default();
        let listings = vec![
            listing("0xseller", "https://a-trap.example/quote", 1_000, 1, now),
            listing("0xseller", "https://seller.example/quote", 1_000, 60, now),
            listing("0xseller", "https://ping.seller.example/ping", 10, 60, now),
        ];
        let demand = BTreeMap::from([("0xseller".to_owned(), demand(40, Some(1_000)))]);
        let pick = |bound: &BTreeSet<(String, String)>| {
            due(&listings, &PaymentNetwork::base(), &cfg, &BTreeMap::new(), &demand, bound, now).targets[0]
                .resource
                .clone()
        };
        assert_eq!(pick(&BTreeSet::new()), "https://seller.example/quote");
        // The trap's host signed by the seller (say the seller moved there): called first.
        let signed = BTreeSet::from([("0xseller".to_owned(), "https://a-trap.example".to_owned())]);
        assert_eq!(pick(&signed), "https://a-trap.example/quote");
        // A signed origin at another price does not replace the resource buyers pay for.
        let ping_only = BTreeSet::from([("0xseller".to_owned(), "https://ping.seller.example".to_owned())]);
        assert_eq!(pick(&ping_only), "https://seller.example/quote");
    }

    /// Demand is distinct independent payers: the oracle's own wallets and a wallet paying a
    /// thousand times count as they are (none, and one).
    #[test]
    fn demand_counts_independent_payers_and_their_usual_price() {
        let pool = [Address::repeat_byte(0xaa)];
        let row = |payer: &str, pay_to: &str, value: u64| SettlementRow {
            tx_hash: String::new(),
            log_index: 0,
            block_number: 0,
            block_time: agentrep_lake::Timestamp::from_secs(0),
            payer: payer.to_owned(),
            pay_to: pay_to.to_owned(),
            value,
            asset: String::new(),
            facilitator: None,
            eip3009: true,
            network: "eip155:8453".to_owned(),
            form: None,
            channel: None,
            builder_app: None,
            builder_wallet: None,
            builder_services: None,
        };
        let oracle = format!("{:#x}", pool[0]);
        let mut rows = vec![row(&oracle, "0xs", 500), row(&oracle, "0xs", 500), row("0xB1", "0xS", 1_000)];
        rows.extend((0..1_000).map(|_| row("0xb2", "0xs", 1_000)));
        rows.push(row("0xb3", "0xs", 2_000));
        rows.push(row(&oracle, "0xonly-oracle", 500));
        let d = Demand::of(&rows, &pool);
        assert_eq!(d.get("0xs"), Some(&demand(3, Some(1_000))));
        assert_eq!(d.get("0xonly-oracle"), None, "the oracle's own calls are no demand");
    }

    /// Sellers nobody independent paid may take a quarter of the day's budget while sellers with
    /// buyers still wait for theirs, and whatever those leave.
    #[test]
    fn sellers_without_independent_demand_take_a_bounded_share_of_the_budget() {
        let target = |demand: u64, price: u64| Target {
            pay_to: "0xs".into(),
            resource: "https://s/1".into(),
            price,
            new_listing: true,
            demand,
            wallet: None,
        };
        // Ten unproven sellers due before one with buyers (costing 700).
        let due: Vec<Target> = (0..10).map(|_| target(0, 100)).chain([target(5, 700)]).collect();
        let mut budget = DayBudget::new(1_000, 0, 0, &due);
        let taken = due[..10].iter().filter(|t| budget.take(t)).count();
        assert_eq!(taken, 3, "a quarter of 1000 is two calls of 100, and 100 more is left beside the 700");
        assert!(budget.take(&due[10]), "the seller buyers pay still gets its call");
        assert!(!budget.take(&target(5, 200)), "and no more than the budget");
        // With no seller with buyers due, the unproven take the whole budget.
        let alone: Vec<Target> = (0..10).map(|_| target(0, 100)).collect();
        let mut budget = DayBudget::new(1_000, 0, 0, &alone);
        assert_eq!(alone.iter().filter(|t| budget.take(t)).count(), 10);
        let mut later = DayBudget::new(1_000, 300, 250, &[target(5, 700)]);
        assert!(!later.take(&target(0, 10)), "an earlier run's unproven spend counts");
    }

    #[test]
    fn a_seller_whose_last_call_did_not_deliver_is_called_again_the_next_day() {
        let now = DateTime::parse_from_rfc3339("2026-11-28T12:00:00Z").unwrap().with_timezone(&Utc);
        let today = now.date_naive();
        let cfg = crate::config::PaidProbeConfig::default();
        assert!(cfg.every_days > 1, "the default waits more than a day after a delivered call");
        let listings = vec![
            listing("0xfailed", "https://a/1", 1_000, 60, now),
            listing("0xserved", "https://b/1", 1_000, 60, now),
        ];
        let yesterday = today - chrono::Duration::days(1);
        let called = BTreeMap::from([
            ("0xfailed".to_owned(), LastCall { day: yesterday, again_tomorrow: true }),
            ("0xserved".to_owned(), LastCall { day: yesterday, again_tomorrow: false }),
        ]);
        let due = due(&listings, &PaymentNetwork::base(), &cfg, &called, &BTreeMap::new(), &BTreeSet::new(), now);
        let order: Vec<&str> = due.targets.iter().map(|t| t.pay_to.as_str()).collect();
        assert_eq!(order, ["0xfailed"]);
    }

    #[test]
    fn which_calls_ask_for_another_the_next_day() {
        let day = NaiveDate::from_ymd_opt(2026, 11, 28).unwrap();
        let row = |status: Option<u32>, body_bytes: u64, settled: Option<bool>| PaidProbeRow {
            resource: "https://a/1".into(),
            pay_to: "0xa".into(),
            probed_at: Timestamp::from_secs(0),
            payer: "0xb".into(),
            network: "eip155:8453".into(),
            asset: agentrep_model::chain::USDC_BASE.into(),
            amount: 1_000,
            nonce: "0x01".into(),
            status,
            body_bytes,
            delivered: status.is_some_and(|s| (200..300).contains(&s)) && body_bytes > 0,
            settled,
            tx_hash: None,
            error: None,
        };
        assert!(!LastCall::of(&row(Some(200), 10, Some(true)), day).again_tomorrow);
        assert!(LastCall::of(&row(Some(500), 0, Some(true)), day).again_tomorrow);
        assert!(LastCall::of(&row(None, 0, None), day).again_tomorrow, "a timeout, settlement not known yet");
        assert!(!LastCall::of(&row(None, 0, Some(false)), day).again_tomorrow, "the money never moved");
        let failed = LastCall { day, again_tomorrow: true };
        let served = LastCall { day, again_tomorrow: false };
        assert_eq!(served.later(failed), failed);
        assert!(
            !failed.later(LastCall { day: day.succ_opt().unwrap(), again_tomorrow: false }).again_tomorrow,
            "a later delivered call waits its turn"
        );
    }

    #[test]
    fn the_pool_is_deterministic_distinct_and_starts_with_the_key() {
        let key = "0x".to_owned() + &"11".repeat(32);
        let pool = wallet_pool(&key, 4).unwrap();
        let again = wallet_pool(&key, 4).unwrap();
        let addresses: BTreeSet<Address> = pool.iter().map(|w| w.address()).collect();
        assert_eq!(addresses.len(), 4);
        assert_eq!(pool[0].address(), key.parse::<PrivateKeySigner>().unwrap().address());
        assert!(pool.iter().zip(&again).all(|(a, b)| a.address() == b.address()));
        assert!(wallet_pool("nope", 2).unwrap_err().to_string().contains(PROBE_KEY_ENV));
    }

    #[test]
    fn a_wallet_is_picked_among_those_that_can_pay_and_sellers_meet_several() {
        let key = "0x".to_owned() + &"22".repeat(32);
        let pool = wallet_pool(&key, 8).unwrap();
        let target = |i: usize| Target {
            pay_to: format!("0x{i:040x}"),
            resource: String::new(),
            price: 100,
            new_listing: false,
            demand: 0,
            wallet: None,
        };
        let day = NaiveDate::from_ymd_opt(2026, 11, 28).unwrap();
        let rich = vec![1_000; 8];
        let picked: BTreeSet<usize> = (0..64).filter_map(|i| pick_wallet(&pool, &rich, &target(i), day)).collect();
        assert!(picked.len() >= 6, "sellers meet different wallets: {picked:?}");
        let days: BTreeSet<usize> =
            (0..30).filter_map(|d| pick_wallet(&pool, &rich, &target(1), day + chrono::Duration::days(d))).collect();
        assert!(days.len() >= 4, "one seller meets several wallets over a month: {days:?}");
        let one_funded = [0, 0, 0, 500, 0, 0, 0, 0];
        assert!((0..20).all(|i| pick_wallet(&pool, &one_funded, &target(i), day) == Some(3)));
        assert_eq!(pick_wallet(&pool, &[0; 8], &target(0), day), None);
    }
}
