//! The events and calls the chain sources read, declared once with their canonical signatures
//! (`../shared/reference/onchain.md`; a test checks each topic0 against the reference's appendix).

#![allow(missing_docs)]

use alloy::sol;

sol! {
    /// USDC (FiatTokenV2_2, EIP-3009).
    #[derive(Debug)]
    event Transfer(address indexed from, address indexed to, uint256 value);
    #[derive(Debug)]
    event AuthorizationUsed(address indexed authorizer, bytes32 indexed nonce);
    /// USDC's EIP-3009 calls, each with a (v, r, s) and a bytes signature; `from` is the payer.
    function transferWithAuthorization(address from, address to, uint256 value, uint256 validAfter, uint256 validBefore, bytes32 nonce, uint8 v, bytes32 r, bytes32 s) external;
    function transferWithAuthorization(address from, address to, uint256 value, uint256 validAfter, uint256 validBefore, bytes32 nonce, bytes signature) external;
    function receiveWithAuthorization(address from, address to, uint256 value, uint256 validAfter, uint256 validBefore, bytes32 nonce, uint8 v, bytes32 r, bytes32 s) external;
    function receiveWithAuthorization(address from, address to, uint256 value, uint256 validAfter, uint256 validBefore, bytes32 nonce, bytes signature) external;

    /// x402 exact Permit2 proxy.
    #[derive(Debug)]
    event Settled();

    /// ERC-8004 IdentityRegistry.
    #[derive(Debug)]
    event Registered(uint256 indexed agentId, string agentURI, address indexed owner);
    #[derive(Debug)]
    event URIUpdated(uint256 indexed agentId, string newURI, address indexed updatedBy);
    #[derive(Debug)]
    event MetadataSet(uint256 indexed agentId, string indexed indexedMetadataKey, string metadataKey, bytes metadataValue);

    /// ERC-8004 ReputationRegistry.
    #[derive(Debug)]
    event NewFeedback(uint256 indexed agentId, address indexed clientAddress, uint64 feedbackIndex, int128 value, uint8 valueDecimals, string indexed indexedTag1, string tag1, string tag2, string endpoint, string feedbackURI, bytes32 feedbackHash);
    #[derive(Debug)]
    event FeedbackRevoked(uint256 indexed agentId, address indexed clientAddress, uint64 indexed feedbackIndex);
    #[derive(Debug)]
    event ResponseAppended(uint256 indexed agentId, address indexed clientAddress, uint64 feedbackIndex, address indexed responder, string responseURI, bytes32 responseHash);

    /// EAS.
    #[derive(Debug)]
    event Attested(address indexed recipient, address indexed attester, bytes32 uid, bytes32 indexed schemaUID);
    #[derive(Debug)]
    event Revoked(address indexed recipient, address indexed attester, bytes32 uid, bytes32 indexed schemaUID);

    /// ENS L2ReverseRegistrar (ENSIP-19).
    #[derive(Debug)]
    event NameForAddrChanged(address indexed addr, string name);

    /// Clanker v4 factory.
    #[derive(Debug)]
    event TokenCreated(address msgSender, address indexed tokenAddress, address indexed tokenAdmin, string tokenImage, string tokenName, string tokenSymbol, string tokenMetadata, string tokenContext, int24 startingTick, address poolHook, bytes32 poolId, address pairedToken, address locker, address mevModule, uint256 extensionsSupply, address[] extensions);

    /// Zora coin factory (v4 coins).
    #[derive(Debug)]
    struct PoolKey { address currency0; address currency1; uint24 fee; int24 tickSpacing; address hooks; }
    #[derive(Debug)]
    event CoinCreatedV4(address indexed caller, address indexed payoutRecipient, address indexed platformReferrer, address currency, string uri, string name, string symbol, address coin, PoolKey poolKey, bytes32 poolKeyHash, string version);

    /// Virtuals Bonding.
    #[derive(Debug)]
    event Launched(address indexed token, address indexed pair, uint256 index);

    /// Uniswap v4 PoolManager.
    #[derive(Debug)]
    event Swap(bytes32 indexed id, address indexed sender, int128 amount0, int128 amount1, uint160 sqrtPriceX96, uint128 liquidity, int24 tick, uint24 fee);
    #[derive(Debug)]
    event ModifyLiquidity(bytes32 indexed id, address indexed sender, int24 tickLower, int24 tickUpper, int256 liquidityDelta, bytes32 salt);

    /// Views read at the end of a run.
    function readFeedback(uint256 agentId, address clientAddress, uint64 feedbackIndex) external view returns (int128 value, uint8 valueDecimals, string tag1, string tag2, bool isRevoked);
    function addr(bytes32 node) external view returns (address);
    function balanceOf(address owner) external view returns (uint256);
}

