//! The OpenAPI 3.1 description, generated from the route table (paths, parameters from the typed
//! query structs, bodies, response schemas from the wire types) so it cannot drift from dispatch.

use std::collections::BTreeMap;

use schemars::generate::SchemaSettings;
use schemars::{Schema, SchemaGenerator, json_schema};
use serde::Serialize;
use serde_json::{Map, Value, json};

use crate::endpoints::{Endpoint, Scope};
use crate::http::respond::mime;

/// Version of the machine-readable description (seed §9).
pub const API_VERSION: &str = "0.4.0";

const COMPONENTS: &str = "#/components/schemas/";

#[derive(Serialize)]
struct Document {
    openapi: &'static str,
    info: Info,
    servers: Vec<ServerUrl>,
    tags: Vec<Tag>,
    paths: BTreeMap<String, Map<String, Value>>,
    components: Components,
}

#[derive(Serialize)]
struct Info {
    title: &'static str,
    version: &'static str,
    description: &'static str,
}

#[derive(Serialize)]
struct ServerUrl {
    url: String,
}

#[derive(Serialize)]
struct Tag {
    name: &'static str,
}

#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
struct Operation {
    summary: &'static str,
    operation_id: String,
    tags: Vec<&'static str>,
    parameters: Vec<Parameter>,
    #[serde(skip_serializing_if = "Option::is_none")]
    request_body: Option<RequestBody>,
    responses: BTreeMap<String, ResponseDoc>,
    #[serde(rename = "x-x402", skip_serializing_if = "Option::is_none")]
    x402: Option<PaidDoc>,
}

#[derive(Serialize)]
struct PaidDoc {
    #[serde(skip_serializing_if = "Option::is_none")]
    query: Option<&'static str>,
    price: String,
    asset: &'static str,
    network: String,
    purpose: &'static str,
}

#[derive(Serialize)]
struct Parameter {
    name: String,
    #[serde(rename = "in")]
    location: &'static str,
    required: bool,
    description: String,
    schema: Value,
}

#[derive(Serialize)]
struct RequestBody {
    required: bool,
    content: BTreeMap<&'static str, MediaType>,
}

#[derive(Serialize)]
struct ResponseDoc {
    description: &'static str,
    #[serde(skip_serializing_if = "Option::is_none")]
    content: Option<BTreeMap<&'static str, MediaType>>,
}

#[derive(Serialize)]
struct MediaType {
    schema: Value,
}

#[derive(Serialize)]
struct Components {
    schemas: Map<String, Value>,
}

fn status_text(status: u16) -> &'static str {
    match status {
        400 => "bad input: an address not matching ^0x[a-fA-F0-9]{40}$, or a parameter or body field out of range",
        403 => {
            "forbidden: an Origin header that is not a well-formed http(s) origin, or ?full=1 without the receipt of a live re-score of the wallet paid in the last 24 hours (X-Agentrep-Receipt)"
        }
        402 => "payment required: x402 v1 terms in the body, v2 terms in the PAYMENT-REQUIRED header",
        404 => {
            "not in the current snapshot (address, category); a paid read of an unindexed wallet is refused before any terms"
        }
        405 => "wrong method",
        406 => "not acceptable: Accept lists neither application/json nor text/event-stream",
        413 => "the body is larger than 64 KiB",
        409 => "a payment-identifier reused with another payment, or a payment still being answered (retry)",
        415 => "the body is not application/json",
        501 => "a paid answer this deployment cannot produce; refused before any payment is verified or taken",
        503 => {
            "no snapshot is loaded yet (before the first rebuild), or, on a paid route, the deployment takes no payments (what is missing is named) or cannot reach its payment network; nothing is charged"
        }
        _ => "error",
    }
}

/// The x402 v1 body of a 402 (v2 buyers read the `PAYMENT-REQUIRED` header).
fn payment_required_schema() -> Value {
    json!({
        "type": "object",
        "required": ["x402Version", "error", "accepts"],
        "properties": {
            "x402Version": { "type": "integer", "const": 1 },
            "error": { "type": "string" },
            "accepts": {
                "type": "array",
                "items": {
                    "type": "object",
                    "required": ["scheme", "network", "maxAmountRequired", "resource", "payTo", "asset"],
                    "properties": {
                        "scheme": { "type": "string" },
                        "network": { "type": "string" },
                        "maxAmountRequired": { "type": "string", "pattern": "^[0-9]+$" },
                        "resource": { "type": "string" },
                        "description": { "type": "string" },
                        "mimeType": { "type": "string" },
                        "payTo": { "type": "string" },
                        "maxTimeoutSeconds": { "type": "integer" },
                        "asset": { "type": "string" },
                        "extra": { "type": "object" }
                    }
                }
            }
        }
    })
}

