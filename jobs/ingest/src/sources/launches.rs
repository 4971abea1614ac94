//! Token launches and their daily observations (onchain.md §7).
//!
//! # Launches
//! Clanker v4 `TokenCreated` (creator = `tokenAdmin`) and Zora `CoinCreatedV4` (creator =
//! `payoutRecipient`) from the configured factories → `token_launches`.
//!
//! # Observations
//! One `launch_observations` row per Clanker token per UTC day, from its launch day to the last day
//! read, decoded from real events only: the Uniswap v4 PoolManager's `Swap` (topic1 = pool id) and
//! the token's ERC-20 `Transfer`. This is the decoding of the encoding the replay writes
//! (`SwapEncoding` in `tests/src/chain/plan.rs`):
//!
//! * **pool**: the `poolId` the factory's `TokenCreated` reports. The double computes it as
//!   `poolIdFor(token)` (v4 `PoolId` = keccak256 of the (token, WETH, 1 %, 200, no hook) pool key);
//!   real Clanker v4 reports its own hooked pool's id, so the event is read rather than the key
//!   recomputed.
//! * **swaps**: the pool's `Swap` events whose block time is in the day.
//! * **price**: `(sqrtPriceX96 / 2^96)^2` of the pool's last `Swap` up to the end of the day.
//! * **liquidity**: the `liquidity` of that same `Swap` (saturated to u64). On the replayed chain
//!   it carries the world's liquidity in micro-USDC, because the encoding puts it there. On
//!   mainnet it is the pool's in-range liquidity L (a √(x·y) quantity in raw token units), not
//!   USD, and the price is the raw currency1/currency0 ratio (WETH wei per token wei when the token
//!   sorts first, the inverse otherwise), not USD per token. Converting either to USD (pool
//!   orientation, decimals, an ETH price) is left to do; `/status` says so.
//! * **holders**: addresses with a positive balance at the end of the day, from every `Transfer`
//!   since the launch (mints from and burns to 0x0 credit or debit nobody else), other than the
//!   creator (`tokenAdmin`), the PoolManager and the zero address.
//! * **creator_holding**: the creator's balance at the end of the day / [`CREATOR_ALLOCATION_WEI`]
//!   (the 10 % of the 100B supply the factory mints to `tokenAdmin`).
//!
//! # Buys
//! One `token_buys` row per (token, buyer, day): every `Transfer` of the token from the
//! PoolManager to an address other than the creator, the PoolManager and 0x0 is a buy by its
//! recipient (v4 pays a swap's output out of the PoolManager). The creator's own buys are left out,
//! as it is left out of the holders. A router that takes the output and forwards it shows as the
//! buyer; no router is unwrapped yet. Each day is written whole, with the observations.
//!
//! **Quiet days.** The world has a row for every day from a launch on, swaps or not, and the replay
//! plays each of them (`replays_a_tiny_world` checks every one). So a day without swaps gets a row
//! too: swaps 0, holders and creator holding as on any day, and the price and liquidity of the
//! pool's last swap carried forward (a v4 pool's price moves only with swaps; its liquidity also
//! moves with `ModifyLiquidity`, which is not read). The encoding cannot carry a quiet day's price
//! or liquidity, so on those days the rows differ from the world's on exactly those two fields.
//! Before a token's first swap both are 0 (the world has no such day: launch days always trade).
//!
//! **Zora coins** get no observations: their pools pair other currencies and their creator
//! allocation is not the 10 % above; `/status` says so.
//!
//! # State between runs
//! Holders and the creator's balance need every transfer since the launch. Re-reading each token's
//! whole history in every run would make a run's cost grow with the age and number of launches
//! without bound, so the typed checkpoint keeps, per token, its pool, creator, balances and last
//! swap as of 00:00 UTC of a recent day ([`PoolStates`]): the day of the earliest block the next
//! run can rewind to (`reorg_depth` plus a second's blocks before the end of this run), so the
//! blocks folded into the states are never re-read. A run then reads pool and token events from
//! that midnight on and rewrites every observation day from that day to the last. Without usable
//! states (first run, a checkpoint from before observations, a rewind past them) the run rebuilds
//! them from the earliest Clanker launch in the lake, re-reading the factory's events from that day
//! too, so every launch the lake knows is observed. The cost is the checkpoint's size: one balance
//! per (token, holder).
//!
//! Each observation day is written whole (one row per token launched by the end of what was read
//! of it), so re-running any range replaces the days it touched and never duplicates a row.

