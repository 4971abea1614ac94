//! Turns a world lake into the blocks that replay it: pure and deterministic (the same lake gives
//! the same blocks, transactions and calldata), no chain needed.
//!
//! # Address mapping
//! Every world address `w` (lowercase `0x…` text) becomes the address of the private key
//! `keccak256("agentrep-replay" ‖ w)`, where `w` is taken as its UTF-8 bytes (the 42 characters
//! `0x` + 40 lowercase hex digits). Contract addresses ([`super::contracts::is_unmapped`]) and the
//! zero address are not mapped. Launched tokens map to the address the factory's CREATE2 gives.
//! Actors the replay adds (the USDC minter, the swap router, the token traders) get keys the same
//! way from labels such as `replay:minter`, which are never addresses.
//!
//! # What each world fact becomes (in time order, one block per second that has any)
//! Within a second: registrations, funding edges, launches, settlements, feedback, attestations,
//! swaps; each kind in the lake's order. Top-up mints go right before the transfer that needs them.
//!
//! * `funding_edges` → USDC `transfer(funder → funded, amount)` sent by the funder at
//!   `first_funded_at`.
//! * `settlements` (network `eip155:8453`, asset USDC Base; others are skipped and counted):
//!   `eip3009` with a facilitator → `transferWithAuthorization(v, r, s)` signed by the payer
//!   (EIP-712 "USD Coin"/"2"/8453/USDC, `validAfter = t − 600`, `validBefore = t + 600`,
//!   nonce = `keccak256("agentrep-replay-nonce" ‖ n)`, n = the settlement's position in the
//!   replay as 8 big-endian bytes), sent by the facilitator; `eip3009` without one → the same, sent
//!   by the payer; no `eip3009` and no facilitator → `transfer` from the payer; no `eip3009` with
//!   a facilitator → the payer `approve`s the facilitator once (unlimited), the facilitator
//!   `transferFrom`s. A settlement in another form (`form`, with a facilitator) goes through that
//!   form's double (`contracts/src/SettlementForms.sol`), sent by the facilitator: `permit2` and
//!   `upto` → the payer `approve`s the proxy once, the facilitator calls `settle(payer, seller,
//!   value)`; `auth_capture` → the payer approves the escrow once, the facilitator (its operator)
//!   `charge`s a payment of the value to the seller with no fee; `batch_claim` → the payer
//!   approves the channel contract once and `deposit`s the value into its channel to the seller
//!   (one per payer, seller and facilitator), the facilitator claims the channel's new total and
//!   sweeps it to the seller.
//! * USDC a sender lacks is minted to it right before (`mint`, sent by the minter; a Transfer from
//!   0x0, which the ingest never counts as funding), at least 1,000 USDC at a time.
//! * `erc8004_registrations` → `register(uri)` from the owner at `registered_at` (chain agent ids
//!   count from 0 in replay order); then, in the same block, `setAgentWallet(id, wallet)` when the
//!   world's wallet is another address, or, when the world has no wallet, `transferFrom(owner,
//!   owner, id)`: the only way the contract clears a wallet (it emits MetadataSet("agentWallet", "")
//!   and an ERC-721 Transfer from the owner to itself). A second row for an agent id is skipped.
//! * `erc8004_feedback` → `giveFeedback(agent, value, decimals, tag1, tag2, "", "", 0x0)` from the
//!   client, then `revokeFeedback` in the same block when revoked. Per (agent, client) the rows
//!   play in `feedback_index` order: when the world's times are not in index order, the group's
//!   times are sorted and handed out in index order (counted as retimed). Feedback from the
//!   agent's owner (the contract refuses it) and for agents not registered on chain by then are
//!   skipped and counted.
//! * `identity_proofs` of type `cb1-verified` → EAS `attest(recipient, Verified Account schema,
//!   abi.encode(true))` from the Coinbase attester at `verified_at`; other types are counted.
//! * `token_launches` → `deployToken(name, symbol, tokenAdmin = deployer, context)` sent by the
//!   deployer at `launched_at`, `context = {"platform":"<world platform>"}`.
//! * `launch_observations` → the day's swaps (and, when they cannot reach the world's holders or
//!   creator holding, plain token transfers), see [`SwapEncoding`].

use std::collections::{BTreeMap, BTreeSet, HashMap, HashSet};

use agentrep_lake::datasets::{
    AgentCardRow, EntityLabelRow, FeedbackRow, FundingRow, LaunchObservationRow, LaunchRow, ListEntryRow, ListingRow,
    ProofRow, ReceiptRow, RegistrationRow, SettlementRow, TokenBuyRow,
};
use agentrep_lake::{Lake, Row, SettlementForm};
use alloy::primitives::aliases::{I24, U24, U160};
use alloy::primitives::{Address, B256, Bytes, U256, keccak256};
use alloy::signers::SignerSync;
use alloy::signers::local::PrivateKeySigner;
use alloy::sol_types::{SolCall, SolEvent, SolValue};
use anyhow::{Context, bail};
use chrono::NaiveDate;
use rayon::prelude::*;

use agentrep_payments::PaymentNetwork;
use agentrep_payments::verify::{TransferWithAuthorization, signing_hash};

use super::contracts::{
    self, AUTH_CAPTURE_ESCROW, BATCH_SETTLEMENT, CLANKER_FACTORY, COINBASE_ATTESTER, CREATOR_ALLOCATION, EAS,
    EXACT_PERMIT2_PROXY, IClankerFactory, IDENTITY_REGISTRY, IEAS, IFiatToken, IIdentityRegistry, ILaunchToken,
    IPoolManager, IReputationRegistry, ISettlementForms, POOL_MANAGER, REPUTATION_REGISTRY, TOKEN_SUPPLY,
    UPTO_PERMIT2_PROXY, USDC, VERIFIED_ACCOUNT_SCHEMA, WETH,
};

/// Network of the settlements the replay plays.
pub const BASE_NETWORK: &str = "eip155:8453";
/// Identity proof type played as a Coinbase attestation.
pub const CB1_PROOF: &str = "cb1-verified";
/// Prefix of every derived key's preimage.
pub const KEY_DOMAIN: &[u8] = b"agentrep-replay";
/// Label of the actor that mints USDC top-ups.
pub const MINTER_LABEL: &str = "replay:minter";
/// Label of the actor that sends every swap (Swap.sender).
pub const ROUTER_LABEL: &str = "replay:router";
/// The least USDC (micro) a top-up mints.
pub const MIN_TOPUP: u128 = 1_000_000_000;
/// ETH price used only to report the WETH side of swaps.
pub const ETH_USD: f64 = 3_000.0;
/// Swap fee reported in Swap events (1 %, the launch pools' fee).
pub const SWAP_FEE: u32 = 10_000;

const DAY: i64 = 86_400;
/// Second of the day at which a day's swaps are played (20:00 UTC, when the world's indexer
/// observes launches).
pub const OBSERVED_AT: i64 = 20 * 3_600;

