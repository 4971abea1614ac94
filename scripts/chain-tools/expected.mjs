// What the test-double contracts in contracts/src must look like from the outside, shared by
// scripts/compile-contracts.mjs (checked against the compiled ABIs) and scripts/chain-smoke.mjs (checked
// against real logs). Topic0 values are copied from /work/shared/reference/onchain.md (appendix, §1, §2, §3, §7);
// the three marked "standard" are the well-known ERC-20/ERC-721 values not listed in the appendix.

import path from 'node:path';
import { pathToFileURL } from 'node:url';

/** Base mainnet addresses the contracts are placed at with anvil_setCode (onchain.md §1, §2, §3, §7). */
export const ADDRESSES = {
  FiatToken: '0x833589fCD6eDb6E08f4c7C32D4f71b54bdA02913',
  IdentityRegistry: '0x8004A169FB4a3325136EB29fA0ceB6D2e539a432',
  ReputationRegistry: '0x8004BAa17C55a88189AE136b182e5fdA19dE9b63',
  EAS: '0x4200000000000000000000000000000000000021',
  ClankerFactory: '0xE85A59c628F7d27878ACeB4bf3b35733630083a9',
  PoolManager: '0x498581fF718922c3f8e6A244956aF099B2652b2b',
  // x402.md § 8: the x402 proxies, the batch settlement contract and the auth-capture escrow v1.0.
  ExactPermit2ProxyDouble: '0x402085c248EeA27D92E8b30b2C58ed07f9E20001',
  UptoPermit2ProxyDouble: '0x4020A4f3b7b90ccA423B9fabCc0CE57C6C240002',
  BatchSettlementDouble: '0x4020074e9dF2ce1deE5A9C1b5c3f541D02a10003',
  AuthCaptureEscrowDouble: '0xBdEA0D1bcC5966192B070Fdf62aB4EF5b4420cff',
};

export const TOPICS = {
  Transfer: '0xddf252ad1be2c89b69c2b068fc378daa952ba7f163c4a11628f55a4df523b3ef',
  Approval: '0x8c5be1e5ebec7d5bd14f71427d1e84f3dd0314c0f7b2291e5b200ac8c7c3b925', // standard
  ApprovalForAll: '0x17307eab39ab6107e8899845ad3d59bd9653f200f220920489ca2b5937696c31', // standard
  AuthorizationUsed: '0x98de503528ee59b575ef0c0a2576a82497bfc029a5685b209e9ec333479b10a5',
  AuthorizationCanceled: '0x1cdd46ff242716cdaa72d159d339a485b3438398348d68f09d7c8c0a59353d81', // §1 shows 0x1cdd46ff…3d81
  Registered: '0xca52e62c367d81bb2e328eb795f7c7ba24afb478408a26c0e201d155c449bc4a',
  MetadataSet: '0x2c149ed548c6d2993cd73efe187df6eccabe4538091b33adbd25fafdb8a1468b',
  URIUpdated: '0x3a2c7fffc2cba7582c690e3b82c453ea02a308326a98a3ad7576c606336409fb',
  NewFeedback: '0x6a4a61743519c9d648a14e6493f47dbe3ff1aa29e7785c96c8326a205e58febc',
  FeedbackRevoked: '0x25156fd3288212246d8b008d5921fde376c71ed14ac2e072a506eb06fde6d09d',
  ResponseAppended: '0xb1c6be0b5b8aef6539e2fac0fd131a2faa7b49edf8e505b5eb0ad487d56051d4',
  Attested: '0x8bf46bf4cfd674fa735a3d63ec1c9ad4153f033c290341f3a588b75685141b35',
  Revoked: '0xf930a6e2523c9cc298691873087a740550b8fc85a0680830414c148ed927f615',
  TokenCreated: '0x9299d1d1a88d8e1abdc591ae7a167a6bc63a8f17d695804e9091ee33aa89fb67',
  Swap: '0x40e9cecb9f5f1f1c5b9c97dec2917b7ee92e57ba5563708daca94dd84ad7112f',
  ModifyLiquidity: '0xf208f4912782fd25c7f114ca3723a2d5dd6f3bcc3ac8db5af63baa85f711d5ec',
  // x402.md § 8 and the published sources (x402-foundation/x402 contracts/evm, base/commerce-payments v1.0).
  Settled: '0x97088ec3606cfe8cc112180570d03fcde05f9b8e1bfef8e27784eaf5dd5691b6',
  SettledWithPermit: '0xde5b89d10fc800c459329c382fabfcad0be0ed7e5328e01fae04e507b09ef5d8',
  ChannelCreated: '0x69d8248d5566bdb2ebc4d218970710d8378a2ff9b709a999e052b71970f808fa',
  Deposited: '0x6c2a09353b5e75e70d0b9778b80a413809bb235d46c211811c474b3346791d89',
  Claimed: '0x36bd546bb573e8921fdbfd934bbed62d872796b01792cd240cce27f79dd3eddd',
  PaymentCharged: '0x943ae4341dd799d7aeedc501f616cd26b134639e0bc2ec059581ba3ebbf1e7d0',
  PaymentAuthorized: '0x1c81fb2e3bab27f6bb09bee9a0dddf61600b7cbaf2c12683e4864e0cbdb9d284',
  PaymentCaptured: '0xe749f7bbd01b49bb05abf26ca492cb4dfdea6bedeada8a40fdccd478c73a74e2',
  PaymentVoided: '0xcadce8c3acb008e3e1c64ca7f60d22a3c87069183182b7dbb9e4d8cfb3a15842',
  PaymentReclaimed: '0x78e1d723d17e13b7f40eeab9bf6dd9148a630bafde4203ab7bb5fca983516d17',
  PaymentRefunded: '0x1bf415371b303ca6b8bbb4ce479b177cba5ad15dbe0c9a7750a588aa6bcd25b2',
};

