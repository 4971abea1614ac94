//! The ingest benchmark's inputs (`make bench`, `scripts/bench.sh` § ingest), made with the test
//! harness (the pinned anvil, the FiatToken double at USDC's Base address, the seller fixture):
//!
//! * `chain-state --dir DIR [--transfers N] [--per-block N] [--noise N] [--sellers N]
//!   [--payers N] [--forms-every N]`: starts anvil, places USDC, mints to the payers, then packs N
//!   EIP-3009 `transferWithAuthorization`s (signed by a payer, sent by one of the facilitators) to
//!   the sellers into blocks of `per-block` (200) settlements and `noise` (100) USDC mints to other
//!   wallets (Transfers the sellers' filter skips). With `--forms-every N` (0: none), every N-th
//!   settlement goes through another form instead, in turn: the exact and the upto Permit2 proxy's
//!   `settle`, an escrow `charge`, and a channel's deposit, claim and sweep in one `multicall`
//!   (the doubles of `contracts/src/SettlementForms.sol` at the published addresses; one Transfer
//!   to the seller each, as an EIP-3009 settlement has; the first 100 payers pay them and approved
//!   the contracts in one block before). Checks every one landed, and writes
//!   `DIR/state.json` (`anvil --load-state`), a lake `DIR/lake` whose one listings partition makes
//!   the sellers candidates, and `DIR/meta.json` (block ranges and log counts; written last, so
//!   its presence means the rest is complete).
//! * `probe-server --endpoints N --lake DIR --ready FILE [--seconds S]`: serves N x402 endpoints
//!   (each a correct v2 402) on one loopback port, writes a listings partition for them dated
//!   today into the lake DIR, writes its base URL to FILE, and serves for S seconds at most.
//! * `check-probes --lake DIR --endpoints N`: fails unless the lake's probes are N rows, every
//!   one `ok` with a matching v2 offer.
//!
//! Deterministic: keys and addresses are `chain_key("bench-…")`, EIP-3009 nonces are hashes of
//! the settlement's position, block times are fixed. `BENCH_CHAIN_TRACE=1` prints each block's
//! send and mine times and the phases' ends.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

use agentrep_lake::datasets::ListingRow;
use agentrep_lake::{Lake, Timestamp};
use agentrep_payments::PaymentNetwork;
use agentrep_payments::verify::{TransferWithAuthorization, signing_hash};
use agentrep_tests::chain::contracts::{
    AUTH_CAPTURE_ESCROW, BATCH_SETTLEMENT, EXACT_PERMIT2_PROXY, IFiatToken, ISettlementForms, PLACED,
    UPTO_PERMIT2_PROXY, USDC,
};
use agentrep_tests::chain::plan::chain_signer;
use agentrep_tests::chain::{Anvil, AnvilOptions, chain_address};
use agentrep_tests::fixtures::{Behaviour, SellerFixture};
use alloy::primitives::{Address, B256, Bytes, U256, keccak256};
use alloy::signers::SignerSync;
use alloy::signers::local::PrivateKeySigner;
use alloy::sol_types::{SolCall, SolEvent};
use anyhow::{Context, bail, ensure};
use chrono::NaiveDate;
use rayon::prelude::*;
use serde_json::{Value, json};

/// Genesis: 2026-11-01T00:00:00Z; blocks every 2 s as on Base.
const GENESIS: i64 = 1_793_491_200;
const BLOCK_SECONDS: i64 = 2;
/// Base gas price of the benchmark's transactions (wei); the i-th of n in a block adds n − i.
const GAS_PRICE: u128 = 2_000_000_000;
/// Gas of one `transferWithAuthorization` and one `mint` (generous: unused gas is not charged).
const TWA_GAS: u64 = 250_000;
const MINT_GAS: u64 = 150_000;
/// Gas of one settlement through a form's contract and of one approval.
const FORM_GAS: u64 = 400_000;
const APPROVE_GAS: u64 = 100_000;
/// Payers of the settlements in other forms (each approved the forms' contracts once).
const FORM_PAYERS: usize = 100;
/// Facilitators sending the settlements (round-robin).
const FACILITATORS: usize = 20;
/// Transactions per JSON-RPC batch.
const BATCH: usize = 500;

