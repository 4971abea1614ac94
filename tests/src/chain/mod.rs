//! A real local chain for end-to-end tests: the anvil harness, the project's contract test doubles,
//! and the replayer that plays a generated world onto the chain so `agentrep ingest` can read it
//! back.

pub mod anvil;
pub mod contracts;
pub mod paychain;
pub mod plan;
pub mod reorg;
pub mod replay;
pub mod thin;

pub use anvil::{Anvil, AnvilOptions};
pub use plan::{AddressMap, Plan, ReplayCounts, chain_address, chain_key};
pub use reorg::{NewBlock, Reorg, reorg};
pub use replay::{Replay, ReplayOptions, genesis_time, replay, replay_on_new_anvil};
pub use thin::{ThinStats, Thinning, thin_world};
