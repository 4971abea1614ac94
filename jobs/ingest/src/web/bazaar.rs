//! The x402 Bazaar discovery crawler (`x402.md` §5): `GET <url>?limit=N&offset=K`, page after
//! page, into listings.
//!
//! Paging stops at an empty page, at `pagination.total`, at a short page when the answer gives no
//! total, or after `max_pages` (then the run says so in `error`). An HTTP error or a page that is
//! not discovery JSON ends the run with `error` set; what was read before is kept.
//!
//! Each item's accepted offers are read one by one, each in the v1 or v2 shape (`maxAmountRequired`
//! or `amount`): one listing per `exact` offer on an EVM network, with `first_seen = last_seen =
//! now`. Unknown fields are ignored. Items and offers that cannot be listings are counted in
//! `skipped` by reason (an item-level defect once per item, an offer-level one once per offer):
//!
//! | reason | |
//! |---|---|
//! | `not-an-object` | the item or offer is not a JSON object |
//! | `missing-resource`, `bad-resource` | no resource, or not an absolute http(s) URL |
//! | `unsupported-type` | `type` is not `http` (MCP tools cannot be probed with a GET) |
//! | `missing-accepts` | no non-empty `accepts` array |
//! | `missing-scheme`, `unsupported-scheme` | the offer's scheme is absent or not `exact` |
//! | `missing-network`, `non-evm-network` | no network, or not `eip155:<id>` (v1 names included) |
//! | `missing-pay-to`, `bad-pay-to` | no `payTo`, or not a 0x address |
//! | `missing-asset`, `bad-asset` | no `asset`, or not a 0x address |
//! | `missing-amount`, `bad-amount` | no amount, or not whole atomic units fitting `u64` |
//! | `duplicate` | the same listing again (lists shift while they are paged) |
//!
//! The discovery URL is operator configuration, so this uses a plain client, not `SafeClient`.

use std::collections::{BTreeMap, HashSet};
use std::time::{Duration, Instant};

use agentrep_lake::Timestamp;
use agentrep_lake::datasets::{CrawlRunRow, ListingRow};
use serde_json::Value;
use url::Url;

use super::offer::{normalise_network, parse_amount};
use super::{MAX_TRUSTED_BODY, WebError, parse_address, read_capped};
use crate::config::{DiscoverySource, MarketplaceConfig};

/// Tags kept per listing at most, and characters per tag.
const MAX_TAGS: usize = 16;
const MAX_TAG_CHARS: usize = 64;
/// Characters of description kept.
const MAX_DESCRIPTION_CHARS: usize = 2_000;

/// One parsed discovery page.
#[derive(Debug, Clone, PartialEq)]
pub struct Page {
    /// Listings read from the page's items (not yet deduplicated across pages).
    pub listings: Vec<ListingRow>,
    /// Items on the page.
    pub items: u32,
    /// Items and offers skipped, by reason.
    pub skipped: BTreeMap<String, u32>,
    /// `pagination.total`, when given.
    pub total: Option<u64>,
    /// `pagination.limit`, when given.
    pub limit: Option<u64>,
}

/// What one crawl of one discovery URL gives.
#[derive(Debug, Clone, PartialEq)]
pub struct CrawlOutcome {
    /// Listings, deduplicated, in the order the marketplace lists them.
    pub listings: Vec<ListingRow>,
    /// The run's record.
    pub run: CrawlRunRow,
}

