//! The auth-capture escrow's events (base/commerce-payments `AuthCaptureEscrow`, both versions):
//! each becomes an `escrow_events` row with its payment's parties, for payments to a candidate
//! seller. Only an authorization and a charge carry the payment; a capture, a void, a reclaim or a
//! refund carries its hash, resolved from the payments known before (this run's earlier events
//! and the lake's rows) or from the call when it went to the escrow directly.

use std::collections::{BTreeMap, BTreeSet, HashMap};

use agentrep_lake::datasets::EscrowEventRow;
use agentrep_lake::{EscrowAction, Timestamp};
use alloy::primitives::{Address, B256, U256};
use alloy::rpc::types::Log;
use alloy::sol_types::SolEvent;

use super::reading::{Payment, Payments, called_with};
use crate::chain::TxSummary;
use crate::chain::events::{
    PaymentAuthorized, PaymentReclaimed, PaymentRefunded, PaymentVoided, escrow_v1_0, escrow_v1_1,
};
use crate::sources::{hex_address, ts};

/// Every escrow event's topic0 (the filter of the escrow scan).
pub(super) fn topics() -> Vec<B256> {
    vec![
        PaymentAuthorized::SIGNATURE_HASH,
        escrow_v1_0::PaymentCharged::SIGNATURE_HASH,
        escrow_v1_1::PaymentCharged::SIGNATURE_HASH,
        escrow_v1_0::PaymentCaptured::SIGNATURE_HASH,
        escrow_v1_1::PaymentCaptured::SIGNATURE_HASH,
        PaymentVoided::SIGNATURE_HASH,
        PaymentReclaimed::SIGNATURE_HASH,
        PaymentRefunded::SIGNATURE_HASH,
    ]
}

/// One escrow event, decoded: what happened, to which payment, how much moved and the fee.
struct Decoded {
    action: EscrowAction,
    hash: B256,
    info: Option<Payment>,
    amount: U256,
    fee: Option<U256>,
}

fn decode(log: &Log) -> Option<Decoded> {
    let topic = *log.topic0()?;
    let bps = |amount: U256, bps: u16| amount * U256::from(bps) / U256::from(10_000u64);
    let d = if topic == PaymentAuthorized::SIGNATURE_HASH {
        let e = log.log_decode::<PaymentAuthorized>().ok()?.inner.data;
        Decoded {
            action: EscrowAction::Authorized,
            hash: e.paymentInfoHash,
            info: Some((&e.paymentInfo).into()),
            amount: e.amount,
            fee: None,
        }
    } else if topic == escrow_v1_0::PaymentCharged::SIGNATURE_HASH {
        let e = log.log_decode::<escrow_v1_0::PaymentCharged>().ok()?.inner.data;
        Decoded {
            action: EscrowAction::Charged,
            hash: e.paymentInfoHash,
            info: Some((&e.paymentInfo).into()),
            amount: e.amount,
            fee: Some(bps(e.amount, e.feeBps)),
        }
    } else if topic == escrow_v1_1::PaymentCharged::SIGNATURE_HASH {
        let e = log.log_decode::<escrow_v1_1::PaymentCharged>().ok()?.inner.data;
        Decoded {
            action: EscrowAction::Charged,
            hash: e.paymentInfoHash,
            info: Some((&e.paymentInfo).into()),
            amount: e.amount,
            fee: Some(e.feeAmount),
        }
    } else if topic == escrow_v1_0::PaymentCaptured::SIGNATURE_HASH {
        let e = log.log_decode::<escrow_v1_0::PaymentCaptured>().ok()?.inner.data;
        let fee = Some(bps(e.amount, e.feeBps));
        Decoded { action: EscrowAction::Captured, hash: e.paymentInfoHash, info: None, amount: e.amount, fee }
    } else if topic == escrow_v1_1::PaymentCaptured::SIGNATURE_HASH {
        let e = log.log_decode::<escrow_v1_1::PaymentCaptured>().ok()?.inner.data;
        Decoded {
            action: EscrowAction::Captured,
            hash: e.paymentInfoHash,
            info: None,
            amount: e.amount,
            fee: Some(e.feeAmount),
        }
    } else if topic == PaymentVoided::SIGNATURE_HASH {
        let e = log.log_decode::<PaymentVoided>().ok()?.inner.data;
        Decoded { action: EscrowAction::Voided, hash: e.paymentInfoHash, info: None, amount: e.amount, fee: None }
    } else if topic == PaymentReclaimed::SIGNATURE_HASH {
        let e = log.log_decode::<PaymentReclaimed>().ok()?.inner.data;
        Decoded { action: EscrowAction::Reclaimed, hash: e.paymentInfoHash, info: None, amount: e.amount, fee: None }
    } else if topic == PaymentRefunded::SIGNATURE_HASH {
        let e = log.log_decode::<PaymentRefunded>().ok()?.inner.data;
        Decoded { action: EscrowAction::Refunded, hash: e.paymentInfoHash, info: None, amount: e.amount, fee: None }
    } else {
        return None;
    };
    Some(d)
}

