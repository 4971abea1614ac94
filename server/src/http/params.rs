//! Typed parameters: query strings and JSON bodies parse into per-route structs (serde), and the
//! types of their fields carry their own bounds, so the check and the OpenAPI schema are one
//! definition.

use std::borrow::Cow;
use std::fmt;

use agentrep_model::Address;
use schemars::{JsonSchema, Schema, SchemaGenerator, json_schema};
use serde::de::{self, DeserializeOwned, Deserializer, Visitor};

use crate::error::ApiError;

/// Parses a query string into `T`; an error names the parameter (`invalid_<name>`).
pub fn query<T: DeserializeOwned>(raw: Option<&str>) -> Result<T, ApiError> {
    let parse = form_urlencoded::parse(raw.unwrap_or_default().as_bytes());
    serde_path_to_error::deserialize(serde_urlencoded::Deserializer::new(parse)).map_err(|e| {
        let message = e.inner().to_string();
        let param = field_of(&e.path().to_string(), &message);
        ApiError::param(&param, format!("{param}: {message}"))
    })
}

/// Parses a JSON body into `T`; an error names the field.
pub fn json<T: DeserializeOwned>(body: &[u8]) -> Result<T, ApiError> {
    let mut de = serde_json::Deserializer::from_slice(body);
    serde_path_to_error::deserialize(&mut de).map_err(|e| {
        let message = e.inner().to_string();
        let malformed = e.inner().is_syntax() || e.inner().is_eof();
        match field_of(&e.path().to_string(), &message) {
            _ if malformed => ApiError::InvalidBody(format!("the body is not valid JSON: {message}")),
            field if field == "body" => {
                ApiError::InvalidBody(format!("the body is not the JSON object this route reads: {message}"))
            }
            field => ApiError::param(&field, format!("{field}: {message}")),
        }
    })
}

/// The parameter an error is about: its path, or the name a "missing field" message quotes.
fn field_of(path: &str, message: &str) -> String {
    if path != "." && path != "?" && !path.is_empty() {
        return path.split(['.', '[']).next().unwrap_or(path).to_owned();
    }
    message.split('`').nth(1).filter(|_| message.starts_with("missing field")).unwrap_or("body").to_owned()
}

/// A wallet address in a path segment or a body.
pub fn address(raw: &str) -> Result<Address, ApiError> {
    Address::parse(raw).map_err(|e| ApiError::InvalidAddress(e.to_string()))
}

/// An integer parameter within `MIN..=MAX`, `DEFAULT` when absent. Reads a query string's text or a
/// JSON number.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Bounded<const DEFAULT: u32, const MIN: u32, const MAX: u32>(pub u32);

impl<const D: u32, const MIN: u32, const MAX: u32> Bounded<D, MIN, MAX> {
    /// The value.
    pub fn get(self) -> u32 {
        self.0
    }

    fn check(v: i128) -> Result<Self, OutOfRange> {
        if (i128::from(MIN)..=i128::from(MAX)).contains(&v) {
            Ok(Self(v as u32))
        } else {
            Err(OutOfRange { min: MIN, max: MAX, got: v })
        }
    }
}

/// A whole number outside a parameter's bounds.
#[derive(Debug, Clone, Copy, PartialEq, Eq, thiserror::Error)]
#[error("must be an integer from {min} to {max}, got {got}")]
pub struct OutOfRange {
    /// The least it may be.
    pub min: u32,
    /// The most it may be.
    pub max: u32,
    /// What it was.
    pub got: i128,
}

impl<const D: u32, const MIN: u32, const MAX: u32> Default for Bounded<D, MIN, MAX> {
    fn default() -> Self {
        Self(D)
    }
}

impl<'de, const D: u32, const MIN: u32, const MAX: u32> serde::Deserialize<'de> for Bounded<D, MIN, MAX> {
    fn deserialize<De: Deserializer<'de>>(deserializer: De) -> Result<Self, De::Error> {
        struct V<const D: u32, const MIN: u32, const MAX: u32>;
        impl<const D: u32, const MIN: u32, const MAX: u32> Visitor<'_> for V<D, MIN, MAX> {
            type Value = Bounded<D, MIN, MAX>;
            fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
                write!(f, "an integer from {MIN} to {MAX}")
            }
            fn visit_u64<E: de::Error>(self, v: u64) -> Result<Self::Value, E> {
                Bounded::check(i128::from(v)).map_err(E::custom)
            }
            fn visit_i64<E: de::Error>(self, v: i64) -> Result<Self::Value, E> {
                Bounded::check(i128::from(v)).map_err(E::custom)
            }
            fn visit_f64<E: de::Error>(self, v: f64) -> Result<Self::Value, E> {
                if v.fract() == 0.0 && v.is_finite() {
                    Bounded::check(v as i128).map_err(E::custom)
                } else {
                    Err(E::custom(format!("must be an integer from {MIN} to {MAX}, got {v}")))
                }
            }
            fn visit_str<E: de::Error>(self, v: &str) -> Result<Self::Value, E> {
                let n = whole_number(v)
                    .ok_or_else(|| E::custom(format!("must be an integer from {MIN} to {MAX}, got '{v}'")))?;
                Bounded::check(n).map_err(E::custom)
            }
        }
        deserializer.deserialize_any(V::<D, MIN, MAX>)
    }
}

