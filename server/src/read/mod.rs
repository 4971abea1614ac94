//! A read: one query of the snapshot, typed by its arguments and its answer. A row of the route
//! table that answers with a read (`read!`) is both the HTTP route and its `agentrep_*` MCP tool:
//! the handler and the tool are made from the row, so a new read of one wallet or one list is its
//! query function and its row (issue 45 § 4).
//!
//! - [`ReadArgs`]: the arguments, read from the request's path and query (or JSON body) over
//!   HTTP, and from the call's `arguments` over MCP; their schema is the tool's `inputSchema`,
//!   and their query or body type the route's description.
//! - [`Answer`]: a document of the snapshot (served with its validator), or a payload computed
//!   now, cacheable for as long as the snapshot or for this request only.

mod args;
pub mod tool;

use std::future::Future;
use std::sync::Arc;

use hyper::StatusCode;
use schemars::{JsonSchema, Schema, SchemaGenerator, json_schema};
use serde::Serialize;
use serde_json::Value;

pub use self::args::{AddressArgs, At, CategoryArgs, JsonBody, NoArgs, Query, TagArgs, TokenAddressArgs, TokenArgs};
use self::tool::{Ctx, ToolError};
use crate::blob::Blob;
use crate::endpoints::{Input, SchemaFn};
use crate::http::respond::{self, mime};
use crate::http::{Handler, HandlerResult, Request};
use crate::query::agents::WalletRead;
use crate::{ApiError, App, ServedSnapshot};

/// What a read runs with: the server's state and the snapshot of this request.
#[derive(Debug)]
pub struct Reading<'a> {
    app: &'a App,
    snap: Option<Arc<ServedSnapshot>>,
}

impl<'a> Reading<'a> {
    /// A reading of the snapshot `app` serves now.
    pub fn new(app: &'a App) -> Self {
        Self { app, snap: app.snapshot() }
    }

    /// The server's state.
    pub fn app(&self) -> &'a App {
        self.app
    }

    /// The snapshot, or 503 before the first loads.
    pub fn snap(&self) -> Result<&ServedSnapshot, ApiError> {
        self.snap.as_deref().ok_or(ApiError::NoSnapshot)
    }

    /// The base path links in answers start with.
    pub fn base(&self) -> &'a str {
        self.app.base_path()
    }
}

/// A read's answer, typed by the payload it is (or was published from).
#[derive(Debug)]
pub enum Answer<'a, T> {
    /// A document of the snapshot, served with its validator.
    Published(&'a Blob),
    /// A document made from the snapshot's and kept (a filtered view, a sliced history, an
    /// overlaid document), served with its validator.
    Kept(Arc<Blob>),
    /// Computed now from the snapshot: cacheable for as long as the snapshot.
    Computed(T),
    /// Computed for this request only (`Cache-Control: no-store`).
    Fresh(T),
}

impl<T: Serialize> Answer<'_, T> {
    /// The HTTP response to `req`.
    pub fn respond(&self, req: &Request) -> HandlerResult {
        Ok(match self {
            Answer::Published(blob) => respond::blob(&req.headers, blob, mime::JSON, req.is_head()),
            Answer::Kept(blob) => respond::blob(&req.headers, blob, mime::JSON, req.is_head()),
            Answer::Computed(value) => respond::computed(StatusCode::OK, value),
            Answer::Fresh(value) => respond::json(StatusCode::OK, value),
        })
    }

    /// The answer as JSON (a tool's result); a published document that does not parse is the
    /// snapshot's fault, and said so.
    pub fn into_value(self) -> Result<Value, ApiError> {
        match self {
            Answer::Published(blob) => published(blob),
            Answer::Kept(blob) => published(&blob),
            Answer::Computed(value) | Answer::Fresh(value) => {
                Ok(serde_json::to_value(value).expect("payload serialises"))
            }
        }
    }
}

impl<'a, T> Answer<'a, T> {
    /// A wallet's document where every wallet read has one published (as served: lowered by the
    /// overlay when it lowers the wallet).
    pub fn of_published(read: WalletRead<std::convert::Infallible>) -> Self {
        match read {
            WalletRead::Published(blob) => Answer::Kept(blob),
            WalletRead::Computed(never) => match never {},
        }
    }
}

/// A published document as JSON.
pub(crate) fn published(blob: &Blob) -> Result<Value, ApiError> {
    serde_json::from_slice(&blob.body).map_err(|e| ApiError::snapshot_unreadable("document", &e))
}

