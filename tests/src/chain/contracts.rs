//! The project's contract test doubles (`contracts/artifacts`): where each is placed, its runtime
//! code, and typed bindings of the functions and events the replayer uses.
//!
//! The bindings are declared by hand (the artifacts' overloads would otherwise get numbered names);
//! a unit test checks every selector and event topic against the artifacts' ABIs.

use alloy::primitives::{Address, B256, Bytes, address, b256};

/// USDC on Base (the FiatToken double).
pub const USDC: Address = address!("0x833589fCD6eDb6E08f4c7C32D4f71b54bdA02913");
/// ERC-8004 IdentityRegistry on Base.
pub const IDENTITY_REGISTRY: Address = address!("0x8004A169FB4a3325136EB29fA0ceB6D2e539a432");
/// ERC-8004 ReputationRegistry on Base.
pub const REPUTATION_REGISTRY: Address = address!("0x8004BAa17C55a88189AE136b182e5fdA19dE9b63");
/// EAS predeploy.
pub const EAS: Address = address!("0x4200000000000000000000000000000000000021");
/// Clanker v4 factory on Base.
pub const CLANKER_FACTORY: Address = address!("0xE85A59c628F7d27878ACeB4bf3b35733630083a9");
/// Uniswap v4 PoolManager on Base.
pub const POOL_MANAGER: Address = address!("0x498581fF718922c3f8e6A244956aF099B2652b2b");
/// WETH on Base (the paired token of every launch; no code on the local chain).
pub const WETH: Address = address!("0x4200000000000000000000000000000000000006");
/// Coinbase Verifications attester on Base.
pub const COINBASE_ATTESTER: Address = address!("0x357458739F90461b99789350868CD7CF330Dd7EE");
/// Coinbase "Verified Account" schema on Base.
pub const VERIFIED_ACCOUNT_SCHEMA: B256 = b256!("0xf8b05c79f090979bf4a80270aba232dff11a10d9ca55c4f88de95317970f0de9");
/// x402ExactPermit2Proxy on Base (its double: the Transfer, then `Settled()`).
pub const EXACT_PERMIT2_PROXY: Address = address!("0x402085c248EeA27D92E8b30b2C58ed07f9E20001");
/// x402UptoPermit2Proxy on Base.
pub const UPTO_PERMIT2_PROXY: Address = address!("0x4020A4f3b7b90ccA423B9fabCc0CE57C6C240002");
/// x402BatchSettlement on Base.
pub const BATCH_SETTLEMENT: Address = address!("0x4020074e9dF2ce1deE5A9C1b5c3f541D02a10003");
/// base/commerce-payments AuthCaptureEscrow v1.0 on Base.
pub const AUTH_CAPTURE_ESCROW: Address = address!("0xBdEA0D1bcC5966192B070Fdf62aB4EF5b4420cff");
/// Chain id of Base, which anvil runs with.
pub const CHAIN_ID: u64 = 8453;

/// Total supply of every launched token, in wei (100B tokens of 18 decimals).
pub const TOKEN_SUPPLY: u128 = 100_000_000_000 * 10u128.pow(18);
/// The creator's allocation of every launched token (10 % of the supply), in wei.
pub const CREATOR_ALLOCATION: u128 = TOKEN_SUPPLY / 10;

/// Other contract (or contract-like) addresses the world may mention that are never mapped: USDC on
/// Base Sepolia, EURC on Base and the Clanker LP locker.
const OTHER_CONTRACTS: [Address; 3] = [
    address!("0x036CbD53842c5426634e7929541eC2318f3dCF7e"),
    address!("0x60a3e35cc302bfa44cb288bc5a4f316fdb1adb42"),
    address!("0x29d17C1A8D851d7d4cA97FAe97AcAdb398D9cCE0"),
];

/// Whether the replay leaves `a` as it is: a contract address, the Coinbase attester (impersonated,
/// it has no key) or the zero address.
pub fn is_unmapped(a: Address) -> bool {
    a.is_zero()
        || PLACED.iter().any(|c| c.address == a)
        || [WETH, COINBASE_ATTESTER].contains(&a)
        || OTHER_CONTRACTS.contains(&a)
}

/// A contract placed with `anvil_setCode`.
#[derive(Debug, Clone, Copy)]
pub struct Placed {
    /// Artifact name.
    pub name: &'static str,
    /// Where it is placed.
    pub address: Address,
    /// The artifact JSON (abi, bytecode, deployedBytecode).
    pub artifact: &'static str,
}

