//! Where payments settle: one chain, its EIP-3009 token, and the names x402 gives them.

use alloy::primitives::{Address, address};

/// A payment network and asset, as the terms quote them and the signature commits to them.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PaymentNetwork {
    /// CAIP-2 id, as v2 names networks (`eip155:8453`).
    pub caip2: String,
    /// The v1 name (`base`), when v1 buyers know this network; without one no v1 terms are
    /// offered (v1 clients refuse CAIP-2 ids).
    pub v1_name: Option<String>,
    /// EVM chain id (the EIP-712 domain's `chainId`).
    pub chain_id: u64,
    /// The EIP-3009 token (the EIP-712 domain's `verifyingContract`).
    pub asset: Address,
    /// The token's EIP-712 domain `name` (`extra.name` in the terms).
    pub token_name: String,
    /// The token's EIP-712 domain `version` (`extra.version` in the terms).
    pub token_version: String,
}

/// USDC on Base.
pub const USDC_BASE: Address = address!("0x833589fCD6eDb6E08f4c7C32D4f71b54bdA02913");
/// USDC on Base Sepolia.
pub const USDC_BASE_SEPOLIA: Address = address!("0x036CbD53842c5426634e7929541eC2318f3dCF7e");

impl PaymentNetwork {
    /// USDC on Base mainnet: real money.
    pub fn base() -> Self {
        Self {
            caip2: "eip155:8453".to_owned(),
            v1_name: Some("base".to_owned()),
            chain_id: 8453,
            asset: USDC_BASE,
            token_name: "USD Coin".to_owned(),
            token_version: "2".to_owned(),
        }
    }

    /// USDC on Base Sepolia (testnet; the token's domain name is "USDC", not "USD Coin").
    pub fn base_sepolia() -> Self {
        Self {
            caip2: "eip155:84532".to_owned(),
            v1_name: Some("base-sepolia".to_owned()),
            chain_id: 84532,
            asset: USDC_BASE_SEPOLIA,
            token_name: "USDC".to_owned(),
            token_version: "2".to_owned(),
        }
    }

    /// Whether a network name from a payload is this one (its CAIP-2 id, or its v1 name).
    pub fn is_named(&self, name: &str) -> bool {
        name == self.caip2 || self.v1_name.as_deref() == Some(name)
    }
}
