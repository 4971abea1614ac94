//! The committed contract artifacts are what the contract sources compile to with the pinned
//! solc (and every event keeps the topic0 of the reference), so the local chain of the ingest
//! tests runs the code the repository shows.

use std::process::Command;

#[test]
fn committed_artifacts_match_a_fresh_compile() {
    let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("..");
    let out = Command::new(root.join("scripts/check-contracts.sh")).output().expect("runs scripts/check-contracts.sh");
    assert!(
        out.status.success(),
        "contract artifacts are stale or tools are missing:\n{}\n{}",
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    );
}
