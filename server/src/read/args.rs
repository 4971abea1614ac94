//! The shapes of a read's arguments. Over MCP each is one JSON object (its schema is the tool's
//! `inputSchema`); over HTTP its fields named like the route's path parameters come from the path
//! (`{address}`, `{tag}`), the rest from the query string, or from the JSON body.

use std::future::Future;

use schemars::{JsonSchema, Schema, SchemaGenerator};
use serde::Deserialize;
use serde::de::{self, DeserializeOwned, Deserializer};
use serde_json::Value;

use super::ReadArgs;
use agentrep_model::Address;

use crate::ApiError;
use crate::endpoints::{Input, InputType};
use crate::http::{Request, params};
use crate::query::{lists as lq, search as sq};

// Over HTTP a query string is ignored; a tool call must pass none.
/// No arguments.
#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct NoArgs {}

impl ReadArgs for NoArgs {
    const INPUT: Input = Input::Path;

    fn from_http(_req: &mut Request) -> impl Future<Output = Result<Self, ApiError>> + Send {
        std::future::ready(Ok(NoArgs {}))
    }
}

/// A route's query parameters: over MCP, the arguments themselves.
#[derive(Debug)]
pub struct Query<Q>(pub Q);

/// A route's JSON body: over MCP, the arguments themselves.
#[derive(Debug)]
pub struct JsonBody<B>(pub B);

macro_rules! transparent {
    ($wrapper:ident) => {
        impl<'de, T: DeserializeOwned> Deserialize<'de> for $wrapper<T> {
            fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
                T::deserialize(d).map($wrapper)
            }
        }

        impl<T: JsonSchema> JsonSchema for $wrapper<T> {
            fn schema_name() -> std::borrow::Cow<'static, str> {
                T::schema_name()
            }

            fn schema_id() -> std::borrow::Cow<'static, str> {
                T::schema_id()
            }

            fn inline_schema() -> bool {
                T::inline_schema()
            }

            fn json_schema(generator: &mut SchemaGenerator) -> Schema {
                T::json_schema(generator)
            }
        }
    };
}

transparent!(Query);
transparent!(JsonBody);

impl<Q: InputType + Send + 'static> ReadArgs for Query<Q> {
    const INPUT: Input = Input::query::<Q>();

    fn from_http(req: &mut Request) -> impl Future<Output = Result<Self, ApiError>> + Send {
        std::future::ready(req.query().map(Query))
    }
}

impl<B: InputType + Send + 'static> ReadArgs for JsonBody<B> {
    const INPUT: Input = Input::body::<B>();

    async fn from_http(req: &mut Request) -> Result<Self, ApiError> {
        req.json().await.map(JsonBody)
    }
}

/// A shape of one address, the route's path parameter `$param`: checked over HTTP before anything
/// else is read (an invalid address is named first), and by the read over MCP.
macro_rules! one_address {
    ($ty:ident, $field:ident, $param:literal) => {
        impl $ty {
            /// The address.
            pub fn parsed(&self) -> Result<Address, ApiError> {
                params::address(&self.$field)
            }
        }

        impl ReadArgs for $ty {
            const INPUT: Input = Input::Path;

            fn from_http(req: &mut Request) -> impl Future<Output = Result<Self, ApiError>> + Send {
                let $field = req.param($param).to_owned();
                std::future::ready(params::address(&$field).map(|_| Self { $field }))
            }
        }
    };
}

// The route's `{address}`.
/// One wallet.
#[derive(Debug, Deserialize, JsonSchema)]
pub struct AddressArgs {
    /// Wallet address: 0x and 40 hex characters, any letter case.
    #[schemars(regex(pattern = r"^0x[a-fA-F0-9]{40}$"))]
    pub address: String,
}

one_address!(AddressArgs, address, "address");