#[cfg(test)]
mod tests {
    use alloy::primitives::b256;
    use alloy::sol_types::SolEvent;

    use super::*;

    #[test]
    fn topics_match_the_reference_appendix() {
        let cases = [
            (Transfer::SIGNATURE_HASH, b256!("0xddf252ad1be2c89b69c2b068fc378daa952ba7f163c4a11628f55a4df523b3ef")),
            (
                AuthorizationUsed::SIGNATURE_HASH,
                b256!("0x98de503528ee59b575ef0c0a2576a82497bfc029a5685b209e9ec333479b10a5"),
            ),
            (Settled::SIGNATURE_HASH, b256!("0x97088ec3606cfe8cc112180570d03fcde05f9b8e1bfef8e27784eaf5dd5691b6")),
            (Registered::SIGNATURE_HASH, b256!("0xca52e62c367d81bb2e328eb795f7c7ba24afb478408a26c0e201d155c449bc4a")),
            (MetadataSet::SIGNATURE_HASH, b256!("0x2c149ed548c6d2993cd73efe187df6eccabe4538091b33adbd25fafdb8a1468b")),
            (URIUpdated::SIGNATURE_HASH, b256!("0x3a2c7fffc2cba7582c690e3b82c453ea02a308326a98a3ad7576c606336409fb")),
            (NewFeedback::SIGNATURE_HASH, b256!("0x6a4a61743519c9d648a14e6493f47dbe3ff1aa29e7785c96c8326a205e58febc")),
            (
                FeedbackRevoked::SIGNATURE_HASH,
                b256!("0x25156fd3288212246d8b008d5921fde376c71ed14ac2e072a506eb06fde6d09d"),
            ),
            (
                ResponseAppended::SIGNATURE_HASH,
                b256!("0xb1c6be0b5b8aef6539e2fac0fd131a2faa7b49edf8e505b5eb0ad487d56051d4"),
            ),
            (Attested::SIGNATURE_HASH, b256!("0x8bf46bf4cfd674fa735a3d63ec1c9ad4153f033c290341f3a588b75685141b35")),
            (Revoked::SIGNATURE_HASH, b256!("0xf930a6e2523c9cc298691873087a740550b8fc85a0680830414c148ed927f615")),
            (
                NameForAddrChanged::SIGNATURE_HASH,
                b256!("0x8af7a4c7007a33f680904f3b64733396b730fef22d79555dee29801ca2e479a9"),
            ),
            (TokenCreated::SIGNATURE_HASH, b256!("0x9299d1d1a88d8e1abdc591ae7a167a6bc63a8f17d695804e9091ee33aa89fb67")),
            (
                CoinCreatedV4::SIGNATURE_HASH,
                b256!("0x2de436107c2096e039c98bbcc3c5a2560583738ce15c234557eecb4d3221aa81"),
            ),
            (Launched::SIGNATURE_HASH, b256!("0x714aa39317ad9a7a7a99db52b44490da5d068a0b2710fffb1a1282ad3cadae1f")),
            (Swap::SIGNATURE_HASH, b256!("0x40e9cecb9f5f1f1c5b9c97dec2917b7ee92e57ba5563708daca94dd84ad7112f")),
            (
                ModifyLiquidity::SIGNATURE_HASH,
                b256!("0xf208f4912782fd25c7f114ca3723a2d5dd6f3bcc3ac8db5af63baa85f711d5ec"),
            ),
        ];
        for (i, (ours, reference)) in cases.iter().enumerate() {
            assert_eq!(ours, reference, "event {i}");
        }
    }

    #[test]
    fn eip3009_selectors_are_usdcs() {
        use alloy::sol_types::SolCall;
        assert_eq!(transferWithAuthorization_0Call::SELECTOR, [0xe3, 0xee, 0x16, 0x0e]);
        assert_eq!(transferWithAuthorization_1Call::SELECTOR, [0xcf, 0x09, 0x29, 0x95]);
        assert_eq!(receiveWithAuthorization_0Call::SELECTOR, [0xef, 0x55, 0xbe, 0xc6]);
        assert_eq!(receiveWithAuthorization_1Call::SELECTOR, [0x88, 0xb7, 0xab, 0x63]);
    }
}