fn path_parameter(name: &str) -> Parameter {
    let (description, schema) = match name {
        "address" | "tokenAddress" | "agentAddress" | "tokenAddr" | "creator" => (
            "wallet address, any letter case (normalised to lowercase)",
            json!({ "type": "string", "pattern": "^0x[a-fA-F0-9]{40}$" }),
        ),
        "cat" => (
            "category slug (GET /categories lists them)",
            json!({ "type": "string", "enum": agentrep_publish::categories::CATEGORIES.iter().map(|c| c.slug).collect::<Vec<_>>() }),
        ),
        "tag" => ("tag, any letter case", json!({ "type": "string", "minLength": 2 })),
        _ => ("path parameter", json!({ "type": "string" })),
    };
    Parameter { name: name.to_owned(), location: "path", required: true, description: description.to_owned(), schema }
}

/// The inline object schema behind a `$ref` the generator made.
fn resolve(generator: &SchemaGenerator, schema: Schema) -> Value {
    let value = schema.to_value();
    match value.get("$ref").and_then(Value::as_str).and_then(|r| r.strip_prefix(COMPONENTS)) {
        Some(name) => generator.definitions().get(name).cloned().unwrap_or(value),
        None => value,
    }
}

/// An absent query parameter is not a null one: `["string", "null"]` becomes `"string"`, and
/// `anyOf: [X, {"type": "null"}]` becomes X.
fn drop_null(schema: &mut Value) {
    let Some(obj) = schema.as_object_mut() else { return };
    if let Some(Value::Array(types)) = obj.get_mut("type") {
        types.retain(|t| t != "null");
        if types.len() == 1 {
            let only = types[0].clone();
            obj.insert("type".to_owned(), only);
        }
    }
    if let Some(Value::Array(options)) = obj.get("anyOf").cloned() {
        let kept: Vec<Value> = options.into_iter().filter(|o| o.get("type") != Some(&json!("null"))).collect();
        if kept.len() == 1 {
            obj.remove("anyOf");
            if let Some(inner) = kept[0].as_object() {
                for (k, v) in inner {
                    obj.entry(k.clone()).or_insert(v.clone());
                }
            }
        } else {
            obj.insert("anyOf".to_owned(), Value::Array(kept));
        }
    }
}

fn query_parameters(params: &mut SchemaGenerator, def: &Endpoint) -> Vec<Parameter> {
    let Some(query) = def.query else { return Vec::new() };
    let schema = query(params);
    let schema = resolve(params, schema);
    let required: Vec<&str> =
        schema.get("required").and_then(Value::as_array).into_iter().flatten().filter_map(Value::as_str).collect();
    let Some(properties) = schema.get("properties").and_then(Value::as_object) else { return Vec::new() };
    properties
        .iter()
        .map(|(name, prop)| {
            let mut prop = prop.clone();
            let description =
                prop.as_object_mut().and_then(|p| p.remove("description")).and_then(|d| d.as_str().map(str::to_owned));
            drop_null(&mut prop);
            Parameter {
                name: name.clone(),
                location: "query",
                required: required.contains(&name.as_str()),
                description: description.unwrap_or_default(),
                schema: prop,
            }
        })
        .collect()
}

fn json_content(schema: Value) -> BTreeMap<&'static str, MediaType> {
    BTreeMap::from([("application/json", MediaType { schema })])
}