use std::collections::{BTreeMap, BTreeSet, HashMap};

use agentrep_lake::datasets::{LaunchObservationRow, LaunchRow, TokenBuyRow};
use alloy::primitives::aliases::U160;
use alloy::primitives::{Address, B256, U256};
use alloy::rpc::types::{Filter, Log};
use alloy::sol_types::SolEvent;
use chrono::{DateTime, NaiveDate, Utc};
use serde::{Deserialize, Serialize};

use super::merge::{read_all, replace_range};
use super::range::{self, BlockCursor, BlockRange, MAX_BLOCKS_PER_SECOND, midnight};
use super::{RunContext, RunReport, Source, SourceName, day_of, hex_address, ts};
use crate::chain::Chain;
use crate::chain::events::{CoinCreatedV4, Swap, TokenCreated, Transfer};

/// What `creator_holding` divides the creator's balance by: 1e28 wei, the creator's allocation
/// in the launch encoding (the factory mints 10 % of the fixed 100B × 1e18 supply to `tokenAdmin`),
/// so 1.0 = the creator holds its whole allocation. On mainnet a Clanker v4 creator's allocation
/// comes through extensions (vaults, airdrops) and may differ; reading each launch's own is left.
pub const CREATOR_ALLOCATION_WEI: f64 = 1e28;

/// 2^96, the fixed-point scale of `sqrtPriceX96`.
const Q96: f64 = 79_228_162_514_264_337_593_543_950_336.0;

/// Platform name of Clanker launches (the only ones observed).
const CLANKER: &str = "clanker";

/// `(sqrtPriceX96 / 2^96)^2`: the pool's price as the Swap event carries it.
pub fn price_of(sqrt_price_x96: U160) -> f64 {
    let root = f64::from(sqrt_price_x96) / Q96;
    root * root
}

/// Wei in a whole token (18 decimals, as Clanker tokens have).
const WEI_PER_TOKEN: f64 = 1e18;

/// A creator's balance as a share of [`CREATOR_ALLOCATION_WEI`].
pub fn creator_holding(balance: U256) -> f64 {
    f64::from(balance) / CREATOR_ALLOCATION_WEI
}

/// The launches job's checkpoint: its block cursor and the tokens' states.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct LaunchesCheckpoint {
    /// The blocks read (flattened: a checkpoint written before observations, a bare cursor,
    /// still reads, with no states).
    #[serde(flatten)]
    pub cursor: BlockCursor,
    /// Every Clanker token's state at the start of a day.
    #[serde(default)]
    pub pools: Option<PoolStates>,
}

/// The Clanker tokens' states at 00:00 UTC of `day`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct PoolStates {
    /// The day at whose start the states hold.
    pub day: NaiveDate,
    /// The first block at or after that midnight: the states fold every block before it.
    pub block: u64,
    /// Every Clanker token launched before `block`.
    pub tokens: BTreeMap<Address, TokenState>,
}

/// One token's state.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct TokenState {
    /// Its pool (TokenCreated `poolId`).
    pub pool_id: B256,
    /// Its creator (`tokenAdmin`).
    pub creator: Address,
    /// Launch block time, Unix seconds.
    pub launched_at: i64,
    /// Balances from every Transfer so far.
    pub holdings: Holdings,
    /// The pool's last Swap so far.
    pub last_swap: Option<LastSwap>,
}

impl TokenState {
    /// A token at its launch: no transfers, no swaps yet.
    pub fn launched(pool_id: B256, creator: Address, launched_at: i64) -> Self {
        Self { pool_id, creator, launched_at, holdings: Holdings::default(), last_swap: None }
    }
}

/// What a Swap leaves in the pool's state.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub struct LastSwap {
    /// `sqrtPriceX96` after the swap.
    pub sqrt_price_x96: U160,
    /// In-range liquidity after the swap.
    pub liquidity: u128,
}

/// Token balances (positive ones only; the zero address never holds).
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(transparent)]
pub struct Holdings(BTreeMap<Address, U256>);

