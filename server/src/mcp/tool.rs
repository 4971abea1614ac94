//! What a tool is: a row of the tool table (`tools.rs`), its typed answer (`Out<T>`, which can
//! only be made from the type its `outputSchema` describes), the error a tool answers with, and
//! the JSON Schema rules every MCP client accepts (self-contained, no Rust-only formats).

use std::marker::PhantomData;

use serde::Serialize;
use serde_json::{Value, json};

use super::Revision;
use crate::ApiError;
use crate::blob::Blob;
use crate::endpoints::Endpoint;
use crate::read::Answer;
use crate::read::tool::{Ctx, ToolError};

/// A tool's answer, typed by the wire type its `outputSchema` describes.
#[derive(Debug)]
pub struct Out<T> {
    value: Value,
    _type: PhantomData<fn() -> T>,
}

impl<T: Serialize> Out<T> {
    /// A payload computed now.
    pub(super) fn of(payload: &T) -> Self {
        Self { value: serde_json::to_value(payload).expect("payload serialises"), _type: PhantomData }
    }
}

impl<T> Out<T> {
    /// The answer as JSON.
    pub(super) fn into_value(self) -> Value {
        self.value
    }

    /// A document published from a `T` (the snapshot writer serialised it).
    pub(super) fn published(blob: &Blob) -> Result<Self, ApiError> {
        Ok(Self { value: crate::read::published(blob)?, _type: PhantomData })
    }
}

impl<T: Serialize> Out<T> {
    /// A read's answer (`crate::read`), as the routes answer it.
    pub(super) fn answered(answer: Answer<'_, T>) -> Result<Self, ApiError> {
        Ok(Self { value: answer.into_value()?, _type: PhantomData })
    }
}

pub(super) type Run = fn(&Ctx, Value) -> Result<Value, ToolError>;

/// One row of the table.
#[derive(Debug, Clone)]
pub struct Tool {
    /// Name.
    pub name: &'static str,
    /// Title, for people.
    pub title: &'static str,
    /// What it answers; `None` takes the purpose of the route it mirrors.
    pub(super) about: Option<&'static str>,
    /// Path of the HTTP read it mirrors (under the base path), if any.
    pub route: Option<&'static str>,
    pub(super) input: fn() -> Value,
    pub(super) output: fn() -> Value,
    pub(super) run: Run,
}

impl Tool {
    /// The description tools/list shows (a mirror takes its purpose from `endpoints`).
    pub fn description(&self, endpoints: &[&Endpoint]) -> String {
        let purpose = self.about.map(str::to_owned).or_else(|| {
            let path = self.route?;
            let def = endpoints.iter().find(|r| r.path == path)?;
            Some(format!("{} (the read of {} {path})", capitalise(def.purpose), def.method.as_str()))
        });
        purpose.unwrap_or_default()
    }

    /// Runs it on raw arguments.
    pub fn run(&self, ctx: &Ctx, arguments: Value) -> Result<Value, ToolError> {
        (self.run)(ctx, arguments)
    }
}

fn capitalise(s: &str) -> String {
    let mut c = s.chars();
    c.next().map(|f| f.to_uppercase().chain(c).collect()).unwrap_or_default()
}

/// A `CallToolResult`: the answer as JSON text (and as `structuredContent` where the revision
/// defines it), or the error text with `isError`.
pub fn result(outcome: Result<Value, ToolError>, rev: Revision) -> Value {
    match outcome {
        Ok(value) => {
            let mut r = json!({ "content": [{ "type": "text", "text": value.to_string() }], "isError": false });
            if rev.structured() {
                r["structuredContent"] = value;
            }
            r
        }
        Err(ToolError(text)) => json!({ "content": [{ "type": "text", "text": text }], "isError": true }),
    }
}
