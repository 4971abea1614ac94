#!/usr/bin/env node
// Smoke test of the contract test doubles on a real local chain. Starts the pinned anvil from .tools
// (run scripts/fetch-chain-tools.sh first) on 127.0.0.1 with an OS-chosen port and chain id 8453, places every
// contracts/artifacts contract at its Base mainnet address with anvil_setCode, then exercises each one the way
// production traffic looks: USDC mint + EIP-3009 transferWithAuthorization (both overloads; ECDSA signed with a fixed
// private key, and ERC-1271 wallets), cancelAuthorization, approve; ERC-8004 register / setAgentWallet / setMetadata / setAgentURI /
// giveFeedback / appendResponse / revokeFeedback / agent transfer; EAS attest + revoke; Clanker-style
// deployToken + Uniswap v4 swaps + modifyLiquidity. Checks receipts, event order, indexed topics, views, and
// that eth_getLogs over the whole chain holds every expected topic0 and nothing else. Kills anvil at the end.
//
//   node scripts/chain-smoke.mjs        exit 0 = all checks passed
//
// Only JSON-RPC over fetch to loopback; @noble/curves + @noble/hashes (pinned in scripts/chain-tools) for signing.

import { spawn } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { ADDRESSES, AGENT_WALLET_KEY_TOPIC, TOPICS, loadKeccak, signature } from './chain-tools/expected.mjs';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const anvilBin = path.join(root, '.tools', 'bin', 'anvil');
const artifactsDir = path.join(root, 'contracts', 'artifacts');
const CHAIN_ID = 8453n;

if (!fs.existsSync(anvilBin)) {
  console.error('chain-smoke: .tools/bin/anvil is missing; run scripts/fetch-chain-tools.sh');
  process.exit(1);
}
const keccak = await loadKeccak(root);
const { secp256k1 } = await import(
  pathToFileURL(path.join(root, '.tools', 'node_modules', '@noble', 'curves', 'secp256k1.js')).href
);

const artifacts = Object.fromEntries(
  [...Object.keys(ADDRESSES), 'LaunchToken'].map((name) => [
    name,
    JSON.parse(fs.readFileSync(path.join(artifactsDir, `${name}.json`), 'utf8')),
  ]),
);

// ------------------------------------------------------------------------------------------- utilities

let checks = 0;
function assert(condition, message) {
  if (!condition) throw new Error(`check failed: ${message}`);
  checks++;
}
function eq(actual, expected, message) {
  const a = typeof actual === 'string' ? actual.toLowerCase() : actual;
  const e = typeof expected === 'string' ? expected.toLowerCase() : expected;
  assert(a === e, `${message}: got ${actual}, want ${expected}`);
}

const hex = (bytes) => '0x' + Buffer.from(bytes).toString('hex');
const unhex = (h) => Buffer.from(h.replace(/^0x/, ''), 'hex');
const pad32 = (h) => '0x' + h.replace(/^0x/, '').toLowerCase().padStart(64, '0');
const topicAddr = (a) => pad32(a);
const topicUint = (n) => pad32(BigInt(n).toString(16));

