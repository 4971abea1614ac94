//! Settling a verified payment, after its answer was produced: directly on chain with the
//! operator's relayer key, or through an x402 facilitator. Either way the outcome is judged from
//! the chain's receipt (a facilitator's word that it settled is checked, not trusted), and a
//! timeout is [`SettleOutcome::Unknown`], never a failure: the buyer must not be asked to pay
//! again for a payment that may have gone through.

use std::time::Duration;

use alloy::network::{EthereumWallet, TransactionBuilder};
use alloy::primitives::{Address, B256};
use alloy::providers::{DynProvider, Provider, ProviderBuilder};
use alloy::rpc::types::TransactionRequest;
use alloy::signers::local::PrivateKeySigner;
use serde::{Deserialize, Serialize};

use crate::chain::{AuthorizedTransfer, ChainReader, Confirmation, RpcError, revert_reason, scrub_urls, transfer_call};
use crate::verify::{InvalidReason, VerifiedPayment, WalletDeployment};

/// How a settlement ended.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum SettleOutcome {
    /// Mined and confirmed from the receipt.
    Settled {
        /// The transaction.
        tx: B256,
    },
    /// Refused before anything moved (the x402 reason, or what the receipt showed).
    Failed {
        /// Why.
        reason: String,
    },
    /// Not known yet: submitted (or maybe submitted) without a receipt in time.
    Unknown {
        /// The transaction, when it is known.
        tx: Option<B256>,
        /// What happened.
        reason: String,
    },
}

/// Settles with the operator's own key: `transferWithAuthorization` sent by a relayer wallet that
/// pays the gas. Sends are serialised so concurrent settlements never reuse a sender nonce.
///
/// A payment from an ERC-6492 wallet that does not exist yet is settled in two transactions: the
/// factory call that deploys the wallet, then the transfer. The relayer only calls factories the
/// operator listed ([`DirectSettler::with_wallet_factories`]): the calldata is the buyer's, and
/// sent to any address it would make the relayer call anything (a token's `transfer` of the
/// relayer's own funds, or a gas sink).
#[derive(Debug)]
pub struct DirectSettler {
    wallet_provider: DynProvider,
    relayer: Address,
    reader: ChainReader,
    send_lock: tokio::sync::Mutex<()>,
    timeout: Duration,
    wallet_factories: Vec<Address>,
}

impl DirectSettler {
    /// A relayer sending from `signer`'s address on `rpc_url`.
    ///
    /// # Errors
    /// When the URL does not parse.
    pub fn new(
        rpc_url: &str,
        signer: PrivateKeySigner,
        reader: ChainReader,
        timeout: Duration,
    ) -> Result<Self, RpcError> {
        let relayer = signer.address();
        let url = rpc_url.parse().map_err(|e| RpcError::new("relayer", format!("RPC URL: {e}")))?;
        let http = reqwest::Client::builder().timeout(timeout).build().map_err(|e| RpcError::new("relayer", e))?;
        let client = alloy::rpc::client::ClientBuilder::default().http_with_client(http, url);
        // The sender nonce is read from the node ("pending") for every send, under `send_lock`:
        // a cached count would go wrong as soon as anything else sends from the relayer.
        let wallet_provider = ProviderBuilder::new()
            .disable_recommended_fillers()
            .with_gas_estimation()
            .with_simple_nonce_management()
            .fetch_chain_id()
            .wallet(EthereumWallet::from(signer))
            .connect_client(client)
            .erased();
        Ok(Self {
            wallet_provider,
            relayer,
            reader,
            send_lock: tokio::sync::Mutex::new(()),
            timeout,
            wallet_factories: Vec::new(),
        })
    }

    /// The ERC-6492 wallet factories the relayer may call to deploy a paying wallet (none by
    /// default: counterfactual wallets are then refused with `eip6492_factory_not_allowed`).
    #[must_use]
    pub fn with_wallet_factories(mut self, factories: Vec<Address>) -> Self {
        self.wallet_factories = factories;
        self
    }

    /// Whether the relayer may call `factory` to deploy a paying wallet.
    pub fn deploys_through(&self, factory: Address) -> bool {
        self.wallet_factories.contains(&factory)
    }

