//! What only the chain can say about a payment: whether its nonce was used, whether the payer
//! holds the amount, whether a smart wallet's signature is valid (the token's own check, run with
//! `eth_call`; for a wallet not deployed yet, after its ERC-6492 deployment in the same simulated
//! call), and whether a settlement transaction really moved the money.

use std::sync::LazyLock;
use std::time::Duration;

use alloy::network::TransactionBuilder;
use alloy::primitives::{Address, B256, Bytes, U256};
use alloy::providers::{DynProvider, Provider, ProviderBuilder};
use alloy::rpc::types::{Filter, TransactionReceipt, TransactionRequest};
use alloy::sol;
use alloy::sol_types::{SolCall, SolEvent, SolValue};

use crate::network::PaymentNetwork;
use crate::verify::{InvalidReason, SignatureCheck, VerifiedPayment, WalletDeployment};

sol! {
    /// The EIP-3009 token's functions and events a seller uses.
    interface Eip3009Token {
        function authorizationState(address authorizer, bytes32 nonce) external view returns (bool);
        function balanceOf(address account) external view returns (uint256);
        function transferWithAuthorization(address from, address to, uint256 value, uint256 validAfter, uint256 validBefore, bytes32 nonce, uint8 v, bytes32 r, bytes32 s) external;
        function transferWithAuthorization(address from, address to, uint256 value, uint256 validAfter, uint256 validBefore, bytes32 nonce, bytes signature) external;
        event Transfer(address indexed from, address indexed to, uint256 value);
        event AuthorizationUsed(address indexed authorizer, bytes32 indexed nonce);
    }
}

/// An RPC failure: the chain could not be asked (not a judgement on the payment).
#[derive(Debug, thiserror::Error)]
#[error("RPC {method}: {message}")]
pub struct RpcError {
    /// What was asked.
    pub method: &'static str,
    /// What went wrong (never carries a key or a signature).
    pub message: String,
}

impl RpcError {
    /// An error of `method`, with every URL in `message` cut to its scheme and host (an RPC or
    /// facilitator URL often carries an API key in its path or query, and these messages reach
    /// logs, the ledger and `/status`).
    pub fn new(method: &'static str, message: impl std::fmt::Display) -> Self {
        Self { method, message: scrub_urls(&message.to_string()) }
    }
}

/// `text` with every `http://` or `https://` URL cut to its scheme and host.
pub fn scrub_urls(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    let mut rest = text;
    while let Some(at) = rest.find("http://").into_iter().chain(rest.find("https://")).min() {
        out.push_str(&rest[..at]);
        let url = &rest[at..];
        let end =
            url.find(|c: char| c.is_whitespace() || matches!(c, ')' | '"' | '\'' | ',' | '>')).unwrap_or(url.len());
        let after_scheme = url.find("://").map_or(0, |i| i + 3);
        let host_end = url[after_scheme..end].find(['/', '?', '#']).map_or(end, |i| after_scheme + i);
        let host = &url[after_scheme..host_end];
        let host = host.rsplit('@').next().unwrap_or(host);
        out.push_str(&url[..after_scheme]);
        out.push_str(host);
        if host_end < end {
            out.push_str("/…");
        }
        rest = &url[end..];
    }
    out.push_str(rest);
    out
}

fn rpc(method: &'static str) -> impl FnOnce(alloy::transports::TransportError) -> RpcError {
    move |e| RpcError::new(method, e)
}

/// What the chain says of a payment before it is settled.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ChainVerdict {
    /// Unused nonce, enough balance, and (for a smart wallet) a signature the token accepts.
    Acceptable,
    /// Acceptable once the payer's wallet is deployed: an ERC-6492 payment from a wallet with no
    /// code yet, whose deployment and transfer succeed together in simulation. Settling it sends
    /// the factory call first.
    AcceptableOnceDeployed,
    /// Refused, with the x402 reason.
    Refused(InvalidReason),
}

/// `contracts/src/CounterfactualCall.sol`'s creation code (never deployed: run as a deployless
/// `eth_call`).
static COUNTERFACTUAL_CALL: LazyLock<Vec<u8>> = LazyLock::new(|| {
    let artifact: serde_json::Value =
        serde_json::from_str(include_str!("../../contracts/artifacts/CounterfactualCall.json"))
            .expect("the committed artifact is JSON");
    let hex = artifact["bytecode"].as_str().expect("the artifact has bytecode");
    alloy::hex::decode(hex).expect("the artifact's bytecode is hex")
});

/// The input of a deployless `eth_call` that deploys a counterfactual wallet through its factory,
/// then calls `target` with `data`, and ends as that call ends (`CounterfactualCall.sol`).
pub fn counterfactual_call(deployment: &WalletDeployment, target: Address, data: Bytes) -> Bytes {
    let args = (deployment.factory, deployment.calldata.clone(), target, data).abi_encode_params();
    [COUNTERFACTUAL_CALL.as_slice(), &args].concat().into()
}

