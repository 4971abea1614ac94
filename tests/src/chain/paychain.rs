//! A payment network on loopback: anvil mining a block per transaction, the USDC double at Base's
//! USDC address, a smart-wallet factory, a relayer with gas, and helpers to fund payers, read
//! balances and sign EIP-3009 authorizations exactly as a buyer's wallet does.

use std::path::PathBuf;
use std::time::Duration;

use agentrep_payments::PaymentNetwork;
use agentrep_payments::verify::{TransferWithAuthorization, WalletDeployment, signing_hash};
use agentrep_server::{PaymentSettings, SecretKey};
use alloy::primitives::{Address, B256, Bytes, U256, address};
use alloy::signers::SignerSync;
use alloy::signers::local::PrivateKeySigner;
use alloy::sol_types::SolCall;
use serde_json::json;

use super::anvil::{Anvil, AnvilOptions};
use super::contracts::{IFiatToken, PLACED, Placed, USDC};

/// Where [`PayChain`] places the smart-wallet factory double (`contracts/src/SmartWallet.sol`).
pub const WALLET_FACTORY: Address = address!("0x00000000000000000000000000000000000fac70");
/// The factory double, placed at [`WALLET_FACTORY`] (and elsewhere, by
/// [`PayChain::place_wallet_factory`]).
pub const WALLET_FACTORY_DOUBLE: Placed = Placed {
    name: "WalletFactory",
    address: WALLET_FACTORY,
    artifact: include_str!("../../../contracts/artifacts/WalletFactory.json"),
};

alloy::sol! {
    /// The smart-wallet factory double: CREATE2 wallets of (owner, salt).
    interface IWalletFactory {
        function createAccount(address owner, bytes32 salt) external returns (address wallet);
        function getAddress(address owner, bytes32 salt) external view returns (address);
    }
}

/// A smart wallet (`OwnedWallet`, ERC-1271) of one owner key, at its CREATE2 address, deployed
/// or not.
#[derive(Debug, Clone)]
pub struct SmartWallet {
    /// The key whose signatures are the wallet's.
    pub owner: PrivateKeySigner,
    /// The wallet's address.
    pub address: Address,
    /// The factory call that deploys it (what its ERC-6492 signatures carry).
    pub deployment: WalletDeployment,
}

/// anvil with the USDC double, a funded relayer and a receiving address.
#[derive(Debug)]
pub struct PayChain {
    /// The chain.
    pub anvil: Anvil,
    /// Pays gas for direct settlements.
    pub relayer: PrivateKeySigner,
    /// The operator's receiving address.
    pub pay_to: Address,
    /// The operator's key for signed offers and receipts.
    pub operator: PrivateKeySigner,
}

/// A key as hex (for clients started as processes).
pub fn key_hex(signer: &PrivateKeySigner) -> String {
    format!("0x{}", alloy::hex::encode(signer.to_bytes()))
}

impl PayChain {
    /// Starts anvil (Base's chain id, current time, automine) and places the USDC double.
    ///
    /// # Errors
    /// When anvil cannot be started or set up.
    pub async fn start() -> anyhow::Result<Self> {
        let anvil = Anvil::start_with(&AnvilOptions { automine: true, ..AnvilOptions::default() })?;
        let usdc = PLACED.iter().find(|c| c.address == USDC).expect("the USDC double is placed");
        anvil.set_code(USDC, &usdc.runtime_code()).await?;
        anvil.set_code(WALLET_FACTORY, &WALLET_FACTORY_DOUBLE.runtime_code()).await?;
        let relayer = PrivateKeySigner::random();
        anvil.set_balance(relayer.address(), U256::from(10u128.pow(20))).await?;
        Ok(Self { anvil, relayer, pay_to: PrivateKeySigner::random().address(), operator: PrivateKeySigner::random() })
    }

    /// Mints `amount` micro-USDC to `who`.
    ///
    /// # Errors
    /// When the transaction fails.
    pub async fn fund(&self, who: Address, amount: u64) -> anyhow::Result<()> {
        let data = IFiatToken::mintCall { to: who, amount: U256::from(amount) }.abi_encode();
        self.send_as(self.relayer.address(), &data).await
    }

    /// Sends a call to USDC as `from` (impersonated) and waits for it to be mined.
    ///
    /// # Errors
    /// When the transaction fails or reverts.
    pub async fn send_as(&self, from: Address, data: &[u8]) -> anyhow::Result<()> {
        self.send_to(from, USDC, data).await
    }