impl Holdings {
    /// Applies one Transfer: a mint (from 0x0) debits nobody, a burn (to 0x0) credits nobody.
    /// Returns false when the sender held less than it sent (a token whose events do not add up,
    /// e.g. rebasing or fee-on-transfer); its balance is then 0.
    pub fn transfer(&mut self, from: Address, to: Address, value: U256) -> bool {
        if value.is_zero() {
            return true;
        }
        let mut consistent = true;
        if !from.is_zero() {
            let held = self.0.remove(&from).unwrap_or_default();
            match held.checked_sub(value) {
                Some(left) if !left.is_zero() => {
                    self.0.insert(from, left);
                }
                Some(_) => {}
                None => consistent = false,
            }
        }
        if !to.is_zero() {
            let balance = self.0.entry(to).or_default();
            *balance = balance.saturating_add(value);
        }
        consistent
    }

    /// The balance of `who`.
    pub fn balance(&self, who: &Address) -> U256 {
        self.0.get(who).copied().unwrap_or_default()
    }

    /// Addresses with a positive balance other than `excluded` (and the zero address).
    pub fn holders(&self, excluded: &[Address]) -> u32 {
        let excluded: BTreeSet<&Address> = excluded.iter().collect();
        let held = excluded.iter().filter(|a| self.0.contains_key(**a)).count();
        u32::try_from(self.0.len() - held).unwrap_or(u32::MAX)
    }
}

/// One event of a token, in chain order.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct TokenEvent {
    /// Block time, Unix seconds.
    pub time: i64,
    /// What happened.
    pub what: TokenMove,
}

/// A Transfer of the token or a Swap of its pool.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum TokenMove {
    /// ERC-20 Transfer.
    Transfer {
        /// Sender (0x0 for a mint).
        from: Address,
        /// Recipient (0x0 for a burn).
        to: Address,
        /// Amount, wei.
        value: U256,
    },
    /// PoolManager Swap of the token's pool.
    Swap(LastSwap),
}

/// What [`observe`] gives back.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Observed {
    /// One row per day from `max(first, launch day)` to `last`.
    pub rows: Vec<(NaiveDate, LaunchObservationRow)>,
    /// One row per (day, buyer) with a buy, buyers in address order within a day.
    pub buys: Vec<(NaiveDate, TokenBuyRow)>,
    /// The state at the start of the snapshot day, when the token launched before it.
    pub snapshot: Option<TokenState>,
    /// Transfers whose sender held less than it sent.
    pub inconsistent: u64,
}

/// One token's rows for the days `first..=last`: folds its events (chain order; none before
/// `first`'s midnight nor after `last`) into `state` (its state at the start of `first`) day by
/// day, and keeps a copy of the state at the start of `snapshot_day`.
pub fn observe(
    token: &str,
    state: &mut TokenState,
    events: &[TokenEvent],
    (first, last): (NaiveDate, NaiveDate),
    snapshot_day: NaiveDate,
    pool_manager: Address,
) -> Observed {
    let mut out = Observed::default();
    let excluded = [state.creator, pool_manager];
    let launch_day = day_of(state.launched_at);
    let mut next = 0;
    for day in first.iter_days().take_while(|d| *d <= last) {
        if day == snapshot_day && state.launched_at < midnight(day) {
            out.snapshot = Some(state.clone());
        }
        let mut swaps = 0u32;
        // Buyer → (buys, wei, first buy time).
        let mut buys: BTreeMap<Address, (u32, U256, i64)> = BTreeMap::new();
        while let Some(e) = events.get(next).filter(|e| day_of(e.time) <= day) {
            assert!(day_of(e.time) >= first, "an event before the first day");
            match e.what {
                TokenMove::Transfer { from, to, value } => {
                    if !state.holdings.transfer(from, to, value) {
                        out.inconsistent += 1;
                    }
                    if from == pool_manager && !value.is_zero() && !to.is_zero() && !excluded.contains(&to) {
                        let b = buys.entry(to).or_insert((0, U256::ZERO, e.time));
                        b.0 += 1;
                        b.1 = b.1.saturating_add(value);
                    }
                }
                TokenMove::Swap(s) => {
                    state.last_swap = Some(s);
                    swaps += 1;
                }
            }
            next += 1;
        }
        out.buys.extend(buys.into_iter().map(|(buyer, (n, wei, first_at))| {
            let row = TokenBuyRow {
                token: token.to_owned(),
                buyer: hex_address(&buyer),
                buys: n,
                tokens: f64::from(wei) / WEI_PER_TOKEN,
                first_at: ts(first_at),
            };
            (day, row)
        }));
        if day < launch_day {
            continue;
        }
        let last_swap = state.last_swap;
        out.rows.push((
            day,
            LaunchObservationRow {
                token: token.to_owned(),
                liquidity: last_swap.map_or(0, |s| u64::try_from(s.liquidity).unwrap_or(u64::MAX)),
                swaps,
                holders: state.holdings.holders(&excluded),
                price: last_swap.map_or(0.0, |s| price_of(s.sqrt_price_x96)),
                creator_holding: creator_holding(state.holdings.balance(&state.creator)),
            },
        ));
    }
    out
}

