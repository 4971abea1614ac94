//! The ingest configuration: `agentrep.toml`, typed, with an `AGENTREP_*` environment variable for
//! every field (`AGENTREP_<SECTION>__<FIELD>`, e.g. `AGENTREP_CHAIN__RPC_URLS='["http://…"]'`).
//!
//! With no file at all the defaults read Base mainnet: its contract addresses
//! (`../shared/reference/onchain.md`), the known facilitators' signer lists and discovery URLs.
//! `agentrep.example.toml` in the repository documents every field; a test keeps it parseable and
//! equal to these defaults.

use std::collections::BTreeMap;
use std::path::Path;

use agentrep_lake::SourceName;
use agentrep_model::chain;
use alloy::primitives::{Address, address};
use figment::Figment;
use figment::providers::{Env, Format, Serialized, Toml};
use serde::{Deserialize, Serialize};
use url::Url;

/// Everything the ingest jobs need to know about the outside world.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct IngestConfig {
    /// The chain and how to read it.
    pub chain: ChainConfig,
    /// Contract addresses on that chain.
    pub contracts: Contracts,
    /// Facilitators: who broadcasts x402 settlements.
    pub facilitators: FacilitatorConfig,
    /// Marketplace discovery.
    pub marketplace: MarketplaceConfig,
    /// Health probes of listed resources (and registration-file fetches, which follow the same
    /// safety rules).
    pub probes: ProbeConfig,
    /// Identity proofs from outside the chain.
    pub proofs: ProofConfig,
    /// The operator's own labels and lists.
    pub labels: LabelConfig,
    /// A public ranked-domain list (the standing of the sellers' web domains).
    pub domain_ranks: DomainRanksConfig,
    /// agentrep's own paid calls to sellers (evidence of delivery).
    pub paid_probes: PaidProbeConfig,
    /// Cadences of `agentrep schedule`.
    pub schedule: ScheduleConfig,
}

/// A public ranked-domain list: its rows for the registrable domains the listings use become the
/// `domain_ranks` dataset. On by default with Tranco's newest list: a ranked domain is what proves
/// a real business (`SCORING.md` § 1). Fetched every `[schedule.every_secs] domain_ranks`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct DomainRanksConfig {
    /// Off: no list is read, and no seller is proven by its domain.
    pub enabled: bool,
    /// Where the list is downloaded from, as CSV `rank,domain` (plain or gzipped); `{list_id}`
    /// stands for the list's id.
    pub url: String,
    /// Where the newest list's id is read (plain text), when `list_id` is empty and `url` names
    /// `{list_id}`.
    pub latest_id_url: Option<Url>,
    /// The list's name, recorded with every row (`tranco`).
    pub list: String,
    /// A fixed list id (empty: the newest, from `latest_id_url`; or the fetch day when the URL
    /// names no id).
    pub list_id: String,
}

impl Default for DomainRanksConfig {
    fn default() -> Self {
        Self {
            enabled: true,
            url: "https://tranco-list.eu/download/{list_id}/1000000".to_owned(),
            latest_id_url: Some(Url::parse("https://tranco-list.eu/top-1m-id").expect("valid URL")),
            list: "tranco".to_owned(),
            list_id: String::new(),
        }
    }
}

impl DomainRanksConfig {
    /// The list's URL for `list_id`.
    ///
    /// # Errors
    /// When the result is not an http(s) URL.
    pub fn url_for(&self, list_id: &str) -> Result<Url, ConfigError> {
        let url = self.url.replace("{list_id}", list_id);
        Url::parse(&url)
            .ok()
            .filter(|u| matches!(u.scheme(), "http" | "https"))
            .ok_or_else(|| ConfigError(format!("domain_ranks.url: `{url}` is not an http(s) URL")))
    }

    /// Whether the URL needs a list id to be complete.
    pub fn names_list_id(&self) -> bool {
        self.url.contains("{list_id}")
    }
}

/// What Node's `fetch` (undici) sends as `User-Agent`, and so the official `@x402/fetch` buyer.
pub const PAID_CALL_USER_AGENT: &str = "node";