    /// Sends a call to `to` as `from` (impersonated) and waits for it to be mined.
    ///
    /// # Errors
    /// When the transaction fails or reverts.
    pub async fn send_to(&self, from: Address, to: Address, data: &[u8]) -> anyhow::Result<()> {
        let hash: B256 = self
            .anvil
            .rpc("eth_sendTransaction", [json!({"from": from, "to": to, "data": alloy::hex::encode_prefixed(data)})])
            .await?;
        for _ in 0..100 {
            let receipt: serde_json::Value = self.anvil.rpc("eth_getTransactionReceipt", [hash]).await?;
            if !receipt.is_null() {
                anyhow::ensure!(receipt["status"] == "0x1", "transaction {hash} reverted");
                return Ok(());
            }
            tokio::time::sleep(Duration::from_millis(20)).await;
        }
        anyhow::bail!("transaction {hash} was not mined")
    }

    /// Settles an x402 payment of `value` from `payer` to `to` as a facilitator does: the payer
    /// signs an EIP-3009 authorization, the relayer sends `transferWithAuthorization`.
    ///
    /// # Errors
    /// When the transaction fails or reverts.
    pub async fn settle_as_relayer(&self, payer: &PrivateKeySigner, to: Address, value: u64) -> anyhow::Result<()> {
        let m = TransferWithAuthorization {
            from: payer.address(),
            to,
            value: U256::from(value),
            validAfter: U256::ZERO,
            validBefore: U256::from(u64::MAX / 2),
            nonce: alloy::primitives::keccak256(PrivateKeySigner::random().address()),
        };
        self.settle_signed(payer, &m).await
    }

    /// Settles the authorization `m`, signed by `payer`, as a relayer: `transferWithAuthorization`
    /// with the `(v, r, s)` signature, sent by the relayer.
    ///
    /// # Errors
    /// When the transaction fails or reverts.
    pub async fn settle_signed(&self, payer: &PrivateKeySigner, m: &TransferWithAuthorization) -> anyhow::Result<()> {
        let sig = sign_authorization(payer, m);
        let data = IFiatToken::transferWithAuthorizationCall {
            from: m.from,
            to: m.to,
            value: m.value,
            validAfter: m.validAfter,
            validBefore: m.validBefore,
            nonce: m.nonce,
            v: if sig[64] < 27 { sig[64] + 27 } else { sig[64] },
            r: B256::from_slice(&sig[..32]),
            s: B256::from_slice(&sig[32..64]),
        }
        .abi_encode();
        self.send_as(self.relayer.address(), &data).await
    }

    /// `who`'s USDC balance.
    ///
    /// # Errors
    /// When the call fails.
    pub async fn balance(&self, who: Address) -> anyhow::Result<U256> {
        let data = IFiatToken::balanceOfCall { account: who }.abi_encode();
        let out: alloy::primitives::Bytes = self
            .anvil
            .rpc("eth_call", (json!({"to": USDC, "data": alloy::hex::encode_prefixed(data)}), "latest"))
            .await?;
        Ok(U256::from_be_slice(&out))
    }

    /// Places another copy of the wallet factory at `at` (a factory the deployment does not list).
    ///
    /// # Errors
    /// When anvil refuses.
    pub async fn place_wallet_factory(&self, at: Address) -> anyhow::Result<()> {
        self.anvil.set_code(at, &WALLET_FACTORY_DOUBLE.runtime_code()).await
    }

    /// The smart wallet `factory` makes for a fresh owner key (not deployed, no funds).
    ///
    /// # Errors
    /// When the factory cannot be asked.
    pub async fn smart_wallet(&self, factory: Address) -> anyhow::Result<SmartWallet> {
        let owner = PrivateKeySigner::random();
        let salt = B256::ZERO;
        let query = IWalletFactory::getAddressCall { owner: owner.address(), salt }.abi_encode();
        let out: Bytes = self
            .anvil
            .rpc("eth_call", (json!({"to": factory, "data": alloy::hex::encode_prefixed(query)}), "latest"))
            .await?;
        let address = IWalletFactory::getAddressCall::abi_decode_returns(&out)?;
        let calldata = IWalletFactory::createAccountCall { owner: owner.address(), salt }.abi_encode().into();
        Ok(SmartWallet { owner, address, deployment: WalletDeployment { factory, calldata } })
    }

    /// Whether `who` has code (a deployed wallet).
    ///
    /// # Errors
    /// When the node cannot be asked.
    pub async fn has_code(&self, who: Address) -> anyhow::Result<bool> {
        let code: Bytes = self.anvil.rpc("eth_getCode", (who, "latest")).await?;
        Ok(!code.is_empty())
    }

