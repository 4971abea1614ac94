//! The x402 offer-and-receipt extension (`specs/extensions/extension-offer-and-receipt.md`):
//! EIP-712 signed offers (the terms a 402 quotes) and receipts (a paid answer was delivered),
//! signed by the operator's key, so a buyer can prove what it was offered and what it paid for.
//!
//! Domains are `{name: "x402 offer" | "x402 receipt", version: "1", chainId}` with the chain id of
//! the payload's CAIP-2 network; the types are the spec's, field for field.

use alloy::primitives::{Address, U256};
use alloy::signers::SignerSync;
use alloy::signers::local::PrivateKeySigner;
use alloy::sol;
use alloy::sol_types::{Eip712Domain, SolStruct};
use serde::{Deserialize, Serialize};

use crate::recover::recover_signer;

/// The extension's name, the key of `extensions`.
pub const OFFER_RECEIPT: &str = "offer-receipt";

sol! {
    /// A signed offer (spec §4.3).
    #[derive(Debug)]
    struct Offer {
        string resourceUrl;
        string scheme;
        string network;
        string asset;
        address payTo;
        string amount;
        uint256 maxTimeoutSeconds;
        uint256 issuedAt;
    }

    /// A receipt (spec §5.3).
    #[derive(Debug)]
    struct Receipt {
        string network;
        string resourceUrl;
        string payer;
        uint256 issuedAt;
        string transaction;
    }
}

/// A receipt's payload, as transmitted.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ReceiptPayload {
    /// CAIP-2 network.
    pub network: String,
    /// The paid resource.
    pub resource_url: String,
    /// The payer's address.
    pub payer: String,
    /// Unix seconds.
    pub issued_at: u64,
    /// The settlement transaction ("" for a privacy-minimal receipt).
    pub transaction: String,
}

/// An offer's payload, as transmitted.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct OfferPayload {
    /// The paid resource.
    pub resource_url: String,
    /// `exact`.
    pub scheme: String,
    /// CAIP-2 network.
    pub network: String,
    /// The asset.
    pub asset: String,
    /// Recipient.
    pub pay_to: String,
    /// Atomic units.
    pub amount: String,
    /// Seconds.
    pub max_timeout_seconds: u64,
    /// Unix seconds.
    pub issued_at: u64,
}

/// A signed artifact (`{format: "eip712", payload, signature}`).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Signed<P> {
    /// `eip712`.
    pub format: String,
    /// What was signed.
    pub payload: P,
    /// 65-byte r‖s‖v, hex.
    pub signature: String,
}

/// Why an artifact cannot be signed or checked.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum ArtifactError {
    /// The network is not `eip155:<chain id>`.
    #[error("the network is not eip155:<chain id>")]
    Network,
    /// An address field is not one.
    #[error("payTo is not an address")]
    Address,
    /// The signature is not a 65-byte low-s ECDSA signature of the payload.
    #[error("the signature does not recover")]
    Signature,
}

fn chain_id(network: &str) -> Result<u64, ArtifactError> {
    network.strip_prefix("eip155:").and_then(|id| id.parse().ok()).ok_or(ArtifactError::Network)
}

fn domain(name: &'static str, network: &str) -> Result<Eip712Domain, ArtifactError> {
    Ok(Eip712Domain::new(Some(name.into()), Some("1".into()), Some(U256::from(chain_id(network)?)), None, None))
}

fn sign(key: &PrivateKeySigner, hash: alloy::primitives::B256) -> String {
    alloy::hex::encode_prefixed(key.sign_hash_sync(&hash).expect("a local key signs").as_bytes())
}

impl ReceiptPayload {
    /// Its EIP-712 signing hash.
    ///
    /// # Errors
    /// When the network is not `eip155:<id>`.
    pub fn signing_hash(&self) -> Result<alloy::primitives::B256, ArtifactError> {
        let message = Receipt {
            network: self.network.clone(),
            resourceUrl: self.resource_url.clone(),
            payer: self.payer.clone(),
            issuedAt: U256::from(self.issued_at),
            transaction: self.transaction.clone(),
        };
        Ok(message.eip712_signing_hash(&domain("x402 receipt", &self.network)?))
    }

