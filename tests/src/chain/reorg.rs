//! Reorgs on anvil: the last blocks of the chain replaced by other blocks, so a test can ingest,
//! reorg (some logs disappear, others appear) and ingest again.
//!
//! anvil 1.7.1 rolls back with `anvil_rollback(depth)`, which needs the states of the blocks it
//! returns to: start anvil with [`AnvilOptions::keep_states`](super::anvil::AnvilOptions) at least
//! the depth (the harness prunes every state by default). The rolled-back transactions are
//! dropped, not returned to the pool; the new blocks are mined with `evm_mine` at the given
//! timestamps, like every other block of the harness. (`anvil_reorg` picks its own timestamps, and
//! `evm_snapshot` / `evm_revert` need the snapshot taken before the blocks to replace.)

use alloy::primitives::B256;
use anyhow::{Context, bail, ensure};
use serde_json::{Value, json};

use super::anvil::Anvil;

/// A block to mine in place of the replaced ones.
#[derive(Debug, Clone, Default)]
pub struct NewBlock {
    /// Its timestamp (after the fork point's; anvil refuses a time before its parent's).
    pub t: i64,
    /// Its transactions, as `eth_sendTransaction` objects (give `nonce`, `gas` and `gasPrice`: a
    /// replaced sender's nonce is back where it was at the fork point).
    pub txs: Vec<Value>,
}

/// What a [`reorg`] did.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Reorg {
    /// The last block the old and new chains share.
    pub fork_point: u64,
    /// Hashes of the replaced blocks, `fork_point + 1` onwards.
    pub replaced: Vec<B256>,
    /// Hashes of the new blocks, `fork_point + 1` onwards.
    pub mined: Vec<B256>,
    /// The new head's number (`fork_point + mined.len()`).
    pub head: u64,
}

/// Replaces the last `depth` blocks by `blocks` (as many or more or fewer): rolls the chain back to
/// `head − depth`, empties the pool, then sends and mines each new block.
///
/// # Errors
/// When `depth` is 0 or beyond the genesis block, anvil cannot roll back (too few kept states), a
/// transaction is refused, a new block lands at the wrong height, or the first new block is the
/// same as the block it replaces (same transactions and time: not a reorg).
pub async fn reorg(anvil: &Anvil, depth: u64, blocks: &[NewBlock]) -> anyhow::Result<Reorg> {
    let head = anvil.block_number().await?;
    ensure!(depth > 0 && depth <= head, "cannot replace {depth} blocks of a chain whose head is block {head}");
    let fork_point = head - depth;
    let replaced = hashes(anvil, fork_point + 1, head).await?;
    let _: Value = anvil.rpc("anvil_rollback", (depth,)).await.with_context(|| {
        format!(
            "rolling back {depth} blocks (anvil keeps the states it rolls back to only when started with \
             AnvilOptions::keep_states >= {depth})"
        )
    })?;
    let now = anvil.block_number().await?;
    ensure!(now == fork_point, "anvil_rollback({depth}) from block {head} left the head at {now}, not {fork_point}");
    let _: Value = anvil.rpc("anvil_dropAllTransactions", ()).await?;
    for (i, block) in blocks.iter().enumerate() {
        let calls: Vec<(&'static str, Value)> =
            block.txs.iter().map(|tx| ("eth_sendTransaction", json!([tx]))).collect();
        for chunk in calls.chunks(256) {
            anvil.batch(chunk).await.with_context(|| format!("sending the transactions of new block {}", i + 1))?;
        }
        anvil.mine_at(block.t).await.with_context(|| format!("mining new block {} at {}", i + 1, block.t))?;
    }
    let new_head = anvil.block_number().await?;
    let expected = fork_point + blocks.len() as u64;
    ensure!(new_head == expected, "after the reorg the head is block {new_head}, expected {expected}");
    let mined = hashes(anvil, fork_point + 1, new_head).await?;
    if let (Some(old), Some(new)) = (replaced.first(), mined.first())
        && old == new
    {
        bail!(
            "new block {} is the block it replaces ({old}): give it other transactions or another time",
            fork_point + 1
        );
    }
    Ok(Reorg { fork_point, replaced, mined, head: new_head })
}

/// Hashes of blocks `from..=to` (empty when `from > to`).
async fn hashes(anvil: &Anvil, from: u64, to: u64) -> anyhow::Result<Vec<B256>> {
    let calls: Vec<(&'static str, Value)> =
        (from..=to).map(|n| ("eth_getBlockByNumber", json!([format!("{n:#x}"), false]))).collect();
    let mut out = Vec::with_capacity(calls.len());
    for chunk in calls.chunks(200) {
        for block in anvil.batch(chunk).await? {
            out.push(serde_json::from_value(block["hash"].clone()).context("block hash")?);
        }
    }
    Ok(out)
}
