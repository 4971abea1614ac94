//! Tables that documents print from code: `SCORING.md`'s flag table, `DATA_DICTIONARY.md`,
//! `ARCHITECTURE.md`'s write-store schema and MCP tool table; the README's table of environment variables. Run with `UPDATE_EXPECT=1` to rewrite a stale section.

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
fn architecture_md_tool_table_matches_the_code() {
    check_generated_section(
        "ARCHITECTURE.md",
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
fn architecture_md_store_schema_matches_the_migrations() {
    check_generated_section(
        "ARCHITECTURE.md",
        "store",
        "store/src/migrations",
        &format!("```sql\n{}```\n", agentrep_store::schema_sql()),
    );
}

#[test]
fn readme_env_table_matches_the_code() {
    check_generated_section(
        "README.md",
        "env",
        "server/src/env.rs, jobs/src/cli.rs and jobs/src/env_table.rs",
        &agentrep_jobs::env_table::markdown(),
    );
}

#[test]
fn readme_paid_route_table_matches_the_code() {
    check_generated_section(
        "README.md",
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
    assert!(unknown.is_empty(), "read but not in the README's env table: {unknown:?}");
}