    /// Signs it.
    ///
    /// # Errors
    /// When the network is not `eip155:<id>`.
    pub fn sign(self, key: &PrivateKeySigner) -> Result<Signed<Self>, ArtifactError> {
        let signature = sign(key, self.signing_hash()?);
        Ok(Signed { format: "eip712".to_owned(), payload: self, signature })
    }
}

impl OfferPayload {
    /// Its EIP-712 signing hash.
    ///
    /// # Errors
    /// When the network is not `eip155:<id>` or `payTo` is not an address.
    pub fn signing_hash(&self) -> Result<alloy::primitives::B256, ArtifactError> {
        let message = Offer {
            resourceUrl: self.resource_url.clone(),
            scheme: self.scheme.clone(),
            network: self.network.clone(),
            asset: self.asset.clone(),
            payTo: self.pay_to.parse::<Address>().map_err(|_| ArtifactError::Address)?,
            amount: self.amount.clone(),
            maxTimeoutSeconds: U256::from(self.max_timeout_seconds),
            issuedAt: U256::from(self.issued_at),
        };
        Ok(message.eip712_signing_hash(&domain("x402 offer", &self.network)?))
    }

    /// Signs it.
    ///
    /// # Errors
    /// When the network is not `eip155:<id>` or `payTo` is not an address.
    pub fn sign(self, key: &PrivateKeySigner) -> Result<Signed<Self>, ArtifactError> {
        let signature = sign(key, self.signing_hash()?);
        Ok(Signed { format: "eip712".to_owned(), payload: self, signature })
    }
}

/// The signer of a signed receipt (the verifier then decides whether that signer speaks for the
/// service, spec §4.5.1).
///
/// # Errors
/// When the artifact is malformed or its signature does not recover.
pub fn receipt_signer(r: &Signed<ReceiptPayload>) -> Result<Address, ArtifactError> {
    let sig = alloy::hex::decode(&r.signature).map_err(|_| ArtifactError::Signature)?;
    recover_signer(&r.payload.signing_hash()?, &sig).ok_or(ArtifactError::Signature)
}

/// The signer of a signed offer.
///
/// # Errors
/// When the artifact is malformed or its signature does not recover.
pub fn offer_signer(o: &Signed<OfferPayload>) -> Result<Address, ArtifactError> {
    let sig = alloy::hex::decode(&o.signature).map_err(|_| ArtifactError::Signature)?;
    recover_signer(&o.payload.signing_hash()?, &sig).ok_or(ArtifactError::Signature)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn receipts_and_offers_recover_to_their_signer_and_tampering_breaks_them() {
        let key = PrivateKeySigner::random();
        let receipt = ReceiptPayload {
            network: "eip155:8453".to_owned(),
            resource_url: "https://agentrep.example/api/agent/audit/0x01".to_owned(),
            payer: "0x857b06519e91e3a54538791bdbb0e22373e36b66".to_owned(),
            issued_at: 1_703_123_456,
            transaction: String::new(),
        }
        .sign(&key)
        .unwrap();
        assert_eq!(receipt_signer(&receipt), Ok(key.address()));
        let mut forged = receipt.clone();
        forged.payload.payer = "0x0000000000000000000000000000000000000001".to_owned();
        assert_ne!(receipt_signer(&forged), Ok(key.address()));
        let mut other_chain = receipt.clone();
        other_chain.payload.network = "eip155:84532".to_owned();
        assert_ne!(receipt_signer(&other_chain), Ok(key.address()));
        forged.payload.network = "base".to_owned();
        assert_eq!(receipt_signer(&forged), Err(ArtifactError::Network));

        let offer = OfferPayload {
            resource_url: "https://agentrep.example/api/agent/audit/0x01".to_owned(),
            scheme: "exact".to_owned(),
            network: "eip155:8453".to_owned(),
            asset: "0x833589fcd6edb6e08f4c7c32d4f71b54bda02913".to_owned(),
            pay_to: "0x209693bc6afc0c5328ba36faf03c514ef312287c".to_owned(),
            amount: "250000".to_owned(),
            max_timeout_seconds: 60,
            issued_at: 1_703_123_456,
        }
        .sign(&key)
        .unwrap();
        assert_eq!(offer_signer(&offer), Ok(key.address()));
        let mut cheaper = offer;
        cheaper.payload.amount = "1".to_owned();
        assert_ne!(offer_signer(&cheaper), Ok(key.address()));
    }
}
