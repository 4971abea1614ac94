//! JSON Schema's integers in request bodies: a JSON number is an integer when its value is whole,
//! so `46` and `46.0` are the same integer and every integer field a request declares accepts
//! both (`#[serde(default, deserialize_with = "integer::option")]`). A fraction, a negative
//! number or a value past the field's range is refused with serde's own error.

use serde::Deserialize;
use serde::de::{Deserializer, Error};

/// An optional whole number into `T` (`null` or absent is `None`).
///
/// # Errors
/// When the value is no number, has a fraction, is negative or does not fit `T`.
pub fn option<'de, D, T>(deserializer: D) -> Result<Option<T>, D::Error>
where
    D: Deserializer<'de>,
    T: TryFrom<u64>,
{
    let Some(number) = Option::<serde_json::Number>::deserialize(deserializer)? else { return Ok(None) };
    let whole = number
        .as_u64()
        .or_else(|| {
            number.as_f64().filter(|f| f.fract() == 0.0 && *f >= 0.0 && *f <= u64::MAX as f64).map(|f| f as u64)
        })
        .ok_or_else(|| D::Error::custom(format!("invalid value: {number}, expected a non-negative integer")))?;
    T::try_from(whole).map(Some).map_err(|_| D::Error::custom(format!("invalid value: {number}, out of range")))
}

#[cfg(test)]
mod tests {
    use serde::Deserialize;

    #[derive(Debug, Deserialize)]
    struct Body {
        #[serde(default, deserialize_with = "super::option")]
        n: Option<u8>,
    }

    fn n(json: &str) -> Result<Option<u8>, String> {
        serde_json::from_str::<Body>(json).map(|b| b.n).map_err(|e| e.to_string())
    }

    #[test]
    fn whole_numbers_in_either_spelling_are_integers() {
        assert_eq!(n(r#"{"n":46}"#), Ok(Some(46)));
        assert_eq!(n(r#"{"n":46.0}"#), Ok(Some(46)));
        assert_eq!(n(r#"{"n":4.6e1}"#), Ok(Some(46)));
        assert_eq!(n(r#"{"n":null}"#), Ok(None));
        assert_eq!(n("{}"), Ok(None));
    }

    #[test]
    fn fractions_negatives_and_overflow_are_refused() {
        for bad in [r#"{"n":46.5}"#, r#"{"n":-1}"#, r#"{"n":256}"#, r#"{"n":"46"}"#, r#"{"n":1e300}"#] {
            assert!(n(bad).is_err(), "{bad}");
        }
    }
}
