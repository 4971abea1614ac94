//! Each file's text against its declaration, and the declarations against the order.

use std::collections::BTreeSet;

use agentrep_lake::Dataset;

use super::*;
use crate::engine::statements;
use crate::stages::STAGES;

/// Every SQL file, in the order the stages run them.
fn rebuild_order() -> Vec<&'static SqlFile> {
    STAGES.iter().flat_map(|s| s.sql.iter().copied()).collect()
}

/// The tables a text creates, drops and reads, read off its tokens: `CREATE [OR REPLACE]
/// [TEMP|TEMPORARY] TABLE t`, `DROP TABLE [IF EXISTS] t`, and `FROM t` or `JOIN t` where `t` is
/// not a function call, a subquery or a name the text itself defines (a table it created, or a
/// common table expression).
#[derive(Debug, Default)]
pub(crate) struct Tables {
    pub created: Vec<String>,
    pub dropped: BTreeSet<String>,
    pub read: BTreeSet<String>,
}

/// Identifiers (lowercase), single punctuation characters, and `'` for each string literal;
/// comments left out.
fn tokens(text: &str) -> Vec<String> {
    let mut out = Vec::new();
    let mut chars = text.chars().peekable();
    while let Some(c) = chars.next() {
        match c {
            '-' if chars.peek() == Some(&'-') => {
                for c in chars.by_ref() {
                    if c == '\n' {
                        break;
                    }
                }
            }
            '\'' => {
                for c in chars.by_ref() {
                    if c == '\'' {
                        break;
                    }
                }
                // A literal is a value, never a table: `IS DISTINCT FROM 'x'` reads nothing.
                out.push("'".to_owned());
            }
            c if c.is_ascii_alphabetic() || c == '_' => {
                let mut word = c.to_ascii_lowercase().to_string();
                while let Some(&n) = chars.peek().filter(|n| n.is_ascii_alphanumeric() || **n == '_') {
                    word.push(n.to_ascii_lowercase());
                    chars.next();
                }
                out.push(word);
            }
            c if c.is_whitespace() || c.is_ascii_digit() => {}
            c => out.push(c.to_string()),
        }
    }
    out
}

pub(crate) fn tables(text: &str) -> Tables {
    let t = tokens(text);
    let at = |i: usize| t.get(i).map_or("", String::as_str);
    let mut out = Tables::default();
    let mut ctes = BTreeSet::new();
    let mut read = Vec::new();
    for i in 0..t.len() {
        match at(i) {
            "create" => {
                let mut j = i + 1;
                while matches!(at(j), "or" | "replace" | "temp" | "temporary") {
                    j += 1;
                }
                if matches!(at(j), "table" | "view") {
                    out.created.push(at(j + 1).to_owned());
                }
            }
            "drop" if matches!(at(i + 1), "table" | "view") => {
                let j = if at(i + 2) == "if" { i + 4 } else { i + 2 };
                out.dropped.insert(at(j).to_owned());
            }
            "from" | "join" if at(i + 2) != "(" && at(i + 1).chars().all(|c| c.is_ascii_alphanumeric() || c == '_') => {
                read.push(at(i + 1).to_owned());
            }
            "as" if at(i + 1) == "(" => {
                // `name AS (` or, with a column list, `name(a, b) AS (`, after `WITH`,
                // `RECURSIVE` or a comma.
                let mut j = i.wrapping_sub(1);
                if at(j) == ")" {
                    while j > 0 && at(j) != "(" {
                        j -= 1;
                    }
                    j = j.wrapping_sub(1);
                }
                if matches!(at(j.wrapping_sub(1)), "with" | "recursive" | ",") {
                    ctes.insert(at(j).to_owned());
                }
            }
            _ => {}
        }
    }
    out.read = read.into_iter().filter(|r| !r.is_empty() && !out.created.contains(r) && !ctes.contains(r)).collect();
    out
}

fn set(names: &[&str]) -> BTreeSet<String> {
    names.iter().map(|s| (*s).to_owned()).collect()
}

#[test]
fn every_file_reads_and_leaves_what_it_declares() {
    for file in rebuild_order() {
        let found = tables(file.text);
        assert_eq!(found.read, set(file.reads), "{}: the tables it reads", file.name);
        let left: Vec<&str> =
            found.created.iter().filter(|c| !found.dropped.contains(*c)).map(String::as_str).collect();
        assert_eq!(left, file.leaves, "{}: the tables it leaves, in order", file.name);
    }
}