    /// Payment settings that settle directly with the relayer, the ledger at `store`.
    pub fn direct_settings(&self, store: PathBuf) -> PaymentSettings {
        PaymentSettings {
            network: PaymentNetwork::base(),
            rpc_url: Some(self.anvil.url().to_owned()),
            relayer_key: Some(SecretKey::new(key_hex(&self.relayer))),
            facilitator_url: None,
            settle_timeout: Duration::from_secs(10),
            store: Some(store),
            reconcile_interval: Duration::from_millis(500),
            wallet_factories: vec![WALLET_FACTORY],
        }
    }
}

/// An EIP-3009 authorization and its 65-byte signature, as a buyer's wallet signs it for Base
/// USDC.
pub fn sign_authorization(signer: &PrivateKeySigner, m: &TransferWithAuthorization) -> Vec<u8> {
    let hash = signing_hash(&PaymentNetwork::base(), m);
    signer.sign_hash_sync(&hash).expect("signs").as_bytes().to_vec()
}

/// What a [`Facilitator`] does wrong, on purpose.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum FacilitatorFault {
    /// Nothing: it verifies and settles.
    None,
    /// Settles on chain, then never answers `/settle`.
    SettleHangs,
    /// Answers `/settle` with a 500 without settling.
    Settle500,
}

/// The official x402 facilitator (`tests/payments/clients/facilitator.mjs`: npm `@x402/core` +
/// `@x402/evm`) on a random loopback port, settling on `chain` with its own gas key and allowed
/// to deploy wallets through [`WALLET_FACTORY`]. Killed on drop.
#[derive(Debug)]
pub struct Facilitator {
    child: std::process::Child,
    /// Its base URL.
    pub url: String,
}

impl Facilitator {
    /// Starts one.
    ///
    /// # Errors
    /// When node or the packages are missing, or it does not print its port within 60 s.
    pub async fn start(chain: &PayChain, fault: FacilitatorFault) -> anyhow::Result<Self> {
        use std::io::BufRead;
        let key = PrivateKeySigner::random();
        chain.anvil.set_balance(key.address(), U256::from(10u128.pow(20))).await?;
        let script = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("payments/clients/facilitator.mjs");
        let fault = match fault {
            FacilitatorFault::None => "none",
            FacilitatorFault::SettleHangs => "settle-hangs",
            FacilitatorFault::Settle500 => "settle-500",
        };
        let mut child = std::process::Command::new("node")
            .arg(script)
            .args([chain.anvil.url(), &key_hex(&key), fault, &WALLET_FACTORY.to_string()])
            .env("AGENTREP_CLIENTS_NODE_MODULES", crate::test_clients().join("clients/node_modules"))
            .stdin(std::process::Stdio::null())
            .stdout(std::process::Stdio::piped())
            .stderr(std::process::Stdio::inherit())
            .spawn()?;
        let stdout = child.stdout.take().expect("piped");
        let (tx, rx) = std::sync::mpsc::channel();
        std::thread::spawn(move || {
            for line in std::io::BufReader::new(stdout).lines().map_while(Result::ok) {
                if let Some(port) = line.strip_prefix("listening ") {
                    let _ = tx.send(port.trim().to_owned());
                }
            }
        });
        let port = match rx.recv_timeout(Duration::from_secs(60)) {
            Ok(port) => port,
            Err(_) => {
                let _ = child.kill();
                anyhow::bail!("the facilitator did not start within 60 s")
            }
        };
        Ok(Self { child, url: format!("http://127.0.0.1:{port}") })
    }

    /// Payment settings that settle through this facilitator.
    pub fn settings(&self, chain: &PayChain, store: PathBuf, settle_timeout: Duration) -> PaymentSettings {
        PaymentSettings {
            relayer_key: None,
            facilitator_url: Some(self.url.clone()),
            settle_timeout,
            ..chain.direct_settings(store)
        }
    }
}

impl Drop for Facilitator {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

#[cfg(test)]
mod tests {
    use alloy::json_abi::JsonAbi;

    use super::*;

    #[test]
    fn the_wallet_factory_binding_matches_its_artifact() {
        let json: serde_json::Value = serde_json::from_str(WALLET_FACTORY_DOUBLE.artifact).expect("artifact is JSON");
        let abi: JsonAbi = serde_json::from_value(json["abi"].clone()).expect("abi parses");
        for selector in [IWalletFactory::createAccountCall::SELECTOR, IWalletFactory::getAddressCall::SELECTOR] {
            assert!(abi.functions().any(|f| f.selector() == selector), "{selector:?}");
        }
        assert!(WALLET_FACTORY_DOUBLE.runtime_code().len() > 100);
    }
}
