//! The URL preflight (`GET /preflight?url=`, `POST /preflight`): a resource URL, and the 402 it
//! answered when the buyer has it, resolved through the snapshot's listings index to the wallet
//! that would be paid, with warnings for this URL: a payTo no listing names (a decoy), a price
//! above the listed one (a price trap), a network or asset the listings do not name, a URL
//! nobody lists.
//!
//! The judged wallets are always those the 402 asks to be paid: that is where the buyer's money
//! goes. Every offer a client could pay (`exact` or `upto` on an `eip155` network) is judged by its
//! own payee and warnings, and the answer is the lowest of those decisions, since the client may
//! pick any of them; an offer nobody can pay is a warning, judged by nobody, and lends its payee's
//! standing to no other offer. A URL listed under several payTos (anyone can list a URL with their
//! own payTo) therefore costs its real seller nothing: the 402 names one of the listed wallets and
//! is judged by it.

use agentrep_ingest::web::offer::{Offer, Terms, normalise_network, offer_from_header, offer_from_json, same_address};
use agentrep_model::decision::{Decision, ScoreBasis, unindexed};
use agentrep_model::{FlagKey, METHODOLOGY_VERSION};
use agentrep_publish::wire::{
    ListingRowV1, OfferCheckV1, PayeeV1, PreflightWarningV1, UrlPreflightRequestV1, UrlPreflightV1, WarningCode,
    WarningSeverity, version,
};
use schemars::JsonSchema;
use serde::Deserialize;

use crate::{ApiError, ServedSnapshot};

/// Listings of the host shown for an unlisted URL.
pub const HOST_LISTINGS: usize = 20;

/// Longest URL accepted, bytes.
const MAX_URL: usize = 4096;

/// `GET /preflight` query: exactly one of `url` and `address`.
#[derive(Debug, Default, Deserialize, JsonSchema)]
pub struct PreflightQuery {
    /// The resource URL about to be paid (http or https). Give `url` or `address`, not both.
    #[schemars(
        length(max = 4096),
        regex(
            pattern = r"^https?://([A-Za-z0-9]+(-[A-Za-z0-9]+)*\.)*[A-Za-z][A-Za-z0-9]*(-[A-Za-z0-9]+)*(:[0-9]{1,4})?([/?][^\s]*)?$"
        )
    )]
    pub url: Option<String>,
    /// A wallet: the same answer as `/preflight/{address}` (the original's form).
    #[schemars(regex(pattern = r"^0x[a-fA-F0-9]{40}$"))]
    pub address: Option<String>,
}

/// A resource URL as listings are looked up by: scheme and host lowercase, the default port and
/// the fragment dropped, a trailing `/` of a non-root path dropped; the query kept.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ResourceKey {
    /// The whole key.
    pub url: String,
    /// The key without its query (a listing often names the path alone).
    pub without_query: Option<String>,
    /// The host, lowercase.
    pub host: String,
}

impl ResourceKey {
    /// The key of an http(s) URL; `None` for anything else.
    pub fn parse(text: &str) -> Option<Self> {
        let url = url::Url::parse(text.trim()).ok()?;
        if !matches!(url.scheme(), "http" | "https") {
            return None;
        }
        let host = url.host_str()?.to_ascii_lowercase();
        // The root's dot (`example.com.`) names the same host; the key keeps the host without it,
        // and must read back as itself. A host of dots alone, one with more trailing dots, or one
        // whose last label reads as an IPv4 number once the dot is gone names no resource.
        let host = host.strip_suffix('.').unwrap_or(&host).to_owned();
        let reads_back = url::Url::parse(&format!("http://{host}/")).ok().is_some_and(|u| u.host_str() == Some(&*host));
        if host.is_empty() || host.ends_with('.') || !reads_back {
            return None;
        }
        let port = url.port().map(|p| format!(":{p}")).unwrap_or_default();
        let path = match url.path() {
            "/" | "" => "",
            p => p.trim_end_matches('/'),
        };
        let base = format!("{}://{host}{port}{path}", url.scheme());
        Some(match url.query().filter(|q| !q.is_empty()) {
            Some(q) => ResourceKey { url: format!("{base}?{q}"), without_query: Some(base), host },
            None => ResourceKey { url: base, without_query: None, host },
        })
    }
}

