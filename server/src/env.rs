//! Every environment variable the server reads, in one table: the readers below take their names
//! from it, and the operators' guide's table is generated from it (with the command-line flags'
//! variables, which clap declares).

/// One environment variable.
#[derive(Debug, Clone, Copy)]
pub struct EnvVar {
    /// Its name.
    pub name: &'static str,
    /// What applies when it is unset.
    pub default: &'static str,
    /// What it sets or enables.
    pub meaning: &'static str,
    /// Whether its value is a secret (never printed; `serve --check` shows only that it is set).
    pub secret: bool,
}

impl EnvVar {
    pub(crate) const fn plain(name: &'static str, default: &'static str, meaning: &'static str) -> Self {
        Self { name, default, meaning, secret: false }
    }

    const fn secret(name: &'static str, meaning: &'static str) -> Self {
        Self { name, default: "unset", meaning, secret: true }
    }

    /// Its value, trimmed; `None` when unset or blank.
    pub fn get(&self) -> Option<String> {
        std::env::var(self.name).ok().map(|v| v.trim().to_owned()).filter(|v| !v.is_empty())
    }
}

/// `AGENTREP_PAY_TO`.
pub const PAY_TO: EnvVar = EnvVar::plain(
    "AGENTREP_PAY_TO",
    "unset: no payments",
    "the operator's receiving address, quoted in every 402 (payments need it, a payment RPC and a way to settle)",
);
/// `AGENTREP_PAYMENT_NETWORK`.
pub const PAYMENT_NETWORK: EnvVar =
    EnvVar::plain("AGENTREP_PAYMENT_NETWORK", "base", "the payment network: `base` (USDC on Base) or `base-sepolia`");
/// `AGENTREP_PAYMENT_RPC`.
pub const PAYMENT_RPC: EnvVar = EnvVar::plain(
    "AGENTREP_PAYMENT_RPC",
    "unset: no payments",
    "a node on the payment network: every payment's nonce, balance and smart-wallet signature is checked there and settlements are confirmed from their receipts (a URL with credentials is never logged)",
);
/// `AGENTREP_RELAYER_KEY`.
pub const RELAYER_KEY: EnvVar = EnvVar::secret(
    "AGENTREP_RELAYER_KEY",
    "settle directly: `transferWithAuthorization` is sent from this key, which pays the gas (needs ETH on the payment network)",
);
/// `AGENTREP_FACILITATOR_URL`.
pub const FACILITATOR_URL: EnvVar = EnvVar::plain(
    "AGENTREP_FACILITATOR_URL",
    "unset",
    "settle through this x402 facilitator instead of a relayer key (its `/verify`, `/settle` and `/supported`)",
);
/// `AGENTREP_SETTLE_TIMEOUT_SECS`.
pub const SETTLE_TIMEOUT_SECS: EnvVar =
    EnvVar::plain("AGENTREP_SETTLE_TIMEOUT_SECS", "30", "the longest wait for a settlement, seconds");
/// `AGENTREP_STORE`.
pub const STORE: EnvVar = EnvVar::plain(
    "AGENTREP_STORE",
    "`agentrep-store.sqlite` beside the snapshots folder",
    "the write store (payment ledger, attestations, receipts, badges, watchlists, webhooks and their deliveries, paid slots, discovery submissions); `export-store` reads it",
);
/// `AGENTREP_WALLET_FACTORIES`.
pub const WALLET_FACTORIES: EnvVar = EnvVar::plain(
    "AGENTREP_WALLET_FACTORIES",
    "none",
    "direct settlement only: comma-separated smart-wallet factories the relayer may call to deploy a paying wallet that does not exist yet (ERC-6492); others are refused with `eip6492_factory_not_allowed`",
);
/// `AGENTREP_SIGNING_KEY`.
pub const SIGNING_KEY: EnvVar = EnvVar::secret(
    "AGENTREP_SIGNING_KEY",
    "the operator's signing key: score attestations, signed x402 offers and receipts; the live re-score (its receipt unlocks `?full=1`) and the risk report need it (`make run` generates a demo key)",
);
/// `AGENTREP_TRUST_SIGNING_KEY`.
pub const TRUST_SIGNING_KEY: EnvVar = EnvVar::secret(
    "AGENTREP_TRUST_SIGNING_KEY",
    "the Ed25519 seed (32 bytes of hex) trust-provider answers are signed with (`/.well-known/jwks.json`); unset: derived from `AGENTREP_SIGNING_KEY`, and answers are unsigned without either",
);
/// `AGENTREP_LIVE_SOURCES`.
pub const LIVE_SOURCES: EnvVar = EnvVar::plain(
    "AGENTREP_LIVE_SOURCES",
    "unset: no live re-score",
    "an ingest config (`agentrep.toml`) whose chain and probe rules the paid live re-score (`?live=1`) reads",
);
/// `AGENTREP_OPERATOR_NAME`.
pub const OPERATOR_NAME: EnvVar =
    EnvVar::plain("AGENTREP_OPERATOR_NAME", "null", "the operator's name in `/me`, `/status`, `/catalog`");
