//! The sources table drives the documents: the operators' guide's and ARCHITECTURE.md's tables of sources and
//! SCORING.md's freshness table are generated from `pipeline/lake/src/sources.rs`, and the
//! example configuration names every source's cadence; `agentrep schedule --plan`, run as an
//! operator runs it, lists every source `ingest --source` accepts, with its cadence, its freshness
//! rule and whether it is on.

use agentrep_lake::SourceName;
use agentrep_lake::sources::{freshness_markdown, human_secs, markdown_table};
use agentrep_tests::{agentrep_binary, check_generated_section};

const SOURCE: &str = "pipeline/lake/src/sources.rs";

#[test]
fn the_documents_show_the_sources_table() {
    check_generated_section("docs/operating.md", "sources", SOURCE, &markdown_table());
    check_generated_section("ARCHITECTURE.md", "sources", SOURCE, &markdown_table());
    check_generated_section("SCORING.md", "freshness", SOURCE, &freshness_markdown());
}

#[test]
fn the_example_configuration_names_every_cadence() {
    let example =
        std::fs::read_to_string(std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../agentrep.example.toml"))
            .expect("example");
    let section = &example[example.find("[schedule.every_secs]").expect("a cadence section")..];
    for source in SourceName::ALL {
        let cadence = source.cadence();
        let line = format!("\n{} = {}\n", cadence.key, cadence.default_secs);
        assert!(section.contains(&line), "agentrep.example.toml lacks `{}`", line.trim());
    }
}

#[test]
fn schedule_plan_lists_every_source_with_its_cadence_and_freshness_and_runs_nothing() {
    let dir = tempfile::tempdir().expect("temp dir");
    let lake = dir.path().join("lake");
    let out = std::process::Command::new(agentrep_binary())
        .args(["schedule", "--plan", "--lake"])
        .arg(&lake)
        .arg("--snapshots")
        .arg(dir.path().join("snapshots"))
        .env_remove("AGENTREP_PROBE_KEY")
        .env_remove("AGENTREP_CONFIG")
        .output()
        .expect("agentrep runs");
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(out.status.success(), "{stdout}\n{}", String::from_utf8_lossy(&out.stderr));
    let lines: Vec<&str> = stdout.lines().skip(1).collect();
    assert_eq!(lines.len(), SourceName::ALL.len(), "{stdout}");
    for (line, source) in lines.iter().zip(SourceName::ALL) {
        let words: Vec<&str> = line.split_whitespace().collect();
        assert_eq!(words[1], source.as_str(), "in the table's order: {line}");
        assert!(line.contains(&human_secs(source.cadence().default_secs)), "{line}");
        for rule in source.freshness() {
            assert!(line.contains(&format!("{} {}d", rule.dataset.name(), rule.max_age_days)), "{line}");
        }
        let on = !matches!(source, SourceName::PaidProbes | SourceName::StoreExport);
        assert_eq!(words[2], if on { "on" } else { "off" }, "{line}");
    }
    assert!(stdout.contains("paid_probes.enabled is false"), "{stdout}");
    assert!(!lake.exists(), "--plan writes nothing");
}
