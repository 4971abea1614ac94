// Pays for one resource with the official x402 v2 buyer, npm @x402/fetch + @x402/evm (viem
// account), with its default spend controls, and prints one JSON line: the status, the decoded
// PAYMENT-RESPONSE and the body.
//
// With a wallet, it pays from that smart wallet (an ERC-1271 contract, contracts/src/SmartWallet.sol)
// instead: its signer is what a smart-account SDK hands the x402 client, the wallet's address and
// typed-data signatures made by the owner key, wrapped by viem's `serializeErc6492Signature` with
// the factory call that deploys the wallet (ERC-6492), as smart-account SDKs sign before their
// wallet exists.
//
// A paid write is a POST: BUY_METHOD and BUY_BODY (JSON) in the environment make the request one.
// The buyer's default spend cap is $1 a payment; BUY_MAX_USD raises it (a 25 USDC sponsor slot is
// a deliberate purchase, as a buyer would configure it).
//
// usage: node x402_fetch_v2.mjs <url> <private key> [<wallet> <factory> <factory calldata>]
import { createRequire } from 'node:module';

const require = createRequire(process.env.AGENTREP_CLIENTS_NODE_MODULES + '/');
const { wrapFetchWithPayment, x402Client, decodePaymentResponseHeader } = await import(require.resolve('@x402/fetch'));
const { ExactEvmScheme } = await import(require.resolve('@x402/evm/exact/client'));
const { privateKeyToAccount } = await import(require.resolve('viem/accounts'));
const { smartWalletSigner } = await import('./evm_chain.mjs');

const [url, pk, wallet, factory, factoryCalldata] = process.argv.slice(2);
const account = privateKeyToAccount(pk);
const signer = wallet ? smartWalletSigner(account, wallet, factory, factoryCalldata) : account;
const client = new x402Client().register('eip155:*', new ExactEvmScheme(signer));
if (process.env.BUY_MAX_USD) client.setSpendControls({ maxAmountPerPayment: Number(process.env.BUY_MAX_USD) });
const init = process.env.BUY_METHOD
  ? { method: process.env.BUY_METHOD, headers: { 'content-type': 'application/json' }, body: process.env.BUY_BODY ?? '{}' }
  : undefined;
const res = await wrapFetchWithPayment(fetch, client)(url, init);
const header = res.headers.get('PAYMENT-RESPONSE');
const body = await res.text();
console.log(JSON.stringify({
  status: res.status,
  settlement: header ? decodePaymentResponseHeader(header) : null,
  body: (() => { try { return JSON.parse(body); } catch { return body; } })(),
}));
