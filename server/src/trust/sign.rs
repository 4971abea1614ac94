//! Signed trust answers (draft-02's envelope): JCS canonical bytes (RFC 8785), their SHA-256 as a
//! `sha256:` content address, and an Ed25519 signature (RFC 8032) by a key published as an RFC 8037
//! JWK whose `kid` is its RFC 7638 thumbprint.
//!
//! The key is `AGENTREP_TRUST_SIGNING_KEY` (a 32-byte hex Ed25519 seed), else derived from the
//! operator's key (`AGENTREP_SIGNING_KEY`; `make run` generates and keeps a demo one) as
//! HMAC-SHA256(operator key, [`DERIVATION_LABEL`]), so a deployment that signs attestations signs
//! trust answers too, under a key of its own.

use base64::Engine as _;
use base64::engine::general_purpose::URL_SAFE_NO_PAD;
use ed25519_dalek::{Signer, SigningKey};
use hmac::{Hmac, Mac};
use serde::Serialize;
use sha2::{Digest, Sha256};

use agentrep_publish::wire::{ENVELOPE_ALG, JCS_CANONICALISATION, JwkV1, JwksV1, TrustEnvelopeV1, TrustEvaluationV1};

use crate::SecretKey;

/// What the operator's key is keyed with to derive the trust key.
pub const DERIVATION_LABEL: &[u8] = b"agentrep/x402-trust-provider/ed25519/v1";

/// The JCS (RFC 8785) bytes of a value.
pub fn canonical<T: Serialize>(value: &T) -> Vec<u8> {
    serde_json_canonicalizer::to_vec(value).expect("wire payloads serialise to JSON without non-finite numbers")
}

/// `sha256:<hex>` of `bytes`.
pub fn content_address(bytes: &[u8]) -> String {
    format!("sha256:{}", hex::encode(Sha256::digest(bytes)))
}

/// The key trust answers are signed with.
#[derive(Clone)]
pub struct TrustSigner {
    key: SigningKey,
    kid: String,
    /// Derived from a key generated for a demo: proves nothing about who runs the deployment.
    pub demo: bool,
}

impl std::fmt::Debug for TrustSigner {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("TrustSigner").field("kid", &self.kid).finish_non_exhaustive()
    }
}

impl TrustSigner {
    /// From a 32-byte seed.
    pub fn from_seed(seed: [u8; 32], demo: bool) -> Self {
        let key = SigningKey::from_bytes(&seed);
        let kid = thumbprint(&key);
        Self { key, kid, demo }
    }

    /// The configured key: `explicit` (a seed), else derived from the operator's key; `None`
    /// when neither is set.
    ///
    /// # Errors
    /// When a key is set but is not 32 bytes of hex (the message never echoes it).
    pub fn from_config(
        explicit: Option<&SecretKey>,
        operator: Option<&SecretKey>,
        operator_is_demo: bool,
    ) -> Result<Option<Self>, crate::secret::KeyError> {
        if let Some(k) = explicit {
            return k.bytes32("AGENTREP_TRUST_SIGNING_KEY").map(|seed| Some(Self::from_seed(seed, false)));
        }
        let Some(op) = operator else { return Ok(None) };
        let op = op.bytes32("AGENTREP_SIGNING_KEY")?;
        let mut mac = Hmac::<Sha256>::new_from_slice(&op).expect("HMAC takes any key length");
        mac.update(DERIVATION_LABEL);
        Ok(Some(Self::from_seed(mac.finalize().into_bytes().into(), operator_is_demo)))
    }

    /// The key's id: its RFC 7638 thumbprint.
    pub fn kid(&self) -> &str {
        &self.kid
    }

    /// The public key as a JWK.
    pub fn jwk(&self) -> JwkV1 {
        JwkV1 {
            kty: "OKP".to_owned(),
            crv: "Ed25519".to_owned(),
            x: URL_SAFE_NO_PAD.encode(self.key.verifying_key().as_bytes()),
            kid: self.kid.clone(),
            key_use: "sig".to_owned(),
            alg: "EdDSA".to_owned(),
        }
    }

    /// Signs `evaluation` (which must carry no envelope yet): the envelope covers the JCS bytes
    /// of everything else.
    pub fn seal(&self, evaluation: &mut TrustEvaluationV1, public_key_url: &str) {
        evaluation.envelope = None;
        let bytes = canonical(evaluation);
        let signature = self.key.sign(&bytes);
        evaluation.envelope = Some(TrustEnvelopeV1 {
            canonicalisation: JCS_CANONICALISATION.to_owned(),
            alg: ENVELOPE_ALG.to_owned(),
            kid: self.kid.clone(),
            card_ref: content_address(&bytes),
            signature: URL_SAFE_NO_PAD.encode(signature.to_bytes()),
            public_key_url: public_key_url.to_owned(),
        });
    }
}

