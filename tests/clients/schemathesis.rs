//! The API description checked by real tools: `openapi-spec-validator` validates the OpenAPI 3.1
//! document, and schemathesis (PyPI, installed by `make setup` into `.tools/py`) generates
//! requests from it against the server on loopback, with every check: no server error, every
//! status and content type documented, every body valid against its schema, schema-valid
//! requests accepted and schema-violating ones rejected.

use std::path::PathBuf;
use std::process::Command;

use agentrep_server::{SecretKey, ServerConfig, ServiceIdentity};
use agentrep_tests::chain::paychain::{PayChain, key_hex};
use agentrep_tests::{RunningServer, shared_world};

fn python_tool(name: &str) -> PathBuf {
    let bin = std::env::var_os("AGENTREP_PY_VENV")
        .map(PathBuf::from)
        .unwrap_or_else(|| PathBuf::from(env!("CARGO_MANIFEST_DIR")).parent().expect("workspace").join(".tools/py"))
        .join("bin")
        .join(name);
    assert!(bin.is_file(), "{} is missing: run `make setup`", bin.display());
    bin
}

#[test]
fn the_openapi_document_is_valid_and_the_server_keeps_it() {
    let validator = python_tool("python");
    let schemathesis = python_tool("schemathesis");
    // A deployment that takes payments (anvil as its network), so the paid routes answer their 402
    // terms and they are checked too.
    let runtime = tokio::runtime::Runtime::new().expect("runtime");
    let chain = runtime.block_on(PayChain::start()).expect("anvil starts");
    let store = tempfile::tempdir().expect("temp dir");
    let s = RunningServer::start_config(ServerConfig {
        snapshots: shared_world().snapshots(),
        identity: ServiceIdentity {
            pay_to: Some(alloy::hex::encode_prefixed(chain.pay_to)),
            ..ServiceIdentity::default()
        },
        payments: chain.direct_settings(store.path().join("store.sqlite")),
        operator_key: Some(SecretKey::new(key_hex(&chain.operator))),
        // Webhook and discovery URLs are taken without resolving their names (a generated URL
        // names no real host, and tests ask nothing outside loopback); no event fires while the
        // snapshot stays, so nothing is ever sent to them.
        // The rate limits raised past anything the run sends from its one address, so every write
        // route answers what it would answer a client within its limits (a 429 is no answer to
        // check), and a schema-valid write must be accepted or refused for its content.
        writes: agentrep_server::writes::WriteSettings {
            allow_private_targets: true,
            per_hour: 1_000_000,
            subscribe_per_hour: 1_000_000,
            ..agentrep_server::writes::WriteSettings::default()
        },
        ..ServerConfig::default()
    });
    let url = format!("{}/openapi.json", s.base);

    let out = Command::new("timeout")
        .arg("60")
        .arg(&validator)
        .args(["-c", "import json, sys, urllib.request\nfrom openapi_spec_validator import validate\ndoc = json.load(urllib.request.urlopen(sys.argv[1]))\nvalidate(doc)\nprint(doc['openapi'], len(doc['paths']))"])
        .arg(&url)
        .output()
        .expect("python runs");
    let printed = String::from_utf8_lossy(&out.stdout);
    assert!(
        out.status.success(),
        "the OpenAPI document is not valid:\n{printed}\n{}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert!(printed.starts_with("3.1.0 "), "{printed}");

    // `make test` runs a short, seeded pass (the same requests every run); `make fuzz` a long
    // one with a fresh seed (AGENTREP_SCHEMATHESIS_EXAMPLES, AGENTREP_SCHEMATHESIS_SEED=random).
    let examples = std::env::var("AGENTREP_SCHEMATHESIS_EXAMPLES").unwrap_or_else(|_| "25".to_owned());
    let seed = match std::env::var("AGENTREP_SCHEMATHESIS_SEED").as_deref() {
        Ok("random") => None,
        Ok(seed) => Some(seed.to_owned()),
        Err(_) => Some("8402".to_owned()),
    };
    // schemathesis keeps a cache in its working directory: give it a throwaway one.
    let cwd = tempfile::tempdir().expect("temp dir");
    let out = Command::new("timeout")
        .current_dir(cwd.path())
        .arg(std::env::var("AGENTREP_SCHEMATHESIS_TIMEOUT_SECS").unwrap_or_else(|_| "600".to_owned()))
        .arg(&schemathesis)
        .arg("--config-file")
        .arg(PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("clients/schemathesis.toml"))
        .args(["run", &url, "--phases", "examples,coverage,fuzzing", "--max-examples", &examples, "--no-color"])
        .args(seed.iter().flat_map(|s| ["--seed", s.as_str()]))
        .output()
        .expect("schemathesis runs");
    let report = String::from_utf8_lossy(&out.stdout);
    assert!(out.status.success(), "schemathesis found failures:\n{report}\n{}", String::from_utf8_lossy(&out.stderr));
    assert!(report.contains("passed"), "{report}");
}
