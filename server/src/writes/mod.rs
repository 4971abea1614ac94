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
    /// Reads the environment.
    pub(crate) fn read(r: &mut crate::config::Reader) -> Self {
        use crate::config::Problem;
        let d = Self::default();
        let trusted_proxies = r.parse(&env::TRUSTED_PROXIES, |v| {
            v.split(',')
                .map(str::trim)
                .filter(|s| !s.is_empty())
                .map(|s| s.parse::<Cidr>().map_err(Problem::NotARange))
                .collect::<Result<Vec<_>, _>>()
        });
        let count = |r: &mut crate::config::Reader, var: &env::EnvVar| {
            r.positive(var).map(|n| u32::try_from(n).unwrap_or(u32::MAX))
        };
        Self {
            trusted_proxies: trusted_proxies.unwrap_or_default(),
            per_hour: count(r, &env::WRITE_LIMIT_PER_HOUR).unwrap_or(d.per_hour),
            subscribe_per_hour: count(r, &env::WEBHOOK_SUBSCRIBE_PER_HOUR).unwrap_or(d.subscribe_per_hour),
            webhook_timeout: r.positive(&env::WEBHOOK_TIMEOUT_SECS).map_or(d.webhook_timeout, Duration::from_secs),
            webhook_concurrency: r
                .positive(&env::WEBHOOK_CONCURRENCY)
                .map_or(d.webhook_concurrency, |n| usize::try_from(n).unwrap_or(usize::MAX)),
            allow_private_targets: r.switch(&env::WEBHOOK_ALLOW_PRIVATE),
        }
    }
}
