//! The analyst's exports read as they are: the real DuckDB and polars Python packages (pinned in
//! `scripts/test-clients/requirements.txt`) read a published snapshot's `scores.parquet`,
//! `scores.csv` and `history.parquet`, find the columns and types `DATA_DICTIONARY.md` lists, find
//! the CSV and the Parquet file in step, and run the analysts' guide's queries (`docs/analysing.md`) and polars script
//! (`tests/e2e/analyst.py`), from a folder where `demo` is the built world, as the guide's paths say.

use std::path::PathBuf;
use std::process::Command;

use agentrep_tests::{shared_world, test_clients};

#[test]
fn the_analysts_guide_queries_run_on_typed_exports() {
    let python = test_clients().join("py/bin/python");
    let root = PathBuf::from(env!("CARGO_MANIFEST_DIR")).parent().expect("workspace").to_owned();
    let cwd = tempfile::tempdir().expect("temp dir");
    std::os::unix::fs::symlink(shared_world().dir.path(), cwd.path().join("demo")).expect("link demo");
    let out = Command::new(&python)
        .arg(root.join("tests/e2e/analyst.py"))
        .arg(root.join("docs/analysing.md"))
        .arg(root.join("DATA_DICTIONARY.md"))
        .current_dir(cwd.path())
        .output()
        .expect("python runs");
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(out.status.success(), "{stdout}{}", String::from_utf8_lossy(&out.stderr));
    assert!(stdout.contains("documented queries"), "{stdout}");
}
