//! Every `curl` the README and the guides under `docs/` show, run as a reader runs it: the real
//! `curl` against the real `agentrep serve` on the demo's snapshots, with the demo's address
//! `127.0.0.1:8402` pointed at the test's port and `<address>`, `<token>` filled with wallets the
//! demo knows. A command answers 2xx unless its comment names the status it gets (`503 in the
//! demo`); a command that holds what only the reader can supply (`0x…`, `$PAYMENT_RESPONSE`) must
//! reach its route and be refused there with a JSON error, not a 404.

use std::path::Path;
use std::process::Command;

use agentrep_tests::process::{Process, demo_dir, root};
use serde_json::Value;

/// The documents whose commands are checked.
fn documents() -> Vec<std::path::PathBuf> {
    let mut docs = vec![root().join("README.md")];
    let mut guides: Vec<_> = std::fs::read_dir(root().join("docs"))
        .expect("docs/")
        .flatten()
        .map(|e| e.path())
        .filter(|p| p.extension().is_some_and(|e| e == "md"))
        .collect();
    guides.sort();
    docs.extend(guides);
    docs
}

/// A documented command: where it is, the shell text, and what its comment promises.
#[derive(Debug)]
struct Documented {
    at: String,
    command: String,
    comment: String,
}

/// The `curl` commands of a Markdown document's fenced blocks, with their continuation lines (a
/// trailing `\` or a quote still open) and their trailing `# comment` apart.
fn curl_commands(path: &Path) -> Vec<Documented> {
    let text = std::fs::read_to_string(path).expect("document");
    let name = path.strip_prefix(root()).unwrap_or(path).display().to_string();
    let mut found = Vec::new();
    let mut in_fence = false;
    let mut lines = text.lines().enumerate();
    while let Some((i, line)) = lines.next() {
        if line.starts_with("```") {
            in_fence = !in_fence;
            continue;
        }
        if !in_fence || !line.trim_start().starts_with("curl ") {
            continue;
        }
        let mut command = line.trim().to_owned();
        while command.ends_with('\\') || command.matches('\'').count() % 2 == 1 {
            let Some((_, next)) = lines.next() else { break };
            command.push('\n');
            command.push_str(next);
        }
        let (command, comment) = split_comment(&command);
        found.push(Documented { at: format!("{name}:{}", i + 1), command, comment });
    }
    found
}

/// Splits a trailing `# comment` (outside quotes) from the command.
fn split_comment(command: &str) -> (String, String) {
    let mut quote = None;
    for (i, c) in command.char_indices() {
        match (quote, c) {
            (None, '\'' | '"') => quote = Some(c),
            (Some(q), c) if c == q => quote = None,
            (None, '#') if command[..i].ends_with(char::is_whitespace) => {
                return (command[..i].trim().to_owned(), command[i + 1..].trim().to_owned());
            }
            _ => {}
        }
    }
    (command.trim().to_owned(), String::new())
}

/// The status a command's comment promises (`503 in the demo`), if it names one.
fn promised_status(comment: &str) -> Option<u16> {
    comment
        .split(|c: char| !c.is_ascii_digit())
        .filter(|w| w.len() == 3)
        .filter_map(|w| w.parse().ok())
        .find(|s| (400..600).contains(s))
}

/// A command that holds what only its reader can supply.
fn needs_the_reader(command: &str) -> bool {
    command.contains('…') || command.contains('$')
}

async fn json(url: &str) -> Value {
    reqwest::get(url).await.expect("get").json().await.expect("json")
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn every_documented_request_answers_on_the_demo() {
    let snapshots = demo_dir().join("snapshots").display().to_string();
    let mut server = Process::start(&["serve", "--snapshots", &snapshots, "--addr", "127.0.0.1:0"], &[]);
    let base = server.serving();
    let origin = base.strip_suffix("/api/agent").expect("served under /api/agent").to_owned();
    let leaderboard = json(&format!("{base}/leaderboard?limit=1")).await;
    let seller = leaderboard["results"][0]["payTo"].as_str().expect("a ranked seller").to_owned();
    let deployers = json(&format!("{base}/deployers/top")).await;
    let deployer = deployers["deployers"][0]["address"].as_str().expect("a ranked deployer");
    let launches = json(&format!("{base}/deployer/{deployer}")).await;
    let token = launches["launches"][0]["token"].as_str().expect("a launched token").to_owned();

    let commands: Vec<Documented> = documents().iter().flat_map(|d| curl_commands(d)).collect();
    assert!(commands.len() >= 25, "the documents' curl commands were not found: {commands:?}");
    let workdir = tempfile::tempdir().expect("temp dir");
    let mut failures = Vec::new();
    for doc in &commands {
        let command = doc
            .command
            .replace("http://127.0.0.1:8402", &origin)
            .replace("<address>", &seller)
            .replace("<token>", &token);
        assert!(!command.contains("8402") && !command.contains('<'), "{}: unfilled: {command}", doc.at);
        let out = Command::new("bash")
            .arg("-c")
            .arg(format!("{command} -sS -w '\\n%{{http_code}}'"))
            .current_dir(workdir.path())
            .env("PAYMENT_RESPONSE", "")
            .output()
            .expect("bash runs curl");
        let stdout = String::from_utf8_lossy(&out.stdout);
        let (body, status) = stdout.rsplit_once('\n').unwrap_or(("", &stdout));
        let status: u16 = status.trim().parse().unwrap_or(0);
        let ok = if let Some(promised) = promised_status(&doc.comment) {
            status == promised
        } else if needs_the_reader(&doc.command) {
            (400..500).contains(&status)
                && ![404, 405].contains(&status)
                && serde_json::from_str::<Value>(body).is_ok_and(|v| v["error"]["code"].is_string())
        } else {
            (200..300).contains(&status)
        };
        if !ok {
            failures.push(format!(
                "{}: {status}\n  {command}\n  {}{}",
                doc.at,
                body.chars().take(300).collect::<String>(),
                String::from_utf8_lossy(&out.stderr)
            ));
        }
    }
    assert!(failures.is_empty(), "documented commands that do not answer as documented:\n{}", failures.join("\n"));
    assert!(workdir.path().join("scores.parquet").exists(), "the documented download wrote its file");
}
