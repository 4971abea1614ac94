// The guard with the real @x402/fetch + @x402/evm v2 client (a random viem account), against a fake
// agentrep preflight and a fake seller on 127.0.0.1. Refusals happen before anything is signed, so no
// chain is needed; a paid case only checks the seller received a PAYMENT-SIGNATURE.
//
// run: AGENTREP_CLIENTS_NODE_MODULES=/work/main/.tools/clients/node_modules node --test guards/js/test/
import { test, before, after, beforeEach } from 'node:test';
import assert from 'node:assert/strict';
import http from 'node:http';
import path from 'node:path';
import { createRequire } from 'node:module';
import { fileURLToPath } from 'node:url';

import { guardX402Client, X402GuardRefusal, refusalFrom } from '../src/index.js';

const here = path.dirname(fileURLToPath(import.meta.url));
const modules = process.env.AGENTREP_CLIENTS_NODE_MODULES || path.resolve(here, '../../../.tools/clients/node_modules');
const require = createRequire(modules + '/');
const { wrapFetchWithPayment, x402Client, x402HTTPClient, decodePaymentResponseHeader } = await import(require.resolve('@x402/fetch'));
const { ExactEvmScheme } = await import(require.resolve('@x402/evm/exact/client'));
const { ExactEvmSchemeV1 } = await import(require.resolve('@x402/evm/v1'));
const { privateKeyToAccount, generatePrivateKey } = await import(require.resolve('viem/accounts'));

const USDC = '0x833589fCD6eDb6E08f4c7C32D4f71b54bdA02913';
const SELLER = '0x5e11e5e11e5e11e5e11e5e11e5e11e5e11e5e11e';
const THIEF = '0xdec0dec0dec0dec0dec0dec0dec0dec0dec0dec0';
const account = privateKeyToAccount(generatePrivateKey());

const b64 = (value) => Buffer.from(JSON.stringify(value)).toString('base64');
const unb64 = (text) => JSON.parse(Buffer.from(text, 'base64').toString('utf8'));

/** @returns {Promise<{ server: http.Server, base: string }>} */
function listen(handler) {
  const server = http.createServer(handler);
  return new Promise((resolve) => server.listen(0, '127.0.0.1', () => resolve({ server, base: `http://127.0.0.1:${server.address().port}` })));
}
const close = (server) => new Promise((resolve) => { server.closeAllConnections?.(); server.close(() => resolve()); });
async function readJson(req) {
  const chunks = [];
  for await (const c of req) chunks.push(c);
  const text = Buffer.concat(chunks).toString('utf8');
  return text ? JSON.parse(text) : null;
}

// The seller: 402 with a v2 PAYMENT-REQUIRED header (or a v1 body) until a payment header comes.
const seller = { accepts: [], v1: false, claim: null, requests: [] };
let sellerSrv;
// agentrep: answers `respond(body)` → [status, json] (or null: never answers).
const agentrep = { respond: null, calls: [], trust: null, trustCalls: [] };
let agentrepSrv;

