//! A real local chain: the pinned anvil (`scripts/fetch-chain-tools.sh`) on a random loopback port
//! with Base's chain id, killed when the handle drops (also when a test panics).

use std::io::Read;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::sync::OnceLock;

use alloy::primitives::{Address, Bytes, U256};
use alloy::providers::{Provider, RootProvider};
use anyhow::{Context, bail};

use agentrep_jobs::local_chain::AnvilProcess;

/// The workspace root (the parent of this crate).
pub fn workspace_root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).parent().expect("crate has a parent").to_owned()
}

/// Installs the chain tools once per process (`scripts/fetch-chain-tools.sh`, silent when they
/// are there already) and returns the anvil binary.
///
/// # Errors
/// When the script fails (it needs `npm` the first time).
pub fn anvil_binary() -> anyhow::Result<PathBuf> {
    static TOOLS: OnceLock<Result<PathBuf, String>> = OnceLock::new();
    TOOLS
        .get_or_init(|| {
            let root = workspace_root();
            let out = Command::new("bash")
                .arg(root.join("scripts/fetch-chain-tools.sh"))
                .stdin(Stdio::null())
                .output()
                .map_err(|e| format!("running scripts/fetch-chain-tools.sh: {e}"))?;
            if !out.status.success() {
                return Err(format!(
                    "scripts/fetch-chain-tools.sh failed ({}): {}{}",
                    out.status,
                    String::from_utf8_lossy(&out.stdout),
                    String::from_utf8_lossy(&out.stderr)
                ));
            }
            let bin = root.join(".tools/bin/anvil");
            if bin.is_file() { Ok(bin) } else { Err(format!("{} is missing", bin.display())) }
        })
        .clone()
        .map_err(anyhow::Error::msg)
}

/// How to start anvil.
#[derive(Debug, Clone, Default)]
pub struct AnvilOptions {
    /// Timestamp of the genesis block (Unix seconds); anvil's clock when `None`.
    pub genesis_time: Option<i64>,
    /// A state file to start from (`--load-state`, as written by [`Anvil::dump_state`]).
    pub load_state: Option<PathBuf>,
    /// States kept in memory (`--prune-history N`), so [`super::reorg::reorg`] can roll the chain
    /// back up to N blocks; `None` keeps none (the default: rollbacks fail, blocks are cheaper).
    pub keep_states: Option<u32>,
    /// Mine a block for every transaction (payments wait for their receipts), instead of only
    /// on `evm_mine`.
    pub automine: bool,
    /// Extra command-line arguments.
    pub extra_args: Vec<String>,
}

/// A running anvil on `127.0.0.1`: chain id 8453, no automatic mining (blocks are mined with
/// `evm_mine`), every sender impersonated, a 1B block gas limit. Killed on drop.
#[derive(Debug)]
pub struct Anvil {
    process: AnvilProcess,
    url: String,
    provider: RootProvider,
}

/// The block gas limit anvil runs with: large enough that a second's transactions always fit.
pub const BLOCK_GAS_LIMIT: u64 = 1_000_000_000;

impl Anvil {
    /// Starts anvil with its genesis block at `genesis_time`.
    ///
    /// # Panics
    /// When anvil cannot be installed or started.
    pub fn start(genesis_time: i64) -> Anvil {
        Self::start_with(&AnvilOptions { genesis_time: Some(genesis_time), ..AnvilOptions::default() })
            .expect("anvil starts")
    }

    /// Starts anvil with options.
    ///
    /// # Errors
    /// When anvil cannot be installed, does not start or does not answer within 30 s.
    pub fn start_with(opts: &AnvilOptions) -> anyhow::Result<Anvil> {
        // The ingest builds reqwest (which alloy's provider uses) without a TLS crypto provider;
        // building a client before one is installed panics, even for plain HTTP.
        agentrep_ingest::web::install_crypto_provider();
        let mut args: Vec<String> = Vec::new();
        if !opts.automine {
            args.push("--no-mining".to_owned());
        }
        args.extend(["--order", "fees", "--gas-limit"].map(str::to_owned));
        args.push(BLOCK_GAS_LIMIT.to_string());
        args.extend(["--hardfork", "cancun", "--prune-history"].map(str::to_owned));
        if let Some(n) = opts.keep_states {
            args.push(n.to_string());
        }
        if let Some(t) = opts.genesis_time {
            args.extend(["--timestamp".to_owned(), t.to_string()]);
        }
        if let Some(state) = &opts.load_state {
            args.extend(["--load-state".to_owned(), state.display().to_string()]);
        }
        args.extend(opts.extra_args.iter().cloned());
        let process = AnvilProcess::start(&anvil_binary()?, &args)?;
        let url = process.url();
        let provider = RootProvider::new_http(url.parse().expect("loopback url"));
        Ok(Anvil { process, url, provider })
    }

