//! A 402 answer parsed into an x402 offer (`x402.md` §1), and whether the offer matches a listing.
//!
//! - v2: the `PAYMENT-REQUIRED` header, base64 of `{x402Version:2, accepts:[{scheme, network
//!   (CAIP-2), amount, asset, payTo, …}], resource:{url, …}}`. Read first, as v2 clients do.
//! - v1: the JSON body `{x402Version:1, accepts:[{scheme, network (a name), maxAmountRequired,
//!   resource, payTo, asset, …}]}`, read when the header gives no offer.
//!
//! An offer is well-formed when its version is right and at least one `accepts` entry has the
//! string fields `scheme`, `network`, `asset` and `payTo` and an amount in atomic units (a decimal
//! string, or an integer) that fits `u64`. Other entries (other schemes' shapes) are left out.

use base64::Engine;
use base64::engine::{DecodePaddingMode, GeneralPurpose, GeneralPurposeConfig};
use reqwest::header::HeaderMap;
use serde_json::Value;

use agentrep_lake::datasets::ListingRow;

use super::parse_address;

/// A seller's payment offer.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Offer {
    /// x402 version: 1 (JSON body) or 2 (`PAYMENT-REQUIRED` header).
    pub version: u32,
    /// The well-formed accepted payment terms, in the offer's order.
    pub accepts: Vec<Terms>,
}

impl Offer {
    /// Every wallet the offer's terms ask to be paid: EVM addresses lowercase, other text as
    /// offered; sorted, without duplicates.
    pub fn pay_tos(&self) -> Vec<String> {
        let mut wallets: Vec<String> = self
            .accepts
            .iter()
            .map(|t| match parse_address(&t.pay_to) {
                Some(a) => format!("{a:#x}"),
                None => t.pay_to.trim().to_owned(),
            })
            .collect();
        wallets.sort();
        wallets.dedup();
        wallets
    }
}

/// One accepted way to pay.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Terms {
    /// Position in the offer's `accepts` (entries that are not well-formed keep their places).
    pub index: u32,
    /// `exact`, `upto`, …
    pub scheme: String,
    /// As offered: a v1 name (`base`) or CAIP-2 (`eip155:8453`).
    pub network: String,
    /// Asset contract, as offered.
    pub asset: String,
    /// Receiving wallet, as offered.
    pub pay_to: String,
    /// Price in the asset's atomic units (`amount`, or v1 `maxAmountRequired`).
    pub amount: u64,
}

/// The v2 header.
pub const PAYMENT_REQUIRED: &str = "payment-required";

/// Largest `PAYMENT-REQUIRED` header decoded, bytes.
const MAX_HEADER: usize = 64 * 1024;

/// Parses a response into an offer: `None` unless `status` is 402 and the header or body carries
/// a well-formed one.
pub fn parse_offer(status: u16, headers: &HeaderMap, body: &[u8]) -> Option<Offer> {
    if status != 402 {
        return None;
    }
    let from_header = headers.get(PAYMENT_REQUIRED).and_then(|v| v.to_str().ok()).and_then(offer_from_header);
    from_header.or_else(|| serde_json::from_slice::<Value>(body).ok().and_then(|v| offer_from(&v, 1)))
}

/// An offer from the 402 as a buyer holds it: the v2 `PaymentRequired` object (the header
/// decoded) or the v1 JSON body, told apart by their `x402Version`.
pub fn offer_from_json(v: &Value) -> Option<Offer> {
    match v.get("x402Version").and_then(Value::as_u64) {
        Some(version @ (1 | 2)) => offer_from(v, version as u32),
        _ => None,
    }
}

/// An offer from a v2 `PAYMENT-REQUIRED` header's value (base64 of the `PaymentRequired` JSON).
pub fn offer_from_header(value: &str) -> Option<Offer> {
    (value.len() <= MAX_HEADER)
        .then(|| decode_base64(value))
        .flatten()
        .and_then(|json| serde_json::from_slice::<Value>(&json).ok())
        .and_then(|v| offer_from(&v, 2))
}

