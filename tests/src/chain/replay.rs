//! Plays a world lake onto a running [`Anvil`]: places the contracts, gives every sender ETH,
//! then mines one block per second of the [`Plan`] (see [`super::plan`] for what each world fact
//! becomes), and checks the chain holds what was planned.
//!
//! Deterministic: the same world on a fresh anvil started at the same genesis time gives the same
//! blocks and block hashes. Within a block the order is forced by gas price (anvil orders its pool
//! by fee: transaction i of n pays `2 gwei + (n − i)` wei) and every transaction carries its
//! nonce and gas, so the order the node receives them in does not matter; a block's transactions
//! go in JSON-RPC batches.

use std::collections::{BTreeMap, HashSet};
use std::time::{Duration, Instant};

use agentrep_lake::Lake;
use alloy::primitives::{Address, B256, Bytes, U256};
use alloy::providers::Provider;
use alloy::rpc::types::{Filter, Log};
use alloy::sol_types::SolCall;
use anyhow::{Context, bail, ensure};
use serde_json::{Value, json};

use super::anvil::Anvil;
use super::contracts::{CLANKER_FACTORY, IClankerFactory, PLACED};
use super::plan::{self, AddressMap, Plan, PlannedTx, ReplayCounts};

/// Base gas price of replayed transactions (wei); the n-th of a block adds `len − n` wei.
pub const GAS_PRICE: u128 = 2_000_000_000;
/// ETH every sender gets (wei).
pub const SENDER_ETH: u128 = 1_000_000 * 10u128.pow(18);

/// How to replay.
#[derive(Debug, Clone)]
pub struct ReplayOptions {
    /// Check afterwards that every block has its time and transaction count and that the chain
    /// holds exactly the planned logs (per contract and topic0).
    pub verify: bool,
    /// Most transactions per JSON-RPC batch.
    pub batch_size: usize,
    /// Print progress to stderr every this many blocks (0: never).
    pub progress_every: usize,
    /// Play only the plan's first this many blocks (a prefix, as a determinism check needs; it
    /// cannot be verified, since the planned logs are the whole plan's); `None` plays every block.
    pub blocks: Option<usize>,
}

impl Default for ReplayOptions {
    fn default() -> Self {
        Self { verify: true, batch_size: 256, progress_every: 0, blocks: None }
    }
}

/// A replayed world.
#[derive(Debug, Clone)]
pub struct Replay {
    /// World address ↔ chain address.
    pub addresses: AddressMap,
    /// Actors the replay added (minter, router, traders): chain address → label.
    pub synthetic: BTreeMap<Address, String>,
    /// World token → chain token.
    pub tokens: BTreeMap<String, Address>,
    /// Chain token → its pool id (the Swap events' `id`).
    pub pool_ids: BTreeMap<Address, B256>,
    /// World agent id → chain agent id.
    pub agents: BTreeMap<u64, u64>,
    /// (world agent id, world client lowercase, world feedback index) → chain feedback index.
    pub feedback_indices: BTreeMap<(u64, String, u64), u64>,
    /// What was played and left out.
    pub counts: ReplayCounts,
    /// Genesis block timestamp.
    pub genesis_time: i64,
    /// Timestamp of every block played, in order (block `i + 1` has `block_times[i]`).
    pub block_times: Vec<i64>,
    /// Transactions sent.
    pub transactions: u64,
    /// Number of the head block after the replay.
    pub head_number: u64,
    /// Hash of the head block after the replay.
    pub head_hash: B256,
    /// Logs planned per (contract, topic0) (all found on chain when verified).
    pub expected_logs: BTreeMap<(Address, B256), u64>,
    /// Wall time of the whole replay.
    pub elapsed: Duration,
    /// ... of which planning.
    pub planning: Duration,
    /// ... of which verification.
    pub verifying: Duration,
}

