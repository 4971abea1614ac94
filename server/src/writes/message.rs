//! What a signed message says. A write's fields are taken from the message its signer signed, and
//! the unsigned body may only repeat them: a field the body states differently, or states when the
//! message does not, is refused by name. Every message carries a timestamp and is accepted for 24
//! hours (and up to 5 minutes early, for clock skew); the store accepts each message once.

use crate::ApiError;

/// How long a signed message is accepted, milliseconds.
pub const FRESH_FOR_MS: i64 = 24 * 3_600_000;
/// How far in the future a message's timestamp may be, milliseconds.
pub const SKEW_MS: i64 = 300_000;
/// Longest message read.
pub const MAX_MESSAGE_CHARS: usize = 2_000;

/// A signed message's `key: value` lines and its timestamp.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Message {
    /// The text as signed.
    pub text: String,
    lines: Vec<(String, String)>,
    /// The timestamp, Unix milliseconds.
    pub signed_at: i64,
}

fn refused(code: &'static str, message: impl Into<String>) -> ApiError {
    ApiError::Unauthorized { code, message: message.into() }
}

/// A timestamp in milliseconds: an integer of milliseconds (`Date.now()`) or seconds, or an
/// RFC 3339 time.
fn timestamp(value: &str) -> Option<i64> {
    let value = value.trim();
    if let Ok(n) = value.parse::<i64>() {
        if n < 0 {
            return None;
        }
        return if n < 100_000_000_000 { n.checked_mul(1000) } else { Some(n) };
    }
    chrono::DateTime::parse_from_rfc3339(value).ok().map(|t| t.timestamp_millis())
}

impl Message {
    /// Reads `text`: `key: value` (or `key=value`) lines, keys compared without case; the
    /// timestamp line (`timestamp`, `issued at`, `time`) must be within the freshness window of
    /// `now_ms`.
    ///
    /// # Errors
    /// 400 for an empty or overlong message; 401 `stale_message` for a missing, old or future
    /// timestamp.
    pub fn parse(text: &str, now_ms: i64) -> Result<Self, ApiError> {
        if text.trim().is_empty() {
            return Err(ApiError::param("message", "empty"));
        }
        if text.chars().count() > MAX_MESSAGE_CHARS {
            return Err(ApiError::param("message", format!("longer than {MAX_MESSAGE_CHARS} characters")));
        }
        let lines: Vec<(String, String)> = text
            .lines()
            .filter_map(|line| {
                let at = line.find([':', '='])?;
                let (key, value) = (line[..at].trim(), line[at + 1..].trim());
                (!key.is_empty()).then(|| (key.to_ascii_lowercase(), value.to_owned()))
            })
            .collect();
        let signed_at = ["timestamp", "issued at", "time"]
            .iter()
            .find_map(|k| lines.iter().find(|(key, _)| key == k).and_then(|(_, v)| timestamp(v)))
            .ok_or_else(|| {
                refused(
                    "stale_message",
                    "the message carries no timestamp (a line `timestamp=<Unix ms>`): it could be replayed forever",
                )
            })?;
        if signed_at < now_ms - FRESH_FOR_MS {
            return Err(refused("stale_message", "the message is older than 24 hours; sign a new one"));
        }
        if signed_at > now_ms + SKEW_MS {
            return Err(refused("stale_message", "the message's timestamp is in the future"));
        }
        Ok(Self { text: text.to_owned(), lines, signed_at })
    }

    /// The value of the line `key`.
    pub fn get(&self, key: &str) -> Option<&str> {
        self.lines.iter().find(|(k, _)| k == key).map(|(_, v)| v.as_str())
    }

    /// Whether the text contains `needle`, without case.
    pub fn mentions(&self, needle: &str) -> bool {
        self.text.to_ascii_lowercase().contains(&needle.to_ascii_lowercase())
    }

    /// The message's value of `key`, which the body's `field` must repeat when it states it.
    ///
    /// # Errors
    /// 401 `message_mismatch` when the body states it and the message does not, or differently.
    pub fn agreed<'a>(&'a self, key: &str, field: &str, body: Option<&str>) -> Result<Option<&'a str>, ApiError> {
        let signed = self.get(key);
        match (signed, body) {
            (_, None) => Ok(signed),
            (Some(s), Some(b)) if s.eq_ignore_ascii_case(b.trim()) => Ok(signed),
            (None, Some(_)) => Err(refused(
                "message_mismatch",
                format!("{field} is not in the signed message (a line `{key}: …`), so it would be unsigned"),
            )),
            (Some(_), Some(_)) => {
                Err(refused("message_mismatch", format!("{field} differs from the signed message's `{key}`")))
            }
        }
    }

    /// The message's value of `key`, which must be there.
    ///
    /// # Errors
    /// 401 `message_mismatch` when the line is missing.
    pub fn required(&self, key: &str, what: &str) -> Result<&str, ApiError> {
        self.get(key).ok_or_else(|| {
            refused("message_mismatch", format!("the signed message names no {what} (a line `{key}: …`)"))
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const NOW: i64 = 1_790_000_000_000;

    #[test]
    fn the_sdk_receipt_message_reads() {
        let text = format!(
            "MainStreet receipt\nbuyer: 0xaa\nagent: 0xbb\nsuccess: true\nrating: 90\ncomment: fast: and right\ntimestamp={NOW}"
        );
        let m = Message::parse(&text, NOW + 1000).unwrap();
        assert_eq!(
            (m.get("buyer"), m.get("rating"), m.get("comment")),
            (Some("0xaa"), Some("90"), Some("fast: and right"))
        );
        assert_eq!(m.signed_at, NOW);
        assert!(m.mentions("MAINSTREET RECEIPT"));
        assert_eq!(m.agreed("rating", "rating", Some("90")).unwrap(), Some("90"));
        assert!(m.agreed("rating", "rating", Some("91")).is_err());
        assert!(m.agreed("latencyms", "latencyMs", Some("5")).is_err(), "a body value the message does not sign");
        assert_eq!(m.agreed("latencyms", "latencyMs", None).unwrap(), None);
    }

    #[test]
    fn messages_without_a_fresh_timestamp_are_refused() {
        assert!(Message::parse("watch 0xaa", NOW).is_err());
        assert!(Message::parse(&format!("timestamp={}", NOW - FRESH_FOR_MS - 1), NOW).is_err());
        assert!(Message::parse(&format!("timestamp={}", NOW + SKEW_MS + 1), NOW).is_err());
        assert!(Message::parse(&format!("timestamp: {}", NOW / 1000), NOW).is_ok(), "seconds");
        let iso = chrono::DateTime::from_timestamp_millis(NOW).unwrap().to_rfc3339();
        assert_eq!(Message::parse(&format!("Issued At: {iso}"), NOW).unwrap().signed_at, NOW, "RFC 3339");
    }
}
