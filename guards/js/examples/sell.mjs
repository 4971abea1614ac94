// Sells one call with the official x402 resource server (npm @x402/core/server's x402ResourceServer,
// @x402/evm's exact scheme, a facilitator over HTTP), guarded by @agentrep/x402-guard/seller, to a
// payment made by the official buyer (@x402/core/client's x402Client, @x402/evm, a viem account):
// the server verifies the payment (the guard asks agentrep about the payer first) and, when it is
// valid, settles it, as a resource server's middleware does before it serves. Prints one JSON line:
//   {"served": bool, "refused": null | {"reason", "message"}, "settlement": <SettleResponse or null>}
// Exits 0 when it served and when the payment was refused; 1 on any other failure.
//
// @x402/* and viem resolve from AGENTREP_CLIENTS_NODE_MODULES when set, else from where this script is.
//
// usage: node sell.mjs <agentrep API base> <facilitator URL> <payTo> <payer private key>
import { createRequire } from 'node:module';

import { guardX402ResourceServer } from '../src/seller.js';

const modules = process.env.AGENTREP_CLIENTS_NODE_MODULES;
const require = createRequire(modules ? modules + '/' : import.meta.url);
const { x402ResourceServer, HTTPFacilitatorClient } = await import(require.resolve('@x402/core/server'));
const { x402Client } = await import(require.resolve('@x402/core/client'));
const { ExactEvmScheme: ExactServer } = await import(require.resolve('@x402/evm/exact/server'));
const { ExactEvmScheme: ExactClient } = await import(require.resolve('@x402/evm/exact/client'));
const { privateKeyToAccount } = await import(require.resolve('viem/accounts'));

const [agentrep, facilitator, payTo, pk] = process.argv.slice(2);
if (!agentrep || !facilitator || !payTo || !pk) {
  console.error('usage: node sell.mjs <agentrep API base> <facilitator URL> <payTo> <payer private key>');
  process.exit(2);
}

const server = new x402ResourceServer(new HTTPFacilitatorClient({ url: facilitator }))
  .register('eip155:8453', new ExactServer());
guardX402ResourceServer(server, { agentrep, failMode: 'closed' });
await server.initialize();

const requirements = await server.buildPaymentRequirements({ scheme: 'exact', payTo, price: '$0.01', network: 'eip155:8453' });
const resource = { url: 'http://127.0.0.1/sold', description: 'a guarded sale', mimeType: 'application/json' };
const paymentRequired = await server.createPaymentRequiredResponse(requirements, resource);

const buyer = new x402Client().register('eip155:*', new ExactClient(privateKeyToAccount(pk)));
const payload = await buyer.createPaymentPayload(paymentRequired);

const chosen = server.findMatchingRequirements(requirements, payload);
const verified = await server.verifyPayment(payload, chosen);
if (!verified.isValid) {
  console.log(JSON.stringify({ served: false, refused: { reason: verified.invalidReason, message: verified.invalidMessage ?? null }, settlement: null }));
  process.exit(0);
}
const settlement = await server.settlePayment(payload, chosen);
console.log(JSON.stringify({ served: settlement.success === true, refused: null, settlement }));
