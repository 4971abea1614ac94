//! The MCP server: JSON-RPC 2.0 over serde_json, written by hand, for two eras of the protocol.
//!
//! - **2026-07-28** (stateless): every request carries its protocol version and client
//!   capabilities in `params._meta`; `server/discover`, `tools/list` and `tools/call`; results
//!   carry `resultType` and the server's identity in `_meta`; list results carry `ttlMs` and
//!   `cacheScope`.
//! - **Initialize-based revisions** (2025-11-25, 2025-06-18, 2025-03-26, 2024-11-05): `initialize`
//!   answers the client's version when it is one of them (the newest otherwise); `ping`,
//!   `tools/list`, `tools/call`. No session is kept, so a request needs no earlier `initialize`.
//!   Revisions before 2025-06-18 get tools without `outputSchema` and results without
//!   `structuredContent`, which they do not define.
//!
//! This module holds what both transports share: message parsing, the era and version rules and
//! the method dispatch. `http.rs` adds the streamable HTTP rules (headers, statuses, JSON or SSE
//! bodies), `stdio.rs` the newline-delimited transport of `agentrep mcp`, `tools.rs` the tools.

pub mod args;
pub mod http;
pub mod paid;
pub mod schema;
pub mod stdio;
pub mod tool;
pub mod tools;

use std::sync::Arc;

use chrono::{DateTime, NaiveTime, Utc};
use serde_json::{Map, Value, json};

use crate::App;
pub use crate::read::tool::Ctx;

/// The stateless revision.
pub const MODERN: &str = "2026-07-28";
/// The initialize-based revisions, newest first.
pub const LEGACY: [&str; 4] = ["2025-11-25", "2025-06-18", "2025-03-26", "2024-11-05"];
/// What an HTTP request without `MCP-Protocol-Version` speaks (the header came with 2025-06-18).
pub const HEADERLESS: &str = "2025-03-26";

/// `_meta` key of the protocol version (2026-07-28).
pub const META_VERSION: &str = "io.modelcontextprotocol/protocolVersion";
/// `_meta` key of the client capabilities (2026-07-28).
pub const META_CAPABILITIES: &str = "io.modelcontextprotocol/clientCapabilities";
/// `_meta` key of the server identity in results (2026-07-28).
pub const META_SERVER_INFO: &str = "io.modelcontextprotocol/serverInfo";

/// JSON-RPC and MCP error codes.
pub mod code {
    /// Not JSON.
    pub const PARSE_ERROR: i64 = -32700;
    /// Not a JSON-RPC request or notification.
    pub const INVALID_REQUEST: i64 = -32600;
    /// No such method.
    pub const METHOD_NOT_FOUND: i64 = -32601;
    /// Malformed parameters, a missing `_meta` key, or an unknown tool.
    pub const INVALID_PARAMS: i64 = -32602;
    /// A bug.
    pub const INTERNAL: i64 = -32603;
    /// HTTP headers missing or not matching the body (2026-07-28).
    pub const HEADER_MISMATCH: i64 = -32020;
    /// A protocol version this server does not speak (2026-07-28).
    pub const UNSUPPORTED_VERSION: i64 = -32022;
}

/// Every revision this server speaks, newest first.
pub fn supported_versions() -> Vec<&'static str> {
    std::iter::once(MODERN).chain(LEGACY).collect()
}

/// The revision a request is answered under.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Revision {
    /// 2026-07-28.
    Modern,
    /// An initialize-based revision (one of [`LEGACY`]).
    Legacy(&'static str),
}

impl Revision {
    /// The legacy revision named `v`, if this server speaks it.
    pub fn legacy(v: &str) -> Option<Self> {
        LEGACY.iter().find(|l| **l == v).map(|l| Revision::Legacy(l))
    }