/// Standard or URL-safe base64, with or without padding, surrounding whitespace ignored.
pub fn decode_base64(text: &str) -> Option<Vec<u8>> {
    let config = GeneralPurposeConfig::new().with_decode_padding_mode(DecodePaddingMode::Indifferent);
    let standard = GeneralPurpose::new(&base64::alphabet::STANDARD, config);
    let url_safe = GeneralPurpose::new(&base64::alphabet::URL_SAFE, config);
    let text = text.trim();
    standard.decode(text).or_else(|_| url_safe.decode(text)).ok()
}

fn offer_from(v: &Value, version: u32) -> Option<Offer> {
    if v.get("x402Version").and_then(Value::as_u64) != Some(u64::from(version)) {
        return None;
    }
    let accepts: Vec<Terms> = v
        .get("accepts")?
        .as_array()?
        .iter()
        .enumerate()
        .filter_map(|(i, a)| terms_from(a, version, u32::try_from(i).ok()?))
        .collect();
    (!accepts.is_empty()).then_some(Offer { version, accepts })
}

fn terms_from(a: &Value, version: u32, index: u32) -> Option<Terms> {
    let text = |key: &str| a.get(key).and_then(Value::as_str).map(str::trim).filter(|s| !s.is_empty());
    let amount_key = if version == 1 { "maxAmountRequired" } else { "amount" };
    Some(Terms {
        index,
        scheme: text("scheme")?.to_owned(),
        network: text("network")?.to_owned(),
        asset: text("asset")?.to_owned(),
        pay_to: text("payTo")?.to_owned(),
        amount: parse_amount(a.get(amount_key)?)?,
    })
}

/// An amount in atomic units: a decimal string of digits, or a non-negative JSON integer.
pub(crate) fn parse_amount(v: &Value) -> Option<u64> {
    match v {
        Value::String(s) => {
            let s = s.trim();
            if s.is_empty() || !s.bytes().all(|b| b.is_ascii_digit()) {
                return None;
            }
            s.parse().ok()
        }
        Value::Number(n) => n.as_u64(),
        _ => None,
    }
}

/// A network in CAIP-2 form, for comparisons: legacy v1 names map to `eip155:<chain id>`, a CAIP-2
/// namespace is lowercased (its reference kept, as Solana's are case-sensitive).
pub fn normalise_network(network: &str) -> String {
    let n = network.trim();
    if let Some((namespace, reference)) = n.split_once(':') {
        return format!("{}:{}", namespace.to_ascii_lowercase(), reference);
    }
    let n = n.to_ascii_lowercase();
    let chain = match n.as_str() {
        "base" => 8453,
        "base-sepolia" => 84532,
        "ethereum" | "mainnet" => 1,
        "sepolia" => 11155111,
        "polygon" => 137,
        "polygon-amoy" => 80002,
        "avalanche" => 43114,
        "avalanche-fuji" => 43113,
        "sei" => 1329,
        "sei-testnet" => 1328,
        "iotex" => 4689,
        _ => return n,
    };
    format!("eip155:{chain}")
}

/// Two addresses are the same: as EVM addresses in any letter case, otherwise as exact text.
pub fn same_address(a: &str, b: &str) -> bool {
    match (parse_address(a), parse_address(b)) {
        (Some(x), Some(y)) => x == y,
        (None, None) => a.trim() == b.trim(),
        _ => false,
    }
}

/// True when some `exact` term of the offer pays the listing's wallet in the listing's asset on
/// the listing's network (v1 names and CAIP-2 compared alike) at exactly the listed price.
pub fn offer_matches(offer: &Offer, listing: &ListingRow) -> bool {
    let network = normalise_network(&listing.network);
    offer.accepts.iter().any(|t| {
        t.scheme.eq_ignore_ascii_case("exact")
            && same_address(&t.pay_to, &listing.pay_to)
            && same_address(&t.asset, &listing.asset)
            && normalise_network(&t.network) == network
            && t.amount == listing.price_atomic
    })
}

#[cfg(test)]
mod tests {
    use agentrep_lake::Timestamp;
    use base64::engine::general_purpose::{STANDARD, URL_SAFE_NO_PAD};
    use reqwest::header::HeaderValue;
    use serde_json::json;

    use super::*;

