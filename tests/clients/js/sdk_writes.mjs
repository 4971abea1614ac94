// Performs every write of the original service's SDK (npm mainstreet-oracle 0.9.2) against agentrep
// on loopback, signing with real keys (viem), and reads each back with the SDK's own read functions.
// Prints one JSON line of results; exits 1 on the first failure.
//
// usage: node sdk_writes.mjs <origin> <json: {agent, hookUrl}>
import { createRequire } from 'node:module';

const require = createRequire(process.env.AGENTREP_CLIENTS_NODE_MODULES + '/');
const ms = require('mainstreet-oracle/sdk');
const { privateKeyToAccount, generatePrivateKey } = require('viem/accounts');
const [origin, argsJson] = process.argv.slice(2);
const { agent, hookUrl } = JSON.parse(argsJson);
ms.configure({ origin });

function check(cond, what, value) {
  if (!cond) {
    console.log(JSON.stringify({ ok: false, failed: what, value }));
    process.exit(1);
  }
}

const buyer = privateKeyToAccount(generatePrivateKey());
const wallet = privateKeyToAccount(generatePrivateKey());
const subscriber = privateKeyToAccount(generatePrivateKey());
const results = {};
try {
  // postReceipt, as the SDK's own docs say: buildReceiptMessage, signMessage, postReceipt.
  const message = ms.buildReceiptMessage({ buyerAddr: buyer.address, agentAddr: agent, success: true, latencyMs: 420, rating: 88, comment: 'fast and right' });
  const signature = await buyer.signMessage({ message });
  results.postReceipt = await ms.postReceipt({ buyerAddr: buyer.address, agentAddr: agent, success: true, latencyMs: 420, rating: 88, comment: 'fast and right', message, signature });
  check(results.postReceipt.ok === true && Number.isInteger(results.postReceipt.id), 'postReceipt', results.postReceipt);
  results.receipts = await ms.receipts(agent);
  check(results.receipts.summary.total >= 1 && results.receipts.receipts.some((r) => r.id === results.postReceipt.id && r.rating === 88), 'receipts', results.receipts);

  // claimBadge, then badges.
  const claim = `agentrep badge claim\naddress: ${wallet.address.toLowerCase()}\ntimestamp=${Date.now()}`;
  results.claimBadge = await ms.claimBadge({ address: wallet.address, message: claim, signature: await wallet.signMessage({ message: claim }) });
  check(results.claimBadge.ok === true && typeof results.claimBadge.badgeUrl === 'string' && typeof results.claimBadge.embed === 'string', 'claimBadge', results.claimBadge);
  results.badges = await ms.badges();
  check(results.badges.badges.some((b) => b.address === wallet.address.toLowerCase()), 'badges', results.badges);

  // addWatch, then watchlist (the d.ts's `addresses` and the CLI's `watching`).
  const watch = `agentrep watch\nwatch: ${agent}\nlabel: main seller\ntimestamp=${Date.now()}`;
  results.addWatch = await ms.addWatch({ subscriberAddr: subscriber.address, watchAddr: agent, label: 'main seller', message: watch, signature: await subscriber.signMessage({ message: watch }) });
  check(results.addWatch.ok === true, 'addWatch', results.addWatch);
  results.watchlist = await ms.watchlist(subscriber.address);
  check(results.watchlist.count === 1 && results.watchlist.addresses[0] === agent && results.watchlist.watching[0].watch_addr === agent, 'watchlist', results.watchlist);

  // subscribeWebhook, then listWebhooks (the d.ts's WebhookSubscribeResponse and WebhookSubscription).
  results.subscribeWebhook = await ms.subscribeWebhook({ subscriberAddr: subscriber.address, watchAddr: agent, webhookUrl: hookUrl, thresholdDelta: 3 });
  const s = results.subscribeWebhook;
  check(typeof s.version === 'string' && s.ok === true && typeof s.message === 'string' && typeof s.checkUrl === 'string', 'subscribeWebhook', s);
  results.listWebhooks = await ms.listWebhooks(subscriber.address);
  const l = results.listWebhooks;
  const w = l.subscriptions[0];
  check(typeof l.version === 'string' && l.count === 1 && Number.isInteger(w.id) && w.watch_addr === agent && w.threshold_delta === 3
    && typeof w.webhook_url === 'string' && typeof w.created_at === 'string' && (w.paid_until === null || typeof w.paid_until === 'string'), 'listWebhooks', l);
} catch (e) {
  check(false, 'threw', String(e?.stack ?? e));
}
console.log(JSON.stringify({ ok: true, buyer: buyer.address.toLowerCase(), subscriber: subscriber.address.toLowerCase(), results }));