    /// The JSON-RPC URL, `http://127.0.0.1:PORT`.
    pub fn url(&self) -> &str {
        &self.url
    }

    /// The port.
    pub fn port(&self) -> u16 {
        self.process.port()
    }

    /// An alloy provider on the node (no fillers: callers pass every field).
    pub fn provider(&self) -> RootProvider {
        self.provider.clone()
    }

    /// One JSON-RPC call: params as a JSON array (or a serializable tuple), any result.
    ///
    /// # Errors
    /// When the call fails or the result does not deserialize.
    pub async fn rpc<P, R>(&self, method: &'static str, params: P) -> anyhow::Result<R>
    where
        P: serde::Serialize,
        R: serde::de::DeserializeOwned,
    {
        let params = serde_json::to_value(params)?;
        let result: serde_json::Value =
            self.provider.raw_request(method.into(), params).await.with_context(|| format!("{method} failed"))?;
        serde_json::from_value(result).with_context(|| format!("{method}: unexpected result"))
    }

    /// Calls as one JSON-RPC batch, results in order; fails on the first error.
    ///
    /// # Errors
    /// When the batch fails or any call in it does.
    pub async fn batch(&self, calls: &[(&'static str, serde_json::Value)]) -> anyhow::Result<Vec<serde_json::Value>> {
        if calls.is_empty() {
            return Ok(Vec::new());
        }
        let mut batch = alloy::rpc::client::BatchRequest::new(self.provider.client());
        let mut waiters = Vec::with_capacity(calls.len());
        for (method, params) in calls {
            waiters.push(batch.add_call::<_, serde_json::Value>(*method, params)?);
        }
        batch.send().await?;
        let mut out = Vec::with_capacity(calls.len());
        for (w, (method, params)) in waiters.into_iter().zip(calls) {
            out.push(w.await.with_context(|| format!("{method} {params}"))?);
        }
        Ok(out)
    }

    /// Places `code` at `address` (`anvil_setCode`).
    ///
    /// # Errors
    /// When the call fails.
    pub async fn set_code(&self, address: Address, code: &Bytes) -> anyhow::Result<()> {
        let _: serde_json::Value = self.rpc("anvil_setCode", (address, code)).await?;
        Ok(())
    }

    /// Sets an ETH balance (`anvil_setBalance`).
    ///
    /// # Errors
    /// When the call fails.
    pub async fn set_balance(&self, address: Address, wei: U256) -> anyhow::Result<()> {
        let _: serde_json::Value = self.rpc("anvil_setBalance", (address, wei)).await?;
        Ok(())
    }

    /// Mines one block with timestamp `t` (`evm_mine`), with whatever is pending.
    ///
    /// # Errors
    /// When the call fails (e.g. `t` is not after the head's timestamp).
    pub async fn mine_at(&self, t: i64) -> anyhow::Result<()> {
        let _: serde_json::Value = self.rpc("evm_mine", (serde_json::json!({ "timestamp": t, "blocks": 1 }),)).await?;
        Ok(())
    }

    /// The chain's state as the JSON `anvil --load-state` reads (`anvil_dumpState`, gunzipped):
    /// accounts, code and storage at the head, every block, transaction and receipt, no
    /// historical states.
    ///
    /// # Errors
    /// When the call fails or the dump is not gzip.
    pub async fn dump_state_json(&self) -> anyhow::Result<Vec<u8>> {
        let gz: Bytes = self.rpc("anvil_dumpState", (false,)).await?;
        let mut json = Vec::new();
        flate2::read::GzDecoder::new(&gz[..]).read_to_end(&mut json).context("gunzipping anvil_dumpState")?;
        Ok(json)
    }

    /// Writes [`Anvil::dump_state_json`] to `path`, for `AnvilOptions::load_state`.
    ///
    /// # Errors
    /// When dumping or writing fails.
    pub async fn dump_state(&self, path: &Path) -> anyhow::Result<()> {
        let json = self.dump_state_json().await?;
        std::fs::write(path, json).with_context(|| format!("writing {}", path.display()))
    }

    /// Loads a state written by [`Anvil::dump_state`] into this node (`anvil_loadState`).
    ///
    /// # Errors
    /// When reading or loading fails.
    pub async fn load_state(&self, path: &Path) -> anyhow::Result<()> {
        let json = std::fs::read(path).with_context(|| format!("reading {}", path.display()))?;
        let loaded: bool = self.rpc("anvil_loadState", (Bytes::from(json),)).await?;
        if !loaded {
            bail!("anvil_loadState returned false");
        }
        Ok(())
    }

    /// The head block's number.
    ///
    /// # Errors
    /// When the call fails.
    pub async fn block_number(&self) -> anyhow::Result<u64> {
        Ok(self.provider.get_block_number().await?)
    }
}