/// `contracts/src/SignatureCheck.sol`'s creation code (never deployed: run as a deployless
/// `eth_call` that answers whether a smart wallet accepts a signature).
static SIGNATURE_CHECK: LazyLock<Vec<u8>> = LazyLock::new(|| {
    let artifact: serde_json::Value =
        serde_json::from_str(include_str!("../../contracts/artifacts/SignatureCheck.json"))
            .expect("the committed artifact is JSON");
    let hex = artifact["bytecode"].as_str().expect("the artifact has bytecode");
    alloy::hex::decode(hex).expect("the artifact's bytecode is hex")
});

/// How a settlement transaction ended, judged from its receipt.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Confirmation {
    /// Mined with status 1, the `Transfer` of the authorised value to the recipient and the
    /// authorization's `AuthorizationUsed`, both from the token.
    Confirmed,
    /// Mined but reverted, or without the expected logs.
    Mismatch(&'static str),
}

/// The transfer an authorization allows, as a receipt must show it (also rebuilt from the
/// ledger, which keeps no signatures, to reconcile after a restart).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct AuthorizedTransfer {
    /// Payer.
    pub payer: Address,
    /// Recipient.
    pub to: Address,
    /// Value.
    pub value: U256,
    /// Nonce.
    pub nonce: B256,
    /// Unix seconds before which it can settle.
    pub valid_before: u64,
}

impl From<&VerifiedPayment> for AuthorizedTransfer {
    fn from(p: &VerifiedPayment) -> Self {
        Self { payer: p.payer, to: p.to, value: p.value, nonce: p.nonce, valid_before: p.valid_before }
    }
}

/// A read-only connection to the chain payments settle on.
#[derive(Debug, Clone)]
pub struct ChainReader {
    provider: DynProvider,
    network: PaymentNetwork,
}

/// The transaction calling `transferWithAuthorization` for a verified payment: the `(v, r, s)`
/// overload for a 65-byte signature (v normalised to 27/28, as the token requires), the `bytes`
/// overload for a smart wallet's.
pub fn transfer_call(p: &VerifiedPayment) -> Bytes {
    let (from, to, value, after, before, nonce) =
        (p.payer, p.to, p.value, U256::from(p.valid_after), U256::from(p.valid_before), p.nonce);
    if p.signature_check == SignatureCheck::Recovered && p.signature.len() == 65 {
        let v = match p.signature[64] {
            v @ (0 | 1) => v + 27,
            v => v,
        };
        let call = Eip3009Token::transferWithAuthorization_0Call {
            from,
            to,
            value,
            validAfter: after,
            validBefore: before,
            nonce,
            v,
            r: B256::from_slice(&p.signature[..32]),
            s: B256::from_slice(&p.signature[32..64]),
        };
        call.abi_encode().into()
    } else {
        let call = Eip3009Token::transferWithAuthorization_1Call {
            from,
            to,
            value,
            validAfter: after,
            validBefore: before,
            nonce,
            signature: p.signature.clone().into(),
        };
        call.abi_encode().into()
    }
}

/// Maps a token revert message onto the x402 reason.
pub fn revert_reason(message: &str) -> InvalidReason {
    let m = message.to_ascii_lowercase();
    if m.contains("wallet deployment failed") {
        InvalidReason::WalletDeploymentFailed
    } else if m.contains("authorization is used") || m.contains("canceled") {
        InvalidReason::InvalidTransactionState
    } else if m.contains("not yet valid") {
        InvalidReason::ValidAfter
    } else if m.contains("expired") {
        InvalidReason::ValidBefore
    } else if m.contains("exceeds balance") {
        InvalidReason::InsufficientFunds
    } else if m.contains("signature") {
        InvalidReason::InvalidSignature
    } else {
        InvalidReason::InvalidTransactionState
    }
}

impl ChainReader {
    /// Connects to `rpc_url` and checks it serves the network's chain.
    ///
    /// # Errors
    /// When the URL is not one, the node does not answer, or it serves another chain.
    pub async fn connect(rpc_url: &str, network: PaymentNetwork, timeout: Duration) -> Result<Self, RpcError> {
        let url = rpc_url.parse().map_err(|e| RpcError::new("connect", format!("RPC URL: {e}")))?;
        let http = reqwest::Client::builder().timeout(timeout).build().map_err(|e| RpcError::new("connect", e))?;
        let client = alloy::rpc::client::ClientBuilder::default().http_with_client(http, url);
        let provider = ProviderBuilder::new().disable_recommended_fillers().connect_client(client).erased();
        let chain_id = provider.get_chain_id().await.map_err(rpc("eth_chainId"))?;
        if chain_id != network.chain_id {
            return Err(RpcError {
                method: "eth_chainId",
                message: format!("the node serves chain {chain_id}, payments are on {}", network.chain_id),
            });
        }
        Ok(Self { provider, network })
    }