    /// Its name.
    pub fn as_str(self) -> &'static str {
        match self {
            Revision::Modern => MODERN,
            Revision::Legacy(v) => v,
        }
    }

    /// Whether tools carry `outputSchema` and `title`, and results `structuredContent` (since
    /// 2025-06-18).
    pub fn structured(self) -> bool {
        self.as_str() >= "2025-06-18"
    }

    /// Whether tools carry `annotations` (since 2025-03-26).
    pub fn annotations(self) -> bool {
        self.as_str() >= "2025-03-26"
    }
}

/// A JSON-RPC error.
#[derive(Debug, Clone, PartialEq)]
pub struct RpcError {
    /// Code (see [`code`]).
    pub code: i64,
    /// Message.
    pub message: String,
    /// Details, e.g. the supported versions.
    pub data: Option<Value>,
}

impl RpcError {
    /// An error without data.
    pub fn new(code: i64, message: impl Into<String>) -> Self {
        Self { code, message: message.into(), data: None }
    }

    /// `-32022` with the versions this server speaks.
    pub fn unsupported_version(requested: &str) -> Self {
        Self {
            code: code::UNSUPPORTED_VERSION,
            message: format!("Unsupported protocol version: {requested}"),
            data: Some(json!({ "supported": supported_versions(), "requested": requested })),
        }
    }

    /// `-32601` for `method`.
    pub fn method_not_found(method: &str) -> Self {
        Self::new(code::METHOD_NOT_FOUND, format!("Method not found: {method}"))
    }

    /// The `error` member of a response.
    pub fn to_value(&self) -> Value {
        let mut e = json!({ "code": self.code, "message": self.message });
        if let Some(data) = &self.data {
            e["data"] = data.clone();
        }
        e
    }
}

/// A JSON-RPC message this server takes.
#[derive(Debug, Clone, PartialEq)]
pub enum Message {
    /// A request: answered with the same `id` (a string or a number, echoed as received).
    Request {
        /// Id.
        id: Value,
        /// Method.
        method: String,
        /// Params (an empty object when absent).
        params: Value,
    },
    /// A notification: never answered.
    Notification {
        /// Method.
        method: String,
    },
}

/// Parses one message. A failure carries the error and the id, when one could be read.
pub fn parse(bytes: &[u8]) -> Result<Message, (RpcError, Value)> {
    let value: Value = serde_json::from_slice(bytes)
        .map_err(|e| (RpcError::new(code::PARSE_ERROR, format!("Parse error: {e}")), Value::Null))?;
    let Value::Object(mut obj) = value else {
        let what = if value.is_array() {
            "JSON-RPC batches are not supported (removed in 2025-06-18): send one message per request"
        } else {
            "a JSON-RPC message is an object"
        };
        return Err((RpcError::new(code::INVALID_REQUEST, what), Value::Null));
    };
    let id = obj.remove("id");
    let invalid = |message: &str, id: &Option<Value>| {
        (RpcError::new(code::INVALID_REQUEST, message), id.clone().filter(valid_id).unwrap_or(Value::Null))
    };
    if obj.get("jsonrpc").and_then(Value::as_str) != Some("2.0") {
        return Err(invalid("jsonrpc must be \"2.0\"", &id));
    }
    let Some(method) = obj.get("method").and_then(Value::as_str).map(str::to_owned) else {
        let message = if obj.contains_key("result") || obj.contains_key("error") {
            "this server sends no requests, so it takes no responses"
        } else {
            "method must be a string"
        };
        return Err(invalid(message, &id));
    };
    let params = match obj.remove("params") {
        None | Some(Value::Null) => Value::Object(Map::new()),
        Some(p @ Value::Object(_)) => p,
        Some(_) => {
            let id = id.clone().filter(valid_id).unwrap_or(Value::Null);
            return Err((RpcError::new(code::INVALID_PARAMS, "params must be an object"), id));
        }
    };
    match id {
        None => Ok(Message::Notification { method }),
        Some(id) if valid_id(&id) => Ok(Message::Request { id, method, params }),
        Some(_) => Err(invalid("id must be a string or a number", &None)),
    }
}

fn valid_id(id: &Value) -> bool {
    id.is_string() || id.is_number()
}