/// A query string's integer as JSON Schema counts one: the text of a JSON number whose value is
/// whole (`46`, `46.0`, `4.6e1`), within `i128`; `None` for anything else.
fn whole_number(text: &str) -> Option<i128> {
    let text = text.trim();
    if let Ok(n) = text.parse::<i128>() {
        return Some(n);
    }
    let number: serde_json::Number = serde_json::from_str(text).ok()?;
    let f = number.as_f64()?;
    (f.is_finite() && f.fract() == 0.0 && f.abs() < 1e30).then_some(f as i128)
}

impl<const D: u32, const MIN: u32, const MAX: u32> JsonSchema for Bounded<D, MIN, MAX> {
    fn inline_schema() -> bool {
        true
    }

    fn schema_name() -> Cow<'static, str> {
        format!("Bounded_{D}_{MIN}_{MAX}").into()
    }

    fn json_schema(_: &mut SchemaGenerator) -> Schema {
        json_schema!({ "type": "integer", "minimum": MIN, "maximum": MAX, "default": D })
    }
}

/// A `1`-or-absent switch (`0` also reads as off).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Flag(pub bool);

/// The values a [`Flag`] reads.
const FLAG_VALUES: [(&str, bool); 4] = [("1", true), ("0", false), ("true", true), ("false", false)];

impl<'de> serde::Deserialize<'de> for Flag {
    fn deserialize<De: Deserializer<'de>>(deserializer: De) -> Result<Self, De::Error> {
        let raw = String::deserialize(deserializer)?;
        FLAG_VALUES
            .iter()
            .find(|(text, _)| *text == raw)
            .map(|(_, on)| Flag(*on))
            .ok_or_else(|| de::Error::custom(format!("must be 1 or 0, got '{raw}'")))
    }
}

impl JsonSchema for Flag {
    fn inline_schema() -> bool {
        true
    }

    fn schema_name() -> Cow<'static, str> {
        "Flag".into()
    }

    fn json_schema(_: &mut SchemaGenerator) -> Schema {
        let values: Vec<&str> = FLAG_VALUES.iter().map(|(text, _)| *text).collect();
        json_schema!({ "type": "string", "enum": values })
    }
}

/// A network filter: `all`, or a network of [`agentrep_model::chain::NETWORKS`] by short name or
/// CAIP-2 id.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct NetworkFilter {
    /// The value as given.
    pub given: String,
    /// The CAIP-2 id or prefix it selects; `None` for `all`.
    pub prefix: Option<&'static str>,
}

fn network_names() -> Vec<&'static str> {
    let mut names = vec!["all"];
    for n in agentrep_model::chain::NETWORKS {
        names.extend(n.names.iter().copied());
        if !n.caip2.ends_with(':') {
            names.push(n.caip2);
        }
    }
    names
}

impl<'de> serde::Deserialize<'de> for NetworkFilter {
    fn deserialize<De: Deserializer<'de>>(deserializer: De) -> Result<Self, De::Error> {
        let raw = String::deserialize(deserializer)?;
        if raw == "all" {
            return Ok(Self { given: raw, prefix: None });
        }
        match agentrep_model::chain::filter_prefix(&raw) {
            Some(prefix) => Ok(Self { given: raw, prefix: Some(prefix) }),
            None => Err(de::Error::custom(format!("must be one of {}, got '{raw}'", network_names().join(", ")))),
        }
    }
}

impl serde::Serialize for NetworkFilter {
    fn serialize<S: serde::Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        serializer.serialize_str(&self.given)
    }
}

impl JsonSchema for NetworkFilter {
    fn inline_schema() -> bool {
        true
    }

    fn schema_name() -> Cow<'static, str> {
        "NetworkFilter".into()
    }

    fn json_schema(_: &mut SchemaGenerator) -> Schema {
        json_schema!({ "type": "string", "enum": network_names() })
    }
}

/// An identity proof type by its wire name ([`agentrep_model::ProofType::ALL`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ProofTypeParam(pub agentrep_model::ProofType);

