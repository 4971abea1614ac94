//! The data dictionary's one row type: what a column of a lake dataset or an export holds (name,
//! type, unit, meaning). The lake's datasets describe their columns with it
//! ([`crate::Dataset::columns`]); the snapshot's exports do the same in `agentrep-publish`, which
//! renders `DATA_DICTIONARY.md` from both.

use arrow::datatypes::{DataType, TimeUnit};

/// One column, as the data dictionary lists it.
#[derive(Debug, Clone, PartialEq)]
pub struct ColumnDoc {
    /// Column name.
    pub name: String,
    /// Arrow type (for a CSV-only column, the type its text parses as).
    pub data_type: DataType,
    /// Whether the column may be empty (null).
    pub nullable: bool,
    /// Unit of the value, when it has one.
    pub unit: Option<String>,
    /// What the value means.
    pub meaning: String,
}

impl ColumnDoc {
    /// The unit a type implies when the declaration names none (timestamps are UTC microseconds).
    pub fn implied_unit(data_type: &DataType) -> Option<&'static str> {
        match data_type {
            DataType::Timestamp(TimeUnit::Microsecond, _) => Some("UTC instant, µs precision"),
            DataType::Date32 => Some("UTC calendar day"),
            _ => None,
        }
    }
}

/// The SQL type name an analyst sees for an Arrow type (what DuckDB reads the Parquet column as).
pub fn sql_type(data_type: &DataType) -> String {
    match data_type {
        DataType::Utf8 | DataType::LargeUtf8 => "VARCHAR".to_owned(),
        DataType::Boolean => "BOOLEAN".to_owned(),
        DataType::UInt8 => "UTINYINT".to_owned(),
        DataType::UInt32 => "UINTEGER".to_owned(),
        DataType::UInt64 => "UBIGINT".to_owned(),
        DataType::Int64 => "BIGINT".to_owned(),
        DataType::Float64 => "DOUBLE".to_owned(),
        DataType::Date32 => "DATE".to_owned(),
        DataType::Timestamp(_, None) => "TIMESTAMP".to_owned(),
        DataType::Timestamp(_, Some(_)) => "TIMESTAMP WITH TIME ZONE".to_owned(),
        DataType::List(item) => format!("{}[]", sql_type(item.data_type())),
        other => other.to_string(),
    }
}

/// Columns as one Markdown table: column, type, nullable, unit, meaning.
pub fn markdown_table(columns: &[ColumnDoc]) -> String {
    let mut out = String::from("| column | type | nullable | unit | meaning |\n|---|---|---|---|---|\n");
    for c in columns {
        out.push_str(&markdown_row(c, None));
    }
    out
}

/// One column as a Markdown table row: column, type, nullable, unit, then `place` (where a table
/// has that column), then meaning.
pub fn markdown_row(c: &ColumnDoc, place: Option<&str>) -> String {
    let place = place.map(|p| format!(" {p} |")).unwrap_or_default();
    format!(
        "| `{}` | {} | {} | {} |{place} {} |\n",
        c.name,
        sql_type(&c.data_type),
        if c.nullable { "yes" } else { "no" },
        c.unit.as_deref().unwrap_or(""),
        c.meaning.replace('|', "\\|")
    )
}