fn main() -> anyhow::Result<()> {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let Some(command) = args.first() else { bail!("usage: bench_chain chain-state|probe-server [--flag value]…") };
    let flags = Flags::parse(&args[1..])?;
    let rt = tokio::runtime::Builder::new_multi_thread().worker_threads(2).enable_all().build()?;
    match command.as_str() {
        "chain-state" => rt.block_on(chain_state(&flags)),
        "probe-server" => probe_server(&flags),
        "check-probes" => check_probes(&flags),
        other => bail!("unknown command {other} (chain-state, probe-server or check-probes)"),
    }
}

/// `--name value` pairs.
struct Flags(BTreeMap<String, String>);

impl Flags {
    fn parse(args: &[String]) -> anyhow::Result<Self> {
        let mut out = BTreeMap::new();
        let mut it = args.iter();
        while let Some(name) = it.next() {
            let name = name.strip_prefix("--").with_context(|| format!("expected --flag, got {name}"))?;
            let value = it.next().with_context(|| format!("--{name} needs a value"))?;
            out.insert(name.to_owned(), value.clone());
        }
        Ok(Self(out))
    }

    fn path(&self, name: &str) -> anyhow::Result<PathBuf> {
        self.0.get(name).map(PathBuf::from).with_context(|| format!("--{name} is required"))
    }

    fn num(&self, name: &str, default: u64) -> anyhow::Result<u64> {
        match self.0.get(name) {
            Some(v) => v.parse().with_context(|| format!("--{name} {v}")),
            None => Ok(default),
        }
    }
}

fn seller(i: usize) -> Address {
    chain_address(&format!("bench-seller-{i}"))
}

/// A listing of `resource` paying `pay_to` one cent of USDC on Base.
fn listing(resource: String, pay_to: Address, seen: Timestamp) -> ListingRow {
    ListingRow {
        resource,
        pay_to: pay_to.to_checksum(None),
        network: "eip155:8453".to_owned(),
        asset: USDC.to_checksum(None),
        price_atomic: 10_000,
        description: Some("benchmark endpoint".to_owned()),
        tags: Vec::new(),
        ecosystem: "bench".to_owned(),
        first_seen: seen,
        last_seen: seen,
    }
}

/// One settlement: `payer` pays `seller` `value` through `facilitator` (EIP-3009, signed).
fn settlement(k: u64, payer: &PrivateKeySigner, to: Address, t: i64) -> Bytes {
    let value = U256::from(1_000 + k % 99_000);
    let nonce = keccak256([b"agentrep-bench-nonce".as_slice(), &k.to_be_bytes()].concat());
    let auth = TransferWithAuthorization {
        from: payer.address(),
        to,
        value,
        validAfter: U256::from(t - 600),
        validBefore: U256::from(t + 600),
        nonce,
    };
    let sig = payer.sign_hash_sync(&signing_hash(&PaymentNetwork::base(), &auth)).expect("signing never fails");
    IFiatToken::transferWithAuthorizationCall {
        from: payer.address(),
        to,
        value,
        validAfter: auth.validAfter,
        validBefore: auth.validBefore,
        nonce,
        v: 27 + u8::from(sig.v()),
        r: sig.r().into(),
        s: sig.s().into(),
    }
    .abi_encode()
    .into()
}

/// The contracts a form payer approves to pull its USDC.
const FORM_SPENDERS: [Address; 4] = [EXACT_PERMIT2_PROXY, UPTO_PERMIT2_PROXY, AUTH_CAPTURE_ESCROW, BATCH_SETTLEMENT];

