//! `agentrep demo --paid` (`make run-paid`): the demo world served as a deployment that takes
//! payments, all on loopback. A local chain (anvil, Base's chain id) gets the USDC double at
//! Base's USDC address; a relayer key with gas settles payments directly; the demo's operator key
//! signs offers, receipts and attestations; the live re-score reads the same chain; a buyer key
//! holds 10 USDC. What it prints is a buy an official x402 client makes as it is.

use std::path::{Path, PathBuf};
use std::time::Duration;

use agentrep_ingest::config::{ChainConfig, IngestConfig};
use agentrep_server::{PaymentSettings, SecretKey, ServerConfig, ServiceIdentity};
use alloy::primitives::{Address, B256, U256};
use alloy::providers::{Provider, RootProvider};
use alloy::signers::local::PrivateKeySigner;
use alloy::sol_types::SolCall;
use anyhow::{Context, bail};
use serde_json::json;

use crate::local_chain::{AnvilProcess, BASE_CHAIN_ID, anvil_binary};

/// The USDC double (`contracts/src/FiatToken.sol`), placed at Base's USDC address.
const FIAT_TOKEN_ARTIFACT: &str = include_str!("../../contracts/artifacts/FiatToken.json");

/// What the buyer starts with, micro-USDC.
const BUYER_FUNDS: u64 = 10_000_000;

alloy::sol! {
    /// The USDC double's test-only mint.
    interface IMint {
        function mint(address to, uint256 amount) external returns (bool);
    }
}

/// A paid deployment on a local chain: the chain, and what to serve with.
#[derive(Debug)]
pub struct PaidDemo {
    /// The chain; killed when this drops.
    pub chain: AnvilProcess,
    /// The server's configuration: payments, live sources, the operator key.
    pub config: ServerConfig,
    /// The file holding the buyer's key.
    pub buyer_key_file: PathBuf,
    /// The buyer's address.
    pub buyer: Address,
}

fn hex_key(signer: &PrivateKeySigner) -> String {
    format!("0x{}", alloy::hex::encode(signer.to_bytes()))
}

async fn rpc<R: serde::de::DeserializeOwned>(
    provider: &RootProvider,
    method: &'static str,
    params: serde_json::Value,
) -> anyhow::Result<R> {
    let value: serde_json::Value =
        provider.raw_request(method.into(), params).await.with_context(|| format!("{method} on the local chain"))?;
    serde_json::from_value(value).with_context(|| format!("{method}: unexpected answer"))
}

/// Starts the chain and prepares everything under `dir/paid` (replaced on every start: the chain
/// is new, so is its ledger). `config` is the demo's server configuration (its operator key).
///
/// # Errors
/// When anvil is missing or the chain cannot be set up.
pub async fn start(root: &Path, dir: &Path, mut config: ServerConfig) -> anyhow::Result<PaidDemo> {
    let paid = dir.join("paid");
    if paid.exists() {
        std::fs::remove_dir_all(&paid).with_context(|| format!("clearing {}", paid.display()))?;
    }
    std::fs::create_dir_all(&paid).with_context(|| format!("creating {}", paid.display()))?;
    let chain = AnvilProcess::start(&anvil_binary(root)?, &[])?;
    let provider = RootProvider::new_http(chain.url().parse().context("the chain's URL")?);

    let artifact: serde_json::Value = serde_json::from_str(FIAT_TOKEN_ARTIFACT).context("the USDC artifact")?;
    let code = artifact["deployedBytecode"].as_str().context("the USDC artifact's deployedBytecode")?;
    let usdc: Address = agentrep_model::chain::USDC_BASE.parse().context("USDC's address")?;
    let _: serde_json::Value = rpc(&provider, "anvil_setCode", json!([usdc, code])).await?;

    let relayer = PrivateKeySigner::random();
    let gas = U256::from(10u128.pow(20));
    let _: serde_json::Value = rpc(&provider, "anvil_setBalance", json!([relayer.address(), gas])).await?;
    let buyer = PrivateKeySigner::random();
    let mint = IMint::mintCall { to: buyer.address(), amount: U256::from(BUYER_FUNDS) }.abi_encode();
    let tx: B256 = rpc(
        &provider,
        "eth_sendTransaction",
        json!([{"from": relayer.address(), "to": usdc, "data": alloy::hex::encode_prefixed(mint)}]),
    )
    .await?;
    wait_mined(&provider, tx).await?;

    let buyer_key_file = paid.join("buyer.key");
    std::fs::write(&buyer_key_file, hex_key(&buyer)).context("writing the buyer's key")?;
    let sources = paid.join("agentrep.toml");
    std::fs::write(&sources, live_sources_toml(&chain.url())).context("writing the live sources")?;
    config.live_sources =
        Some(IngestConfig::load(Some(&sources)).map_err(|e| anyhow::anyhow!("{e}")).context("the live sources")?);
    let operator = config.operator_key.as_ref().context("the demo has an operator key")?.signer("the demo key")?;
    config.identity = ServiceIdentity { pay_to: Some(format!("{:#x}", operator.address())), ..config.identity };
    config.payments = PaymentSettings {
        rpc_url: Some(chain.url()),
        relayer_key: Some(SecretKey::new(hex_key(&relayer))),
        facilitator_url: None,
        settle_timeout: Duration::from_secs(10),
        store: Some(paid.join("agentrep-store.sqlite")),
        ..PaymentSettings::default()
    };
    Ok(PaidDemo { chain, config, buyer_key_file, buyer: buyer.address() })
}

