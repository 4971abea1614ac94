// Places the published settlement contracts on a loopback anvil and pays a seller through each of
// them with the official x402 packages, as tests/ingest/forms.rs plans it.
//
// usage: node settle_forms.mjs <rpc url> <plan.json>
//   plan: { facilitatorKey, seller, exact: {payerKey, amount}, upto: {payerKey, max, amount},
//           escrow: {payerKey, authorize, capture, feeBps, refund, voided, charge,
//                   charger: {wallet, ownerKey, factory, factoryCalldata}},
//           batch: {payerKey, deposit, claims: [cumulative totals]} }
//
// The contracts are the ones contracts/artifacts/published holds, compiled from their published
// sources (contracts/vendor): Uniswap Permit2, x402ExactPermit2Proxy, x402UptoPermit2Proxy,
// x402BatchSettlement with its ERC-3009 deposit collector, and AuthCaptureEscrow v1.0 with its
// ERC-3009 payment and operator refund collectors. Each is deployed with its constructor, then its
// runtime code is placed at the published address (anvil_setCode). Two of them carry their deployed
// address in immutables and are mended so they behave as deployed at the published address:
//   - Permit2 caches its EIP-712 separator with the chain id: it is deployed under another chain
//     id, so at 8453 it recomputes the separator from its own (canonical) address;
//   - AuthCaptureEscrow's constructor deploys its TokenStore implementation, which names the
//     escrow that may move its funds: that implementation's code is replaced by a TokenStore built
//     for the published escrow address.
//
// Each form settles as the official packages do where they settle it:
//   - exact with Permit2: @x402/evm ExactEvmScheme client (assetTransferMethod permit2) signs,
//     the @x402/core facilitator with @x402/evm's ExactEvmScheme verifies and settles;
//   - upto: @x402/evm UptoEvmScheme client signs the maximum, its facilitator settles less;
//   - batch-settlement: @x402/evm's batch client signs the ERC-3009 deposit and the vouchers, its
//     facilitator deposits, claims with the receiver authorizer's signature, and sweeps;
//   - auth-capture: @x402/evm's AuthCaptureEvmScheme client signs the ERC-3009 authorization;
//     @x402/evm 2.27 has no auth-capture facilitator, so the operator's calls (authorize, capture,
//     refund, void, charge) are sent here, by hand, with the client's payload.
// Prints one JSON line: what settled (transactions by form).
import fs from 'node:fs';
import { connect, load, smartWalletSigner } from './evm_chain.mjs';

const { x402Facilitator } = await load('@x402/core/facilitator');
const { ExactEvmScheme: ExactClient } = await load('@x402/evm/exact/client');
const { ExactEvmScheme: ExactFacilitator } = await load('@x402/evm/exact/facilitator');
const { UptoEvmScheme: UptoClient } = await load('@x402/evm/upto/client');
const { UptoEvmScheme: UptoFacilitator } = await load('@x402/evm/upto/facilitator');
const { AuthCaptureEvmScheme } = await load('@x402/evm/auth-capture/client');
const batchClient = await load('@x402/evm/batch-settlement/client');
const { BatchSettlementEvmScheme: BatchFacilitator } = await load('@x402/evm/batch-settlement/facilitator');
const { encodeAbiParameters, keccak256, maxUint256, toBytes, erc20Abi, getAddress } = await load('viem');
const { privateKeyToAccount } = await load('viem/accounts');