/// The `j`-th settlement in another form, sent by `operator`, `payer` paying `to` `value`
/// micro-USDC: the contract it is sent to and the call (the exact proxy, the upto proxy, an escrow
/// charge, a channel deposited, claimed and swept in one multicall).
fn form_settlement(j: u64, operator: Address, payer: Address, to: Address, value: u128) -> (Address, Bytes) {
    use ISettlementForms as forms;
    let amount = U256::from(value);
    let call = match j % 4 {
        0 | 1 => {
            let proxy = if j.is_multiple_of(4) { EXACT_PERMIT2_PROXY } else { UPTO_PERMIT2_PROXY };
            return (proxy, forms::settle_0Call { owner: payer, to, amount }.abi_encode().into());
        }
        2 => {
            let never = alloy::primitives::Uint::from(u64::from(u32::MAX));
            let info = forms::PaymentInfo {
                operator,
                payer,
                receiver: to,
                token: USDC,
                maxAmount: alloy::primitives::Uint::from(value),
                preApprovalExpiry: never,
                authorizationExpiry: never,
                refundExpiry: never,
                minFeeBps: 0,
                maxFeeBps: 0,
                feeReceiver: Address::ZERO,
                salt: U256::from(j),
            };
            return (AUTH_CAPTURE_ESCROW, charge(info, amount));
        }
        _ => {
            let config = forms::ChannelConfig {
                payer,
                payerAuthorizer: Address::ZERO,
                receiver: to,
                receiverAuthorizer: Address::ZERO,
                token: USDC,
                withdrawDelay: alloy::primitives::Uint::from(900u64),
                salt: B256::from(U256::from(j)),
            };
            let total = value;
            let deposit = forms::depositCall {
                config: config.clone(),
                amount: total,
                collector: Address::ZERO,
                collectorData: Bytes::new(),
            };
            let voucher = forms::VoucherClaim {
                voucher: forms::Voucher { channel: config, maxClaimableAmount: total },
                signature: Bytes::new(),
                totalClaimed: total,
            };
            let claim =
                forms::claimWithSignatureCall { voucherClaims: vec![voucher], authorizerSignature: Bytes::new() };
            let sweep = forms::settle_1Call { receiver: to, token: USDC };
            forms::multicallCall {
                data: vec![deposit.abi_encode().into(), claim.abi_encode().into(), sweep.abi_encode().into()],
            }
        }
    };
    (BATCH_SETTLEMENT, call.abi_encode().into())
}

/// An escrow `charge` of `amount` for `info` (sent by its operator).
fn charge(info: ISettlementForms::PaymentInfo, amount: U256) -> Bytes {
    let call = ISettlementForms::chargeCall {
        paymentInfo: info,
        amount,
        tokenCollector: Address::ZERO,
        collectorData: Bytes::new(),
        feeBps: 0,
        feeReceiver: Address::ZERO,
    };
    call.abi_encode().into()
}

/// The chain being built: senders' nonces and the head's time.
struct Builder<'a> {
    anvil: &'a Anvil,
    nonces: BTreeMap<Address, u64>,
    t: i64,
    blocks: u64,
}

impl Builder<'_> {
    /// Sends `txs` (from, to, data, gas) and mines them into one block 2 s after the head; checks
    /// the block holds them all and every one succeeded.
    async fn block(&mut self, txs: Vec<(Address, Address, Bytes, u64)>) -> anyhow::Result<()> {
        let n = txs.len();
        let calls: Vec<(&'static str, Value)> = txs
            .into_iter()
            .enumerate()
            .map(|(i, (from, to, data, gas))| {
                let nonce = self.nonces.entry(from).or_default();
                let tx = json!({
                    "from": from, "to": to, "data": data, "value": "0x0",
                    "gas": format!("0x{gas:x}"),
                    "gasPrice": format!("0x{:x}", GAS_PRICE + (n - i) as u128),
                    "nonce": format!("0x{:x}", *nonce),
                });
                *nonce += 1;
                ("eth_sendTransaction", json!([tx]))
            })
            .collect();
        let t0 = Instant::now();
        for chunk in calls.chunks(BATCH) {
            self.anvil.batch(chunk).await.context("eth_sendTransaction")?;
        }
        let t1 = Instant::now();
        self.t += BLOCK_SECONDS;
        self.anvil.mine_at(self.t).await?;
        if std::env::var_os("BENCH_CHAIN_TRACE").is_some() {
            eprintln!("block {}: {n} txs sent in {:?}, mined in {:?}", self.blocks + 1, t1 - t0, t1.elapsed());
        }
        self.blocks += 1;
        // Every transaction is in the block (that each succeeded is checked at the end: the chain
        // holds one settlement log per settlement sent).
        let number = format!("0x{:x}", self.blocks);
        let block: Value = self.anvil.rpc("eth_getBlockByNumber", (number, false)).await?;
        let held = block["transactions"].as_array().map_or(0, Vec::len);
        ensure!(held == n, "block {} holds {held} of {n} transactions", self.blocks);
        Ok(())
    }
}

