//! `agentrep serve --check`: the effective configuration (secrets redacted), and every part the
//! first sale reaches tried without selling anything: the snapshot, the write store, the keys, the
//! payment node and the way to settle, the live sources. A check that fails is what a buyer would
//! otherwise meet as a 503 or a failed settlement.
//!
//! It touches no ledger row (it can run beside a serving process): the store is opened as the
//! server opens it, and nothing is reserved, released or settled.

use std::fmt::Write as _;

use agentrep_payments::Settler;
use alloy::primitives::U256;

use crate::env::{self, EnvVar, SERVER_ENV};
use crate::payment::{PaymentSettings, connect};
use crate::{App, ServerConfig};

/// How one part came out.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Outcome {
    /// Works.
    Ok,
    /// Off by configuration (not an error: the deployment does without it).
    Off,
    /// Would fail at the first sale or request that needs it.
    Fail,
}

/// One line of the report.
#[derive(Debug, Clone)]
pub struct Line {
    /// How it came out.
    pub outcome: Outcome,
    /// What was checked.
    pub part: String,
    /// What was found.
    pub detail: String,
}

/// What `serve --check` found.
#[derive(Debug, Default)]
pub struct Report {
    /// The effective configuration, one `name = value` per variable, secrets redacted.
    pub configuration: Vec<(String, String)>,
    /// The checks, in order.
    pub lines: Vec<Line>,
}

impl Report {
    fn push(&mut self, outcome: Outcome, part: &str, detail: impl Into<String>) {
        self.lines.push(Line { outcome, part: part.to_owned(), detail: detail.into() });
    }

    /// Whether anything would fail.
    pub fn failed(&self) -> bool {
        self.lines.iter().any(|l| l.outcome == Outcome::Fail)
    }

    /// The report as the operator reads it.
    pub fn render(&self) -> String {
        let mut out = String::from("Effective configuration (secrets redacted):\n");
        let width = self.configuration.iter().map(|(n, _)| n.len()).max().unwrap_or(0);
        for (name, value) in &self.configuration {
            let _ = writeln!(out, "  {name:<width$} = {value}");
        }
        out.push_str("\nChecks:\n");
        for l in &self.lines {
            let tag = match l.outcome {
                Outcome::Ok => "ok  ",
                Outcome::Off => "off ",
                Outcome::Fail => "FAIL",
            };
            let _ = writeln!(out, "  {tag} {}: {}", l.part, l.detail);
        }
        let failures = self.lines.iter().filter(|l| l.outcome == Outcome::Fail).count();
        if failures == 0 {
            out.push_str("\nEverything the configuration turns on works.\n");
        } else {
            let _ = writeln!(out, "\n{failures} check(s) failed: fix them before serving.");
        }
        out
    }
}

/// A URL as it may be printed: scheme, host and port (paths and queries of node URLs carry API
/// keys, user info carries passwords).
pub fn redact_url(raw: &str) -> String {
    match raw.parse::<url::Url>() {
        Ok(u) => {
            let hidden = u.path().len() > 1 || u.query().is_some() || !u.username().is_empty();
            format!("{}{}", agentrep_ingest::chain::redact(&u), if hidden { "/… (path redacted)" } else { "" })
        }
        Err(_) => "(not a URL)".to_owned(),
    }
}

fn shown(var: &EnvVar, config: &ServerConfig) -> String {
    let Some(value) = var.get() else { return format!("unset ({})", var.default) };
    if var.secret {
        let key = crate::SecretKey::new(value);
        return match key.signer(var.name) {
            Ok(signer) => format!("set (redacted; its address is {})", signer.address()),
            Err(_) => "set (redacted; not a 32-byte hex private key)".to_owned(),
        };
    }
    if var.name == env::PAYMENT_RPC.name || var.name == env::FACILITATOR_URL.name {
        return redact_url(&value);
    }
    if var.name == env::STORE.name {
        return config.store_path().display().to_string();
    }
    value
}

/// Runs every check of `config` (as `serve` would start it).
pub async fn run(config: &ServerConfig, refused: &[crate::BadVariable]) -> Report {
    let mut report = Report::default();
    for bad in refused {
        report.push(Outcome::Fail, "configuration", bad.to_string());
    }
    report.configuration.push(("snapshots".to_owned(), config.snapshots.display().to_string()));
    report.configuration.push(("base path".to_owned(), config.base_path.clone()));
    report.configuration.push(("store".to_owned(), config.store_path().display().to_string()));
    for var in SERVER_ENV {
        report.configuration.push((var.name.to_owned(), shown(var, config)));
    }

    let app = crate::routes::app(config);
    check_snapshot(&app, &mut report);
    let store_path = config.store_path();
    let store = tokio::task::spawn_blocking(move || agentrep_store::Store::open(&store_path)).await;
    let store_ok = match store {
        Ok(Ok(_)) => {
            report.push(Outcome::Ok, "write store", format!("{} opens", config.store_path().display()));
            true
        }
        Ok(Err(e)) => {
            report.push(Outcome::Fail, "write store", format!("{}: {e}", config.store_path().display()));
            false
        }
        Err(e) => {
            report.push(Outcome::Fail, "write store", e.to_string());
            false
        }
    };
    check_signing_key(config, &mut report);
    let payments_on = check_payments(config, store_ok, &mut report).await;
    check_live_sources(config, &mut report).await;
    if payments_on {
        check_paid_routes(&app, &mut report);
    }
    report
}

fn check_snapshot(app: &App, report: &mut Report) {
    app.reload();
    match app.snapshot() {
        Some(snap) => report.push(
            Outcome::Ok,
            "snapshot",
            format!("{} (day {}, {} sellers indexed)", snap.id, snap.date(), snap.index.rows.len()),
        ),
        None => report.push(
            Outcome::Fail,
            "snapshot",
            "no loadable snapshot under the snapshots folder: every read and paid route would answer 503 no_snapshot (run `agentrep rebuild`)",
        ),
    }
}

