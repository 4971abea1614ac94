// Pays for one resource with the official x402 v2 buyer, npm @x402/fetch + @x402/evm (viem
// account), with its default spend controls, and prints one JSON line: the status, the decoded
// PAYMENT-RESPONSE and the body.
//
// usage: node x402_fetch_v2.mjs <url> <private key>
import { createRequire } from 'node:module';

const require = createRequire(process.env.AGENTREP_CLIENTS_NODE_MODULES + '/');
const { wrapFetchWithPayment, x402Client, decodePaymentResponseHeader } = await import(require.resolve('@x402/fetch'));
const { ExactEvmScheme } = await import(require.resolve('@x402/evm/exact/client'));
const { privateKeyToAccount } = await import(require.resolve('viem/accounts'));

const [url, pk] = process.argv.slice(2);
const client = new x402Client().register('eip155:*', new ExactEvmScheme(privateKeyToAccount(pk)));
const res = await wrapFetchWithPayment(fetch, client)(url);
const header = res.headers.get('PAYMENT-RESPONSE');
const body = await res.text();
console.log(JSON.stringify({
  status: res.status,
  settlement: header ? decodePaymentResponseHeader(header) : null,
  body: (() => { try { return JSON.parse(body); } catch { return body; } })(),
}));
