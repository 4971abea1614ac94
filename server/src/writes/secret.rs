//! Webhook signing secrets, and the Standard Webhooks 1.0 signature they make: `whsec_` and 24
//! random bytes in base64; `webhook-signature: v1,<base64 HMAC-SHA256(secret, "id.timestamp.body")>`.

use base64::Engine;
use base64::engine::general_purpose::STANDARD;
use hmac::{Hmac, Mac};
use sha2::Sha256;

/// The prefix of a Standard Webhooks secret.
pub const PREFIX: &str = "whsec_";

/// A new secret from the operating system's random source.
///
/// # Panics
/// When the operating system has no random source (nothing can be signed safely then).
pub fn new_secret() -> String {
    let mut bytes = [0u8; 24];
    getrandom::fill(&mut bytes).expect("the operating system's random source");
    format!("{PREFIX}{}", STANDARD.encode(bytes))
}

/// The `webhook-signature` header value of a delivery.
pub fn sign(secret: &str, webhook_id: &str, timestamp: i64, body: &[u8]) -> String {
    let key =
        STANDARD.decode(secret.strip_prefix(PREFIX).unwrap_or(secret)).unwrap_or_else(|_| secret.as_bytes().to_vec());
    let mut mac = Hmac::<Sha256>::new_from_slice(&key).expect("HMAC takes any key length");
    mac.update(webhook_id.as_bytes());
    mac.update(b".");
    mac.update(timestamp.to_string().as_bytes());
    mac.update(b".");
    mac.update(body);
    format!("v1,{}", STANDARD.encode(mac.finalize().into_bytes()))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn signs_the_standard_webhooks_example() {
        // The example of the Standard Webhooks specification (spec/standard-webhooks.md).
        let secret = "whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw";
        let body = br#"{"test": 2432232314}"#;
        assert_eq!(
            sign(secret, "msg_p5jXN8AQM9LWM0D4loKWxJek", 1614265330, body),
            "v1,g0hM9SsE+OTPJTGt/tmIKtSyZlE3uFJELVlNIOLJ1OE="
        );
        let fresh = new_secret();
        assert!(fresh.starts_with(PREFIX) && STANDARD.decode(&fresh[PREFIX.len()..]).unwrap().len() == 24);
        assert_ne!(fresh, new_secret());
    }
}
