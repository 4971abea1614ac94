//! Paid tools: x402 over MCP, the tool-result binding of x402's `specs/transports-v2/mcp.md`.
//!
//! A paid tool is its paid HTTP route: the call is dispatched through the route's own handler, so
//! the terms, verification, ledger, settlement, receipts and refusals are exactly the route's.
//! Unpaid, the tool answers `isError: true` with the x402 `PaymentRequired` (v2) as
//! `structuredContent` and as the text; a call carrying `params._meta["x402/payment"]` (a v2
//! `PaymentPayload`, or a v1 one) is the paid retry, and its result carries the settlement in
//! `result._meta["x402/payment-response"]`. Sold over the HTTP transport, where the deployment's
//! payments live; over stdio a paid tool says so.

use std::future::Future;
use std::pin::Pin;
use std::sync::Arc;

use agentrep_payments::wire::{decode_base64, encode_base64};
use bytes::Bytes;
use http_body_util::{BodyExt, Empty};
use hyper::header::{self, HeaderMap};
use hyper::{Method, StatusCode};
use serde_json::{Value, json};

use super::Revision;
use crate::App;
use crate::routes::{AUDIT, LIVE_RESCORE, PaidVariant};

/// Where the paid payload rides in a `tools/call`.
pub const PAYMENT_META: &str = "x402/payment";
/// Where the settlement rides in its result.
pub const PAYMENT_RESPONSE_META: &str = "x402/payment-response";

/// A tool sold through a paid route.
#[derive(Debug)]
pub struct PaidTool {
    /// Tool name.
    pub name: &'static str,
    /// Human title.
    pub title: &'static str,
    /// What it answers.
    pub description: &'static str,
    /// The route's path template (one address parameter).
    pub route: &'static str,
    /// The route's paid variant (price, query).
    pub variant: &'static PaidVariant,
    /// The JSON Schema of a paid answer.
    pub output: fn() -> Value,
}

impl PaidTool {
    fn path(&self, address: &str) -> String {
        let start = self.route.find('{').unwrap_or(self.route.len());
        let end = self.route.find('}').map_or(self.route.len(), |i| i + 1);
        let query = self.variant.query.map(|q| format!("?{q}")).unwrap_or_default();
        format!("{}{address}{}{query}", &self.route[..start], &self.route[end..])
    }

    fn price(&self) -> String {
        format!("{:.2}", self.variant.price as f64 / 1e6)
    }
}

/// The paid tools.
pub const PAID_TOOLS: [PaidTool; 2] = [
    PaidTool {
        name: "agentrep_live_rescore",
        title: "Live re-score (paid)",
        description: "Re-scores a seller now from evidence newer than the snapshot (its settlements read from the chain, a probe of its endpoints), with the rebuild's model: GET /score/{address}?live=1. Paid with x402 over MCP",
        route: "/score/{address}",
        variant: &LIVE_RESCORE,
        output: super::tools::output_schema::<agentrep_publish::wire::ScorePayloadV1>,
    },
    PaidTool {
        name: "agentrep_audit",
        title: "Audit (paid)",
        description: "Every published document of an indexed wallet, unlocked: score, preflight, trust shield, history, deployer record: GET /audit/{agentAddress}. Paid with x402 over MCP",
        route: "/audit/{agentAddress}",
        variant: &AUDIT,
        output: super::tools::output_schema::<agentrep_publish::wire::AuditV1>,
    },
];

/// The paid tool named `name`, if it is one.
pub fn find(name: &str) -> Option<&'static PaidTool> {
    PAID_TOOLS.iter().find(|t| t.name == name)
}

/// The `tools/list` entries of the paid tools.
pub fn list_entries(rev: Revision) -> Vec<Value> {
    static OUTPUTS: std::sync::OnceLock<Vec<Value>> = std::sync::OnceLock::new();
    let outputs = OUTPUTS.get_or_init(|| PAID_TOOLS.iter().map(|t| (t.output)()).collect());
    PAID_TOOLS
        .iter()
        .zip(outputs)
        .map(|(t, output)| {
            let mut entry = json!({
                "name": t.name,
                "description": format!(
                    "{}. Price {} USDC: an unpaid call answers isError with the x402 PaymentRequired; \
                     pay with params._meta[\"{PAYMENT_META}\"].",
                    t.description,
                    t.price()
                ),
                "inputSchema": {
                    "type": "object",
                    "properties": {"address": {"type": "string", "pattern": "^0x[0-9a-fA-F]{40}$", "description": "Wallet address"}},
                    "required": ["address"],
                    "additionalProperties": false,
                },
            });
            if rev.structured() {
                // A paid answer follows it; an unpaid call's PaymentRequired is an error result.
                entry["title"] = json!(t.title);
                entry["outputSchema"] = output.clone();
            }
            if rev.annotations() {
                entry["annotations"] = json!({
                    "title": t.title,
                    "readOnlyHint": true,
                    "destructiveHint": false,
                    "idempotentHint": false,
                    "openWorldHint": true,
                });
            }
            entry
        })
        .collect()
}

