// A Farcaster hub double on loopback for the featured-cast tests: it takes `POST /v1/submitMessage`
// (a protobuf `Message`, as Hubble and Snapchain's HTTP API take it), decodes and validates it with
// Farcaster's own library (npm @farcaster/core: message data, BLAKE3 hash, Ed25519 signature), and
// accepts it only from the account and signer key it was started with (a hub checks the key
// registry); it answers the message as JSON with its hash in hex. `GET /_casts` lists what it took.
//
// usage: node hub.mjs <fid> <signer public key, 0x hex>; prints `listening <port>`.
import http from 'node:http';
import { createRequire } from 'node:module';

const require = createRequire(process.env.AGENTREP_CLIENTS_NODE_MODULES + '/');
const { Message, validations, bytesToHexString } = await import(require.resolve('@farcaster/core'));

const [fid, signerKey] = process.argv.slice(2);
const casts = [];
const hex = (bytes) => '0x' + Buffer.from(bytes).toString('hex');

const server = http.createServer(async (req, res) => {
  const reply = (status, body) => {
    res.writeHead(status, { 'content-type': 'application/json' });
    res.end(JSON.stringify(body));
  };
  if (req.method === 'GET' && req.url === '/_casts') return reply(200, casts);
  if (req.method !== 'POST' || req.url !== '/v1/submitMessage') return reply(404, { errCode: 'not_found' });
  const chunks = [];
  for await (const c of req) chunks.push(c);
  let message;
  try {
    message = Message.decode(Buffer.concat(chunks));
  } catch (e) {
    return reply(400, { errCode: 'bad_request.parse_failure', message: String(e) });
  }
  const valid = await validations.validateMessage(message);
  if (valid.isErr()) return reply(400, { errCode: valid.error.errCode, message: valid.error.message });
  if (String(message.data.fid) !== fid || hex(message.signer) !== signerKey.toLowerCase()) {
    return reply(400, { errCode: 'bad_request.validation_failure', message: 'invalid signer' });
  }
  const hash = bytesToHexString(message.hash)._unsafeUnwrap();
  casts.push({ hash, fid: message.data.fid, text: message.data.castAddBody?.text, embeds: message.data.castAddBody?.embeds.map((e) => e.url) });
  reply(200, { ...Message.toJSON(message), hash });
});
server.listen(0, '127.0.0.1', () => console.log(`listening ${server.address().port}`));
