//! Seeds for the route targets, made from the route table's own schemas: one input per route that
//! reads a query or a body, with a plausible value for every field, so libFuzzer starts past the
//! first `missing field` refusal of each type.

use std::path::Path;

use agentrep_server::endpoints::Endpoint;
use schemars::SchemaGenerator;
use serde_json::{Map, Value, json};

const ADDRESS: &str = "0x1111111111111111111111111111111111111111";

/// A value the schema accepts, or one close to it; `name` is the field's name.
fn example(schema: &Value, defs: &Map<String, Value>, name: &str, depth: u32) -> Value {
    if depth > 6 {
        return Value::Null;
    }
    if let Some(target) = schema.get("$ref").and_then(Value::as_str) {
        let key = target.rsplit('/').next().unwrap_or_default();
        return defs.get(key).map_or(Value::Null, |s| example(s, defs, name, depth + 1));
    }
    if let Some(first) = schema.get("enum").and_then(Value::as_array).and_then(|v| v.first()) {
        return first.clone();
    }
    if let Some(c) = schema.get("const") {
        return c.clone();
    }
    for key in ["anyOf", "oneOf", "allOf"] {
        if let Some(options) = schema.get(key).and_then(Value::as_array) {
            let chosen = options.iter().find(|o| o.get("type").and_then(Value::as_str) != Some("null"));
            return chosen.map_or(Value::Null, |o| example(o, defs, name, depth + 1));
        }
    }
    let ty = match schema.get("type") {
        Some(Value::String(t)) => t.as_str(),
        Some(Value::Array(ts)) => ts.iter().filter_map(Value::as_str).find(|t| *t != "null").unwrap_or("null"),
        _ if schema.get("properties").is_some() => "object",
        _ => "string",
    };
    match ty {
        "object" => {
            let props = schema.get("properties").and_then(Value::as_object).cloned().unwrap_or_default();
            Value::Object(props.iter().map(|(k, s)| (k.clone(), example(s, defs, k, depth + 1))).collect())
        }
        "array" => json!([schema.get("items").map_or(Value::Null, |s| example(s, defs, name, depth + 1))]),
        "integer" | "number" => schema.get("minimum").cloned().unwrap_or(json!(5)),
        "boolean" => json!(true),
        "null" => Value::Null,
        _ => json!(string_example(schema, name)),
    }
}

fn string_example(schema: &Value, name: &str) -> String {
    let pattern = schema.get("pattern").and_then(Value::as_str).unwrap_or_default();
    let name = name.to_ascii_lowercase();
    if pattern.contains("0x") || name.contains("address") || name == "payto" || name.ends_with("wallet") {
        ADDRESS.to_owned()
    } else if name.contains("signature") {
        format!("0x{}", "ab".repeat(65))
    } else if name.contains("hash") {
        format!("0x{}", "cd".repeat(32))
    } else if name == "message" {
        format!("agentrep receipt\naddress: {ADDRESS}\ntimestamp: {}", crate_now_secs())
    } else if name.contains("url") || name == "resource" || schema.get("format").and_then(Value::as_str) == Some("uri")
    {
        "https://api.example.com/v1/weather?city=paris".to_owned()
    } else if name.contains("network") {
        "eip155:8453".to_owned()
    } else {
        "base".to_owned()
    }
}

fn crate_now_secs() -> i64 {
    agentrep_fuzz::NOW_MS / 1000
}

/// The query string of an object example: `key=value` pairs, arrays joined by commas.
fn query_string(example: &Value) -> String {
    let Some(obj) = example.as_object() else { return String::new() };
    let text = |v: &Value| match v {
        Value::String(s) => s.clone(),
        Value::Array(items) => {
            items.iter().map(|i| i.as_str().map_or_else(|| i.to_string(), str::to_owned)).collect::<Vec<_>>().join(",")
        }
        other => other.to_string(),
    };
    let mut out = url::form_urlencoded::Serializer::new(String::new());
    for (k, v) in obj {
        if !v.is_null() {
            out.append_pair(k, &text(v));
        }
    }
    out.finish()
}

fn slug(e: &Endpoint) -> String {
    e.path.trim_matches('/').chars().map(|c| if c.is_ascii_alphanumeric() { c } else { '-' }).collect()
}

/// Writes `<corpus>/route_query/*` and `<corpus>/route_body/*`; returns how many.
pub fn write_route_seeds(corpus: &Path) -> std::io::Result<usize> {
    let endpoints = agentrep_server::routes::endpoints();
    let mut written = 0;
    for (target, with_query) in [("route_query", true), ("route_body", false)] {
        let dir = corpus.join(target);
        std::fs::create_dir_all(&dir)?;
        let routes: Vec<&Endpoint> = endpoints
            .iter()
            .copied()
            .filter(|e| if with_query { e.parse_query.is_some() } else { e.parse_body.is_some() })
            .collect();
        for (i, e) in routes.iter().enumerate() {
            let mut generator = SchemaGenerator::default();
            let schema = (if with_query { e.query } else { e.body }).expect("a parser has a schema")(&mut generator);
            let defs: Map<String, Value> = generator.definitions().clone();
            let value = example(&serde_json::to_value(&schema).expect("a schema is JSON"), &defs, "", 0);
            let payload = if with_query { query_string(&value).into_bytes() } else { value.to_string().into_bytes() };
            let mut input = vec![u8::try_from(i).expect("under 256 routes")];
            input.extend_from_slice(&payload);
            std::fs::write(dir.join(format!("seed-{i:02}-{}", slug(e))), input)?;
            written += 1;
        }
    }
    Ok(written)
}