before(async () => {
  sellerSrv = await listen((req, res) => {
    const url = `${sellerSrv.base}${req.url}`;
    const signature = req.headers['payment-signature'] ?? req.headers['x-payment'] ?? null;
    seller.requests.push({ url, signature });
    if (signature) {
      const payload = unb64(signature);
      res.writeHead(200, {
        'content-type': 'application/json',
        'PAYMENT-RESPONSE': b64({ success: true, transaction: `0x${'ab'.repeat(32)}`, network: 'eip155:8453', payer: account.address }),
      });
      return res.end(JSON.stringify({ ok: true, paidTo: payload.accepted?.payTo ?? payload.payload?.authorization?.to }));
    }
    if (seller.v1) {
      res.writeHead(402, { 'content-type': 'application/json' });
      return res.end(JSON.stringify({ x402Version: 1, error: 'payment required', accepts: seller.accepts.map((o) => ({ ...o, resource: url })) }));
    }
    const paymentRequired = { x402Version: 2, error: 'Payment required', resource: { url: seller.claim ?? url, description: 'a paid answer', mimeType: 'application/json' }, accepts: seller.accepts };
    res.writeHead(402, { 'content-type': 'application/json', 'PAYMENT-REQUIRED': b64(paymentRequired) });
    res.end('{}');
  });
  agentrepSrv = await listen(async (req, res) => {
    const body = req.method === 'POST' ? await readJson(req) : null;
    if (req.url === '/api/agent/trust/evaluate') {
      agentrep.trustCalls.push(body);
      res.writeHead(200, { 'content-type': 'application/json' });
      return res.end(JSON.stringify(agentrep.trust(body)));
    }
    agentrep.calls.push({ method: req.method, path: req.url, contentType: req.headers['content-type'], body });
    const answer = agentrep.respond(body);
    if (answer === null) return; // hang
    res.writeHead(answer[0], { 'content-type': 'application/json' });
    res.end(JSON.stringify(answer[1]));
  });
});
after(async () => {
  await close(sellerSrv.server);
  await close(agentrepSrv.server);
});
beforeEach(() => {
  seller.accepts = [offer()];
  seller.v1 = false;
  seller.claim = null;
  seller.requests = [];
  agentrep.calls = [];
  agentrep.respond = (body) => [200, answer(body)];
  agentrep.trustCalls = [];
  agentrep.trust = () => ({ schema: 'x402-trust-evaluation-v0.1', decision: 'PASS', reason_code: 'proceed' });
});

test("the chosen offer's payee is asked of the trust-provider answer, and a FAIL is refused before signing", async () => {
  agentrep.trust = () => ({ schema: 'x402-trust-evaluation-v0.1', decision: 'FAIL', reason_code: 'block' });
  // Thrown from the hook before signing, so @x402/fetch rewraps it (see refusalFrom).
  await refused(guardedFetch()(paidUrl()), 'trust_fail', { plain: true });
  assert.equal(signed().length, 0, 'nothing was signed');
  const [q] = agentrep.trustCalls;
  assert.equal(q.direction, 'seller');
  assert.deepEqual(q.subject, { wallet: SELLER, chain: 'eip155:8453' });
  assert.deepEqual(q.resource.amount, { value: '0.01', currency: 'USDC', chain: 'eip155:8453' });
  // Turned off, it does not stand in the way of what the preflight allowed.
  const res = await guardedFetch({ trust: false })(paidUrl());
  assert.equal(res.status, 200);
});

function offer(over = {}) {
  return { scheme: 'exact', network: 'eip155:8453', asset: USDC, amount: '10000', payTo: SELLER, maxTimeoutSeconds: 60, extra: { name: 'USD Coin', version: '2' }, ...over };
}
function offerV1(over = {}) {
  return { scheme: 'exact', network: 'base', maxAmountRequired: '10000', description: 'a paid answer', mimeType: 'application/json', payTo: SELLER, maxTimeoutSeconds: 60, asset: USDC, extra: { name: 'USD Coin', version: '2' }, ...over };
}
/**
 * A canned `agentrep-url-preflight-v1` answer for the request body, shaped as agentrep answers: each
 * offer judged (payable when `exact`/`upto` on `eip155`), with the answer's decision unless
 * `perOffer[index]` says otherwise, and acceptable when it pays SELLER within the listed price.
 */