async fn chain_state(flags: &Flags) -> anyhow::Result<()> {
    let dir = flags.path("dir")?;
    let transfers = flags.num("transfers", 200_000)?;
    let per_block = flags.num("per-block", 200)?.max(1);
    let sellers = usize::try_from(flags.num("sellers", 100)?)?.max(1);
    let payers = usize::try_from(flags.num("payers", 1_000)?)?.max(1);
    let noise = flags.num("noise", 100)?;
    let forms_every = flags.num("forms-every", 0)?;
    std::fs::create_dir_all(&dir)?;
    let _ = std::fs::remove_file(dir.join("meta.json"));
    let started = Instant::now();
    let trace = |what: &str| {
        if std::env::var_os("BENCH_CHAIN_TRACE").is_some() {
            eprintln!("{:>8.2} s {what}", started.elapsed().as_secs_f64());
        }
    };

    let anvil = Anvil::start_with(&AnvilOptions { genesis_time: Some(GENESIS), ..AnvilOptions::default() })?;
    let fiat = PLACED.iter().find(|c| c.address == USDC).expect("USDC is placed");
    anvil.set_code(USDC, &fiat.runtime_code()).await?;
    let minter = chain_address("bench-minter");
    let facilitators: Vec<Address> =
        (0..FACILITATORS).map(|i| chain_address(&format!("bench-facilitator-{i}"))).collect();
    for a in facilitators.iter().chain([&minter]) {
        anvil.set_balance(*a, U256::from(10u128.pow(24))).await?;
    }
    let payer_keys: Vec<PrivateKeySigner> =
        (0..payers).into_par_iter().map(|i| chain_signer(&format!("bench-payer-{i}"))).collect();
    let seller_addresses: Vec<Address> = (0..sellers).map(seller).collect();
    trace("keys");
    let mut b = Builder { anvil: &anvil, nonces: BTreeMap::new(), t: GENESIS, blocks: 0 };

    // Block 1: every payer gets USDC (mints: Transfers from zero, to no seller).
    let mints = payer_keys
        .iter()
        .map(|p| {
            let call = IFiatToken::mintCall { to: p.address(), amount: U256::from(10u128.pow(15)) };
            (minter, USDC, Bytes::from(call.abi_encode()), MINT_GAS)
        })
        .collect();
    b.block(mints).await.context("minting")?;
    trace("mints");
    let form_payers = &payer_keys[..FORM_PAYERS.min(payers)];
    if forms_every > 0 {
        for double in PLACED.iter().filter(|p| p.name.ends_with("Double")) {
            anvil.set_code(double.address, &double.runtime_code()).await?;
        }
        let mut approvals = Vec::new();
        for p in form_payers.iter().map(PrivateKeySigner::address) {
            anvil.set_balance(p, U256::from(10u128.pow(20))).await?;
            for spender in FORM_SPENDERS {
                let call = IFiatToken::approveCall { spender, value: U256::MAX };
                approvals.push((p, USDC, Bytes::from(call.abi_encode()), APPROVE_GAS));
            }
        }
        b.block(approvals).await.context("approving the forms' contracts")?;
        trace("approvals");
    }

    // Dense blocks: `per_block` settlements each, and `noise` mints to other wallets (USDC
    // Transfers the sellers' filter must skip).
    let dense_first = b.blocks + 1;
    let mut k = 0u64;
    let mut noise_sent = 0u64;
    while k < transfers {
        let n = per_block.min(transfers - k);
        let t = b.t + BLOCK_SECONDS;
        let mut txs: Vec<(Address, Address, Bytes, u64)> = (k..k + n)
            .into_par_iter()
            .map(|k| {
                let to = seller_addresses[k as usize % sellers];
                let facilitator = facilitators[k as usize % FACILITATORS];
                if forms_every > 0 && k % forms_every == forms_every - 1 {
                    let j = k / forms_every;
                    let payer = form_payers[j as usize % form_payers.len()].address();
                    let (contract, call) = form_settlement(j, facilitator, payer, to, u128::from(1_000 + k % 99_000));
                    return (facilitator, contract, call, FORM_GAS);
                }
                let payer = &payer_keys[(k as usize * 7 + k as usize / payers) % payers];
                (facilitator, USDC, settlement(k, payer, to, t), TWA_GAS)
            })
            .collect();
        for j in 0..noise {
            let to = chain_address(&format!("bench-other-{}", (noise_sent + j) % 10_000));
            let call = IFiatToken::mintCall { to, amount: U256::from(1_000_000u64) };
            txs.push((minter, USDC, Bytes::from(call.abi_encode()), MINT_GAS));
        }
        noise_sent += noise;
        b.block(txs).await.with_context(|| format!("settlements {k}…"))?;
        k += n;
        if b.blocks.is_multiple_of(100) {
            eprintln!("bench_chain: {k} settlements in {} blocks, {:.0} s", b.blocks, started.elapsed().as_secs_f64());
        }
    }
    let dense_last = b.blocks;
    trace("dense");

    // The chain holds exactly the planned settlements to the sellers.
    let sellers_json: Vec<B256> = seller_addresses.iter().map(|a| a.into_word()).collect();
    let count = |from: u64, to: u64| {
        let filter = json!([{
            "address": USDC, "fromBlock": format!("0x{from:x}"), "toBlock": format!("0x{to:x}"),
            "topics": [IFiatToken::Transfer::SIGNATURE_HASH, Value::Null, sellers_json],
        }]);
        let anvil = &anvil;
        async move {
            let logs: Vec<Value> = anvil.rpc("eth_getLogs", filter).await?;
            anyhow::Ok(logs.len() as u64)
        }
    };
    ensure!(count(dense_first, dense_last).await? == transfers, "settlement logs are missing");
    trace("counted");

    let state = dir.join("state.json");
    anvil.dump_state(&state).await?;
    trace("dumped");
    drop(anvil);
    let lake_dir = dir.join("lake");
    let _ = std::fs::remove_dir_all(&lake_dir);
    let lake = Lake::new(&lake_dir);
    let day = NaiveDate::from_ymd_opt(2026, 11, 1).expect("date");
    let seen = Timestamp::from_secs(GENESIS);
    let rows: Vec<ListingRow> = seller_addresses
        .iter()
        .enumerate()
        .map(|(i, a)| listing(format!("https://seller-{i}.bench.invalid/api"), *a, seen))
        .collect();
    lake.write_partition(day, &rows)?;
    trace("listings");
    let meta = json!({
        "genesis_time": GENESIS,
        "sellers": sellers,
        "payers": payers,
        "facilitators": FACILITATORS,
        "per_block": per_block,
        "dense_first": dense_first,
        "dense_last": dense_last,
        "dense_transfers": transfers,
        "noise_per_block": noise,
        "forms_every": forms_every,
        // Settlements through the escrow: each also leaves an `escrow_events` row.
        "escrow_charges": transfers.checked_div(forms_every).map_or(0, |n| (0..n).filter(|j| j % 4 == 2).count()),
        "head": dense_last,
        "state_bytes": std::fs::metadata(&state)?.len(),
        "seconds": started.elapsed().as_secs(),
    });
    std::fs::write(dir.join("meta.json"), serde_json::to_vec_pretty(&meta)?)?;
    eprintln!("bench_chain: {meta}");
    Ok(())
}

