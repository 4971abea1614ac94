//! A real local chain: the pinned anvil (`scripts/fetch-chain-tools.sh`) on a random loopback port
//! with Base's chain id, killed when the handle drops (also when a test panics).

use std::io::{BufRead, BufReader, Read, Write};
use std::net::TcpStream;
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::sync::OnceLock;
use std::time::{Duration, Instant};

use alloy::primitives::{Address, Bytes, U256};
use alloy::providers::{Provider, RootProvider};
use anyhow::{Context, bail};

use super::contracts::CHAIN_ID;

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
    child: Child,
    watchdog: Child,
    port: u16,
    url: String,
    provider: RootProvider,
    drain: Option<std::thread::JoinHandle<()>>,
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
        let bin = anvil_binary()?;
        let mut cmd = Command::new(bin);
        cmd.args(["--host", "127.0.0.1", "--port", "0", "--chain-id"])
            .arg(CHAIN_ID.to_string())
            .args(if opts.automine { &["--auto-impersonate"][..] } else { &["--no-mining", "--auto-impersonate"][..] })
            .args(["--order", "fees", "--gas-limit"])
            .arg(BLOCK_GAS_LIMIT.to_string())
            .args(["--hardfork", "cancun", "--prune-history"]);
        if let Some(n) = opts.keep_states {
            cmd.arg(n.to_string());
        }
        cmd.args(["--accounts", "0", "--color", "never"]);
        if let Some(t) = opts.genesis_time {
            cmd.arg("--timestamp").arg(t.to_string());
        }
        if let Some(state) = &opts.load_state {
            cmd.arg("--load-state").arg(state);
        }
        cmd.args(&opts.extra_args);
        cmd.stdin(Stdio::null()).stdout(Stdio::piped()).stderr(Stdio::piped());
        let mut child = cmd.spawn().context("spawning anvil")?;
        // Drop kills anvil, but a test process that is killed never drops: a watchdog shell
        // kills this anvil (by its pid) once this process is gone, and exits with anvil.
        let watchdog = Command::new("sh")
            .arg("-c")
            .arg(format!(
                "while kill -0 {me} 2>/dev/null && kill -0 {anvil} 2>/dev/null; do sleep 1; done; kill {anvil} 2>/dev/null",
                me = std::process::id(),
                anvil = child.id()
            ))
            .stdin(Stdio::null())
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .spawn()
            .context("spawning the anvil watchdog")?;
        // From here on, `guard` kills the child if anything below fails.
        let mut guard = KillOnDrop(Some(child.id()), &mut child);
        let stdout = guard.1.stdout.take().expect("piped stdout");
        let stderr = guard.1.stderr.take().expect("piped stderr");
        let (tx, rx) = std::sync::mpsc::channel::<Result<u16, String>>();
        // One thread reads stdout until "Listening on 127.0.0.1:PORT", then keeps draining it so
        // anvil never blocks on a full pipe.
        let drain = std::thread::spawn(move || {
            let mut reader = BufReader::new(stdout);
            let mut seen = String::new();
            let mut line = String::new();
            let mut sent = false;
            loop {
                line.clear();
                match reader.read_line(&mut line) {
                    Ok(0) | Err(_) => break,
                    Ok(_) => {}
                }
                if !sent {
                    if let Some(port) = line.trim().strip_prefix("Listening on 127.0.0.1:") {
                        let _ = tx.send(port.trim().parse::<u16>().map_err(|e| e.to_string()));
                        sent = true;
                    } else if seen.len() < 16_384 {
                        seen.push_str(&line);
                    }
                }
            }
            if !sent {
                let mut err = String::new();
                let _ = BufReader::new(stderr).read_to_string(&mut err);
                let _ = tx.send(Err(format!("anvil exited before listening:\n{seen}{err}")));
            }
        });
        let port = match rx.recv_timeout(Duration::from_secs(60)) {
            Ok(Ok(port)) => port,
            Ok(Err(e)) => bail!("anvil did not start: {e}"),
            Err(_) => bail!("anvil did not print its port within 60 s"),
        };
        let url = format!("http://127.0.0.1:{port}");
        wait_until_answers(port, Duration::from_secs(30))?;
        guard.0 = None;
        drop(guard);
        let provider = RootProvider::new_http(url.parse().expect("loopback url"));
        Ok(Anvil { child, watchdog, port, url, provider, drain: Some(drain) })
    }

    /// The JSON-RPC URL, `http://127.0.0.1:PORT`.
    pub fn url(&self) -> &str {
        &self.url
    }

    /// The port.
    pub fn port(&self) -> u16 {
        self.port
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

impl Drop for Anvil {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
        // The watchdog notices within a second that anvil is gone and exits.
        let _ = self.watchdog.wait();
        if let Some(t) = self.drain.take() {
            let _ = t.join();
        }
    }
}

/// Kills a child that failed to start properly.
struct KillOnDrop<'a>(Option<u32>, &'a mut Child);

impl Drop for KillOnDrop<'_> {
    fn drop(&mut self) {
        if self.0.is_some() {
            let _ = self.1.kill();
            let _ = self.1.wait();
        }
    }
}

/// Polls `eth_chainId` over a plain blocking HTTP/1.1 request until anvil answers 8453.
fn wait_until_answers(port: u16, within: Duration) -> anyhow::Result<()> {
    let deadline = Instant::now() + within;
    let body = r#"{"jsonrpc":"2.0","id":1,"method":"eth_chainId","params":[]}"#;
    let request = format!(
        "POST / HTTP/1.1\r\nHost: 127.0.0.1:{port}\r\nContent-Type: application/json\r\nContent-Length: {}\r\nConnection: close\r\n\r\n{body}",
        body.len()
    );
    let mut last = String::new();
    while Instant::now() < deadline {
        let attempt = (|| -> std::io::Result<String> {
            let mut s = TcpStream::connect(("127.0.0.1", port))?;
            s.set_read_timeout(Some(Duration::from_secs(5)))?;
            s.write_all(request.as_bytes())?;
            let mut out = String::new();
            s.read_to_string(&mut out)?;
            Ok(out)
        })();
        match attempt {
            Ok(out) if out.contains(&format!("\"0x{CHAIN_ID:x}\"")) => return Ok(()),
            Ok(out) => last = out,
            Err(e) => last = e.to_string(),
        }
        std::thread::sleep(Duration::from_millis(50));
    }
    bail!("anvil on port {port} did not answer eth_chainId = {CHAIN_ID}: {last}")
}
