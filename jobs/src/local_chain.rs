//! A local chain for `agentrep demo --paid` and the tests: the pinned anvil (npm
//! `@foundry-rs/anvil`, installed into `.tools/bin` by `scripts/fetch-chain-tools.sh`) on a random
//! loopback port with Base's chain id, killed when its handle drops, and by a watchdog when this
//! process dies without dropping it (SIGKILL).

use std::io::{BufRead, BufReader, Read};
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::time::Duration;

use anyhow::{Context, bail};

/// Base mainnet's chain id: a local chain with it verifies Base's EIP-712 domains.
pub const BASE_CHAIN_ID: u64 = 8453;

/// The anvil binary `scripts/fetch-chain-tools.sh` installs under `root`, or `AGENTREP_ANVIL`.
///
/// # Errors
/// When neither exists (the message says how to install it).
pub fn anvil_binary(root: &Path) -> anyhow::Result<PathBuf> {
    if let Some(bin) = crate::env_table::ANVIL.get() {
        return Ok(PathBuf::from(bin));
    }
    let bin = root.join(".tools/bin/anvil");
    if bin.is_file() {
        Ok(bin)
    } else {
        bail!(
            "{} is missing: run `make run-paid` (or scripts/fetch-chain-tools.sh) to install anvil from npm",
            bin.display()
        )
    }
}

/// A running anvil on `127.0.0.1`. Killed on drop.
#[derive(Debug)]
pub struct AnvilProcess {
    child: Child,
    watchdog: Child,
    port: u16,
    drain: Option<std::thread::JoinHandle<()>>,
}

impl AnvilProcess {
    /// Starts `bin` on a random loopback port with chain id 8453, every sender impersonated,
    /// and `extra` arguments; waits until it answers.
    ///
    /// # Errors
    /// When anvil does not start, or does not print its port within 60 s.
    pub fn start(bin: &Path, extra: &[String]) -> anyhow::Result<Self> {
        let mut cmd = Command::new(bin);
        cmd.args(["--host", "127.0.0.1", "--port", "0", "--chain-id"])
            .arg(BASE_CHAIN_ID.to_string())
            .args(["--auto-impersonate", "--accounts", "0", "--color", "never"])
            .args(extra)
            .stdin(Stdio::null())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped());
        let mut child = cmd.spawn().with_context(|| format!("starting {}", bin.display()))?;
        // Drop kills anvil, but a process that is killed never drops: a watchdog shell kills this
        // anvil (by its pid) once this process is gone, and exits with anvil.
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
            .spawn();
        let watchdog = match watchdog {
            Ok(w) => w,
            Err(e) => {
                let _ = child.kill();
                let _ = child.wait();
                return Err(e).context("starting the anvil watchdog");
            }
        };
        let stdout = child.stdout.take().expect("piped stdout");
        let stderr = child.stderr.take().expect("piped stderr");
        let (tx, rx) = std::sync::mpsc::channel::<Result<u16, String>>();
        // Reads stdout until "Listening on 127.0.0.1:PORT", then keeps draining it so anvil never
        // blocks on a full pipe.
        let drain = std::thread::spawn(move || {
            let mut reader = BufReader::new(stdout);
            let (mut seen, mut line, mut sent) = (String::new(), String::new(), false);
            loop {
                line.clear();
                match reader.read_line(&mut line) {
                    Ok(0) | Err(_) => break,
                    Ok(_) => {}
                }
                if sent {
                    continue;
                }
                if let Some(port) = line.trim().strip_prefix("Listening on 127.0.0.1:") {
                    let _ = tx.send(port.trim().parse::<u16>().map_err(|e| e.to_string()));
                    sent = true;
                } else if seen.len() < 16_384 {
                    seen.push_str(&line);
                }
            }
            if !sent {
                let mut err = String::new();
                let _ = BufReader::new(stderr).read_to_string(&mut err);
                let _ = tx.send(Err(format!("anvil exited before listening:\n{seen}{err}")));
            }
        });
        let mut process = Self { child, watchdog, port: 0, drain: Some(drain) };
        process.port = match rx.recv_timeout(Duration::from_secs(60)) {
            Ok(Ok(port)) => port,
            Ok(Err(e)) => bail!("anvil did not start: {e}"),
            Err(_) => bail!("anvil did not print its port within 60 s"),
        };
        wait_until_answers(process.port, Duration::from_secs(30))?;
        Ok(process)
    }

    /// The port.
    pub fn port(&self) -> u16 {
        self.port
    }

    /// The JSON-RPC URL, `http://127.0.0.1:PORT`.
    pub fn url(&self) -> String {
        format!("http://127.0.0.1:{}", self.port)
    }

    /// anvil's process id.
    pub fn pid(&self) -> u32 {
        self.child.id()
    }
}

/// Polls `eth_chainId` over a plain blocking HTTP/1.1 request until anvil answers 8453.
fn wait_until_answers(port: u16, within: Duration) -> anyhow::Result<()> {
    use std::io::Write;
    let deadline = std::time::Instant::now() + within;
    let body = r#"{"jsonrpc":"2.0","id":1,"method":"eth_chainId","params":[]}"#;
    let request = format!(
        "POST / HTTP/1.1\r\nHost: 127.0.0.1:{port}\r\nContent-Type: application/json\r\nContent-Length: {}\r\nConnection: close\r\n\r\n{body}",
        body.len()
    );
    let mut last = String::new();
    while std::time::Instant::now() < deadline {
        let attempt = (|| -> std::io::Result<String> {
            let mut s = std::net::TcpStream::connect(("127.0.0.1", port))?;
            s.set_read_timeout(Some(Duration::from_secs(5)))?;
            s.write_all(request.as_bytes())?;
            let mut out = String::new();
            s.read_to_string(&mut out)?;
            Ok(out)
        })();
        match attempt {
            Ok(out) if out.contains(&format!("\"0x{BASE_CHAIN_ID:x}\"")) => return Ok(()),
            Ok(out) => last = out,
            Err(e) => last = e.to_string(),
        }
        std::thread::sleep(Duration::from_millis(50));
    }
    bail!("anvil on port {port} did not answer eth_chainId = {BASE_CHAIN_ID}: {last}")
}

impl Drop for AnvilProcess {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
        let _ = self.watchdog.kill();
        let _ = self.watchdog.wait();
        if let Some(drain) = self.drain.take() {
            let _ = drain.join();
        }
    }
}
