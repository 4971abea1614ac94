//! The OpenAPI 3.0 description, generated from the route table so it cannot drift from dispatch.

use std::collections::BTreeMap;

use serde::Serialize;

use crate::routes::{Param, ROUTES, RouteDef};

/// Version of the machine-readable description (seed §9).
pub const API_VERSION: &str = "0.3.0";

#[derive(Serialize)]
struct Document {
    openapi: &'static str,
    info: Info,
    servers: Vec<ServerUrl>,
    paths: BTreeMap<String, BTreeMap<String, Operation>>,
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
#[serde(rename_all = "camelCase")]
struct Operation {
    summary: &'static str,
    operation_id: String,
    parameters: Vec<Parameter>,
    responses: BTreeMap<String, ResponseDoc>,
    #[serde(rename = "x-x402", skip_serializing_if = "Option::is_none")]
    x402: Option<PaidDoc>,
}

#[derive(Serialize)]
struct PaidDoc {
    query: &'static str,
    price: &'static str,
    asset: &'static str,
    network: &'static str,
    purpose: &'static str,
}

#[derive(Serialize)]
struct Parameter {
    name: &'static str,
    #[serde(rename = "in")]
    location: &'static str,
    required: bool,
    description: &'static str,
    schema: Schema,
}

#[derive(Serialize, Default)]
struct Schema {
    #[serde(rename = "type")]
    kind: &'static str,
    #[serde(skip_serializing_if = "Option::is_none")]
    pattern: Option<&'static str>,
    #[serde(skip_serializing_if = "Option::is_none")]
    minimum: Option<u32>,
    #[serde(skip_serializing_if = "Option::is_none")]
    maximum: Option<u32>,
    #[serde(skip_serializing_if = "Option::is_none")]
    default: Option<u32>,
    #[serde(rename = "enum", skip_serializing_if = "Option::is_none")]
    values: Option<Vec<&'static str>>,
}

#[derive(Serialize)]
struct ResponseDoc {
    description: &'static str,
    #[serde(skip_serializing_if = "Option::is_none")]
    content: Option<BTreeMap<&'static str, MediaType>>,
}

#[derive(Serialize)]
struct MediaType {
    schema: SchemaRef,
}

#[derive(Serialize)]
struct SchemaRef {
    #[serde(rename = "$ref", skip_serializing_if = "Option::is_none")]
    reference: Option<&'static str>,
}

#[derive(Serialize)]
struct Components {
    schemas: BTreeMap<&'static str, ErrorSchema>,
}

#[derive(Serialize)]
struct ErrorSchema {
    #[serde(rename = "type")]
    kind: &'static str,
    description: &'static str,
    example: agentrep_publish::wire::ErrorBodyV1,
}

fn status_text(status: u16) -> &'static str {
    match status {
        400 => "bad input: an address not matching ^0x[a-fA-F0-9]{40}$ or a parameter out of range",
        402 => "payment required: x402 v1 terms in the body, v2 terms in the PAYMENT-REQUIRED header",
        404 => "the address is not indexed in the current snapshot",
        405 => "wrong method",
        503 => "no snapshot is loaded yet (before the first rebuild)",
        _ => "error",
    }
}

fn operation(def: &RouteDef) -> Operation {
    let mut parameters = Vec::new();
    if def.path.contains("{address}") {
        parameters.push(Parameter {
            name: "address",
            location: "path",
            required: true,
            description: "wallet address, any letter case (normalised to lowercase)",
            schema: Schema { kind: "string", pattern: Some("^0x[a-fA-F0-9]{40}$"), ..Schema::default() },
        });
    }
    for param in def.query {
        parameters.push(match *param {
            Param::Int(p, description) => Parameter {
                name: p.name,
                location: "query",
                required: false,
                description,
                schema: Schema {
                    kind: "integer",
                    minimum: Some(p.min),
                    maximum: Some(p.max),
                    default: Some(p.default),
                    ..Schema::default()
                },
            },
            Param::Flag(name, description) => Parameter {
                name,
                location: "query",
                required: false,
                description,
                schema: Schema { kind: "string", values: Some(vec!["1"]), ..Schema::default() },
            },
            Param::Text(name, description) => Parameter {
                name,
                location: "query",
                required: false,
                description,
                schema: Schema { kind: "string", ..Schema::default() },
            },
        });
    }
    let mut responses = BTreeMap::new();
    let mut ok = BTreeMap::new();
    ok.insert(def.content_type, MediaType { schema: SchemaRef { reference: None } });
    responses.insert("200".to_owned(), ResponseDoc { description: def.purpose, content: Some(ok) });
    // Every route but the two that need no snapshot can answer 503 before the first rebuild.
    let needs_snapshot = !matches!(def.path, "/health" | "/openapi.json");
    let always: &[u16] = if needs_snapshot { &[405, 503] } else { &[405] };
    for status in def.errors.iter().chain(always) {
        let mut content = BTreeMap::new();
        content.insert(
            "application/json",
            MediaType { schema: SchemaRef { reference: Some("#/components/schemas/Error") } },
        );
        responses.insert(status.to_string(), ResponseDoc { description: status_text(*status), content: Some(content) });
    }
    Operation {
        summary: def.purpose,
        operation_id: def
            .path
            .trim_start_matches('/')
            .replace(['/', '.', '{', '}'], "_")
            .trim_end_matches('_')
            .to_owned(),
        parameters,
        responses,
        x402: def.paid.map(|p| PaidDoc {
            query: p.query,
            price: p.price,
            asset: "USDC",
            network: "eip155:8453",
            purpose: p.purpose,
        }),
    }
}

/// The OpenAPI document for routes under `base_path`.
pub fn document(base_path: &str) -> Vec<u8> {
    let mut paths: BTreeMap<String, BTreeMap<String, Operation>> = BTreeMap::new();
    for def in ROUTES {
        paths.entry(def.path.to_owned()).or_default().insert(def.method.to_ascii_lowercase(), operation(def));
    }
    let doc = Document {
        openapi: "3.0.3",
        info: Info {
            title: "agentrep",
            version: API_VERSION,
            description: "Reputation oracle for the agent economy: scores, trust shields and preflight decisions for x402 sellers, ERC-8004 agents and token deployers. Free reads come from the current daily snapshot. Every error is {\"error\": {\"code\", \"message\"}}.",
        },
        servers: vec![ServerUrl { url: base_path.to_owned() }],
        paths,
        components: Components {
            schemas: BTreeMap::from([(
                "Error",
                ErrorSchema {
                    kind: "object",
                    description: "error body with a stable machine-readable code",
                    example: agentrep_publish::wire::ErrorBodyV1 {
                        error: agentrep_publish::wire::ErrorV1 {
                            code: "invalid_address".to_owned(),
                            message: "'0x12' is not an address matching ^0x[a-fA-F0-9]{40}$".to_owned(),
                        },
                    },
                },
            )]),
        },
    };
    serde_json::to_vec_pretty(&doc).expect("OpenAPI document serialises")
}