function answer(body, over = {}, perOffer = {}) {
  const accepts = body?.paymentRequired?.accepts ?? [];
  const listedPrice = over.maxAmount ?? '10000';
  return {
    version: 'agentrep-url-preflight-v1',
    url: body?.url,
    listed: true,
    decision: 'PROCEED',
    payTo: SELLER.toLowerCase(),
    seller: { address: SELLER.toLowerCase(), decision: 'PROCEED', score: 81, scoreBasis: 'measured', verdict: 'SAFE', color: 'green', flags: [] },
    listings: [{ resource: body?.url, payTo: SELLER.toLowerCase(), seller: SELLER.toLowerCase(), network: 'eip155:8453', asset: USDC.toLowerCase(), price: '10000', ecosystem: 'bazaar', lastSeen: '2026-11-28T10:00:00Z' }],
    offers: accepts.map((o, index) => ({
      index,
      scheme: o.scheme,
      network: o.network,
      asset: o.asset.toLowerCase(),
      payTo: o.payTo.toLowerCase(),
      amount: o.amount ?? o.maxAmountRequired,
      listedPrice: o.payTo.toLowerCase() === SELLER.toLowerCase() ? listedPrice : null,
      acceptable: o.payTo.toLowerCase() === SELLER.toLowerCase() && BigInt(o.amount ?? o.maxAmountRequired) <= BigInt(listedPrice),
      payable: ['exact', 'upto'].includes(o.scheme) && /^(eip155:|base)/.test(o.network),
      decision: over.decision ?? 'PROCEED',
      ...(perOffer[index] ?? {}),
    })),
    warnings: [],
    maxAmount: '10000',
    hostListings: [],
    snapshotDate: '2026-11-27',
    methodology: '3.0',
    ...over,
  };
}

/** The official client, guarded through its x402HTTPClient (the URL-aware hook). */
function guardedFetch(options = {}) {
  const client = new x402Client().register('eip155:*', new ExactEvmScheme(account));
  return wrapFetchWithPayment(fetch, guardX402Client(new x402HTTPClient(client), { agentrep: `${agentrepSrv.base}/api/agent`, ...options }));
}
/** The official client, guarded as a plain x402Client (the hook before signing asks the preflight). */
function guardedPlainFetch(options = {}, { v1 = false } = {}) {
  const client = new x402Client().register('eip155:*', new ExactEvmScheme(account));
  if (v1) client.registerV1('base', new ExactEvmSchemeV1(account));
  return wrapFetchWithPayment(fetch, guardX402Client(client, { agentrep: `${agentrepSrv.base}/api/agent`, ...options }));
}
const paidUrl = () => `${sellerSrv.base}/api/x?q=1`;
const signed = () => seller.requests.filter((r) => r.signature);

async function refused(promise, code, { plain = false } = {}) {
  let error = await promise.then(
    () => assert.fail('the payment was not refused'),
    (e) => e,
  );
  // A plain x402Client's refusal comes back rewrapped by @x402/fetch (see refusalFrom).
  if (plain) error = refusalFrom(error) ?? error;
  assert.ok(error instanceof X402GuardRefusal, `expected X402GuardRefusal, got ${error?.stack ?? error}`);
  assert.equal(error.code, code, error.message);
  assert.equal(signed().length, 0, 'nothing was signed and sent to the seller');
  return error;
}

test('PROCEED pays, and the preflight got the URL and the 402 as received', async () => {
  const res = await guardedFetch()(paidUrl());
  assert.equal(res.status, 200);
  assert.deepEqual(await res.json(), { ok: true, paidTo: SELLER });
  assert.equal(signed().length, 1, 'the seller received one PAYMENT-SIGNATURE');
  assert.equal(unb64(signed()[0].signature).accepted.payTo, SELLER);
  assert.equal(decodePaymentResponseHeader(res.headers.get('PAYMENT-RESPONSE')).success, true);
  assert.equal(agentrep.calls.length, 1, 'one preflight per payment');
  const call = agentrep.calls[0];
  assert.equal(call.method, 'POST');
  assert.equal(call.path, '/api/agent/preflight');
  assert.match(call.contentType, /^application\/json/);
  assert.equal(call.body.url, paidUrl());
  assert.deepEqual(call.body.paymentRequired, {
    x402Version: 2,
    error: 'Payment required',
    resource: { url: paidUrl(), description: 'a paid answer', mimeType: 'application/json' },
    accepts: [offer()],
  });
});