/// `params._meta`, if any.
pub fn meta(params: &Value) -> Option<&Map<String, Value>> {
    params.get("_meta").and_then(Value::as_object)
}

/// The 2026-07-28 protocol version a request names in `_meta`, if any.
pub fn meta_version(params: &Value) -> Option<&str> {
    meta(params)?.get(META_VERSION).and_then(Value::as_str)
}

/// Whether a request is answered under 2026-07-28 rules: it names a version in `_meta`, or asks
/// for `server/discover` (which only that revision has).
pub fn is_modern(method: &str, params: &Value) -> bool {
    meta_version(params).is_some() || method == "server/discover"
}

/// The 2026-07-28 request checks every transport applies: the two required `_meta` keys
/// (`-32602`), then a supported version (`-32022`). Returns the version.
pub fn check_meta(params: &Value) -> Result<&str, RpcError> {
    let missing = |key: &str| RpcError::new(code::INVALID_PARAMS, format!("params._meta[\"{key}\"] is required"));
    let meta = meta(params).ok_or_else(|| missing(META_VERSION))?;
    let version = meta.get(META_VERSION).and_then(Value::as_str).ok_or_else(|| missing(META_VERSION))?;
    if !meta.get(META_CAPABILITIES).is_some_and(Value::is_object) {
        return Err(missing(META_CAPABILITIES));
    }
    Ok(version)
}

/// `-32022` unless `version` is the stateless revision.
pub fn check_modern_version(version: &str) -> Result<(), RpcError> {
    if version == MODERN { Ok(()) } else { Err(RpcError::unsupported_version(version)) }
}

/// Milliseconds until the snapshot after `snapshot_date` is expected: rebuilds are daily, and a
/// day is rebuilt once it is over, so the snapshot of day D is followed at the end of day D+1
/// (D+2 at 00:00 UTC). Zero once that time has passed (a new snapshot may land any moment), and
/// zero without a snapshot.
pub fn ttl_ms(snapshot_date: Option<&str>, now: DateTime<Utc>) -> u64 {
    let Some(day) = snapshot_date.and_then(|d| chrono::NaiveDate::parse_from_str(d, "%Y-%m-%d").ok()) else {
        return 0;
    };
    let next = (day + chrono::Days::new(2)).and_time(NaiveTime::MIN).and_utc();
    u64::try_from((next - now).num_milliseconds()).unwrap_or(0)
}

fn server_info(rev: Revision) -> Value {
    let mut info = json!({ "name": "agentrep", "version": env!("CARGO_PKG_VERSION") });
    if rev.structured() {
        info["title"] = json!("agentrep reputation oracle");
    }
    info
}

fn instructions(ctx: &Ctx) -> String {
    let snapshot = ctx.snap.as_ref().map_or_else(
        || "No snapshot is loaded yet: the tools answer once the first daily rebuild is published.".to_owned(),
        |s| format!("Answers come from the daily snapshot of {} (id {}).", s.date(), s.id),
    );
    format!(
        "agentrep scores x402 sellers, ERC-8004 agents and token deployers 0-100 from settlements, probes, \
         feedback and identity proofs. Before paying a seller, call mainstreet_preflight (a BLOCK / CAUTION / \
         PROCEED decision) or mainstreet_vet; to find a seller for a task, mainstreet_match or mainstreet_pick. \
         The mainstreet_* tools keep the original MainStreet service's names and arguments; the agentrep_* tools \
         mirror this deployment's HTTP reads one to one. {snapshot}"
    )
}