const [rpc, planFile] = process.argv.slice(2);
const plan = JSON.parse(fs.readFileSync(planFile, 'utf8'));
const NETWORK = 'eip155:8453';
const CHAIN_ID = 8453;
const USDC = '0x833589fCD6eDb6E08f4c7C32D4f71b54bdA02913';
const PERMIT2 = '0x000000000022D473030F116dDEE9F6B43aC78BA3';
const AT = {
  x402ExactPermit2Proxy: '0x402085c248EeA27D92E8b30b2C58ed07f9E20001',
  x402UptoPermit2Proxy: '0x4020A4f3b7b90ccA423B9fabCc0CE57C6C240002',
  x402BatchSettlement: '0x4020074e9dF2ce1deE5A9C1b5c3f541D02a10003',
  ERC3009DepositCollector: '0x4020806089470a89826cB9fB1f4059150b550004',
  AuthCaptureEscrow: '0xBdEA0D1bcC5966192B070Fdf62aB4EF5b4420cff',
  ERC3009PaymentCollector: '0x0E3dF9510de65469C4518D7843919c0b8C7A7757',
  OperatorRefundCollector: '0x934907bffd0901b6A21e398B9C53A4A38F02fa5d',
};

const artifact = (name) =>
  JSON.parse(fs.readFileSync(new URL(`../../../contracts/artifacts/published/${name}.json`, import.meta.url), 'utf8'));
const { account, wallet, signer } = await connect(rpc, plan.facilitatorKey);
const rpcCall = (method, params) => wallet.request({ method, params });

async function mined(hash) {
  const receipt = await wallet.waitForTransactionReceipt({ hash });
  if (receipt.status !== 'success') throw new Error(`transaction ${hash} reverted`);
  return receipt;
}

/** Deploys `name` with `args` (sent through the node, whatever chain id it has); its address. */
async function deploy(name, args = []) {
  const { abi, bytecode } = artifact(name);
  const ctor = abi.find((i) => i.type === 'constructor');
  const encoded = ctor ? encodeAbiParameters(ctor.inputs, args).slice(2) : '';
  const hash = await rpcCall('eth_sendTransaction', [{ from: account.address, data: bytecode + encoded }]);
  return (await mined(hash)).contractAddress;
}

async function place(name, args, at) {
  const scratch = await deploy(name, args);
  await rpcCall('anvil_setCode', [at, await wallet.getCode({ address: scratch })]);
  return scratch;
}

// Permit2, deployed under chain id 1 so that at 8453 its separator names its canonical address.
await rpcCall('anvil_setChainId', [1]);
await place('Permit2', [], PERMIT2);
await rpcCall('anvil_setChainId', [CHAIN_ID]);
const separator = keccak256(
  encodeAbiParameters(
    [{ type: 'bytes32' }, { type: 'bytes32' }, { type: 'uint256' }, { type: 'address' }],
    [keccak256(toBytes('EIP712Domain(string name,uint256 chainId,address verifyingContract)')), keccak256(toBytes('Permit2')), BigInt(CHAIN_ID), PERMIT2],
  ),
);
const permit2Abi = artifact('Permit2').abi;
if ((await wallet.readContract({ address: PERMIT2, abi: permit2Abi, functionName: 'DOMAIN_SEPARATOR' })) !== separator) {
  throw new Error('Permit2 at its canonical address does not sign for it');
}
await place('x402ExactPermit2Proxy', [PERMIT2], AT.x402ExactPermit2Proxy);
await place('x402UptoPermit2Proxy', [PERMIT2], AT.x402UptoPermit2Proxy);
await place('x402BatchSettlement', [], AT.x402BatchSettlement);
await place('ERC3009DepositCollector', [AT.x402BatchSettlement], AT.ERC3009DepositCollector);
const escrowAbi = artifact('AuthCaptureEscrow').abi;
const scratchEscrow = await place('AuthCaptureEscrow', [], AT.AuthCaptureEscrow);
const tokenStoreImplementation = await wallet.readContract({
  address: scratchEscrow,
  abi: escrowAbi,
  functionName: 'tokenStoreImplementation',
});
const storeForPublished = await deploy('TokenStore', [AT.AuthCaptureEscrow]);
await rpcCall('anvil_setCode', [tokenStoreImplementation, await wallet.getCode({ address: storeForPublished })]);
await place('ERC3009PaymentCollector', [AT.AuthCaptureEscrow, '0xcA11bde05977b3631167028862bE2a173976CA11'], AT.ERC3009PaymentCollector);
await place('OperatorRefundCollector', [AT.AuthCaptureEscrow], AT.OperatorRefundCollector);

