//! The ingest's chain client under the faults real RPC providers produce, through [`FaultyRpc`]
//! (a fault-injecting proxy in front of anvil, 127.0.0.1 only): every fault must fire (its count is
//! asserted) and the ingest must still read exactly what anvil holds. Also the fixture's own
//! behaviour (what a client sees of each fault) and the reorg helper.
//!
//! Every test starts its own anvil with a small world ([`world`]): USDC (the FiatToken double at
//! its Base address) minted to 8 senders, then 40 blocks of 10 transfers each, 7 empty blocks
//! before each (anvil mines empty blocks cheaply): 408 Transfer logs over 321 blocks.

mod ingest;
mod proxy;
mod reorg;

use std::collections::BTreeMap;

use agentrep_ingest::chain::Chain;
use agentrep_ingest::config::ChainConfig;
use agentrep_tests::chain::anvil::{Anvil, AnvilOptions};
use agentrep_tests::chain::contracts::{IFiatToken, PLACED, USDC};
use agentrep_tests::fixtures::{Exchange, FaultyRpc};
use alloy::primitives::{Address, B256, U256};
use alloy::providers::Provider;
use alloy::rpc::types::{Filter, Log};
use alloy::sol_types::{SolCall, SolEvent};
use serde_json::{Value, json};

/// Genesis time of every test chain.
const GENESIS: i64 = 1_750_000_000;
/// Senders of the world's transfers.
const SENDERS: u8 = 8;
/// Blocks with transfers (after the minting block).
const BUSY_BLOCKS: u64 = 40;
/// Transfers per busy block.
const TRANSFERS_PER_BLOCK: u64 = 10;
/// Empty blocks before each busy block.
const GAP: u64 = 7;
/// USDC each sender is minted.
const MINTED: u64 = 1_000_000_000_000;

/// A test chain: anvil with the world played.
struct World {
    anvil: Anvil,
    /// The head block.
    head: u64,
    /// Every sender's next nonce.
    nonces: Vec<u64>,
    /// Transaction hashes by block.
    txs: BTreeMap<u64, Vec<B256>>,
    /// The head block's timestamp.
    head_time: i64,
}

fn sender(i: u8) -> Address {
    let mut a = [0u8; 20];
    a[0] = 0x5e;
    a[19] = i + 1;
    Address::from(a)
}

fn recipient(n: u64) -> Address {
    let mut a = [0u8; 20];
    a[0] = 0x7e;
    a[12..].copy_from_slice(&n.to_be_bytes());
    Address::from(a)
}

/// An `eth_sendTransaction` of a USDC call, every field given (`rank` orders a block's transactions
/// by fee).
fn usdc_tx(from: Address, nonce: u64, data: Vec<u8>, rank: u64) -> Value {
    json!({
        "from": from,
        "to": USDC,
        "data": format!("0x{}", hex::encode(data)),
        "gas": "0x30d40",
        "gasPrice": format!("{:#x}", 2_000_000_000u64 + rank),
        "nonce": format!("{nonce:#x}"),
        "value": "0x0",
    })
}

/// A USDC transfer of `value` from sender `s` to `to`.
fn transfer(world: &mut World, s: u8, to: Address, value: u64, rank: u64) -> Value {
    let nonce = world.nonces[s as usize];
    world.nonces[s as usize] += 1;
    let data = IFiatToken::transferCall { to, value: U256::from(value) }.abi_encode();
    usdc_tx(sender(s), nonce, data, rank)
}