test('the preflight is asked about the URL requested, not the one the 402 claims', async () => {
  seller.claim = 'https://famous-seller.example/api/x';
  agentrep.respond = (body) => [200, answer(body, { decision: 'BLOCK' })];
  const e = await refused(guardedFetch()(paidUrl()), 'block');
  assert.equal(e.url, paidUrl());
  assert.equal(agentrep.calls[0].body.url, paidUrl());
  assert.equal(agentrep.calls[0].body.paymentRequired.resource.url, 'https://famous-seller.example/api/x');
});

test('BLOCK is refused, naming the decision and the seller flags', async () => {
  agentrep.respond = (body) => [200, answer(body, { decision: 'BLOCK', seller: { address: SELLER.toLowerCase(), decision: 'BLOCK', score: 12, verdict: 'SCAM', color: 'red', flags: ['single-payer', 'wash-trading'] } })];
  const e = await refused(guardedFetch()(paidUrl()), 'block');
  assert.match(e.reason, /BLOCK/);
  assert.match(e.reason, /single-payer, wash-trading/);
  assert.equal(e.preflight.decision, 'BLOCK');
  assert.equal(e.url, paidUrl());
  assert.match(e.message, /\[block\]/);
});

test('a decoy offer is refused, quoting the warning', async () => {
  seller.accepts = [offer({ payTo: THIEF })];
  agentrep.respond = (body) => [200, answer(body, { decision: 'CAUTION', warnings: [{ code: 'decoy', severity: 'block', offer: 0, message: 'pays 0xdec0… but the listing pays 0x5e11…' }] })];
  const e = await refused(guardedFetch({ onCaution: { maxAmount: '50000' } })(paidUrl()), 'decoy');
  assert.match(e.reason, /pays 0xdec0… but the listing pays 0x5e11…/);
  assert.equal(e.offer, 0);
});

test('a decoy warning not tied to an offer refuses the whole 402', async () => {
  agentrep.respond = (body) => [200, answer(body, { warnings: [{ code: 'decoy', severity: 'block', offer: null, message: 'this URL impersonates a listed seller' }] })];
  const e = await refused(guardedFetch()(paidUrl()), 'decoy');
  assert.match(e.reason, /impersonates/);
});

test('a price trap is refused, quoting the warning', async () => {
  seller.accepts = [offer({ amount: '900000' })];
  agentrep.respond = (body) => [200, answer(body, { maxAmount: '1000000', warnings: [{ code: 'price_trap', severity: 'block', offer: 0, message: 'asks 0.90 USDC, 90x the listed 0.01' }] })];
  const e = await refused(guardedFetch()(paidUrl()), 'price_trap');
  assert.match(e.reason, /90x the listed/);
});

test('CAUTION is refused by default', async () => {
  agentrep.respond = (body) => [200, answer(body, { decision: 'CAUTION', warnings: [{ code: 'overlay', severity: 'caution', offer: null, message: 'young seller, one payer' }] })];
  const e = await refused(guardedFetch()(paidUrl()), 'caution');
  assert.match(e.reason, /CAUTION/);
  assert.match(e.reason, /young seller, one payer/);
});

test('CAUTION pays under an onCaution cap and refuses above it', async () => {
  agentrep.respond = (body) => [200, answer(body, { decision: 'CAUTION', maxAmount: '100000' })];
  const res = await guardedFetch({ onCaution: { maxAmount: '50000' } })(paidUrl());
  assert.equal(res.status, 200);
  assert.equal(signed().length, 1);

  seller.requests = [];
  seller.accepts = [offer({ amount: '60000' })];
  const e = await refused(guardedFetch({ onCaution: { maxAmount: 50000 } })(paidUrl()), 'caution');
  assert.match(e.reason, /60000.*cap 50000/);
});