#[test]
fn every_table_a_file_reads_exists_before_it_runs() {
    let mut known: BTreeSet<String> = Dataset::ALL.iter().map(|d| d.name().to_owned()).collect();
    for stage in STAGES {
        known.extend(stage.carries.iter().map(|f| f.table()));
        for file in stage.sql {
            for table in file.reads {
                assert!(known.contains(*table), "{} reads {table}, which nothing before it makes", file.name);
            }
            known.extend(set(file.leaves));
            for dropped in tables(file.text).dropped {
                known.remove(&dropped);
            }
        }
    }
}

/// Every file runs in exactly one stage.
#[test]
fn every_file_is_run_by_one_stage() {
    let order = rebuild_order();
    let mut names: Vec<&str> = order.iter().map(|f| f.name).collect();
    names.sort_unstable();
    let count = names.len();
    names.dedup();
    assert_eq!(names.len(), count, "a file runs in two stages: {names:?}");
    let on_disk: BTreeSet<String> = std::fs::read_dir(concat!(env!("CARGO_MANIFEST_DIR"), "/src/sql"))
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .filter(|n| n.ends_with(".sql") && !n.ends_with(".datafusion.sql"))
        .collect();
    assert_eq!(
        on_disk,
        names.iter().map(|n| (*n).to_owned()).collect(),
        "the files under src/sql and the stages' files"
    );
}

#[test]
fn a_section_runs_from_its_name_line_to_the_next() {
    let file = SqlFile {
        name: "t.sql",
        text: "-- header\n\n-- name: a\nSELECT 1\n\n-- name: ab\n-- its comment\nSELECT 2;\nSELECT 3\n",
        reads: &[],
        leaves: &[],
    };
    assert_eq!(file.section("a").unwrap(), "SELECT 1\n\n");
    assert_eq!(file.section("ab").unwrap(), "-- its comment\nSELECT 2;\nSELECT 3\n");
    assert!(matches!(file.section("b"), Err(PipelineError::MissingSection { section: "b", .. })));
}

/// A file of sections holds each section once, none of them empty.
#[test]
fn every_section_is_named_once_and_holds_sql() {
    for file in rebuild_order() {
        let names: Vec<&str> = file.text.lines().filter_map(|l| l.strip_prefix(SECTION)).collect();
        let unique: BTreeSet<&str> = names.iter().copied().collect();
        assert_eq!(unique.len(), names.len(), "{}: a section named twice", file.name);
        for name in names {
            let name: &'static str = Box::leak(name.to_owned().into_boxed_str());
            let body = file.section(name).unwrap();
            assert!(!statements(body).is_empty(), "{}: section {name} is empty", file.name);
        }
    }
}

#[test]
fn the_settlement_pass_declares_what_its_text_reads_and_leaves() {
    let outputs: Vec<&str> = SETTLEMENTS.outputs.iter().map(|o| o.table).collect();
    assert_eq!(outputs, SETTLEMENTS_DUCKDB.leaves, "passes::SETTLEMENTS.outputs");
    let mut inputs: BTreeSet<String> = SETTLEMENTS.lake_inputs.iter().map(|d| d.name().to_owned()).collect();
    inputs.extend(SETTLEMENTS.shipped.iter().filter(|s| s.table != "price_points").map(|s| s.table.to_owned()));
    assert_eq!(inputs, set(SETTLEMENTS_DUCKDB.reads), "passes::SETTLEMENTS's lake inputs and shipped tables");
}

/// The DataFusion text creates the DuckDB text's tables in the same order (its intermediate `s`
/// included, which the cluster keeps in its scratch space instead of dropping), and reads the same
/// tables but the advertised prices one row each (`price_points`, shipped for it alone).
#[test]
fn the_two_dialects_create_the_same_tables_in_the_same_order() {
    let duckdb = tables(SETTLEMENTS.duckdb);
    let datafusion = tables(SETTLEMENTS.datafusion);
    assert_eq!(duckdb.created, datafusion.created);
    let mut reads = duckdb.read.clone();
    reads.insert("price_points".to_owned());
    assert_eq!(datafusion.read, reads);
}

#[test]
fn the_reader_sees_through_comments_subqueries_and_functions() {
    let found = tables(
        "-- FROM commented\nCREATE TEMP TABLE a AS WITH c AS (SELECT 1 FROM b), d(x) AS (SELECT * FROM c) \
         SELECT * FROM d JOIN e USING (x) JOIN (SELECT 'FROM f' FROM g) h ON true, range(3) r \
         WHERE x IN (SELECT y FROM read_parquet('p'));\nDROP TABLE IF EXISTS z;",
    );
    assert_eq!(found.created, vec!["a"]);
    assert_eq!(found.read, set(&["b", "e", "g"]));
    assert_eq!(found.dropped, set(&["z"]));
}