/// How launch observations are encoded as Uniswap v4 `Swap` events of the token's pool (poolId =
/// `ClankerFactory.poolIdFor(token)`), so that the ingest decodes them the same way:
///
/// * **swaps**: the day's `swaps` Swap events, all in the block at 20:00:00 UTC of that day (on
///   launch day no earlier than one second after the launch). One block per token day, not one per
///   swap: anvil 1.7.1 recomputes the whole state root for every block, so blocks are what a
///   replay costs.
/// * **liquidity**: every Swap of the day carries `liquidity` = the observation's liquidity in
///   micro-USDC (as uint128).
/// * **price**: every Swap of the day carries `sqrtPriceX96 = floor(sqrt(price) · 2^96)` with
///   `price` in USD per whole token (no decimals, no WETH conversion); decode as
///   `price = (sqrtPriceX96 / 2^96)^2` (relative error below 1e-15). `tick = floor(ln(price) /
///   ln(1.0001))`, `fee = 10000`.
/// * **amounts**: caller-perspective v4 deltas: a buy is token `+x`, WETH `−x·price/3000` (wei, as
///   if ETH were 3,000 USD); a sell the opposite. amount0 is the token when token < WETH.
/// * **creator_holding**: `balanceOf(tokenAdmin) / 1e28` at the end of the day (the creator's
///   allocation is 10 % of the 100B supply = 1e28 wei; exact to a few wei). The creator moves by
///   one swap whose trader is the creator; on a day without swaps a drop is a plain transfer from
///   the creator to the PoolManager (a Transfer without a Swap).
/// * **holders**: addresses with a positive balance of the token at the end of the day other than
///   the creator (tokenAdmin), the PoolManager and the zero address (the world has days with no
///   holders while its creator still holds 2 %, so the creator cannot be counted). New holders are
///   first the day's `token_buys` buyers (in lake order, each buying the row's `tokens`), then fresh
///   addresses (`replay:trader:<world token>:<n>`): a new holder buys, a leaving holder sells its whole
///   balance, the day's other swaps are small buys by existing fresh holders (never by a world
///   buyer, whose buys are the row's; a 1-wei buy by the creator when no fresh trader holds). When the day has too few swaps, the rest of the change is
///   made with plain transfers: the creator gives 1 wei to each missing new holder, a leaving
///   holder sends its whole balance to the PoolManager (counted as token transfers). The swap
///   count of a day is always the world's.
/// * Days without swaps carry no liquidity or price on chain (counted as quiet); duplicate
///   observations of a (token, day) keep the first row.
/// * **token_buys**: so every world buy is one swap of the day it is dated (at the day's swap time),
///   and the lake's `token_buys` rows of world buyers are the world's. A buy that does not fit the
///   day's new holders and swaps, or whose token day has no observation, is left out and counted.
#[derive(Debug, Clone, Copy)]
pub struct SwapEncoding;

/// One transaction of the plan.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PlannedTx {
    /// Sender (impersonated).
    pub from: Address,
    /// Contract called.
    pub to: Address,
    /// Calldata.
    pub data: Bytes,
    /// Gas limit.
    pub gas: u64,
    /// The sender's nonce.
    pub nonce: u64,
}

/// One block of the plan: the transactions of one second, in order.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PlannedBlock {
    /// Block timestamp, Unix seconds.
    pub t: i64,
    /// Transactions in block order.
    pub txs: Vec<PlannedTx>,
}

/// What the replay played and what it left out.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct ReplayCounts {
    /// Funding edges played.
    pub funding_edges: u64,
    /// Funding edges whose funded address had already received a non-mint USDC transfer on chain
    /// (so the chain's first inbound transfer is not the world's funding edge).
    pub funding_preempted: u64,
    /// Settlements played.
    pub settlements: u64,
    /// ... of which as `transferWithAuthorization`.
    pub settlements_eip3009: u64,
    /// ... of which as plain `transfer` from the payer.
    pub settlements_plain: u64,
    /// ... of which an unusual combination (EIP-3009 without facilitator, plain with one).
    pub settlements_unusual: u64,
    /// ... of which through a Permit2 proxy, the escrow or a payment channel.
    pub settlements_forms: u64,
    /// Settlements on other networks or assets, not played.
    pub settlements_skipped: u64,
    /// USDC top-up mints.
    pub topup_mints: u64,
    /// ... of which to an address before its world funding edge.
    pub early_topups: u64,
    /// Registrations played.
    pub registrations: u64,
    /// Registrations left out because the agent id was registered already.
    pub registrations_duplicate: u64,
    /// `setAgentWallet` calls (world wallet differs from the owner).
    pub wallets_set: u64,
    /// Wallets cleared (world has no wallet).
    pub wallets_cleared: u64,
    /// Feedback played.
    pub feedback: u64,
    /// ... of which revoked right after.
    pub feedback_revoked: u64,
    /// Feedback rows played at another row's time of the same (agent, client) to keep index order.
    pub feedback_retimed: u64,
    /// Feedback whose chain index differs from the world's (after skipped rows).
    pub feedback_reindexed: u64,
    /// Feedback left out: given by the agent's owner.
    pub feedback_from_owner: u64,
    /// Feedback left out: agent not registered on chain (yet).
    pub feedback_unregistered: u64,
    /// `cb1-verified` attestations played.
    pub attestations: u64,
    /// Identity proofs left out, per proof type.
    pub proofs_skipped: BTreeMap<String, u64>,
    /// Launches played.
    pub launches: u64,
    /// Observations (token days) played.
    pub observations: u64,
    /// Duplicate observations of a (token, day) left out.
    pub observation_duplicates: u64,
    /// Observations left out: no launch, or dated before it.
    pub observations_orphan: u64,
    /// Observations with no swaps (no liquidity or price on chain that day).
    pub observations_quiet: u64,
    /// Swaps played.
    pub swaps: u64,
    /// Token transfers without a swap, on days whose swaps are too few to reach the world's
    /// holder count or creator holding (see [`SwapEncoding`]).
    pub token_transfers: u64,
    /// Observation days that needed such transfers.
    pub observations_with_transfers: u64,
    /// Observation days whose creator holding could not be matched (it rose on a day without swaps).
    pub creator_unmatched: u64,
    /// World token buys played (one swap each).
    pub token_buys: u64,
    /// World token buys left out: the day's new holders or swaps leave no room, or the token day
    /// has no observation.
    pub token_buys_unplayed: u64,
    /// Rows left out because an address they need is not a mappable address (the zero address,
    /// or a payer that is a contract and so has no key to sign with).
    pub unplayable: u64,
}

/// Addresses of the replay: world ↔ chain.
#[derive(Debug, Clone, Default)]
pub struct AddressMap {
    to_chain: BTreeMap<String, Address>,
    to_world: BTreeMap<Address, String>,
}

impl AddressMap {
    fn insert(&mut self, world: String, chain: Address) {
        self.to_world.insert(chain, world.clone());
        self.to_chain.insert(world, chain);
    }

    /// The chain address of a world address (lowercase or not), if the world has it.
    pub fn chain(&self, world: &str) -> Option<Address> {
        self.to_chain.get(&world.to_ascii_lowercase()).copied()
    }

    /// The world address (lowercase) of a chain address, if it is a mapped one.
    pub fn world(&self, chain: Address) -> Option<&str> {
        self.to_world.get(&chain).map(String::as_str)
    }

    /// Every (world, chain) pair.
    pub fn iter(&self) -> impl Iterator<Item = (&str, Address)> {
        self.to_chain.iter().map(|(w, c)| (w.as_str(), *c))
    }

    /// How many addresses are mapped.
    pub fn len(&self) -> usize {
        self.to_chain.len()
    }

    /// Whether none are.
    pub fn is_empty(&self) -> bool {
        self.to_chain.is_empty()
    }
}

/// The whole plan.
#[derive(Debug, Clone)]
pub struct Plan {
    /// Blocks in order.
    pub blocks: Vec<PlannedBlock>,
    /// Every sender (they get ETH).
    pub senders: BTreeSet<Address>,
    /// Logs the chain must hold afterwards, per (emitting contract, topic0).
    pub expected_logs: BTreeMap<(Address, B256), u64>,
    /// World address ↔ chain address.
    pub addresses: AddressMap,
    /// Actors the replay adds: chain address → label.
    pub synthetic: BTreeMap<Address, String>,
    /// World token → chain token.
    pub tokens: BTreeMap<String, Address>,
    /// Chain token → its Uniswap v4 pool id.
    pub pool_ids: BTreeMap<Address, B256>,
    /// World agent id → chain agent id.
    pub agents: BTreeMap<u64, u64>,
    /// (world agent id, world client, world feedback index) → chain feedback index.
    pub feedback_indices: BTreeMap<(u64, String, u64), u64>,
    /// The launches as played (for checking the factory's prediction): (deployToken args, chain token).
    pub launches: Vec<(IClankerFactory::predictTokenCall, Address)>,
    /// Counts.
    pub counts: ReplayCounts,
}

impl Plan {
    /// Time of the first block.
    pub fn first_time(&self) -> Option<i64> {
        self.blocks.first().map(|b| b.t)
    }

    /// Time of the last block.
    pub fn last_time(&self) -> Option<i64> {
        self.blocks.last().map(|b| b.t)
    }