impl Replay {
    /// A world value in chain terms: a mapped world address → its chain address, a world token →
    /// its chain token (both lowercase `0x…`); anything else (contracts, the zero address,
    /// unknown addresses, other text) unchanged.
    pub fn translate(&self, world: &str) -> String {
        let w = world.trim().to_ascii_lowercase();
        if let Some(t) = self.tokens.get(&w) {
            return lower(*t);
        }
        match self.addresses.chain(&w) {
            Some(a) => lower(a),
            None => world.to_owned(),
        }
    }

    /// The inverse of [`Replay::translate`] for addresses: a chain address → the world address or
    /// token (lowercase), if it maps to one.
    pub fn untranslate(&self, chain: Address) -> Option<String> {
        if let Some(w) = self.addresses.world(chain) {
            return Some(w.to_owned());
        }
        self.tokens.iter().find(|(_, c)| **c == chain).map(|(w, _)| w.clone())
    }

    /// The chain address of a world address, if mapped.
    pub fn chain_address(&self, world: &str) -> Option<Address> {
        self.addresses.chain(world)
    }
}

fn lower(a: Address) -> String {
    format!("{a:#x}")
}

/// Reads the world, plans it and plays it onto `anvil`, whose head must be its genesis block,
/// dated before the first fact (use [`plan::plan`] and [`Plan::genesis_time`] to start it).
///
/// # Errors
/// When the lake cannot be read, anvil refuses a call, or (with `verify`) the chain does not hold
/// what was planned.
pub async fn replay(world_lake: &Lake, anvil: &Anvil, opts: &ReplayOptions) -> anyhow::Result<Replay> {
    let started = Instant::now();
    let plan = plan::plan(world_lake)?;
    let planning = started.elapsed();
    let mut out = play(&plan, anvil, opts).await?;
    out.planning = planning;
    out.elapsed = started.elapsed();
    Ok(out)
}

/// The genesis time a replay of this world needs: one minute before its first fact.
///
/// # Errors
/// When the lake cannot be read.
pub fn genesis_time(world_lake: &Lake) -> anyhow::Result<i64> {
    Ok(plan::plan(world_lake)?.genesis_time())
}

/// Starts anvil at the plan's genesis time and replays the world onto it.
///
/// # Errors
/// As [`replay`].
pub async fn replay_on_new_anvil(world_lake: &Lake, opts: &ReplayOptions) -> anyhow::Result<(Anvil, Replay)> {
    let started = Instant::now();
    let plan = plan::plan(world_lake)?;
    let planning = started.elapsed();
    let anvil = Anvil::start_with(&super::anvil::AnvilOptions {
        genesis_time: Some(plan.genesis_time()),
        ..Default::default()
    })?;
    let mut out = play(&plan, &anvil, opts).await?;
    out.planning = planning;
    out.elapsed = started.elapsed();
    Ok((anvil, out))
}