impl<'de> serde::Deserialize<'de> for ProofTypeParam {
    fn deserialize<De: Deserializer<'de>>(deserializer: De) -> Result<Self, De::Error> {
        use agentrep_model::ProofType;
        let raw = String::deserialize(deserializer)?;
        ProofType::parse(raw.trim()).map(Self).ok_or_else(|| {
            let names: Vec<&str> = ProofType::ALL.iter().map(|t| t.as_str()).collect();
            de::Error::custom(format!("must be one of {}, got '{raw}'", names.join(", ")))
        })
    }
}

impl JsonSchema for ProofTypeParam {
    fn inline_schema() -> bool {
        true
    }

    fn schema_name() -> Cow<'static, str> {
        "ProofType".into()
    }

    fn json_schema(_: &mut SchemaGenerator) -> Schema {
        let names: Vec<&str> = agentrep_model::ProofType::ALL.iter().map(|t| t.as_str()).collect();
        json_schema!({ "type": "string", "enum": names })
    }
}

/// Text of at least `MIN` characters (after trimming), at most 200.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Text<const MIN: usize>(pub String);

/// White space as the schema's pattern (`\\s`, ECMAScript) reads it, so the check and the
/// published schema agree on every string.
fn is_pattern_space(c: char) -> bool {
    matches!(
        c,
        '\t' | '\n' | '\u{b}' | '\u{c}' | '\r' | ' ' | '\u{a0}' | '\u{1680}' | '\u{2000}'
            ..='\u{200a}' | '\u{2028}' | '\u{2029}' | '\u{202f}' | '\u{205f}' | '\u{3000}' | '\u{feff}'
    )
}

/// Longest free-text parameter read.
pub const MAX_TEXT: usize = 200;

impl<'de, const MIN: usize> serde::Deserialize<'de> for Text<MIN> {
    fn deserialize<De: Deserializer<'de>>(deserializer: De) -> Result<Self, De::Error> {
        let raw = String::deserialize(deserializer)?;
        let total = raw.chars().count();
        if total > MAX_TEXT {
            return Err(de::Error::custom(format!("must be at most {MAX_TEXT} characters, got {total}")));
        }
        let trimmed = raw.trim_matches(is_pattern_space);
        let chars = trimmed.chars().count();
        if chars < MIN {
            return Err(de::Error::custom(format!(
                "must be at least {MIN} characters besides surrounding spaces, got {chars}"
            )));
        }
        Ok(Text(trimmed.to_owned()))
    }
}

impl<const MIN: usize> JsonSchema for Text<MIN> {
    fn inline_schema() -> bool {
        true
    }

    fn schema_name() -> Cow<'static, str> {
        format!("Text_{MIN}").into()
    }

    fn json_schema(_: &mut SchemaGenerator) -> Schema {
        // At least MIN characters once surrounding white space is trimmed.
        let pattern = match MIN {
            0 => "^[\\s\\S]*$".to_owned(),
            1 => "\\S".to_owned(),
            n => format!("^\\s*\\S[\\s\\S]{{{},}}\\S\\s*$", n - 2),
        };
        json_schema!({ "type": "string", "minLength": MIN, "maxLength": MAX_TEXT, "pattern": pattern })
    }
}

/// The largest USDC amount a parameter reads.
pub const MAX_USDC: f64 = 1e12;

/// A USDC amount given as `"0.05"`, `"$0.05"` or a number; held in micro-USDC.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct UsdcAmount(pub u64);

impl UsdcAmount {
    /// Parses decimal USDC text with at most 6 decimals.
    pub fn parse(text: &str) -> Option<Self> {
        let t = text.trim().trim_start_matches('$').trim();
        let (whole, frac) = t.split_once('.').unwrap_or((t, ""));
        if whole.is_empty() && frac.is_empty()
            || whole.len() > 12
            || !whole.bytes().all(|b| b.is_ascii_digit())
            || !frac.bytes().all(|b| b.is_ascii_digit())
            || frac.len() > 6
        {
            return None;
        }
        let whole: u64 = if whole.is_empty() { 0 } else { whole.parse().ok()? };
        let frac: u64 = format!("{frac:0<6}").parse().ok()?;
        whole.checked_mul(1_000_000)?.checked_add(frac).map(Self)
    }
}