    /// Number of transactions.
    pub fn transactions(&self) -> usize {
        self.blocks.iter().map(|b| b.txs.len()).sum()
    }

    /// A genesis time for anvil: one minute before the first block.
    pub fn genesis_time(&self) -> i64 {
        self.first_time().map_or(0, |t| t - 60)
    }
}

// ------------------------------------------------------------------------------------------ keys

/// The private key a world address (or a replay label) maps to:
/// `keccak256("agentrep-replay" ‖ lowercase text)`.
pub fn chain_key(world: &str) -> B256 {
    let mut pre = KEY_DOMAIN.to_vec();
    pre.extend_from_slice(world.to_ascii_lowercase().as_bytes());
    keccak256(pre)
}

/// The signer of [`chain_key`].
///
/// # Panics
/// When the hash is not a valid secp256k1 key (probability about 2^-128).
pub fn chain_signer(world: &str) -> PrivateKeySigner {
    PrivateKeySigner::from_bytes(&chain_key(world)).expect("keccak output is a valid key")
}

/// The chain address a world address (or a replay label) maps to.
pub fn chain_address(world: &str) -> Address {
    chain_signer(world).address()
}

/// Whether a world string is a mappable address: `0x` + 40 hex digits, not a contract, not zero.
pub fn is_mappable(world: &str) -> bool {
    parse_address(world).is_some_and(|a| !contracts::is_unmapped(a))
}

fn parse_address(s: &str) -> Option<Address> {
    let s = s.trim();
    if s.len() != 42 || !s.starts_with("0x") {
        return None;
    }
    s.parse().ok()
}

// ------------------------------------------------------------------------------------------ world

/// The world's rows the replay reads.
#[derive(Debug, Default)]
pub struct WorldRows {
    /// Funding edges, lake order.
    pub funding: Vec<FundingRow>,
    /// Settlements.
    pub settlements: Vec<SettlementRow>,
    /// Registrations.
    pub registrations: Vec<RegistrationRow>,
    /// Feedback.
    pub feedback: Vec<FeedbackRow>,
    /// Identity proofs.
    pub proofs: Vec<ProofRow>,
    /// Launches.
    pub launches: Vec<LaunchRow>,
    /// Observations with their partition day.
    pub observations: Vec<(NaiveDate, LaunchObservationRow)>,
    /// Known wallets' token buys with their partition day.
    pub buys: Vec<(NaiveDate, TokenBuyRow)>,
    /// Listings (addresses only).
    pub listings: Vec<ListingRow>,
    /// Receipts (addresses only).
    pub receipts: Vec<ReceiptRow>,
    /// List entries (addresses only).
    pub lists: Vec<ListEntryRow>,
    /// Entity labels (addresses only).
    pub labels: Vec<EntityLabelRow>,
    /// Agent cards (wallets only).
    pub cards: Vec<AgentCardRow>,
}

fn read_all<R: Row>(lake: &Lake) -> anyhow::Result<Vec<(NaiveDate, R)>> {
    let mut out = Vec::new();
    for p in lake.partitions(R::DATASET)? {
        out.extend(lake.read_partition::<R>(p.date)?.into_iter().map(|r| (p.date, r)));
    }
    Ok(out)
}

fn rows<R: Row>(lake: &Lake) -> anyhow::Result<Vec<R>> {
    Ok(read_all::<R>(lake)?.into_iter().map(|(_, r)| r).collect())
}

impl WorldRows {
    /// Reads every dataset the replay needs, partitions oldest first, rows in file order.
    ///
    /// # Errors
    /// When the lake cannot be read.
    pub fn read(lake: &Lake) -> anyhow::Result<Self> {
        Ok(Self {
            funding: rows(lake)?,
            settlements: rows(lake)?,
            registrations: rows(lake)?,
            feedback: rows(lake)?,
            proofs: rows(lake)?,
            launches: rows(lake)?,
            observations: read_all(lake)?,
            buys: read_all(lake)?,
            listings: rows(lake)?,
            receipts: rows(lake)?,
            lists: rows(lake)?,
            labels: rows(lake)?,
            cards: rows(lake)?,
        })
    }

    /// Every mappable world address (lowercase), sorted.
    pub fn addresses(&self) -> BTreeSet<String> {
        let mut all: Vec<&str> = Vec::new();
        for r in &self.funding {
            all.extend([r.funded.as_str(), r.funder.as_str()]);
        }
        for r in &self.settlements {
            all.extend([r.payer.as_str(), r.pay_to.as_str()]);
            all.extend(r.facilitator.as_deref());
        }
        for r in &self.registrations {
            all.push(&r.owner);
            all.extend(r.agent_wallet.as_deref());
        }
        all.extend(self.feedback.iter().map(|r| r.client.as_str()));
        all.extend(self.proofs.iter().map(|r| r.address.as_str()));
        all.extend(self.launches.iter().map(|r| r.deployer.as_str()));
        all.extend(self.buys.iter().map(|(_, r)| r.buyer.as_str()));
        all.extend(self.listings.iter().map(|r| r.pay_to.as_str()));
        for r in &self.receipts {
            all.extend([r.buyer.as_str(), r.agent.as_str()]);
        }
        all.extend(self.lists.iter().map(|r| r.address.as_str()));
        all.extend(self.labels.iter().map(|r| r.address.as_str()));
        for r in &self.cards {
            all.extend(r.wallets.iter().map(String::as_str));
        }
        let tokens: HashSet<String> = self.launches.iter().map(|l| l.token.to_ascii_lowercase()).collect();
        all.into_iter()
            .map(|a| a.trim().to_ascii_lowercase())
            .filter(|a| is_mappable(a) && !tokens.contains(a))
            .collect()
    }
}

// ------------------------------------------------------------------------------------------ plan

/// Gas limits per call (generous: a transaction that runs out would show as a missing log).
mod gas {
    pub const MINT: u64 = 150_000;
    pub const TRANSFER: u64 = 150_000;
    pub const APPROVE: u64 = 100_000;
    pub const TWA: u64 = 250_000;
    pub const REGISTER: u64 = 600_000;
    pub const SET_WALLET: u64 = 200_000;
    pub const FEEDBACK: u64 = 600_000;
    pub const REVOKE: u64 = 150_000;
    pub const ATTEST: u64 = 800_000;
    pub const DEPLOY: u64 = 4_000_000;
    pub const SWAP: u64 = 250_000;
    /// A settlement through a form's contract (a proxy, the escrow, the channel contract).
    pub const FORM: u64 = 400_000;
}

/// Kinds in their order within a second.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
enum Kind {
    Registration,
    Funding,
    Launch,
    Settlement,
    Feedback,
    Proof,
    Swap,
}

#[derive(Debug, Clone)]
enum Fact {
    Registration(usize),
    Funding(usize),
    Launch(usize),
    Settlement(usize),
    Feedback(usize),
    Proof(usize),
    /// Launch index, one move of an observation day.
    Move(usize, Move),
}

#[derive(Debug, Clone)]
struct SwapPlan {
    trader: Trader,
    /// Token delta from the trader's view: + bought, − sold.
    delta: i128,
    price: f64,
    liquidity: u128,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Trader {
    Creator,
    Index(u32),
}

/// Precomputed per-launch data.
#[derive(Debug, Clone)]
struct Launch {
    world: String,
    chain: Address,
    pool_id: B256,
    token_is_0: bool,
    creator: Address,
    launched_at: i64,
}

/// A small deterministic generator (splitmix64).
#[derive(Debug)]
struct Mix(u64);

impl Mix {
    fn new(seed: &[u8]) -> Self {
        let h = keccak256(seed);
        Self(u64::from_be_bytes(h[..8].try_into().expect("8 bytes")))
    }

    fn next(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9e37_79b9_7f4a_7c15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
        z ^ (z >> 31)
    }

