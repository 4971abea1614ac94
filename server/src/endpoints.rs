//! What a route is, apart from the code that answers it: method, path, purpose, price, schemas
//! and statuses. The route table (`routes.rs`) pairs each [`Endpoint`] with its handler; every
//! reader of the description (`/health`, `/catalog`, `/status`, `/openapi.json`, the MCP tools'
//! descriptions, `serve --check`) takes the endpoints from [`crate::App::endpoints`], so nothing
//! below the table depends on the table.

use hyper::Method;
use schemars::{JsonSchema, Schema, SchemaGenerator};
use serde::de::DeserializeOwned;

use crate::ApiError;
use crate::http::params;
use crate::http::respond::mime;
use crate::payment::prices::PaidVariant;
use crate::read::Read;

/// The methods routes use.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Verb {
    /// `GET` (also answers `HEAD`).
    Get,
    /// `POST`.
    Post,
}

impl Verb {
    /// Its name.
    pub fn as_str(self) -> &'static str {
        match self {
            Verb::Get => "GET",
            Verb::Post => "POST",
        }
    }
}

impl PartialEq<Method> for Verb {
    fn eq(&self, other: &Method) -> bool {
        self.as_str() == other.as_str()
    }
}

/// Where a route's path lives.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Scope {
    /// Under the base path (`/api/agent`): the API.
    Api,
    /// At the origin: pages for people, and `/mcp` where the original service hosts it.
    Origin,
}

/// Makes a schema of a type in a generator.
pub type SchemaFn = fn(&mut SchemaGenerator) -> Schema;

pub fn schema_of<T: JsonSchema>(generator: &mut SchemaGenerator) -> Schema {
    generator.subschema_for::<T>()
}

/// Reads a raw query string as a route's query type, as its handler does, and drops the result:
/// what the fuzz targets (`fuzz/`) drive every route's query parsing through.
pub type QueryParseFn = fn(Option<&str>) -> Result<(), ApiError>;

/// Reads a raw body as a route's JSON body type, as its handler does, and drops the result.
pub type BodyParseFn = fn(&[u8]) -> Result<(), ApiError>;

/// What a route's query or body type is: described by its schema and read by serde.
pub trait InputType: JsonSchema + DeserializeOwned {}

impl<T: JsonSchema + DeserializeOwned> InputType for T {}

fn parse_query_as<T: DeserializeOwned>(raw: Option<&str>) -> Result<(), ApiError> {
    params::query::<T>(raw).map(drop)
}

fn parse_body_as<T: DeserializeOwned>(body: &[u8]) -> Result<(), ApiError> {
    params::json::<T>(body).map(drop)
}

/// What a read's arguments add to its route's description: nothing (path parameters only), a
/// query type, or a JSON body type, each with its parser.
#[derive(Debug, Clone, Copy)]
pub enum Input {
    /// Path parameters only.
    Path,
    /// Query parameters.
    Query(SchemaFn, QueryParseFn),
    /// A JSON body.
    Body(SchemaFn, BodyParseFn),
}

impl Input {
    /// The query type `T`.
    pub const fn query<T: InputType>() -> Self {
        Input::Query(schema_of::<T>, parse_query_as::<T>)
    }

    /// The JSON body type `T`.
    pub const fn body<T: InputType>() -> Self {
        Input::Body(schema_of::<T>, parse_body_as::<T>)
    }
}

/// One route as it is described.
#[derive(Debug)]
pub struct Endpoint {
    /// Method.
    pub method: Verb,
    /// Path template under the base path: literal segments and `{name}` parameters, which may
    /// carry a suffix (`{address}.svg`). `{address}` must match `^0x[a-fA-F0-9]{40}$`.
    pub path: &'static str,
    /// What it answers.
    pub purpose: &'static str,
    /// Resource group (the OpenAPI tag).
    pub group: &'static str,
    /// Query parameters, as the schema of their struct.
    pub query: Option<SchemaFn>,
    /// JSON body, as its schema.
    pub body: Option<SchemaFn>,
    /// Its query type's parser, beside [`Endpoint::query`].
    pub parse_query: Option<QueryParseFn>,
    /// Its body type's parser, beside [`Endpoint::body`] (a body given only as a schema,
    /// `body_with`, has none).
    pub parse_body: Option<BodyParseFn>,
    /// Schema of a 200 JSON body (none for files, SVG and CSV).
    pub response: Option<SchemaFn>,
    /// Schema of its error bodies when they are not the `{"error": {"code", "message"}}` body.
    pub error_body: Option<SchemaFn>,
    /// A paid variant, if any.
    pub paid: Option<PaidVariant>,
    /// Content type of a 200.
    pub content_type: &'static str,
    /// Statuses it can answer besides 200 (and 304 for cached reads).
    pub errors: &'static [u16],
    /// Whether it answers 503 before the first snapshot loads.
    pub needs_snapshot: bool,
    /// Under the base path, or at the origin.
    pub scope: Scope,
    /// The read it answers with, if it is one: its `agentrep_*` tool is in the MCP tool list.
    pub read: Option<Read>,
    /// Why no MCP tool answers it, for a JSON route under the base path that no tool mirrors.
    pub no_tool: Option<NoTool>,
}

