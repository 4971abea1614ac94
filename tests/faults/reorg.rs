//! The reorg helper: ingest, replace the last blocks, ingest again.

use agentrep_ingest::chain::Chain;
use agentrep_tests::chain::anvil::Anvil;
use agentrep_tests::chain::{NewBlock, reorg};
use alloy::primitives::{Address, B256};
use alloy::rpc::types::Log;
use serde_json::Value;

use super::{
    BUSY_BLOCKS, GENESIS, SENDERS, TRANSFERS_PER_BLOCK, WIDE, chain_config, recipient, transfer, transfers, world,
};

/// Every Transfer of blocks `1..=head` read with the ingest's pager.
async fn scan(chain: &Chain, head: u64) -> Vec<Log> {
    chain.pager().scan(chain.provider(), &transfers(), 1, head, |_| {}).await.expect("scans").0
}

fn recipient_of(log: &Log) -> Address {
    Address::from_word(log.topics()[2])
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_reorg_replaces_the_last_blocks() {
    let mut world = world(Some(16)).await;
    let chain = Chain::connect(&chain_config(world.anvil.url(), WIDE)).await.expect("connects");
    let before = scan(&chain, world.head).await;
    let old_head = world.head;
    let fork_point = old_head - 3;

    // The last three blocks are two empty ones and the last busy block, whose ten transfers go:
    // their senders' nonces are back where they were at the fork point.
    for j in 0..TRANSFERS_PER_BLOCK {
        world.nonces[(((BUSY_BLOCKS - 1) * TRANSFERS_PER_BLOCK + j) % u64::from(SENDERS)) as usize] -= 1;
    }
    let mut blocks = Vec::new();
    let mut n = 9_000;
    for (i, count) in [5u64, 0, 5, 2].into_iter().enumerate() {
        let txs: Vec<Value> = (0..count)
            .map(|j| {
                n += 1;
                transfer(&mut world, (n % u64::from(SENDERS)) as u8, recipient(n), n, count - j)
            })
            .collect();
        blocks.push(NewBlock { t: world.head_time + 1 + i as i64, txs });
    }
    let done = reorg(&world.anvil, 3, &blocks).await.expect("reorgs");
    assert_eq!((done.fork_point, done.head), (fork_point, old_head + 1));
    assert_eq!((done.replaced.len(), done.mined.len()), (3, 4));
    for (old, new) in done.replaced.iter().zip(&done.mined) {
        assert_ne!(old, new, "every replaced height has a new block");
    }

    let after = scan(&chain, done.head).await;
    let kept = |logs: &[Log]| logs.iter().filter(|l| l.block_number <= Some(fork_point)).cloned().collect::<Vec<_>>();
    assert_eq!(kept(&before), kept(&after), "the logs up to the fork point stay");
    let gone: Vec<&Log> = before.iter().filter(|l| l.block_number > Some(fork_point)).collect();
    let new: Vec<&Log> = after.iter().filter(|l| l.block_number > Some(fork_point)).collect();
    assert_eq!((gone.len(), new.len()), (10, 12));
    let new_txs: Vec<B256> = new.iter().map(|l| l.transaction_hash.expect("mined")).collect();
    assert!(gone.iter().all(|l| !new_txs.contains(&l.transaction_hash.expect("mined"))), "the old transfers are gone");
    assert!(new.iter().all(|l| recipient_of(l) > recipient(9_000)), "the new transfers are there");
    let heights: Vec<u64> = new.iter().map(|l| l.block_number.expect("mined")).collect();
    assert_eq!(heights.iter().filter(|h| **h == fork_point + 2).count(), 0, "the second new block is empty");
    assert_eq!(*heights.last().expect("some"), done.head);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_reorg_without_kept_states_says_why_it_fails() {
    let anvil = Anvil::start(GENESIS);
    let _: Value = anvil.rpc("anvil_mine", ("0x5", "0x1")).await.expect("mines");
    let error = reorg(&anvil, 2, &[]).await.expect_err("the states are pruned");
    assert!(format!("{error:#}").contains("keep_states"), "{error:#}");
}