    /// The relayer's address (it needs ETH for gas).
    pub fn relayer(&self) -> Address {
        self.relayer
    }

    /// Sends `tx` from the relayer, one send at a time, within the timeout.
    async fn send(
        &self,
        tx: TransactionRequest,
    ) -> Result<Result<B256, alloy::transports::TransportError>, tokio::time::error::Elapsed> {
        let _one_sender = self.send_lock.lock().await;
        let mut sent = tokio::time::timeout(self.timeout, self.wallet_provider.send_transaction(tx.clone())).await;
        // Refused for its sender nonce (something else sent from the relayer in between): nothing
        // was broadcast, so one retry with the node's new count is safe.
        if matches!(&sent, Ok(Err(e)) if e.to_string().contains("nonce too low")) {
            sent = tokio::time::timeout(self.timeout, self.wallet_provider.send_transaction(tx)).await;
        }
        sent.map(|r| r.map(|pending| *pending.tx_hash()))
    }

    /// Deploys the payer's wallet with its ERC-6492 factory call, unless it exists already.
    /// Nothing of the payment moves here; a failure leaves the authorization unused.
    async fn deploy_wallet(&self, payer: Address, deployment: &WalletDeployment) -> Result<(), InvalidReason> {
        let exists = |r: Result<bool, RpcError>| r.map_err(|_| InvalidReason::WalletDeploymentFailed);
        if exists(self.reader.is_contract(payer).await)? {
            return Ok(());
        }
        if !self.deploys_through(deployment.factory) {
            return Err(InvalidReason::FactoryNotAllowed);
        }
        let tx = TransactionRequest::default()
            .with_from(self.relayer)
            .with_to(deployment.factory)
            .with_input(deployment.calldata.clone());
        let Ok(Ok(hash)) = self.send(tx).await else { return Err(InvalidReason::WalletDeploymentFailed) };
        match self.reader.wait_receipt(hash, self.timeout).await {
            Ok(Some(receipt)) if receipt.status() => {}
            _ => return Err(InvalidReason::WalletDeploymentFailed),
        }
        // The factory call succeeded; it must also have deployed this payer's wallet.
        if exists(self.reader.is_contract(payer).await)? { Ok(()) } else { Err(InvalidReason::WalletDeploymentFailed) }
    }

    /// Sends the transfer (after deploying an ERC-6492 payer's wallet) and waits for its
    /// receipt. `on_broadcast` gets the transfer's hash as soon as it is sent, before the wait,
    /// so the caller can record it durably.
    pub async fn settle(&self, p: &VerifiedPayment, on_broadcast: impl FnOnce(B256)) -> SettleOutcome {
        if let Some(deployment) = &p.deployment
            && let Err(reason) = self.deploy_wallet(p.payer, deployment).await
        {
            return SettleOutcome::Failed { reason: reason.code() };
        }
        let tx = TransactionRequest::default()
            .with_from(self.relayer)
            .with_to(self.reader.network().asset)
            .with_input(transfer_call(p));
        let hash = match self.send(tx).await {
            Ok(Ok(hash)) => hash,
            // The fillers estimate gas first: a revert there means nothing was sent.
            Ok(Err(e)) if e.to_string().contains("revert") => {
                return SettleOutcome::Failed { reason: revert_reason(&e.to_string()).code() };
            }
            Ok(Err(e)) => return SettleOutcome::Unknown { tx: None, reason: scrub_urls(&format!("sending: {e}")) },
            Err(_) => return SettleOutcome::Unknown { tx: None, reason: "sending timed out".to_owned() },
        };
        on_broadcast(hash);
        judge(&self.reader, p, hash, self.timeout).await
    }
}

async fn judge(reader: &ChainReader, p: &VerifiedPayment, hash: B256, timeout: Duration) -> SettleOutcome {
    match reader.wait_receipt(hash, timeout).await {
        Ok(Some(receipt)) => match reader.confirm(&receipt, &p.into()) {
            Confirmation::Confirmed => SettleOutcome::Settled { tx: hash },
            Confirmation::Mismatch(why) => SettleOutcome::Failed { reason: why.to_owned() },
        },
        Ok(None) => SettleOutcome::Unknown { tx: Some(hash), reason: "no receipt before the timeout".to_owned() },
        Err(e) => SettleOutcome::Unknown { tx: Some(hash), reason: e.to_string() },
    }
}