/// The launches job.
#[derive(Debug)]
pub struct Launches;

/// Every log `filter` matches in `[from, to]`, its cost added to the report.
async fn scan(chain: &Chain, filter: &Filter, from: u64, to: u64, report: &mut RunReport) -> anyhow::Result<Vec<Log>> {
    let (logs, stats) = chain.pager().scan(chain.provider(), filter, from, to, |_| {}).await?;
    report.pages += stats.pages;
    report.shrinks += stats.shrinks;
    report.logs += stats.logs;
    Ok(logs)
}

/// Why the stored token states cannot be resumed from (the run rebuilds them and says why).
#[derive(Debug, thiserror::Error)]
enum NotResumable {
    /// No states were stored.
    #[error("no token states yet")]
    NoStates,
    /// The run starts before the block the states were taken at.
    #[error("the run starts at block {start}, before the states' block {states}")]
    StartsBefore {
        /// The run's first block.
        start: u64,
        /// The states' block.
        states: u64,
    },
    /// A reorganisation moved the first block of the states' day.
    #[error("block {block} no longer starts {day}")]
    DayMoved {
        /// The states' block.
        block: u64,
        /// The day it started.
        day: chrono::NaiveDate,
    },
}

/// The stored states, if this run can resume from them; else why not.
async fn resumable(
    chain: &Chain,
    pools: Option<PoolStates>,
    range: &BlockRange,
) -> anyhow::Result<Result<PoolStates, NotResumable>> {
    let Some(p) = pools else { return Ok(Err(NotResumable::NoStates)) };
    if p.block > range.start {
        return Ok(Err(NotResumable::StartsBefore { start: range.start, states: p.block }));
    }
    let start = midnight(p.day);
    let starts_day =
        chain.block_time(p.block).await? >= start && (p.block == 0 || chain.block_time(p.block - 1).await? < start);
    if !starts_day {
        return Ok(Err(NotResumable::DayMoved { block: p.block, day: p.day }));
    }
    Ok(Ok(p))
}

impl Source for Launches {
    const NAME: SourceName = SourceName::Launches;
    type Checkpoint = LaunchesCheckpoint;