/// `AGENTREP_CONTACT`.
pub const CONTACT: EnvVar =
    EnvVar::plain("AGENTREP_CONTACT", "null", "a contact URL or address in `/me` and `/status`");
/// `AGENTREP_DOMAIN`.
pub const DOMAIN: EnvVar = EnvVar::plain("AGENTREP_DOMAIN", "null", "the public domain in `/catalog` and `/me`");
/// `AGENTREP_BASENAME`.
pub const BASENAME: EnvVar = EnvVar::plain("AGENTREP_BASENAME", "null", "the operator wallet's Basename in `/catalog`");
/// `AGENTREP_TOKEN`.
pub const TOKEN: EnvVar =
    EnvVar::plain("AGENTREP_TOKEN", "null", "the project's token contract in `/me` and `/status`");
/// `AGENTREP_TOKEN_VERIFIED`.
pub const TOKEN_VERIFIED: EnvVar =
    EnvVar::plain("AGENTREP_TOKEN_VERIFIED", "null", "how the token's source is verified (free text)");
/// `AGENTREP_ERC8004_AGENT_ID`.
pub const ERC8004_AGENT_ID: EnvVar =
    EnvVar::plain("AGENTREP_ERC8004_AGENT_ID", "null", "the service's own ERC-8004 agent id in `/catalog` and `/me`");

/// `AGENTREP_TRUSTED_PROXIES`.
pub const TRUSTED_PROXIES: EnvVar = EnvVar::plain(
    "AGENTREP_TRUSTED_PROXIES",
    "none: the connection's address is the client",
    "comma-separated proxy addresses or CIDRs (`127.0.0.1,10.0.0.0/8`) whose `X-Forwarded-For` names the client for rate limits; from anyone else the header is ignored",
);
/// `AGENTREP_WRITE_LIMIT_PER_HOUR`.
pub const WRITE_LIMIT_PER_HOUR: EnvVar = EnvVar::plain(
    "AGENTREP_WRITE_LIMIT_PER_HOUR",
    "120",
    "signed writes, discovery submissions and webhook listings per client address an hour (and half of it per signer)",
);
/// `AGENTREP_WEBHOOK_SUBSCRIBE_PER_HOUR`.
pub const WEBHOOK_SUBSCRIBE_PER_HOUR: EnvVar = EnvVar::plain(
    "AGENTREP_WEBHOOK_SUBSCRIBE_PER_HOUR",
    "5",
    "webhook subscriptions per client address an hour (the seed's 5), counted in the store so a restart does not reset them",
);
/// `AGENTREP_WEBHOOK_TIMEOUT_SECS`.
pub const WEBHOOK_TIMEOUT_SECS: EnvVar = EnvVar::plain(
    "AGENTREP_WEBHOOK_TIMEOUT_SECS",
    "10",
    "the longest a webhook receiver may take to answer one delivery, seconds",
);
/// `AGENTREP_WEBHOOK_CONCURRENCY`.
pub const WEBHOOK_CONCURRENCY: EnvVar =
    EnvVar::plain("AGENTREP_WEBHOOK_CONCURRENCY", "64", "webhook deliveries in flight at once");
