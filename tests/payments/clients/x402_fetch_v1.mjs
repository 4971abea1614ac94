// Pays for one resource with the official x402 v1 buyer, npm x402-fetch 1.2 (named networks
// only; its spending cap raised to the price), and prints one JSON line: the status, the decoded
// X-PAYMENT-RESPONSE and the body.
//
// usage: node x402_fetch_v1.mjs <url> <private key> <max atomic units>
import { createRequire } from 'node:module';

const require = createRequire(process.env.AGENTREP_CLIENTS_NODE_MODULES + '/');
const { wrapFetchWithPayment, createSigner, decodeXPaymentResponse } = await import(require.resolve('x402-fetch'));

const [url, pk, max] = process.argv.slice(2);
const signer = await createSigner('base', pk);
const res = await wrapFetchWithPayment(fetch, signer, BigInt(max))(url);
const header = res.headers.get('X-PAYMENT-RESPONSE');
const body = await res.text();
console.log(JSON.stringify({
  status: res.status,
  settlement: header ? decodeXPaymentResponse(header) : null,
  body: (() => { try { return JSON.parse(body); } catch { return body; } })(),
}));