const settled = {};
const record = (form, response) => {
  if (!response.success) throw new Error(`${form}: ${response.errorReason} ${response.errorMessage ?? ''}`);
  (settled[form] ??= []).push(response.transaction);
};
const requirements = (scheme, amount, extra) => ({
  scheme,
  network: NETWORK,
  amount: String(amount),
  asset: USDC,
  payTo: plan.seller,
  maxTimeoutSeconds: 600,
  extra: { name: 'USD Coin', version: '2', ...extra },
});
const approvePermit2 = async (payer) => {
  const hash = await rpcCall('eth_sendTransaction', [
    {
      from: payer.address,
      to: USDC,
      data: (await load('viem')).encodeFunctionData({ abi: erc20Abi, functionName: 'approve', args: [PERMIT2, maxUint256] }),
    },
  ]);
  await mined(hash);
};

// exact through the Permit2 proxy.
{
  const payer = privateKeyToAccount(plan.exact.payerKey);
  await approvePermit2(payer);
  const accepted = requirements('exact', plan.exact.amount, { assetTransferMethod: 'permit2' });
  const signed = await new ExactClient(payer).createPaymentPayload(2, accepted);
  const facilitator = new x402Facilitator().register(NETWORK, new ExactFacilitator(signer));
  const payload = { ...signed, accepted };
  const verified = await facilitator.verify(payload, accepted);
  if (!verified.isValid) throw new Error(`exact: ${verified.invalidReason} ${verified.invalidMessage ?? ''}`);
  record('permit2', await facilitator.settle(payload, accepted));
}

// upto: the payer signs the maximum, the facilitator settles what was used.
{
  const payer = privateKeyToAccount(plan.upto.payerKey);
  await approvePermit2(payer);
  const accepted = requirements('upto', plan.upto.max, { facilitatorAddress: account.address });
  const signed = await new UptoClient(payer).createPaymentPayload(2, accepted);
  const facilitator = new x402Facilitator().register(NETWORK, new UptoFacilitator(signer));
  const payload = { ...signed, accepted };
  const verified = await facilitator.verify(payload, accepted);
  if (!verified.isValid) throw new Error(`upto: ${verified.invalidReason} ${verified.invalidMessage ?? ''}`);
  record('upto', await facilitator.settle(payload, { ...accepted, amount: String(plan.upto.amount) }));
}

// batch-settlement: a deposit, two claims of cumulative vouchers, one sweep.
{
  const payer = privateKeyToAccount(plan.batch.payerKey);
  const accepted = requirements('batch-settlement', plan.batch.claims[0], {
    receiverAuthorizer: account.address,
    withdrawDelay: 3600,
  });
  const channelConfig = {
    payer: payer.address,
    payerAuthorizer: payer.address,
    receiver: getAddress(plan.seller),
    receiverAuthorizer: account.address,
    token: USDC,
    withdrawDelay: 3600,
    salt: keccak256(toBytes('agentrep settle_forms channel')),
  };
  const facilitator = new BatchFacilitator(signer, account);
  const signed = await batchClient.createBatchSettlementEIP3009DepositPayload(
    payer,
    2,
    accepted,
    channelConfig,
    String(plan.batch.deposit),
    String(plan.batch.claims[0]),
  );
  const deposit = { ...signed, accepted };
  const verified = await facilitator.verify(deposit, accepted);
  if (!verified.isValid) throw new Error(`batch deposit: ${verified.invalidReason} ${verified.invalidMessage ?? ''}`);
  record('batch_deposit', await facilitator.settle(deposit, accepted));
  const channelId = batchClient.computeChannelId(channelConfig, NETWORK);
  for (const total of plan.batch.claims) {
    const voucher = await batchClient.signVoucher(payer, channelId, String(total), NETWORK);
    const claim = {
      type: 'claim',
      claims: [{ voucher: { channel: channelConfig, maxClaimableAmount: String(total) }, signature: voucher.signature, totalClaimed: String(total) }],
    };
    record('batch_claim', await facilitator.settle({ x402Version: 2, accepted, payload: claim }, accepted));
  }
  const sweep = { type: 'settle', receiver: getAddress(plan.seller), token: USDC };
  record('batch_sweep', await facilitator.settle({ x402Version: 2, accepted, payload: sweep }, accepted));
}

