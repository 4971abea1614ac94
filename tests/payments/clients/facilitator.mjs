// An x402 facilitator on loopback, built from the official packages' facilitator side
// (@x402/core x402Facilitator + @x402/evm ExactEvmScheme for v2 and ExactEvmSchemeV1 for v1, with
// a viem wallet on the given node), serving POST /verify, POST /settle and GET /supported.
// Prints "listening <port>" once ready.
//
// usage: node facilitator.mjs <rpc url> <private key> [fault] [wallet factories]
//   fault: none (default) | settle-hangs (settles on chain, then never answers /settle)
//          | settle-500 (answers /settle with 500 without settling)
//   wallet factories: comma-separated ERC-6492 factories it may call to deploy a paying wallet
//          (`eip6492AllowedFactories`; default none)
//
// The node is prepared as evm_chain.mjs says (Multicall3 at its canonical address).
import http from 'node:http';
import { connect, load } from './evm_chain.mjs';

const { x402Facilitator } = await load('@x402/core/facilitator');
const { ExactEvmScheme } = await load('@x402/evm/exact/facilitator');
const { ExactEvmSchemeV1 } = await load('@x402/evm/exact/v1/facilitator');

const [rpc, key, fault = 'none', factories = ''] = process.argv.slice(2);
const eip6492AllowedFactories = factories.split(',').filter(Boolean);
const { signer } = await connect(rpc, key);
const facilitator = new x402Facilitator()
  .register('eip155:8453', new ExactEvmScheme(signer, { eip6492AllowedFactories }))
  .registerV1('base', new ExactEvmSchemeV1(signer, { eip6492AllowedFactories }));

const json = (res, status, body) => {
  res.writeHead(status, { 'content-type': 'application/json' });
  res.end(JSON.stringify(body, (_, v) => (typeof v === 'bigint' ? v.toString() : v)));
};

const server = http.createServer(async (req, res) => {
  let raw = '';
  for await (const chunk of req) raw += chunk;
  try {
    if (req.method === 'GET' && req.url === '/supported') return json(res, 200, facilitator.getSupported());
    const body = raw ? JSON.parse(raw) : {};
    if (req.method === 'POST' && req.url === '/verify') {
      return json(res, 200, await facilitator.verify(body.paymentPayload, body.paymentRequirements));
    }
    if (req.method === 'POST' && req.url === '/settle') {
      if (fault === 'settle-500') return json(res, 500, { error: 'injected failure' });
      const settled = await facilitator.settle(body.paymentPayload, body.paymentRequirements);
      if (fault === 'settle-hangs') return; // settled on chain; the answer never comes
      return json(res, 200, settled);
    }
    json(res, 404, { error: 'not found' });
  } catch (e) {
    json(res, 500, { error: String(e?.message ?? e) });
  }
});
server.listen(0, '127.0.0.1', () => console.log(`listening ${server.address().port}`));