/// What the escrow scan found.
#[derive(Debug, Default)]
pub(super) struct EscrowScan {
    /// Rows for payments to candidate sellers, in chain order.
    pub rows: Vec<EscrowEventRow>,
    /// Every payment seen or resolved (to any receiver): the settlement reading's lookup.
    pub payments: Payments,
    /// Events whose payment could not be resolved (left out).
    pub unresolved: u64,
}

/// Turns the escrow's logs (chain order) into rows. `known` holds the payments of earlier runs;
/// `txs` the logs' transactions; `times` their blocks' times; `chain_id` is the chain's, whose
/// escrows' hashes name the payments.
pub(super) fn scan(
    logs: &[Log],
    chain_id: u64,
    txs: &HashMap<B256, TxSummary>,
    times: &BTreeMap<u64, i64>,
    known: Payments,
    sellers: &BTreeSet<Address>,
) -> EscrowScan {
    let mut out = EscrowScan { payments: known, ..EscrowScan::default() };
    for log in logs {
        let (Some(block), Some(hash), Some(index)) = (log.block_number, log.transaction_hash, log.log_index) else {
            continue;
        };
        let Some(event) = decode(log) else { continue };
        let from_call = || {
            let direct = txs.get(&hash).filter(|t| t.to == Some(log.address()));
            direct.and_then(|t| called_with(&t.input, chain_id, log.address(), event.hash))
        };
        let Some(payment) = event.info.or_else(|| out.payments.get(&event.hash).copied()).or_else(from_call) else {
            out.unresolved += 1;
            continue;
        };
        out.payments.insert(event.hash, payment);
        if !sellers.contains(&payment.receiver) {
            continue;
        }
        let micro = |v: U256| u64::try_from(v).unwrap_or(u64::MAX);
        out.rows.push(EscrowEventRow {
            tx_hash: format!("{hash:#x}"),
            log_index: index as u32,
            block_number: block,
            block_time: times.get(&block).map_or(Timestamp::default(), |t| ts(*t)),
            escrow: hex_address(&log.address()),
            action: Some(event.action),
            payment: format!("{:#x}", event.hash),
            operator: hex_address(&payment.operator),
            payer: hex_address(&payment.payer),
            receiver: hex_address(&payment.receiver),
            token: hex_address(&payment.token),
            amount: micro(event.amount),
            fee: event.fee.map(micro),
        });
    }
    out
}

/// The payments of earlier rows, by hash (what a capture in this run may need).
pub(super) fn known_payments(rows: impl IntoIterator<Item = EscrowEventRow>) -> Payments {
    let parse = |s: &str| s.parse::<Address>().ok();
    rows.into_iter()
        .filter_map(|r| {
            let payment = Payment {
                operator: parse(&r.operator)?,
                payer: parse(&r.payer)?,
                receiver: parse(&r.receiver)?,
                token: parse(&r.token)?,
            };
            Some((r.payment.parse::<B256>().ok()?, payment))
        })
        .collect()
}
