//! What a read needs of the tool face it shares with the MCP server (which stands above it):
//! the context a call is answered from, the error a tool answers with, the arguments read from
//! a call, and the self-contained JSON Schemas of a tool's input and output.

use std::sync::Arc;

use schemars::generate::SchemaSettings;
use schemars::{JsonSchema, Schema};
use serde::de::DeserializeOwned;
use serde_json::{Value, json};

use crate::{ApiError, App, ServedSnapshot};

/// What a request is answered from.
#[derive(Debug)]
pub struct Ctx<'a> {
    /// The server state.
    pub app: &'a App,
    /// The snapshot of this request (none before the first loads).
    pub snap: Option<Arc<ServedSnapshot>>,
    /// `scheme://host` the client reached, when known: links in answers are made absolute.
    pub origin: Option<String>,
}

impl<'a> Ctx<'a> {
    /// A context reading the current snapshot.
    pub fn new(app: &'a App, origin: Option<String>) -> Self {
        Self { app, snap: app.snapshot(), origin }
    }
}

/// Why a tool could not answer: returned as a result with `isError: true` and this text.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ToolError(pub String);

impl From<ApiError> for ToolError {
    fn from(err: ApiError) -> Self {
        ToolError(format!("{}: {err}", err.code()))
    }
}

/// Formats JSON Schema defines beyond its standard set that schemars emits for Rust integers
/// and floats; validators in strict modes reject unknown ones, so they are dropped.
pub(crate) const RUST_FORMATS: [&str; 12] =
    ["int", "int8", "int16", "int32", "int64", "uint", "uint8", "uint16", "uint32", "uint64", "float", "double"];

/// A self-contained object schema: definitions in `$defs` (every `$ref` is local), no `$schema`
/// (the 2020-12 default dialect of MCP), no Rust-only formats, `type: "object"` at the top.
fn tidy(schema: Schema) -> Value {
    fn walk(v: &mut Value) {
        match v {
            Value::Object(obj) => {
                if obj.get("format").and_then(Value::as_str).is_some_and(|f| RUST_FORMATS.contains(&f)) {
                    obj.remove("format");
                }
                // A tuple: draft-07 validators read `items: false` as "no items at all".
                if obj.contains_key("prefixItems") && obj.get("items") == Some(&Value::Bool(false)) {
                    obj.remove("items");
                }
                obj.values_mut().for_each(walk);
            }
            Value::Array(items) => items.iter_mut().for_each(walk),
            _ => {}
        }
    }
    let mut value = schema.to_value();
    walk(&mut value);
    let obj = value.as_object_mut().expect("a schema object");
    obj.remove("$schema");
    obj.entry("type").or_insert(json!("object"));
    value
}

pub(crate) fn input_schema<T: JsonSchema>() -> Value {
    tidy(SchemaSettings::draft2020_12().into_generator().into_root_schema_for::<T>())
}

pub(crate) fn output_schema<T: JsonSchema>() -> Value {
    tidy(SchemaSettings::draft2020_12().for_serialize().into_generator().into_root_schema_for::<T>())
}

/// Reads the arguments into `A`; an error names the argument.
pub(crate) fn args<A: DeserializeOwned>(raw: Value) -> Result<A, ToolError> {
    serde_path_to_error::deserialize(raw).map_err(|e| {
        let path = e.path().to_string();
        let at = if path == "." { String::new() } else { format!("{path}: ") };
        ToolError(format!("invalid arguments: {at}{}", e.inner()))
    })
}