/// agentrep's paid probe: one paid call to each seller's cheapest listed resource on a cadence and
/// a budget, with the key in `AGENTREP_PROBE_KEY` (never in this file).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct PaidProbeConfig {
    /// Off by default: it spends the operator's money.
    pub enabled: bool,
    /// The most one call may cost, micro-USDC.
    pub max_price: u64,
    /// The most all calls of one day may cost together, micro-USDC.
    pub budget_per_day: u64,
    /// Days between two paid calls to one seller.
    pub every_days: u32,
    /// Seconds a signed authorization stays valid; the run waits for it to expire before it
    /// records whether the money moved (so an unused one can never settle later).
    pub authorization_secs: u64,
    /// Paying wallets in the pool, derived from `AGENTREP_PROBE_KEY` (1: the key's own wallet
    /// only). Each call pays from a wallet picked by seller and day, so no seller can tell the
    /// oracle by one address; each must be funded (`--dry-run` lists them with their balances).
    pub wallets: u32,
    /// The `User-Agent` of the paid calls (both the unpaid request and the paid retry): by
    /// default `node`, what the official `@x402/fetch` client sends from Node's `fetch`, so a
    /// paid call reads as a customer's, not agentrep's (whose prober names itself).
    pub user_agent: String,
    /// An egress proxy for the paid calls (`http://host:port`), so they can leave from other
    /// addresses than the prober's; none: direct. Targets are still checked as public, here,
    /// before each request.
    pub proxy: Option<Url>,
}

impl Default for PaidProbeConfig {
    fn default() -> Self {
        Self {
            enabled: false,
            max_price: 50_000,
            budget_per_day: 1_000_000,
            every_days: 7,
            authorization_secs: 120,
            wallets: 8,
            user_agent: PAID_CALL_USER_AGENT.to_owned(),
            proxy: None,
        }
    }
}

/// How to read the chain.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct ChainConfig {
    /// JSON-RPC endpoints, tried in order when one fails.
    pub rpc_urls: Vec<Url>,
    /// Expected chain id; a node that answers another id is refused.
    pub chain_id: u64,
    /// Network name written into rows (`eip155:<chain_id>` when empty).
    pub network: String,
    /// Read up to the node's `finalized` block when it has one.
    pub use_finalized: bool,
    /// Otherwise read up to head − `confirmations`.
    pub confirmations: u64,
    /// Blocks re-read at the start of every run, so a reorg shorter than this is repaired.
    pub reorg_depth: u64,
    /// Where a source without a checkpoint starts (overridden by `--from-block`).
    pub start_block: u64,
    /// First `eth_getLogs` window in blocks (halved on range or size errors, doubled after sparse
    /// pages).
    pub log_window: u64,
    /// Largest `eth_getLogs` window.
    pub max_log_window: u64,
    /// Addresses per topic OR-list in one `eth_getLogs` filter.
    pub topic_batch: usize,
    /// Per-request timeout, milliseconds.
    pub request_timeout_ms: u64,
    /// Retries of one request on 429, 5xx, timeouts and dropped connections.
    pub max_retries: u32,
    /// Wait before each retry, milliseconds, unless the server says how long (`Retry-After`).
    /// alloy's retry layer waits the same each time: raise it (with `max_retries`) for a node
    /// that recovers slowly.
    pub initial_backoff_ms: u64,
    /// Requests in flight at once (receipts, block headers).
    pub concurrency: usize,
    /// Receipts asked for in one JSON-RPC batch (`eth_getTransactionReceipt` calls); 1 sends one
    /// call per request. A node that refuses batches is asked one call at a time anyway.
    pub receipts_per_batch: usize,
    /// Funding hops followed back from every payer and seller: the funder of a payer, that
    /// funder's funder, … (the model's `MAX_FUNDING_HOPS`; a test keeps them equal).
    pub funding_hops: usize,
}

impl Default for ChainConfig {
    fn default() -> Self {
        Self {
            rpc_urls: vec![Url::parse("https://mainnet.base.org").expect("valid URL")],
            chain_id: 8453,
            network: String::new(),
            use_finalized: true,
            confirmations: 64,
            reorg_depth: 128,
            start_block: 36_230_000,
            log_window: 2_000,
            max_log_window: 100_000,
            topic_batch: 100,
            request_timeout_ms: 30_000,
            max_retries: 8,
            initial_backoff_ms: 250,
            concurrency: 8,
            receipts_per_batch: 50,
            funding_hops: 4,
        }
    }
}

impl ChainConfig {
    /// The network written into rows.
    pub fn network(&self) -> String {
        if self.network.is_empty() { format!("eip155:{}", self.chain_id) } else { self.network.clone() }
    }
}