    const PAY_TO: &str = "0x209693Bc6afc0C5328bA36FaF03C514EF312287C";
    const USDC: &str = "0x833589fCD6eDb6E08f4c7C32D4f71b54bdA02913";

    fn v1_body(network: &str, amount: &str) -> Vec<u8> {
        serde_json::to_vec(&json!({"x402Version":1,"error":"X-PAYMENT header is required","accepts":[{
            "scheme":"exact","network":network,"maxAmountRequired":amount,
            "resource":"https://api.example.com/premium-data","description":"Premium data",
            "mimeType":"application/json","payTo":PAY_TO,"maxTimeoutSeconds":60,"asset":USDC,
            "extra":{"name":"USD Coin","version":"2"}}]}))
        .unwrap()
    }

    fn v2_value(amount: Value) -> Value {
        json!({"x402Version":2,"error":"PAYMENT-SIGNATURE header is required",
            "resource":{"url":"https://api.example.com/premium-data","description":"…","mimeType":"application/json"},
            "accepts":[{"scheme":"exact","network":"eip155:8453","amount":amount,"asset":USDC,"payTo":PAY_TO,
                "maxTimeoutSeconds":60,"extra":{"name":"USD Coin","version":"2"}}],
            "extensions":{}})
    }

    fn header(value: &str) -> HeaderMap {
        let mut h = HeaderMap::new();
        h.insert("PAYMENT-REQUIRED", HeaderValue::from_str(value).unwrap());
        h
    }

    fn listing(network: &str, pay_to: &str, asset: &str, price: u64) -> ListingRow {
        ListingRow {
            resource: "https://api.example.com/premium-data".into(),
            pay_to: pay_to.into(),
            network: network.into(),
            asset: asset.into(),
            price_atomic: price,
            description: None,
            tags: vec![],
            ecosystem: "test".into(),
            first_seen: Timestamp(0),
            last_seen: Timestamp(0),
        }
    }

    #[test]
    fn a_v1_body_is_an_offer() {
        let offer = parse_offer(402, &HeaderMap::new(), &v1_body("base", "10000")).unwrap();
        assert_eq!(offer.version, 1);
        assert_eq!(
            offer.accepts,
            vec![Terms {
                index: 0,
                scheme: "exact".into(),
                network: "base".into(),
                asset: USDC.into(),
                pay_to: PAY_TO.into(),
                amount: 10_000
            }]
        );
    }

    #[test]
    fn a_v2_header_is_an_offer_and_wins_over_the_body() {
        let encoded = STANDARD.encode(serde_json::to_vec(&v2_value(json!("2500"))).unwrap());
        let offer = parse_offer(402, &header(&encoded), &v1_body("base", "10000")).unwrap();
        assert_eq!(
            (offer.version, offer.accepts[0].amount, offer.accepts[0].network.as_str()),
            (2, 2500, "eip155:8453")
        );
        // Lenient base64: URL-safe, unpadded; integer amounts.
        let encoded = URL_SAFE_NO_PAD.encode(serde_json::to_vec(&v2_value(json!(7))).unwrap());
        assert_eq!(parse_offer(402, &header(&encoded), b"{}").unwrap().accepts[0].amount, 7);
        // A broken header falls back to a v1 body.
        let offer = parse_offer(402, &header("%%% not base64"), &v1_body("base", "10000")).unwrap();
        assert_eq!(offer.version, 1);
    }

