#!/usr/bin/env node
// Compiles every contracts/src/*.sol with the pinned solc in .tools (run scripts/fetch-chain-tools.sh first)
// and writes contracts/artifacts/<Contract>.json = { contractName, abi, bytecode, deployedBytecode, compiler }
// for every contract with bytecode, plus contracts/artifacts/addresses.json (contract → Base mainnet address it
// is placed at with anvil_setCode). Also checks every event against scripts/chain-tools/expected.mjs (exact
// declaration and the topic0 from onchain.md) and the pinned function selectors.
//
//   node scripts/compile-contracts.mjs           write the artifacts
//   node scripts/compile-contracts.mjs --check   compile in memory; exit 1 if a committed artifact differs
//
// Settings: standard JSON, optimizer on (200 runs), evmVersion cancun, viaIR (TokenCreated has 16 fields:
// too deep for the legacy code generator), no metadata hash in the bytecode
// (so comments do not change it), sources named by file name.

import fs from 'node:fs';
import path from 'node:path';
import { createRequire } from 'node:module';
import { fileURLToPath } from 'node:url';
import { ADDRESSES, SELECTORS, checkEvents, loadKeccak } from './chain-tools/expected.mjs';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const srcDir = path.join(root, 'contracts', 'src');
const outDir = path.join(root, 'contracts', 'artifacts');
const check = process.argv.includes('--check');
const unknown = process.argv.slice(2).filter((a) => a !== '--check');
if (unknown.length) fail(`unknown argument(s) ${unknown.join(' ')}; usage: compile-contracts.mjs [--check]`);

function fail(message) {
  console.error(`compile-contracts: ${message}`);
  process.exit(1);
}

const toolsPackage = path.join(root, '.tools', 'package.json');
if (!fs.existsSync(path.join(root, '.tools', 'node_modules', 'solc'))) {
  fail('solc is not installed in .tools; run scripts/fetch-chain-tools.sh');
}
const solc = createRequire(toolsPackage)('solc');
const keccak = await loadKeccak(root);

const files = fs.readdirSync(srcDir).filter((f) => f.endsWith('.sol')).sort();
if (files.length === 0) fail(`no .sol files in ${srcDir}`);
const input = {
  language: 'Solidity',
  sources: Object.fromEntries(files.map((f) => [f, { content: fs.readFileSync(path.join(srcDir, f), 'utf8') }])),
  settings: {
    optimizer: { enabled: true, runs: 200 },
    evmVersion: 'cancun',
    viaIR: true,
    metadata: { bytecodeHash: 'none' },
    outputSelection: { '*': { '*': ['abi', 'evm.bytecode.object', 'evm.deployedBytecode.object', 'evm.methodIdentifiers'] } },
  },
};
const output = JSON.parse(solc.compile(JSON.stringify(input)));
const diagnostics = output.errors ?? [];
for (const d of diagnostics) console.error(d.formattedMessage ?? d.message);
if (diagnostics.length) fail(`solc reported ${diagnostics.length} error(s)/warning(s); warnings are not allowed either`);

const compiler = solc.version();
const artifacts = new Map(); // file name -> text
const problems = [];
for (const file of files) {
  for (const [contractName, c] of Object.entries(output.contracts[file] ?? {})) {
    if (!c.evm.bytecode.object) continue; // interfaces and abstract contracts
    if (artifacts.has(`${contractName}.json`)) fail(`two contracts named ${contractName}`);
    const artifact = {
      contractName,
      abi: c.abi,
      bytecode: '0x' + c.evm.bytecode.object,
      deployedBytecode: '0x' + c.evm.deployedBytecode.object,
      compiler,
    };
    artifacts.set(`${contractName}.json`, JSON.stringify(artifact, null, 2) + '\n');
    problems.push(...checkEvents(contractName, c.abi, keccak));
    for (const [sig, selector] of Object.entries(SELECTORS[contractName] ?? {})) {
      const got = c.evm.methodIdentifiers[sig];
      if (got !== selector) problems.push(`${contractName}: ${sig} selector ${got ?? '(missing)'} != expected ${selector}`);
    }
  }
}
for (const name of Object.keys(ADDRESSES)) {
  if (!artifacts.has(`${name}.json`)) problems.push(`addresses: no contract named ${name}`);
}
if (problems.length) fail('ABI does not match onchain.md:\n  ' + problems.join('\n  '));
artifacts.set('addresses.json', JSON.stringify(ADDRESSES, null, 2) + '\n');

if (check) {
  const differing = [];
  for (const [name, text] of artifacts) {
    const file = path.join(outDir, name);
    if (!fs.existsSync(file)) differing.push(`${name} (missing)`);
    else if (fs.readFileSync(file, 'utf8') !== text) differing.push(`${name} (differs)`);
  }
  const extra = fs.existsSync(outDir)
    ? fs.readdirSync(outDir).filter((f) => f.endsWith('.json') && !artifacts.has(f))
    : [];
  differing.push(...extra.map((f) => `${f} (no such contract any more)`));
  if (differing.length) {
    fail(
      `contracts/artifacts is stale (recompiled with solc ${compiler}): ${differing.join(', ')}; ` +
        'run `node scripts/compile-contracts.mjs` and commit contracts/artifacts',
    );
  }
  console.log(`compile-contracts: ${artifacts.size} artifacts up to date (solc ${compiler})`);
} else {
  fs.mkdirSync(outDir, { recursive: true });
  for (const f of fs.readdirSync(outDir)) {
    if (f.endsWith('.json') && !artifacts.has(f)) fs.rmSync(path.join(outDir, f));
  }
  for (const [name, text] of artifacts) fs.writeFileSync(path.join(outDir, name), text);
  console.log(`compile-contracts: wrote ${artifacts.size} files to contracts/artifacts (solc ${compiler})`);
}