    /// The network.
    pub fn network(&self) -> &PaymentNetwork {
        &self.network
    }

    /// The provider.
    pub fn provider(&self) -> &DynProvider {
        &self.provider
    }

    /// `eth_call` of `data` to `to`, or a deployless call of `data` as creation code when `to` is
    /// `None`.
    async fn call(&self, method: &'static str, to: Option<Address>, data: Bytes) -> Result<Bytes, RpcError> {
        let mut tx = TransactionRequest::default().with_input(data);
        if let Some(to) = to {
            tx = tx.with_to(to);
        }
        self.provider.call(tx).await.map_err(rpc(method))
    }

    /// Whether `authorizationState(payer, nonce)` says the authorization was used or canceled.
    ///
    /// # Errors
    /// When the node cannot be asked.
    pub async fn authorization_used(&self, payer: Address, nonce: B256) -> Result<bool, RpcError> {
        let data = Eip3009Token::authorizationStateCall { authorizer: payer, nonce }.abi_encode();
        let out = self.call("authorizationState", Some(self.network.asset), data.into()).await?;
        Eip3009Token::authorizationStateCall::abi_decode_returns(&out)
            .map_err(|e| RpcError::new("authorizationState", e))
    }

    /// The payer's token balance.
    ///
    /// # Errors
    /// When the node cannot be asked.
    pub async fn balance(&self, payer: Address) -> Result<U256, RpcError> {
        let data = Eip3009Token::balanceOfCall { account: payer }.abi_encode();
        let out = self.call("balanceOf", Some(self.network.asset), data.into()).await?;
        Eip3009Token::balanceOfCall::abi_decode_returns(&out).map_err(|e| RpcError::new("balanceOf", e))
    }

    /// `account`'s ether balance in wei (what a relayer pays gas with).
    ///
    /// # Errors
    /// When the node cannot be asked.
    pub async fn ether_balance(&self, account: Address) -> Result<U256, RpcError> {
        self.provider.get_balance(account).await.map_err(rpc("eth_getBalance"))
    }

    /// Whether `account` has code (a deployed contract, such as a smart wallet).
    ///
    /// # Errors
    /// When the node cannot be asked.
    pub async fn is_contract(&self, account: Address) -> Result<bool, RpcError> {
        let code = self.provider.get_code_at(account).await.map_err(rpc("eth_getCode"))?;
        Ok(!code.is_empty())
    }

    /// Whether smart wallet `wallet` accepts `signature` over `hash` (ERC-1271
    /// `isValidSignature`), deploying it first in the simulation when `deployment` is given and
    /// the wallet has no code yet (ERC-6492). One deployless `eth_call` of `SignatureCheck.sol`;
    /// nothing is deployed. A wallet with no code and no deployment accepts nothing.
    ///
    /// # Errors
    /// When the node cannot be asked.
    pub async fn wallet_accepts(
        &self,
        wallet: Address,
        hash: B256,
        signature: &[u8],
        deployment: Option<&WalletDeployment>,
    ) -> Result<bool, RpcError> {
        let (factory, calldata) = deployment.map_or((Address::ZERO, Bytes::new()), |d| (d.factory, d.calldata.clone()));
        let args = (wallet, hash, Bytes::copy_from_slice(signature), factory, calldata).abi_encode_params();
        let out = self.call("isValidSignature", None, [SIGNATURE_CHECK.as_slice(), &args].concat().into()).await?;
        Ok(out.len() == 32 && out[31] == 1)
    }

    /// The chain's checks of a locally verified payment: nonce unused, balance enough, and for a
    /// smart wallet's signature (ERC-1271) the transfer itself simulated with `eth_call`, which
    /// runs the token's signature check. An ERC-6492 payment from a wallet with no code yet is
    /// simulated as one deployless call that deploys the wallet, then transfers.
    ///
    /// # Errors
    /// When the node cannot be asked.
    pub async fn check(&self, p: &VerifiedPayment) -> Result<ChainVerdict, RpcError> {
        let (used, balance) = tokio::try_join!(self.authorization_used(p.payer, p.nonce), self.balance(p.payer))?;
        if used {
            return Ok(ChainVerdict::Refused(InvalidReason::InvalidTransactionState));
        }
        if balance < p.value {
            return Ok(ChainVerdict::Refused(InvalidReason::InsufficientFunds));
        }
        let undeployed = match (&p.deployment, p.signature_check) {
            (_, SignatureCheck::Recovered) => return Ok(ChainVerdict::Acceptable),
            (Some(deployment), SignatureCheck::Counterfactual) if !self.is_contract(p.payer).await? => Some(deployment),
            _ => None,
        };
        let (to, input, accepted) = match undeployed {
            None => (Some(self.network.asset), transfer_call(p), ChainVerdict::Acceptable),
            Some(deployment) => (
                None,
                counterfactual_call(deployment, self.network.asset, transfer_call(p)),
                ChainVerdict::AcceptableOnceDeployed,
            ),
        };
        match self.call("transferWithAuthorization", to, input).await {
            Ok(_) => Ok(accepted),
            Err(e) if e.message.contains("revert") => Ok(ChainVerdict::Refused(revert_reason(&e.message))),
            Err(e) => Err(e),
        }
    }