    #[test]
    fn only_well_formed_402s_are_offers() {
        let good_v1 = v1_body("base", "10000");
        assert_eq!(parse_offer(200, &HeaderMap::new(), &good_v1), None, "not a 402");
        assert_eq!(parse_offer(402, &HeaderMap::new(), b""), None, "empty body");
        assert_eq!(parse_offer(402, &HeaderMap::new(), b"<html>pay me</html>"), None);
        assert_eq!(parse_offer(402, &HeaderMap::new(), b"{}"), None);
        let cases = [
            json!({"x402Version":2,"accepts":[{"scheme":"exact","network":"base","maxAmountRequired":"1","payTo":PAY_TO,"asset":USDC}]}),
            json!({"x402Version":1,"accepts":[]}),
            json!({"x402Version":1,"accepts":{}}),
            json!({"x402Version":1,"accepts":[{"scheme":"exact","network":"base","maxAmountRequired":"1.5","payTo":PAY_TO,"asset":USDC}]}),
            json!({"x402Version":1,"accepts":[{"scheme":"exact","network":"base","maxAmountRequired":"-1","payTo":PAY_TO,"asset":USDC}]}),
            json!({"x402Version":1,"accepts":[{"scheme":"exact","network":"base","maxAmountRequired":"99999999999999999999999","payTo":PAY_TO,"asset":USDC}]}),
            json!({"x402Version":1,"accepts":[{"scheme":"exact","network":"base","amount":"1","payTo":PAY_TO,"asset":USDC}]}),
            json!({"x402Version":1,"accepts":[{"scheme":"exact","network":"base","maxAmountRequired":"1","asset":USDC}]}),
            json!({"x402Version":1,"accepts":[{"network":"base","maxAmountRequired":"1","payTo":PAY_TO,"asset":USDC}]}),
            json!({"x402Version":"1","accepts":[{"scheme":"exact","network":"base","maxAmountRequired":"1","payTo":PAY_TO,"asset":USDC}]}),
        ];
        for case in cases {
            assert_eq!(parse_offer(402, &HeaderMap::new(), &serde_json::to_vec(&case).unwrap()), None, "{case}");
        }
        // A v1 object in the v2 header is not a v2 offer.
        let v1_in_header = STANDARD.encode(&good_v1);
        assert_eq!(parse_offer(402, &header(&v1_in_header), b"").map(|o| o.version), None);
        // Malformed entries are left out when a well-formed one remains.
        let mixed = json!({"x402Version":1,"accepts":[{"scheme":"batch"},
            {"scheme":"exact","network":"base","maxAmountRequired":"5","payTo":PAY_TO,"asset":USDC}]});
        let offer = parse_offer(402, &HeaderMap::new(), &serde_json::to_vec(&mixed).unwrap()).unwrap();
        assert_eq!(offer.accepts.len(), 1);
    }

    #[test]
    fn offers_match_listings_as_addresses_networks_and_exact_prices() {
        let offer = parse_offer(402, &HeaderMap::new(), &v1_body("base", "10000")).unwrap();
        let lower = PAY_TO.to_ascii_lowercase();
        assert!(offer_matches(&offer, &listing("base", PAY_TO, USDC, 10_000)));
        assert!(offer_matches(
            &offer,
            &listing("eip155:8453", &lower, &USDC.to_ascii_uppercase().replace("0X", "0x"), 10_000)
        ));
        assert!(!offer_matches(&offer, &listing("eip155:84532", PAY_TO, USDC, 10_000)), "network");
        assert!(!offer_matches(&offer, &listing("base", PAY_TO, USDC, 10_001)), "price");
        assert!(!offer_matches(&offer, &listing("base", "0x0000000000000000000000000000000000000001", USDC, 10_000)));
        assert!(!offer_matches(&offer, &listing("base", PAY_TO, "0x036CbD53842c5426634e7929541eC2318f3dCF7e", 10_000)));
        let upto = Offer { version: 2, accepts: vec![Terms { scheme: "upto".into(), ..offer.accepts[0].clone() }] };
        assert!(!offer_matches(&upto, &listing("base", PAY_TO, USDC, 10_000)), "only exact terms match");
        let sepolia = parse_offer(402, &HeaderMap::new(), &v1_body("base-sepolia", "1")).unwrap();
        assert!(offer_matches(&sepolia, &listing("eip155:84532", PAY_TO, USDC, 1)));
    }

    #[test]
    fn v1_network_names_normalise_to_caip2() {
        assert_eq!(normalise_network("base"), "eip155:8453");
        assert_eq!(normalise_network(" Base-Sepolia "), "eip155:84532");
        assert_eq!(normalise_network("eip155:8453"), "eip155:8453");
        assert_eq!(normalise_network("EIP155:8453"), "eip155:8453");
        assert_eq!(
            normalise_network("Solana:5eykt4UsFv8P8NJdTREpY1vzqKqZKvdp"),
            "solana:5eykt4UsFv8P8NJdTREpY1vzqKqZKvdp"
        );
        assert_eq!(normalise_network("some-chain"), "some-chain");
    }
}
