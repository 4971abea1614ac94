//! The key of the `domain_ranks` dataset: a host's registrable domain, by the Public Suffix List
//! as compiled into the `psl` crate, private suffixes included, so every tenant of a shared
//! platform (`x.vercel.app`, `y.workers.dev`, `z.onrender.com`) is its own domain and none of them
//! inherits the platform's rank.

/// The host of a URL (or the host itself): lowercase, without scheme, user info, port, path or a
/// trailing dot; `None` for an IP address, a bracketed IPv6 literal or an empty host.
pub fn host_of(url_or_host: &str) -> Option<String> {
    let rest = url_or_host.trim();
    let rest = rest.split_once("://").map_or(rest, |(_, r)| r);
    let authority = rest.split(['/', '?', '#']).next().unwrap_or_default();
    let host = authority.rsplit_once('@').map_or(authority, |(_, h)| h);
    if host.starts_with('[') {
        return None;
    }
    let host = host.split(':').next().unwrap_or_default().trim_end_matches('.').to_ascii_lowercase();
    let is_ip =
        host.split('.').count() == 4 && host.split('.').all(|p| !p.is_empty() && p.bytes().all(|b| b.is_ascii_digit()));
    (!host.is_empty() && !is_ip && host.contains('.')).then_some(host)
}

/// The registrable domain of a URL or host (public suffix plus one label), lowercase; `None` when
/// the host has none (an IP address, a bare suffix, a single label), or when it embeds an IPv4
/// address (`10-0-0-1.example.io`, `10.0.0.1.example.io`): such names come from wildcard DNS
/// services that point any such name at any server, so nobody's standing rides on them.
pub fn registrable(url_or_host: &str) -> Option<String> {
    let host = host_of(url_or_host)?;
    if embeds_ipv4(&host) {
        return None;
    }
    psl::domain_str(&host).map(str::to_owned)
}

/// Whether a host name carries an IPv4 address as four octet labels, or as one label of four
/// octets joined by `-`.
fn embeds_ipv4(host: &str) -> bool {
    let octet = |s: &str| {
        !s.is_empty()
            && s.len() <= 3
            && s.bytes().all(|b| b.is_ascii_digit())
            && s.parse::<u16>().is_ok_and(|v| v <= 255)
    };
    let labels: Vec<&str> = host.split('.').collect();
    labels.iter().any(|l| {
        let parts: Vec<&str> = l.split('-').collect();
        parts.len() == 4 && parts.iter().all(|p| octet(p))
    }) || labels.windows(4).any(|w| w.iter().all(|p| octet(p)))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn tenants_of_shared_platforms_are_their_own_domains() {
        assert_eq!(registrable("https://api.example.com/v1/x?y=1").as_deref(), Some("example.com"));
        assert_eq!(registrable("https://jokes.vercel.app/api").as_deref(), Some("jokes.vercel.app"));
        assert_eq!(registrable("https://a.b.workers.dev/").as_deref(), Some("b.workers.dev"));
        assert_eq!(registrable("https://svc.onrender.com").as_deref(), Some("svc.onrender.com"));
        assert_eq!(registrable("https://user:pw@Shop.Example.CO.UK:8443/path").as_deref(), Some("example.co.uk"));
        assert_eq!(registrable("http://127.0.0.1:8080/x"), None);
        assert_eq!(registrable("http://[::1]:80/"), None);
        assert_eq!(registrable("https://localhost/"), None);
        assert_eq!(registrable("vercel.app"), None);
        assert_eq!(registrable("https://tools.176-109-107-191.sslip.io/x"), None);
        assert_eq!(registrable("https://10.0.0.1.nip.io/"), None);
        assert_eq!(registrable("https://api-2024.example.com/").as_deref(), Some("example.com"));
    }
}
