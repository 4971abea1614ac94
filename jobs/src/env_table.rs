//! The operator's table of every `AGENTREP_*` environment variable, generated from the code that
//! reads them: the flags clap declares (each with its variable), the server's table
//! (`agentrep_server::env`), the program's own ([`JOBS_ENV`]) and the ingest configuration's
//! pattern. The operators' guide's copy is checked against it by a test.

use std::collections::BTreeMap;

use agentrep_server::env::{EnvVar, SERVER_ENV};
use clap::CommandFactory;

use crate::cli::Cli;

/// `AGENTREP_ANVIL`.
pub const ANVIL: EnvVar = EnvVar {
    name: "AGENTREP_ANVIL",
    default: "`.tools/bin/anvil`",
    meaning: "the anvil binary `demo --paid` starts its local chain with",
    secret: false,
};

/// `AGENTREP_PROBE_KEY`.
pub const PROBE_KEY: EnvVar = EnvVar {
    name: agentrep_ingest::sources::PROBE_KEY_ENV,
    default: "unset",
    meaning: "the paid probe's key: agentrep pays for one call of each seller with it, on the budget of `[paid_probes]`, when that is enabled",
    secret: true,
};

/// Variables the program reads besides its flags' and the server's, with who reads them.
pub const JOBS_ENV: &[(&EnvVar, &str)] =
    &[(&ANVIL, "`demo --paid`"), (&PROBE_KEY, "`ingest`, `schedule` (the `paid-probes` source)")];

/// One row.
struct Row {
    default: String,
    meaning: String,
    read_by: Vec<String>,
}

fn first_sentence(text: &str) -> String {
    let line = text.lines().next().unwrap_or_default().trim();
    line.trim_end_matches('.').to_owned()
}

/// Every variable bound to a flag: name → (default, help, `--flag` of which commands).
fn flag_rows() -> BTreeMap<String, Row> {
    let mut rows: BTreeMap<String, Row> = BTreeMap::new();
    let root = Cli::command();
    let mut commands: Vec<(String, &clap::Command)> = vec![(String::new(), &root)];
    let mut i = 0;
    while i < commands.len() {
        let (path, cmd) = (commands[i].0.clone(), commands[i].1);
        for sub in cmd.get_subcommands() {
            let name = if path.is_empty() { sub.get_name().to_owned() } else { format!("{path} {}", sub.get_name()) };
            commands.push((name, sub));
        }
        i += 1;
    }
    for (path, cmd) in &commands {
        for arg in cmd.get_arguments() {
            let Some(env) = arg.get_env() else { continue };
            let name = env.to_string_lossy().into_owned();
            let flag = arg.get_long().map(|l| format!("--{l}")).unwrap_or_default();
            let used = if path.is_empty() { format!("`{flag}` of every command") } else { format!("`{path} {flag}`") };
            let default: Vec<String> =
                arg.get_default_values().iter().map(|v| format!("`{}`", v.to_string_lossy())).collect();
            let row = rows.entry(name).or_insert_with(|| Row {
                default: if default.is_empty() { "none".to_owned() } else { default.join(", ") },
                meaning: arg.get_help().map(|h| first_sentence(&h.to_string())).unwrap_or_default(),
                read_by: Vec::new(),
            });
            if !row.read_by.contains(&used) {
                row.read_by.push(used);
            }
        }
    }
    rows
}

/// Who reads the server's variables.
const THE_SERVER: &str = "the server (`serve`, `demo`, `schedule --serve`)";

/// The table, as the operators' guide carries it.
pub fn markdown() -> String {
    let mut out = String::from("| variable | default | what it sets or enables | read by |\n|---|---|---|---|\n");
    let mut flags = flag_rows();
    for (name, row) in &flags {
        if SERVER_ENV.iter().any(|v| v.name == name) {
            continue;
        }
        out.push_str(&format!("| `{name}` | {} | {} | {} |\n", row.default, row.meaning, row.read_by.join(", ")));
    }
    for var in SERVER_ENV {
        let secret = if var.secret { " (a secret: never printed or logged)" } else { "" };
        let mut read_by = vec![THE_SERVER.to_owned()];
        read_by.extend(flags.remove(var.name).map(|r| r.read_by).unwrap_or_default());
        out.push_str(&format!(
            "| `{}` | {} | {}{secret} | {} |\n",
            var.name,
            var.default,
            var.meaning,
            read_by.join(", ")
        ));
    }
    for (var, read_by) in JOBS_ENV {
        let secret = if var.secret { " (a secret: never printed or logged)" } else { "" };
        out.push_str(&format!("| `{}` | {} | {}{secret} | {read_by} |\n", var.name, var.default, var.meaning));
    }
    out.push_str(
        "| `AGENTREP_<SECTION>__<FIELD>` | the field's default (`agentrep.example.toml`) | any field of the ingest configuration, e.g. `AGENTREP_CHAIN__RPC_URLS='[\"http://…\"]'` | `ingest`, `schedule`, and the live sources of `serve` |\n",
    );
    out.push_str("| `RUST_LOG` | by `-v` | the log filter (`info`, `agentrep=debug`, …) | every command |\n");
    out
}

/// Every variable name in the table (the pattern row aside).
pub fn names() -> Vec<String> {
    let mut names: Vec<String> = flag_rows().into_keys().collect();
    names.extend(SERVER_ENV.iter().map(|v| v.name.to_owned()));
    names.extend(JOBS_ENV.iter().map(|(v, _)| v.name.to_owned()));
    names
}