/** keccak256("agentWallet"): MetadataSet topic2 for the reserved agent-wallet key (onchain.md appendix). */
export const AGENT_WALLET_KEY_TOPIC = '0x2ac6109326e720d1435c0db66f7e35eda7839f52b6f1f5520a60788e132b4e39';

/** Every event each contract declares, exactly (types, `indexed`, names) as onchain.md gives them. */
export const EVENTS = {
  // agentrep's own attestation verifier: no events (its calls are views).
  ScoreVerifier: [],
  // agentrep's ERC-6492 simulator: never deployed, no events.
  CounterfactualCall: [],
  SignatureCheck: [],
  // The smart-wallet test doubles (ERC-1271 wallet, CREATE2 factory): no events.
  OwnedWallet: [],
  WalletFactory: [],
  FiatToken: [
    'Transfer(address indexed from, address indexed to, uint256 value)',
    'Approval(address indexed owner, address indexed spender, uint256 value)',
    'AuthorizationUsed(address indexed authorizer, bytes32 indexed nonce)',
    'AuthorizationCanceled(address indexed authorizer, bytes32 indexed nonce)',
  ],
  IdentityRegistry: [
    'Transfer(address indexed from, address indexed to, uint256 indexed tokenId)',
    'Approval(address indexed owner, address indexed approved, uint256 indexed tokenId)',
    'ApprovalForAll(address indexed owner, address indexed operator, bool approved)',
    'Registered(uint256 indexed agentId, string agentURI, address indexed owner)',
    'MetadataSet(uint256 indexed agentId, string indexed indexedMetadataKey, string metadataKey, bytes metadataValue)',
    'URIUpdated(uint256 indexed agentId, string newURI, address indexed updatedBy)',
  ],
  ReputationRegistry: [
    'NewFeedback(uint256 indexed agentId, address indexed clientAddress, uint64 feedbackIndex, int128 value, uint8 valueDecimals, string indexed indexedTag1, string tag1, string tag2, string endpoint, string feedbackURI, bytes32 feedbackHash)',
    'FeedbackRevoked(uint256 indexed agentId, address indexed clientAddress, uint64 indexed feedbackIndex)',
    'ResponseAppended(uint256 indexed agentId, address indexed clientAddress, uint64 feedbackIndex, address indexed responder, string responseURI, bytes32 responseHash)',
  ],
  EAS: [
    'Attested(address indexed recipient, address indexed attester, bytes32 uid, bytes32 indexed schemaUID)',
    'Revoked(address indexed recipient, address indexed attester, bytes32 uid, bytes32 indexed schemaUID)',
  ],
  ClankerFactory: [
    'TokenCreated(address msgSender, address indexed tokenAddress, address indexed tokenAdmin, string tokenImage, string tokenName, string tokenSymbol, string tokenMetadata, string tokenContext, int24 startingTick, address poolHook, bytes32 poolId, address pairedToken, address locker, address mevModule, uint256 extensionsSupply, address[] extensions)',
  ],
  PoolManager: [
    'Swap(bytes32 indexed id, address indexed sender, int128 amount0, int128 amount1, uint160 sqrtPriceX96, uint128 liquidity, int24 tick, uint24 fee)',
    'ModifyLiquidity(bytes32 indexed id, address indexed sender, int24 tickLower, int24 tickUpper, int256 liquidityDelta, bytes32 salt)',
  ],
  ExactPermit2ProxyDouble: ['Settled()'],
  UptoPermit2ProxyDouble: ['Settled()'],
  BatchSettlementDouble: [
    'ChannelCreated(bytes32 indexed channelId, (address,address,address,address,address,uint40,bytes32) config)',
    'Deposited(bytes32 indexed channelId, address indexed sender, uint128 amount, uint128 newBalance)',
    'Claimed(bytes32 indexed channelId, address indexed sender, uint128 claimAmount, uint128 newTotalClaimed)',
  ],
  AuthCaptureEscrowDouble: [
    'PaymentCharged(bytes32 indexed paymentInfoHash, (address,address,address,address,uint120,uint48,uint48,uint48,uint16,uint16,address,uint256) paymentInfo, uint256 amount, address tokenCollector, uint16 feeBps, address feeReceiver)',
    'PaymentAuthorized(bytes32 indexed paymentInfoHash, (address,address,address,address,uint120,uint48,uint48,uint48,uint16,uint16,address,uint256) paymentInfo, uint256 amount, address tokenCollector)',
    'PaymentCaptured(bytes32 indexed paymentInfoHash, uint256 amount, uint16 feeBps, address feeReceiver)',
    'PaymentVoided(bytes32 indexed paymentInfoHash, uint256 amount)',
    'PaymentReclaimed(bytes32 indexed paymentInfoHash, uint256 amount)',
    'PaymentRefunded(bytes32 indexed paymentInfoHash, uint256 amount, address tokenCollector)',
  ],
  LaunchToken: [
    'Transfer(address indexed from, address indexed to, uint256 value)',
    'Approval(address indexed owner, address indexed spender, uint256 value)',
  ],
};