/// The offer a `POST /preflight` body carries: `None` when it carries none, `Some(None)` when what
/// it carries is not a well-formed x402 offer.
pub fn offer_of(req: &UrlPreflightRequestV1) -> Option<Option<Offer>> {
    match (&req.payment_required, &req.payment_required_header) {
        (Some(v), _) => Some(offer_from_json(v)),
        (None, Some(h)) => Some(offer_from_header(h)),
        (None, None) => None,
    }
}

/// The resource URL the 402 of a `POST /preflight` body claims: v2 `resource.url`, else the
/// first v1 `accepts[].resource`.
pub fn claimed_resource(req: &UrlPreflightRequestV1) -> Option<String> {
    let decoded;
    let value = match (&req.payment_required, &req.payment_required_header) {
        (Some(v), _) => v,
        (None, Some(h)) => {
            decoded = agentrep_ingest::web::offer::decode_base64(h)
                .and_then(|b| serde_json::from_slice::<serde_json::Value>(&b).ok())?;
            &decoded
        }
        (None, None) => return None,
    };
    let v2 = value.pointer("/resource/url").and_then(serde_json::Value::as_str);
    let v1 = value.pointer("/accepts/0/resource").and_then(serde_json::Value::as_str);
    v2.or(v1).map(str::to_owned)
}

/// A warning when the 402 claims another resource than `url` (the URL asked is what is judged:
/// a seller cannot borrow another URL's listing by naming it in its 402).
pub fn resource_mismatch(url: &str, claimed: Option<&str>) -> Option<PreflightWarningV1> {
    let claimed = claimed?;
    let same = match (ResourceKey::parse(url), ResourceKey::parse(claimed)) {
        (Some(a), Some(b)) => a.url == b.url || a.without_query.as_ref().is_some_and(|k| *k == b.url),
        _ => false,
    };
    (!same).then(|| {
        warning(
            WarningCode::ResourceMismatch,
            WarningSeverity::Info,
            None,
            format!("the 402 names the resource {claimed}; the URL asked, {url}, is what is judged"),
        )
    })
}

/// The URL preflight of a `POST /preflight` body: its URL, with the 402 the buyer received.
pub fn url_preflight_of(
    snap: &ServedSnapshot,
    base: &str,
    req: &UrlPreflightRequestV1,
) -> Result<UrlPreflightV1, ApiError> {
    let offer = offer_of(req);
    let claimed = claimed_resource(req);
    url_preflight(snap, base, &req.url, offer.as_ref().map(Option::as_ref), claimed.as_deref())
}

