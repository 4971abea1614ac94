//! x402 for a seller (`../shared/reference/x402.md`): the terms a paid route quotes to v1 and v2
//! buyers at once, the decoding of a paid retry (`X-PAYMENT` or `PAYMENT-SIGNATURE`), and the
//! local verification of an `exact` EIP-3009 payment (scheme, network, asset, recipient, amount,
//! time window, the EIP-712 `TransferWithAuthorization` signature).
//!
//! No I/O: checks that need the chain (a smart wallet's signature, the nonce on chain, the
//! balance) and settlement build on this crate, never inside it. Errors carry the x402 error
//! code (`invalidReason`) a buyer's client understands; nothing here logs a payment.

pub mod network;
pub mod recover;
pub mod verify;
pub mod wire;

pub use network::PaymentNetwork;
pub use verify::{InvalidReason, Offer, Rejected, VerifiedPayment, verify_exact};
pub use wire::{PaidRetry, X402Version};