/// Every contract the replay places, as `contracts/artifacts/addresses.json` says.
pub const PLACED: [Placed; 10] = [
    Placed { name: "FiatToken", address: USDC, artifact: include_str!("../../../contracts/artifacts/FiatToken.json") },
    Placed {
        name: "IdentityRegistry",
        address: IDENTITY_REGISTRY,
        artifact: include_str!("../../../contracts/artifacts/IdentityRegistry.json"),
    },
    Placed {
        name: "ReputationRegistry",
        address: REPUTATION_REGISTRY,
        artifact: include_str!("../../../contracts/artifacts/ReputationRegistry.json"),
    },
    Placed { name: "EAS", address: EAS, artifact: include_str!("../../../contracts/artifacts/EAS.json") },
    Placed {
        name: "ClankerFactory",
        address: CLANKER_FACTORY,
        artifact: include_str!("../../../contracts/artifacts/ClankerFactory.json"),
    },
    Placed {
        name: "PoolManager",
        address: POOL_MANAGER,
        artifact: include_str!("../../../contracts/artifacts/PoolManager.json"),
    },
    Placed {
        name: "ExactPermit2ProxyDouble",
        address: EXACT_PERMIT2_PROXY,
        artifact: include_str!("../../../contracts/artifacts/ExactPermit2ProxyDouble.json"),
    },
    Placed {
        name: "UptoPermit2ProxyDouble",
        address: UPTO_PERMIT2_PROXY,
        artifact: include_str!("../../../contracts/artifacts/UptoPermit2ProxyDouble.json"),
    },
    Placed {
        name: "BatchSettlementDouble",
        address: BATCH_SETTLEMENT,
        artifact: include_str!("../../../contracts/artifacts/BatchSettlementDouble.json"),
    },
    Placed {
        name: "AuthCaptureEscrowDouble",
        address: AUTH_CAPTURE_ESCROW,
        artifact: include_str!("../../../contracts/artifacts/AuthCaptureEscrowDouble.json"),
    },
];

/// The LaunchToken artifact (deployed by the factory, never placed).
pub const LAUNCH_TOKEN_ARTIFACT: &str = include_str!("../../../contracts/artifacts/LaunchToken.json");

/// `addresses.json`, to check [`PLACED`] against.
pub const ADDRESSES_JSON: &str = include_str!("../../../contracts/artifacts/addresses.json");

impl Placed {
    /// The runtime code (`deployedBytecode`).
    ///
    /// # Panics
    /// When the artifact is malformed (a bug in the committed artifacts).
    pub fn runtime_code(&self) -> Bytes {
        let json: serde_json::Value = serde_json::from_str(self.artifact).expect("artifact is JSON");
        let code = json["deployedBytecode"].as_str().expect("artifact has deployedBytecode");
        code.parse().expect("deployedBytecode is hex")
    }
}

pub use bindings::*;

/// The `sol!` bindings (generated code: constructors with many arguments).
#[allow(clippy::too_many_arguments, missing_docs)]
mod bindings {
    use alloy::sol;

    sol! {
        /// The settlement-form doubles (`contracts/src/SettlementForms.sol`), as the published
        /// contracts take their calls.
        interface ISettlementForms {
            struct PaymentInfo { address operator; address payer; address receiver; address token; uint120 maxAmount; uint48 preApprovalExpiry; uint48 authorizationExpiry; uint48 refundExpiry; uint16 minFeeBps; uint16 maxFeeBps; address feeReceiver; uint256 salt; }
            struct ChannelConfig { address payer; address payerAuthorizer; address receiver; address receiverAuthorizer; address token; uint40 withdrawDelay; bytes32 salt; }
            struct Voucher { ChannelConfig channel; uint128 maxClaimableAmount; }
            struct VoucherClaim { Voucher voucher; bytes signature; uint128 totalClaimed; }
            event PaymentCharged(bytes32 indexed paymentInfoHash, PaymentInfo paymentInfo, uint256 amount, address tokenCollector, uint16 feeBps, address feeReceiver);
            event ChannelCreated(bytes32 indexed channelId, ChannelConfig config);
            event Deposited(bytes32 indexed channelId, address indexed sender, uint128 amount, uint128 newBalance);
            event Claimed(bytes32 indexed channelId, address indexed sender, uint128 claimAmount, uint128 newTotalClaimed);
            event Settled();
            function settle(address owner, address to, uint256 amount) external;
            function authorize(PaymentInfo paymentInfo, uint256 amount, address tokenCollector, bytes collectorData) external;
            function charge(PaymentInfo paymentInfo, uint256 amount, address tokenCollector, bytes collectorData, uint16 feeBps, address feeReceiver) external;
            function capture(PaymentInfo paymentInfo, uint256 amount, uint16 feeBps, address feeReceiver) external;
            function void(PaymentInfo paymentInfo) external;
            function refund(PaymentInfo paymentInfo, uint256 amount, address tokenCollector, bytes collectorData) external;
            function deposit(ChannelConfig config, uint128 amount, address collector, bytes collectorData) external;
            function claimWithSignature(VoucherClaim[] voucherClaims, bytes authorizerSignature) external;
            function settle(address receiver, address token) external;
            function multicall(bytes[] data) external returns (bytes[] results);
        }
    }

