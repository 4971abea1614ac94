//! Paid answers over x402: the deployment's payment settings, the runtime that checks, records and
//! settles payments ([`Payments`]), the terms a paid route quotes ([`terms`]) and the one flow
//! every paid route goes through ([`flow`]).
//!
//! A deployment takes payments only when it can settle them: an operator address, a node on the
//! payment network, and a way to settle (the operator's relayer key, or a facilitator). Without
//! all three, paid routes answer 503 `payments_not_configured` and quote no terms.

pub mod flow;
pub mod needs;
mod off;
pub mod prices;
pub mod terms;

use std::path::PathBuf;
use std::sync::Arc;
use std::time::Duration;

use agentrep_payments::settle::reconcile;
use agentrep_payments::{
    AuthorizedTransfer, ChainReader, DirectSettler, FacilitatorSettler, PaymentNetwork, Reconciled, Settler,
};
use agentrep_store::ledger::Settlement;
use agentrep_store::{PaymentRecord, PaymentState, Store};
use alloy::primitives::{Address, B256, U256};
use alloy::signers::local::PrivateKeySigner;
use tracing::{info, warn};

pub use self::off::{Failed, PaymentsOff};
pub use crate::secret::{KeyError, SecretKey};
use crate::store_task::on_store;

/// How a deployment takes payments. Every field reads an `AGENTREP_*` variable.
#[derive(Debug, Clone)]
pub struct PaymentSettings {
    /// `AGENTREP_PAYMENT_NETWORK`: `base` (default) or `base-sepolia`.
    pub network: PaymentNetwork,
    /// `AGENTREP_PAYMENT_RPC`: a node on that network, for the chain's checks and settlement.
    pub rpc_url: Option<String>,
    /// `AGENTREP_RELAYER_KEY`: settle directly, paying gas from this key.
    pub relayer_key: Option<SecretKey>,
    /// `AGENTREP_FACILITATOR_URL`: settle through this facilitator instead.
    pub facilitator_url: Option<String>,
    /// `AGENTREP_SETTLE_TIMEOUT_SECS`: longest wait for a settlement (default 30).
    pub settle_timeout: Duration,
    /// `AGENTREP_STORE`: the write store's file (default: beside the snapshots folder).
    pub store: Option<PathBuf>,
    /// How often open settlements are reconciled.
    pub reconcile_interval: Duration,
    /// `AGENTREP_WALLET_FACTORIES`: comma-separated ERC-6492 wallet factories the relayer may call
    /// to deploy a paying smart wallet before settling (default none: such payments are refused
    /// with `eip6492_factory_not_allowed`; wallets that exist pay as any ERC-1271 wallet).
    pub wallet_factories: Vec<Address>,
}

impl Default for PaymentSettings {
    fn default() -> Self {
        Self {
            network: PaymentNetwork::base(),
            rpc_url: None,
            relayer_key: None,
            facilitator_url: None,
            settle_timeout: Duration::from_secs(30),
            store: None,
            reconcile_interval: Duration::from_secs(30),
            wallet_factories: Vec::new(),
        }
    }
}

impl PaymentSettings {
    /// Reads the environment.
    pub(crate) fn read(r: &mut crate::config::Reader) -> Self {
        use crate::config::Problem;
        use crate::env;
        let defaults = Self::default();
        let network = r.parse(&env::PAYMENT_NETWORK, |v| match v {
            "base" | "eip155:8453" => Ok(PaymentNetwork::base()),
            "base-sepolia" | "eip155:84532" => Ok(PaymentNetwork::base_sepolia()),
            other => Err(Problem::UnknownNetwork(other.to_owned())),
        });
        let wallet_factories = r.parse(&env::WALLET_FACTORIES, |v| {
            v.split(',')
                .map(str::trim)
                .filter(|e| !e.is_empty())
                .map(|e| e.parse().map_err(|_| Problem::ListsANonAddress(e.to_owned())))
                .collect::<Result<Vec<_>, _>>()
        });
        Self {
            network: network.unwrap_or(defaults.network),
            rpc_url: env::PAYMENT_RPC.get(),
            relayer_key: env::RELAYER_KEY.get().map(SecretKey::new),
            facilitator_url: env::FACILITATOR_URL.get(),
            settle_timeout: r.positive(&env::SETTLE_TIMEOUT_SECS).map_or(defaults.settle_timeout, Duration::from_secs),
            store: env::STORE.get().map(PathBuf::from),
            wallet_factories: wallet_factories.unwrap_or_default(),
            ..defaults
        }
    }
}

/// A deployment that takes payments: where they go, the ledger, and how they settle.
#[derive(Debug)]
pub struct Payments {
    /// Receiving address.
    pub pay_to: Address,
    /// Network and asset.
    pub network: PaymentNetwork,
    /// The ledger.
    pub store: Arc<Store>,
    /// How payments settle.
    pub settler: Settler,
    /// Signs offers and receipts (the operator's key), when configured.
    pub signer: Option<PrivateKeySigner>,
    /// A `settling` row untouched for this long belongs to no live request (its process
    /// stopped): reconciliation takes it over.
    stale_after: Duration,
}

/// Blocks an unknown settlement's transaction is looked for in (about 5.5 hours of Base).
const RECONCILE_LOOKBACK_BLOCKS: u64 = 10_000;