/// The URL preflight of `url`, with the offer the buyer received (`Some(None)`: one that could not
/// be read).
pub fn url_preflight(
    snap: &ServedSnapshot,
    base: &str,
    url: &str,
    offer: Option<Option<&Offer>>,
    claimed: Option<&str>,
) -> Result<UrlPreflightV1, ApiError> {
    let key = (url.len() <= MAX_URL)
        .then(|| ResourceKey::parse(url))
        .flatten()
        .ok_or_else(|| ApiError::param("url", "an absolute http or https URL of at most 4096 bytes"))?;
    let dir = &snap.directory;
    let rows = &dir.rows.listings;
    let ids = dir
        .listings_by_url
        .get(&key.url)
        .or_else(|| key.without_query.as_ref().and_then(|k| dir.listings_by_url.get(k)))
        .map(Vec::as_slice)
        .unwrap_or_default();
    let listings: Vec<&ListingRowV1> = ids.iter().map(|&i| &rows[i as usize]).collect();
    let mut warnings: Vec<PreflightWarningV1> = resource_mismatch(url, claimed).into_iter().collect();
    let mut offers: Vec<OfferCheckV1> = offer
        .flatten()
        .map(|o| o.accepts.iter().map(|t| check_offer(t, &listings, &mut warnings)).collect())
        .unwrap_or_default();
    let any_payable = offers.iter().any(|o| o.payable);
    for o in offers.iter().filter(|o| !o.payable) {
        let severity = if any_payable { WarningSeverity::Info } else { WarningSeverity::Caution };
        warnings.push(warning(
            WarningCode::UnreadableOffer,
            severity,
            Some(o.index),
            format!(
                "offer {} asks for scheme {} on {}, which the x402 EVM clients cannot pay: it is judged by nobody",
                o.index, o.scheme, o.network
            ),
        ));
    }
    // An offer on a network or asset the listings do not name is only context while another
    // offer is the listed one (the model's `offer-mismatch` reads offers the same way: one
    // matching term suffices); with none, nothing the 402 asks is what the listing says.
    if offers.iter().any(|o| o.acceptable) {
        for w in &mut warnings {
            if matches!(w.code, WarningCode::NetworkNotListed | WarningCode::AssetNotListed) {
                w.severity = WarningSeverity::Info;
            }
        }
    }
    if offer.is_some_and(|o| o.is_none()) {
        warnings.push(warning(
            WarningCode::NoOffer,
            WarningSeverity::Caution,
            None,
            "the 402 given carries no well-formed x402 offer (v1 body or v2 PAYMENT-REQUIRED)".to_owned(),
        ));
    }
    let sellers = distinct_sellers(&listings);
    if sellers.len() > 1 {
        let judged = if offers.is_empty() {
            "the earliest listing's is judged: send the 402 (POST /preflight) to judge the wallets it asks to be paid"
        } else {
            "the wallets the 402 asks to be paid are judged"
        };
        warnings.push(warning(
            WarningCode::ListingConflict,
            WarningSeverity::Info,
            None,
            format!("the URL is listed with {} payTos ({}); {judged}", sellers.len(), sellers.join(", ")),
        ));
    }
    // Each payable offer's own decision: its payee's, lowered by the warnings about that offer.
    for o in offers.iter_mut().filter(|o| o.payable) {
        let own = warnings
            .iter()
            .filter(|w| w.offer == Some(o.index))
            .fold(payee(snap, base, &o.pay_to.to_ascii_lowercase()).decision, |d, w| d.min(severity_cap(w.severity)));
        o.decision = Some(own);
    }
    // The offer judged: the payable one with the lowest decision (the client may pick any), the
    // first acceptable one among equals; with no offer, the URL's earliest listing's seller.
    let judged = offers.iter().filter(|o| o.payable).min_by_key(|o| (o.decision, !o.acceptable, o.index));
    let pay_to = match judged {
        Some(o) => Some(o.pay_to.to_ascii_lowercase()),
        None if !offers.is_empty() => None,
        None => listings
            .iter()
            .min_by(|a, b| (&a.first_seen, &a.seller).cmp(&(&b.first_seen, &b.seller)))
            .map(|l| l.seller.clone()),
    };
    let host_listings = if listings.is_empty() {
        // Not evidence of harm (a new endpoint is listed at its first settlement): the payee's
        // own decision stands, and a payee nobody indexes gets the unindexed policy.
        warnings.push(warning(
            WarningCode::Unlisted,
            WarningSeverity::Info,
            None,
            "no current marketplace listing names this URL: nothing says what it should cost or whom it should pay"
                .to_owned(),
        ));
        dir.listings_by_host
            .get(&key.host)
            .map(|ids| ids.iter().take(HOST_LISTINGS).map(|&i| rows[i as usize].clone()).collect())
            .unwrap_or_default()
    } else {
        Vec::new()
    };
    let seller = pay_to.as_deref().map(|a| payee(snap, base, a));
    if let Some(reason) = seller.as_ref().and_then(|s| s.overlay.clone()) {
        warnings.push(warning(
            WarningCode::Overlay,
            WarningSeverity::Info,
            None,
            format!("since the snapshot: {reason}"),
        ));
    }
    let max_amount = pay_to.as_deref().and_then(|a| {
        let chosen = judged.filter(|o| o.acceptable).and_then(|o| o.listed_price.clone());
        chosen.or_else(|| {
            listings
                .iter()
                .filter(|l| l.seller == a)
                .filter_map(|l| l.price.parse::<u64>().ok())
                .max()
                .map(|p| p.to_string())
        })
    });
    warnings.sort_by_key(|w| std::cmp::Reverse(w.severity));
    let mut decision = seller.as_ref().map_or(unindexed(false).0, |s| s.decision);
    for w in &warnings {
        decision = decision.min(severity_cap(w.severity));
    }
    Ok(UrlPreflightV1 {
        version: version("url-preflight"),
        url: url.to_owned(),
        listed: !listings.is_empty(),
        decision,
        pay_to,
        seller: seller.map(|s| s.wire),
        listings: listings.into_iter().cloned().collect(),
        offers,
        warnings,
        max_amount,
        host_listings,
        snapshot_date: snap.date().to_owned(),
        methodology: METHODOLOGY_VERSION.to_owned(),
    })
}