    fn range(&mut self, lo: u64, hi: u64) -> u64 {
        lo + self.next() % (hi - lo)
    }
}

fn token_units(tokens: u64) -> u128 {
    u128::from(tokens) * 10u128.pow(18)
}

/// The LaunchToken creation code (the artifact's `bytecode`).
fn launch_token_creation_code() -> Vec<u8> {
    let json: serde_json::Value = serde_json::from_str(contracts::LAUNCH_TOKEN_ARTIFACT).expect("artifact is JSON");
    let code: Bytes = json["bytecode"].as_str().expect("bytecode").parse().expect("hex");
    code.to_vec()
}

/// Where `ClankerFactory.deployToken(name, symbol, admin, context)` deploys (CREATE2, as
/// `predictToken` computes it).
pub fn predict_token(creation_code: &[u8], name: &str, symbol: &str, admin: Address, context: &str) -> Address {
    let creator_supply = U256::from(CREATOR_ALLOCATION);
    let pool_supply = U256::from(TOKEN_SUPPLY - CREATOR_ALLOCATION);
    let mut init = creation_code.to_vec();
    init.extend(
        (name.to_owned(), symbol.to_owned(), admin, creator_supply, POOL_MANAGER, pool_supply).abi_encode_params(),
    );
    let salt = keccak256((name.to_owned(), symbol.to_owned(), admin, context.to_owned()).abi_encode_params());
    CLANKER_FACTORY.create2(salt, keccak256(&init))
}

/// `ClankerFactory.poolIdFor(token)`: keccak256(abi.encode(currency0, currency1, fee, tickSpacing, hooks)).
pub fn pool_id(token: Address) -> B256 {
    let (c0, c1) = if token < WETH { (token, WETH) } else { (WETH, token) };
    keccak256((c0, c1, U24::from(SWAP_FEE), I24::try_from(200i32).expect("fits"), Address::ZERO).abi_encode())
}

/// `floor(sqrt(price) · 2^96)`.
pub fn sqrt_price_x96(price: f64) -> U160 {
    let v = price.max(0.0).sqrt() * 2f64.powi(96);
    U160::from(v as u128)
}

/// Decodes [`sqrt_price_x96`]: `(sqrtPriceX96 / 2^96)^2`.
pub fn price_of(sqrt_price_x96: U160) -> f64 {
    let v: f64 = sqrt_price_x96.to::<u128>() as f64 / 2f64.powi(96);
    v * v
}

fn tick_of(price: f64) -> I24 {
    let tick = if price > 0.0 { (price.ln() / 1.0001f64.ln()).floor() as i64 } else { -887_272 };
    I24::try_from(tick.clamp(-887_272, 887_272)).expect("tick fits int24")
}

/// Builds the plan of a world.
///
/// # Errors
/// When the lake cannot be read.
pub fn plan(world_lake: &Lake) -> anyhow::Result<Plan> {
    let world = WorldRows::read(world_lake).context("reading the world lake")?;
    plan_rows(&world)
}

struct Planner {
    addresses: AddressMap,
    synthetic: BTreeMap<Address, String>,
    signers: HashMap<Address, PrivateKeySigner>,
    minter: Address,
    router: Address,
    nonces: HashMap<Address, u64>,
    usdc: HashMap<Address, u128>,
    /// World funding time of each funded chain address.
    funded_at: HashMap<Address, i64>,
    /// Addresses that received a non-mint USDC transfer.
    received: HashSet<Address>,
    approved: HashSet<(Address, Address)>,
    /// Each payment channel's claimed total, by (payer, seller, facilitator).
    channels: HashMap<(Address, Address, Address), u128>,
    /// World agent id → (chain id, chain owner).
    agents: HashMap<u64, (u64, Address)>,
    next_agent: u64,
    /// (chain agent, chain client) → last chain feedback index.
    feedback_last: HashMap<(u64, Address), u64>,
    feedback_indices: BTreeMap<(u64, String, u64), u64>,
    launches: Vec<Launch>,
    creator_balance: Vec<u128>,
    holders: Vec<BTreeMap<u32, u128>>,
    next_trader: Vec<u32>,
    traders: HashMap<(usize, u32), Address>,
    /// Trader indices that are world buyers (they buy once, with the world's amount).
    world_buyers: HashSet<(usize, u32)>,
    expected_logs: BTreeMap<(Address, B256), u64>,
    senders: BTreeSet<Address>,
    counts: ReplayCounts,
    settlement_seq: u64,
    block: Vec<PlannedTx>,
}

impl Planner {
    fn map(&self, world: &str) -> Address {
        let w = world.trim().to_ascii_lowercase();
        if let Some(a) = self.addresses.chain(&w) {
            return a;
        }
        // Unmapped: a contract or the zero address stays as it is.
        parse_address(&w).unwrap_or(Address::ZERO)
    }

    fn log(&mut self, address: Address, topic0: B256) {
        *self.expected_logs.entry((address, topic0)).or_default() += 1;
    }

    fn send(&mut self, from: Address, to: Address, data: Vec<u8>, gas: u64) {
        let nonce = self.nonces.entry(from).or_default();
        let tx = PlannedTx { from, to, data: data.into(), gas, nonce: *nonce };
        *nonce += 1;
        self.senders.insert(from);
        self.block.push(tx);
    }

    fn mint(&mut self, to: Address, amount: u128, t: i64) {
        self.send(self.minter, USDC, IFiatToken::mintCall { to, amount: U256::from(amount) }.abi_encode(), gas::MINT);
        self.log(USDC, IFiatToken::Transfer::SIGNATURE_HASH);
        *self.usdc.entry(to).or_default() += amount;
        self.counts.topup_mints += 1;
        if self.funded_at.get(&to).is_some_and(|f| *f > t) {
            self.counts.early_topups += 1;
        }
    }

    /// Makes sure `who` holds `amount` USDC, minting the shortfall first.
    fn cover(&mut self, who: Address, amount: u128, t: i64) {
        let have = self.usdc.get(&who).copied().unwrap_or(0);
        if have < amount {
            self.mint(who, (amount - have).max(MIN_TOPUP), t);
        }
    }

    /// Books a USDC move (the caller sends the transaction).
    fn moved(&mut self, from: Address, to: Address, amount: u128) {
        *self.usdc.get_mut(&from).expect("covered") -= amount;
        *self.usdc.entry(to).or_default() += amount;
        self.received.insert(to);
        self.log(USDC, IFiatToken::Transfer::SIGNATURE_HASH);
    }

    fn funding(&mut self, r: &FundingRow, t: i64) {
        let (from, to) = (self.map(&r.funder), self.map(&r.funded));
        if from.is_zero() || to.is_zero() {
            self.counts.unplayable += 1;
            return;
        }
        let amount = u128::from(r.amount);
        if self.received.contains(&to) {
            self.counts.funding_preempted += 1;
        }
        self.cover(from, amount, t);
        self.send(from, USDC, IFiatToken::transferCall { to, value: U256::from(amount) }.abi_encode(), gas::TRANSFER);
        self.moved(from, to, amount);
        self.counts.funding_edges += 1;
    }