test('PROCEED_LOW_VALUE pays up to the listed amount by default and is refused with onLowValue "refuse"', async () => {
  agentrep.respond = (body) => [200, answer(body, { decision: 'PROCEED_LOW_VALUE' })];
  assert.equal((await guardedFetch()(paidUrl())).status, 200);
  seller.requests = [];
  await refused(guardedFetch({ onLowValue: 'refuse' })(paidUrl()), 'low_value');
});

test('PROCEED_LOW_VALUE with no listed amount is capped at the stated default unless allowed', async () => {
  const unlisted = (body) => {
    const a = answer(body, { decision: 'PROCEED_LOW_VALUE', listed: false, maxAmount: null }, { 0: { listedPrice: null, acceptable: false } });
    return [200, a];
  };
  agentrep.respond = unlisted;
  seller.accepts = [offer({ amount: '100000' })];
  assert.equal((await guardedFetch()(paidUrl())).status, 200, 'at the default cap');
  seller.requests = [];
  seller.accepts = [offer({ amount: '100001' })];
  const e = await refused(guardedFetch()(paidUrl()), 'low_value');
  assert.match(e.reason, /100001.*cap 100000/);
  seller.requests = [];
  assert.equal((await guardedFetch({ onLowValue: 'allow' })(paidUrl())).status, 200, 'uncapped when allowed');
});

test('each offer is held to its own decision: the client pays the PROCEED payee, not the stranger', async () => {
  seller.accepts = [offer({ payTo: THIEF, amount: '5000000' }), offer()];
  agentrep.respond = (body) => [200, answer(body, { decision: 'CAUTION', listed: false, maxAmount: null }, { 0: { decision: 'CAUTION' }, 1: { decision: 'PROCEED' } })];
  const res = await guardedFetch()(paidUrl());
  assert.equal(res.status, 200);
  assert.equal(unb64(signed()[0].signature).accepted.payTo, SELLER, 'the client paid the PROCEED offer');
});

test('an offer agentrep cannot judge lends nobody its standing, and the other offer is held to its own payee', async () => {
  // The attack of issue 52: an offer of an unknown scheme naming a top seller beside an `exact`
  // offer paying a stranger 5 USDC.
  seller.accepts = [offer({ scheme: 'mystery' }), offer({ payTo: THIEF, amount: '5000000' })];
  agentrep.respond = (body) => [200, answer(body, { decision: 'CAUTION', listed: false, maxAmount: null }, { 0: { payable: false, decision: null }, 1: { decision: 'CAUTION' } })];
  const e = await refused(guardedFetch()(paidUrl()), 'caution');
  assert.match(e.reason, /cannot judge mystery/);
});

test('an offer agentrep judged differently than the 402 has it is refused', async () => {
  seller.accepts = [offer()];
  agentrep.respond = (body) => [200, answer(body, {}, { 0: { payTo: THIEF.toLowerCase() } })];
  const e = await refused(guardedFetch()(paidUrl()), 'not_acceptable');
  assert.match(e.reason, /judged another offer/);
});

test('an offer above the listing maxAmount is refused', async () => {
  seller.accepts = [offer({ amount: '20000' })];
  const e = await refused(guardedFetch()(paidUrl()), 'over_listing');
  assert.match(e.reason, /20000.*maxAmount 10000/);
});

test('of several offers, only an acceptable one is paid', async () => {
  seller.accepts = [offer({ payTo: THIEF }), offer()];
  agentrep.respond = (body) => [200, answer(body, { warnings: [{ code: 'network_not_listed', severity: 'block', offer: 0, message: 'offer 0 pays another wallet than listed' }] })];
  const res = await guardedFetch()(paidUrl());
  assert.equal(res.status, 200);
  assert.equal(signed().length, 1);
  assert.equal(unb64(signed()[0].signature).accepted.payTo, SELLER, 'the client paid the acceptable offer, not the first');
});

test('a listed URL whose offers are all unacceptable is refused', async () => {
  seller.accepts = [offer({ payTo: THIEF })];
  await refused(guardedFetch()(paidUrl()), 'not_acceptable');
});

