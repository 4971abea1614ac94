//! stdio (`agentrep mcp`): newline-delimited JSON-RPC on stdin and stdout, one message per line,
//! answered in order; logs go to stderr only. A request naming 2026-07-28 in `_meta` is answered
//! under that revision (no headers on stdio: the `_meta` checks only); any other under the
//! revision this process's last `initialize` settled on (the newest initialize-based one
//! before any). Exits at the end of stdin. The snapshot is reloaded in the background when
//! `current` moves, as `agentrep serve` does.

use std::io::{self, BufRead, Write};
use std::sync::Arc;

use serde_json::Value;

use super::{Ctx, LEGACY, Message, Revision};
use crate::{App, ServerConfig};

/// Serves stdin and stdout with `app` until stdin ends.
pub fn run(app: Arc<App>, config: &ServerConfig) -> io::Result<()> {
    app.reload();
    match app.snapshot() {
        Some(snap) => tracing::info!(target: "server::mcp", snapshot = %snap.id, "MCP server on stdio."),
        None => tracing::warn!(
            target: "server::mcp",
            snapshots = %config.snapshots.display(),
            "MCP server on stdio without a snapshot yet; tools answer once one is published."
        ),
    }
    let reloader = app.clone();
    let interval = config.reload_interval;
    std::thread::spawn(move || {
        loop {
            std::thread::sleep(interval);
            reloader.reload();
        }
    });
    serve(&app, io::stdin().lock(), io::stdout().lock())
}

/// Answers each line of `input` on `output`.
pub fn serve(app: &App, mut input: impl BufRead, mut output: impl Write) -> io::Result<()> {
    let origin = app.identity.domain.as_ref().map(|d| format!("https://{d}"));
    let mut negotiated = Revision::Legacy(LEGACY[0]);
    let mut line = Vec::new();
    loop {
        line.clear();
        if input.read_until(b'\n', &mut line)? == 0 {
            return Ok(());
        }
        if line.iter().all(u8::is_ascii_whitespace) {
            continue;
        }
        if let Some(reply) = answer(app, &origin, &mut negotiated, &line) {
            serde_json::to_writer(&mut output, &reply)?;
            output.write_all(b"\n")?;
            output.flush()?;
        }
    }
}

/// The reply to one line, if it needs one.
fn answer(app: &App, origin: &Option<String>, negotiated: &mut Revision, line: &[u8]) -> Option<Value> {
    let (id, method, params) = match super::parse(line) {
        Ok(Message::Request { id, method, params }) => (id, method, params),
        Ok(Message::Notification { .. }) => return None,
        Err((err, id)) => return Some(super::response(&id, &Err(err))),
    };
    let ctx = Ctx::new(app, origin.clone());
    let outcome = if super::is_modern(&method, &params) {
        super::check_meta(&params)
            .and_then(super::check_modern_version)
            .and_then(|()| super::call(&ctx, Revision::Modern, &method, &params))
    } else {
        let outcome = super::call(&ctx, *negotiated, &method, &params);
        if method == "initialize"
            && let Some(rev) =
                outcome.as_ref().ok().and_then(|r| r["protocolVersion"].as_str()).and_then(Revision::legacy)
        {
            *negotiated = rev;
        }
        outcome
    };
    Some(super::response(&id, &outcome))
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn run_lines(lines: &[Value]) -> Vec<Value> {
        let app = crate::routes::app(&ServerConfig { snapshots: "/nonexistent".into(), ..Default::default() });
        let mut input = Vec::new();
        for l in lines {
            input.extend_from_slice(l.to_string().as_bytes());
            input.extend_from_slice(b"\n\n");
        }
        input.extend_from_slice(b"not json\n");
        let mut out = Vec::new();
        serve(&app, &input[..], &mut out).unwrap();
        String::from_utf8(out).unwrap().lines().map(|l| serde_json::from_str(l).unwrap()).collect()
    }

    #[test]
    fn stdio_sessions_negotiate_and_answer_in_order() {
        let meta = json!({ "io.modelcontextprotocol/protocolVersion": "2026-07-28",
                           "io.modelcontextprotocol/clientCapabilities": {} });
        let out = run_lines(&[
            json!({ "jsonrpc": "2.0", "id": 0, "method": "initialize",
                    "params": { "protocolVersion": "2024-11-05", "capabilities": {}, "clientInfo": { "name": "t", "version": "1" } } }),
            json!({ "jsonrpc": "2.0", "method": "notifications/initialized" }),
            json!({ "jsonrpc": "2.0", "id": "l", "method": "tools/list" }),
            json!({ "jsonrpc": "2.0", "id": 2, "method": "server/discover", "params": { "_meta": meta } }),
            json!({ "jsonrpc": "2.0", "id": 3, "method": "server/discover", "params": {} }),
            json!({ "jsonrpc": "2.0", "id": 4, "method": "tools/call", "params": { "name": "mainstreet_score", "arguments": { "address": "0x1" } } }),
            json!({ "jsonrpc": "2.0", "id": 5, "method": "nope" }),
        ]);
        assert_eq!(out.len(), 7, "{out:?}");
        assert_eq!(
            (out[0]["id"].clone(), out[0]["result"]["protocolVersion"].clone()),
            (json!(0), json!("2024-11-05"))
        );
        assert_eq!(out[1]["id"], "l");
        assert!(out[1]["result"]["tools"][0].get("outputSchema").is_none(), "2024-11-05 has no output schemas");
        assert_eq!(out[2]["result"]["resultType"], "complete");
        assert_eq!(out[2]["result"]["supportedVersions"][0], "2026-07-28");
        assert_eq!(out[3]["error"]["code"], -32602, "discover needs the _meta keys");
        assert_eq!(out[4]["result"]["isError"], true);
        assert_eq!(out[5]["error"]["code"], -32601);
        assert_eq!((out[6]["id"].clone(), out[6]["error"]["code"].clone()), (Value::Null, json!(-32700)));
    }
}
