//! `ARCHITECTURE.md` prints the dataset schemas generated from the lake's declarations; this test
//! keeps them identical. Run with `UPDATE_EXPECT=1` to rewrite the section.

use std::path::Path;

const BEGIN: &str = "<!-- datasets:begin (generated from pipeline/lake/src/datasets.rs) -->\n";
const END: &str = "<!-- datasets:end -->";

#[test]
fn architecture_md_schemas_match_the_code() {
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../ARCHITECTURE.md");
    let doc = std::fs::read_to_string(&path).expect("ARCHITECTURE.md exists");
    let start = doc.find(BEGIN).expect("ARCHITECTURE.md has the datasets:begin marker") + BEGIN.len();
    let end = doc[start..].find(END).expect("ARCHITECTURE.md has the datasets:end marker") + start;
    let expected = agentrep_lake::datasets::markdown_schemas();
    if std::env::var_os("UPDATE_EXPECT").is_some() {
        std::fs::write(&path, format!("{}{}{}", &doc[..start], expected, &doc[end..])).expect("writable");
        return;
    }
    assert_eq!(
        &doc[start..end],
        expected,
        "ARCHITECTURE.md's schemas are stale: run UPDATE_EXPECT=1 cargo test -p agentrep-lake"
    );
}
