//! Tables that documents print from code: `SCORING.md`'s flag and trust-provider tables,
//! `DATA_DICTIONARY.md`, `ARCHITECTURE.md`'s stage table, the internals' write-store schema, the
//! integrators' guide's MCP tools and paid routes, the operators' guide's environment variables.
//! Run with `UPDATE_EXPECT=1` to rewrite a stale section.

use agentrep_tests::check_generated_section;

#[test]
fn scoring_md_flag_table_matches_the_code() {
    check_generated_section(
        "SCORING.md",
        "flags",
        "pipeline/model/src/flags.rs",
        &agentrep_model::flags::markdown_table(),
    );
}

#[test]
fn scoring_md_trust_provider_tables_match_the_code() {
    check_generated_section(
        "SCORING.md",
        "trust-provider",
        "pipeline/model/src/trust_provider.rs",
        &agentrep_model::trust_provider::markdown_table(),
    );
}

#[test]
fn data_dictionary_matches_the_code() {
    check_generated_section(
        "DATA_DICTIONARY.md",
        "dictionary",
        "publish/src/exports.rs and pipeline/lake/src/datasets.rs",
        &agentrep_publish::exports::dictionary_markdown(),
    );
}

#[test]
fn the_integrators_guide_tool_table_matches_the_code() {
    check_generated_section(
        "docs/integrating.md",
        "mcp-tools",
        "server/src/mcp/tools.rs",
        &agentrep_server::mcp::tools::markdown_table(agentrep_server::routes::endpoints()),
    );
}

#[test]
fn architecture_md_stage_table_matches_the_code() {
    check_generated_section("ARCHITECTURE.md", "stages", "pipeline/src/stages.rs", &agentrep_pipeline::stage_table());
}

#[test]
fn the_internals_store_schema_matches_the_migrations() {
    check_generated_section(
        "docs/internals.md",
        "store",
        "store/src/migrations",
        &format!("```sql\n{}```\n", agentrep_store::schema_sql()),
    );
}

#[test]
fn the_operators_guide_env_table_matches_the_code() {
    check_generated_section(
        "docs/operating.md",
        "env",
        "server/src/env.rs, jobs/src/cli.rs and jobs/src/env_table.rs",
        &agentrep_jobs::env_table::markdown(),
    );
}

#[test]
fn the_integrators_guide_paid_route_table_matches_the_code() {
    check_generated_section(
        "docs/integrating.md",
        "paid-routes",
        "server/src/payment/prices.rs",
        &agentrep_server::endpoints::paid_routes_markdown(agentrep_server::routes::endpoints()),
    );
}

/// Every `AGENTREP_*` name the program's source reads is in the operator's table: a variable read
/// somewhere without being declared there fails here.
#[test]
fn every_variable_the_code_reads_is_in_the_env_table() {
    let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("..");
    let known = agentrep_jobs::env_table::names();
    let mut stack: Vec<std::path::PathBuf> =
        ["server/src", "jobs/src", "jobs/ingest/src", "payments/src", "store/src", "publish/src", "pipeline/src"]
            .iter()
            .map(|d| root.join(d))
            .collect();
    let mut unknown = Vec::new();
    while let Some(dir) = stack.pop() {
        for entry in std::fs::read_dir(&dir).unwrap().flatten() {
            let path = entry.path();
            if path.is_dir() {
                stack.push(path);
                continue;
            }
            if path.extension().is_none_or(|e| e != "rs") {
                continue;
            }
            let text = std::fs::read_to_string(&path).unwrap();
            for (i, _) in text.match_indices("\"AGENTREP_") {
                let name: String = text[i + 1..]
                    .chars()
                    .take_while(|c| c.is_ascii_uppercase() || c.is_ascii_digit() || *c == '_')
                    .collect();
                // The ingest configuration's `AGENTREP_<SECTION>__<FIELD>` and its prefix.
                if name == "AGENTREP_" || name.contains("__") {
                    continue;
                }
                if !known.contains(&name) {
                    unknown.push(format!("{name} ({})", path.display()));
                }
            }
        }
    }
    assert!(unknown.is_empty(), "read but not in docs/operating.md's env table: {unknown:?}");
}

/// Every relative link of the front page, the guides and the maps reaches a file, and a heading of
/// it when it names one (GitHub's anchors: lowercase, punctuation dropped, spaces as hyphens).
#[test]
fn every_link_between_the_documents_resolves() {
    let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("..");
    let mut documents: Vec<std::path::PathBuf> =
        ["README.md", "ARCHITECTURE.md", "SCORING.md", "BENCHMARKS.md", "DATA_DICTIONARY.md", "RELIABILITY.md"]
            .iter()
            .map(|d| root.join(d))
            .collect();
    documents.extend(std::fs::read_dir(root.join("docs")).unwrap().flatten().map(|e| e.path()));
    let mut broken = Vec::new();
    let mut links = 0;
    for doc in &documents {
        let text = std::fs::read_to_string(doc).unwrap();
        for (i, _) in text.match_indices("](") {
            let target: String = text[i + 2..].chars().take_while(|c| *c != ')').collect();
            if target.contains("://") || target.starts_with("mailto:") || target.contains(' ') {
                continue;
            }
            links += 1;
            let (file, anchor) = target.split_once('#').unwrap_or((&target, ""));
            let path = if file.is_empty() { doc.clone() } else { doc.parent().unwrap().join(file) };
            let Ok(linked) = std::fs::read_to_string(&path) else {
                broken.push(format!("{}: {target} (no such file)", doc.display()));
                continue;
            };
            if !anchor.is_empty() && !headings(&linked).iter().any(|h| h == anchor) {
                broken.push(format!("{}: {target} (no such heading)", doc.display()));
            }
        }
    }
    assert!(links >= 20, "only {links} links were found");
    assert!(broken.is_empty(), "links that lead nowhere:\n{}", broken.join("\n"));
}

/// A Markdown document's heading anchors, as GitHub makes them.
fn headings(text: &str) -> Vec<String> {
    let mut in_fence = false;
    let mut out = Vec::new();
    for line in text.lines() {
        if line.starts_with("```") {
            in_fence = !in_fence;
        }
        if in_fence || !line.starts_with('#') {
            continue;
        }
        let title = line.trim_start_matches('#').trim();
        let slug: String = title
            .to_lowercase()
            .chars()
            .filter(|c| c.is_alphanumeric() || *c == ' ' || *c == '-' || *c == '_')
            .map(|c| if c == ' ' { '-' } else { c })
            .collect();
        out.push(slug);
    }
    out
}