// Minimal ABI codec: (u)intN, address, bool, bytesN, bytes, string, T[], tuple.
function isDynamic(p) {
  if (p.type === 'string' || p.type === 'bytes' || p.type.endsWith('[]')) return true;
  if (p.type === 'tuple') return p.components.some(isDynamic);
  return false;
}
function word(n) {
  const v = BigInt(n);
  return Buffer.from((v < 0n ? (1n << 256n) + v : v).toString(16).padStart(64, '0'), 'hex');
}
function encodeOne(p, v) {
  const t = p.type;
  if (t.endsWith('[]')) {
    const inner = { ...p, type: t.slice(0, -2) };
    return Buffer.concat([word(v.length), encodeTuple(v.map(() => inner), v)]);
  }
  if (t === 'tuple') return encodeTuple(p.components, p.components.map((c, i) => (Array.isArray(v) ? v[i] : v[c.name])));
  if (t === 'string' || t === 'bytes') {
    const b = t === 'string' ? Buffer.from(v, 'utf8') : unhex(v);
    return Buffer.concat([word(b.length), b, Buffer.alloc((32 - (b.length % 32)) % 32)]);
  }
  if (t === 'address') return word(BigInt(v));
  if (t === 'bool') return word(v ? 1 : 0);
  if (/^bytes\d+$/.test(t)) return Buffer.concat([unhex(v), Buffer.alloc(32 - unhex(v).length)]);
  if (/^u?int\d+$/.test(t)) return word(v);
  throw new Error(`abi: unsupported type ${t}`);
}
function encodeTuple(params, values) {
  const heads = [];
  const tails = [];
  let tailOffset = params.length * 32;
  params.forEach((p, i) => {
    const enc = encodeOne(p, values[i]);
    if (isDynamic(p)) {
      heads.push(word(tailOffset));
      tails.push(enc);
      tailOffset += enc.length;
    } else heads.push(enc);
  });
  return Buffer.concat([...heads, ...tails]);
}
function decodeOne(p, buf, at) {
  const t = p.type;
  const readWord = (o) => BigInt('0x' + buf.subarray(o, o + 32).toString('hex'));
  if (t.endsWith('[]')) {
    const base = Number(readWord(at));
    const n = Number(readWord(base));
    const inner = { ...p, type: t.slice(0, -2) };
    return decodeTuple(Array(n).fill(inner), buf.subarray(base + 32));
  }
  if (t === 'tuple') {
    if (isDynamic(p)) return decodeTuple(p.components, buf.subarray(Number(readWord(at))));
    return decodeTuple(p.components, buf.subarray(at));
  }
  if (t === 'string' || t === 'bytes') {
    const base = Number(readWord(at));
    const len = Number(readWord(base));
    const b = buf.subarray(base + 32, base + 32 + len);
    return t === 'string' ? b.toString('utf8') : hex(b);
  }
  const w = readWord(at);
  if (t === 'address') return '0x' + w.toString(16).padStart(40, '0');
  if (t === 'bool') return w !== 0n;
  if (/^bytes\d+$/.test(t)) return hex(buf.subarray(at, at + Number(t.slice(5))));
  if (/^uint\d+$/.test(t)) return w;
  if (/^int\d+$/.test(t)) return w >= 1n << 255n ? w - (1n << 256n) : w;
  throw new Error(`abi: unsupported type ${t}`);
}
function decodeTuple(params, buf) {
  // Static tuples are inlined, so head positions advance by the static size of each parameter.
  const staticSize = (p) =>
    isDynamic(p) ? 32 : p.type === 'tuple' ? p.components.reduce((s, c) => s + staticSize(c), 0) : 32;
  const out = [];
  let at = 0;
  for (const p of params) {
    out.push(decodeOne(p, buf, at));
    at += staticSize(p);
  }
  return out;
}

function findFunction(contract, sigOrName) {
  const fns = artifacts[contract].abi.filter((i) => i.type === 'function');
  const matches = fns.filter((f) => (sigOrName.includes('(') ? signature(f) === sigOrName : f.name === sigOrName));
  if (matches.length !== 1) throw new Error(`${contract}.${sigOrName}: ${matches.length} matching functions`);
  return matches[0];
}
function calldata(contract, sigOrName, args) {
  const f = findFunction(contract, sigOrName);
  return hex(Buffer.concat([unhex(keccak(signature(f))).subarray(0, 4), encodeTuple(f.inputs, args)]));
}
function decodeEventData(contract, eventName, data) {
  const ev = artifacts[contract].abi.find((i) => i.type === 'event' && i.name === eventName);
  const params = ev.inputs.filter((p) => !p.indexed);
  const values = decodeTuple(params, unhex(data));
  return Object.fromEntries(params.map((p, i) => [p.name, values[i]]));
}

// ------------------------------------------------------------------------------------------- anvil + RPC

function startAnvil() {
  const child = spawn(anvilBin, ['--host', '127.0.0.1', '--port', '0', '--chain-id', String(CHAIN_ID)], {
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  return new Promise((resolve, reject) => {
    let out = '';
    const timer = setTimeout(() => {
      child.kill('SIGKILL');
      reject(new Error(`anvil did not start within 20 s:\n${out}`));
    }, 20_000);
    const onData = (chunk) => {
      out += chunk;
      const m = out.match(/Listening on 127\.0\.0\.1:(\d+)/);
      if (m) {
        clearTimeout(timer);
        child.stdout.off('data', onData);
        child.stdout.resume(); // keep draining so anvil never blocks on a full pipe
        child.stderr.resume();
        resolve({ child, url: `http://127.0.0.1:${m[1]}` });
      }
    };
    child.stdout.setEncoding('utf8').on('data', onData);
    child.stderr.setEncoding('utf8').on('data', (c) => (out += c));
    child.on('exit', (code) => {
      clearTimeout(timer);
      reject(new Error(`anvil exited with ${code} before listening:\n${out}`));
    });
  });
}

let rpcUrl;
let rpcId = 0;
async function rpc(method, params = []) {
  const res = await fetch(rpcUrl, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ jsonrpc: '2.0', id: ++rpcId, method, params }),
  });
  const body = await res.json();
  if (body.error) {
    const err = new Error(`${method}: ${body.error.message}`);
    err.rpc = body.error;
    throw err;
  }
  return body.result;
}