/// The highest decision a warning of `severity` leaves.
fn severity_cap(severity: WarningSeverity) -> Decision {
    match severity {
        WarningSeverity::Block => Decision::Block,
        WarningSeverity::Caution => Decision::Caution,
        WarningSeverity::Info => Decision::Proceed,
    }
}

/// An offer a client can pay: the `exact` or `upto` scheme on an `eip155` network.
fn payable(t: &Terms) -> bool {
    let scheme = t.scheme.to_ascii_lowercase();
    matches!(scheme.as_str(), "exact" | "upto") && normalise_network(&t.network).starts_with("eip155:")
}

fn warning(code: WarningCode, severity: WarningSeverity, offer: Option<u32>, message: String) -> PreflightWarningV1 {
    PreflightWarningV1 { code, severity, offer, message }
}

/// The distinct sellers of `listings`, in their order.
fn distinct_sellers(listings: &[&ListingRowV1]) -> Vec<String> {
    let mut sellers: Vec<String> = Vec::new();
    for l in listings {
        if !sellers.contains(&l.seller) {
            sellers.push(l.seller.clone());
        }
    }
    sellers
}

/// One term of the 402 against the URL's listings; its warnings go to `warnings`. Nothing is
/// compared when the URL is unlisted (the `unlisted` warning says it).
fn check_offer(t: &Terms, listings: &[&ListingRowV1], warnings: &mut Vec<PreflightWarningV1>) -> OfferCheckV1 {
    let network = normalise_network(&t.network);
    let on_network: Vec<&&ListingRowV1> =
        listings.iter().filter(|l| normalise_network(&l.network) == network).collect();
    let of_payee: Vec<&&&ListingRowV1> = on_network.iter().filter(|l| same_address(&l.pay_to, &t.pay_to)).collect();
    // The dearest claim of this payee and asset: a seller's raised price (an overlay's claims are
    // newer than the snapshot's) is no price trap, and a cheaper claim anyone can add later makes
    // none of the seller's real 402s one either.
    let exact = of_payee
        .iter()
        .filter(|l| same_address(&l.asset, &t.asset))
        .max_by_key(|l| l.price.parse::<u64>().unwrap_or(0));
    let listed_price = exact.and_then(|l| l.price.parse::<u64>().ok());
    let mut warn = |code, severity, message| warnings.push(warning(code, severity, Some(t.index), message));
    if !listings.is_empty() {
        // A network no listing covers says nothing of who should be paid there (a seller may
        // list one network and accept more); on a listed network, another wallet is a decoy.
        if on_network.is_empty() {
            warn(
                WarningCode::NetworkNotListed,
                WarningSeverity::Caution,
                format!("the 402 asks for payment on {}, which no listing of this URL names", t.network),
            );
        } else if of_payee.is_empty() {
            let listed: Vec<&str> = on_network.iter().map(|l| l.seller.as_str()).collect();
            warn(
                WarningCode::Decoy,
                WarningSeverity::Block,
                format!(
                    "the 402 asks to be paid to {} on {}, which no listing of this URL names there (listed: {})",
                    t.pay_to,
                    t.network,
                    listed.join(", ")
                ),
            );
        } else if exact.is_none() {
            warn(
                WarningCode::AssetNotListed,
                WarningSeverity::Caution,
                format!("the 402 asks for asset {} on {}, which no listing of this URL names", t.asset, t.network),
            );
        } else if let Some(price) = listed_price.filter(|p| t.amount > *p) {
            warn(
                WarningCode::PriceTrap,
                WarningSeverity::Block,
                format!("the 402 asks for {} atomic units where the listing says {price}", t.amount),
            );
        }
    }
    OfferCheckV1 {
        index: t.index,
        scheme: t.scheme.clone(),
        network: t.network.clone(),
        asset: t.asset.clone(),
        pay_to: t.pay_to.clone(),
        amount: t.amount.to_string(),
        listed_price: listed_price.map(|p| p.to_string()),
        acceptable: listed_price.is_some_and(|p| t.amount <= p),
        payable: payable(t),
        decision: None,
    }
}

