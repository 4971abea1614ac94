//! `SCORING.md` prints the flag table generated from `FLAGS`; this test keeps them identical.
//! Run with `UPDATE_EXPECT=1` to rewrite the section after changing the table.

use std::path::Path;

const BEGIN: &str = "<!-- flags:begin (generated from pipeline/model/src/flags.rs) -->\n";
const END: &str = "<!-- flags:end -->";

#[test]
fn scoring_md_flag_table_matches_the_code() {
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../SCORING.md");
    let doc = std::fs::read_to_string(&path).expect("SCORING.md exists");
    let start = doc.find(BEGIN).expect("SCORING.md has the flags:begin marker") + BEGIN.len();
    let end = doc[start..].find(END).expect("SCORING.md has the flags:end marker") + start;
    let expected = agentrep_model::flags::markdown_table();
    if std::env::var_os("UPDATE_EXPECT").is_some() {
        std::fs::write(&path, format!("{}{}{}", &doc[..start], expected, &doc[end..])).expect("writable");
        return;
    }
    assert_eq!(
        &doc[start..end],
        expected,
        "SCORING.md's flag table is stale: run UPDATE_EXPECT=1 cargo test -p agentrep-model"
    );
}