    async fn run(
        ctx: &RunContext<'_>,
        checkpoint: LaunchesCheckpoint,
    ) -> anyhow::Result<(LaunchesCheckpoint, RunReport)> {
        let chain = ctx.chain(Self::NAME)?;
        let Some(range) = range::plan(chain, &checkpoint.cursor, &ctx.bounds).await? else {
            return Ok((checkpoint, RunReport::default()));
        };
        let mut report = RunReport {
            blocks: Some((range.start, range.end)),
            notes: vec![
                "launch_observations: liquidity is the last Swap's in-range liquidity L and price the raw pool \
                 ratio, not converted to USD"
                    .into(),
                "launch_observations: Clanker launches only (Zora coins are not observed)".into(),
            ],
            ..RunReport::default()
        };
        let c = &ctx.config.contracts;

        // Where the observations resume: the stored states' day, or the earliest launch known.
        let had_states = checkpoint.pools.is_some();
        let (first_day, work_start, mut tokens) = match resumable(chain, checkpoint.pools, &range).await? {
            Ok(p) => (p.day, p.block, p.tokens),
            Err(why) => {
                let launches = read_all::<LaunchRow>(ctx.lake)?;
                let earliest = launches.iter().filter(|l| l.platform == CLANKER).map(|l| day_of(l.launched_at.secs()));
                let day = earliest.chain([day_of(range.from_time)]).min().expect("one day at least");
                let block = chain.first_block_at_or_after(midnight(day), 0, range.start).await?;
                if had_states {
                    report.notes.push(format!("token states rebuilt from {day}: {why}"));
                }
                (day, block, BTreeMap::new())
            }
        };

        // Launches, from the midnight the observations resume at (the tokens launched since then
        // are not in the states).
        let filter = Filter::new()
            .address(vec![c.clanker_factory, c.zora_factory])
            .event_signature(vec![TokenCreated::SIGNATURE_HASH, CoinCreatedV4::SIGNATURE_HASH]);
        ctx.progress.start("launches: factory events", range.end - work_start + 1);
        let (logs, stats) = chain
            .pager()
            .scan(chain.provider(), &filter, work_start, range.end, |b| ctx.progress.set(b - work_start + 1))
            .await?;
        ctx.progress.finish();
        report.pages += stats.pages;
        report.shrinks += stats.shrinks;
        report.logs += stats.logs;
        let times = chain.block_times(logs.iter().filter_map(|l| l.block_number).collect::<BTreeSet<_>>()).await?;
        let mut rows = Vec::new();
        for log in &logs {
            let at = times[&log.block_number.expect("mined log")];
            if log.address() == c.clanker_factory
                && let Ok(t) = log.log_decode::<TokenCreated>()
            {
                let t = t.inner.data;
                tokens.entry(t.tokenAddress).or_insert_with(|| TokenState::launched(t.poolId, t.tokenAdmin, at));
                rows.push(LaunchRow {
                    token: hex_address(&t.tokenAddress),
                    deployer: hex_address(&t.tokenAdmin),
                    platform: CLANKER.into(),
                    name: t.tokenName,
                    symbol: t.tokenSymbol,
                    launched_at: ts(at),
                });
            } else if log.address() == c.zora_factory
                && let Ok(z) = log.log_decode::<CoinCreatedV4>()
            {
                let z = z.inner.data;
                rows.push(LaunchRow {
                    token: hex_address(&z.coin),
                    deployer: hex_address(&z.payoutRecipient),
                    platform: "zora".into(),
                    name: z.name,
                    symbol: z.symbol,
                    launched_at: ts(at),
                });
            }
        }
        let from = ts(chain.block_time(work_start).await?);
        let (_, to) = range.times();
        let (launch_days, n) = replace_range(
            ctx.lake,
            rows,
            from,
            to,
            |r| r.launched_at,
            |a, b| (a.launched_at, &a.token).cmp(&(b.launched_at, &b.token)),
        )?;
        report.rows += n;

        // The states to keep: at the start of the day of the earliest block the next run can
        // rewind to, so that it never re-reads a block folded into them.
        let last_day = day_of(range.to_time);
        let rewind = (range.end + 1).saturating_sub(chain.config().reorg_depth + MAX_BLOCKS_PER_SECOND).max(work_start);
        let snapshot_day = day_of(chain.block_time(rewind).await?).max(first_day);
        let snapshot_block = chain.first_block_at_or_after(midnight(snapshot_day), work_start, rewind).await?;

        // Pool and token events of every token, a topic batch at a time.
        let mut by_day: BTreeMap<NaiveDate, Vec<LaunchObservationRow>> =
            first_day.iter_days().take_while(|d| *d <= last_day).map(|d| (d, Vec::new())).collect();
        let mut buys_by_day: BTreeMap<NaiveDate, Vec<TokenBuyRow>> = by_day.keys().map(|d| (*d, Vec::new())).collect();
        let mut kept = BTreeMap::new();
        let mut inconsistent = 0u64;
        let list: Vec<Address> = tokens.keys().copied().collect();
        ctx.progress.start("launches: pools and holders", list.len() as u64);
        let mut done = 0u64;
        for batch in list.chunks(chain.config().topic_batch.max(1)) {
            let pools: HashMap<B256, Address> = batch.iter().map(|t| (tokens[t].pool_id, *t)).collect();
            let swaps = Filter::new()
                .address(c.pool_manager)
                .event_signature(Swap::SIGNATURE_HASH)
                .topic1(pools.keys().copied().collect::<Vec<B256>>());
            let transfers = Filter::new().address(batch.to_vec()).event_signature(Transfer::SIGNATURE_HASH);
            let mut logs = scan(chain, &swaps, work_start, range.end, &mut report).await?;
            logs.extend(scan(chain, &transfers, work_start, range.end, &mut report).await?);
            logs.sort_by_key(|l| (l.block_number, l.log_index));
            let times = chain.block_times(logs.iter().filter_map(|l| l.block_number).collect::<BTreeSet<_>>()).await?;
            let mut events: HashMap<Address, Vec<TokenEvent>> = HashMap::new();
            for log in &logs {
                let time = times[&log.block_number.expect("mined log")];
                if log.address() == c.pool_manager {
                    let Ok(s) = log.log_decode::<Swap>() else { continue };
                    let s = s.inner.data;
                    if let Some(token) = pools.get(&s.id) {
                        let swap = LastSwap { sqrt_price_x96: s.sqrtPriceX96, liquidity: s.liquidity };
                        events.entry(*token).or_default().push(TokenEvent { time, what: TokenMove::Swap(swap) });
                    }
                } else if let Ok(t) = log.log_decode::<Transfer>() {
                    let Transfer { from, to, value } = t.inner.data;
                    let what = TokenMove::Transfer { from, to, value };
                    events.entry(log.address()).or_default().push(TokenEvent { time, what });
                }
            }
            for token in batch {
                let mut state = tokens.remove(token).expect("listed token");
                let seen = events.get(token).map_or(&[][..], Vec::as_slice);
                let observed =
                    observe(&hex_address(token), &mut state, seen, (first_day, last_day), snapshot_day, c.pool_manager);
                inconsistent += observed.inconsistent;
                for (day, row) in observed.rows {
                    by_day.entry(day).or_default().push(row);
                }
                for (day, row) in observed.buys {
                    buys_by_day.entry(day).or_default().push(row);
                }
                if let Some(s) = observed.snapshot {
                    kept.insert(*token, s);
                }
            }
            done += batch.len() as u64;
            ctx.progress.set(done);
        }
        ctx.progress.finish();
        if inconsistent > 0 {
            report
                .notes
                .push(format!("{inconsistent} token transfers sent more than the sender held (balances floored at 0)"));
        }
        let mut days: BTreeSet<NaiveDate> = launch_days.into_iter().collect();
        for (day, mut rows) in by_day {
            rows.sort_by(|a, b| a.token.cmp(&b.token));
            report.rows += rows.len() as u64;
            ctx.lake.write_partition(day, &rows)?;
            days.insert(day);
        }
        for (day, mut rows) in buys_by_day {
            rows.sort_by(|a, b| (&a.token, &a.buyer).cmp(&(&b.token, &b.buyer)));
            report.rows += rows.len() as u64;
            ctx.lake.write_partition(day, &rows)?;
        }
        report.days = days.into_iter().collect();
        let pools = PoolStates { day: snapshot_day, block: snapshot_block, tokens: kept };
        Ok((LaunchesCheckpoint { cursor: range.cursor(), pools: Some(pools) }, report))
    }