    fn settlement(&mut self, r: &SettlementRow, t: i64) {
        let (payer, pay_to) = (self.map(&r.payer), self.map(&r.pay_to));
        if payer.is_zero() || pay_to.is_zero() || (r.eip3009 && !self.signers.contains_key(&payer)) {
            self.counts.unplayable += 1;
            return;
        }
        let facilitator = r.facilitator.as_deref().map(|f| self.map(f));
        let value = u128::from(r.value);
        let form = SettlementForm::of(r.form, r.eip3009);
        if let (
            Some(f),
            SettlementForm::Permit2 | SettlementForm::Upto | SettlementForm::AuthCapture | SettlementForm::BatchClaim,
        ) = (facilitator, form)
        {
            self.cover(payer, value, t);
            self.through_contract(form, payer, pay_to, f, value);
            self.settlement_seq += 1;
            self.counts.settlements += 1;
            self.counts.settlements_forms += 1;
            return;
        }
        self.cover(payer, value, t);
        if r.eip3009 {
            let seq = self.settlement_seq;
            let nonce = keccak256([b"agentrep-replay-nonce".as_slice(), &seq.to_be_bytes()].concat());
            let auth = TransferWithAuthorization {
                from: payer,
                to: pay_to,
                value: U256::from(value),
                validAfter: U256::from(t - 600),
                validBefore: U256::from(t + 600),
                nonce,
            };
            // The domain the seller side verifies against: USDC on Base, as the replay deploys it.
            let signer = self.signers.get(&payer).expect("checked above");
            let sig =
                signer.sign_hash_sync(&signing_hash(&PaymentNetwork::base(), &auth)).expect("signing never fails");
            let call = IFiatToken::transferWithAuthorizationCall {
                from: payer,
                to: pay_to,
                value: auth.value,
                validAfter: auth.validAfter,
                validBefore: auth.validBefore,
                nonce,
                v: 27 + u8::from(sig.v()),
                r: sig.r().into(),
                s: sig.s().into(),
            };
            let sender = facilitator.unwrap_or(payer);
            self.send(sender, USDC, call.abi_encode(), gas::TWA);
            self.log(USDC, IFiatToken::AuthorizationUsed::SIGNATURE_HASH);
            if facilitator.is_some() {
                self.counts.settlements_eip3009 += 1;
            } else {
                self.counts.settlements_unusual += 1;
            }
        } else if let Some(f) = facilitator {
            if self.approved.insert((payer, f)) {
                self.send(
                    payer,
                    USDC,
                    IFiatToken::approveCall { spender: f, value: U256::MAX }.abi_encode(),
                    gas::APPROVE,
                );
                self.log(USDC, keccak256("Approval(address,address,uint256)"));
            }
            let call = IFiatToken::transferFromCall { from: payer, to: pay_to, value: U256::from(value) };
            self.send(f, USDC, call.abi_encode(), gas::TRANSFER);
            self.counts.settlements_unusual += 1;
        } else {
            self.send(
                payer,
                USDC,
                IFiatToken::transferCall { to: pay_to, value: U256::from(value) }.abi_encode(),
                gas::TRANSFER,
            );
            self.counts.settlements_plain += 1;
        }
        self.moved(payer, pay_to, value);
        self.settlement_seq += 1;
        self.counts.settlements += 1;
    }

    /// The payer approves `spender` once (unlimited).
    fn approve_once(&mut self, payer: Address, spender: Address) {
        if self.approved.insert((payer, spender)) {
            self.send(payer, USDC, IFiatToken::approveCall { spender, value: U256::MAX }.abi_encode(), gas::APPROVE);
            self.log(USDC, keccak256("Approval(address,address,uint256)"));
        }
    }

    /// A settlement through the form's contract (the doubles of `contracts/src/SettlementForms.sol`),
    /// sent by the facilitator: a Permit2 proxy's `settle`; an escrow `charge` with the facilitator as
    /// operator and no fee; a channel of (payer, seller) funded by the payer with the value, claimed
    /// by the facilitator up to the channel's new total, and swept to the seller.
    fn through_contract(&mut self, form: SettlementForm, payer: Address, pay_to: Address, f: Address, value: u128) {
        use ISettlementForms as forms;
        let seq = self.settlement_seq;
        match form {
            SettlementForm::Permit2 | SettlementForm::Upto => {
                let proxy = if form == SettlementForm::Permit2 { EXACT_PERMIT2_PROXY } else { UPTO_PERMIT2_PROXY };
                self.approve_once(payer, proxy);
                let call = forms::settle_0Call { owner: payer, to: pay_to, amount: U256::from(value) };
                self.send(f, proxy, call.abi_encode(), gas::FORM);
                self.moved(payer, pay_to, value);
                self.log(proxy, forms::Settled::SIGNATURE_HASH);
            }
            SettlementForm::AuthCapture => {
                self.approve_once(payer, AUTH_CAPTURE_ESCROW);
                let expiry = alloy::primitives::Uint::from(u64::from(u32::MAX));
                let info = forms::PaymentInfo {
                    operator: f,
                    payer,
                    receiver: pay_to,
                    token: USDC,
                    maxAmount: alloy::primitives::Uint::from(value),
                    preApprovalExpiry: expiry,
                    authorizationExpiry: expiry,
                    refundExpiry: expiry,
                    minFeeBps: 0,
                    maxFeeBps: 0,
                    feeReceiver: Address::ZERO,
                    salt: U256::from(seq),
                };
                let call = forms::chargeCall {
                    paymentInfo: info,
                    amount: U256::from(value),
                    tokenCollector: Address::ZERO,
                    collectorData: Bytes::new(),
                    feeBps: 0,
                    feeReceiver: Address::ZERO,
                };
                self.send(f, AUTH_CAPTURE_ESCROW, call.abi_encode(), gas::FORM);
                self.log(AUTH_CAPTURE_ESCROW, forms::PaymentCharged::SIGNATURE_HASH);
                self.moved(payer, AUTH_CAPTURE_ESCROW, value);
                self.moved(AUTH_CAPTURE_ESCROW, pay_to, value);
            }
            SettlementForm::BatchClaim => {
                self.approve_once(payer, BATCH_SETTLEMENT);
                let channel = forms::ChannelConfig {
                    payer,
                    payerAuthorizer: Address::ZERO,
                    receiver: pay_to,
                    receiverAuthorizer: f,
                    token: USDC,
                    withdrawDelay: alloy::primitives::Uint::from(900u64),
                    salt: B256::ZERO,
                };
                let total = self.channels.entry((payer, pay_to, f)).or_default();
                let first = *total == 0;
                *total += value;
                let total = *total;
                let deposit = forms::depositCall {
                    config: channel.clone(),
                    amount: value,
                    collector: Address::ZERO,
                    collectorData: Bytes::new(),
                };
                self.send(payer, BATCH_SETTLEMENT, deposit.abi_encode(), gas::FORM);
                if first {
                    self.log(BATCH_SETTLEMENT, forms::ChannelCreated::SIGNATURE_HASH);
                }
                self.log(BATCH_SETTLEMENT, forms::Deposited::SIGNATURE_HASH);
                self.moved(payer, BATCH_SETTLEMENT, value);
                let claim = forms::VoucherClaim {
                    voucher: forms::Voucher { channel, maxClaimableAmount: u128::MAX },
                    signature: Bytes::new(),
                    totalClaimed: total,
                };
                let claim =
                    forms::claimWithSignatureCall { voucherClaims: vec![claim], authorizerSignature: Bytes::new() };
                self.send(f, BATCH_SETTLEMENT, claim.abi_encode(), gas::FORM);
                self.log(BATCH_SETTLEMENT, forms::Claimed::SIGNATURE_HASH);
                let sweep = forms::settle_1Call { receiver: pay_to, token: USDC };
                self.send(f, BATCH_SETTLEMENT, sweep.abi_encode(), gas::FORM);
                self.moved(BATCH_SETTLEMENT, pay_to, value);
            }
            SettlementForm::Eip3009 | SettlementForm::Transfer => unreachable!("played by `settlement`"),
        }
    }

    fn registration(&mut self, r: &RegistrationRow) {
        if self.agents.contains_key(&r.agent_id) {
            self.counts.registrations_duplicate += 1;
            return;
        }
        let owner = self.map(&r.owner);
        if owner.is_zero() {
            self.counts.unplayable += 1;
            return;
        }
        let id = self.next_agent;
        self.next_agent += 1;
        self.agents.insert(r.agent_id, (id, owner));
        self.send(
            owner,
            IDENTITY_REGISTRY,
            IIdentityRegistry::registerCall { agentURI: r.registration_uri.clone() }.abi_encode(),
            gas::REGISTER,
        );
        self.log(IDENTITY_REGISTRY, IIdentityRegistry::Transfer::SIGNATURE_HASH);
        self.log(IDENTITY_REGISTRY, IIdentityRegistry::Registered::SIGNATURE_HASH);
        self.log(IDENTITY_REGISTRY, IIdentityRegistry::MetadataSet::SIGNATURE_HASH);
        let wallet = r.agent_wallet.as_deref().map(|w| self.map(w)).filter(|w| !w.is_zero());
        match wallet {
            Some(w) if w == owner => {}
            Some(w) => {
                let call = IIdentityRegistry::setAgentWalletCall { agentId: U256::from(id), newWallet: w };
                self.send(owner, IDENTITY_REGISTRY, call.abi_encode(), gas::SET_WALLET);
                self.log(IDENTITY_REGISTRY, IIdentityRegistry::MetadataSet::SIGNATURE_HASH);
                self.counts.wallets_set += 1;
            }
            None => {
                let call = IIdentityRegistry::transferFromCall { from: owner, to: owner, agentId: U256::from(id) };
                self.send(owner, IDENTITY_REGISTRY, call.abi_encode(), gas::SET_WALLET);
                self.log(IDENTITY_REGISTRY, IIdentityRegistry::MetadataSet::SIGNATURE_HASH);
                self.log(IDENTITY_REGISTRY, IIdentityRegistry::Transfer::SIGNATURE_HASH);
                self.counts.wallets_cleared += 1;
            }
        }
        self.counts.registrations += 1;
    }

