//! Tables that documents print from code: `SCORING.md`'s flag table and `ARCHITECTURE.md`'s
//! dataset schemas. Run with `UPDATE_EXPECT=1` to rewrite a stale section.

use std::path::Path;

/// Checks (or, with `UPDATE_EXPECT`, rewrites) the text between
/// `<!-- {name}:begin (generated from {source}) -->` and `<!-- {name}:end -->` in `document`.
fn check_generated_section(document: &str, name: &str, source: &str, expected: &str) {
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join("..").join(document);
    let doc = std::fs::read_to_string(&path).expect("document exists");
    let begin = format!("<!-- {name}:begin (generated from {source}) -->\n");
    let end_marker = format!("<!-- {name}:end -->");
    let start = doc.find(&begin).unwrap_or_else(|| panic!("{document} lacks {begin}")) + begin.len();
    let end = doc[start..].find(&end_marker).unwrap_or_else(|| panic!("{document} lacks {end_marker}")) + start;
    if std::env::var_os("UPDATE_EXPECT").is_some() {
        std::fs::write(&path, format!("{}{}{}", &doc[..start], expected, &doc[end..])).expect("writable");
        return;
    }
    assert_eq!(&doc[start..end], expected, "{document}'s {name} section is stale: run UPDATE_EXPECT=1 make test");
}

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