/// Crawls one discovery URL. Never fails: a failure ends the run and is recorded in `run.error`.
pub async fn crawl(
    http: &reqwest::Client,
    source: &DiscoverySource,
    cfg: &MarketplaceConfig,
    now: Timestamp,
) -> CrawlOutcome {
    let clock = Instant::now();
    let requested = u64::from(cfg.page_size.max(1));
    let timeout = Duration::from_millis(cfg.timeout_ms.max(1));
    let mut listings = Vec::new();
    let mut seen = HashSet::new();
    let mut skipped: BTreeMap<String, u32> = BTreeMap::new();
    let (mut pages, mut items, mut offset, mut error) = (0u32, 0u32, 0u64, None);
    loop {
        if pages >= cfg.max_pages {
            error = Some(format!("stopped after max_pages ({}) before the end of the list", cfg.max_pages));
            break;
        }
        let url = page_url(&source.url, requested, offset);
        let page = match fetch_page(http, url, timeout).await {
            Ok(body) => parse_page(&body, &source.ecosystem, now),
            Err(e) => Err(e),
        };
        let page = match page {
            Ok(page) => page,
            Err(e) => {
                error = Some(format!("page at offset {offset}: {e}"));
                break;
            }
        };
        pages += 1;
        items = items.saturating_add(page.items);
        for (reason, n) in page.skipped {
            *skipped.entry(reason).or_default() += n;
        }
        for listing in page.listings {
            if seen.insert(identity(&listing)) {
                listings.push(listing);
            } else {
                *skipped.entry("duplicate".to_owned()).or_default() += 1;
            }
        }
        offset += u64::from(page.items);
        let finished = match page.total {
            Some(total) => offset >= total,
            None => u64::from(page.items) < page.limit.filter(|l| *l > 0).unwrap_or(requested),
        };
        if page.items == 0 || finished {
            break;
        }
    }
    let elapsed = i64::try_from(clock.elapsed().as_micros()).unwrap_or(i64::MAX);
    let run = CrawlRunRow {
        source_url: source.url.to_string(),
        ecosystem: source.ecosystem.clone(),
        started_at: now,
        finished_at: Timestamp(now.0.saturating_add(elapsed)),
        pages,
        items,
        listings: u32::try_from(listings.len()).unwrap_or(u32::MAX),
        skipped: skipped.into_iter().map(|(reason, n)| format!("{reason}={n}")).collect(),
        error,
    };
    CrawlOutcome { listings, run }
}

/// `base` with `limit` and `offset` set (other query parameters kept).
pub fn page_url(base: &Url, limit: u64, offset: u64) -> Url {
    let kept: Vec<(String, String)> =
        base.query_pairs().filter(|(k, _)| k != "limit" && k != "offset").map(|(k, v)| (k.into(), v.into())).collect();
    let mut url = base.clone();
    url.query_pairs_mut()
        .clear()
        .extend_pairs(kept)
        .append_pair("limit", &limit.to_string())
        .append_pair("offset", &offset.to_string());
    url
}

async fn fetch_page(http: &reqwest::Client, url: Url, timeout: Duration) -> Result<Vec<u8>, WebError> {
    let response = http
        .get(url)
        .header(reqwest::header::ACCEPT, "application/json")
        .timeout(timeout)
        .send()
        .await
        .map_err(WebError::Request)?;
    let status = response.status();
    if !status.is_success() {
        return Err(WebError::Status(status.as_u16()));
    }
    read_capped(response, MAX_TRUSTED_BODY).await
}

/// The identity of a listing within a crawl.
fn identity(l: &ListingRow) -> (String, String, String, String, u64) {
    (
        l.resource.clone(),
        l.pay_to.to_ascii_lowercase(),
        normalise_network(&l.network),
        l.asset.to_ascii_lowercase(),
        l.price_atomic,
    )
}

/// Parses one discovery page: `{items: [...], pagination: {limit, offset, total}}` (a
/// `resources` array is read the same way).
///
/// # Errors
/// When the body is not JSON, or has no `items` array.
pub fn parse_page(body: &[u8], ecosystem: &str, now: Timestamp) -> Result<Page, WebError> {
    let v: Value = serde_json::from_slice(body).map_err(WebError::NotJson)?;
    let items = v
        .get("items")
        .or_else(|| v.get("resources"))
        .and_then(Value::as_array)
        .ok_or_else(|| WebError::Unexpected("no `items` array".to_owned()))?;
    let pagination = v.get("pagination");
    let number = |key: &str| pagination.and_then(|p| p.get(key)).and_then(Value::as_u64);
    let mut page = Page {
        listings: Vec::new(),
        items: u32::try_from(items.len()).unwrap_or(u32::MAX),
        skipped: BTreeMap::new(),
        total: number("total"),
        limit: number("limit"),
    };
    for item in items {
        if let Err(reason) = read_item(item, ecosystem, now, &mut page) {
            *page.skipped.entry(reason.to_owned()).or_default() += 1;
        }
    }
    Ok(page)
}