/// The body of a facilitator's `/verify` and `/settle` (x402 §7).
#[derive(Debug, Clone, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct FacilitatorRequest {
    /// The payload's version.
    pub x402_version: u8,
    /// The payment payload, as the buyer sent it (decoded).
    pub payment_payload: serde_json::Value,
    /// The terms it answers (the matched `accepts` entry).
    pub payment_requirements: serde_json::Value,
}

/// A facilitator's `/verify` answer.
#[derive(Debug, Clone, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct FacilitatorVerify {
    /// Whether it would settle.
    pub is_valid: bool,
    /// Why not.
    #[serde(default)]
    pub invalid_reason: Option<String>,
}

/// A facilitator's `/supported` answer: the (version, scheme, network) kinds it verifies and
/// settles.
#[derive(Debug, Clone, Deserialize)]
pub struct FacilitatorSupported {
    /// The kinds.
    #[serde(default)]
    pub kinds: Vec<SupportedKind>,
}

/// One kind a facilitator supports.
#[derive(Debug, Clone, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct SupportedKind {
    /// x402 version (1 or 2).
    pub x402_version: u32,
    /// Payment scheme (`exact`).
    pub scheme: String,
    /// Network (a CAIP-2 id for v2, a name such as `base` for v1).
    pub network: String,
}

/// A facilitator's `/settle` answer.
#[derive(Debug, Clone, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct FacilitatorSettle {
    /// Whether it settled.
    pub success: bool,
    /// The transaction.
    #[serde(default)]
    pub transaction: String,
    /// Why not.
    #[serde(default)]
    pub error_reason: Option<String>,
}

/// Settles through an x402 facilitator, then checks the transaction it names on chain.
#[derive(Debug)]
pub struct FacilitatorSettler {
    http: reqwest::Client,
    base: String,
    reader: ChainReader,
    timeout: Duration,
}

/// A facilitator's verdict before the answer is produced.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum FacilitatorCheck {
    /// It would settle.
    Valid,
    /// It refuses, with its reason.
    Invalid(String),
}

impl FacilitatorSettler {
    /// A facilitator at `url` (its `/verify` and `/settle` are under it).
    ///
    /// # Errors
    /// When the HTTP client cannot be built.
    pub fn new(url: &str, reader: ChainReader, timeout: Duration) -> Result<Self, RpcError> {
        let http = reqwest::Client::builder()
            .timeout(timeout)
            .redirect(reqwest::redirect::Policy::none())
            .build()
            .map_err(|e| RpcError::new("facilitator", e))?;
        Ok(Self { http, base: url.trim_end_matches('/').to_owned(), reader, timeout })
    }

    /// Asks `/supported` (an operator's check that the facilitator settles this network).
    ///
    /// # Errors
    /// When the facilitator cannot be asked or answers something else than a list of kinds.
    pub async fn supported(&self) -> Result<FacilitatorSupported, RpcError> {
        let failed = |message: String| RpcError::new("facilitator /supported", message);
        let resp = self
            .http
            .get(format!("{}/supported", self.base))
            .send()
            .await
            .map_err(|e| failed(scrub_urls(&e.to_string())))?;
        let status = resp.status();
        if !status.is_success() {
            return Err(failed(format!("status {status}")));
        }
        resp.json().await.map_err(|e| failed(format!("status {status}: {e}")))
    }

    /// Asks `/verify`.
    ///
    /// # Errors
    /// When the facilitator cannot be asked or answers something else than a verdict.
    pub async fn verify(&self, request: &FacilitatorRequest) -> Result<FacilitatorCheck, RpcError> {
        let failed = |message: String| RpcError::new("facilitator /verify", message);
        let resp = self
            .http
            .post(format!("{}/verify", self.base))
            .json(request)
            .send()
            .await
            .map_err(|e| failed(e.to_string()))?;
        let status = resp.status();
        let body: FacilitatorVerify = resp.json().await.map_err(|e| failed(format!("status {status}: {e}")))?;
        Ok(if body.is_valid {
            FacilitatorCheck::Valid
        } else {
            FacilitatorCheck::Invalid(body.invalid_reason.unwrap_or_else(|| "invalid_payload".to_owned()))
        })
    }

