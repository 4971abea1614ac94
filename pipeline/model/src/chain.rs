//! Chain facts every crate names the same way: the network agentrep scores and its USDC.

/// Base mainnet's chain id.
pub const BASE_CHAIN_ID: u64 = 8453;
/// Base mainnet in CAIP-2 form.
pub const BASE_CAIP2: &str = "eip155:8453";
/// Base mainnet's legacy x402 v1 network name.
pub const BASE_V1_NAME: &str = "base";
/// USDC on Base mainnet (checksummed).
pub const USDC_BASE: &str = "0x833589fCD6eDb6E08f4c7C32D4f71b54bdA02913";
/// USDC's EIP-712 domain name on Base.
pub const USDC_EIP712_NAME: &str = "USD Coin";
/// USDC's EIP-712 domain version on Base.
pub const USDC_EIP712_VERSION: &str = "2";

/// Base Sepolia's chain id.
pub const BASE_SEPOLIA_CHAIN_ID: u64 = 84532;
/// Base Sepolia in CAIP-2 form.
pub const BASE_SEPOLIA_CAIP2: &str = "eip155:84532";
/// Base Sepolia's legacy x402 v1 network name.
pub const BASE_SEPOLIA_V1_NAME: &str = "base-sepolia";
/// USDC on Base Sepolia (checksummed).
pub const USDC_BASE_SEPOLIA: &str = "0x036CbD53842c5426634e7929541eC2318f3dCF7e";
/// USDC's EIP-712 domain name on Base Sepolia ("USDC", not "USD Coin"; version "2" as on Base).
pub const USDC_SEPOLIA_EIP712_NAME: &str = "USDC";

/// ERC-8004 IdentityRegistry on Base mainnet.
pub const ERC8004_IDENTITY_REGISTRY: &str = "0x8004A169FB4a3325136EB29fA0ceB6D2e539a432";
/// ERC-8004 ReputationRegistry on Base mainnet.
pub const ERC8004_REPUTATION_REGISTRY: &str = "0x8004BAa17C55a88189AE136b182e5fdA19dE9b63";

/// A network a listing can name: its CAIP-2 id and the v1 names that mean it.
#[derive(Debug, Clone, Copy)]
pub struct Network {
    /// CAIP-2 id, or a CAIP-2 namespace prefix (`solana:`) for non-EVM chains.
    pub caip2: &'static str,
    /// Short names (`base`).
    pub names: &'static [&'static str],
}

/// Networks the interface filters by.
pub const NETWORKS: &[Network] = &[
    Network { caip2: BASE_CAIP2, names: &[BASE_V1_NAME] },
    Network { caip2: BASE_SEPOLIA_CAIP2, names: &[BASE_SEPOLIA_V1_NAME] },
    Network { caip2: "eip155:137", names: &["polygon"] },
    Network { caip2: "solana:", names: &["solana"] },
];

/// The CAIP-2 form of a listed network (`base` is the legacy name of `eip155:8453`).
pub fn caip2(network: &str) -> String {
    match NETWORKS.iter().find(|n| n.names.contains(&network)) {
        Some(n) if n.caip2.ends_with(':') => network.to_owned(),
        Some(n) => n.caip2.to_owned(),
        None => network.to_owned(),
    }
}

/// The CAIP-2 id or prefix a filter value (short name or CAIP-2 id) selects.
pub fn filter_prefix(value: &str) -> Option<&'static str> {
    NETWORKS.iter().find(|n| n.caip2 == value || n.names.contains(&value)).map(|n| n.caip2)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_and_ids() {
        assert_eq!(caip2("base"), BASE_CAIP2);
        assert_eq!(caip2("base-sepolia"), "eip155:84532");
        assert_eq!(caip2("eip155:8453"), BASE_CAIP2);
        assert_eq!(caip2("solana"), "solana");
        assert_eq!(filter_prefix("base"), Some(BASE_CAIP2));
        assert_eq!(filter_prefix("eip155:8453"), Some(BASE_CAIP2));
        assert_eq!(filter_prefix("solana"), Some("solana:"));
        assert_eq!(filter_prefix("mars"), None);
    }
}
