//! What users write, and the rules every write follows: a signed write's fields come from the
//! message its signer signed ([`message`], [`signature`]); a URL the server will call is checked
//! against private targets when it is given and again when it is called ([`target`]); every write
//! is rate-limited by client and by signer ([`limits`]); nothing refused changes the store.

pub mod limits;
pub mod message;
pub mod secret;
pub mod signature;
pub mod target;

use std::time::Duration;

use crate::env;
use limits::Cidr;

/// How the server takes writes and delivers webhooks.
#[derive(Debug, Clone)]
pub struct WriteSettings {
    /// Proxies whose `X-Forwarded-For` names the client (`AGENTREP_TRUSTED_PROXIES`).
    pub trusted_proxies: Vec<Cidr>,
    /// Writes per client address an hour (`AGENTREP_WRITE_LIMIT_PER_HOUR`); half of it per signer.
    pub per_hour: u32,
    /// Webhook subscriptions per client address an hour, counted in the store
    /// (`AGENTREP_WEBHOOK_SUBSCRIBE_PER_HOUR`; the seed's 5).
    pub subscribe_per_hour: u32,
    /// A receiver's time to answer one delivery (`AGENTREP_WEBHOOK_TIMEOUT_SECS`).
    pub webhook_timeout: Duration,
    /// Deliveries in flight (`AGENTREP_WEBHOOK_CONCURRENCY`).
    pub webhook_concurrency: usize,
    /// Whether webhook and discovery URLs may name private targets (`AGENTREP_WEBHOOK_ALLOW_PRIVATE`).
    pub allow_private_targets: bool,
}

/// Webhook subscriptions per client an hour by default (seed § 6).
pub const SUBSCRIBE_PER_HOUR: u32 = 5;

impl Default for WriteSettings {
    fn default() -> Self {
        Self {
            trusted_proxies: Vec::new(),
            per_hour: 120,
            subscribe_per_hour: SUBSCRIBE_PER_HOUR,
            webhook_timeout: Duration::from_secs(10),
            webhook_concurrency: 64,
            allow_private_targets: false,
        }
    }
}

impl WriteSettings {
    /// Reads the environment; a malformed value keeps its default, with a warning.
    pub fn from_env() -> Self {
        let d = Self::default();
        let number = |var: &env::EnvVar, default: u64| -> u64 {
            var.get().map_or(default, |v| match v.parse::<u64>() {
                Ok(n) if n > 0 => n,
                _ => {
                    tracing::warn!(variable = var.name, value = %v, "Not a positive number: the default applies.");
                    default
                }
            })
        };
        Self {
            trusted_proxies: env::TRUSTED_PROXIES.get().map_or_else(Vec::new, |v| {
                v.split(',')
                    .filter(|s| !s.trim().is_empty())
                    .filter_map(|s| match s.parse::<Cidr>() {
                        Ok(c) => Some(c),
                        Err(e) => {
                            tracing::warn!(variable = env::TRUSTED_PROXIES.name, %e, "A trusted proxy is ignored.");
                            None
                        }
                    })
                    .collect()
            }),
            per_hour: u32::try_from(number(&env::WRITE_LIMIT_PER_HOUR, u64::from(d.per_hour))).unwrap_or(u32::MAX),
            subscribe_per_hour: u32::try_from(number(
                &env::WEBHOOK_SUBSCRIBE_PER_HOUR,
                u64::from(d.subscribe_per_hour),
            ))
            .unwrap_or(u32::MAX),
            webhook_timeout: Duration::from_secs(number(&env::WEBHOOK_TIMEOUT_SECS, d.webhook_timeout.as_secs())),
            webhook_concurrency: usize::try_from(number(&env::WEBHOOK_CONCURRENCY, d.webhook_concurrency as u64))
                .unwrap_or(d.webhook_concurrency),
            allow_private_targets: env::WEBHOOK_ALLOW_PRIVATE
                .get()
                .is_some_and(|v| v == "1" || v.eq_ignore_ascii_case("true")),
        }
    }
}