/// `AGENTREP_WEBHOOK_ALLOW_PRIVATE`.
pub const WEBHOOK_ALLOW_PRIVATE: EnvVar = EnvVar::plain(
    "AGENTREP_WEBHOOK_ALLOW_PRIVATE",
    "off: private, loopback, link-local and metadata targets are refused at subscription and at delivery",
    "`1`: webhook and discovery URLs may name private targets (tests on loopback, a closed network); never on a public deployment",
);
/// `AGENTREP_FARCASTER_FID`.
pub const FARCASTER_FID: EnvVar = EnvVar::plain(
    "AGENTREP_FARCASTER_FID",
    "unset: no featured casts",
    "the operator's Farcaster account id; with the signer key and the hub, `POST /clawd/featured-cast/{tokenAddr}` is sold",
);
/// `AGENTREP_FARCASTER_SIGNER_KEY`.
pub const FARCASTER_SIGNER_KEY: EnvVar = EnvVar::secret(
    "AGENTREP_FARCASTER_SIGNER_KEY",
    "the Ed25519 signer key (32-byte hex seed) registered for the operator's account in Farcaster's key registry; it signs featured casts",
);
/// `AGENTREP_FARCASTER_HUB_URL`.
pub const FARCASTER_HUB_URL: EnvVar = EnvVar::plain(
    "AGENTREP_FARCASTER_HUB_URL",
    "unset: no featured casts",
    "a Farcaster hub's HTTP API (Snapchain or Hubble, e.g. `http://127.0.0.1:3381`); casts are submitted to its `/v1/submitMessage`",
);
/// `AGENTREP_FARCASTER_NETWORK`.
pub const FARCASTER_NETWORK: EnvVar = EnvVar::plain(
    "AGENTREP_FARCASTER_NETWORK",
    "mainnet",
    "the Farcaster network casts are signed for: `mainnet`, `testnet` or `devnet`",
);
/// `AGENTREP_PLACES_API_KEY`.
pub const PLACES_API_KEY: EnvVar = EnvVar::secret(
    "AGENTREP_PLACES_API_KEY",
    "the operator's Google Maps Platform key with the Places API (New) enabled; with it `GET /snapshot/{placeId}` is sold (each sale reads the place once, on the operator's quota)",
);
/// `AGENTREP_PLACES_URL`.
pub const PLACES_URL: EnvVar = EnvVar::plain(
    "AGENTREP_PLACES_URL",
    "https://places.googleapis.com",
    "the Places API's base URL (another host speaking its wire format, e.g. a regional proxy)",
);

/// `AGENTREP_HEADER_READ_TIMEOUT_SECS`.
pub const HEADER_READ_TIMEOUT_SECS: EnvVar = EnvVar::plain(
    "AGENTREP_HEADER_READ_TIMEOUT_SECS",
    "10",
    "the longest a client may take to send a request's headers, and an HTTP/1 connection may sit idle between requests, seconds",
);
/// `AGENTREP_REQUEST_TIMEOUT_SECS`.
pub const REQUEST_TIMEOUT_SECS: EnvVar = EnvVar::plain(
    "AGENTREP_REQUEST_TIMEOUT_SECS",
    "60",
    "the longest one request may take to be answered, seconds (then 503 `request_timeout`, nothing charged)",
);
/// `AGENTREP_IDLE_TIMEOUT_SECS`.
pub const IDLE_TIMEOUT_SECS: EnvVar = EnvVar::plain(
    "AGENTREP_IDLE_TIMEOUT_SECS",
    "75",
    "a connection on which no byte moved for this long is closed, seconds (HTTP/2's, whose idle streams hyper never times out, and any other; above the request timeout, so no request in flight is cut)",
);
/// `AGENTREP_MAX_CONNECTIONS`.
pub const MAX_CONNECTIONS: EnvVar = EnvVar::plain(
    "AGENTREP_MAX_CONNECTIONS",
    "1024",
    "the most connections open at once; past it new ones wait in the kernel's backlog",
);

/// Every variable the server reads (`serve`, `demo`, `schedule --serve`, `mcp`), in the order the
/// operators' guide lists them.
pub const SERVER_ENV: &[&EnvVar] = &[
    &PAY_TO,
    &PAYMENT_NETWORK,
    &PAYMENT_RPC,
    &RELAYER_KEY,
    &FACILITATOR_URL,
    &SETTLE_TIMEOUT_SECS,
    &STORE,
    &WALLET_FACTORIES,
    &SIGNING_KEY,
    &TRUST_SIGNING_KEY,
    &LIVE_SOURCES,
    &OPERATOR_NAME,
    &CONTACT,
    &DOMAIN,
    &BASENAME,
    &TOKEN,
    &TOKEN_VERIFIED,
    &ERC8004_AGENT_ID,
    &TRUSTED_PROXIES,
    &WRITE_LIMIT_PER_HOUR,
    &WEBHOOK_SUBSCRIBE_PER_HOUR,
    &WEBHOOK_TIMEOUT_SECS,
    &WEBHOOK_CONCURRENCY,
    &WEBHOOK_ALLOW_PRIVATE,
    &FARCASTER_FID,
    &FARCASTER_SIGNER_KEY,
    &FARCASTER_HUB_URL,
    &FARCASTER_NETWORK,
    &PLACES_API_KEY,
    &PLACES_URL,
    &HEADER_READ_TIMEOUT_SECS,
    &IDLE_TIMEOUT_SECS,
    &REQUEST_TIMEOUT_SECS,
    &MAX_CONNECTIONS,
];
