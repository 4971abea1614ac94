//! Where payments settle: one chain, its EIP-3009 token, and the names x402 gives them.

use agentrep_model::chain::{
    BASE_CAIP2, BASE_CHAIN_ID, BASE_SEPOLIA_CAIP2, BASE_SEPOLIA_CHAIN_ID, BASE_SEPOLIA_V1_NAME, BASE_V1_NAME,
    USDC_BASE, USDC_BASE_SEPOLIA, USDC_EIP712_NAME, USDC_EIP712_VERSION, USDC_SEPOLIA_EIP712_NAME,
};
use alloy::primitives::Address;

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

fn constant(address: &str) -> Address {
    address.parse().expect("the chain constants are addresses")
}

impl PaymentNetwork {
    /// USDC on Base mainnet: real money (the constants of `agentrep_model::chain`).
    pub fn base() -> Self {
        Self {
            caip2: BASE_CAIP2.to_owned(),
            v1_name: Some(BASE_V1_NAME.to_owned()),
            chain_id: BASE_CHAIN_ID,
            asset: constant(USDC_BASE),
            token_name: USDC_EIP712_NAME.to_owned(),
            token_version: USDC_EIP712_VERSION.to_owned(),
        }
    }

    /// USDC on Base Sepolia (testnet; the token's domain name is "USDC", not "USD Coin").
    pub fn base_sepolia() -> Self {
        Self {
            caip2: BASE_SEPOLIA_CAIP2.to_owned(),
            v1_name: Some(BASE_SEPOLIA_V1_NAME.to_owned()),
            chain_id: BASE_SEPOLIA_CHAIN_ID,
            asset: constant(USDC_BASE_SEPOLIA),
            token_name: USDC_SEPOLIA_EIP712_NAME.to_owned(),
            token_version: USDC_EIP712_VERSION.to_owned(),
        }
    }

    /// Whether a network name from a payload is this one (its CAIP-2 id, or its v1 name).
    pub fn is_named(&self, name: &str) -> bool {
        name == self.caip2 || self.v1_name.as_deref() == Some(name)
    }
}