async function send(from, contract, sigOrName, args, to = ADDRESSES[contract]) {
  const hash = await rpc('eth_sendTransaction', [{ from, to, data: calldata(contract, sigOrName, args) }]);
  let receipt = null;
  for (let i = 0; i < 100 && !receipt; i++) {
    receipt = await rpc('eth_getTransactionReceipt', [hash]);
    if (!receipt) await new Promise((r) => setTimeout(r, 50));
  }
  assert(receipt, `receipt for ${contract}.${sigOrName}`);
  eq(receipt.status, '0x1', `${contract}.${sigOrName} status`);
  return receipt;
}

async function call(contract, sigOrName, args, to = ADDRESSES[contract], from = undefined) {
  const f = findFunction(contract, sigOrName);
  const result = await rpc('eth_call', [{ to, data: calldata(contract, sigOrName, args), ...(from ? { from } : {}) }, 'latest']);
  return decodeTuple(f.outputs, unhex(result));
}

async function expectRevert(from, contract, sigOrName, args, reason) {
  try {
    await rpc('eth_call', [{ from, to: ADDRESSES[contract], data: calldata(contract, sigOrName, args) }, 'latest']);
  } catch (e) {
    const text = JSON.stringify(e.rpc ?? e.message);
    const data = e.rpc?.data;
    // Error(string) revert data: 0x08c379a0 ‖ abi.encode(string)
    const decoded =
      typeof data === 'string' && data.startsWith('0x08c379a0')
        ? decodeTuple([{ type: 'string' }], unhex(data).subarray(4))[0]
        : text;
    assert(decoded.includes(reason), `${contract}.${sigOrName} reverts with "${reason}" (got ${decoded})`);
    return;
  }
  assert(false, `${contract}.${sigOrName} should revert with "${reason}"`);
}

/** Asserts the receipt's logs are exactly `expected` = [[address, topic0, ...more topics]] in order. */
function expectLogs(receipt, expected, what) {
  const logs = receipt.logs;
  eq(logs.length, expected.length, `${what}: number of logs`);
  expected.forEach(([address, ...topics], i) => {
    eq(logs[i].address, address, `${what}: log ${i} address`);
    topics.forEach((t, j) => {
      if (t !== null) eq(logs[i].topics[j], t, `${what}: log ${i} topic ${j}`);
    });
    if (i > 0) eq(BigInt(logs[i].logIndex), BigInt(logs[i - 1].logIndex) + 1n, `${what}: log ${i} is adjacent`);
  });
  return logs;
}

// ------------------------------------------------------------------------------------------- EIP-712 / keys

const PAYER_KEY = unhex(keccak('agentrep chain-smoke payer')); // fixed, test-only private key
function addressOf(privateKey) {
  const pub = secp256k1.getPublicKey(privateKey, false); // 0x04 ‖ X ‖ Y
  return '0x' + keccak(pub.subarray(1)).slice(-40);
}
function signDigest(digest, privateKey) {
  const sig = secp256k1.sign(unhex(digest), privateKey, { prehash: false, format: 'recovered' });
  const recovery = sig[0];
  const r = hex(sig.subarray(1, 33));
  const s = hex(sig.subarray(33, 65));
  const v = 27 + recovery;
  return { v, r, s, bytes: hex(Buffer.concat([sig.subarray(1, 65), Buffer.from([v])])) };
}
function usdcDomainSeparator() {
  const typeHash = keccak('EIP712Domain(string name,string version,uint256 chainId,address verifyingContract)');
  const p = (type) => ({ type });
  return keccak(
    encodeTuple(
      [p('bytes32'), p('bytes32'), p('bytes32'), p('uint256'), p('address')],
      [typeHash, keccak('USD Coin'), keccak('2'), CHAIN_ID, ADDRESSES.FiatToken],
    ),
  );
}
function eip712Digest(typeString, types, values) {
  const p = (type) => ({ type });
  const structHash = keccak(encodeTuple([p('bytes32'), ...types.map(p)], [keccak(typeString), ...values]));
  return keccak(Buffer.concat([Buffer.from([0x19, 0x01]), unhex(usdcDomainSeparator()), unhex(structHash)]));
}
const TWA_TYPE =
  'TransferWithAuthorization(address from,address to,uint256 value,uint256 validAfter,uint256 validBefore,bytes32 nonce)';
const TWA_TYPES = ['address', 'address', 'uint256', 'uint256', 'uint256', 'bytes32'];

// ------------------------------------------------------------------------------------------- scenario