fn text<'a>(v: &'a Value, key: &str) -> Option<&'a str> {
    v.get(key).and_then(Value::as_str).map(str::trim).filter(|s| !s.is_empty())
}

/// Reads one item into `page.listings`; offer-level defects are counted into `page.skipped`, an
/// item-level defect is returned.
fn read_item(item: &Value, ecosystem: &str, now: Timestamp, page: &mut Page) -> Result<(), &'static str> {
    if !item.is_object() {
        return Err("not-an-object");
    }
    if text(item, "type").is_some_and(|t| !t.eq_ignore_ascii_case("http")) {
        return Err("unsupported-type");
    }
    // `resource` is a URL (discovery items) or a v2 `ResourceInfo` object.
    let info = item.get("resource").filter(|r| r.is_object());
    let resource = match info {
        Some(info) => text(info, "url"),
        None => text(item, "resource"),
    };
    let accepts = item.get("accepts").and_then(Value::as_array).filter(|a| !a.is_empty());
    let resource = resource
        .or_else(|| accepts.and_then(|a| a.iter().find_map(|offer| text(offer, "resource"))))
        .ok_or("missing-resource")?;
    match Url::parse(resource) {
        Ok(u) if matches!(u.scheme(), "http" | "https") && u.host().is_some() => {}
        _ => return Err("bad-resource"),
    }
    let accepts = accepts.ok_or("missing-accepts")?;
    let metadata = item.get("metadata");
    let mut tags = Vec::new();
    for source in [Some(item), info, metadata].into_iter().flatten() {
        for key in ["tags", "category", "categories"] {
            collect_tags(source.get(key), &mut tags);
        }
    }
    let item_description = [Some(item), info, metadata].into_iter().flatten().find_map(|v| text(v, "description"));
    for offer in accepts {
        match read_offer(offer) {
            Ok((pay_to, network, asset, price_atomic)) => page.listings.push(ListingRow {
                resource: resource.to_owned(),
                pay_to,
                network,
                asset,
                price_atomic,
                description: text(offer, "description").or(item_description).map(bounded_description),
                tags: tags.clone(),
                ecosystem: ecosystem.to_owned(),
                first_seen: now,
                last_seen: now,
            }),
            Err(reason) => *page.skipped.entry(reason.to_owned()).or_default() += 1,
        }
    }
    Ok(())
}

/// `(pay_to, network, asset, price)` of one accepted offer, as listed.
fn read_offer(offer: &Value) -> Result<(String, String, String, u64), &'static str> {
    if !offer.is_object() {
        return Err("not-an-object");
    }
    let scheme = text(offer, "scheme").ok_or("missing-scheme")?;
    if !scheme.eq_ignore_ascii_case("exact") {
        return Err("unsupported-scheme");
    }
    let network = text(offer, "network").ok_or("missing-network")?;
    let is_evm = normalise_network(network)
        .strip_prefix("eip155:")
        .is_some_and(|id| !id.is_empty() && id.bytes().all(|b| b.is_ascii_digit()));
    if !is_evm {
        return Err("non-evm-network");
    }
    let pay_to = text(offer, "payTo").ok_or("missing-pay-to")?;
    parse_address(pay_to).ok_or("bad-pay-to")?;
    let asset = text(offer, "asset").ok_or("missing-asset")?;
    parse_address(asset).ok_or("bad-asset")?;
    let amount = offer.get("amount").or_else(|| offer.get("maxAmountRequired")).ok_or("missing-amount")?;
    let price = parse_amount(amount).ok_or("bad-amount")?;
    Ok((pay_to.to_owned(), network.to_owned(), asset.to_owned(), price))
}

