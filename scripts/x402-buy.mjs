// Buys one paid answer from agentrep with the official x402 v2 buyer (npm @x402/fetch +
// @x402/evm, viem account), as any x402 client would: the first call gets the 402 and its terms,
// the client signs the EIP-3009 authorization they ask for, the retry gets the answer.
//
// usage: node scripts/x402-buy.mjs <url> <key file, or a 0x private key>
//
// Prints what happened: the 402's price and network, the answer's status, the settlement's
// transaction hash, the signed receipt (for ?live=1, send the PAYMENT-RESPONSE header back in
// X-Agentrep-Receipt to read ?full=1), and the start of the body. `make run-paid` prints a
// ready-to-paste call; the clients come from `.tools/clients` (scripts/fetch-test-clients.sh).
import { createRequire } from 'node:module';
import { readFileSync, existsSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const here = dirname(fileURLToPath(import.meta.url));
const modules = process.env.AGENTREP_CLIENTS_NODE_MODULES || join(here, '../.tools/clients/node_modules');
if (!existsSync(join(modules, '@x402/fetch'))) {
  console.error(`x402-buy: ${modules} lacks @x402/fetch: run scripts/fetch-test-clients.sh (make run-paid does)`);
  process.exit(2);
}
const require = createRequire(join(modules, 'noop.js'));
const { wrapFetchWithPayment, x402Client, decodePaymentResponseHeader } = await import(require.resolve('@x402/fetch'));
const { ExactEvmScheme } = await import(require.resolve('@x402/evm/exact/client'));
const { privateKeyToAccount } = await import(require.resolve('viem/accounts'));

const [url, keyArg] = process.argv.slice(2);
if (!url || !keyArg) {
  console.error('usage: node scripts/x402-buy.mjs <url> <key file or 0x private key>');
  process.exit(2);
}
const key = (keyArg.startsWith('0x') ? keyArg : readFileSync(keyArg, 'utf8')).trim();
const account = privateKeyToAccount(key);

// What an unpaid call says (the terms the client will sign).
const unpaid = await fetch(url);
if (unpaid.status !== 402) {
  console.log(JSON.stringify({ step: 'unpaid', status: unpaid.status, body: await unpaid.text() }));
  process.exit(1);
}
const accepts = (await unpaid.json()).accepts ?? [];
const offer = accepts[0] ?? {};
console.error(`402 Payment Required: ${Number(offer.maxAmountRequired ?? 0) / 1e6} USDC to ${offer.payTo} on ${offer.network}; paying as ${account.address}`);

const client = new x402Client().register('eip155:*', new ExactEvmScheme(account));
const res = await wrapFetchWithPayment(fetch, client)(url);
const header = res.headers.get('PAYMENT-RESPONSE');
const settlement = header ? decodePaymentResponseHeader(header) : null;
const text = await res.text();
let body;
try { body = JSON.parse(text); } catch { body = text; }
console.log(JSON.stringify({
  status: res.status,
  transaction: settlement?.transaction ?? null,
  payer: settlement?.payer ?? account.address,
  receipt: settlement?.extensions?.['offer-receipt']?.info?.receipt ?? null,
  paymentResponse: header,
  body,
}, null, 2));
process.exit(res.status === 200 ? 0 : 1);
