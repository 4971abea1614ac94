//! `make build` and `make test` build different selections of the workspace: the first builds only
//! the `agentrep` binary (package `agentrep-jobs` without the cluster engine) beside the
//! feature-set crate, the second the whole workspace with the cluster engine (DataFusion and
//! Ballista), the test library and the test targets with their dev-dependencies. Cargo unifies a
//! dependency's features over one build's selection, so the two would resolve shared dependencies
//! differently and `make test` would recompile them (tokio, arrow and parquet, alloy, and
//! everything above them) after `make build`. `feature-set/Cargo.toml`
//! pins them; this test fails when a dependency change makes the selections drift apart again.
//!
//! It asks cargo itself (`cargo tree`, offline and locked: the build before the tests downloaded
//! every crate) for each selection's dependencies with their features, as the Makefile builds them.

use std::collections::BTreeSet;
use std::path::Path;
use std::process::Command;

/// Every dependency of a selection as `name version features` (one line per feature set it is
/// built with: code that runs at build time resolves apart). The workspace's own crates are left
/// out: they are compiled by both selections anyway.
fn resolved(selection: &[&str]) -> BTreeSet<String> {
    let cargo = std::env::var("CARGO").unwrap_or_else(|_| "cargo".to_owned());
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).parent().expect("the workspace root");
    let output = Command::new(cargo)
        .current_dir(root)
        .args(["tree", "--offline", "--locked", "--prefix", "none", "--format", "{p} {f}"])
        .args(selection)
        .output()
        .expect("cargo runs");
    assert!(output.status.success(), "cargo tree {selection:?} failed: {}", String::from_utf8_lossy(&output.stderr));
    String::from_utf8(output.stdout)
        .expect("cargo tree prints UTF-8")
        .lines()
        .map(|line| line.trim_end_matches(" (*)").trim_end().to_owned())
        .filter(|line| !line.is_empty() && !line.contains(" (/"))
        .collect()
}

#[test]
fn make_test_builds_every_dependency_of_make_build_with_the_same_features() {
    // The Makefile's `build`: `-p agentrep-jobs -p agentrep-feature-set`.
    let build = resolved(&["-p", "agentrep-jobs", "-p", "agentrep-feature-set", "--edges", "normal,build"]);
    // scripts/test.sh: `--workspace --all-targets --features agentrep-jobs/cluster`.
    let test = resolved(&["--workspace", "--features", "agentrep-jobs/cluster", "--edges", "normal,build,dev"]);
    assert!(build.len() > 300, "cargo tree listed {} dependencies: not the workspace's", build.len());
    let rebuilt: Vec<&String> = build.difference(&test).collect();
    assert!(
        rebuilt.is_empty(),
        "`make test` would compile these dependencies again after `make build`, with other \
         features: give feature-set/Cargo.toml the features the test selection resolves \
         (`cargo tree --workspace --features agentrep-jobs/cluster -e normal,build,dev -f '{{p}} {{f}}'`):\n{}",
        rebuilt.iter().map(|line| format!("  {line}")).collect::<Vec<_>>().join("\n")
    );
}
