// A viem wallet on a loopback anvil with the official facilitator's signer, shared by the
// facilitator (facilitator.mjs) and the settlement-forms driver (settle_forms.mjs); and the signer a
// smart-account SDK hands an x402 client (x402_fetch_v2.mjs, settle_forms.mjs).
//
// The official facilitator simulates an ERC-6492 payment through Multicall3 at its canonical
// address, which Base has and anvil does not: when that address has no code, viem's own copy of
// Multicall3 is deployed and its runtime code placed there (anvil_setCode; loopback anvil only).
import { createRequire } from 'node:module';

const require = createRequire(process.env.AGENTREP_CLIENTS_NODE_MODULES + '/');
export const load = (name) => import(require.resolve(name));

const { toFacilitatorEvmSigner } = await load('@x402/evm');
const { createWalletClient, http, publicActions, multicall3Abi, serializeErc6492Signature, getAddress } =
  await load('viem');
// Not exported from viem's index: its own constants file (the copy viem's deployless multicall uses).
const viemContracts = await import(require.resolve('viem').replace(/index\.js$/, 'constants/contracts.js'));
const multicall3Bytecode = viemContracts.multicall3Bytecode ?? viemContracts.default.multicall3Bytecode;
const { privateKeyToAccount } = await load('viem/accounts');
const { base } = await load('viem/chains');

export const MULTICALL3 = '0xcA11bde05977b3631167028862bE2a173976CA11';

/** The account of `key`, a wallet client on `rpc` (Base's chain) and the facilitator signer over it. */
export async function connect(rpc, key) {
  const account = privateKeyToAccount(key);
  const wallet = createWalletClient({ account, chain: base, transport: http(rpc) }).extend(publicActions);
  if (!(await wallet.getCode({ address: MULTICALL3 }))) {
    const hash = await wallet.deployContract({ abi: multicall3Abi, bytecode: multicall3Bytecode });
    const { contractAddress } = await wallet.waitForTransactionReceipt({ hash });
    const code = await wallet.getCode({ address: contractAddress });
    await wallet.request({ method: 'anvil_setCode', params: [MULTICALL3, code] });
  }
  const signer = toFacilitatorEvmSigner({
    address: account.address,
    readContract: (a) => wallet.readContract(a),
    verifyTypedData: (a) => wallet.verifyTypedData(a),
    writeContract: (a) => wallet.writeContract(a),
    sendTransaction: (a) => wallet.sendTransaction(a),
    waitForTransactionReceipt: (a) => wallet.waitForTransactionReceipt(a),
    getCode: (a) => wallet.getCode(a),
  });
  return { account, wallet, signer };
}

/**
 * The signer of a smart wallet (an ERC-1271 contract, contracts/src/SmartWallet.sol) as smart-account
 * SDKs sign before their wallet exists: the wallet's address, typed-data signatures made by the owner
 * account and wrapped by viem's `serializeErc6492Signature` with the factory call that deploys it
 * (ERC-6492).
 */
export function smartWalletSigner(owner, wallet, factory, factoryCalldata) {
  return {
    address: getAddress(wallet),
    async signTypedData(typedData) {
      const signature = await owner.signTypedData(typedData);
      return serializeErc6492Signature({ address: getAddress(factory), data: factoryCalldata, signature });
    },
  };
}