    fn coverage(checkpoint: &LaunchesCheckpoint) -> (Option<DateTime<Utc>>, Option<u64>) {
        checkpoint.cursor.coverage()
    }
}

#[cfg(test)]
mod tests {
    use alloy::primitives::address;

    use super::*;

    const PM: Address = address!("0x498581fF718922c3f8e6A244956aF099B2652b2b");
    const CREATOR: Address = address!("0x00000000000000000000000000000000000000c1");
    const A: Address = address!("0x00000000000000000000000000000000000000a1");
    const B: Address = address!("0x00000000000000000000000000000000000000b1");
    const DAY: i64 = 86_400;
    /// 2026-11-01 00:00:00 UTC.
    const D0: i64 = 1_793_491_200;

    fn wei(tokens: u64) -> U256 {
        U256::from(tokens) * U256::from(10u64).pow(U256::from(18))
    }

    fn sqrt_of(price: f64) -> U160 {
        // As the replay encodes it: floor(sqrt(price) · 2^96), exact in u128 for these prices.
        U160::from((price.sqrt() * Q96) as u128)
    }

    fn transfer(time: i64, from: Address, to: Address, value: U256) -> TokenEvent {
        TokenEvent { time, what: TokenMove::Transfer { from, to, value } }
    }

    fn swap(time: i64, price: f64, liquidity: u128) -> TokenEvent {
        TokenEvent { time, what: TokenMove::Swap(LastSwap { sqrt_price_x96: sqrt_of(price), liquidity }) }
    }

    fn date(secs: i64) -> NaiveDate {
        day_of(secs)
    }

