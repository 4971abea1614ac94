//! JSON Schemas of the JSON-RPC 2.0 messages `POST /mcp` reads and answers, for the route table's
//! OpenAPI description (the MCP tests check the protocol itself).

use schemars::{Schema, SchemaGenerator, json_schema};

/// A JSON-RPC request or notification.
pub fn request(_: &mut SchemaGenerator) -> Schema {
    json_schema!({
        "type": "object",
        "description": "one JSON-RPC 2.0 request (with an id) or notification (without one)",
        "required": ["jsonrpc", "method"],
        "properties": {
            "jsonrpc": { "const": "2.0" },
            "id": { "type": ["string", "number"] },
            "method": { "type": "string" },
            "params": { "type": "object" }
        }
    })
}

/// A JSON-RPC response: a result, or an error with its numeric code.
pub fn response(_: &mut SchemaGenerator) -> Schema {
    json_schema!({
        "type": "object",
        "description": "one JSON-RPC 2.0 response",
        "required": ["jsonrpc"],
        "properties": {
            "jsonrpc": { "const": "2.0" },
            "id": { "type": ["string", "number", "null"] },
            "result": { "type": "object" },
            "error": {
                "type": "object",
                "required": ["code", "message"],
                "properties": { "code": { "type": "integer" }, "message": { "type": "string" } }
            }
        }
    })
}
