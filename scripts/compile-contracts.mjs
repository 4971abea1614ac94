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
//
// Then the published contracts: every unit of PUBLISHED_UNITS (scripts/chain-tools/expected.mjs) is one
// compilation of contracts/vendor/<unit> (sources named by their path there, as their imports name them),
// with that unit's compiler and settings, and writes contracts/artifacts/published/<Contract>.json for the
// contracts it lists (with a `source` field naming the repository and commit). Their events the
// settlements job reads are checked against the same topic0s as the doubles'.

import fs from 'node:fs';
import path from 'node:path';
import { createRequire } from 'node:module';
import { fileURLToPath } from 'node:url';
import { ADDRESSES, PUBLISHED_UNITS, SELECTORS, checkEvents, checkReadEvents, loadKeccak } from './chain-tools/expected.mjs';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const srcDir = path.join(root, 'contracts', 'src');
const outDir = path.join(root, 'contracts', 'artifacts');
const vendorDir = path.join(root, 'contracts', 'vendor');
const check = process.argv.includes('--check');
const unknown = process.argv.slice(2).filter((a) => a !== '--check');
if (unknown.length) fail(`unknown argument(s) ${unknown.join(' ')}; usage: compile-contracts.mjs [--check]`);

function committedArtifacts() {
  const list = (sub) =>
    fs.existsSync(path.join(outDir, sub))
      ? fs.readdirSync(path.join(outDir, sub)).filter((f) => f.endsWith('.json')).map((f) => path.join(sub, f))
      : [];
  return [...list(''), ...list('published')];
}

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

const compiler = solc.version();
const artifacts = new Map(); // path under contracts/artifacts -> text
const problems = [];
const own = compileUnit(solc, srcDir, {
  optimizer: { enabled: true, runs: 200 },
  evmVersion: 'cancun',
  viaIR: true,
});
for (const [contractName, c] of own) {
  addArtifact(`${contractName}.json`, contractName, c, compiler);
  problems.push(...checkEvents(contractName, c.abi, keccak));
  for (const [sig, selector] of Object.entries(SELECTORS[contractName] ?? {})) {
    const got = c.evm.methodIdentifiers[sig];
    if (got !== selector) problems.push(`${contractName}: ${sig} selector ${got ?? '(missing)'} != expected ${selector}`);
  }
}
for (const name of Object.keys(ADDRESSES)) {
  if (!artifacts.has(`${name}.json`)) problems.push(`addresses: no contract named ${name}`);
}

// The published contracts (contracts/vendor, copied unedited by scripts/vendor-contracts.py), one
// compilation each with the compiler and settings its repository's foundry.toml names: solc's own
// release where the pragma pins one (Permit2: 0.8.17), the project's solc where it allows it.
for (const unit of PUBLISHED_UNITS) {
  const unitSolc = unit.solc === 'solc' ? solc : createRequire(toolsPackage)(unit.solc);
  if (!fs.existsSync(path.join(root, '.tools', 'node_modules', unit.solc))) {
    fail(`${unit.solc} is not installed in .tools; run scripts/fetch-chain-tools.sh`);
  }
  const compiled = compileUnit(unitSolc, path.join(vendorDir, unit.dir), unit.settings, unit.warningsAllowed);
  for (const contractName of Object.keys(unit.contracts)) {
    const c = compiled.get(contractName);
    if (!c) fail(`${unit.dir}: no contract named ${contractName}`);
    addArtifact(`published/${contractName}.json`, contractName, c, unitSolc.version(), unit.source);
    problems.push(...checkReadEvents(contractName, c.abi, unit.contracts[contractName], keccak));
  }
}
if (problems.length) fail('ABI does not match onchain.md:\n  ' + problems.join('\n  '));
artifacts.set('addresses.json', JSON.stringify(ADDRESSES, null, 2) + '\n');

/** Compiles every .sol under `dir` (source units named by their path below it); returns name → output. */
function compileUnit(compilerModule, dir, settings, warningsAllowed = false) {
  const files = walk(dir);
  if (files.length === 0) fail(`no .sol files in ${dir}`);
  const input = {
    language: 'Solidity',
    sources: Object.fromEntries(files.map((f) => [f, { content: fs.readFileSync(path.join(dir, f), 'utf8') }])),
    settings: {
      ...settings,
      metadata: { bytecodeHash: 'none' },
      outputSelection: {
        '*': { '*': ['abi', 'evm.bytecode.object', 'evm.deployedBytecode.object', 'evm.methodIdentifiers'] },
      },
    },
  };
  const output = JSON.parse(compilerModule.compile(JSON.stringify(input)));
  const diagnostics = output.errors ?? [];
  const errors = diagnostics.filter((d) => d.severity === 'error');
  const reported = warningsAllowed ? errors : diagnostics;
  for (const d of reported) console.error(d.formattedMessage ?? d.message);
  if (reported.length) {
    fail(`solc reported ${reported.length} problem(s) in ${path.relative(root, dir)}` + (warningsAllowed ? '' : '; warnings are not allowed either'));
  }
  const contracts = new Map();
  for (const file of files) {
    for (const [contractName, c] of Object.entries(output.contracts[file] ?? {})) {
      if (!c.evm.bytecode.object) continue; // interfaces and abstract contracts
      if (contracts.has(contractName)) fail(`two contracts named ${contractName} in ${dir}`);
      contracts.set(contractName, c);
    }
  }
  return contracts;
}

function walk(dir, prefix = '') {
  return fs
    .readdirSync(path.join(dir, prefix), { withFileTypes: true })
    .flatMap((e) => (e.isDirectory() ? walk(dir, path.join(prefix, e.name)) : e.name.endsWith('.sol') ? [path.join(prefix, e.name)] : []))
    .sort();
}

function addArtifact(file, contractName, c, compilerVersion, source) {
  if (artifacts.has(file)) fail(`two contracts named ${contractName}`);
  const artifact = {
    contractName,
    ...(source ? { source } : {}),
    abi: c.abi,
    bytecode: '0x' + c.evm.bytecode.object,
    deployedBytecode: '0x' + c.evm.deployedBytecode.object,
    compiler: compilerVersion,
  };
  artifacts.set(file, JSON.stringify(artifact, null, 2) + '\n');
}

if (check) {
  const differing = [];
  for (const [name, text] of artifacts) {
    const file = path.join(outDir, name);
    if (!fs.existsSync(file)) differing.push(`${name} (missing)`);
    else if (fs.readFileSync(file, 'utf8') !== text) differing.push(`${name} (differs)`);
  }
  const extra = committedArtifacts().filter((f) => !artifacts.has(f));
  differing.push(...extra.map((f) => `${f} (no such contract any more)`));
  if (differing.length) {
    fail(
      `contracts/artifacts is stale (recompiled with solc ${compiler}): ${differing.join(', ')}; ` +
        'run `node scripts/compile-contracts.mjs` and commit contracts/artifacts',
    );
  }
  console.log(`compile-contracts: ${artifacts.size} artifacts up to date (solc ${compiler})`);
} else {
  fs.mkdirSync(path.join(outDir, 'published'), { recursive: true });
  for (const f of committedArtifacts()) {
    if (!artifacts.has(f)) fs.rmSync(path.join(outDir, f));
  }
  for (const [name, text] of artifacts) fs.writeFileSync(path.join(outDir, name), text);
  console.log(`compile-contracts: wrote ${artifacts.size} files to contracts/artifacts (solc ${compiler})`);
}