/// Why a JSON route under the base path has no MCP tool; every other one has one (a test holds
/// the two sets apart), and the integrators' guide lists these beside the tools.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum NoTool {
    /// Bought over HTTP with x402.
    Paid,
    /// Reads the write store.
    ReadsTheStore,
    /// A write the caller's wallet signs.
    SignedWrite,
    /// Another reason, in words.
    Because(&'static str),
}

impl NoTool {
    /// The reason, in words.
    pub const fn describe(self) -> &'static str {
        match self {
            NoTool::Paid => "paid: bought over HTTP with x402 (x402 over MCP sells the live re-score and the audit)",
            NoTool::ReadsTheStore => "reads the write store, which the stdio server does not open",
            NoTool::SignedWrite => "a signed write: the caller's wallet signs it, over HTTP",
            NoTool::Because(why) => why,
        }
    }
}

impl Endpoint {
    /// A JSON endpoint under the base path that needs a snapshot; the builders below change that.
    pub const fn new(method: Verb, path: &'static str, group: &'static str, purpose: &'static str) -> Self {
        Self {
            method,
            path,
            purpose,
            group,
            query: None,
            body: None,
            parse_query: None,
            parse_body: None,
            response: None,
            error_body: None,
            paid: None,
            content_type: mime::JSON,
            errors: &[],
            needs_snapshot: true,
            scope: Scope::Api,
            read: None,
            no_tool: None,
        }
    }

    /// Answered by a read: its arguments' query or body and its answer describe the route.
    pub const fn read(self, read: Read) -> Self {
        let this = Self { response: Some(read.output), read: Some(read), ..self };
        match read.input {
            Input::Path => this,
            Input::Query(schema, parse) => Self { query: Some(schema), parse_query: Some(parse), ..this },
            Input::Body(schema, parse) => Self { body: Some(schema), parse_body: Some(parse), ..this },
        }
    }

    /// Typed query parameters.
    pub const fn query<T: InputType>(self) -> Self {
        Self { query: Some(schema_of::<T>), parse_query: Some(parse_query_as::<T>), ..self }
    }

    /// A typed JSON body.
    pub const fn body<T: InputType>(self) -> Self {
        Self { body: Some(schema_of::<T>), parse_body: Some(parse_body_as::<T>), ..self }
    }

    /// The type of a 200 JSON body.
    pub const fn returns<T: JsonSchema>(self) -> Self {
        Self { response: Some(schema_of::<T>), ..self }
    }

    /// A JSON body described by a schema function.
    pub const fn body_with(self, schema: SchemaFn) -> Self {
        Self { body: Some(schema), ..self }
    }

    /// Error bodies described by a schema function.
    pub const fn errors_with(self, schema: SchemaFn) -> Self {
        Self { error_body: Some(schema), ..self }
    }

    /// A 200 body described by a schema function.
    pub const fn returns_with(self, schema: SchemaFn) -> Self {
        Self { response: Some(schema), ..self }
    }

    /// The content type of a 200.
    pub const fn serves(self, content_type: &'static str) -> Self {
        Self { content_type, ..self }
    }

    /// Statuses besides 200.
    pub const fn errors(self, errors: &'static [u16]) -> Self {
        Self { errors, ..self }
    }

    /// Its paid variant.
    pub const fn paid(self, paid: PaidVariant) -> Self {
        Self { paid: Some(paid), ..self }
    }

    /// Answers before any snapshot is loaded.
    pub const fn without_snapshot(self) -> Self {
        Self { needs_snapshot: false, ..self }
    }

    /// Why no MCP tool answers it.
    pub const fn no_tool(self, why: NoTool) -> Self {
        Self { no_tool: Some(why), ..self }
    }

    /// At the origin rather than under the base path.
    pub const fn at_origin(self) -> Self {
        Self { scope: Scope::Origin, ..self }
    }

    /// The path a client calls: under `base_path`, or at the origin.
    pub fn url_path(&self, base_path: &str) -> String {
        match self.scope {
            Scope::Api => format!("{base_path}{}", self.path),
            Scope::Origin => self.path.to_owned(),
        }
    }
}

/// The integrators' guide's table of paid routes: route, price, what it sells and what it needs besides
/// payments (checked by `tests/e2e/docs.rs`).
pub fn paid_routes_markdown(endpoints: &[&Endpoint]) -> String {
    let mut out = String::from("| route | USDC | what it sells | needs besides payments |\n|---|---|---|---|\n");
    for def in endpoints {
        let Some(paid) = &def.paid else { continue };
        let needs: Vec<&str> = paid.needs.iter().map(|n| n.variable()).collect();
        out.push_str(&format!(
            "| `{} {}` | {} | {} | {} |\n",
            def.method.as_str(),
            paid.path(def.path),
            paid.price_text(),
            paid.description,
            if needs.is_empty() { "nothing".to_owned() } else { needs.join(", ") }
        ));
    }
    out
}