fn probe_server(flags: &Flags) -> anyhow::Result<()> {
    let endpoints = flags.num("endpoints", 1_000)?;
    let lake_dir = flags.path("lake")?;
    let ready = flags.path("ready")?;
    let seconds = flags.num("seconds", 600)?;
    let pay_to = seller(0);
    let fixture = SellerFixture::start(
        (0..endpoints)
            .map(|i| {
                let offer = Behaviour::Offer402 {
                    version: 2,
                    pay_to: pay_to.to_checksum(None),
                    asset: USDC.to_checksum(None),
                    network: "eip155:8453".to_owned(),
                    amount: 10_000,
                };
                (format!("/r/{i}"), offer)
            })
            .collect(),
    );
    let lake = Lake::new(&lake_dir);
    let now = chrono::Utc::now();
    let seen = Timestamp(now.timestamp_micros());
    let rows: Vec<ListingRow> = fixture.urls().into_iter().map(|url| listing(url, pay_to, seen)).collect();
    lake.write_partition(now.date_naive(), &rows)?;
    write_atomically(&ready, fixture.base().as_bytes())?;
    // Bounded: serves until killed or for `seconds` at most.
    std::thread::sleep(Duration::from_secs(seconds));
    Ok(())
}

fn check_probes(flags: &Flags) -> anyhow::Result<()> {
    let lake = Lake::new(flags.path("lake")?);
    let endpoints = flags.num("endpoints", 1_000)?;
    let mut rows = Vec::new();
    for part in lake.partitions(agentrep_lake::Dataset::Probes)? {
        rows.extend(lake.read_partition::<agentrep_lake::datasets::ProbeRow>(part.date)?);
    }
    let good = rows.iter().filter(|r| r.ok && r.offer_version == Some(2) && r.offer_matches == Some(true)).count();
    ensure!(
        rows.len() as u64 == endpoints && good == rows.len(),
        "{} probe rows, {good} ok with a matching offer, expected {endpoints}",
        rows.len()
    );
    Ok(())
}

fn write_atomically(path: &Path, bytes: &[u8]) -> anyhow::Result<()> {
    let tmp = path.with_extension("tmp");
    std::fs::write(&tmp, bytes)?;
    std::fs::rename(&tmp, path)?;
    Ok(())
}