/// The live sources of the demo: the local chain, read at its head (no confirmations on a chain
/// that mines a block per transaction).
fn live_sources_toml(rpc: &str) -> String {
    let defaults = ChainConfig::default();
    format!(
        "# Live sources of `agentrep demo --paid`: the local chain it started.\n\
         [chain]\nrpc_urls = [\"{rpc}\"]\nchain_id = {BASE_CHAIN_ID}\nuse_finalized = false\nconfirmations = 0\n\
         request_timeout_ms = {}\n",
        defaults.request_timeout_ms
    )
}

async fn wait_mined(provider: &RootProvider, tx: B256) -> anyhow::Result<()> {
    for _ in 0..200 {
        let receipt: serde_json::Value = rpc(provider, "eth_getTransactionReceipt", json!([tx])).await?;
        if !receipt.is_null() {
            if receipt["status"] != "0x1" {
                bail!("transaction {tx} reverted on the local chain");
            }
            return Ok(());
        }
        tokio::time::sleep(Duration::from_millis(25)).await;
    }
    bail!("transaction {tx} was not mined")
}

/// What `make run-paid` prints once the server listens at `base` (`http://HOST:PORT/api/agent`):
/// the chain, the buyer, and copy-paste buys of an audit and a live re-score of `seller`.
pub fn instructions(demo: &PaidDemo, root: &Path, base: &str, seller: Option<&str>) -> String {
    let shown = |p: &Path| {
        std::env::current_dir()
            .ok()
            .and_then(|cwd| p.strip_prefix(cwd).ok().map(Path::to_path_buf))
            .unwrap_or_else(|| p.to_path_buf())
            .display()
            .to_string()
    };
    let script = shown(&root.join("scripts/x402-buy.mjs"));
    let key = shown(&demo.buyer_key_file);
    let seller = seller.unwrap_or("<address>");
    format!(
        "\nPaid demo: payments on a local chain (anvil at {chain}, chain id {BASE_CHAIN_ID}, USDC at {usdc}),\n\
         settled by a relayer, offers and receipts signed by the demo key, live re-scores reading that chain.\n\
         A buyer with {funds} USDC: {buyer} (key in {key}). Buy with the official x402 client (@x402/fetch):\n\n\
         \x20 node {script} {base}/audit/{seller} {key}\n\
         \x20 node {script} '{base}/score/{seller}?live=1' {key}\n\n\
         The first is an audit (0.25 USDC), the second a live re-score (0.05 USDC); each prints the 402's terms,\n\
         the answer, and the settlement's transaction hash. Send the live re-score's paymentResponse back as\n\
         X-Agentrep-Receipt to read '{base}/score/{seller}?full=1'. The demo world's endpoints are fictional hosts,\n\
         so a live re-score's probes find nothing to reach and say so.\n",
        chain = demo.chain.url(),
        usdc = agentrep_model::chain::USDC_BASE,
        funds = BUYER_FUNDS / 1_000_000,
        buyer = demo.buyer,
    )
}
