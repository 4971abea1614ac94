//! Paid tools: x402 over MCP, both bindings of x402's `specs/transports-v2/mcp.md`.
//!
//! A paid tool is its paid HTTP route: the call is dispatched through the route's own handler, so
//! the terms, verification, ledger, settlement, receipts and refusals are exactly the route's.
//! A call carrying `params._meta["x402/payment"]` (a v2 `PaymentPayload`, or a v1 one) is the
//! paid retry, and its result carries the settlement in `result._meta["x402/payment-response"]`.
//! Without a payment, or with one refused, the x402 `PaymentRequired` (v2) comes back:
//!
//! - **extension binding**, when a 2026-07-28 request advertises `org.x402/payment` in its client
//!   capabilities: `resultType: "payment_required"` with `paymentRequired` (and the failed
//!   settlement in `_meta["x402/payment-response"]` when one failed);
//! - **tool-result binding** otherwise: `isError: true` with the `PaymentRequired` as
//!   `structuredContent` and as the text.
//!
//! Sold over the HTTP transport, where the deployment's payments live (its `server/discover`
//! advertises the extension when the deployment takes payments); over stdio a paid tool says so.

use std::sync::Arc;

use agentrep_payments::wire::{decode_base64, encode_base64};
use alloy::primitives::Address;
use bytes::Bytes;
use http_body_util::{BodyExt, Empty};
use hyper::header::{self, HeaderMap};
use hyper::{Method, StatusCode};
use serde_json::{Value, json};

use super::Revision;
use crate::App;
use crate::endpoints::Verb;
use crate::handlers::agents;
use crate::http::{Handler, PathParams, Request};
use crate::payment::prices::{AUDIT, LIVE_RESCORE, PaidVariant};

/// Where the paid payload rides in a `tools/call`.
pub const PAYMENT_META: &str = "x402/payment";
/// Where the settlement rides in its result.
pub const PAYMENT_RESPONSE_META: &str = "x402/payment-response";
/// The x402 MCP extension's identifier (client and server capabilities).
pub const PAYMENT_EXTENSION: &str = "org.x402/payment";

/// Whether a 2026-07-28 request advertises the x402 extension binding in its client capabilities.
pub fn extension_advertised(params: &Value) -> bool {
    super::meta(params)
        .and_then(|m| m.get(super::META_CAPABILITIES))
        .and_then(|c| c.get("extensions"))
        .and_then(|e| e.get(PAYMENT_EXTENSION))
        .is_some()
}

/// What a paid tool call came to.
#[derive(Debug, Clone, PartialEq)]
pub enum PaidOutcome {
    /// Answered: the answer, and the settlement (`None` while it is pending: reconciled later,
    /// never charged twice).
    Answered {
        /// The route's answer.
        answer: Value,
        /// The x402 `SettlementResponse`.
        settlement: Option<Value>,
    },
    /// Not executed (or its answer withheld): payment needed, or the payment refused.
    PaymentRequired {
        /// The x402 v2 `PaymentRequired`.
        required: Value,
        /// The failed settlement, when one failed.
        settlement: Option<Value>,
    },
    /// A failure that is not about payment (a bad argument, a wallet that is not indexed).
    Failed(String),
}

impl PaidOutcome {
    /// The MCP result of the outcome under `rev`, in the extension binding when `extension`.
    pub fn into_result(self, rev: Revision, extension: bool) -> Value {
        let structured = |value: Value, is_error: bool| {
            let mut r = json!({ "content": [{ "type": "text", "text": value.to_string() }], "isError": is_error });
            if rev.structured() {
                r["structuredContent"] = value;
            }
            r
        };
        let with_settlement = |mut result: Value, settlement: Option<Value>| {
            if let Some(settlement) = settlement {
                result["_meta"] = json!({ PAYMENT_RESPONSE_META: settlement });
            }
            result
        };
        match self {
            PaidOutcome::Answered { answer, settlement } => {
                let mut result = structured(answer, false);
                result["_meta"] = match settlement {
                    Some(settlement) => json!({ PAYMENT_RESPONSE_META: settlement }),
                    None => json!({ "agentrep/settlement": "pending" }),
                };
                result
            }
            PaidOutcome::PaymentRequired { required, settlement } if extension => {
                with_settlement(json!({ "resultType": "payment_required", "paymentRequired": required }), settlement)
            }
            PaidOutcome::PaymentRequired { required, settlement } => {
                with_settlement(structured(required, true), settlement)
            }
            PaidOutcome::Failed(text) => tool_error(text),
        }
    }
}

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
    /// The route's handler: the tool answers what the HTTP route answers.
    pub handler: Handler,
    /// The JSON Schema of a paid answer.
    pub output: fn() -> Value,
}

