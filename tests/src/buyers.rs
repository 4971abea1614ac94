//! The official x402 buyers, each run as its own process (`payments/clients/`): what a buyer of
//! agentrep's paid answers actually runs.

use std::path::Path;
use std::process::Command;

use alloy::signers::local::PrivateKeySigner;
use serde_json::Value;

use crate::chain::paychain::key_hex;
use crate::test_clients;

/// One official x402 buyer.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum OfficialBuyer {
    /// npm `@x402/fetch` + `@x402/evm`, v2.
    FetchV2,
    /// npm `x402-fetch`, v1.
    FetchV1,
    /// PyPI `x402`, v2.
    PythonV2,
    /// PyPI `x402` on its v1 path.
    PythonV1,
}

impl OfficialBuyer {
    /// Every one of them.
    pub const ALL: [OfficialBuyer; 4] = [Self::FetchV2, Self::FetchV1, Self::PythonV2, Self::PythonV1];

    /// Its name.
    pub fn name(self) -> &'static str {
        match self {
            Self::FetchV2 => "@x402/fetch (v2)",
            Self::FetchV1 => "x402-fetch (v1)",
            Self::PythonV2 => "PyPI x402 (v2)",
            Self::PythonV1 => "PyPI x402 (v1 path)",
        }
    }

    /// Pays for `url` with `payer`'s key (`max`: the v1 client's spending cap, atomic units);
    /// returns the buyer's one JSON line (`status`, the decoded `settlement`, `body`).
    pub async fn pay(self, url: &str, payer: &PrivateKeySigner, max: u64) -> Value {
        let scripts = Path::new(env!("CARGO_MANIFEST_DIR")).join("payments/clients");
        let (program, script) = match self {
            Self::FetchV2 => ("node".into(), "x402_fetch_v2.mjs"),
            Self::FetchV1 => ("node".into(), "x402_fetch_v1.mjs"),
            Self::PythonV2 => (test_clients().join("py/bin/python"), "x402_buyer.py"),
            Self::PythonV1 => (test_clients().join("py/bin/python"), "x402_buyer_v1.py"),
        };
        let mut args = vec![scripts.join(script).display().to_string(), url.to_owned(), key_hex(payer)];
        if self == Self::FetchV1 {
            args.push(max.to_string());
        }
        let program: std::path::PathBuf = program;
        tokio::task::spawn_blocking(move || run_buyer(&program, &args.iter().map(String::as_str).collect::<Vec<_>>()))
            .await
            .expect("the buyer's thread")
    }
}

/// Pays for a POST of `body` to `url` with the official `@x402/fetch` v2 buyer (a paid write).
pub async fn pay_post(url: &str, body: &Value, payer: &PrivateKeySigner) -> Value {
    let script = Path::new(env!("CARGO_MANIFEST_DIR")).join("payments/clients/x402_fetch_v2.mjs");
    let args = [script.display().to_string(), url.to_owned(), key_hex(payer)];
    let body = body.to_string();
    tokio::task::spawn_blocking(move || {
        run_buyer_with(
            Path::new("node"),
            &args.iter().map(String::as_str).collect::<Vec<_>>(),
            &[("BUY_METHOD", "POST"), ("BUY_BODY", &body), ("BUY_MAX_USD", "30")],
        )
    })
    .await
    .expect("the buyer's thread")
}

/// Runs a buyer (at most two minutes) and parses its last line as JSON.
///
/// # Panics
/// When it fails or prints no JSON.
pub fn run_buyer(program: &Path, args: &[&str]) -> Value {
    run_buyer_with(program, args, &[])
}

/// [`run_buyer`] with extra environment.
///
/// # Panics
/// When it fails or prints no JSON.
pub fn run_buyer_with(program: &Path, args: &[&str], env: &[(&str, &str)]) -> Value {
    let tools = test_clients();
    let out = Command::new("timeout")
        .arg("120")
        .arg(program)
        .args(args)
        .env("AGENTREP_CLIENTS_NODE_MODULES", tools.join("clients/node_modules"))
        .envs(env.iter().copied())
        .output()
        .expect("the buyer runs");
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(out.status.success(), "{}: {stdout}{}", program.display(), String::from_utf8_lossy(&out.stderr));
    serde_json::from_str(stdout.lines().last().unwrap_or_default()).unwrap_or_else(|e| panic!("{e}: {stdout}"))
}