impl Payments {
    /// Connects what `settings` names. `Err` says, in words for `/status`, what is missing or
    /// failed; the deployment then takes no payments.
    pub async fn start(
        pay_to: Option<&str>,
        settings: &PaymentSettings,
        store: Option<Arc<Store>>,
        signer: Option<PrivateKeySigner>,
    ) -> Result<Self, PaymentsOff> {
        let (pay_to, settler) = connect(pay_to, settings).await?;
        let store = store.ok_or(PaymentsOff::NoLedger)?;
        // The store's error names its file: the log has it, `/status` and refusals do not.
        let released = store.release_interrupted(now()).map_err(|e| Failed::Ledger.logged(&e))?;
        if released > 0 {
            info!(target: "server::payments", released, "Payments interrupted before settlement were released.");
        }
        info!(target: "server::payments", settle = settler.kind(), network = %settings.network.caip2, "Payments are on.");
        // A live request spends at most one timeout sending and one waiting for the receipt.
        let stale_after = settings.settle_timeout * 2 + Duration::from_secs(10);
        Ok(Self { pay_to, network: settings.network.clone(), store, settler, signer, stale_after })
    }

    /// Settles what the ledger holds open: each `unknown` payment, and each `settling` one no
    /// live request is settling any more, is looked up on chain and marked settled, or failed
    /// once it expired unused. Returns how many changed.
    pub async fn reconcile_open(&self) -> usize {
        let Ok(open) = on_store(&self.store, |s| s.open_payments()).await else { return 0 };
        let stale_before = now() - i64::try_from(self.stale_after.as_secs()).unwrap_or(i64::MAX);
        let orphaned = |r: &PaymentRecord| match r.state {
            PaymentState::Unknown => true,
            PaymentState::Settling => r.updated_at <= stale_before,
            _ => false,
        };
        let mut changed = 0;
        for rec in open.into_iter().filter(orphaned) {
            let Some(transfer) = transfer_of(&rec) else { continue };
            let recorded = rec.tx_hash.as_deref().and_then(|t| t.parse::<B256>().ok());
            let outcome = match reconcile(
                self.settler.reader(),
                &transfer,
                recorded,
                RECONCILE_LOOKBACK_BLOCKS,
                now_u64(),
            )
            .await
            {
                Ok(Reconciled::Settled(tx)) => Settlement::Settled { tx_hash: tx.to_string() },
                Ok(Reconciled::NeverSettled) => {
                    Settlement::Failed { reason: "expired without settling; nothing was charged".to_owned() }
                }
                Ok(Reconciled::StillUnknown) => continue,
                Err(e) => {
                    warn!(target: "server::payments", payment = rec.id, %e, "Reconciliation could not ask the chain.");
                    continue;
                }
            };
            let id = rec.id;
            if on_store(&self.store, move |s| s.finish_settlement(id, &outcome, None, now())).await.is_ok() {
                changed += 1;
            }
        }
        changed
    }
}

/// The receiving address and the way to settle that `settings` name: the node must answer with
/// the network's chain id. Touches no ledger (`serve --check` calls it beside a running server).
///
/// # Errors
/// What is missing or failed (what failed is logged, its URLs cut to their hosts: a hosted
/// node's URL carries its key).
pub async fn connect(pay_to: Option<&str>, settings: &PaymentSettings) -> Result<(Address, Settler), PaymentsOff> {
    let pay_to: Address = pay_to.ok_or(PaymentsOff::NoPayTo)?.parse().map_err(|_| PaymentsOff::PayToNotAnAddress)?;
    let rpc = settings.rpc_url.as_deref().ok_or(PaymentsOff::NoNode)?;
    let reader = ChainReader::connect(rpc, settings.network.clone(), settings.settle_timeout)
        .await
        .map_err(|e| Failed::Node.logged(&e))?;
    let settler = match (&settings.relayer_key, &settings.facilitator_url) {
        (Some(key), _) => {
            let signer = key.signer("AGENTREP_RELAYER_KEY").map_err(|_| PaymentsOff::RelayerKeyInvalid)?;
            Settler::Direct(
                DirectSettler::new(rpc, signer, reader, settings.settle_timeout)
                    .map_err(|e| Failed::Relayer.logged(&e))?
                    .with_wallet_factories(settings.wallet_factories.clone()),
            )
        }
        (None, Some(url)) => Settler::Facilitator(
            FacilitatorSettler::new(url, reader, settings.settle_timeout)
                .map_err(|e| Failed::Facilitator.logged(&e))?,
        ),
        (None, None) => return Err(PaymentsOff::NoSettler),
    };
    Ok((pay_to, settler))
}

/// The transfer a ledger row authorised (the ledger keeps no signatures).
fn transfer_of(rec: &PaymentRecord) -> Option<AuthorizedTransfer> {
    Some(AuthorizedTransfer {
        payer: rec.payer.parse().ok()?,
        to: rec.pay_to.parse().ok()?,
        value: rec.value.parse::<U256>().ok()?,
        nonce: rec.nonce.parse().ok()?,
        valid_before: u64::try_from(rec.valid_before).ok()?,
    })
}

/// Unix seconds now.
pub fn now() -> i64 {
    chrono::Utc::now().timestamp()
}

fn now_u64() -> u64 {
    u64::try_from(now()).unwrap_or(0)
}