    #[test]
    fn prices_decode_from_sqrt_price_x96() {
        let one = U160::from(1u128 << 96);
        assert_eq!(price_of(one), 1.0);
        for price in [0.000_123_4, 0.0025, 1.5, 3_000.0] {
            let back = price_of(sqrt_of(price));
            assert!((back / price - 1.0).abs() < 1e-12, "{price} → {back}");
        }
        // Beyond u128 (a pool whose currency1 is worth far less than currency0) does not panic.
        let huge = U160::from(U256::from(1u8) << 140);
        assert!((price_of(huge) / 2f64.powi(88) - 1.0).abs() < 1e-12);
        assert_eq!(creator_holding(wei(10_000_000_000)), 1.0);
        assert_eq!(creator_holding(wei(200_000_000)), 0.02);
    }

    #[test]
    fn holders_count_positive_balances_except_the_creator_and_the_pool_manager() {
        let mut h = Holdings::default();
        let excluded = [CREATOR, PM];
        // The launch mints: 10 % to the creator, the rest to the PoolManager.
        assert!(h.transfer(Address::ZERO, CREATOR, wei(10_000_000_000)));
        assert!(h.transfer(Address::ZERO, PM, wei(90_000_000_000)));
        assert_eq!(h.holders(&excluded), 0, "mints make no holder of the creator, the pool or 0x0");
        assert!(h.transfer(PM, A, wei(1_000)));
        assert!(h.transfer(CREATOR, B, U256::from(1u8)));
        assert_eq!(h.holders(&excluded), 2);
        assert!(h.transfer(A, A, wei(1_000)), "a self-transfer changes nothing");
        assert_eq!(h.balance(&A), wei(1_000));
        // A sells out: no longer a holder.
        assert!(h.transfer(A, PM, wei(1_000)));
        assert_eq!(h.holders(&excluded), 1);
        assert_eq!(h.balance(&A), U256::ZERO);
        // A burn debits the sender and credits nobody; the zero address never holds.
        assert!(h.transfer(B, Address::ZERO, U256::from(1u8)));
        assert_eq!(h.holders(&excluded), 0);
        assert_eq!(h.balance(&Address::ZERO), U256::ZERO);
        assert_eq!(h.balance(&CREATOR), wei(10_000_000_000) - U256::from(1u8));
        // Sending more than held is flagged and floors the sender at 0.
        assert!(!h.transfer(A, B, U256::from(5u8)));
        assert_eq!(h.balance(&A), U256::ZERO);
        assert_eq!(h.holders(&excluded), 1);
        // Zero-value transfers change nothing.
        assert!(h.transfer(A, B, U256::ZERO));
        assert_eq!(h.holders(&[]), 3, "creator, PoolManager and B");
    }

    /// A token launched on day 0 at 09:00: trades on day 0 and day 1 (one swap right before
    /// midnight, one right at it), quiet on day 2, the creator dumps on day 3 without a swap.
    fn history() -> (TokenState, Vec<TokenEvent>) {
        let launched = D0 + 9 * 3_600;
        let state = TokenState::launched(B256::repeat_byte(7), CREATOR, launched);
        let events = vec![
            transfer(launched, Address::ZERO, CREATOR, wei(10_000_000_000)),
            transfer(launched, Address::ZERO, PM, wei(90_000_000_000)),
            swap(D0 + 20 * 3_600, 0.001, 5_000_000_000),
            transfer(D0 + 20 * 3_600, PM, A, wei(1_000)),
            swap(D0 + DAY - 1, 0.002, 6_000_000_000),
            transfer(D0 + DAY - 1, PM, B, wei(10)),
            swap(D0 + DAY, 0.003, 7_000_000_000),
            transfer(D0 + DAY, A, PM, wei(1_000)),
            transfer(D0 + 3 * DAY + 5, CREATOR, PM, wei(9_800_000_000)),
        ];
        (state, events)
    }

    #[test]
    fn days_are_bucketed_by_block_time_and_quiet_days_carry_the_last_swap() {
        let (mut state, events) = history();
        let days = (date(D0 - DAY), date(D0 + 3 * DAY));
        let out = observe("0xt", &mut state, &events, days, date(D0 + 2 * DAY), PM);
        let rows: Vec<_> = out.rows.iter().map(|(d, r)| (*d, r.swaps, r.holders, r.liquidity)).collect();
        assert_eq!(
            rows,
            vec![
                (date(D0), 2, 2, 6_000_000_000),
                (date(D0 + DAY), 1, 1, 7_000_000_000),
                (date(D0 + 2 * DAY), 0, 1, 7_000_000_000),
                (date(D0 + 3 * DAY), 0, 1, 7_000_000_000),
            ],
            "no row before the launch day; 23:59:59 is day 0, 00:00:00 day 1"
        );
        assert!((out.rows[0].1.price / 0.002 - 1.0).abs() < 1e-12);
        assert!((out.rows[2].1.price / 0.003 - 1.0).abs() < 1e-12, "a quiet day keeps the last price");
        assert_eq!(out.rows[2].1.creator_holding, 1.0);
        assert!((out.rows[3].1.creator_holding - 0.02).abs() < 1e-15);
        assert_eq!(out.inconsistent, 0);
        let snapshot = out.snapshot.expect("launched before the snapshot day");
        assert_eq!(snapshot.last_swap.map(|s| s.liquidity), Some(7_000_000_000));
        assert_eq!(snapshot.holdings.balance(&B), wei(10));
    }