// The route's `{tokenAddress}`.
/// One token.
#[derive(Debug, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct TokenArgs {
    /// Token contract address: 0x and 40 hex characters, any letter case.
    #[schemars(regex(pattern = r"^0x[a-fA-F0-9]{40}$"))]
    pub token_address: String,
}

one_address!(TokenArgs, token_address, "tokenAddress");

/// One launched token, by the route's `address`.
#[derive(Debug, Deserialize, JsonSchema)]
pub struct TokenAddressArgs {
    /// Token contract address: 0x and 40 hex characters, any letter case.
    #[schemars(regex(pattern = r"^0x[a-fA-F0-9]{40}$"))]
    pub address: String,
}

one_address!(TokenAddressArgs, address, "address");

// The route's `{address}` and its query parameters.
/// One wallet and a read's parameters.
#[derive(Debug, JsonSchema)]
pub struct At<Q> {
    /// Wallet address: 0x and 40 hex characters, any letter case.
    #[schemars(regex(pattern = r"^0x[a-fA-F0-9]{40}$"))]
    pub address: String,
    /// The read's parameters.
    #[serde(flatten)]
    pub query: Q,
}

// The route's `{tag}` and its query parameters.
/// `agentrep_tag`.
#[derive(Debug, JsonSchema)]
pub struct TagArgs {
    /// The tag, any letter case (at least 2 characters).
    pub tag: String,
    /// Parameters.
    #[serde(flatten)]
    pub query: sq::TagQuery,
}

// The route's `{cat}` and its query parameters.
/// `agentrep_by_category`.
#[derive(Debug, JsonSchema)]
pub struct CategoryArgs {
    /// Category slug (`agentrep_categories` lists the 30).
    pub cat: String,
    /// Parameters.
    #[serde(flatten)]
    pub query: lq::ByCategoryQuery,
}

/// Splits an object into the text of `key` and the read's parameters `Q`, naming the argument
/// an error is about (serde's `flatten` would lose it).
fn keyed<'de, D: Deserializer<'de>, Q: DeserializeOwned>(d: D, key: &'static str) -> Result<(String, Q), D::Error> {
    let mut map = serde_json::Map::<String, Value>::deserialize(d)?;
    let text = match map.remove(key) {
        Some(Value::String(s)) => s,
        Some(other) => return Err(de::Error::custom(format!("{key}: must be a string, got {other}"))),
        None => return Err(de::Error::missing_field(key)),
    };
    let query = serde_path_to_error::deserialize(Value::Object(map)).map_err(|e| {
        let path = e.path().to_string();
        de::Error::custom(if path == "." { e.inner().to_string() } else { format!("{path}: {}", e.inner()) })
    })?;
    Ok((text, query))
}

/// A path parameter and the query: the shapes above whose key is a path parameter. Over HTTP a
/// `check` of the path parameter comes before the query is read (an invalid address is named
/// before the parameters are).
macro_rules! keyed_args {
    ($ty:ident $(<$q:ident>)?, $key:ident, $query:ty $(, check $check:path)?) => {
        impl<'de $(, $q: DeserializeOwned)?> Deserialize<'de> for $ty$(<$q>)? {
            fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
                keyed(d, stringify!($key)).map(|($key, query)| Self { $key, query })
            }
        }

        impl$(<$q: InputType + Send + 'static>)? ReadArgs for $ty$(<$q>)? {
            const INPUT: Input = Input::query::<$query>();

            fn from_http(req: &mut Request) -> impl Future<Output = Result<Self, ApiError>> + Send {
                let $key = req.param(stringify!($key)).to_owned();
                let args = (|| {
                    $($check(&$key)?;)?
                    Ok(Self { query: req.query()?, $key })
                })();
                std::future::ready(args)
            }
        }
    };
}

keyed_args!(At<Q>, address, Q, check params::address);
keyed_args!(TagArgs, tag, sq::TagQuery);
keyed_args!(CategoryArgs, cat, lq::ByCategoryQuery);