test('preflight down, failing or slow is refused by default', async () => {
  const { server, base } = await listen(() => {});
  await close(server); // nothing listens there any more
  let e = await refused(guardedFetch({ agentrep: `${base}/api/agent` })(paidUrl()), 'unavailable');
  assert.match(e.reason, /unavailable/);
  assert.equal(e.preflight, null);

  agentrep.respond = () => [503, { error: { code: 'snapshot_unavailable', message: 'no snapshot yet' } }];
  e = await refused(guardedFetch()(paidUrl()), 'unavailable');
  assert.match(e.reason, /HTTP 503 \(snapshot_unavailable: no snapshot yet\)/);

  agentrep.respond = () => null;
  const started = Date.now();
  e = await refused(guardedFetch({ timeoutMs: 200 })(paidUrl()), 'unavailable');
  assert.ok(Date.now() - started < 2000);
  assert.match(e.reason, /within 200 ms/);

  agentrep.respond = () => [200, { hello: 'world' }];
  await refused(guardedFetch()(paidUrl()), 'unavailable');
});

test('preflight down pays with onUnavailable "allow"', async () => {
  agentrep.respond = () => [500, { error: { code: 'internal', message: 'boom' } }];
  const res = await guardedFetch({ onUnavailable: 'allow' })(paidUrl());
  assert.equal(res.status, 200);
  assert.equal(signed().length, 1);
});

test('each payment asks the preflight once, nothing is cached', async () => {
  const pay = guardedFetch();
  await pay(paidUrl());
  await pay(paidUrl());
  assert.equal(agentrep.calls.length, 2);
  assert.equal(signed().length, 2);
});

test('a guarded plain x402Client asks about resource.url and refuses before signing', async () => {
  const pay = guardedPlainFetch();
  assert.equal((await pay(paidUrl())).status, 200);
  assert.equal(agentrep.calls.length, 1);
  assert.equal(agentrep.calls[0].body.url, paidUrl());
  assert.equal(agentrep.calls[0].body.paymentRequired.accepts[0].payTo, SELLER);

  seller.requests = [];
  agentrep.respond = (body) => [200, answer(body, { decision: 'BLOCK' })];
  // @x402/fetch rewraps errors raised while creating the payment in a plain Error.
  const error = await pay(paidUrl()).then(() => assert.fail('not refused'), (e) => e);
  assert.match(error.message, /^Failed to create payment payload: agentrep x402 guard refused payment/);
  const refusal = refusalFrom(error);
  assert.ok(refusal instanceof X402GuardRefusal);
  assert.equal(refusal.code, 'block');
  assert.equal(refusal.url, paidUrl());
  assert.equal(signed().length, 0);
});

test('v1: the 402 body is sent and maxAmountRequired is held to the listing', async () => {
  seller.v1 = true;
  seller.accepts = [offerV1({ maxAmountRequired: '20000' })];
  await refused(guardedPlainFetch({}, { v1: true })(paidUrl()), 'over_listing', { plain: true });
  const sent = agentrep.calls[0].body;
  assert.equal(sent.url, paidUrl(), 'the v1 offer names the resource');
  assert.equal(sent.paymentRequired.x402Version, 1);
  assert.equal(sent.paymentRequired.accepts[0].maxAmountRequired, '20000');
});

test('options are checked', () => {
  const client = new x402Client();
  assert.throws(() => guardX402Client(client, {}), TypeError);
  assert.throws(() => guardX402Client(client, { agentrep: 'http://x', onCaution: 'allow' }), TypeError);
  assert.throws(() => guardX402Client(client, { agentrep: 'http://x', onLowValue: { maxAmount: '1.5' } }), TypeError);
  assert.throws(() => guardX402Client({}, { agentrep: 'http://x' }), TypeError);
  assert.equal(guardX402Client(client, { agentrep: 'http://x/api/agent/' }), client);
});
