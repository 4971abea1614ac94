//! Rate limits on writes: by client address (the connection's, or the one a trusted proxy names
//! in `X-Forwarded-For`) and by signer, with `governor`'s keyed GCRA limiters in memory; the
//! seed's 5 webhook subscriptions an hour per client are counted in the store, so a restart does
//! not reset them.

use std::net::{IpAddr, SocketAddr};
use std::num::NonZeroU32;
use std::str::FromStr;
use std::time::Duration;

use governor::clock::{Clock, DefaultClock};
use governor::{DefaultKeyedRateLimiter, Quota, RateLimiter};

use crate::ApiError;

/// An address range (`10.0.0.0/8`, `::1/128`, or one address).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Cidr {
    base: IpAddr,
    bits: u8,
}

/// Text that is not an address range.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum CidrError {
    /// Its address part is not an IP address.
    #[error("`{0}` is not an address or CIDR")]
    NotAnAddress(String, #[source] std::net::AddrParseError),
    /// Its prefix length is not a number of bits the address has.
    #[error("`{0}`: bad prefix length")]
    BadPrefix(String),
}

impl FromStr for Cidr {
    type Err = CidrError;

    fn from_str(s: &str) -> Result<Self, CidrError> {
        let s = s.trim();
        let (ip, bits) = s.split_once('/').map_or((s, None), |(ip, bits)| (ip, Some(bits)));
        let base: IpAddr = ip.parse().map_err(|e| CidrError::NotAnAddress(s.to_owned(), e))?;
        let max = if base.is_ipv4() { 32 } else { 128 };
        let bits = match bits {
            None => max,
            Some(b) => b.parse::<u8>().ok().filter(|b| *b <= max).ok_or_else(|| CidrError::BadPrefix(s.to_owned()))?,
        };
        Ok(Self { base, bits })
    }
}

impl Cidr {
    /// Whether `ip` is in the range.
    pub fn contains(&self, ip: IpAddr) -> bool {
        let (a, b, width) = match (self.base, ip.to_canonical()) {
            (IpAddr::V4(a), IpAddr::V4(b)) => (u128::from(u32::from(a)), u128::from(u32::from(b)), 32),
            (IpAddr::V6(a), IpAddr::V6(b)) => (u128::from(a), u128::from(b), 128),
            _ => return false,
        };
        let shift = width - u32::from(self.bits);
        shift >= width || (a >> shift) == (b >> shift)
    }
}

/// The client a request comes from, as the limits key it: the connection's address, unless it is
/// a trusted proxy, in which case the nearest `X-Forwarded-For` hop (all header lines, read from
/// the right) that is not itself a trusted proxy. A hop that does not parse ends the walk at the
/// last trusted address: what lies left of it is the client's own text. An IPv6 client is its
/// /64 (one subscriber line holds a whole /64).
pub fn client_ip(peer: Option<SocketAddr>, forwarded_for: Option<&str>, trusted: &[Cidr]) -> Option<IpAddr> {
    let mut client = peer?.ip().to_canonical();
    if trusted.iter().any(|c| c.contains(client)) {
        for hop in forwarded_for.unwrap_or_default().rsplit(',') {
            let Ok(ip) = hop.trim().parse::<IpAddr>() else { break };
            client = ip.to_canonical();
            if !trusted.iter().any(|c| c.contains(client)) {
                break;
            }
        }
    }
    Some(match client {
        IpAddr::V6(v6) => IpAddr::V6(std::net::Ipv6Addr::from(u128::from(v6) & !((1u128 << 64) - 1))),
        v4 => v4,
    })
}

/// The in-memory write limits.
#[derive(Debug)]
pub struct WriteLimits {
    per_client: DefaultKeyedRateLimiter<IpAddr>,
    per_signer: DefaultKeyedRateLimiter<String>,
    per_hour: u32,
}

fn hourly(n: u32) -> Quota {
    let n = NonZeroU32::new(n.max(1)).expect("at least one");
    Quota::with_period(Duration::from_secs(3600) / n.get()).expect("a positive period").allow_burst(n)
}