/// Plays a plan onto `anvil`.
///
/// # Errors
/// As [`replay`].
pub async fn play(plan: &Plan, anvil: &Anvil, opts: &ReplayOptions) -> anyhow::Result<Replay> {
    let started = Instant::now();
    let provider = anvil.provider();
    let head = provider.get_block_number().await?;
    let genesis: Value = anvil.rpc("eth_getBlockByNumber", ("0x0", false)).await?;
    let genesis_time = hex_i64(&genesis["timestamp"]).context("genesis timestamp")?;
    ensure!(head == 0, "anvil is at block {head}: the replay needs a fresh chain");
    if let Some(first) = plan.first_time() {
        ensure!(genesis_time < first, "genesis time {genesis_time} is not before the first fact at {first}");
    }

    // Contracts (and a check that the factory deploys where the plan says).
    for c in PLACED {
        anvil.set_code(c.address, &c.runtime_code()).await.with_context(|| format!("placing {}", c.name))?;
    }
    check_predictions(plan, anvil).await?;

    // Blocks. A sender gets its ETH right before its first block (every account is in the state
    // trie anvil rebuilds per block, so accounts are added no earlier than needed).
    let balance = U256::from(SENDER_ETH);
    let mut funded: HashSet<Address> = HashSet::new();
    let played = &plan.blocks[..opts.blocks.unwrap_or(usize::MAX).min(plan.blocks.len())];
    ensure!(!opts.verify || played.len() == plan.blocks.len(), "only a whole replay can be verified");
    let mut block_times = Vec::with_capacity(played.len());
    let mut transactions = 0u64;
    for (i, block) in played.iter().enumerate() {
        let n = block.txs.len();
        let calls: Vec<(&'static str, Value)> = block
            .txs
            .iter()
            .filter(|tx| funded.insert(tx.from))
            .map(|tx| ("anvil_setBalance", json!([tx.from, balance])))
            .collect();
        for chunk in calls.chunks(opts.batch_size.max(1)) {
            batch(anvil, chunk).await.context("anvil_setBalance")?;
        }
        for (chunk_start, chunk) in (0..).step_by(opts.batch_size.max(1)).zip(block.txs.chunks(opts.batch_size.max(1)))
        {
            let calls: Vec<(&'static str, Value)> = chunk
                .iter()
                .enumerate()
                .map(|(j, tx)| ("eth_sendTransaction", json!([tx_json(tx, n - (chunk_start + j))])))
                .collect();
            batch(anvil, &calls).await.with_context(|| format!("sending the transactions of block {}", i + 1))?;
        }
        anvil.mine_at(block.t).await.with_context(|| format!("mining block {} at {}", i + 1, block.t))?;
        block_times.push(block.t);
        transactions += n as u64;
        if opts.progress_every > 0 && (i + 1) % opts.progress_every == 0 {
            eprintln!(
                "replay: {}/{} blocks, {transactions} transactions, {:.1} s",
                i + 1,
                played.len(),
                started.elapsed().as_secs_f64()
            );
        }
    }

    let head_number = provider.get_block_number().await?;
    ensure!(head_number == played.len() as u64, "head is block {head_number}, planned {}", played.len());
    let verify_started = Instant::now();
    if opts.verify {
        verify(plan, anvil).await?;
    }
    let verifying = verify_started.elapsed();
    let head_block: Value = anvil.rpc("eth_getBlockByNumber", (format!("0x{head_number:x}"), false)).await?;
    let head_hash: B256 = serde_json::from_value(head_block["hash"].clone()).context("head hash")?;
    Ok(Replay {
        addresses: plan.addresses.clone(),
        synthetic: plan.synthetic.clone(),
        tokens: plan.tokens.clone(),
        pool_ids: plan.pool_ids.clone(),
        agents: plan.agents.clone(),
        feedback_indices: plan.feedback_indices.clone(),
        counts: plan.counts.clone(),
        genesis_time,
        block_times,
        transactions,
        head_number,
        head_hash,
        expected_logs: plan.expected_logs.clone(),
        elapsed: started.elapsed(),
        planning: Duration::ZERO,
        verifying,
    })
}

/// The JSON of one `eth_sendTransaction` (legacy transaction: every field given, so anvil
/// neither estimates nor picks a nonce).
fn tx_json(tx: &PlannedTx, rank: usize) -> Value {
    json!({
        "from": tx.from,
        "to": tx.to,
        "data": tx.data,
        "gas": format!("0x{:x}", tx.gas),
        "gasPrice": format!("0x{:x}", GAS_PRICE + rank as u128),
        "nonce": format!("0x{:x}", tx.nonce),
        "value": "0x0",
    })
}

fn hex_i64(v: &Value) -> anyhow::Result<i64> {
    let s = v.as_str().context("not a string")?;
    Ok(i64::from_str_radix(s.trim_start_matches("0x"), 16)?)
}

/// Sends calls as one JSON-RPC batch; fails on the first error.
async fn batch(anvil: &Anvil, calls: &[(&'static str, Value)]) -> anyhow::Result<Vec<Value>> {
    if calls.is_empty() {
        return Ok(Vec::new());
    }
    let provider = anvil.provider();
    let mut b = alloy::rpc::client::BatchRequest::new(provider.client());
    let mut waiters = Vec::with_capacity(calls.len());
    for (method, params) in calls {
        waiters.push(b.add_call::<_, Value>(*method, params)?);
    }
    b.send().await?;
    let mut out = Vec::with_capacity(calls.len());
    for (w, (method, params)) in waiters.into_iter().zip(calls) {
        out.push(w.await.with_context(|| format!("{method} {params}"))?);
    }
    Ok(out)
}

/// Checks the factory deploys each launch where the plan computed (CREATE2).
async fn check_predictions(plan: &Plan, anvil: &Anvil) -> anyhow::Result<()> {
    for chunk in plan.launches.chunks(128) {
        let calls: Vec<(&'static str, Value)> = chunk
            .iter()
            .map(|(call, _)| {
                ("eth_call", json!([{ "to": CLANKER_FACTORY, "data": Bytes::from(call.abi_encode()) }, "latest"]))
            })
            .collect();
        let results = batch(anvil, &calls).await.context("predictToken")?;
        for ((call, planned), result) in chunk.iter().zip(results) {
            let bytes: Bytes = serde_json::from_value(result)?;
            let predicted = IClankerFactory::predictTokenCall::abi_decode_returns(&bytes)?;
            ensure!(
                predicted == *planned,
                "token {:?}: the factory predicts {predicted}, the plan computed {planned}",
                call.name
            );
        }
    }
    Ok(())
}

/// Checks every block's time and transaction count, and that the chain's logs are exactly the
/// planned ones per (contract, topic0).
async fn verify(plan: &Plan, anvil: &Anvil) -> anyhow::Result<()> {
    let numbers: Vec<u64> = (1..=plan.blocks.len() as u64).collect();
    for chunk in numbers.chunks(200) {
        let calls: Vec<(&'static str, Value)> =
            chunk.iter().map(|n| ("eth_getBlockByNumber", json!([format!("0x{n:x}"), false]))).collect();
        let blocks = batch(anvil, &calls).await?;
        for (n, b) in chunk.iter().zip(blocks) {
            let planned = &plan.blocks[*n as usize - 1];
            let t = hex_i64(&b["timestamp"])?;
            let txs = b["transactions"].as_array().map_or(0, Vec::len);
            ensure!(t == planned.t, "block {n} has timestamp {t}, planned {}", planned.t);
            ensure!(txs == planned.txs.len(), "block {n} has {txs} transactions, planned {}", planned.txs.len());
        }
    }
    let provider = anvil.provider();
    let mut found: BTreeMap<(Address, B256), u64> = BTreeMap::new();
    let last = plan.blocks.len() as u64;
    let mut from = 1u64;
    while from <= last {
        let to = (from + 4_999).min(last);
        let logs: Vec<Log> = provider.get_logs(&Filter::new().from_block(from).to_block(to)).await?;
        for l in logs {
            if let Some(topic0) = l.topic0() {
                *found.entry((l.address(), *topic0)).or_default() += 1;
            }
        }
        from = to + 1;
    }
    if found != plan.expected_logs {
        let mut diff = Vec::new();
        let keys: std::collections::BTreeSet<_> = found.keys().chain(plan.expected_logs.keys()).collect();
        for k in keys {
            let (f, e) = (found.get(k).copied().unwrap_or(0), plan.expected_logs.get(k).copied().unwrap_or(0));
            if f != e {
                diff.push(format!("{} {}: found {f}, planned {e}", k.0, k.1));
            }
        }
        bail!("the chain's logs differ from the plan:\n{}", diff.join("\n"));
    }
    Ok(())
}