/// The judged wallet, with its decision as a value.
struct Payee {
    decision: Decision,
    /// Why the overlay lowered it, when it did.
    overlay: Option<String>,
    wire: PayeeV1,
}

/// The wallet `address` (lowercase) as agentrep knows it: an indexed seller's published decision,
/// or the policy for an address it does not index.
fn payee(snap: &ServedSnapshot, base: &str, address: &str) -> Payee {
    let profile = format!("{base}/score/{address}");
    // The row as served: lowered already when the overlay lowers this seller.
    if let Some(row) = snap.index.agent(address) {
        return Payee {
            decision: row.decision,
            overlay: snap.lowering(address).map(|s| s.reason.clone()),
            wire: PayeeV1 {
                address: address.to_owned(),
                indexed: true,
                decision: row.decision,
                score: row.score,
                score_basis: row.score_basis,
                verdict: Some(row.verdict),
                color: row.shield.color,
                flags: row.shield.flags.iter().map(|f| f.key).collect(),
                profile,
            },
        };
    }
    let denylisted =
        snap.counterparties.get(address).is_some_and(|c| c.denylisted) || snap.directory.is_denylisted(address);
    let (decision, color) = unindexed(denylisted);
    Payee {
        decision,
        overlay: None,
        wire: PayeeV1 {
            address: address.to_owned(),
            indexed: false,
            decision,
            score: None,
            score_basis: ScoreBasis::NotIndexed,
            verdict: None,
            color,
            flags: if denylisted { vec![FlagKey::Denylisted] } else { Vec::new() },
            profile,
        },
    }
}

#[cfg(test)]
mod tests {
    use super::ResourceKey;

    #[test]
    fn keys_fold_what_does_not_change_the_resource() {
        let k = ResourceKey::parse("HTTPS://API.Example.com:443/v1/Quote/?b=2#frag").unwrap();
        assert_eq!(k.url, "https://api.example.com/v1/Quote?b=2");
        assert_eq!(k.without_query.as_deref(), Some("https://api.example.com/v1/Quote"));
        assert_eq!(k.host, "api.example.com");
        assert_eq!(ResourceKey::parse("http://127.0.0.1:8080/").unwrap().url, "http://127.0.0.1:8080");
        assert!(ResourceKey::parse("ftp://example.com/x").is_none());
        assert!(ResourceKey::parse("not a url").is_none());
    }

    /// Found by the `resource_url` fuzz target: a host of dots trimmed to nothing gave a key
    /// (`https:///x`) that did not read back as the same key, and so did a host whose last label
    /// read as an IPv4 number once its trailing dots were trimmed.
    #[test]
    fn a_key_reads_back_as_itself_and_a_host_of_dots_is_no_key() {
        for text in [
            "http:./",
            "https:./exampAMPLE.COM/a",
            "https:/./example/com[path%[20x/",
            "https://../x",
            "https:/p..n..99999999999.....",
        ] {
            assert!(ResourceKey::parse(text).is_none(), "{text}");
        }
        for text in ["https://Example.com./a/", "http://[2001:db8::1]:8080/a?", "https://bücher.example/x?q=1"] {
            let key = ResourceKey::parse(text).unwrap();
            assert_eq!(ResourceKey::parse(&key.url).unwrap().url, key.url, "{text}");
        }
    }
}