    fn feedback(&mut self, r: &FeedbackRow) {
        let Some(&(agent, owner)) = self.agents.get(&r.agent_id) else {
            self.counts.feedback_unregistered += 1;
            return;
        };
        let client = self.map(&r.client);
        if client.is_zero() {
            self.counts.unplayable += 1;
            return;
        }
        if client == owner {
            self.counts.feedback_from_owner += 1;
            return;
        }
        let last = self.feedback_last.entry((agent, client)).or_default();
        *last += 1;
        let index = *last;
        self.feedback_indices.insert((r.agent_id, r.client.to_ascii_lowercase(), r.feedback_index), index);
        if index != r.feedback_index {
            self.counts.feedback_reindexed += 1;
        }
        let call = IReputationRegistry::giveFeedbackCall {
            agentId: U256::from(agent),
            value: i128::from(r.value),
            valueDecimals: u8::try_from(r.value_decimals).unwrap_or(u8::MAX),
            tag1: r.tag1.clone(),
            tag2: r.tag2.clone(),
            endpoint: String::new(),
            feedbackURI: String::new(),
            feedbackHash: B256::ZERO,
        };
        self.send(client, REPUTATION_REGISTRY, call.abi_encode(), gas::FEEDBACK);
        self.log(REPUTATION_REGISTRY, IReputationRegistry::NewFeedback::SIGNATURE_HASH);
        self.counts.feedback += 1;
        if r.revoked {
            let call = IReputationRegistry::revokeFeedbackCall { agentId: U256::from(agent), feedbackIndex: index };
            self.send(client, REPUTATION_REGISTRY, call.abi_encode(), gas::REVOKE);
            self.log(REPUTATION_REGISTRY, IReputationRegistry::FeedbackRevoked::SIGNATURE_HASH);
            self.counts.feedback_revoked += 1;
        }
    }

    fn proof(&mut self, r: &ProofRow) {
        let recipient = self.map(&r.address);
        if recipient.is_zero() {
            self.counts.unplayable += 1;
            return;
        }
        let call = IEAS::attestCall { recipient, schema: VERIFIED_ACCOUNT_SCHEMA, data: true.abi_encode().into() };
        self.send(COINBASE_ATTESTER, EAS, call.abi_encode(), gas::ATTEST);
        self.log(EAS, IEAS::Attested::SIGNATURE_HASH);
        self.counts.attestations += 1;
    }

    fn launch(&mut self, i: usize, r: &LaunchRow) {
        let l = &self.launches[i];
        let (creator, token) = (l.creator, l.chain);
        let call = IClankerFactory::deployTokenCall {
            name: r.name.clone(),
            symbol: r.symbol.clone(),
            tokenAdmin: creator,
            tokenContext: launch_context(&r.platform),
        };
        self.send(creator, CLANKER_FACTORY, call.abi_encode(), gas::DEPLOY);
        self.log(token, ILaunchToken::Transfer::SIGNATURE_HASH);
        self.log(token, ILaunchToken::Transfer::SIGNATURE_HASH);
        self.log(CLANKER_FACTORY, IClankerFactory::TokenCreated::SIGNATURE_HASH);
        self.counts.launches += 1;
    }

    fn trader(&mut self, launch: usize, t: Trader) -> Address {
        match t {
            Trader::Creator => self.launches[launch].creator,
            Trader::Index(n) => {
                if let Some(a) = self.traders.get(&(launch, n)) {
                    return *a;
                }
                let label = format!("replay:trader:{}:{n}", self.launches[launch].world);
                let a = chain_address(&label);
                self.synthetic.insert(a, label);
                self.traders.insert((launch, n), a);
                a
            }
        }
    }

    fn swap(&mut self, launch: usize, s: &SwapPlan) {
        let trader = self.trader(launch, s.trader);
        let l = &self.launches[launch];
        let (token, pool, token_is_0) = (l.chain, l.pool_id, l.token_is_0);
        let weth = ((s.delta.unsigned_abs() as f64) * s.price / ETH_USD) as i128;
        let weth = if s.delta > 0 { -weth } else { weth };
        let (amount0, amount1) = if token_is_0 { (s.delta, weth) } else { (weth, s.delta) };
        let call = IPoolManager::swapCall {
            poolId: pool,
            token,
            amount0,
            amount1,
            sqrtPriceX96: sqrt_price_x96(s.price),
            liquidity: s.liquidity,
            tick: tick_of(s.price),
            fee: U24::from(SWAP_FEE),
            trader,
        };
        self.send(self.router, POOL_MANAGER, call.abi_encode(), gas::SWAP);
        if s.delta != 0 {
            self.log(token, ILaunchToken::Transfer::SIGNATURE_HASH);
        }
        self.log(POOL_MANAGER, IPoolManager::Swap::SIGNATURE_HASH);
        self.counts.swaps += 1;
    }