/** Function selectors onchain.md pins (§1, §2, §3). */
export const SELECTORS = {
  FiatToken: {
    'transferWithAuthorization(address,address,uint256,uint256,uint256,bytes32,uint8,bytes32,bytes32)': 'e3ee160e',
    'transferWithAuthorization(address,address,uint256,uint256,uint256,bytes32,bytes)': 'cf092995',
    'receiveWithAuthorization(address,address,uint256,uint256,uint256,bytes32,uint8,bytes32,bytes32)': 'ef55bec6',
    'authorizationState(address,bytes32)': 'e94a0102',
  },
  IdentityRegistry: { 'getAgentWallet(uint256)': '00339509' },
  EAS: { 'getAttestation(bytes32)': 'a3112a64' },
  // The original service's verifier ABI (mainstreet-oracle sdk/verifier.js VERIFIER_ABI).
  // ERC-1271 (the token calls it on a contract payer).
  OwnedWallet: { 'isValidSignature(bytes32,bytes)': '1626ba7e' },
  ScoreVerifier: {
    'requireMinScore(bytes32,uint8,uint8,uint64,uint64,bytes)': '2c1234d9',
    'verifiedScore(bytes32,uint8,uint64,uint64,bytes)': 'c96517a3',
  },
};

/** Loads keccak_256 from the pinned @noble/hashes in .tools (installed by scripts/fetch-chain-tools.sh). */
export async function loadKeccak(root) {
  const file = path.join(root, '.tools', 'node_modules', '@noble', 'hashes', 'sha3.js');
  const { keccak_256 } = await import(pathToFileURL(file).href);
  return (data) => '0x' + Buffer.from(keccak_256(typeof data === 'string' ? Buffer.from(data, 'utf8') : data)).toString('hex');
}

/** Canonical type of an ABI parameter (tuples expanded). */
export function canonicalType(param) {
  if (param.type.startsWith('tuple')) {
    return '(' + param.components.map(canonicalType).join(',') + ')' + param.type.slice('tuple'.length);
  }
  return param.type;
}

/** `Name(type,type,...)` — the string whose keccak256 is topic0 / the selector preimage. */
export function signature(item) {
  return `${item.name}(${item.inputs.map(canonicalType).join(',')})`;
}

