//! Secret keys from the configuration (the relayer's, the operator's signing key, the trust
//! signing key, the caster's seed): held without ever being printed, and read as what their
//! variable must hold with an error that names the variable, never the value.

use alloy::signers::local::PrivateKeySigner;

/// A private key from the configuration (the relayer's, the operator's signing key). Never
/// printed.
#[derive(Clone, Default)]
pub struct SecretKey(String);

impl SecretKey {
    /// Wraps a hex private key.
    pub fn new(key: impl Into<String>) -> Self {
        Self(key.into())
    }

    /// As a signer.
    ///
    /// # Errors
    /// When it is not a 32-byte hex private key (the message never echoes it).
    pub fn signer(&self, name: &'static str) -> Result<PrivateKeySigner, KeyError> {
        self.0.trim().parse().map_err(|_| KeyError::NotAPrivateKey(name))
    }

    /// As 32 raw bytes (an Ed25519 seed).
    ///
    /// # Errors
    /// When it is not 32 bytes of hex (the message never echoes it).
    pub fn bytes32(&self, name: &'static str) -> Result<[u8; 32], KeyError> {
        let text = self.0.trim();
        let bytes = hex::decode(text.strip_prefix("0x").unwrap_or(text)).map_err(|_| KeyError::NotHex(name))?;
        bytes.try_into().map_err(|_| KeyError::NotThirtyTwoBytes(name))
    }
}

/// A secret key that is not what its variable must hold. It names the variable and never the
/// value: the parsers' own errors are left out on purpose, since they quote the character they
/// stopped at.
#[derive(Debug, Clone, Copy, PartialEq, Eq, thiserror::Error)]
pub enum KeyError {
    /// Not a secp256k1 private key in hex.
    #[error("{0} is not a 32-byte hex private key")]
    NotAPrivateKey(&'static str),
    /// Not hex.
    #[error("{0} is not hex")]
    NotHex(&'static str),
    /// Hex, but not 32 bytes of it.
    #[error("{0} is not 32 bytes")]
    NotThirtyTwoBytes(&'static str),
}

impl std::fmt::Debug for SecretKey {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("SecretKey(<redacted>)")
    }
}
