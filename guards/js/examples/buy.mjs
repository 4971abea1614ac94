// Pays for one resource with the official x402 v2 buyer (npm @x402/fetch + @x402/evm, a viem account,
// default spend controls), guarded by @agentrep/x402-guard (onCaution: pay up to 50000 atomic units,
// onLowValue: allow), and prints one JSON line:
//   {"status": <HTTP status or null>, "paid": bool, "refused": null | {"code", "reason"}, "settlement": <decoded PAYMENT-RESPONSE or null>}
// It exits 0 when it paid and when the guard refused; 1 on any other failure.
//
// @x402/* and viem resolve from AGENTREP_CLIENTS_NODE_MODULES when set (as tests/payments/clients/
// x402_fetch_v2.mjs does), else from where this script is installed.
//
// usage: node buy.mjs <agentrep API base> <url> <private key>
import { createRequire } from 'node:module';

import { guardX402Client, refusalFrom } from '../src/index.js';

const modules = process.env.AGENTREP_CLIENTS_NODE_MODULES;
const require = createRequire(modules ? modules + '/' : import.meta.url);
const { wrapFetchWithPayment, x402Client, x402HTTPClient, decodePaymentResponseHeader } = await import(require.resolve('@x402/fetch'));
const { ExactEvmScheme } = await import(require.resolve('@x402/evm/exact/client'));
const { privateKeyToAccount } = await import(require.resolve('viem/accounts'));

const [agentrep, url, pk] = process.argv.slice(2);
if (!agentrep || !url || !pk) {
  console.error('usage: node buy.mjs <agentrep API base> <url> <private key>');
  process.exit(2);
}

const client = new x402Client().register('eip155:*', new ExactEvmScheme(privateKeyToAccount(pk)));
let signed = false;
client.onAfterPaymentCreation(async () => {
  signed = true;
});
const guarded = guardX402Client(new x402HTTPClient(client), {
  agentrep,
  onCaution: { maxAmount: '50000' },
  onLowValue: 'allow',
});

try {
  const res = await wrapFetchWithPayment(fetch, guarded)(url);
  const header = res.headers.get('PAYMENT-RESPONSE') ?? res.headers.get('X-PAYMENT-RESPONSE');
  const settlement = header ? decodePaymentResponseHeader(header) : null;
  await res.arrayBuffer();
  console.log(JSON.stringify({
    status: res.status,
    paid: signed && res.ok && settlement?.success !== false,
    refused: null,
    settlement,
  }));
} catch (error) {
  const refusal = refusalFrom(error);
  if (!refusal) {
    console.error(error instanceof Error ? error.stack : error);
    process.exit(1);
  }
  console.log(JSON.stringify({ status: null, paid: false, refused: { code: refusal.code, reason: refusal.reason }, settlement: null }));
}