/** `Name(type indexed name, ...)` — the declaration form used in EVENTS. */
export function declaration(item) {
  const params = item.inputs.map((p) => [canonicalType(p), p.indexed ? 'indexed' : null, p.name].filter(Boolean).join(' '));
  return `${item.name}(${params.join(', ')})`;
}

/**
 * Compares a contract's ABI events with EVENTS/TOPICS. Returns a list of problems (empty = all good).
 */
export function checkEvents(contractName, abi, keccak) {
  const problems = [];
  const expected = EVENTS[contractName];
  if (!expected) return [`${contractName}: no expected events listed in scripts/chain-tools/expected.mjs`];
  const actual = abi.filter((item) => item.type === 'event');
  const actualDecls = actual.map(declaration);
  for (const decl of expected) {
    if (!actualDecls.includes(decl)) problems.push(`${contractName}: missing event ${decl}`);
  }
  for (const item of actual) {
    const decl = declaration(item);
    if (!expected.includes(decl)) problems.push(`${contractName}: unexpected event ${decl}`);
    const want = TOPICS[item.name];
    const got = keccak(signature(item));
    if (!want) problems.push(`${contractName}: no expected topic0 for ${item.name}`);
    else if (got !== want) problems.push(`${contractName}: ${signature(item)} topic0 ${got} != expected ${want}`);
  }
  return problems;
}

/**
 * The published contracts the chain tests compile from contracts/vendor (scripts/vendor-contracts.py
 * copies them unedited at the commits it names), one solc compilation each with the compiler and
 * settings of its repository's foundry.toml (optimizer runs kept at 200 where the repository's deploy
 * profile asks for more: the runs change gas, never behaviour). `contracts` maps each contract an
 * artifact is written for to the events the settlements job reads from it (checked by name against
 * TOPICS, so the real contracts are held to the topics the doubles and the ingest use).
 */
export const PUBLISHED_UNITS = [
  {
    dir: 'permit2',
    source: 'Uniswap/permit2@cc56ad0f (solmate@8d910d87)',
    solc: 'solc-0.8.17',
    settings: { optimizer: { enabled: true, runs: 200 }, viaIR: true },
    contracts: { Permit2: [] },
  },
  {
    dir: 'x402',
    source: 'coinbase/x402@84ffb641 contracts/evm (OpenZeppelin 5.5.0)',
    solc: 'solc',
    settings: { optimizer: { enabled: true, runs: 200 }, evmVersion: 'cancun', viaIR: false },
    contracts: {
      x402ExactPermit2Proxy: ['Settled', 'SettledWithPermit'],
      x402UptoPermit2Proxy: ['Settled', 'SettledWithPermit'],
      x402BatchSettlement: ['ChannelCreated', 'Deposited', 'Claimed'],
      ERC3009DepositCollector: [],
    },
    // OpenZeppelin 5.5's ECDSA names an error `error`, which solc 0.8.37 warns is deprecated.
    warningsAllowed: true,
  },
  {
    dir: 'commerce-payments',
    source: 'base/commerce-payments@v1.0.0 (d33b5d5; OpenZeppelin 1edc2ae0, solady 5ea5d9f5)',
    solc: 'solc',
    settings: { optimizer: { enabled: true, runs: 200 }, evmVersion: 'cancun', viaIR: true },
    contracts: {
      AuthCaptureEscrow: [
        'PaymentCharged',
        'PaymentAuthorized',
        'PaymentCaptured',
        'PaymentVoided',
        'PaymentReclaimed',
        'PaymentRefunded',
      ],
      TokenStore: [],
      ERC3009PaymentCollector: [],
      OperatorRefundCollector: [],
    },
    // solady's `/// @solidity memory-safe-assembly` comments are deprecated in solc 0.8.37.
    warningsAllowed: true,
  },
];

/** Each event named in `names` is declared by the ABI with the topic0 TOPICS gives for that name. */
export function checkReadEvents(contractName, abi, names, keccak) {
  const problems = [];
  for (const name of names) {
    const item = abi.find((e) => e.type === 'event' && e.name === name);
    if (!item) problems.push(`${contractName}: declares no event ${name}`);
    else if (keccak(signature(item)) !== TOPICS[name]) {
      problems.push(`${contractName}: ${signature(item)} topic0 ${keccak(signature(item))} != expected ${TOPICS[name]}`);
    }
  }
  return problems;
}