/// Sends `txs` in one batch and mines them in one block at `t`; returns their hashes.
async fn mine_block(world: &mut World, txs: &[Value], t: i64) -> Vec<B256> {
    let calls: Vec<(&'static str, Value)> = txs.iter().map(|tx| ("eth_sendTransaction", json!([tx]))).collect();
    let hashes = world.anvil.batch(&calls).await.expect("transactions accepted");
    world.anvil.mine_at(t).await.expect("mines");
    world.head += 1;
    world.head_time = t;
    let hashes: Vec<B256> = hashes.into_iter().map(|h| serde_json::from_value(h).expect("tx hash")).collect();
    world.txs.insert(world.head, hashes.clone());
    hashes
}

/// Starts anvil (keeping `keep_states` states for rollbacks) and plays the world onto it.
async fn world(keep_states: Option<u32>) -> World {
    let anvil =
        Anvil::start_with(&AnvilOptions { genesis_time: Some(GENESIS), keep_states, ..AnvilOptions::default() })
            .expect("anvil starts");
    anvil.set_code(USDC, &PLACED[0].runtime_code()).await.expect("places USDC");
    for s in 0..SENDERS {
        anvil.set_balance(sender(s), U256::from(10u128.pow(21))).await.expect("funds a sender");
    }
    let mut world =
        World { anvil, head: 0, nonces: vec![0; SENDERS as usize], txs: BTreeMap::new(), head_time: GENESIS };
    let mints: Vec<Value> = (0..SENDERS)
        .map(|s| {
            world.nonces[s as usize] = 1;
            let data = IFiatToken::mintCall { to: sender(s), amount: U256::from(MINTED) }.abi_encode();
            usdc_tx(sender(s), 0, data, 0)
        })
        .collect();
    mine_block(&mut world, &mints, GENESIS + 10).await;
    for b in 0..BUSY_BLOCKS {
        // GAP empty blocks, a second apart, then a busy block two seconds later.
        let _: Value = world.anvil.rpc("anvil_mine", (format!("{GAP:#x}"), "0x1")).await.expect("mines empty blocks");
        world.head += GAP;
        let latest: Value = world.anvil.rpc("eth_getBlockByNumber", ("latest", false)).await.expect("head");
        let t = i64::from_str_radix(latest["timestamp"].as_str().expect("time").trim_start_matches("0x"), 16)
            .expect("hex time")
            + 2;
        let txs: Vec<Value> = (0..TRANSFERS_PER_BLOCK)
            .map(|j| {
                let n = b * TRANSFERS_PER_BLOCK + j;
                transfer(
                    &mut world,
                    (n % u64::from(SENDERS)) as u8,
                    recipient(1_000 + n),
                    1 + n,
                    TRANSFERS_PER_BLOCK - j,
                )
            })
            .collect();
        mine_block(&mut world, &txs, t).await;
    }
    assert_eq!(world.anvil.block_number().await.expect("head"), world.head, "the world's head");
    world
}

/// USDC's Transfer events.
fn transfers() -> Filter {
    Filter::new().address(USDC).event_signature(IFiatToken::Transfer::SIGNATURE_HASH)
}

/// Every Transfer log of blocks `1..=head`, straight from anvil (which has no range limit).
async fn direct_logs(world: &World) -> Vec<Log> {
    world.anvil.provider().get_logs(&transfers().from_block(1).to_block(world.head)).await.expect("eth_getLogs")
}

/// A first `eth_getLogs` window wider than the world's chain (one page when nothing refuses it).
const WIDE: u64 = 2_000;
/// A window that reads the world's chain in about ten pages (it grows to twice this).
const PAGED: u64 = 32;

/// The ingest's chain settings for a client of `url`: short timeout, short backoff, a first
/// `eth_getLogs` window of `log_window` blocks growing to twice that.
fn chain_config(url: &str, log_window: u64) -> ChainConfig {
    ChainConfig {
        rpc_urls: vec![url.parse().expect("proxy URL")],
        chain_id: 8453,
        use_finalized: false,
        confirmations: 0,
        log_window,
        max_log_window: 2 * log_window,
        request_timeout_ms: 500,
        max_retries: 6,
        initial_backoff_ms: 10,
        concurrency: 4,
        ..ChainConfig::default()
    }
}

/// The ingest's client through `proxy`, with a first `eth_getLogs` window of `log_window` blocks.
async fn connect(proxy: &FaultyRpc, log_window: u64) -> Chain {
    Chain::connect(&chain_config(&proxy.url(), log_window)).await.expect("connects through the proxy")
}

/// The `eth_getLogs` exchanges of a proxy.
fn get_logs(proxy: &FaultyRpc) -> Vec<Exchange> {
    proxy.exchanges().into_iter().filter(|e| e.method == "eth_getLogs").collect()
}
