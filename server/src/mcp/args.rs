//! The tools' arguments: one struct per shape, whose schemars schema is the `inputSchema`; where
//! the original's tools differ from the HTTP reads (a leaderboard of 10 on Base), a struct says so.

use schemars::JsonSchema;
use serde::Deserialize;
use serde::de::{self, DeserializeOwned, Deserializer};
use serde_json::Value;

use crate::http::params::{Bounded, NetworkFilter, Text, UsdcAmount};
use crate::query::{lists as lq, search as sq};

/// No arguments.
#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct NoArgs {}

/// One wallet.
#[derive(Debug, Deserialize, JsonSchema)]
pub struct AddressArgs {
    /// Wallet address: 0x and 40 hex characters, any letter case.
    #[schemars(regex(pattern = r"^0x[a-fA-F0-9]{40}$"))]
    pub address: String,
}

/// One token.
#[derive(Debug, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct TokenArgs {
    /// Token contract address: 0x and 40 hex characters, any letter case.
    #[schemars(regex(pattern = r"^0x[a-fA-F0-9]{40}$"))]
    pub token_address: String,
}

/// One launched token, by the route's `address`.
#[derive(Debug, Deserialize, JsonSchema)]
pub struct TokenAddressArgs {
    /// Token contract address: 0x and 40 hex characters, any letter case.
    #[schemars(regex(pattern = r"^0x[a-fA-F0-9]{40}$"))]
    pub address: String,
}

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

/// `agentrep_tag`.
#[derive(Debug, JsonSchema)]
pub struct TagArgs {
    /// The tag, any letter case (at least 2 characters).
    pub tag: String,
    /// Parameters.
    #[serde(flatten)]
    pub query: sq::TagQuery,
}

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

impl<'de, Q: DeserializeOwned> Deserialize<'de> for At<Q> {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        keyed(d, "address").map(|(address, query)| Self { address, query })
    }
}

impl<'de> Deserialize<'de> for TagArgs {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        keyed(d, "tag").map(|(tag, query)| Self { tag, query })
    }
}

impl<'de> Deserialize<'de> for CategoryArgs {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        keyed(d, "cat").map(|(cat, query)| Self { cat, query })
    }
}

fn base_network() -> NetworkFilter {
    NetworkFilter { given: "base".to_owned(), prefix: Some(agentrep_model::chain::BASE_CAIP2) }
}

/// `mainstreet_leaderboard` (the original's defaults: 10 entries, Base).
#[derive(Debug, Deserialize, JsonSchema)]
pub struct MsLeaderboardArgs {
    /// Entries to return.
    #[serde(default)]
    pub limit: Bounded<10, 1, 100>,
    /// The network (`base` unless given).
    #[serde(default = "base_network")]
    pub network: NetworkFilter,
}

/// `mainstreet_search` (the original's default: 10 results).
#[derive(Debug, Deserialize, JsonSchema)]
pub struct MsSearchArgs {
    /// An address or its prefix, a tag, or words of a description (at least 2 characters).
    pub q: Text<2>,
    /// Results to return.
    #[serde(default)]
    pub limit: Bounded<10, 1, 100>,
}

pub use crate::query::directory::InterestFilter;

/// `mainstreet_agents_of_interest`.
#[derive(Debug, Deserialize, JsonSchema)]
pub struct MsInterestArgs {
    /// Which shortlist.
    #[serde(default)]
    pub filter: InterestFilter,
    /// Agents to return.
    #[serde(default)]
    pub limit: Bounded<20, 1, 100>,
}

fn yes() -> bool {
    true
}

/// `mainstreet_pick`: `mainstreet_match`'s filters, the best match only.
#[derive(Debug, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct PickArgs {
    /// What the caller wants done, in words (at least 3 characters).
    pub intent: Text<3>,
    /// Highest price per call.
    pub max_price: Option<UsdcAmount>,
    /// Lowest score.
    #[serde(default)]
    pub min_score: Bounded<0, 0, 100>,
    /// Only ERC-8004 registered agents.
    #[serde(default)]
    pub only_registered: bool,
    /// Only agents with an identity proof.
    #[serde(default)]
    pub only_verified: bool,
    /// Accept a weak match (one covering less than half of the intent).
    #[serde(default)]
    pub allow_weak: bool,
}

/// `mainstreet_vet`.
#[derive(Debug, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct VetArgs {
    /// Wallet address: 0x and 40 hex characters, any letter case.
    #[schemars(regex(pattern = r"^0x[a-fA-F0-9]{40}$"))]
    pub address: String,
    /// Lowest acceptable score.
    #[serde(default)]
    pub min_score: Bounded<30, 0, 100>,
    /// Require an endpoint whose last probe answered.
    #[serde(default = "yes")]
    pub require_alive: bool,
}