impl PaidTool {
    /// The name of the route's one path parameter (`address`, `agentAddress`).
    fn parameter(&self) -> &'static str {
        self.route.split_once('{').and_then(|(_, rest)| rest.split_once('}')).map_or("", |(name, _)| name)
    }

    /// The paid route's path and query for `address` (an address already parsed, so nothing a
    /// caller writes reaches the URI but 0x and 40 hex digits).
    fn path(&self, address: &Address) -> String {
        let start = self.route.find('{').unwrap_or(self.route.len());
        let end = self.route.find('}').map_or(self.route.len(), |i| i + 1);
        let filled = format!("{}{}{}", &self.route[..start], alloy::hex::encode_prefixed(address), &self.route[end..]);
        self.variant.path(&filled)
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
        handler: crate::handler!(agents::score),
        output: crate::read::tool::output_schema::<agentrep_publish::wire::ScorePayloadV1>,
    },
    PaidTool {
        name: "agentrep_audit",
        title: "Audit (paid)",
        description: "Every published document of an indexed wallet, unlocked: score, preflight, trust shield, history, deployer record: GET /audit/{agentAddress}. Paid with x402 over MCP",
        route: "/audit/{agentAddress}",
        variant: &AUDIT,
        handler: crate::handler!(agents::audit),
        output: crate::read::tool::output_schema::<agentrep_publish::wire::AuditV1>,
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
                    "{}. Price {} USDC: an unpaid call answers the x402 PaymentRequired (resultType \
                     payment_required to a client advertising {PAYMENT_EXTENSION}, isError otherwise); \
                     pay with params._meta[\"{PAYMENT_META}\"].",
                    t.description,
                    t.variant.price_text()
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

fn decoded(headers: &HeaderMap, name: &str) -> Option<Value> {
    let text = headers.get(name)?.to_str().ok()?;
    serde_json::from_slice(&decode_base64(text)?).ok()
}

/// Calls `tool` with `params` (its `arguments` and `_meta`) through its paid route; `host` is the
/// host the client reached (the terms' resource URL names it).
pub async fn call(app: &Arc<App>, host: Option<&str>, tool: &PaidTool, params: &Value) -> PaidOutcome {
    let arguments = params.get("arguments").cloned().unwrap_or(Value::Null);
    let Some(address) = arguments.get("address").and_then(Value::as_str) else {
        return PaidOutcome::Failed(format!("{} needs arguments.address, a wallet address", tool.name));
    };
    if arguments.as_object().is_some_and(|a| a.len() > 1) {
        return PaidOutcome::Failed(format!("{} takes one argument, address", tool.name));
    }
    let Ok(address) = address.trim().parse::<Address>() else {
        return PaidOutcome::Failed(format!("{} needs a wallet address (0x and 40 hex digits)", tool.name));
    };
    let uri = format!("{}{}", app.base_path(), tool.path(&address));
    let mut request = hyper::Request::builder().method(Method::GET).uri(&uri);
    request = request.header(header::HOST, host.unwrap_or("127.0.0.1"));
    if let Some(payment) = params.pointer("/_meta/x402~1payment") {
        let encoded = encode_base64(&serde_json::to_vec(payment).expect("JSON serialises"));
        let name = if payment.get("x402Version") == Some(&json!(1)) { "x-payment" } else { "payment-signature" };
        request = request.header(name, encoded);
    }
    let body = Empty::<Bytes>::new().map_err(|never| match never {}).boxed();
    let (parts, body) =
        request.body(body).expect("a path of a route template and a parsed address is a URI").into_parts();
    let Some(endpoint) = app.endpoints().iter().find(|e| e.path == tool.route && e.method == Verb::Get) else {
        return PaidOutcome::Failed(format!("{} is not served by this deployment", tool.route));
    };
    let params = PathParams::one(tool.parameter(), alloy::hex::encode_prefixed(address));
    let response = crate::http::run(app.clone(), tool.handler, Request::new(parts, params, endpoint, body)).await;
    let (parts, body) = response.into_parts();
    let bytes = body.collect().await.map(|c| c.to_bytes()).unwrap_or_default();
    let text = String::from_utf8_lossy(&bytes).into_owned();
    let settlement = decoded(&parts.headers, "payment-response");
    match parts.status {
        StatusCode::PAYMENT_REQUIRED => match decoded(&parts.headers, "payment-required") {
            Some(required) => PaidOutcome::PaymentRequired { required, settlement },
            None => PaidOutcome::Failed(text),
        },
        StatusCode::OK => {
            PaidOutcome::Answered { answer: serde_json::from_slice(&bytes).unwrap_or(Value::String(text)), settlement }
        }
        _ => PaidOutcome::Failed(text),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn paths_fill_the_one_parameter_and_the_paid_query() {
        let a = "0x00000000000000000000000000000000000000aa";
        let parsed: Address = a.parse().unwrap();
        assert_eq!(PAID_TOOLS[0].path(&parsed), format!("/score/{a}?live=1"));
        assert_eq!(PAID_TOOLS[1].path(&parsed), format!("/audit/{a}"));
        assert_eq!((PAID_TOOLS[0].parameter(), PAID_TOOLS[1].parameter()), ("address", "agentAddress"));
        assert_eq!(
            (PAID_TOOLS[0].variant.price_text(), PAID_TOOLS[1].variant.price_text()),
            ("0.05".to_owned(), "0.25".to_owned())
        );
    }

    #[test]
    fn payment_required_takes_the_binding_the_client_advertised() {
        let required = json!({ "x402Version": 2, "accepts": [] });
        let failed = json!({ "success": false, "errorReason": "insufficient_funds" });
        let outcome = PaidOutcome::PaymentRequired { required: required.clone(), settlement: Some(failed.clone()) };
        let extension = outcome.clone().into_result(Revision::Modern, true);
        assert_eq!(extension["resultType"], "payment_required");
        assert_eq!(extension["paymentRequired"], required);
        assert_eq!(extension["_meta"][PAYMENT_RESPONSE_META], failed);
        assert!(extension.get("isError").is_none());
        let tool_result = outcome.into_result(Revision::Modern, false);
        assert_eq!((tool_result["isError"].clone(), tool_result["structuredContent"].clone()), (json!(true), required));
        assert!(tool_result.get("resultType").is_none(), "the caller marks it complete");
        let caps = |c: Value| json!({ "_meta": { crate::mcp::META_CAPABILITIES: c } });
        assert!(extension_advertised(&caps(json!({ "extensions": { PAYMENT_EXTENSION: {} } }))));
        assert!(!extension_advertised(&caps(json!({ "extensions": {} }))));
        assert!(!extension_advertised(&json!({})));
    }
}