    #[test]
    fn buys_are_the_pool_managers_payouts_to_anyone_but_the_creator() {
        let (mut state, mut events) = history();
        // A second buy by A on day 0, a creator buy and a 0-value payout: not buys.
        events.insert(4, transfer(D0 + 21 * 3_600, PM, A, wei(500)));
        events.insert(5, transfer(D0 + 21 * 3_600, PM, CREATOR, wei(7)));
        events.insert(6, transfer(D0 + 21 * 3_600, PM, B, U256::ZERO));
        let out = observe("0xt", &mut state, &events, (date(D0), date(D0 + 3 * DAY)), date(D0 + 3 * DAY), PM);
        let buys: Vec<_> =
            out.buys.iter().map(|(d, r)| (*d, r.buyer.clone(), r.buys, r.tokens, r.first_at.secs())).collect();
        assert_eq!(
            buys,
            vec![
                (date(D0), hex_address(&A), 2, 1_500.0, D0 + 20 * 3_600),
                (date(D0), hex_address(&B), 1, 10.0, D0 + DAY - 1),
            ],
            "A sold on day 1 (to the PoolManager): a sale is no buy"
        );
    }

    #[test]
    fn resuming_from_a_snapshot_gives_the_same_days() {
        let (state, events) = history();
        let end = date(D0 + 3 * DAY);
        let mut whole = state.clone();
        let all = observe("0xt", &mut whole, &events, (date(D0), end), date(D0 + 2 * DAY), PM);
        // First run reads up to day 2 and keeps the state at day 1's start; the second run
        // resumes there with the events from day 1 on.
        let mut early = state.clone();
        let before: Vec<_> = events.iter().copied().filter(|e| e.time < D0 + 2 * DAY + 3_600).collect();
        let first = observe("0xt", &mut early, &before, (date(D0), date(D0 + 2 * DAY)), date(D0 + DAY), PM);
        let mut resumed = first.snapshot.expect("kept");
        let after: Vec<_> = events.iter().copied().filter(|e| e.time >= D0 + DAY).collect();
        let second = observe("0xt", &mut resumed, &after, (date(D0 + DAY), end), end, PM);
        assert_eq!(&all.rows[1..], &second.rows[..]);
        assert_eq!(&all.rows[..3], &first.rows[..]);
        assert_eq!(resumed, whole);
        // A token launched on the snapshot day is not kept (the next run finds its launch again).
        let mut fresh = state.clone();
        assert!(observe("0xt", &mut fresh, &events, (date(D0), end), date(D0), PM).snapshot.is_none());
    }

    #[test]
    fn checkpoints_round_trip_and_read_the_old_bare_cursor() {
        let old: LaunchesCheckpoint =
            serde_json::from_str(r#"{"next_block": 12, "covered_until": 1700000000}"#).expect("old checkpoint reads");
        assert_eq!(old.cursor, BlockCursor { next_block: Some(12), covered_until: Some(1_700_000_000) });
        assert_eq!(old.pools, None);
        let (mut state, events) = history();
        observe("0xt", &mut state, &events, (date(D0), date(D0 + 3 * DAY)), date(D0), PM);
        let checkpoint = LaunchesCheckpoint {
            cursor: BlockCursor { next_block: Some(99), covered_until: Some(D0 + 4 * DAY) },
            pools: Some(PoolStates { day: date(D0 + 3 * DAY), block: 90, tokens: BTreeMap::from([(A, state)]) }),
        };
        let json = serde_json::to_string(&checkpoint).expect("serializes");
        let back: LaunchesCheckpoint = serde_json::from_str(&json).expect("deserializes");
        assert_eq!(back, checkpoint);
    }
}