fn tool_error(text: String) -> Value {
    json!({ "content": [{ "type": "text", "text": text }], "isError": true })
}

/// The result of a paid tool over stdio, which takes no payments.
pub fn not_over_stdio(tool: &PaidTool) -> Value {
    tool_error(format!(
        "{} is paid with x402 over MCP on the HTTP transport (POST /mcp of a deployment that takes payments); \
         this stdio server takes none",
        tool.name
    ))
}

/// The route dispatch, behind a named boxed future: the MCP handler is itself a route, and an
/// opaque future that contains the dispatcher would make the route table's type depend on itself.
fn dispatch(
    app: Arc<App>,
    request: hyper::Request<crate::http::RequestBody>,
) -> Pin<Box<dyn Future<Output = hyper::Response<crate::Body>> + Send>> {
    Box::pin(crate::http::dispatch(app, request))
}

fn decoded(headers: &HeaderMap, name: &str) -> Option<Value> {
    let text = headers.get(name)?.to_str().ok()?;
    serde_json::from_slice(&decode_base64(text)?).ok()
}

/// Calls `tool` with `params` (its `arguments` and `_meta`) through its paid route; `host` is the
/// host the client reached (the terms' resource URL names it).
pub async fn call(app: &Arc<App>, host: Option<&str>, tool: &PaidTool, rev: Revision, params: &Value) -> Value {
    let arguments = params.get("arguments").cloned().unwrap_or(Value::Null);
    let Some(address) = arguments.get("address").and_then(Value::as_str) else {
        return tool_error(format!("{} needs arguments.address, a wallet address", tool.name));
    };
    if arguments.as_object().is_some_and(|a| a.len() > 1) {
        return tool_error(format!("{} takes one argument, address", tool.name));
    }
    let uri = format!("{}{}", app.base_path(), tool.path(address.trim()));
    let mut request = hyper::Request::builder().method(Method::GET).uri(&uri);
    request = request.header(header::HOST, host.unwrap_or("127.0.0.1"));
    if let Some(payment) = params.pointer("/_meta/x402~1payment") {
        let encoded = encode_base64(&serde_json::to_vec(payment).expect("JSON serialises"));
        let name = if payment.get("x402Version") == Some(&json!(1)) { "x-payment" } else { "payment-signature" };
        request = request.header(name, encoded);
    }
    let body = Empty::<Bytes>::new().map_err(|never| match never {}).boxed();
    let Ok(request) = request.body(body) else {
        return tool_error(format!("{} needs a wallet address (0x and 40 hex digits)", tool.name));
    };
    let response = dispatch(app.clone(), request).await;
    let (parts, body) = response.into_parts();
    let bytes = body.collect().await.map(|c| c.to_bytes()).unwrap_or_default();
    let text = String::from_utf8_lossy(&bytes).into_owned();
    let structured = |value: Value, is_error: bool| {
        let mut r = json!({ "content": [{ "type": "text", "text": value.to_string() }], "isError": is_error });
        if rev.structured() {
            r["structuredContent"] = value;
        }
        r
    };
    match parts.status {
        StatusCode::PAYMENT_REQUIRED => match decoded(&parts.headers, "payment-required") {
            Some(required) => structured(required, true),
            None => tool_error(text),
        },
        StatusCode::OK => {
            let answer: Value = serde_json::from_slice(&bytes).unwrap_or(Value::String(text));
            let mut result = structured(answer, false);
            let mut meta = serde_json::Map::new();
            match decoded(&parts.headers, "payment-response") {
                Some(settlement) => {
                    meta.insert(PAYMENT_RESPONSE_META.to_owned(), settlement);
                }
                // Settlement outcome unknown: answered, and reconciled later (never charged twice).
                None => {
                    meta.insert("agentrep/settlement".to_owned(), json!("pending"));
                }
            }
            result["_meta"] = Value::Object(meta);
            result
        }
        _ => tool_error(text),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn paths_fill_the_one_parameter_and_the_paid_query() {
        let a = "0x00000000000000000000000000000000000000aa";
        assert_eq!(PAID_TOOLS[0].path(a), format!("/score/{a}?live=1"));
        assert_eq!(PAID_TOOLS[1].path(a), format!("/audit/{a}"));
        assert_eq!((PAID_TOOLS[0].price(), PAID_TOOLS[1].price()), ("0.05".to_owned(), "0.25".to_owned()));
    }
}