    /// Judges a mined settlement from its receipt.
    pub fn confirm(&self, receipt: &TransactionReceipt, p: &AuthorizedTransfer) -> Confirmation {
        if !receipt.status() {
            return Confirmation::Mismatch("the settlement transaction reverted");
        }
        let logs = receipt.inner.logs();
        let from_token = |l: &&alloy::rpc::types::Log| l.address() == self.network.asset;
        let transfer = logs.iter().filter(from_token).any(|l| {
            Eip3009Token::Transfer::decode_log(&l.inner)
                .is_ok_and(|e| e.from == p.payer && e.to == p.to && e.value == p.value)
        });
        if !transfer {
            return Confirmation::Mismatch("no Transfer of the authorised value to the recipient");
        }
        let used = logs.iter().filter(from_token).any(|l| {
            Eip3009Token::AuthorizationUsed::decode_log(&l.inner)
                .is_ok_and(|e| e.authorizer == p.payer && e.nonce == p.nonce)
        });
        if used { Confirmation::Confirmed } else { Confirmation::Mismatch("no AuthorizationUsed for this nonce") }
    }

    /// The receipt of a transaction, if mined.
    ///
    /// # Errors
    /// When the node cannot be asked.
    pub async fn receipt(&self, tx: B256) -> Result<Option<TransactionReceipt>, RpcError> {
        self.provider.get_transaction_receipt(tx).await.map_err(rpc("eth_getTransactionReceipt"))
    }

    /// Waits for a transaction's receipt up to `timeout`; `None` when it is not mined by then.
    ///
    /// # Errors
    /// When the node cannot be asked.
    pub async fn wait_receipt(&self, tx: B256, timeout: Duration) -> Result<Option<TransactionReceipt>, RpcError> {
        let deadline = tokio::time::Instant::now() + timeout;
        loop {
            if let Some(r) = self.receipt(tx).await? {
                return Ok(Some(r));
            }
            if tokio::time::Instant::now() >= deadline {
                return Ok(None);
            }
            tokio::time::sleep(Duration::from_millis(250)).await;
        }
    }

    /// The transaction that used `(payer, nonce)`, found by its `AuthorizationUsed` log from
    /// `from_block` on (reconciliation of a settlement whose answer was lost).
    ///
    /// # Errors
    /// When the node cannot be asked.
    pub async fn find_settlement(
        &self,
        payer: Address,
        nonce: B256,
        from_block: u64,
    ) -> Result<Option<B256>, RpcError> {
        let filter = Filter::new()
            .address(self.network.asset)
            .event_signature(Eip3009Token::AuthorizationUsed::SIGNATURE_HASH)
            .topic1(payer.into_word())
            .topic2(nonce)
            .from_block(from_block);
        let logs = self.provider.get_logs(&filter).await.map_err(rpc("eth_getLogs"))?;
        Ok(logs.first().and_then(|l| l.transaction_hash))
    }

    /// The latest block number.
    ///
    /// # Errors
    /// When the node cannot be asked.
    pub async fn block_number(&self) -> Result<u64, RpcError> {
        self.provider.get_block_number().await.map_err(rpc("eth_blockNumber"))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn urls_in_errors_keep_only_scheme_and_host() {
        let text = "error sending request for url (https://user:pw@base-mainnet.g.alchemy.com/v2/SECRETKEY?x=1): timed out; also http://127.0.0.1:8545/";
        let scrubbed = scrub_urls(text);
        assert!(!scrubbed.contains("SECRETKEY") && !scrubbed.contains("pw@"), "{scrubbed}");
        assert!(scrubbed.contains("https://base-mainnet.g.alchemy.com/…)"), "{scrubbed}");
        assert!(scrubbed.contains("http://127.0.0.1:8545/…"), "{scrubbed}");
        assert_eq!(scrub_urls("no url here"), "no url here");
    }
}