/// Contract addresses (Base mainnet's by default; onchain.md).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct Contracts {
    /// USDC (EIP-3009).
    pub usdc: Address,
    /// ERC-8004 IdentityRegistry.
    pub identity_registry: Address,
    /// ERC-8004 ReputationRegistry.
    pub reputation_registry: Address,
    /// EAS.
    pub eas: Address,
    /// Coinbase Verifications attester.
    pub coinbase_attester: Address,
    /// Coinbase Verified Account schema.
    pub verified_account_schema: alloy::primitives::B256,
    /// Clanker v4 factory.
    pub clanker_factory: Address,
    /// Zora coin factory.
    pub zora_factory: Address,
    /// Uniswap v4 PoolManager (`Swap`, `ModifyLiquidity`).
    pub pool_manager: Address,
    /// Virtuals Bonding (`Launched`, `Graduated`).
    pub virtuals_bonding: Address,
    /// ENS L2ReverseRegistrar (ENSIP-19; `NameForAddrChanged`, `nameForAddr`).
    pub ens_reverse_registrar: Address,
    /// Basenames L2 resolver (`addr(bytes32)` for the forward check).
    pub basenames_resolver: Address,
}

impl Default for Contracts {
    fn default() -> Self {
        Self {
            usdc: chain::USDC_BASE.parse().expect("a valid address"),
            identity_registry: chain::ERC8004_IDENTITY_REGISTRY.parse().expect("a valid address"),
            reputation_registry: chain::ERC8004_REPUTATION_REGISTRY.parse().expect("a valid address"),
            eas: address!("0x4200000000000000000000000000000000000021"),
            coinbase_attester: address!("0x357458739F90461b99789350868CD7CF330Dd7EE"),
            verified_account_schema: alloy::primitives::b256!(
                "0xf8b05c79f090979bf4a80270aba232dff11a10d9ca55c4f88de95317970f0de9"
            ),
            clanker_factory: address!("0xE85A59c628F7d27878ACeB4bf3b35733630083a9"),
            zora_factory: address!("0x777777751622c0d3258f214F9DF38E35BF45baF3"),
            pool_manager: address!("0x498581fF718922c3f8e6A244956aF099B2652b2b"),
            virtuals_bonding: address!("0xF66DeA7b3e897cD44A5a231c61B6B4423d613259"),
            ens_reverse_registrar: address!("0x0000000000D8e504002cC26E3Ec46D81971C1664"),
            basenames_resolver: address!("0xC6d566A56A1aFf6508b41f6c90ff131615583BCD"),
        }
    }
}

/// One facilitator: a name, the wallets that broadcast its settlements, and where it publishes
/// them (`GET /supported` → `signers`).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Facilitator {
    /// Name written into labels, e.g. `coinbase`.
    pub name: String,
    /// Known signer addresses.
    #[serde(default)]
    pub signers: Vec<Address>,
    /// The facilitator's base URL; `<url>/supported` refreshes its signers.
    #[serde(default)]
    pub url: Option<Url>,
}

/// Facilitators.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct FacilitatorConfig {
    /// Every facilitator.
    pub list: Vec<Facilitator>,
    /// Refresh signers from each facilitator's `/supported` (the labels job).
    pub refresh: bool,
}

impl Default for FacilitatorConfig {
    fn default() -> Self {
        let f = |name: &str, url: &str, signers: &[Address]| Facilitator {
            name: name.to_owned(),
            signers: signers.to_vec(),
            url: Some(Url::parse(url).expect("valid URL")),
        };
        Self {
            list: vec![
                // Seed signers (onchain.md §1, third-party, refreshed from /supported).
                f(
                    "coinbase",
                    "https://api.cdp.coinbase.com/platform/v2/x402",
                    &[address!("0xdbdf3d8ed80f84c35d01c6c9f9271761bad90ba6")],
                ),
                f("payai", "https://facilitator.payai.network", &[]),
            ],
            refresh: true,
        }
    }
}

/// One marketplace discovery endpoint.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct DiscoverySource {
    /// Marketplace name written into listings' `ecosystem`.
    pub ecosystem: String,
    /// `GET` URL of the paginated resource list.
    pub url: Url,
}

/// Marketplace discovery.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct MarketplaceConfig {
    /// Discovery endpoints.
    pub discovery: Vec<DiscoverySource>,
    /// Items per page requested.
    pub page_size: u32,
    /// Pages read per endpoint at most.
    pub max_pages: u32,
    /// Per-request timeout, milliseconds.
    pub timeout_ms: u64,
}

impl Default for MarketplaceConfig {
    fn default() -> Self {
        let d = |ecosystem: &str, url: &str| DiscoverySource {
            ecosystem: ecosystem.to_owned(),
            url: Url::parse(url).expect("valid URL"),
        };
        Self {
            discovery: vec![
                d("coinbase-bazaar", "https://api.cdp.coinbase.com/platform/v2/x402/discovery/resources"),
                d("payai", "https://facilitator.payai.network/discovery/resources"),
            ],
            page_size: 100,
            max_pages: 1_000,
            timeout_ms: 20_000,
        }
    }
}