/// The key set a deployment publishes: its one key, or none.
pub fn jwks(signer: Option<&TrustSigner>) -> JwksV1 {
    JwksV1 { keys: signer.map(TrustSigner::jwk).into_iter().collect() }
}

/// RFC 7638: base64url(SHA-256 of the JWK's required members, in lexicographic order, no spaces).
fn thumbprint(key: &SigningKey) -> String {
    let x = URL_SAFE_NO_PAD.encode(key.verifying_key().as_bytes());
    let members = format!(r#"{{"crv":"Ed25519","kty":"OKP","x":"{x}"}}"#);
    URL_SAFE_NO_PAD.encode(Sha256::digest(members.as_bytes()))
}

#[cfg(test)]
mod tests {
    use super::*;
    use ed25519_dalek::{Signature, Verifier, VerifyingKey};

    #[test]
    fn rfc8037_appendix_a_thumbprint() {
        // RFC 8037 A.1 / A.3: the seed, its public key and the key's RFC 7638 thumbprint.
        let seed = hex::decode("9d61b19deffd5a60ba844af492ec2cc44449c5697b326919703bac031cae7f60").unwrap();
        let signer = TrustSigner::from_seed(seed.try_into().unwrap(), false);
        assert_eq!(signer.jwk().x, "11qYAYKxCrfVS_7TyWQHOg7hcvPapiMlrwIaaPcHURo");
        assert_eq!(signer.kid(), "kPrK_qmxVWaYVA9wwBF6Iuo3vVzz7TxHCTwXBygrS4k");
    }

    #[test]
    fn canonical_bytes_sort_keys_and_print_numbers_as_ecmascript() {
        let v = serde_json::json!({"b": 1.0, "a": [0.5, 1e21, "é"], "c": null});
        assert_eq!(String::from_utf8(canonical(&v)).unwrap(), r#"{"a":[0.5,1e+21,"é"],"b":1,"c":null}"#);
    }

    #[test]
    fn a_derived_key_is_stable_and_not_the_operator_key() {
        let op = SecretKey::new("0x".to_owned() + &"11".repeat(32));
        let a = TrustSigner::from_config(None, Some(&op), false).unwrap().unwrap();
        let b = TrustSigner::from_config(None, Some(&op), false).unwrap().unwrap();
        assert_eq!(a.kid(), b.kid());
        assert_ne!(a.key.to_bytes(), [0x11; 32]);
        assert!(TrustSigner::from_config(None, None, false).unwrap().is_none());
        assert!(TrustSigner::from_config(Some(&SecretKey::new("zz")), Some(&op), false).is_err());
    }

    #[test]
    fn the_signature_covers_the_canonical_bytes_without_the_envelope() {
        let signer = TrustSigner::from_seed([7; 32], false);
        let mut e: TrustEvaluationV1 = serde_json::from_value(serde_json::json!({
            "schema": "x402-trust-evaluation-v0.1", "provider": "agentrep", "provider_url": "/p",
            "direction": "seller", "subject": {"wallet": null, "chain": "eip155:8453"},
            "decision": "UNCERTAIN", "score": null, "null_reason": "unknown_subject",
            "reason_code": "unknown_subject", "basis": [], "evidence_uri": "sha256:00",
            "evidence_url": "/e", "issued_at": "2026-12-04T00:00:00Z", "evaluated_at": "2026-12-04T00:00:00Z",
            "expires_at": "2026-12-04T00:15:00Z", "recheck_after": "2026-12-04T00:15:00Z", "ttl": 900,
            "ttl_seconds": 900, "agentrep": {"wallet": null, "decision": null, "amount_micro_usdc": null,
            "snapshot_date": "2026-12-03", "methodology": "m"}, "disclaimer": "d"
        }))
        .unwrap();
        signer.seal(&mut e, "/.well-known/jwks.json");
        let env = e.envelope.clone().unwrap();
        let mut unsigned = e.clone();
        unsigned.envelope = None;
        let bytes = canonical(&unsigned);
        assert_eq!(env.card_ref, content_address(&bytes));
        let public: [u8; 32] = URL_SAFE_NO_PAD.decode(signer.jwk().x).unwrap().try_into().unwrap();
        let sig: [u8; 64] = URL_SAFE_NO_PAD.decode(&env.signature).unwrap().try_into().unwrap();
        let key = VerifyingKey::from_bytes(&public).unwrap();
        assert!(key.verify(&bytes, &Signature::from_bytes(&sig)).is_ok());
        unsigned.decision = agentrep_publish::wire::TrustDecision::Pass;
        assert!(key.verify(&canonical(&unsigned), &Signature::from_bytes(&sig)).is_err());
    }
}
