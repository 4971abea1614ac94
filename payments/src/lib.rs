//! x402 for a seller (`../shared/reference/x402.md`): the terms a paid route quotes to v1 and v2
//! buyers at once, the decoding of a paid retry (`X-PAYMENT` or `PAYMENT-SIGNATURE`), the local
//! verification of an `exact` EIP-3009 payment (scheme, network, asset, recipient, amount, time
//! window, the EIP-712 `TransferWithAuthorization` signature), the chain's checks, and settlement.
//!
//! Two layers: [`wire`], [`verify`], [`recover`] and [`network`] are pure (no I/O; the
//! verification benchmark measures them alone); [`chain`] and [`settle`] talk to an RPC node and a
//! facilitator. Errors carry the x402 error code (`invalidReason`) a buyer's client understands;
//! nothing here logs a payment, a signature or a key.

pub mod chain;
pub mod network;
pub mod receipt;
pub mod recover;
pub mod settle;
pub mod verify;
pub mod wire;

pub use chain::{AuthorizedTransfer, ChainReader, ChainVerdict, RpcError};
pub use network::PaymentNetwork;
pub use settle::{DirectSettler, FacilitatorRequest, FacilitatorSettler, Reconciled, SettleOutcome, Settler};
pub use verify::{InvalidReason, Offer, Rejected, VerifiedPayment, verify_exact};
pub use wire::{PaidRetry, X402Version};