// auth-capture through the escrow v1.0: the client signs, the operator (the facilitator's
// account) authorizes, captures with a fee, refunds part; a second payment is voided; a third is
// charged in one call, paid by a smart wallet that does not exist yet (its ERC-6492 signature makes
// the collector deploy it through Multicall3 before USDC checks its ERC-1271 signature).
{
  const escrow = AT.AuthCaptureEscrow;
  const now = Math.floor(Date.now() / 1000);
  const extra = {
    captureAuthorizer: account.address,
    feeRecipient: account.address,
    captureDeadline: now + 3600,
    refundDeadline: now + 7200,
    minFeeBps: 0,
    maxFeeBps: 1000,
    authCaptureEscrow: escrow,
  };
  const payment = async (payer, amount) => {
    const accepted = requirements('auth-capture', amount, extra);
    const { payload } = await new AuthCaptureEvmScheme(payer).createPaymentPayload(2, accepted);
    const info = {
      operator: extra.captureAuthorizer,
      payer: payer.address,
      receiver: getAddress(plan.seller),
      token: USDC,
      maxAmount: BigInt(amount),
      preApprovalExpiry: Number(payload.authorization.validBefore),
      authorizationExpiry: extra.captureDeadline,
      refundExpiry: extra.refundDeadline,
      minFeeBps: extra.minFeeBps,
      maxFeeBps: extra.maxFeeBps,
      feeReceiver: extra.feeRecipient,
      salt: BigInt(payload.salt),
    };
    return { info, signature: payload.signature };
  };
  const call = async (form, functionName, args) => {
    const hash = await wallet.writeContract({ address: escrow, abi: escrowAbi, functionName, args });
    await mined(hash);
    (settled[form] ??= []).push(hash);
  };
  const e = plan.escrow;
  const payer = privateKeyToAccount(e.payerKey);
  const held = await payment(payer, e.authorize);
  await call('escrow_authorize', 'authorize', [held.info, BigInt(e.authorize), AT.ERC3009PaymentCollector, held.signature]);
  await call('escrow_capture', 'capture', [held.info, BigInt(e.capture), e.feeBps, account.address]);
  const approve = await wallet.writeContract({
    address: USDC,
    abi: erc20Abi,
    functionName: 'approve',
    args: [AT.OperatorRefundCollector, maxUint256],
  });
  await mined(approve);
  await call('escrow_refund', 'refund', [held.info, BigInt(e.refund), AT.OperatorRefundCollector, '0x']);
  const voided = await payment(payer, e.voided);
  await call('escrow_authorize', 'authorize', [voided.info, BigInt(e.voided), AT.ERC3009PaymentCollector, voided.signature]);
  await call('escrow_void', 'void', [voided.info]);
  const { wallet: smartWallet, ownerKey, factory, factoryCalldata } = e.charger;
  const charger = smartWalletSigner(privateKeyToAccount(ownerKey), smartWallet, factory, factoryCalldata);
  const charged = await payment(charger, e.charge);
  await call('escrow_charge', 'charge', [charged.info, BigInt(e.charge), AT.ERC3009PaymentCollector, charged.signature, 0, account.address]);
}

console.log(JSON.stringify(settled));