fn operation(
    generator: &mut SchemaGenerator,
    params: &mut SchemaGenerator,
    def: &Endpoint,
    network: &str,
) -> Operation {
    let mut parameters: Vec<Parameter> = def
        .path
        .split('/')
        .filter_map(|seg| seg.strip_prefix('{').and_then(|s| s.split_once('}')).map(|(name, _)| path_parameter(name)))
        .collect();
    parameters.extend(query_parameters(params, def));
    let request_body =
        def.body.map(|body| RequestBody { required: true, content: json_content(body(generator).to_value()) });
    let mut responses = BTreeMap::new();
    let ok_schema = def.response.map_or_else(
        || match def.content_type {
            "application/json" => json!({}),
            _ => json!({ "type": "string" }),
        },
        |response| response(generator).to_value(),
    );
    responses.insert(
        "200".to_owned(),
        ResponseDoc {
            description: def.purpose,
            content: Some(BTreeMap::from([(def.content_type, MediaType { schema: ok_schema })])),
        },
    );
    let error = generator.subschema_for::<agentrep_publish::wire::ErrorBodyV1>().to_value();
    let always: &[u16] = if def.needs_snapshot { &[405, 503] } else { &[405] };
    for status in def.errors.iter().chain(always) {
        if *status == 202 {
            responses.insert(
                "202".to_owned(),
                ResponseDoc { description: "accepted: a notification, no body", content: None },
            );
            continue;
        }
        let content = match *status {
            // x402's terms, not the error body.
            402 => json_content(payment_required_schema()),
            _ if def.error_body.is_some() => {
                json_content(def.error_body.map(|f| f(generator).to_value()).unwrap_or_default())
            }
            // A page for an unknown address is still a page.
            404 if def.content_type == mime::HTML => {
                BTreeMap::from([(mime::HTML, MediaType { schema: json!({ "type": "string" }) })])
            }
            _ => json_content(error.clone()),
        };
        responses.insert(status.to_string(), ResponseDoc { description: status_text(*status), content: Some(content) });
    }
    Operation {
        summary: def.purpose,
        operation_id: format!(
            "{}{}",
            if def.method == hyper::Method::POST { "post_" } else { "" },
            def.path.trim_start_matches('/').replace(['/', '.', '{', '}', '-'], "_").trim_end_matches('_')
        ),
        tags: vec![def.group],
        parameters,
        request_body,
        responses,
        x402: def.paid.map(|p| PaidDoc {
            query: p.query,
            price: p.price_text(),
            asset: "USDC",
            network: network.to_owned(),
            purpose: p.purpose,
        }),
    }
}

/// Generators: one for payloads (nullable options), one for query parameters (an absent
/// parameter is not a null one).
fn generators() -> (SchemaGenerator, SchemaGenerator) {
    let payloads = SchemaSettings::draft2020_12().with(|s| s.definitions_path = COMPONENTS.into()).into_generator();
    // Parameters are inlined: their generator's definitions are not published as components.
    let params = SchemaSettings::draft2020_12()
        .with(|s| {
            s.definitions_path = COMPONENTS.into();
            s.inline_subschemas = true;
        })
        .into_generator();
    (payloads, params)
}

/// The OpenAPI document of `endpoints` under `base_path`.
pub fn document(endpoints: &[&Endpoint], base_path: &str, network: &str) -> Vec<u8> {
    let (mut generator, mut params) = generators();
    let mut paths: BTreeMap<String, Map<String, Value>> = BTreeMap::new();
    let mut groups: Vec<&'static str> = Vec::new();
    for def in endpoints {
        if !groups.contains(&def.group) {
            groups.push(def.group);
        }
        let item = paths.entry(def.path.to_owned()).or_default();
        if item.contains_key(&def.method.as_str().to_ascii_lowercase()) {
            // The same operation at the origin (`POST /mcp`): a path key holds one operation per
            // method, so the base-path one stands for both.
            continue;
        }
        let op =
            serde_json::to_value(operation(&mut generator, &mut params, def, network)).expect("operation serialises");
        if def.scope == Scope::Origin {
            // Origin routes (pages, /mcp) are not under the API's base path.
            item.insert("servers".to_owned(), json!([{ "url": "/" }]));
        }
        item.insert(def.method.as_str().to_ascii_lowercase(), op);
    }
    let schemas: Map<String, Value> = generator.take_definitions(true).into_iter().collect();
    let doc = Document {
        openapi: "3.1.0",
        info: Info {
            title: "agentrep",
            version: API_VERSION,
            description: "Reputation oracle for the agent economy: scores, trust shields and preflight decisions for x402 sellers, ERC-8004 agents and token deployers. Free reads come from the current daily snapshot. Every error is {\"error\": {\"code\", \"message\"}}.",
        },
        servers: vec![ServerUrl { url: base_path.to_owned() }],
        tags: groups.into_iter().map(|name| Tag { name }).collect(),
        paths,
        components: Components { schemas },
    };
    serde_json::to_vec_pretty(&doc).expect("OpenAPI document serialises")
}

/// A schema that is one of three payloads.
pub fn one_of3<A: schemars::JsonSchema, B: schemars::JsonSchema, C: schemars::JsonSchema>(
    generator: &mut SchemaGenerator,
) -> Schema {
    let (a, b, c) = (generator.subschema_for::<A>(), generator.subschema_for::<B>(), generator.subschema_for::<C>());
    json_schema!({ "anyOf": [a, b, c] })
}