    sol! {
        /// USDC (FiatToken double).
        interface IFiatToken {
            event Transfer(address indexed from, address indexed to, uint256 value);
            event AuthorizationUsed(address indexed authorizer, bytes32 indexed nonce);
            function transfer(address to, uint256 value) external returns (bool);
            function transferFrom(address from, address to, uint256 value) external returns (bool);
            function approve(address spender, uint256 value) external returns (bool);
            function mint(address to, uint256 amount) external returns (bool);
            function balanceOf(address account) external view returns (uint256);
            function transferWithAuthorization(
                address from,
                address to,
                uint256 value,
                uint256 validAfter,
                uint256 validBefore,
                bytes32 nonce,
                uint8 v,
                bytes32 r,
                bytes32 s
            ) external;
        }

        /// ERC-8004 IdentityRegistry double.
        interface IIdentityRegistry {
            event Transfer(address indexed from, address indexed to, uint256 indexed tokenId);
            event Registered(uint256 indexed agentId, string agentURI, address indexed owner);
            event MetadataSet(uint256 indexed agentId, string indexed indexedMetadataKey, string metadataKey, bytes metadataValue);
            function register(string agentURI) external returns (uint256 agentId);
            function setAgentWallet(uint256 agentId, address newWallet) external;
            function transferFrom(address from, address to, uint256 agentId) external;
            function getAgentWallet(uint256 agentId) external view returns (address wallet);
            function ownerOf(uint256 agentId) external view returns (address owner);
        }

        /// ERC-8004 ReputationRegistry double.
        interface IReputationRegistry {
            event NewFeedback(
                uint256 indexed agentId,
                address indexed clientAddress,
                uint64 feedbackIndex,
                int128 value,
                uint8 valueDecimals,
                string indexed indexedTag1,
                string tag1,
                string tag2,
                string endpoint,
                string feedbackURI,
                bytes32 feedbackHash
            );
            event FeedbackRevoked(uint256 indexed agentId, address indexed clientAddress, uint64 indexed feedbackIndex);
            function giveFeedback(
                uint256 agentId,
                int128 value,
                uint8 valueDecimals,
                string tag1,
                string tag2,
                string endpoint,
                string feedbackURI,
                bytes32 feedbackHash
            ) external;
            function revokeFeedback(uint256 agentId, uint64 feedbackIndex) external;
            function getLastIndex(uint256 agentId, address clientAddress) external view returns (uint64);
        }

        /// EAS double.
        interface IEAS {
            event Attested(address indexed recipient, address indexed attester, bytes32 uid, bytes32 indexed schemaUID);
            function attest(address recipient, bytes32 schema, bytes data) external returns (bytes32 uid);
        }

        /// Clanker v4 factory double.
        #[sol(all_derives)]
        interface IClankerFactory {
            event TokenCreated(
                address msgSender,
                address indexed tokenAddress,
                address indexed tokenAdmin,
                string tokenImage,
                string tokenName,
                string tokenSymbol,
                string tokenMetadata,
                string tokenContext,
                int24 startingTick,
                address poolHook,
                bytes32 poolId,
                address pairedToken,
                address locker,
                address mevModule,
                uint256 extensionsSupply,
                address[] extensions
            );
            function deployToken(string name, string symbol, address tokenAdmin, string tokenContext)
                external
                returns (address tokenAddress);
            function predictToken(string name, string symbol, address tokenAdmin, string tokenContext)
                external
                view
                returns (address);
            function poolIdFor(address token) external pure returns (bytes32);
        }

        /// Uniswap v4 PoolManager double.
        interface IPoolManager {
            event Swap(
                bytes32 indexed id,
                address indexed sender,
                int128 amount0,
                int128 amount1,
                uint160 sqrtPriceX96,
                uint128 liquidity,
                int24 tick,
                uint24 fee
            );
            function swap(
                bytes32 poolId,
                address token,
                int128 amount0,
                int128 amount1,
                uint160 sqrtPriceX96,
                uint128 liquidity,
                int24 tick,
                uint24 fee,
                address trader
            ) external;
        }

        /// A launched token.
        interface ILaunchToken {
            event Transfer(address indexed from, address indexed to, uint256 value);
            function balanceOf(address account) external view returns (uint256);
            function transfer(address to, uint256 value) external returns (bool);
        }
    }
}