    fn token_transfer(&mut self, launch: usize, from: Trader, to: Option<Trader>, amount: u128) {
        let token = self.launches[launch].chain;
        let from = self.trader(launch, from);
        let to = to.map_or(POOL_MANAGER, |t| self.trader(launch, t));
        let call = ILaunchToken::transferCall { to, value: U256::from(amount) };
        self.send(from, token, call.abi_encode(), gas::TRANSFER);
        self.log(token, ILaunchToken::Transfer::SIGNATURE_HASH);
        self.counts.token_transfers += 1;
    }
}

/// The `tokenContext` of a replayed launch.
pub fn launch_context(platform: &str) -> String {
    format!("{{\"platform\":\"{platform}\"}}")
}

/// Builds the plan from rows already read.
///
/// # Errors
/// When a row cannot be played (an unparsable address where one is needed).
pub fn plan_rows(world: &WorldRows) -> anyhow::Result<Plan> {
    // Addresses: derive every key once, in parallel.
    let addresses: Vec<String> = world.addresses().into_iter().collect();
    let signers: Vec<PrivateKeySigner> = addresses.par_iter().map(|a| chain_signer(a)).collect();
    let mut map = AddressMap::default();
    let mut signer_of = HashMap::new();
    for (w, s) in addresses.into_iter().zip(signers) {
        map.insert(w, s.address());
        signer_of.insert(s.address(), s);
    }
    let mut synthetic = BTreeMap::new();
    let minter = chain_address(MINTER_LABEL);
    let router = chain_address(ROUTER_LABEL);
    synthetic.insert(minter, MINTER_LABEL.to_owned());
    synthetic.insert(router, ROUTER_LABEL.to_owned());

    let mut p = Planner {
        addresses: map,
        synthetic,
        signers: signer_of,
        minter,
        router,
        nonces: HashMap::new(),
        usdc: HashMap::new(),
        funded_at: HashMap::new(),
        received: HashSet::new(),
        approved: HashSet::new(),
        channels: HashMap::new(),
        agents: HashMap::new(),
        next_agent: 0,
        feedback_last: HashMap::new(),
        feedback_indices: BTreeMap::new(),
        launches: Vec::new(),
        creator_balance: Vec::new(),
        holders: Vec::new(),
        next_trader: Vec::new(),
        traders: HashMap::new(),
        world_buyers: HashSet::new(),
        expected_logs: BTreeMap::new(),
        senders: BTreeSet::new(),
        counts: ReplayCounts::default(),
        settlement_seq: 0,
        block: Vec::new(),
    };
    for r in &world.funding {
        let to = p.map(&r.funded);
        let t = r.first_funded_at.secs();
        p.funded_at.entry(to).and_modify(|f| *f = (*f).min(t)).or_insert(t);
    }

    let mut facts: Vec<(i64, Kind, u64, Fact)> = Vec::new();
    let mut seq = 0u64;
    let mut push = |facts: &mut Vec<_>, t: i64, k: Kind, f: Fact| {
        facts.push((t, k, seq, f));
        seq += 1;
    };
    for (i, r) in world.registrations.iter().enumerate() {
        push(&mut facts, r.registered_at.secs(), Kind::Registration, Fact::Registration(i));
    }
    for (i, r) in world.funding.iter().enumerate() {
        push(&mut facts, r.first_funded_at.secs(), Kind::Funding, Fact::Funding(i));
    }
    for (i, r) in world.settlements.iter().enumerate() {
        if r.network == BASE_NETWORK && r.asset.eq_ignore_ascii_case(&USDC.to_string()) {
            push(&mut facts, r.block_time.secs(), Kind::Settlement, Fact::Settlement(i));
        } else {
            p.counts.settlements_skipped += 1;
        }
    }
    // Feedback: per (agent, client) in index order; the group's times handed out in that order.
    let mut groups: BTreeMap<(u64, String), Vec<usize>> = BTreeMap::new();
    for (i, r) in world.feedback.iter().enumerate() {
        groups.entry((r.agent_id, r.client.to_ascii_lowercase())).or_default().push(i);
    }
    let mut feedback: Vec<(i64, u64, usize)> = Vec::new(); // (time, index, row)
    for rows in groups.values() {
        let mut by_index = rows.clone();
        by_index.sort_by_key(|&i| (world.feedback[i].feedback_index, i));
        let mut times: Vec<i64> = rows.iter().map(|&i| world.feedback[i].block_time.secs()).collect();
        times.sort_unstable();
        for (&i, &t) in by_index.iter().zip(&times) {
            if t != world.feedback[i].block_time.secs() {
                p.counts.feedback_retimed += 1;
            }
            feedback.push((t, world.feedback[i].feedback_index, i));
        }
    }
    // Same-second rows of one group must stay in index order: sort by (time, group order, index).
    feedback.sort_by(|a, b| {
        let (ra, rb) = (&world.feedback[a.2], &world.feedback[b.2]);
        (a.0, ra.agent_id, ra.client.to_ascii_lowercase(), a.1, a.2).cmp(&(
            b.0,
            rb.agent_id,
            rb.client.to_ascii_lowercase(),
            b.1,
            b.2,
        ))
    });
    for (t, _, i) in feedback {
        push(&mut facts, t, Kind::Feedback, Fact::Feedback(i));
    }
    for (i, r) in world.proofs.iter().enumerate() {
        if r.proof_type == CB1_PROOF {
            push(&mut facts, r.verified_at.secs(), Kind::Proof, Fact::Proof(i));
        } else {
            *p.counts.proofs_skipped.entry(r.proof_type.clone()).or_default() += 1;
        }
    }

    // Launches: chain tokens by CREATE2, then the observations' swaps.
    let creation = launch_token_creation_code();
    let mut launch_of: HashMap<String, usize> = HashMap::new();
    let mut launches_played = Vec::new();
    for (i, r) in world.launches.iter().enumerate() {
        let world_token = r.token.to_ascii_lowercase();
        if launch_of.contains_key(&world_token) {
            continue;
        }
        let creator = p.map(&r.deployer);
        if creator.is_zero() {
            bail!("launch {} has no mappable deployer {:?}", r.token, r.deployer);
        }
        let context = launch_context(&r.platform);
        let chain = predict_token(&creation, &r.name, &r.symbol, creator, &context);
        launches_played.push((
            IClankerFactory::predictTokenCall {
                name: r.name.clone(),
                symbol: r.symbol.clone(),
                tokenAdmin: creator,
                tokenContext: context,
            },
            chain,
        ));
        launch_of.insert(world_token.clone(), p.launches.len());
        p.launches.push(Launch {
            world: world_token,
            chain,
            pool_id: pool_id(chain),
            token_is_0: chain < WETH,
            creator,
            launched_at: r.launched_at.secs(),
        });
        p.creator_balance.push(CREATOR_ALLOCATION);
        p.holders.push(BTreeMap::new());
        p.next_trader.push(0);
        push(&mut facts, r.launched_at.secs(), Kind::Launch, Fact::Launch(i));
    }
    // Observations per token, by day, first row of a (token, day) only.
    let mut obs: BTreeMap<(usize, NaiveDate), &LaunchObservationRow> = BTreeMap::new();
    for (date, r) in &world.observations {
        let Some(&l) = launch_of.get(&r.token.to_ascii_lowercase()) else {
            p.counts.observations_orphan += 1;
            continue;
        };
        if *date < day_of(p.launches[l].launched_at) {
            p.counts.observations_orphan += 1;
            continue;
        }
        match obs.entry((l, *date)) {
            std::collections::btree_map::Entry::Occupied(_) => p.counts.observation_duplicates += 1,
            std::collections::btree_map::Entry::Vacant(e) => {
                e.insert(r);
            }
        }
    }
    // World buys per (token, day), lake order.
    let mut buys: BTreeMap<(usize, NaiveDate), Vec<(Address, u128)>> = BTreeMap::new();
    for (date, b) in &world.buys {
        match launch_of.get(&b.token.to_ascii_lowercase()) {
            Some(&l) if obs.contains_key(&(l, *date)) => {
                let amount = token_units(b.tokens as u64);
                buys.entry((l, *date)).or_default().push((p.map(&b.buyer), amount));
            }
            _ => p.counts.token_buys_unplayed += 1,
        }
    }
    for ((l, date), r) in obs {
        let day_start = date.and_hms_opt(0, 0, 0).expect("midnight").and_utc().timestamp();
        let lo = day_start.max(p.launches[l].launched_at + 1);
        let hi = day_start + DAY - 1;
        p.counts.observations += 1;
        let target_creator = creator_target(r.creator_holding);
        let day_buys = buys.remove(&(l, date)).unwrap_or_default();
        let moves = day_moves(&mut p, l, date, r, target_creator, &day_buys);
        if r.swaps == 0 {
            p.counts.observations_quiet += 1;
        }
        if moves.iter().any(|m| matches!(m, Move::Transfer(..))) {
            p.counts.observations_with_transfers += 1;
        }
        if p.creator_balance[l].abs_diff(target_creator) > 1_000_000 {
            p.counts.creator_unmatched += 1;
        }
        let t = (day_start + OBSERVED_AT).clamp(lo, hi);
        for m in moves {
            push(&mut facts, t, Kind::Swap, Fact::Move(l, m));
        }
    }

    facts.sort_by_key(|(t, k, s, _)| (*t, *k, *s));
    let mut blocks: Vec<PlannedBlock> = Vec::new();
    let mut current: Option<i64> = None;
    for (t, _, _, fact) in facts {
        if current != Some(t) {
            if let Some(prev) = current {
                let txs = std::mem::take(&mut p.block);
                if !txs.is_empty() {
                    blocks.push(PlannedBlock { t: prev, txs });
                }
            }
            current = Some(t);
        }
        match fact {
            Fact::Registration(i) => p.registration(&world.registrations[i]),
            Fact::Funding(i) => p.funding(&world.funding[i], t),
            Fact::Launch(i) => {
                let l = launch_of[&world.launches[i].token.to_ascii_lowercase()];
                p.launch(l, &world.launches[i]);
            }
            Fact::Settlement(i) => p.settlement(&world.settlements[i], t),
            Fact::Feedback(i) => p.feedback(&world.feedback[i]),
            Fact::Proof(i) => p.proof(&world.proofs[i]),
            Fact::Move(l, Move::Swap(s)) => p.swap(l, &s),
            Fact::Move(l, Move::Transfer(from, to, amount)) => p.token_transfer(l, from, to, amount),
        }
    }
    if let Some(t) = current {
        let txs = std::mem::take(&mut p.block);
        if !txs.is_empty() {
            blocks.push(PlannedBlock { t, txs });
        }
    }
    let agents = p.agents.iter().map(|(w, (c, _))| (*w, *c)).collect();
    let tokens = p.launches.iter().map(|l| (l.world.clone(), l.chain)).collect();
    let pool_ids = p.launches.iter().map(|l| (l.chain, l.pool_id)).collect();
    Ok(Plan {
        blocks,
        senders: p.senders,
        expected_logs: p.expected_logs,
        addresses: p.addresses,
        synthetic: p.synthetic,
        tokens,
        pool_ids,
        agents,
        feedback_indices: p.feedback_indices,
        launches: launches_played,
        counts: p.counts,
    })
}

fn day_of(t: i64) -> NaiveDate {
    chrono::DateTime::from_timestamp(t, 0).expect("in range").date_naive()
}

/// The creator's balance for a holding share: `holding · 1e28` wei (to 1e-18 of the allocation).
pub fn creator_target(holding: f64) -> u128 {
    let share = (holding.clamp(0.0, 1.0) * 1e18).round() as u128;
    share * (CREATOR_ALLOCATION / 10u128.pow(18))
}

/// One move of an observation day.
#[derive(Debug, Clone)]
enum Move {
    Swap(SwapPlan),
    /// A token transfer without a swap: `to` None is the PoolManager.
    Transfer(Trader, Option<Trader>, u128),
}

/// The moves of one observation day: swaps, then (only when the day's swaps cannot do it) plain
/// transfers that bring the holder count and the creator's balance to the world's. Updates the
/// token's holders and creator balance.
fn day_moves(
    p: &mut Planner,
    l: usize,
    date: NaiveDate,
    r: &LaunchObservationRow,
    target_creator: u128,
    world_buys: &[(Address, u128)],
) -> Vec<Move> {
    let n = r.swaps as usize;
    let mut mix = Mix::new(format!("{}:{date}", p.launches[l].world).as_bytes());
    let price = r.price;
    let liquidity = u128::from(r.liquidity);
    let swap = |trader, delta| Move::Swap(SwapPlan { trader, delta, price, liquidity });
    let mut out = Vec::with_capacity(n);
    let creator_delta = target_creator as i128 - p.creator_balance[l] as i128;
    let creator_swap = n > 0 && creator_delta != 0;
    let holder_swaps = n - usize::from(creator_swap);
    let target = r.holders as usize;
    let holders = &mut p.holders[l];
    let current = holders.len();
    let mut moves = 0usize;
    // The creator's balance moves by 1 wei per gift or neutral buy (at most a few 1e-28 of the
    // allocation); its swap of the day, if any, absorbs them.
    let mut creator_adjust: i128 = 0;
    if target > current {
        let want = target - current;
        let buys = want.min(holder_swaps);
        // The world's buyers first, then fresh traders: one that sold out never comes back.
        for j in 0..want {
            let next = p.next_trader[l];
            p.next_trader[l] += 1;
            if let Some(&(buyer, amount)) = world_buys.get(j).filter(|_| j < buys) {
                p.traders.insert((l, next), buyer);
                p.world_buyers.insert((l, next));
                holders.insert(next, amount);
                out.push(swap(Trader::Index(next), amount as i128));
            } else if j < buys {
                let amount = token_units(mix.range(1_000, 100_000));
                holders.insert(next, amount);
                out.push(swap(Trader::Index(next), amount as i128));
            } else {
                holders.insert(next, 1);
                out.push(Move::Transfer(Trader::Creator, Some(Trader::Index(next)), 1));
                creator_adjust -= 1;
            }
        }
        moves = buys;
        p.counts.token_buys += world_buys.len().min(buys) as u64;
        p.counts.token_buys_unplayed += world_buys.len().saturating_sub(buys) as u64;
    } else if target < current {
        let want = current - target;
        let sells = want.min(holder_swaps);
        let leaving: Vec<u32> = holders.keys().take(want).copied().collect();
        for (j, k) in leaving.into_iter().enumerate() {
            let amount = holders.remove(&k).expect("holder");
            if j < sells {
                out.push(swap(Trader::Index(k), -(amount as i128)));
            } else {
                out.push(Move::Transfer(Trader::Index(k), None, amount));
            }
        }
        moves = sells;
    }
    if target <= current {
        p.counts.token_buys_unplayed += world_buys.len() as u64;
    }
    // The other swaps: small buys by existing fresh holders, round robin; a 1-wei creator buy if
    // none holds.
    let keys: Vec<u32> = holders.keys().copied().filter(|k| !p.world_buyers.contains(&(l, *k))).collect();
    for j in 0..holder_swaps - moves {
        if keys.is_empty() {
            out.push(swap(Trader::Creator, 1));
            creator_adjust += 1;
        } else {
            let k = keys[j % keys.len()];
            let amount = token_units(mix.range(100, 10_000));
            *holders.get_mut(&k).expect("holder") += amount;
            out.push(swap(Trader::Index(k), amount as i128));
        }
    }
    let balance = (p.creator_balance[l] as i128 + creator_adjust) as u128;
    if creator_swap {
        out.push(swap(Trader::Creator, target_creator as i128 - balance as i128));
        p.creator_balance[l] = target_creator;
    } else if n == 0 && target_creator < balance {
        out.push(Move::Transfer(Trader::Creator, None, balance - target_creator));
        p.creator_balance[l] = target_creator;
    } else {
        p.creator_balance[l] = balance;
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn keys_derive_from_the_lowercase_address() {
        let w = "0x13C84254A26534E5C43DD24591948AAEFAE9A591";
        assert_eq!(chain_key(w), chain_key(&w.to_ascii_lowercase()));
        let mut pre = b"agentrep-replay".to_vec();
        pre.extend_from_slice(w.to_ascii_lowercase().as_bytes());
        assert_eq!(chain_key(w), keccak256(pre));
        assert_eq!(chain_address(w), PrivateKeySigner::from_bytes(&chain_key(w)).expect("key").address());
        assert_ne!(chain_address(w), chain_address(MINTER_LABEL));
    }

    #[test]
    fn only_plain_addresses_are_mapped() {
        assert!(is_mappable("0x13c84254a26534e5c43dd24591948aaefae9a591"));
        assert!(!is_mappable("0x833589fcd6edb6e08f4c7c32d4f71b54bda02913"), "USDC");
        assert!(!is_mappable("0x0000000000000000000000000000000000000000"));
        assert!(!is_mappable("coinbase"));
        assert!(!is_mappable("0x13c8"));
    }

    #[test]
    fn prices_round_trip_through_sqrt_price_x96() {
        for price in [1e-12, 3.3e-9, 1e-6, 0.000_123_4, 0.01, 1.0, 42.5, 1e4] {
            let back = price_of(sqrt_price_x96(price));
            assert!((back / price - 1.0).abs() < 1e-12, "{price} -> {back}");
        }
        assert_eq!(sqrt_price_x96(1.0), U160::from(1u128 << 96));
        assert!(tick_of(1.0) == I24::ZERO);
    }

    #[test]
    fn creator_targets_are_shares_of_the_allocation() {
        assert_eq!(creator_target(1.0), CREATOR_ALLOCATION);
        assert_eq!(creator_target(0.0), 0);
        assert_eq!(creator_target(0.02), CREATOR_ALLOCATION / 50);
        let t = creator_target(0.123_456_789);
        assert!((t as f64 / CREATOR_ALLOCATION as f64 - 0.123_456_789).abs() < 1e-15);
    }

    #[test]
    fn pool_ids_order_the_currencies() {
        let low = Address::with_last_byte(1);
        let high = Address::repeat_byte(0xff);
        let expect = |c0: Address, c1: Address| {
            keccak256((c0, c1, U24::from(SWAP_FEE), I24::try_from(200i32).expect("fits"), Address::ZERO).abi_encode())
        };
        assert_eq!(pool_id(low), expect(low, WETH));
        assert_eq!(pool_id(high), expect(WETH, high));
    }
}