async function scenario() {
  // Place the contracts.
  for (const [name, address] of Object.entries(ADDRESSES)) {
    await rpc('anvil_setCode', [address, artifacts[name].deployedBytecode]);
    eq(await rpc('eth_getCode', [address, 'latest']), artifacts[name].deployedBytecode, `${name} code at ${address}`);
  }
  eq(BigInt(await rpc('eth_chainId')), CHAIN_ID, 'chain id');
  const [facilitator, agentOwner, client, attester, deployer, trader, seller, newOwner] = await rpc('eth_accounts');
  const payer = addressOf(PAYER_KEY);
  const now = BigInt((await rpc('eth_getBlockByNumber', ['latest', false])).timestamp);

  // --- USDC / EIP-3009 ---------------------------------------------------------------------------------
  eq((await call('FiatToken', 'name', []))[0], 'USD Coin', 'USDC name');
  eq((await call('FiatToken', 'symbol', []))[0], 'USDC', 'USDC symbol');
  eq((await call('FiatToken', 'decimals', []))[0], 6n, 'USDC decimals');
  eq((await call('FiatToken', 'DOMAIN_SEPARATOR', []))[0], usdcDomainSeparator(), 'USDC DOMAIN_SEPARATOR');
  eq((await call('FiatToken', 'TRANSFER_WITH_AUTHORIZATION_TYPEHASH', []))[0], keccak(TWA_TYPE), 'TWA typehash');

  let r = await send(facilitator, 'FiatToken', 'mint', [payer, 10_000_000n]);
  expectLogs(r, [[ADDRESSES.FiatToken, TOPICS.Transfer, topicAddr('0x' + '0'.repeat(40)), topicAddr(payer)]], 'mint');
  eq((await call('FiatToken', 'balanceOf', [payer]))[0], 10_000_000n, 'payer balance after mint');

  // x402-style settlement: the facilitator broadcasts the payer's signed authorization (v, r, s overload).
  const nonce1 = keccak('smoke nonce 1');
  const auth1 = [payer, seller, 1_000_000n, 0n, now + 3600n, nonce1];
  const sig1 = signDigest(eip712Digest(TWA_TYPE, TWA_TYPES, auth1), PAYER_KEY);
  r = await send(
    facilitator,
    'FiatToken',
    'transferWithAuthorization(address,address,uint256,uint256,uint256,bytes32,uint8,bytes32,bytes32)',
    [...auth1, sig1.v, sig1.r, sig1.s],
  );
  eq(r.from, facilitator, 'settlement tx.from is the facilitator');
  let logs = expectLogs(
    r,
    [
      [ADDRESSES.FiatToken, TOPICS.AuthorizationUsed, topicAddr(payer), nonce1],
      [ADDRESSES.FiatToken, TOPICS.Transfer, topicAddr(payer), topicAddr(seller)],
    ],
    'transferWithAuthorization(v,r,s)',
  );
  eq(decodeEventData('FiatToken', 'Transfer', logs[1].data).value, 1_000_000n, 'settlement value');
  eq((await call('FiatToken', 'authorizationState', [payer, nonce1]))[0], true, 'nonce 1 used');
  await expectRevert(
    facilitator,
    'FiatToken',
    'transferWithAuthorization(address,address,uint256,uint256,uint256,bytes32,uint8,bytes32,bytes32)',
    [...auth1, sig1.v, sig1.r, sig1.s],
    'authorization is used or canceled',
  );

  // bytes-signature overload.
  const nonce2 = keccak('smoke nonce 2');
  const auth2 = [payer, seller, 250_000n, now - 600n, now + 3600n, nonce2];
  const sig2 = signDigest(eip712Digest(TWA_TYPE, TWA_TYPES, auth2), PAYER_KEY);
  await expectRevert(
    facilitator,
    'FiatToken',
    'transferWithAuthorization(address,address,uint256,uint256,uint256,bytes32,bytes)',
    [payer, seller, 250_001n, now - 600n, now + 3600n, nonce2, sig2.bytes],
    'invalid signature',
  );
  r = await send(facilitator, 'FiatToken', 'transferWithAuthorization(address,address,uint256,uint256,uint256,bytes32,bytes)', [
    ...auth2,
    sig2.bytes,
  ]);
  expectLogs(
    r,
    [
      [ADDRESSES.FiatToken, TOPICS.AuthorizationUsed, topicAddr(payer), nonce2],
      [ADDRESSES.FiatToken, TOPICS.Transfer, topicAddr(payer), topicAddr(seller)],
    ],
    'transferWithAuthorization(bytes)',
  );
  eq((await call('FiatToken', 'balanceOf', [seller]))[0], 1_250_000n, 'seller balance');

  // ERC-1271 smart wallets through the bytes overload: hand-assembled wallets whose isValidSignature always
  // answers the magic value (PUSH4 0x1626ba7e, shift left 224, MSTORE at 0, RETURN 32 bytes) or always 0.
  const yesWallet = '0x' + '12'.repeat(20);
  const noWallet = '0x' + '13'.repeat(20);
  await rpc('anvil_setCode', [yesWallet, '0x631626ba7e60e01b60005260206000f3']);
  await rpc('anvil_setCode', [noWallet, '0x60206000f3']);
  await send(facilitator, 'FiatToken', 'mint', [yesWallet, 500n]);
  await send(facilitator, 'FiatToken', 'mint', [noWallet, 500n]);
  const nonce5 = keccak('smoke nonce 5');
  r = await send(facilitator, 'FiatToken', 'transferWithAuthorization(address,address,uint256,uint256,uint256,bytes32,bytes)', [
    yesWallet,
    seller,
    500n,
    0n,
    now + 3600n,
    nonce5,
    hex(Buffer.from('any wallet-specific signature')),
  ]);
  expectLogs(
    r,
    [
      [ADDRESSES.FiatToken, TOPICS.AuthorizationUsed, topicAddr(yesWallet), nonce5],
      [ADDRESSES.FiatToken, TOPICS.Transfer, topicAddr(yesWallet), topicAddr(seller)],
    ],
    'transferWithAuthorization(bytes) from an ERC-1271 wallet',
  );
  await expectRevert(
    facilitator,
    'FiatToken',
    'transferWithAuthorization(address,address,uint256,uint256,uint256,bytes32,bytes)',
    [noWallet, seller, 500n, 0n, now + 3600n, nonce5, sig2.bytes],
    'invalid signature',
  );

  // Expired authorization is rejected.
  const nonce3 = keccak('smoke nonce 3');
  const auth3 = [payer, seller, 1n, 0n, now - 1n, nonce3];
  const sig3 = signDigest(eip712Digest(TWA_TYPE, TWA_TYPES, auth3), PAYER_KEY);
  await expectRevert(
    facilitator,
    'FiatToken',
    'transferWithAuthorization(address,address,uint256,uint256,uint256,bytes32,bytes)',
    [...auth3, sig3.bytes],
    'authorization is expired',
  );

  // cancelAuthorization.
  const nonce4 = keccak('smoke nonce 4');
  const cancelSig = signDigest(
    eip712Digest('CancelAuthorization(address authorizer,bytes32 nonce)', ['address', 'bytes32'], [payer, nonce4]),
    PAYER_KEY,
  );
  r = await send(facilitator, 'FiatToken', 'cancelAuthorization(address,bytes32,uint8,bytes32,bytes32)', [
    payer,
    nonce4,
    cancelSig.v,
    cancelSig.r,
    cancelSig.s,
  ]);
  expectLogs(r, [[ADDRESSES.FiatToken, TOPICS.AuthorizationCanceled, topicAddr(payer), nonce4]], 'cancelAuthorization');

  // Plain transfer + approve/transferFrom (no EIP-3009 pair).
  r = await send(seller, 'FiatToken', 'approve', [facilitator, 100n]);
  expectLogs(r, [[ADDRESSES.FiatToken, TOPICS.Approval, topicAddr(seller), topicAddr(facilitator)]], 'approve');
  r = await send(facilitator, 'FiatToken', 'transferFrom', [seller, client, 100n]);
  expectLogs(r, [[ADDRESSES.FiatToken, TOPICS.Transfer, topicAddr(seller), topicAddr(client)]], 'transferFrom');
  r = await send(seller, 'FiatToken', 'transfer', [client, 50n]);
  expectLogs(r, [[ADDRESSES.FiatToken, TOPICS.Transfer, topicAddr(seller), topicAddr(client)]], 'transfer');

  // --- ERC-8004 identity ---------------------------------------------------------------------------------
  const agentURI = 'https://agent.example/.well-known/agent-registration.json';
  r = await send(agentOwner, 'IdentityRegistry', 'register(string,(string,bytes)[])', [
    agentURI,
    [{ metadataKey: 'category', metadataValue: hex(Buffer.from('payments')) }],
  ]);
  const agentId = 0n;
  logs = expectLogs(
    r,
    [
      [ADDRESSES.IdentityRegistry, TOPICS.Transfer, topicAddr('0x' + '0'.repeat(40)), topicAddr(agentOwner), topicUint(agentId)],
      [ADDRESSES.IdentityRegistry, TOPICS.Registered, topicUint(agentId), topicAddr(agentOwner)],
      [ADDRESSES.IdentityRegistry, TOPICS.MetadataSet, topicUint(agentId), AGENT_WALLET_KEY_TOPIC],
      [ADDRESSES.IdentityRegistry, TOPICS.MetadataSet, topicUint(agentId), keccak('category')],
    ],
    'register',
  );
  eq(decodeEventData('IdentityRegistry', 'Registered', logs[1].data).agentURI, agentURI, 'Registered agentURI');
  eq(decodeEventData('IdentityRegistry', 'MetadataSet', logs[2].data).metadataValue, agentOwner, 'initial agentWallet');
  eq((await call('IdentityRegistry', 'ownerOf', [agentId]))[0], agentOwner, 'ownerOf');
  eq((await call('IdentityRegistry', 'tokenURI', [agentId]))[0], agentURI, 'tokenURI');
  eq((await call('IdentityRegistry', 'getAgentWallet', [agentId]))[0], agentOwner, 'getAgentWallet after register');

  r = await send(agentOwner, 'IdentityRegistry', 'setAgentWallet', [agentId, seller]);
  logs = expectLogs(r, [[ADDRESSES.IdentityRegistry, TOPICS.MetadataSet, topicUint(agentId), AGENT_WALLET_KEY_TOPIC]], 'setAgentWallet');
  eq(decodeEventData('IdentityRegistry', 'MetadataSet', logs[0].data).metadataValue, seller, 'agentWallet value');
  eq((await call('IdentityRegistry', 'getAgentWallet', [agentId]))[0], seller, 'getAgentWallet == USDC payTo');
  await expectRevert(agentOwner, 'IdentityRegistry', 'setMetadata', [agentId, 'agentWallet', '0x'], 'reserved key');
  r = await send(agentOwner, 'IdentityRegistry', 'setMetadata', [agentId, 'x402', '0x01']);
  expectLogs(r, [[ADDRESSES.IdentityRegistry, TOPICS.MetadataSet, topicUint(agentId), keccak('x402')]], 'setMetadata');
  eq((await call('IdentityRegistry', 'getMetadata', [agentId, 'x402']))[0], '0x01', 'getMetadata');
  r = await send(agentOwner, 'IdentityRegistry', 'setAgentURI', [agentId, 'ipfs://bafyagent']);
  expectLogs(r, [[ADDRESSES.IdentityRegistry, TOPICS.URIUpdated, topicUint(agentId), topicAddr(agentOwner)]], 'setAgentURI');
  r = await send(agentOwner, 'IdentityRegistry', 'register()', []);
  eq(r.logs[0].topics[3], topicUint(1n), 'second agent id is 1');

  // --- ERC-8004 reputation --------------------------------------------------------------------------------
  await expectRevert(
    agentOwner,
    'ReputationRegistry',
    'giveFeedback',
    [agentId, 90n, 0, 'starred', '', '', '', pad32('0x')],
    'Self-feedback not allowed',
  );
  await expectRevert(client, 'ReputationRegistry', 'giveFeedback', [99n, 90n, 0, 'starred', '', '', '', pad32('0x')], 'Agent does not exist');
  await expectRevert(client, 'ReputationRegistry', 'giveFeedback', [agentId, 90n, 19, 'starred', '', '', '', pad32('0x')], 'too many decimals');
  const feedbackHash = keccak('feedback file');
  r = await send(client, 'ReputationRegistry', 'giveFeedback', [
    agentId,
    -875n,
    1,
    'starred',
    'x402',
    'https://agent.example/api',
    'ipfs://bafyfeedback',
    feedbackHash,
  ]);
  logs = expectLogs(
    r,
    [[ADDRESSES.ReputationRegistry, TOPICS.NewFeedback, topicUint(agentId), topicAddr(client), keccak('starred')]],
    'giveFeedback',
  );
  const fb = decodeEventData('ReputationRegistry', 'NewFeedback', logs[0].data);
  eq(fb.feedbackIndex, 1n, 'feedbackIndex is 1-based');
  eq(fb.value, -875n, 'feedback value (negative int128)');
  eq(fb.valueDecimals, 1n, 'feedback decimals');
  eq(fb.tag1, 'starred', 'tag1');
  eq(fb.feedbackHash, feedbackHash, 'feedbackHash');
  r = await send(client, 'ReputationRegistry', 'giveFeedback', [agentId, 100n, 0, 'reachable', '', '', '', pad32('0x')]);
  eq(decodeEventData('ReputationRegistry', 'NewFeedback', r.logs[0].data).feedbackIndex, 2n, 'second feedbackIndex');
  eq((await call('ReputationRegistry', 'getLastIndex', [agentId, client]))[0], 2n, 'getLastIndex');
  const read = await call('ReputationRegistry', 'readFeedback', [agentId, client, 1n]);
  eq(read[0], -875n, 'readFeedback value');
  eq(read[2], 'starred', 'readFeedback tag1');
  r = await send(agentOwner, 'ReputationRegistry', 'appendResponse', [agentId, client, 1n, 'ipfs://bafyresponse', keccak('response')]);
  expectLogs(
    r,
    [[ADDRESSES.ReputationRegistry, TOPICS.ResponseAppended, topicUint(agentId), topicAddr(client), topicAddr(agentOwner)]],
    'appendResponse',
  );
  r = await send(client, 'ReputationRegistry', 'revokeFeedback', [agentId, 2n]);
  expectLogs(
    r,
    [[ADDRESSES.ReputationRegistry, TOPICS.FeedbackRevoked, topicUint(agentId), topicAddr(client), topicUint(2n)]],
    'revokeFeedback',
  );
  eq((await call('ReputationRegistry', 'readFeedback', [agentId, client, 2n]))[4], true, 'feedback 2 revoked');

  // Agent transfer clears the wallet (MetadataSet with empty value, then Transfer).
  r = await send(agentOwner, 'IdentityRegistry', 'setApprovalForAll', [facilitator, true]);
  expectLogs(r, [[ADDRESSES.IdentityRegistry, TOPICS.ApprovalForAll, topicAddr(agentOwner), topicAddr(facilitator)]], 'setApprovalForAll');
  r = await send(agentOwner, 'IdentityRegistry', 'approve', [client, 1n]);
  expectLogs(r, [[ADDRESSES.IdentityRegistry, TOPICS.Approval, topicAddr(agentOwner), topicAddr(client), topicUint(1n)]], 'approve agent');
  r = await send(agentOwner, 'IdentityRegistry', 'transferFrom', [agentOwner, newOwner, agentId]);
  logs = expectLogs(
    r,
    [
      [ADDRESSES.IdentityRegistry, TOPICS.MetadataSet, topicUint(agentId), AGENT_WALLET_KEY_TOPIC],
      [ADDRESSES.IdentityRegistry, TOPICS.Transfer, topicAddr(agentOwner), topicAddr(newOwner), topicUint(agentId)],
    ],
    'agent transfer',
  );
  eq(decodeEventData('IdentityRegistry', 'MetadataSet', logs[0].data).metadataValue, '0x', 'cleared agentWallet');
  eq((await call('IdentityRegistry', 'getAgentWallet', [agentId]))[0], '0x' + '0'.repeat(40), 'wallet cleared');

  // --- EAS -----------------------------------------------------------------------------------------------
  const verifiedAccount = '0xf8b05c79f090979bf4a80270aba232dff11a10d9ca55c4f88de95317970f0de9';
  r = await send(attester, 'EAS', 'attest', [seller, verifiedAccount, hex(word(1))]);
  logs = expectLogs(r, [[ADDRESSES.EAS, TOPICS.Attested, topicAddr(seller), topicAddr(attester), verifiedAccount]], 'attest');
  const uid = decodeEventData('EAS', 'Attested', logs[0].data).uid;
  const att = (await call('EAS', 'getAttestation', [uid]))[0];
  eq(att[0], uid, 'attestation uid');
  eq(att[1], verifiedAccount, 'attestation schema');
  eq(att[6], seller, 'attestation recipient');
  eq(att[7], attester, 'attestation attester');
  eq(att[4], 0n, 'not revoked yet');
  eq(att[9], hex(word(1)), 'attestation data');
  await expectRevert(seller, 'EAS', 'revoke', [uid], 'AccessDenied');
  r = await send(attester, 'EAS', 'revoke', [uid]);
  expectLogs(r, [[ADDRESSES.EAS, TOPICS.Revoked, topicAddr(seller), topicAddr(attester), verifiedAccount]], 'revoke');
  assert((await call('EAS', 'getAttestation', [uid]))[0][4] > 0n, 'revocationTime set');

  // --- Launchpad + Uniswap v4 ---------------------------------------------------------------------------------
  const tokenArgs = ['Agent Coin', 'AGC', deployer, '{"platform":"smoke","id":"1"}'];
  const predicted = (await call('ClankerFactory', 'predictToken', tokenArgs))[0];
  r = await send(facilitator, 'ClankerFactory', 'deployToken', tokenArgs);
  logs = expectLogs(
    r,
    [
      [predicted, TOPICS.Transfer, topicAddr('0x' + '0'.repeat(40)), topicAddr(deployer)],
      [predicted, TOPICS.Transfer, topicAddr('0x' + '0'.repeat(40)), topicAddr(ADDRESSES.PoolManager)],
      [ADDRESSES.ClankerFactory, TOPICS.TokenCreated, topicAddr(predicted), topicAddr(deployer)],
    ],
    'deployToken',
  );
  const created = decodeEventData('ClankerFactory', 'TokenCreated', logs[2].data);
  eq(created.msgSender, facilitator, 'TokenCreated msgSender');
  eq(created.tokenName, 'Agent Coin', 'TokenCreated tokenName');
  eq(created.tokenContext, tokenArgs[3], 'TokenCreated tokenContext');
  eq(created.pairedToken, '0x4200000000000000000000000000000000000006', 'paired with WETH');
  eq(created.extensions.length, 0, 'no extensions');
  const token = predicted;
  const poolId = created.poolId;
  eq((await call('ClankerFactory', 'poolIdOf', [token]))[0], poolId, 'poolIdOf');
  eq((await call('LaunchToken', 'totalSupply', [], token))[0], 100_000_000_000n * 10n ** 18n, '100B supply');
  await expectRevert(facilitator, 'ClankerFactory', 'deployToken', tokenArgs, '');

  const tokenIs0 = BigInt(token) < BigInt('0x4200000000000000000000000000000000000006');
  const buyTokens = 1_000_000n * 10n ** 18n;
  const wethIn = 10n ** 17n;
  const swapArgs = (tokenDelta, wethDelta) => {
    const [a0, a1] = tokenIs0 ? [tokenDelta, wethDelta] : [wethDelta, tokenDelta];
    return [poolId, token, a0, a1, 79228162514264337593543950336n, 10n ** 24n, -230000, 10000, trader];
  };
  r = await send(facilitator, 'PoolManager', 'swap', swapArgs(buyTokens, -wethIn));
  logs = expectLogs(
    r,
    [
      [token, TOPICS.Transfer, topicAddr(ADDRESSES.PoolManager), topicAddr(trader)],
      [ADDRESSES.PoolManager, TOPICS.Swap, poolId, topicAddr(facilitator)],
    ],
    'swap (buy)',
  );
  const swap = decodeEventData('PoolManager', 'Swap', logs[1].data);
  eq(tokenIs0 ? swap.amount0 : swap.amount1, buyTokens, 'Swap token amount');
  eq(tokenIs0 ? swap.amount1 : swap.amount0, -wethIn, 'Swap WETH amount');
  eq(swap.tick, -230000n, 'Swap tick');
  eq(swap.fee, 10000n, 'Swap fee');
  eq((await call('LaunchToken', 'balanceOf', [trader], token))[0], buyTokens, 'trader got the tokens');
  r = await send(facilitator, 'PoolManager', 'swap', swapArgs(-buyTokens / 2n, wethIn / 3n));
  expectLogs(
    r,
    [
      [token, TOPICS.Transfer, topicAddr(trader), topicAddr(ADDRESSES.PoolManager)],
      [ADDRESSES.PoolManager, TOPICS.Swap, poolId, topicAddr(facilitator)],
    ],
    'swap (sell)',
  );
  eq((await call('LaunchToken', 'balanceOf', [trader], token))[0], buyTokens / 2n, 'trader sold half');
  r = await send(deployer, 'PoolManager', 'modifyLiquidity', [poolId, -887200, 887200, -(10n ** 24n), pad32('0x')]);
  logs = expectLogs(r, [[ADDRESSES.PoolManager, TOPICS.ModifyLiquidity, poolId, topicAddr(deployer)]], 'modifyLiquidity');
  eq(decodeEventData('PoolManager', 'ModifyLiquidity', logs[0].data).liquidityDelta, -(10n ** 24n), 'negative liquidityDelta');
  r = await send(deployer, 'LaunchToken', 'approve', [trader, 1n], token);
  expectLogs(r, [[token, TOPICS.Approval, topicAddr(deployer), topicAddr(trader)]], 'LaunchToken approve');

  // --- Whole chain: every expected topic0 occurs, nothing else does. -------------------------------------------
  const all = await rpc('eth_getLogs', [{ fromBlock: '0x0', toBlock: 'latest' }]);
  const known = new Set(Object.values(TOPICS));
  for (const log of all) assert(known.has(log.topics[0]), `unexpected topic0 ${log.topics[0]} from ${log.address}`);
  const seen = new Set(all.map((l) => l.topics[0]));
  for (const [name, topic] of Object.entries(TOPICS)) assert(seen.has(topic), `no ${name} log (${topic}) on the chain`);
  // Filtering like the ingest does: address + topic0 + narrowest indexed topic.
  const toSeller = await rpc('eth_getLogs', [
    { fromBlock: '0x0', toBlock: 'latest', address: ADDRESSES.FiatToken, topics: [TOPICS.Transfer, null, topicAddr(seller)] },
  ]);
  eq(toSeller.length, 3, 'USDC transfers to the seller');
  return all.length;
}

const { child, url } = await startAnvil();
rpcUrl = url;
let exitCode = 0;
try {
  const logCount = await scenario();
  console.log(`chain-smoke: ok — ${checks} checks, ${logCount} logs on anvil at ${url} (chain id ${CHAIN_ID})`);
} catch (e) {
  console.error(`chain-smoke: FAILED: ${e.stack ?? e}`);
  exitCode = 1;
} finally {
  child.removeAllListeners('exit');
  child.kill('SIGTERM');
  await new Promise((resolve) => {
    const t = setTimeout(() => {
      child.kill('SIGKILL');
      resolve();
    }, 5000);
    child.once('exit', () => {
      clearTimeout(t);
      resolve();
    });
  });
}
process.exit(exitCode);