    /// Asks `/settle`, then checks the transaction it names from its receipt. A timeout or a 5xx
    /// is unknown (it may have settled), a refusal is a failure.
    pub async fn settle(&self, p: &VerifiedPayment, request: &FacilitatorRequest) -> SettleOutcome {
        let resp = match self.http.post(format!("{}/settle", self.base)).json(request).send().await {
            Ok(resp) => resp,
            Err(e) if e.is_timeout() => {
                return SettleOutcome::Unknown { tx: None, reason: "the facilitator timed out".to_owned() };
            }
            Err(e) => return SettleOutcome::Unknown { tx: None, reason: scrub_urls(&format!("facilitator: {e}")) },
        };
        let status = resp.status();
        if status.is_server_error() {
            return SettleOutcome::Unknown { tx: None, reason: format!("the facilitator answered {status}") };
        }
        let body: FacilitatorSettle = match resp.json().await {
            Ok(body) => body,
            Err(e) if status.is_success() => {
                return SettleOutcome::Unknown {
                    tx: None,
                    reason: scrub_urls(&format!("unreadable settlement answer: {e}")),
                };
            }
            Err(_) => return SettleOutcome::Failed { reason: format!("the facilitator refused ({status})") },
        };
        if !body.success {
            return SettleOutcome::Failed { reason: body.error_reason.unwrap_or_else(|| "settle_failed".to_owned()) };
        }
        let Ok(hash) = body.transaction.parse::<B256>() else {
            return SettleOutcome::Unknown { tx: None, reason: "the facilitator named no transaction".to_owned() };
        };
        judge(&self.reader, p, hash, self.timeout).await
    }
}

/// How payments settle on one deployment.
#[derive(Debug)]
pub enum Settler {
    /// With the operator's relayer key.
    Direct(DirectSettler),
    /// Through a facilitator.
    Facilitator(FacilitatorSettler),
}

impl Settler {
    /// The chain reader both paths share.
    pub fn reader(&self) -> &ChainReader {
        match self {
            Settler::Direct(s) => &s.reader,
            Settler::Facilitator(s) => &s.reader,
        }
    }

    /// Its name, for `/status`.
    pub fn kind(&self) -> &'static str {
        match self {
            Settler::Direct(_) => "direct",
            Settler::Facilitator(_) => "facilitator",
        }
    }
}

/// What reconciliation learnt of a payment whose settlement was unknown.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Reconciled {
    /// Settled by this transaction.
    Settled(B256),
    /// Never settled, and it cannot be any more (expired unused): nothing was charged.
    NeverSettled,
    /// Still open: ask again later.
    StillUnknown,
}

/// Reconciles one payment: the transaction recorded for it, else the chain's `AuthorizationUsed`
/// log for (payer, nonce) within `lookback` blocks, else its expiry.
///
/// # Errors
/// When the node cannot be asked.
pub async fn reconcile(
    reader: &ChainReader,
    p: &AuthorizedTransfer,
    recorded_tx: Option<B256>,
    lookback: u64,
    now: u64,
) -> Result<Reconciled, RpcError> {
    if let Some(tx) = recorded_tx
        && let Some(receipt) = reader.receipt(tx).await?
        && reader.confirm(&receipt, p) == Confirmation::Confirmed
    {
        return Ok(Reconciled::Settled(tx));
    }
    if reader.authorization_used(p.payer, p.nonce).await? {
        let latest = reader.block_number().await?;
        if let Some(tx) = reader.find_settlement(p.payer, p.nonce, latest.saturating_sub(lookback)).await?
            && let Some(receipt) = reader.receipt(tx).await?
            && reader.confirm(&receipt, p) == Confirmation::Confirmed
        {
            return Ok(Reconciled::Settled(tx));
        }
        return Ok(Reconciled::StillUnknown);
    }
    if p.valid_before <= now { Ok(Reconciled::NeverSettled) } else { Ok(Reconciled::StillUnknown) }
}
