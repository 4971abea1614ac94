//! Tables that documents print from code: `SCORING.md`'s flag table, `ARCHITECTURE.md`'s
//! dataset schemas, write-store schema and MCP tool table. Run with `UPDATE_EXPECT=1` to rewrite a stale section.

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
fn architecture_md_schemas_match_the_code() {
    check_generated_section(
        "ARCHITECTURE.md",
        "datasets",
        "pipeline/lake/src/datasets.rs",
        &agentrep_lake::datasets::markdown_schemas(),
    );
}

#[test]
fn architecture_md_tool_table_matches_the_code() {
    check_generated_section(
        "ARCHITECTURE.md",
        "mcp-tools",
        "server/src/mcp/tools.rs",
        &agentrep_server::mcp::tools::markdown_table(),
    );
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
