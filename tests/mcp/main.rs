//! The MCP server against the official SDK clients (npm `@modelcontextprotocol/sdk` 1.32.2 and
//! `@modelcontextprotocol/client` 2.4.0, PyPI `mcp` 2.3.0, installed by
//! `scripts/fetch-test-clients.sh`) over streamable HTTP and stdio, and its protocol rules with
//! raw HTTP requests. Everything runs on loopback against the real server or the real
//! `agentrep mcp` process.

mod clients;
mod protocol;

use std::io::Read;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use serde_json::Value;

/// The workspace root.
fn root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).parent().expect("crate has a parent").to_owned()
}

/// `.tools`, with the client SDKs installed.
fn tools() -> PathBuf {
    agentrep_tests::test_clients()
}

/// Which client script.
#[derive(Debug, Clone, Copy)]
enum Sdk {
    /// `tests/mcp/clients/ts_client.cjs` under Node.
    Node,
    /// `tests/mcp/clients/py_client.py` in `.tools/py`.
    Python,
}

/// Longest a client run may take.
const CLIENT_TIMEOUT: Duration = Duration::from_secs(90);

/// Runs a client script with its plan and returns the JSON it printed.
fn run_client(sdk: Sdk, plan: &Value) -> Value {
    let tools = tools();
    let scripts = root().join("tests/mcp/clients");
    let mut cmd = match sdk {
        Sdk::Node => {
            let mut c = Command::new("node");
            c.arg(scripts.join("ts_client.cjs")).env("NODE_PATH", tools.join("clients/node_modules"));
            c
        }
        Sdk::Python => {
            let mut c = Command::new(tools.join("py/bin/python"));
            c.arg(scripts.join("py_client.py"));
            c
        }
    };
    cmd.arg(plan.to_string()).stdin(Stdio::null()).stdout(Stdio::piped()).stderr(Stdio::piped());
    let mut child = cmd.spawn().unwrap_or_else(|e| panic!("{sdk:?} client does not start: {e}"));
    let pipe = |mut r: Box<dyn Read + Send>| {
        std::thread::spawn(move || {
            let mut buf = Vec::new();
            let _ = r.read_to_end(&mut buf);
            buf
        })
    };
    let stdout = pipe(Box::new(child.stdout.take().expect("piped")));
    let stderr = pipe(Box::new(child.stderr.take().expect("piped")));
    let started = Instant::now();
    let status = loop {
        if let Some(status) = child.try_wait().expect("waitable") {
            break status;
        }
        if started.elapsed() > CLIENT_TIMEOUT {
            let _ = child.kill();
            let _ = child.wait();
            panic!("{sdk:?} client timed out after {CLIENT_TIMEOUT:?}: {plan}");
        }
        std::thread::sleep(Duration::from_millis(20));
    };
    let (stdout, stderr) = (stdout.join().expect("reader"), stderr.join().expect("reader"));
    assert!(
        status.success(),
        "{sdk:?} client failed ({status}) with plan {}:\n{}",
        summarise(plan),
        String::from_utf8_lossy(&stderr)
    );
    serde_json::from_slice(&stdout).unwrap_or_else(|e| {
        panic!("{sdk:?} client printed no JSON ({e}): {}", String::from_utf8_lossy(&stdout[..stdout.len().min(500)]))
    })
}

/// A plan without its calls, for messages.
fn summarise(plan: &Value) -> String {
    let mut p = plan.clone();
    if let Some(obj) = p.as_object_mut() {
        obj.remove("calls");
    }
    p.to_string()
}
