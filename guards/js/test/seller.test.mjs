// The seller's guard against a loopback double of agentrep's POST /trust/evaluate: what it asks, what
// it refuses, its time budget, its fail modes and its cache (which honours `expires_at`).
import assert from 'node:assert/strict';
import http from 'node:http';
import { test } from 'node:test';

import { TRUST_FAILED, TRUST_UNAVAILABLE, TRUST_UNCERTAIN, guardX402ResourceServer, payerOf, trustAsker, usdcAmount } from '../src/seller.js';

const USDC = '0x833589fCD6eDb6E08f4c7C32D4f71b54bdA02913';
const GOOD = '0x' + '11'.repeat(20);
const BAD = '0x' + '22'.repeat(20);
const NEW = '0x' + '33'.repeat(20);

/** A double of agentrep: answers by payer, counts and records the queries; `delayMs` stalls it. */
async function agentrep({ delayMs = 0, expiresInMs = 60_000 } = {}) {
  const queries = [];
  const server = http.createServer((req, res) => {
    let body = '';
    req.on('data', (c) => (body += c));
    req.on('end', () => {
      const q = JSON.parse(body);
      queries.push({ path: req.url, q });
      const wallet = q.payer?.wallet;
      const decision = wallet === BAD ? 'FAIL' : wallet === NEW ? 'UNCERTAIN' : 'PASS';
      const answer = {
        schema: 'x402-trust-evaluation-v0.1', decision, reason_code: wallet === BAD ? 'denylisted' : 'payer_in_good_standing',
        expires_at: new Date(Date.now() + expiresInMs).toISOString(),
      };
      setTimeout(() => {
        res.writeHead(200, { 'content-type': 'application/json' });
        res.end(JSON.stringify(answer));
      }, delayMs);
    });
  });
  await new Promise((r) => server.listen(0, '127.0.0.1', r));
  const base = `http://127.0.0.1:${server.address().port}/api/agent`;
  return { base, queries, close: () => new Promise((r) => server.close(r)) };
}

const payment = (from) => ({ x402Version: 2, resource: { url: 'https://me.example/api' }, payload: { authorization: { from } } });
const requirements = { scheme: 'exact', network: 'eip155:8453', asset: USDC, amount: '10000', payTo: GOOD };

test('reads the payer and the amount the drafts ask for', () => {
  assert.equal(payerOf(payment(GOOD.toUpperCase().replace('0X', '0x'))), GOOD);
  assert.equal(payerOf({ payload: { permit2Authorization: { from: BAD } } }), BAD);
  assert.equal(payerOf({ payload: {} }), null);
  assert.equal(usdcAmount(requirements), '0.01');
  assert.equal(usdcAmount({ ...requirements, amount: '1000000' }), '1');
  assert.equal(usdcAmount({ ...requirements, amount: '1234567' }), '1.234567');
  assert.equal(usdcAmount({ ...requirements, asset: '0x' + '99'.repeat(20) }), null);
});

test('refuses FAIL, accepts PASS and UNCERTAIN by default, and asks the buyer direction', async () => {
  const a = await agentrep();
  try {
    const ask = trustAsker({ agentrep: a.base });
    assert.equal((await ask(payment(GOOD), requirements)).accept, true);
    const bad = await ask(payment(BAD), requirements);
    assert.deepEqual([bad.accept, bad.reason], [false, TRUST_FAILED]);
    assert.match(bad.message, /denylisted/);
    assert.equal((await ask(payment(NEW), requirements)).accept, true);
    const strict = trustAsker({ agentrep: a.base, onUncertain: 'refuse' });
    assert.equal((await strict(payment(NEW), requirements)).reason, TRUST_UNCERTAIN);
    const { path, q } = a.queries[0];
    assert.equal(path, '/api/agent/trust/evaluate');
    assert.equal(q.direction, 'buyer');
    assert.deepEqual(q.resource.amount, { value: '0.01', currency: 'USDC', chain: 'eip155:8453' });
  } finally {
    await a.close();
  }
});

test('keeps an answer until its expires_at, and asks again after', async () => {
  const a = await agentrep({ expiresInMs: 60_000 });
  try {
    let clock = Date.now();
    const ask = trustAsker({ agentrep: a.base, now: () => clock });
    await ask(payment(GOOD), requirements);
    await ask(payment(GOOD), requirements);
    assert.equal(a.queries.length, 1);
    clock += 61_000;
    await ask(payment(GOOD), requirements);
    assert.equal(a.queries.length, 2);
  } finally {
    await a.close();
  }
});

test('a slow or absent agentrep refuses when closed and accepts when open', async () => {
  const a = await agentrep({ delayMs: 500 });
  try {
    const closed = await trustAsker({ agentrep: a.base, timeoutMs: 50 })(payment(GOOD), requirements);
    assert.deepEqual([closed.accept, closed.reason], [false, TRUST_UNAVAILABLE]);
    const open = await trustAsker({ agentrep: a.base, timeoutMs: 50, failMode: 'open' })(payment(BAD), requirements);
    assert.equal(open.accept, true);
  } finally {
    await a.close();
  }
  const gone = await trustAsker({ agentrep: 'http://127.0.0.1:9/api/agent' })(payment(GOOD), requirements);
  assert.equal(gone.reason, TRUST_UNAVAILABLE);
});

test('registers one onBeforeVerify hook that aborts a FAIL', async () => {
  const a = await agentrep();
  try {
    const hooks = [];
    const server = { onBeforeVerify: (h) => hooks.push(h) };
    assert.equal(guardX402ResourceServer(server, { agentrep: a.base }), server);
    assert.equal(hooks.length, 1);
    assert.deepEqual(await hooks[0]({ paymentPayload: payment(BAD), requirements }), {
      abort: true, reason: TRUST_FAILED, message: `agentrep answers FAIL (denylisted) for payer ${BAD}`,
    });
    assert.equal(await hooks[0]({ paymentPayload: payment(GOOD), requirements }), undefined);
    assert.throws(() => guardX402ResourceServer({}, { agentrep: a.base }), TypeError);
  } finally {
    await a.close();
  }
});