impl<'de> serde::Deserialize<'de> for UsdcAmount {
    fn deserialize<De: Deserializer<'de>>(deserializer: De) -> Result<Self, De::Error> {
        #[derive(serde::Deserialize)]
        #[serde(untagged)]
        enum Raw {
            Number(f64),
            Text(String),
        }
        let bad =
            |shown: String| de::Error::custom(format!("must be a USDC amount like \"0.05\" or 0.05, got {shown}"));
        match Raw::deserialize(deserializer).map_err(|_| bad("neither text nor a number".to_owned()))? {
            Raw::Number(n) if (0.0..=MAX_USDC).contains(&n) => Ok(Self((n * 1e6).round() as u64)),
            Raw::Number(n) => Err(bad(n.to_string())),
            Raw::Text(t) => Self::parse(&t).ok_or_else(|| bad(format!("'{t}'"))),
        }
    }
}

impl JsonSchema for UsdcAmount {
    fn inline_schema() -> bool {
        true
    }

    fn schema_name() -> Cow<'static, str> {
        "UsdcAmount".into()
    }

    fn json_schema(_: &mut SchemaGenerator) -> Schema {
        json_schema!({
            "description": "USDC amount: decimal text such as \"0.05\" (a leading $ is allowed) or a number",
            "oneOf": [
                { "type": "string", "pattern": "^\\s*\\$?\\s*([0-9]{1,12}(\\.[0-9]{0,6})?|\\.[0-9]{1,6})\\s*$" },
                { "type": "number", "minimum": 0, "maximum": MAX_USDC }
            ]
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[derive(Debug, serde::Deserialize)]
    struct Q {
        #[serde(default)]
        limit: Bounded<20, 1, 100>,
        #[serde(default)]
        sparkline: Flag,
        q: Option<Text<2>>,
    }

    #[test]
    fn queries_parse_with_defaults_and_named_errors() {
        let q: Q = query(Some("limit=5&sparkline=1&q=%20ab%20")).unwrap();
        assert_eq!((q.limit.get(), q.sparkline.0, q.q.unwrap().0.as_str()), (5, true, "ab"));
        let q: Q = query(None).unwrap();
        assert_eq!(q.limit.get(), 20);
        let err = query::<Q>(Some("limit=0")).unwrap_err();
        assert_eq!(err.code(), "invalid_limit");
        assert!(err.to_string().contains("from 1 to 100"), "{err}");
        assert_eq!(query::<Q>(Some("limit=abc")).unwrap_err().code(), "invalid_limit");
        assert_eq!(query::<Q>(Some("q=a")).unwrap_err().code(), "invalid_q");
        assert_eq!(query::<Q>(Some("sparkline=yes")).unwrap_err().code(), "invalid_sparkline");
        assert_eq!(query::<Q>(Some("sparkline=")).unwrap_err().code(), "invalid_sparkline");
    }

    /// JSON Schema counts `46.0` and `4.6e1` as the integer 46, in a query as in a body
    /// (schemathesis sends them): accepted; a fraction, a word or an overflow is not.
    #[test]
    fn query_integers_are_json_schema_integers() {
        for text in ["46", "46.0", "4.6e1", " 46 "] {
            let q: Q = query(Some(&format!("limit={text}"))).unwrap();
            assert_eq!(q.limit.get(), 46, "{text}");
        }
        for bad in ["46.5", "1e300", "0x2e", "NaN", "inf", "46,0"] {
            assert_eq!(query::<Q>(Some(&format!("limit={bad}"))).unwrap_err().code(), "invalid_limit", "{bad}");
        }
    }

    #[test]
    fn bodies_name_the_missing_field() {
        #[derive(Debug, serde::Deserialize)]
        struct B {
            #[allow(dead_code)]
            intent: Text<3>,
        }
        assert_eq!(json::<B>(b"{}").unwrap_err().code(), "invalid_intent");
        assert_eq!(json::<B>(b"{\"intent\": \"ab\"}").unwrap_err().code(), "invalid_intent");
        assert_eq!(json::<B>(b"not json").unwrap_err().code(), "invalid_body");
        assert!(json::<B>(b"{\"intent\": \"weather\", \"other\": 1}").is_ok());
    }

    #[test]
    fn usdc_amounts() {
        assert_eq!(UsdcAmount::parse("0.05"), Some(UsdcAmount(50_000)));
        assert_eq!(UsdcAmount::parse("$1"), Some(UsdcAmount(1_000_000)));
        assert_eq!(UsdcAmount::parse(".5"), Some(UsdcAmount(500_000)));
        assert_eq!(UsdcAmount::parse("0.0000001"), None);
        assert_eq!(UsdcAmount::parse("-1"), None);
        assert_eq!(UsdcAmount::parse("."), None);
        assert_eq!(serde_json::from_str::<UsdcAmount>("0.05").unwrap(), UsdcAmount(50_000));
        assert_eq!(serde_json::from_str::<UsdcAmount>("\"0.05\"").unwrap(), UsdcAmount(50_000));
        assert!(serde_json::from_str::<UsdcAmount>("-3").is_err());
    }
}