/// Probes and other fetches of outside URLs.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct ProbeConfig {
    /// Requests in flight at once.
    pub concurrency: usize,
    /// Requests per second to one host at most.
    pub per_host_per_second: u32,
    /// Whole-request timeout, milliseconds.
    pub timeout_ms: u64,
    /// Redirects followed at most (each target checked again).
    pub max_redirects: usize,
    /// Largest body read, bytes.
    pub max_body_bytes: usize,
    /// Allow private, loopback and link-local targets. Only for tests on loopback.
    pub allow_private_targets: bool,
    /// Gateway for `ipfs://` registration files.
    pub ipfs_gateway: Url,
    /// URLs of this service; a registration file that mentions one "links back".
    pub self_urls: Vec<String>,
    /// Names resolved to a fixed address before DNS is asked (as `/etc/hosts` would; for a
    /// split-horizon network or a test on loopback). The address is checked like any resolved one:
    /// a non-public one is refused unless `allow_private_targets`.
    pub hosts: BTreeMap<String, std::net::IpAddr>,
}

impl Default for ProbeConfig {
    fn default() -> Self {
        Self {
            concurrency: 64,
            per_host_per_second: 5,
            timeout_ms: 10_000,
            max_redirects: 3,
            max_body_bytes: 256 * 1024,
            allow_private_targets: false,
            ipfs_gateway: Url::parse("https://ipfs.io/ipfs/").expect("valid URL"),
            self_urls: vec!["agentrep".to_owned()],
            hosts: BTreeMap::new(),
        }
    }
}

/// Identity proofs from outside the chain.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct ProofConfig {
    /// A Farcaster hub's HTTP API (Snapchain/Hubble, port 3381): custody address → fid, and the
    /// fid's verified addresses. None: no Farcaster proofs (said in `/status`).
    pub farcaster_hub_url: Option<Url>,
    /// Addresses looked up per run at most.
    pub max_lookups: usize,
}

impl Default for ProofConfig {
    fn default() -> Self {
        Self { farcaster_hub_url: None, max_lookups: 50_000 }
    }
}

/// A label the operator adds.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ExtraLabel {
    /// The wallet.
    pub address: Address,
    /// `exchange`, `bridge` or `facilitator`.
    pub entity: String,
    /// Entity name.
    pub name: String,
}

/// A list entry the operator adds.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ExtraListEntry {
    /// The wallet.
    pub address: Address,
    /// `<category>:<role>` (deny) or a label (allow).
    pub category: String,
    /// Where the entry comes from.
    pub source: String,
}

/// The operator's labels and lists (added to the curated list shipped in the repository).
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct LabelConfig {
    /// Extra entity labels.
    pub extra: Vec<ExtraLabel>,
    /// Extra denylist entries.
    pub deny: Vec<ExtraListEntry>,
    /// Extra allowlist entries.
    pub allow: Vec<ExtraListEntry>,
}

/// `agentrep schedule`: how often each source runs, and how many snapshots are kept.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct ScheduleConfig {
    /// Seconds between two runs of each source, by the source's key (its name with `_` for `-`;
    /// the sources table gives every key and its default: docs/operating.md, *Sources*).
    pub every_secs: BTreeMap<String, u64>,
    /// Snapshots kept by the rebuild.
    pub retain: usize,
}

impl Default for ScheduleConfig {
    fn default() -> Self {
        let every_secs =
            SourceName::ALL.iter().map(|s| (s.cadence().key.to_owned(), s.cadence().default_secs)).collect();
        Self { every_secs, retain: 7 }
    }
}

impl ScheduleConfig {
    /// How often `source` runs.
    pub fn every(&self, source: SourceName) -> std::time::Duration {
        let cadence = source.cadence();
        std::time::Duration::from_secs(self.every_secs.get(cadence.key).copied().unwrap_or(cadence.default_secs))
    }
}

/// A configuration that cannot be used, with what is wrong.
#[derive(Debug, thiserror::Error)]
#[error("bad configuration: {0}")]
pub struct ConfigError(String);