/// Answers a request under `rev`. `tools/call` failures of the tool itself (a bad argument, an
/// address that is not indexed) are results with `isError`, not errors.
pub fn call(ctx: &Ctx, rev: Revision, method: &str, params: &Value) -> Result<Value, RpcError> {
    let mut result = match (rev, method) {
        (Revision::Modern, "server/discover") => {
            let ttl = ttl_ms(ctx.snap.as_ref().map(|s| s.date()), Utc::now());
            json!({
                "supportedVersions": supported_versions(),
                "capabilities": { "tools": {} },
                "instructions": instructions(ctx),
                "ttlMs": ttl,
                "cacheScope": "public",
            })
        }
        (Revision::Legacy(_), "initialize") => {
            let asked = params.get("protocolVersion").and_then(Value::as_str).unwrap_or_default();
            let answer = Revision::legacy(asked).unwrap_or(Revision::Legacy(LEGACY[0]));
            json!({
                "protocolVersion": answer.as_str(),
                "capabilities": { "tools": { "listChanged": false } },
                "serverInfo": server_info(answer),
                "instructions": instructions(ctx),
            })
        }
        (Revision::Legacy(_), "ping") => json!({}),
        (_, "tools/list") => {
            let mut list = tools::list(rev, ctx.app.endpoints());
            if let Some(all) = list.as_array_mut() {
                all.extend(paid::list_entries(rev));
            }
            let mut r = json!({ "tools": list });
            if rev == Revision::Modern {
                r["ttlMs"] = json!(ttl_ms(ctx.snap.as_ref().map(|s| s.date()), Utc::now()));
                r["cacheScope"] = json!("public");
            }
            r
        }
        (_, "tools/call") => {
            let name = params.get("name").and_then(Value::as_str).ok_or_else(|| {
                RpcError::new(code::INVALID_PARAMS, "tools/call needs params.name, the tool's name (a string)")
            })?;
            let arguments = match params.get("arguments") {
                None | Some(Value::Null) => Value::Object(Map::new()),
                Some(a @ Value::Object(_)) => a.clone(),
                Some(_) => return Err(RpcError::new(code::INVALID_PARAMS, "params.arguments must be an object")),
            };
            if let Some(paid) = paid::find(name) {
                paid::not_over_stdio(paid)
            } else {
                let tool = tools::find(name, ctx.app.endpoints()).ok_or_else(|| {
                    RpcError::new(code::INVALID_PARAMS, format!("Unknown tool: {name} (tools/list names them)"))
                })?;
                tool::result(tool.run(ctx, arguments), rev)
            }
        }
        _ => return Err(RpcError::method_not_found(method)),
    };
    if rev == Revision::Modern {
        result["resultType"] = json!("complete");
        result["_meta"] = json!({ META_SERVER_INFO: server_info(rev) });
    }
    Ok(result)
}

/// [`call`], with the paid tools sold through their routes (x402 over MCP, `paid.rs`): what the
/// HTTP transport, where the deployment's payments live, answers. Its `server/discover`
/// advertises the x402 extension binding when the deployment takes payments. `host` is the host
/// the client reached.
pub async fn call_with_payments(
    ctx: &Ctx<'_>,
    app: &Arc<App>,
    host: Option<&str>,
    rev: Revision,
    method: &str,
    params: &Value,
) -> Result<Value, RpcError> {
    // The extension is advertised where paid tools are sold: a deployment that takes payments.
    if rev == Revision::Modern && method == "server/discover" && app.payments().is_ok() {
        let mut result = call(ctx, rev, method, params)?;
        result["capabilities"]["extensions"] = json!({ paid::PAYMENT_EXTENSION: {} });
        return Ok(result);
    }
    let paid = (method == "tools/call").then(|| params.get("name").and_then(Value::as_str).and_then(paid::find));
    let Some(Some(tool)) = paid else { return call(ctx, rev, method, params) };
    let extension = rev == Revision::Modern && paid::extension_advertised(params);
    let mut result = paid::call(app, host, tool, params).await.into_result(rev, extension);
    if rev == Revision::Modern {
        if result.get("resultType").is_none() {
            result["resultType"] = json!("complete");
        }
        let mut meta = result.get_mut("_meta").and_then(Value::as_object_mut).map(std::mem::take).unwrap_or_default();
        meta.insert(META_SERVER_INFO.to_owned(), server_info(rev));
        result["_meta"] = Value::Object(meta);
    }
    Ok(result)
}

