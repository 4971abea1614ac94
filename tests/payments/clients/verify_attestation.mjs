// Checks an agentrep attestation the way a buyer's tools do, and prints one JSON line:
//  - off chain with viem's recoverTypedDataAddress, under the domain and types the attestation
//    carries;
//  - on chain with the original service's SDK (mainstreet-oracle sdk/verifier.js buildOnchainCall:
//    its ABI and argument order) pointed at agentrep's ScoreVerifier deployment, read with viem.
//
// usage: node verify_attestation.mjs <rpc url> <verifier address> <attestation JSON> <min score>
import { createRequire } from 'node:module';

const require = createRequire(process.env.AGENTREP_CLIENTS_NODE_MODULES + '/');
const viem = await import(require.resolve('viem'));
const { base } = await import(require.resolve('viem/chains'));
const sdk = require('mainstreet-oracle/verifier');

const [rpc, verifier, attestationJson, minScore] = process.argv.slice(2);
const att = JSON.parse(attestationJson);
const message = { ...att.payload, timestamp: BigInt(att.payload.timestamp), nonce: BigInt(att.payload.nonce) };
const recovered = await viem.recoverTypedDataAddress({
  domain: att.eip712.domain,
  types: att.eip712.types,
  primaryType: att.eip712.primaryType,
  message,
  signature: att.signature,
});
const client = viem.createPublicClient({ chain: base, transport: viem.http(rpc) });
const call = { ...sdk.buildOnchainCall(att, Number(minScore)), address: verifier };
let onchain;
try {
  onchain = { ok: await client.readContract(call) };
} catch (e) {
  onchain = { ok: false, error: String(e.shortMessage ?? e.message).slice(0, 200) };
}
console.log(JSON.stringify({ recovered: recovered.toLowerCase(), onchain }));