fn collect_tags(v: Option<&Value>, out: &mut Vec<String>) {
    let mut add = |t: &str| {
        let t = t.trim();
        if !t.is_empty() && t.chars().count() <= MAX_TAG_CHARS && out.len() < MAX_TAGS && !out.iter().any(|x| x == t) {
            out.push(t.to_owned());
        }
    };
    match v {
        Some(Value::String(s)) => add(s),
        Some(Value::Array(a)) => a.iter().filter_map(Value::as_str).for_each(add),
        _ => {}
    }
}

fn bounded_description(d: &str) -> String {
    d.chars().take(MAX_DESCRIPTION_CHARS).collect()
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;

    const PAY_TO: &str = "0x209693Bc6afc0C5328bA36FaF03C514EF312287C";
    const USDC: &str = "0x833589fCD6eDb6E08f4c7C32D4f71b54bdA02913";
    const NOW: Timestamp = Timestamp(1_700_000_000_000_000);

    fn page(items: Value) -> Page {
        parse_page(
            &serde_json::to_vec(&json!({"x402Version":2,"items":items,
            "pagination":{"limit":10,"offset":0,"total":42}}))
            .unwrap(),
            "bazaar",
            NOW,
        )
        .unwrap()
    }

    #[test]
    fn v1_and_v2_items_become_one_listing_per_exact_offer() {
        let p = page(json!([
            {"resource":"https://api.example.com/weather","type":"http","x402Version":1,"lastUpdated":1703123456,
             "metadata":{"category":"weather","provider":"Example Corp","tags":["forecast","weather"]},
             "accepts":[{"scheme":"exact","network":"base","maxAmountRequired":"10000",
                "resource":"https://api.example.com/weather","description":"Weather by city",
                "mimeType":"application/json","payTo":PAY_TO,"maxTimeoutSeconds":60,"asset":USDC,
                "extra":{"name":"USD Coin","version":"2"},"outputSchema":null,"futureField":{"x":1}}]},
            {"resource":"https://api.example.com/news","type":"http","x402Version":2,
             "lastUpdated":"2025-08-09T01:07:04.005Z","description":"News","tags":["news"],
             "accepts":[
                {"scheme":"exact","network":"eip155:8453","amount":"2500","asset":USDC,"payTo":PAY_TO},
                {"scheme":"exact","network":"eip155:84532","amount":"1","asset":"0x036CbD53842c5426634e7929541eC2318f3dCF7e","payTo":PAY_TO}
             ]}
        ]));
        assert_eq!((p.items, p.total, p.limit), (2, Some(42), Some(10)));
        assert!(p.skipped.is_empty(), "{:?}", p.skipped);
        assert_eq!(p.listings.len(), 3);
        let weather = &p.listings[0];
        assert_eq!(
            weather,
            &ListingRow {
                resource: "https://api.example.com/weather".into(),
                pay_to: PAY_TO.into(),
                network: "base".into(),
                asset: USDC.into(),
                price_atomic: 10_000,
                description: Some("Weather by city".into()),
                tags: vec!["forecast".into(), "weather".into()],
                ecosystem: "bazaar".into(),
                first_seen: NOW,
                last_seen: NOW,
            }
        );
        let news = &p.listings[1];
        assert_eq!((news.network.as_str(), news.price_atomic), ("eip155:8453", 2500));
        assert_eq!((news.description.as_deref(), news.tags.as_slice()), (Some("News"), &["news".to_owned()][..]));
        assert_eq!(p.listings[2].network, "eip155:84532");
    }

    #[test]
    fn a_v2_resource_info_object_and_a_mixed_offer_are_read() {
        let p = page(json!([{"type":"http","x402Version":2,
            "resource":{"url":"https://api.example.com/x","description":"X","tags":["a"]},
            "accepts":[{"scheme":"exact","network":"eip155:8453","maxAmountRequired":"7","resource":"https://api.example.com/x",
                "outputSchema":{},"mimeType":"application/json","asset":USDC,"payTo":PAY_TO,"x402Version":2}]}]));
        assert_eq!(p.listings.len(), 1);
        let l = &p.listings[0];
        assert_eq!(
            (l.resource.as_str(), l.price_atomic, l.description.as_deref()),
            ("https://api.example.com/x", 7, Some("X"))
        );
        assert_eq!(l.tags, vec!["a".to_owned()]);
    }

    #[test]
    fn bad_items_and_offers_are_counted_by_reason() {
        let ok = |extra: Value| {
            let mut o = json!({"scheme":"exact","network":"base","maxAmountRequired":"1","payTo":PAY_TO,"asset":USDC});
            for (k, v) in extra.as_object().unwrap() {
                if v.is_null() {
                    o.as_object_mut().unwrap().remove(k);
                } else {
                    o[k] = v.clone();
                }
            }
            o
        };
        let item = |offers: Vec<Value>| json!({"resource":"https://a.example/x","type":"http","accepts":offers});
        let p = page(json!([
            "just a string",
            {"type":"http","accepts":[ok(json!({}))]},
            {"resource":"ftp://a.example/x","accepts":[ok(json!({}))]},
            {"resource":"/relative","accepts":[ok(json!({}))]},
            {"resource":"https://a.example/mcp","type":"mcp","accepts":[ok(json!({}))]},
            {"resource":"https://a.example/x"},
            {"resource":"https://a.example/x","accepts":[]},
            item(vec![
                json!(3),
                ok(json!({"scheme":null})),
                ok(json!({"scheme":"upto"})),
                ok(json!({"network":null})),
                ok(json!({"network":"solana:5eykt4UsFv8P8NJdTREpY1vzqKqZKvdp"})),
                ok(json!({"payTo":null})),
                ok(json!({"payTo":"EPjFWdd5AufqSSqeM2qN1xzybapC8G4wEGGkZwyTDt1v"})),
                ok(json!({"asset":null})),
                ok(json!({"asset":"usdc"})),
                ok(json!({"maxAmountRequired":null})),
                ok(json!({"maxAmountRequired":"0.01"})),
                ok(json!({"maxAmountRequired":"abc"})),
                ok(json!({})),
            ]),
        ]));
        assert_eq!(p.items, 8);
        assert_eq!(p.listings.len(), 1, "the one good offer is kept");
        let expected: BTreeMap<String, u32> = [
            ("not-an-object", 2),
            ("missing-resource", 1),
            ("bad-resource", 2),
            ("unsupported-type", 1),
            ("missing-accepts", 2),
            ("missing-scheme", 1),
            ("unsupported-scheme", 1),
            ("missing-network", 1),
            ("non-evm-network", 1),
            ("missing-pay-to", 1),
            ("bad-pay-to", 1),
            ("missing-asset", 1),
            ("bad-asset", 1),
            ("missing-amount", 1),
            ("bad-amount", 2),
        ]
        .into_iter()
        .map(|(k, v)| (k.to_owned(), v))
        .collect();
        assert_eq!(p.skipped, expected);
    }

    #[test]
    fn a_page_that_is_not_discovery_json_is_an_error() {
        assert!(parse_page(b"<html>", "b", NOW).unwrap_err().to_string().contains("not JSON"));
        assert!(parse_page(b"{\"data\":[]}", "b", NOW).unwrap_err().to_string().contains("items"));
        let p = parse_page(b"{\"items\":[]}", "b", NOW).unwrap();
        assert_eq!((p.items, p.total, p.limit), (0, None, None));
    }

    #[test]
    fn page_urls_set_limit_and_offset_and_keep_other_parameters() {
        let base = Url::parse("https://x.example/discovery/resources?type=http&limit=5&offset=9").unwrap();
        assert_eq!(
            page_url(&base, 100, 200).as_str(),
            "https://x.example/discovery/resources?type=http&limit=100&offset=200"
        );
        let bare = Url::parse("https://x.example/discovery/resources").unwrap();
        assert_eq!(page_url(&bare, 10, 0).as_str(), "https://x.example/discovery/resources?limit=10&offset=0");
    }
}
