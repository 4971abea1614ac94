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

    /// x402 exact and upto Permit2 proxies: no arguments; the token's Transfer in the same
    /// transaction (payer to payTo, directly) is the payment.
    #[derive(Debug)]
    event Settled();
    #[derive(Debug)]
    event SettledWithPermit();

    /// x402 batch settlement (payment channels): a channel's configuration, hashed (EIP-712) into
    /// its id.
    #[derive(Debug, PartialEq, Eq)]
    struct ChannelConfig { address payer; address payerAuthorizer; address receiver; address receiverAuthorizer; address token; uint40 withdrawDelay; bytes32 salt; }
    #[derive(Debug)]
    struct Voucher { ChannelConfig channel; uint128 maxClaimableAmount; }
    #[derive(Debug)]
    struct VoucherClaim { Voucher voucher; bytes signature; uint128 totalClaimed; }
    /// Emitted when a channel is first funded.
    #[derive(Debug)]
    event ChannelCreated(bytes32 indexed channelId, ChannelConfig config);
    /// One per channel whose claimed total a claim raises; `claimAmount` is the increase.
    #[derive(Debug)]
    event Claimed(bytes32 indexed channelId, address indexed sender, uint128 claimAmount, uint128 newTotalClaimed);
    function claim(VoucherClaim[] voucherClaims) external;
    function claimWithSignature(VoucherClaim[] voucherClaims, bytes authorizerSignature) external;
    /// OpenZeppelin's Multicall (claim and settle in one transaction).
    function multicall(bytes[] data) external returns (bytes[] results);

    /// base/commerce-payments AuthCaptureEscrow: every call takes the payment's `PaymentInfo`
    /// first; only `PaymentAuthorized` and `PaymentCharged` carry it, the other events its hash.
    #[derive(Debug, PartialEq, Eq)]
    struct PaymentInfo { address operator; address payer; address receiver; address token; uint120 maxAmount; uint48 preApprovalExpiry; uint48 authorizationExpiry; uint48 refundExpiry; uint16 minFeeBps; uint16 maxFeeBps; address feeReceiver; uint256 salt; }
    #[derive(Debug)]
    event PaymentAuthorized(bytes32 indexed paymentInfoHash, PaymentInfo paymentInfo, uint256 amount, address tokenCollector);
    #[derive(Debug)]
    event PaymentVoided(bytes32 indexed paymentInfoHash, uint256 amount);
    #[derive(Debug)]
    event PaymentReclaimed(bytes32 indexed paymentInfoHash, uint256 amount);
    #[derive(Debug)]
    event PaymentRefunded(bytes32 indexed paymentInfoHash, uint256 amount, address tokenCollector);
    /// The escrow's events whose fee field v1.1 changed from basis points to an amount.
    interface escrow_v1_0 {
        #[derive(Debug)]
        event PaymentCharged(bytes32 indexed paymentInfoHash, PaymentInfo paymentInfo, uint256 amount, address tokenCollector, uint16 feeBps, address feeReceiver);
        #[derive(Debug)]
        event PaymentCaptured(bytes32 indexed paymentInfoHash, uint256 amount, uint16 feeBps, address feeReceiver);
    }
    /// AuthCaptureEscrow v1.1 (base/commerce-payments#90): an absolute `feeAmount`.
    interface escrow_v1_1 {
        #[derive(Debug)]
        event PaymentCharged(bytes32 indexed paymentInfoHash, PaymentInfo paymentInfo, uint256 amount, address tokenCollector, uint256 feeAmount, address feeReceiver);
        #[derive(Debug)]
        event PaymentCaptured(bytes32 indexed paymentInfoHash, uint256 amount, uint256 feeAmount, address feeReceiver);
    }

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

/// The escrow's `PAYMENT_INFO_TYPEHASH` preimage (base/commerce-payments `AuthCaptureEscrow`).
const PAYMENT_INFO_TYPE: &str = "PaymentInfo(address operator,address payer,address receiver,address token,uint120 maxAmount,uint48 preApprovalExpiry,uint48 authorizationExpiry,uint48 refundExpiry,uint16 minFeeBps,uint16 maxFeeBps,address feeReceiver,uint256 salt)";

impl PaymentInfo {
    /// The hash the escrow at `escrow` on `chain_id` gives this payment (its `getHash`): what its
    /// events name the payment by.
    pub fn escrow_hash(&self, chain_id: u64, escrow: alloy::primitives::Address) -> alloy::primitives::B256 {
        use alloy::primitives::{U256, keccak256};
        use alloy::sol_types::SolValue;
        let inner = keccak256((keccak256(PAYMENT_INFO_TYPE), self.clone()).abi_encode());
        keccak256((U256::from(chain_id), escrow, inner).abi_encode())
    }
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
            (
                SettledWithPermit::SIGNATURE_HASH,
                b256!("0xde5b89d10fc800c459329c382fabfcad0be0ed7e5328e01fae04e507b09ef5d8"),
            ),
            (
                ChannelCreated::SIGNATURE_HASH,
                b256!("0x69d8248d5566bdb2ebc4d218970710d8378a2ff9b709a999e052b71970f808fa"),
            ),
            (Claimed::SIGNATURE_HASH, b256!("0x36bd546bb573e8921fdbfd934bbed62d872796b01792cd240cce27f79dd3eddd")),
            (
                PaymentAuthorized::SIGNATURE_HASH,
                b256!("0x1c81fb2e3bab27f6bb09bee9a0dddf61600b7cbaf2c12683e4864e0cbdb9d284"),
            ),
            (
                escrow_v1_0::PaymentCharged::SIGNATURE_HASH,
                b256!("0x943ae4341dd799d7aeedc501f616cd26b134639e0bc2ec059581ba3ebbf1e7d0"),
            ),
            (
                escrow_v1_0::PaymentCaptured::SIGNATURE_HASH,
                b256!("0xe749f7bbd01b49bb05abf26ca492cb4dfdea6bedeada8a40fdccd478c73a74e2"),
            ),
            (
                escrow_v1_1::PaymentCharged::SIGNATURE_HASH,
                b256!("0x137b0e73e4453f43c2e1ad2552980a0e0c7e988764619974ca26d37a7159940c"),
            ),
            (
                escrow_v1_1::PaymentCaptured::SIGNATURE_HASH,
                b256!("0xac1e0db1957daedbc6944bcb4c8dc947ff8101d710671ac2ec26309f7f38d58e"),
            ),
            (
                PaymentVoided::SIGNATURE_HASH,
                b256!("0xcadce8c3acb008e3e1c64ca7f60d22a3c87069183182b7dbb9e4d8cfb3a15842"),
            ),
            (
                PaymentReclaimed::SIGNATURE_HASH,
                b256!("0x78e1d723d17e13b7f40eeab9bf6dd9148a630bafde4203ab7bb5fca983516d17"),
            ),
            (
                PaymentRefunded::SIGNATURE_HASH,
                b256!("0x1bf415371b303ca6b8bbb4ce479b177cba5ad15dbe0c9a7750a588aa6bcd25b2"),
            ),
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
        // x402BatchSettlement's claims and OpenZeppelin's multicall (x402-foundation/x402 #1950).
        assert_eq!(claimCall::SELECTOR, [0x29, 0x23, 0x7b, 0x0c]);
        assert_eq!(claimWithSignatureCall::SELECTOR, [0xe4, 0x3c, 0xe1, 0xf2]);
        assert_eq!(multicallCall::SELECTOR, [0xac, 0x96, 0x50, 0xd8]);
    }
}