#[cfg(test)]
mod tests {
    use alloy::json_abi::JsonAbi;
    use alloy::sol_types::{SolCall, SolEvent};

    use super::*;

    fn abi(artifact: &str) -> JsonAbi {
        let json: serde_json::Value = serde_json::from_str(artifact).expect("artifact is JSON");
        serde_json::from_value(json["abi"].clone()).expect("abi parses")
    }

    fn has_function(abi: &JsonAbi, selector: [u8; 4]) -> bool {
        abi.functions().any(|f| f.selector() == selector)
    }

    fn has_event(abi: &JsonAbi, topic: B256) -> bool {
        abi.events().any(|e| e.selector() == topic)
    }

    #[test]
    fn placed_contracts_match_addresses_json() {
        let json: serde_json::Value = serde_json::from_str(ADDRESSES_JSON).expect("addresses.json");
        let map = json.as_object().expect("object");
        assert_eq!(map.len(), PLACED.len());
        for p in PLACED {
            let a: Address = map[p.name].as_str().expect("string").parse().expect("address");
            assert_eq!(a, p.address, "{}", p.name);
            assert!(p.runtime_code().len() > 100, "{} has runtime code", p.name);
        }
    }

    #[test]
    fn bindings_match_the_artifacts() {
        let usdc = abi(PLACED[0].artifact);
        for s in [
            IFiatToken::transferCall::SELECTOR,
            IFiatToken::transferFromCall::SELECTOR,
            IFiatToken::approveCall::SELECTOR,
            IFiatToken::mintCall::SELECTOR,
            IFiatToken::balanceOfCall::SELECTOR,
            IFiatToken::transferWithAuthorizationCall::SELECTOR,
        ] {
            assert!(has_function(&usdc, s), "FiatToken {s:?}");
        }
        assert!(has_event(&usdc, IFiatToken::Transfer::SIGNATURE_HASH));
        assert!(has_event(&usdc, IFiatToken::AuthorizationUsed::SIGNATURE_HASH));
        let id = abi(PLACED[1].artifact);
        for s in [
            IIdentityRegistry::registerCall::SELECTOR,
            IIdentityRegistry::setAgentWalletCall::SELECTOR,
            IIdentityRegistry::transferFromCall::SELECTOR,
            IIdentityRegistry::getAgentWalletCall::SELECTOR,
            IIdentityRegistry::ownerOfCall::SELECTOR,
        ] {
            assert!(has_function(&id, s), "IdentityRegistry {s:?}");
        }
        for t in [
            IIdentityRegistry::Transfer::SIGNATURE_HASH,
            IIdentityRegistry::Registered::SIGNATURE_HASH,
            IIdentityRegistry::MetadataSet::SIGNATURE_HASH,
        ] {
            assert!(has_event(&id, t));
        }
        let rep = abi(PLACED[2].artifact);
        for s in [
            IReputationRegistry::giveFeedbackCall::SELECTOR,
            IReputationRegistry::revokeFeedbackCall::SELECTOR,
            IReputationRegistry::getLastIndexCall::SELECTOR,
        ] {
            assert!(has_function(&rep, s), "ReputationRegistry {s:?}");
        }
        assert!(has_event(&rep, IReputationRegistry::NewFeedback::SIGNATURE_HASH));
        assert!(has_event(&rep, IReputationRegistry::FeedbackRevoked::SIGNATURE_HASH));
        let eas = abi(PLACED[3].artifact);
        assert!(has_function(&eas, IEAS::attestCall::SELECTOR));
        assert!(has_event(&eas, IEAS::Attested::SIGNATURE_HASH));
        let factory = abi(PLACED[4].artifact);
        for s in [
            IClankerFactory::deployTokenCall::SELECTOR,
            IClankerFactory::predictTokenCall::SELECTOR,
            IClankerFactory::poolIdForCall::SELECTOR,
        ] {
            assert!(has_function(&factory, s), "ClankerFactory {s:?}");
        }
        assert!(has_event(&factory, IClankerFactory::TokenCreated::SIGNATURE_HASH));
        let pool = abi(PLACED[5].artifact);
        assert!(has_function(&pool, IPoolManager::swapCall::SELECTOR));
        assert!(has_event(&pool, IPoolManager::Swap::SIGNATURE_HASH));
        let token = abi(LAUNCH_TOKEN_ARTIFACT);
        assert!(has_function(&token, ILaunchToken::balanceOfCall::SELECTOR));
        assert!(has_function(&token, ILaunchToken::transferCall::SELECTOR));
        assert!(has_event(&token, ILaunchToken::Transfer::SIGNATURE_HASH));
    }
}