fn limited(what: &str, per_hour: u32, not_until: governor::NotUntil<governor::clock::QuantaInstant>) -> ApiError {
    let wait = not_until.wait_time_from(DefaultClock::default().now());
    ApiError::RateLimited {
        retry_after: wait.as_secs().max(1),
        message: format!("more than {per_hour} writes an hour from this {what}; retry in {} s", wait.as_secs().max(1)),
    }
}

impl WriteLimits {
    /// `per_hour` writes per client address, half of it per signer.
    pub fn new(per_hour: u32) -> Self {
        Self {
            per_client: RateLimiter::keyed(hourly(per_hour)),
            per_signer: RateLimiter::keyed(hourly(per_hour.div_ceil(2))),
            per_hour,
        }
    }

    /// Counts a write from `client`.
    ///
    /// # Errors
    /// 429 `rate_limited` with `Retry-After` past the limit.
    pub fn client(&self, client: Option<IpAddr>) -> Result<(), ApiError> {
        let Some(ip) = client else { return Ok(()) };
        self.per_client.check_key(&ip).map_err(|n| limited("client", self.per_hour, n))
    }

    /// Counts a write signed by `signer`.
    ///
    /// # Errors
    /// 429 `rate_limited` with `Retry-After` past the limit.
    pub fn signer(&self, signer: &str) -> Result<(), ApiError> {
        self.per_signer.check_key(&signer.to_owned()).map_err(|n| limited("signer", self.per_hour.div_ceil(2), n))
    }

    /// Drops keys whose limits have fully recovered (called now and then, so memory stays bounded).
    pub fn shrink(&self) {
        self.per_client.retain_recent();
        self.per_signer.retain_recent();
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn forwarded_for_counts_only_from_a_trusted_proxy() {
        let trusted: Vec<Cidr> = vec!["10.0.0.0/8".parse().unwrap(), "::1".parse().unwrap()];
        let at = |ip: &str| Some(SocketAddr::new(ip.parse().unwrap(), 1));
        let ip = |s: &str| Some(s.parse::<IpAddr>().unwrap());
        assert_eq!(client_ip(at("203.0.113.9"), Some("1.2.3.4"), &trusted), ip("203.0.113.9"), "spoofed by a client");
        assert_eq!(client_ip(at("10.1.2.3"), Some("1.2.3.4, 10.9.9.9"), &trusted), ip("1.2.3.4"));
        assert_eq!(client_ip(at("::1"), Some("5.6.7.8"), &trusted), ip("5.6.7.8"));
        assert_eq!(client_ip(at("10.1.2.3"), Some("garbage"), &trusted), ip("10.1.2.3"));
        // A forged hop left of one that does not parse is the client's own text.
        assert_eq!(client_ip(at("10.1.2.3"), Some("9.9.9.9, 1.2.3.4:80"), &trusted), ip("10.1.2.3"));
        // An IPv6 client is its /64: rotating within it does not get a fresh limit.
        assert_eq!(client_ip(at("2001:db8:1:2::5"), None, &trusted), ip("2001:db8:1:2::"));
        assert_eq!(client_ip(at("2001:db8:1:2:ffff::9"), None, &trusted), ip("2001:db8:1:2::"));
        assert!("10.0.0.0/33".parse::<Cidr>().is_err());
        assert!("0.0.0.0/0".parse::<Cidr>().unwrap().contains("8.8.8.8".parse().unwrap()));
    }

    #[test]
    fn a_client_past_its_hourly_limit_is_told_when_to_retry() {
        let limits = WriteLimits::new(3);
        let a = Some("1.2.3.4".parse().unwrap());
        for _ in 0..3 {
            limits.client(a).unwrap();
        }
        let ApiError::RateLimited { retry_after, .. } = limits.client(a).unwrap_err() else { panic!() };
        assert!((1..=1200).contains(&retry_after), "{retry_after}");
        limits.client(Some("5.6.7.8".parse().unwrap())).unwrap();
        limits.signer("0xa").unwrap();
        limits.signer("0xa").unwrap();
        assert!(limits.signer("0xa").is_err(), "half of it per signer");
    }
}