impl IngestConfig {
    /// Defaults, then `file` (when given; it must exist), then `AGENTREP_*` variables.
    pub fn load(file: Option<&Path>) -> Result<Self, ConfigError> {
        let mut figment = Figment::from(Serialized::defaults(IngestConfig::default()));
        if let Some(path) = file {
            if !path.is_file() {
                return Err(ConfigError(format!("{} does not exist", path.display())));
            }
            figment = figment.merge(Toml::file(path));
        }
        figment = figment.merge(Self::env());
        let config: IngestConfig = figment.extract().map_err(|e| ConfigError(e.to_string()))?;
        config.validate()?;
        Ok(config)
    }

    /// The environment provider: `AGENTREP_CHAIN__RPC_URLS` → `chain.rpc_urls`. Only variables
    /// with a section (`__`) are read, so the CLI's own `AGENTREP_LAKE` and friends do not collide.
    fn env() -> Env {
        Env::prefixed("AGENTREP_").filter(|key| key.as_str().contains("__")).split("__")
    }

    /// Checks what serde cannot.
    pub fn validate(&self) -> Result<(), ConfigError> {
        let bad = |m: String| Err(ConfigError(m));
        if self.chain.rpc_urls.is_empty() {
            return bad("chain.rpc_urls is empty".into());
        }
        if self.chain.log_window == 0 || self.chain.max_log_window < self.chain.log_window {
            return bad("chain.log_window must be ≥ 1 and ≤ chain.max_log_window".into());
        }
        if self.chain.topic_batch == 0 || self.chain.concurrency == 0 {
            return bad("chain.topic_batch and chain.concurrency must be ≥ 1".into());
        }
        if self.probes.concurrency == 0 || self.probes.per_host_per_second == 0 {
            return bad("probes.concurrency and probes.per_host_per_second must be ≥ 1".into());
        }
        for label in &self.labels.extra {
            if !matches!(label.entity.as_str(), "exchange" | "bridge" | "facilitator") {
                return bad(format!("labels.extra: entity `{}` is not exchange, bridge or facilitator", label.entity));
            }
        }
        for key in self.schedule.every_secs.keys() {
            if SourceName::by_cadence_key(key).is_none() {
                let keys: Vec<_> = SourceName::ALL.iter().map(|s| s.cadence().key).collect();
                return bad(format!("schedule.every_secs: `{key}` is no source (one of: {})", keys.join(", ")));
            }
        }
        if let Some((key, _)) = self.schedule.every_secs.iter().find(|(_, secs)| **secs == 0) {
            return bad(format!("schedule.every_secs.{key} must be ≥ 1"));
        }
        if self.domain_ranks.enabled {
            self.domain_ranks.url_for("ID")?;
        }
        if self.paid_probes.wallets == 0 {
            return bad("paid_probes.wallets must be ≥ 1".into());
        }
        for d in &self.marketplace.discovery {
            if !matches!(d.url.scheme(), "http" | "https") {
                return bad(format!("marketplace.discovery: {} is not http(s)", d.url));
            }
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_example_file_parses_to_the_defaults() {
        let path = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../agentrep.example.toml");
        let parsed: IngestConfig =
            Figment::new().merge(Toml::file(&path)).extract().expect("agentrep.example.toml parses");
        assert_eq!(parsed, IngestConfig::default(), "agentrep.example.toml documents the defaults");
    }

    #[test]
    fn unknown_fields_and_bad_values_are_refused_with_the_field_named() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("agentrep.toml");
        std::fs::write(&path, "[chain]\nrpc_url = \"http://x\"\n").unwrap();
        let err = IngestConfig::load(Some(&path)).unwrap_err().to_string();
        assert!(err.contains("rpc_url"), "{err}");
        std::fs::write(&path, "[chain]\nrpc_urls = []\n").unwrap();
        assert!(IngestConfig::load(Some(&path)).unwrap_err().to_string().contains("rpc_urls"));
        std::fs::write(&path, "[contracts]\nusdc = \"0x12\"\n").unwrap();
        assert!(IngestConfig::load(Some(&path)).unwrap_err().to_string().contains("usdc"));
        assert!(IngestConfig::load(Some(&dir.path().join("missing.toml"))).is_err());
    }

    #[test]
    fn a_file_overrides_the_defaults_field_by_field() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("agentrep.toml");
        std::fs::write(&path, "[chain]\nrpc_urls = [\"http://127.0.0.1:8545\"]\nchain_id = 31337\n").unwrap();
        let config = IngestConfig::load(Some(&path)).unwrap();
        assert_eq!(config.chain.chain_id, 31337);
        assert_eq!(config.chain.network(), "eip155:31337");
        assert_eq!(config.chain.log_window, ChainConfig::default().log_window);
        assert_eq!(config.contracts, Contracts::default());
    }
}