fn check_signing_key(config: &ServerConfig, report: &mut Report) {
    match &config.operator_key {
        None => report.push(
            Outcome::Off,
            "signing key",
            "AGENTREP_SIGNING_KEY is unset: nothing is signed; the live re-score and the risk report are not sold",
        ),
        Some(key) => match key.signer("AGENTREP_SIGNING_KEY") {
            Ok(signer) => report.push(Outcome::Ok, "signing key", format!("signs as {}", signer.address())),
            Err(why) => report.push(Outcome::Fail, "signing key", why.to_string()),
        },
    }
}

/// The payment variables that were set, for telling "payments off" from "payments half
/// configured".
fn payment_variables_set() -> Vec<&'static str> {
    [&env::PAY_TO, &env::PAYMENT_RPC, &env::RELAYER_KEY, &env::FACILITATOR_URL]
        .iter()
        .filter(|v| v.get().is_some())
        .map(|v| v.name)
        .collect()
}

/// Returns whether payments would be on.
async fn check_payments(config: &ServerConfig, store_ok: bool, report: &mut Report) -> bool {
    let set = payment_variables_set();
    if set.is_empty() {
        report.push(
            Outcome::Off,
            "payments",
            "no payment variable is set: paid routes answer 503 payments_not_configured",
        );
        return false;
    }
    let settings: &PaymentSettings = &config.payments;
    let (_, settler) = match connect(config.identity.pay_to.as_deref(), settings).await {
        Ok(connected) => connected,
        Err(why) => {
            report.push(Outcome::Fail, "payments", format!("{why} (set: {})", set.join(", ")));
            return false;
        }
    };
    report.push(
        Outcome::Ok,
        "payment node",
        format!("answers with chain id {} ({})", settings.network.chain_id, settings.network.caip2),
    );
    if !store_ok {
        report.push(
            Outcome::Fail,
            "payments",
            "the ledger (the write store) does not open: no payment can be recorded",
        );
    }
    match &settler {
        Settler::Direct(direct) => {
            let relayer = direct.relayer();
            match settler.reader().ether_balance(relayer).await {
                Ok(wei) if wei > U256::ZERO => {
                    report.push(Outcome::Ok, "relayer", format!("{relayer} holds {wei} wei for gas"))
                }
                Ok(_) => report.push(
                    Outcome::Fail,
                    "relayer",
                    format!("{relayer} holds no ETH: the first settlement could not pay its gas"),
                ),
                Err(e) => report.push(Outcome::Fail, "relayer", format!("its balance could not be read: {e}")),
            }
        }
        Settler::Facilitator(facilitator) => match facilitator.supported().await {
            Ok(supported) => {
                let network = &settings.network;
                let kinds: Vec<String> = supported
                    .kinds
                    .iter()
                    .filter(|k| k.scheme == "exact" && network.is_named(&k.network))
                    .map(|k| format!("v{} {}", k.x402_version, k.network))
                    .collect();
                if kinds.is_empty() {
                    report.push(
                        Outcome::Fail,
                        "facilitator",
                        format!(
                            "its /supported lists no `exact` kind on {}: it would refuse every payment",
                            network.caip2
                        ),
                    );
                } else {
                    report.push(Outcome::Ok, "facilitator", format!("settles exact on {}", kinds.join(", ")));
                }
            }
            Err(e) => report.push(Outcome::Fail, "facilitator", e.to_string()),
        },
    }
    report.push(Outcome::Ok, "payments", format!("settled {}", settler.kind()));
    store_ok
}

async fn check_live_sources(config: &ServerConfig, report: &mut Report) {
    let Some(path) = env::LIVE_SOURCES.get() else {
        report.push(Outcome::Off, "live sources", "AGENTREP_LIVE_SOURCES is unset: the live re-score is not sold");
        return;
    };
    let Some(sources) = &config.live_sources else {
        let why = match agentrep_ingest::config::IngestConfig::load(Some(std::path::Path::new(&path))) {
            Err(e) => e.to_string(),
            Ok(_) => "it loaded on a second try; check the file's permissions".to_owned(),
        };
        report.push(Outcome::Fail, "live sources", format!("{path}: {why}"));
        return;
    };
    let urls: Vec<String> = sources.chain.rpc_urls.iter().map(agentrep_ingest::chain::redact).collect();
    match agentrep_ingest::chain::Chain::connect(&sources.chain).await {
        Ok(chain) => match chain.safe_head().await {
            Ok(head) => report.push(
                Outcome::Ok,
                "live sources",
                format!("chain {} at {} answers (safe head {head})", sources.chain.chain_id, urls.join(", ")),
            ),
            Err(e) => report.push(Outcome::Fail, "live sources", format!("{}: {e:#}", urls.join(", "))),
        },
        Err(e) => report.push(Outcome::Fail, "live sources", format!("{}: {e:#}", urls.join(", "))),
    }
}

/// With payments on: each paid route sold here, or refused before its terms and why.
fn check_paid_routes(app: &App, report: &mut Report) {
    for def in app.endpoints() {
        let Some(paid) = &def.paid else { continue };
        let route = format!("{} {}", def.method.as_str(), paid.path(def.path));
        let missing = crate::payment::needs::unmet(app, paid.needs);
        if missing.is_empty() {
            report.push(Outcome::Ok, "paid route", format!("{route} is sold ({} USDC)", paid.price_text()));
        } else {
            let why = crate::payment::needs::join(&missing);
            report.push(Outcome::Off, "paid route", format!("{route} is not sold: it needs {why}"));
        }
    }
}