/// A response to request `id`.
pub fn response(id: &Value, outcome: &Result<Value, RpcError>) -> Value {
    match outcome {
        Ok(result) => json!({ "jsonrpc": "2.0", "id": id, "result": result }),
        Err(err) => json!({ "jsonrpc": "2.0", "id": id, "error": err.to_value() }),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn messages_parse_with_their_ids() {
        let m = parse(br#"{"jsonrpc":"2.0","id":0,"method":"tools/list"}"#).unwrap();
        assert_eq!(m, Message::Request { id: json!(0), method: "tools/list".into(), params: json!({}) });
        let m = parse(br#"{"jsonrpc":"2.0","id":"a-1","method":"ping","params":{"x":1}}"#).unwrap();
        assert!(matches!(m, Message::Request { id, .. } if id == json!("a-1")));
        let m = parse(br#"{"jsonrpc":"2.0","method":"notifications/initialized"}"#).unwrap();
        assert_eq!(m, Message::Notification { method: "notifications/initialized".into() });
        let err = |b: &[u8]| parse(b).unwrap_err();
        assert_eq!(err(b"{").0.code, code::PARSE_ERROR);
        assert_eq!(err(b"[]").0.code, code::INVALID_REQUEST);
        assert_eq!(
            err(br#"{"jsonrpc":"2.0","id":3,"result":{}}"#),
            (err(br#"{"jsonrpc":"2.0","id":3,"result":{}}"#).0, json!(3))
        );
        assert_eq!(err(br#"{"jsonrpc":"1.0","id":7,"method":"ping"}"#).1, json!(7));
        assert_eq!(err(br#"{"jsonrpc":"2.0","id":{},"method":"ping"}"#).0.code, code::INVALID_REQUEST);
        assert_eq!(err(br#"{"jsonrpc":"2.0","id":1,"method":"ping","params":[1]}"#).0.code, code::INVALID_PARAMS);
    }

    #[test]
    fn modern_requests_need_both_meta_keys_and_the_version() {
        let p = json!({ "_meta": { META_VERSION: MODERN, META_CAPABILITIES: {} } });
        assert_eq!(check_meta(&p), Ok(MODERN));
        let p = json!({ "_meta": { META_VERSION: MODERN } });
        assert_eq!(check_meta(&p).unwrap_err().code, code::INVALID_PARAMS);
        assert_eq!(check_meta(&json!({})).unwrap_err().code, code::INVALID_PARAMS);
        let e = check_modern_version("2099-01-01").unwrap_err();
        assert_eq!((e.code, e.data.unwrap()["requested"].clone()), (code::UNSUPPORTED_VERSION, json!("2099-01-01")));
        assert!(is_modern("server/discover", &json!({})) && !is_modern("tools/list", &json!({})));
    }

    #[test]
    fn revisions_gate_what_they_define() {
        assert!(Revision::Modern.structured() && Revision::legacy("2025-06-18").unwrap().structured());
        assert!(!Revision::legacy("2025-03-26").unwrap().structured());
        assert!(Revision::legacy("2025-03-26").unwrap().annotations());
        assert!(!Revision::legacy("2024-11-05").unwrap().annotations());
        assert_eq!(Revision::legacy("2026-07-28"), None);
    }

    #[test]
    fn ttl_runs_to_the_end_of_the_next_day() {
        let at = |s: &str| DateTime::parse_from_rfc3339(s).unwrap().with_timezone(&Utc);
        assert_eq!(ttl_ms(Some("2026-11-20"), at("2026-11-21T23:00:00Z")), 3_600_000);
        assert_eq!(ttl_ms(Some("2026-11-20"), at("2026-11-21T00:00:00Z")), 86_400_000);
        assert_eq!(ttl_ms(Some("2026-11-20"), at("2026-11-22T00:00:01Z")), 0);
        assert_eq!(ttl_ms(None, at("2026-11-21T00:00:00Z")), 0);
    }
}