impl<P, U> From<WalletRead<U>> for Answer<'_, Either<P, U>> {
    /// A wallet's published document, or what an unindexed wallet gets (never cached: the next
    /// snapshot may index it, and the overlay may lower it).
    fn from(read: WalletRead<U>) -> Self {
        match read {
            WalletRead::Published(blob) => Answer::Kept(blob),
            WalletRead::Computed(doc) => Answer::Fresh(Either::Right(doc)),
        }
    }
}

/// One of two payloads: the 200 of a read that differs for indexed and unknown wallets. Its
/// schema is `anyOf` the two, inline.
#[derive(Debug, Serialize)]
#[serde(untagged)]
pub enum Either<A, B> {
    /// The first (the published document).
    Left(A),
    /// The second.
    Right(B),
}

impl<A: JsonSchema, B: JsonSchema> JsonSchema for Either<A, B> {
    fn schema_name() -> std::borrow::Cow<'static, str> {
        format!("OneOf_{}_{}", A::schema_name(), B::schema_name()).into()
    }

    fn inline_schema() -> bool {
        true
    }

    fn json_schema(generator: &mut SchemaGenerator) -> Schema {
        let (a, b) = (generator.subschema_for::<A>(), generator.subschema_for::<B>());
        json_schema!({ "anyOf": [a, b] })
    }
}

/// What a read's arguments are: deserialised from a tool call's `arguments` (their schema is its
/// `inputSchema`), and read from an HTTP request's path parameters and query or body.
pub trait ReadArgs: serde::de::DeserializeOwned + JsonSchema + Send + 'static {
    /// What the route's description says of its query or body.
    const INPUT: Input;

    /// The arguments of an HTTP request (its body, at most [`crate::http::MAX_BODY`] bytes, read
    /// when they are one).
    fn from_http(req: &mut Request) -> impl Future<Output = Result<Self, ApiError>> + Send;
}

/// A read's function: from the reading and the arguments to the answer.
pub type RunFn<A, O> = for<'a> fn(&'a Reading<'a>, A) -> Result<Answer<'a, O>, ApiError>;

/// A tool's function: from the call's context and raw arguments to its result.
pub type ToolFn = fn(&Ctx, Value) -> Result<Value, ToolError>;

/// A read made into what the route table and the tool list take (`read!` builds one).
#[derive(Debug, Clone, Copy)]
pub struct Read {
    /// The tool's name (`agentrep_*`).
    pub name: &'static str,
    /// The tool's title, for people.
    pub title: &'static str,
    /// The route's query or body.
    pub input: Input,
    /// The route's 200 body.
    pub output: SchemaFn,
    /// The route's handler.
    pub http: Handler,
    /// The tool's `inputSchema`.
    pub tool_input: fn() -> Value,
    /// The tool's `outputSchema`.
    pub tool_output: fn() -> Value,
    /// The tool's function.
    pub tool_run: ToolFn,
}

/// Answers an HTTP request with a read.
pub async fn over_http<A: ReadArgs, O: Serialize>(app: Arc<App>, mut req: Request, run: RunFn<A, O>) -> HandlerResult {
    let args = A::from_http(&mut req).await?;
    let reading = Reading::new(&app);
    run(&reading, args)?.respond(&req)
}

/// Answers a tool call with a read.
pub fn over_mcp<A: ReadArgs, O: Serialize>(ctx: &Ctx, raw: Value, run: RunFn<A, O>) -> Result<Value, ToolError> {
    let args = tool::args::<A>(raw)?;
    let reading = Reading { app: ctx.app, snap: ctx.snap.clone() };
    Ok(run(&reading, args)?.into_value()?)
}

/// A read for a row of the route table: its tool's name and title, `Args => Output`, and a
/// function from the [`Reading`] and the typed arguments to an [`Answer`] of `Output`.
#[macro_export]
macro_rules! read {
    ($name:literal, $title:literal, $args:ty => $out:ty, $run:expr) => {{
        const RUN: $crate::read::RunFn<$args, $out> = $run;
        $crate::read::Read {
            name: $name,
            title: $title,
            input: <$args as $crate::read::ReadArgs>::INPUT,
            output: $crate::endpoints::schema_of::<$out>,
            http: |app, req| Box::pin($crate::read::over_http::<$args, $out>(app, req, RUN)),
            tool_input: $crate::read::tool::input_schema::<$args>,
            tool_output: $crate::read::tool::output_schema::<$out>,
            tool_run: |ctx, raw| $crate::read::over_mcp::<$args, $out>(ctx, raw, RUN),
        }
    }};
}
