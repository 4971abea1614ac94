// A webhook receiver on loopback that verifies every delivery with the official Standard Webhooks
// library (npm standardwebhooks), the way a subscriber's server would.
//
// usage: node receiver.mjs   (prints `listening <port>`, then serves until killed)
//   POST /_secret  {path, secret}      the secret of the subscription that delivers to `path`
//   POST /_mode    {path, mode}        ok | fail-once | slow-once | slow (2 s before every answer) | down (503)
//   GET  /_log                         every delivery seen: {path, id, type, verified, error, receivedAt, answeredAt, status}
//   POST /<path>                       a delivery: verified with the path's secret; answered per its mode
import http from 'node:http';
import { createRequire } from 'node:module';

const require = createRequire(process.env.AGENTREP_CLIENTS_NODE_MODULES + '/');
const { Webhook } = require('standardwebhooks');

const secrets = new Map();
const modes = new Map();
const seen = new Map(); // path + id -> attempts so far
const log = [];

function body(req) {
  return new Promise((resolve) => {
    const chunks = [];
    req.on('data', (c) => chunks.push(c));
    req.on('end', () => resolve(Buffer.concat(chunks).toString('utf8')));
  });
}

const server = http.createServer(async (req, res) => {
  const text = await body(req);
  if (req.url === '/_secret' || req.url === '/_mode') {
    const { path, secret, mode } = JSON.parse(text);
    if (req.url === '/_secret') secrets.set(path, secret);
    else modes.set(path, mode);
    res.writeHead(204).end();
    return;
  }
  if (req.url === '/_log') {
    res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify(log));
    return;
  }
  const path = req.url;
  const id = req.headers['webhook-id'];
  const entry = { path, id, type: null, verified: false, error: null, receivedAt: Date.now(), answeredAt: null, status: null };
  log.push(entry);
  try {
    const payload = new Webhook(secrets.get(path) ?? '').verify(text, req.headers);
    entry.verified = true;
    entry.type = payload.type;
  } catch (e) {
    entry.error = String(e?.message ?? e);
  }
  const attempt = (seen.get(path + id) ?? 0) + 1;
  seen.set(path + id, attempt);
  const mode = modes.get(path) ?? 'ok';
  let status = entry.verified ? 204 : 400;
  let delay = 0;
  if (mode === 'fail-once' && attempt === 1) status = 500;
  if (mode === 'slow-once' && attempt === 1) delay = 4000;
  if (mode === 'slow') delay = 2000;
  if (mode === 'down') status = 503;
  if (delay) await new Promise((r) => setTimeout(r, delay));
  if (res.destroyed || req.socket.destroyed) return;
  res.writeHead(status).end(() => {
    entry.answeredAt = Date.now();
    entry.status = status;
  });
});
server.listen(0, '127.0.0.1', () => console.log(`listening ${server.address().port}`));
