//! What a settling transaction says about one USDC `Transfer` to a seller: its form, its true
//! payer, and who relayed it. Pure: the transaction, its receipt (when it went through a contract)
//! and the escrowed payments known so far in, a [`Reading`] out.
//!
//! The forms and what tells each (x402.md § 8):
//! * the payer's `AuthorizationUsed` right before the Transfer, or a direct call to one of USDC's
//!   EIP-3009 functions naming the payer: [`SettlementForm::Eip3009`];
//! * a Permit2 proxy's `Settled()` or `SettledWithPermit()` right after it (Permit2 moves the funds
//!   from the payer to the seller and logs nothing itself): the proxy's form, `permit2` or `upto`;
//! * an escrow's capture or charge of a payment to this seller before it, the Transfer coming from
//!   the operator's token store: [`SettlementForm::AuthCapture`], paid by the payment's payer (not
//!   the token store);
//! * a Transfer from the batch-settlement contract sweeps claims already recorded per channel
//!   ([`Reading::Sweep`]), so it is not another settlement;
//! * anything else: [`SettlementForm::Transfer`].
//!
//! A transaction sent to an ERC-4337 EntryPoint was sent by a bundler: the bundler is never taken
//! for a facilitator.

use std::collections::HashMap;

use agentrep_lake::SettlementForm;
use alloy::primitives::{Address, B256};
use alloy::rpc::types::TransactionReceipt;
use alloy::sol_types::{SolCall, SolEvent, SolValue};

use crate::chain::TxSummary;
use crate::chain::events::{
    AuthorizationUsed, PaymentInfo, Settled, SettledWithPermit, Transfer, escrow_v1_0, escrow_v1_1,
    receiveWithAuthorization_0Call, receiveWithAuthorization_1Call, transferWithAuthorization_0Call,
    transferWithAuthorization_1Call,
};
use crate::chain::forms::{Role, role_of};

/// An escrowed payment's parties, by its hash.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Payment {
    /// May capture, void and refund it.
    pub operator: Address,
    /// Paid into the escrow.
    pub payer: Address,
    /// Is paid at capture.
    pub receiver: Address,
    /// The token.
    pub token: Address,
}

impl From<&PaymentInfo> for Payment {
    fn from(p: &PaymentInfo) -> Self {
        Payment { operator: p.operator, payer: p.payer, receiver: p.receiver, token: p.token }
    }
}

/// Escrowed payments by `paymentInfoHash`.
pub type Payments = HashMap<B256, Payment>;

/// One Transfer log, decoded.
#[derive(Debug, Clone, Copy)]
pub struct TransferLog {
    /// `Transfer.from`.
    pub from: Address,
    /// `Transfer.to`: the seller.
    pub to: Address,
    /// The log's index in its block.
    pub index: u64,
}

/// What the transaction says about the Transfer.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Reading {
    /// A settlement.
    Settlement {
        /// Its form.
        form: SettlementForm,
        /// Who paid: `Transfer.from`, or the escrowed payment's payer.
        payer: Address,
        /// The transaction's sender when it relayed another's payment (never a bundler).
        facilitator: Option<Address>,
    },
    /// The batch-settlement contract paid out claims, each already a settlement of its channel.
    Sweep,
    /// The fee of an escrow payout whose fee receiver is the seller itself: the payout that follows
    /// it is the settlement (one payment is one settlement, however it is split).
    PayoutFee,
    /// The escrow paid the seller, but the payment it captured is not known yet (its
    /// authorization is in no partition read and the call was not made to the escrow directly).
    UnknownPayment,
}

/// Reads one Transfer to a seller. `receipt` is the transaction's, needed unless the transaction
/// called USDC itself.
pub fn read(
    usdc: Address,
    chain_id: u64,
    tx: &TxSummary,
    receipt: Option<&TransactionReceipt>,
    transfer: TransferLog,
    payments: &Payments,
) -> Reading {
    if role_of(transfer.from) == Some(Role::BatchSettlement) {
        return Reading::Sweep;
    }
    let (form, payer) = match receipt {
        None => {
            let form = if tx.to == Some(usdc) && authorizes(&tx.input, transfer.from) {
                SettlementForm::Eip3009
            } else {
                SettlementForm::Transfer
            };
            (form, transfer.from)
        }
        Some(receipt) => match escrow_payout(receipt, chain_id, tx, transfer, payments) {
            Some(Some(_)) if payout_follows(receipt, usdc, transfer) => return Reading::PayoutFee,
            Some(Some(payment)) => (SettlementForm::AuthCapture, payment.payer),
            Some(None) => return Reading::UnknownPayment,
            None if authorization_precedes(receipt, usdc, transfer.from, transfer.index) => {
                (SettlementForm::Eip3009, transfer.from)
            }
            None => (proxy_after(receipt, transfer.index).unwrap_or(SettlementForm::Transfer), transfer.from),
        },
    };
    let bundled = tx.to.and_then(role_of) == Some(Role::EntryPoint);
    let facilitator = (tx.from != payer && !bundled).then_some(tx.from);
    Reading::Settlement { form, payer, facilitator }
}

/// A call to USDC itself is one of its EIP-3009 functions with `payer` as `from` (the first
/// argument): USDC then emits the payer's `AuthorizationUsed` immediately before the Transfer,
/// which is what [`authorization_precedes`] looks for in a receipt. Any other call to USDC
/// (`transfer`, `transferFrom`) moves funds without an authorization.
pub fn authorizes(input: &[u8], payer: Address) -> bool {
    const SELECTORS: [[u8; 4]; 4] = [
        transferWithAuthorization_0Call::SELECTOR,
        transferWithAuthorization_1Call::SELECTOR,
        receiveWithAuthorization_0Call::SELECTOR,
        receiveWithAuthorization_1Call::SELECTOR,
    ];
    input.len() >= 36 && SELECTORS.iter().any(|s| input[..4] == s[..]) && input[4..36] == payer.into_word()[..]
}

/// An `AuthorizationUsed(authorizer == payer)` from the token at log index − 1 (USDC emits it
/// immediately before the Transfer).
fn authorization_precedes(receipt: &TransactionReceipt, token: Address, payer: Address, index: u64) -> bool {
    receipt.inner.logs().iter().any(|l| {
        l.log_index == Some(index.wrapping_sub(1))
            && l.address() == token
            && l.log_decode::<AuthorizationUsed>().is_ok_and(|a| a.inner.data.authorizer == payer)
    })
}

/// The form of the Permit2 proxy whose `Settled()` or `SettledWithPermit()` is the log right after
/// the Transfer.
fn proxy_after(receipt: &TransactionReceipt, index: u64) -> Option<SettlementForm> {
    receipt.inner.logs().iter().find_map(|l| {
        let settled = [Settled::SIGNATURE_HASH, SettledWithPermit::SIGNATURE_HASH];
        let next = l.log_index == Some(index + 1) && l.topic0().is_some_and(|t| settled.contains(t));
        match role_of(l.address()) {
            Some(Role::Proxy(form)) if next => Some(form),
            _ => None,
        }
    })
}

/// When an escrow captured or charged a payment to the Transfer's recipient earlier in the
/// transaction: `Some(payment)` when its parties are known, `Some(None)` when not; `None` when no
/// escrow paid out here. Of several such events (a batched call), the last one before the Transfer
/// whose payment names this recipient.
fn escrow_payout(
    receipt: &TransactionReceipt,
    chain_id: u64,
    tx: &TxSummary,
    transfer: TransferLog,
    payments: &Payments,
) -> Option<Option<Payment>> {
    let mut found = None;
    for log in receipt.inner.logs() {
        if log.log_index.is_none_or(|i| i >= transfer.index) {
            continue;
        }
        let Some(Role::Escrow(_)) = role_of(log.address()) else { continue };
        let Some(payout) = payout_event(log) else { continue };
        let payment = payout.info.or_else(|| payments.get(&payout.hash).copied()).or_else(|| {
            let direct = tx.to == Some(log.address());
            direct.then(|| called_with(&tx.input, chain_id, log.address(), payout.hash)).flatten()
        });
        match payment {
            Some(p) if p.receiver == transfer.to => found = Some(Some(p)),
            Some(_) => {}
            None => found = found.or(Some(None)),
        }
    }
    found
}

/// Whether another Transfer of the token to the same recipient follows this one before the
/// escrow's next event: then this one is the fee leg of a payout whose fee receiver is the seller
/// (the escrow sends the fee first, then the payout).
fn payout_follows(receipt: &TransactionReceipt, token: Address, transfer: TransferLog) -> bool {
    for log in receipt.inner.logs().iter().filter(|l| l.log_index.is_some_and(|i| i > transfer.index)) {
        if matches!(role_of(log.address()), Some(Role::Escrow(_))) {
            return false;
        }
        if log.address() == token && log.log_decode::<Transfer>().is_ok_and(|t| t.inner.data.to == transfer.to) {
            return true;
        }
    }
    false
}

/// A capture or a charge (of either escrow version): the payment's hash, and its parties when the
/// event carries them (a charge).
struct Payout {
    hash: B256,
    info: Option<Payment>,
}

fn payout_event(log: &alloy::rpc::types::Log) -> Option<Payout> {
    let topic = *log.topic0()?;
    if topic == escrow_v1_0::PaymentCharged::SIGNATURE_HASH {
        let e = log.log_decode::<escrow_v1_0::PaymentCharged>().ok()?.inner.data;
        Some(Payout { hash: e.paymentInfoHash, info: Some((&e.paymentInfo).into()) })
    } else if topic == escrow_v1_1::PaymentCharged::SIGNATURE_HASH {
        let e = log.log_decode::<escrow_v1_1::PaymentCharged>().ok()?.inner.data;
        Some(Payout { hash: e.paymentInfoHash, info: Some((&e.paymentInfo).into()) })
    } else if topic == escrow_v1_0::PaymentCaptured::SIGNATURE_HASH
        || topic == escrow_v1_1::PaymentCaptured::SIGNATURE_HASH
    {
        Some(Payout { hash: *log.topics().get(1)?, info: None })
    } else {
        None
    }
}

/// The `PaymentInfo` every escrow function takes first, from a direct call's input (a static
/// struct of 12 words right after the selector), when it is the payment the escrow's event names
/// by `hash`: the call's bytes are the caller's, the hash is the escrow's.
pub fn called_with(input: &[u8], chain_id: u64, escrow: Address, hash: B256) -> Option<Payment> {
    let words = input.get(4..4 + 12 * 32)?;
    let info = PaymentInfo::abi_decode(words).ok()?;
    (info.escrow_hash(chain_id, escrow) == hash).then(|| (&info).into())
}

#[cfg(test)]
mod tests {
    use alloy::primitives::{Bytes, Log as PrimitiveLog, LogData, U256, address};
    use alloy::rpc::types::Log;

    use super::*;

    const USDC: Address = address!("0x833589fCD6eDb6E08f4c7C32D4f71b54bdA02913");
    const PAYER: Address = address!("0x00000000000000000000000000000000000000aa");
    const SELLER: Address = address!("0x00000000000000000000000000000000000000bb");
    const FACILITATOR: Address = address!("0x00000000000000000000000000000000000000cc");
    const TOKEN_STORE: Address = address!("0x00000000000000000000000000000000000000dd");
    const EXACT_PROXY: Address = address!("0x402085c248EeA27D92E8b30b2C58ed07f9E20001");
    const UPTO_PROXY: Address = address!("0x4020A4f3b7b90ccA423B9fabCc0CE57C6C240002");
    const ESCROW: Address = address!("0xBdEA0D1bcC5966192B070Fdf62aB4EF5b4420cff");
    const BATCH: Address = address!("0x4020074e9dF2ce1deE5A9C1b5c3f541D02a10003");
    const CHAIN: u64 = 8453;
    const ENTRY_POINT: Address = address!("0x0000000071727De22E5E9d8BAf0edAc6f37da032");

    fn log(address: Address, index: u64, data: LogData) -> Log {
        Log { inner: PrimitiveLog { address, data }, log_index: Some(index), ..Log::default() }
    }

    fn event<E: SolEvent>(address: Address, index: u64, e: &E) -> Log {
        log(address, index, e.encode_log_data())
    }

    fn transfer(from: Address, index: u64) -> Log {
        event(USDC, index, &Transfer { from, to: SELLER, value: U256::from(10_000u64) })
    }

    fn receipt(to: Address, logs: Vec<Log>) -> TransactionReceipt {
        let json = serde_json::json!({
            "transactionHash": B256::ZERO, "transactionIndex": "0x0", "blockHash": B256::ZERO, "blockNumber": "0x1",
            "from": FACILITATOR, "to": to, "gasUsed": "0x0", "cumulativeGasUsed": "0x0", "effectiveGasPrice": "0x0",
            "contractAddress": null, "logsBloom": Bytes::from(vec![0u8; 256]), "type": "0x2", "status": "0x1",
            "logs": logs,
        });
        serde_json::from_value(json).expect("a receipt")
    }

    fn tx(from: Address, to: Address, input: Vec<u8>) -> TxSummary {
        TxSummary { hash: B256::ZERO, from, to: Some(to), input: input.into() }
    }

    fn at(index: u64, from: Address) -> TransferLog {
        TransferLog { from, to: SELLER, index }
    }

    fn info(receiver: Address) -> PaymentInfo {
        PaymentInfo {
            operator: FACILITATOR,
            payer: PAYER,
            receiver,
            token: USDC,
            maxAmount: alloy::primitives::Uint::from(20_000u64),
            preApprovalExpiry: alloy::primitives::Uint::from(1u64),
            authorizationExpiry: alloy::primitives::Uint::from(2u64),
            refundExpiry: alloy::primitives::Uint::from(3u64),
            minFeeBps: 0,
            maxFeeBps: 100,
            feeReceiver: Address::ZERO,
            salt: U256::from(9u64),
        }
    }

    fn settlement(form: SettlementForm, payer: Address, facilitator: Option<Address>) -> Reading {
        Reading::Settlement { form, payer, facilitator }
    }

    #[test]
    fn a_direct_eip3009_call_by_the_payer_authorizes() {
        let (value, after, before, nonce) = (U256::from(10_000u64), U256::ZERO, U256::MAX, B256::repeat_byte(7));
        let vrs = transferWithAuthorization_0Call {
            from: PAYER,
            to: SELLER,
            value,
            validAfter: after,
            validBefore: before,
            nonce,
            v: 27,
            r: B256::ZERO,
            s: B256::ZERO,
        }
        .abi_encode();
        let bytes = receiveWithAuthorization_1Call {
            from: PAYER,
            to: SELLER,
            value,
            validAfter: after,
            validBefore: before,
            nonce,
            signature: vec![1u8; 65].into(),
        }
        .abi_encode();
        assert!(authorizes(&vrs, PAYER));
        assert!(authorizes(&bytes, PAYER));
        assert!(!authorizes(&vrs, SELLER), "another wallet's authorization");
        let mut transfer = vec![0xa9, 0x05, 0x9c, 0xbb];
        transfer.extend_from_slice(&vrs[4..]);
        assert!(!authorizes(&transfer, PAYER), "transfer(…) uses no authorization");
        assert!(!authorizes(&vrs[..20], PAYER));
        let reading = read(USDC, CHAIN, &tx(FACILITATOR, USDC, vrs), None, at(3, PAYER), &Payments::new());
        assert_eq!(reading, settlement(SettlementForm::Eip3009, PAYER, Some(FACILITATOR)));
        let own = read(USDC, CHAIN, &tx(PAYER, USDC, transfer), None, at(3, PAYER), &Payments::new());
        assert_eq!(own, settlement(SettlementForm::Transfer, PAYER, None));
    }

    #[test]
    fn each_proxy_names_its_form_only_right_after_the_transfer() {
        for (proxy, form) in [(EXACT_PROXY, SettlementForm::Permit2), (UPTO_PROXY, SettlementForm::Upto)] {
            let logs = vec![transfer(PAYER, 4), event(proxy, 5, &Settled {})];
            let r = receipt(proxy, logs);
            assert_eq!(
                read(USDC, CHAIN, &tx(FACILITATOR, proxy, vec![]), Some(&r), at(4, PAYER), &Payments::new()),
                settlement(form, PAYER, Some(FACILITATOR))
            );
            // Another transfer in the same transaction is not the proxy's settlement.
            assert_eq!(
                read(USDC, CHAIN, &tx(FACILITATOR, proxy, vec![]), Some(&r), at(2, PAYER), &Payments::new()),
                settlement(SettlementForm::Transfer, PAYER, Some(FACILITATOR))
            );
        }
        let with_permit = receipt(EXACT_PROXY, vec![transfer(PAYER, 4), event(EXACT_PROXY, 5, &SettledWithPermit {})]);
        assert_eq!(
            read(
                USDC,
                CHAIN,
                &tx(FACILITATOR, EXACT_PROXY, vec![]),
                Some(&with_permit),
                at(4, PAYER),
                &Payments::new()
            ),
            settlement(SettlementForm::Permit2, PAYER, Some(FACILITATOR))
        );
        // The same event from an address that is no proxy says nothing.
        let impostor = receipt(SELLER, vec![transfer(PAYER, 4), event(SELLER, 5, &Settled {})]);
        assert_eq!(
            read(USDC, CHAIN, &tx(FACILITATOR, SELLER, vec![]), Some(&impostor), at(4, PAYER), &Payments::new()),
            settlement(SettlementForm::Transfer, PAYER, Some(FACILITATOR))
        );
    }

    #[test]
    fn an_escrow_payout_is_paid_by_the_payments_payer() {
        let hash = info(SELLER).escrow_hash(CHAIN, ESCROW);
        // A charge carries the payment: the payer is its payer, not the token store.
        let charged = escrow_v1_1::PaymentCharged {
            paymentInfoHash: hash,
            paymentInfo: info(SELLER),
            amount: U256::from(10_100u64),
            tokenCollector: Address::ZERO,
            feeAmount: U256::from(100u64),
            feeReceiver: FACILITATOR,
        };
        let r = receipt(ESCROW, vec![event(ESCROW, 1, &charged), transfer(TOKEN_STORE, 6)]);
        let reading =
            read(USDC, CHAIN, &tx(FACILITATOR, ESCROW, vec![]), Some(&r), at(6, TOKEN_STORE), &Payments::new());
        assert_eq!(reading, settlement(SettlementForm::AuthCapture, PAYER, Some(FACILITATOR)));
        // A capture carries only the hash: the payment comes from what is known of it ...
        let captured = escrow_v1_0::PaymentCaptured {
            paymentInfoHash: hash,
            amount: U256::from(10_000u64),
            feeBps: 0,
            feeReceiver: Address::ZERO,
        };
        let r = receipt(ESCROW, vec![event(ESCROW, 1, &captured), transfer(TOKEN_STORE, 2)]);
        let known = Payments::from([(hash, Payment::from(&info(SELLER)))]);
        let via_router = tx(FACILITATOR, FACILITATOR, vec![]);
        assert_eq!(
            read(USDC, CHAIN, &via_router, Some(&r), at(2, TOKEN_STORE), &known),
            settlement(SettlementForm::AuthCapture, PAYER, Some(FACILITATOR))
        );
        // ... or from the call, when the operator called the escrow itself ...
        let mut call = vec![0x64, 0x4c, 0xd7, 0x9a];
        call.extend(info(SELLER).abi_encode());
        call.extend([0u8; 96]);
        assert_eq!(called_with(&call, CHAIN, ESCROW, hash), Some(Payment::from(&info(SELLER))));
        // A call whose payment is not the one the event names says nothing of it.
        assert_eq!(called_with(&call, CHAIN, ESCROW, B256::repeat_byte(0x11)), None);
        assert_eq!(called_with(&call, 84532, ESCROW, hash), None, "another chain's escrow");
        assert_eq!(
            read(USDC, CHAIN, &tx(FACILITATOR, ESCROW, call), Some(&r), at(2, TOKEN_STORE), &Payments::new()),
            settlement(SettlementForm::AuthCapture, PAYER, Some(FACILITATOR))
        );
        // ... and when neither says, the token store is never taken for the payer.
        assert_eq!(
            read(USDC, CHAIN, &via_router, Some(&r), at(2, TOKEN_STORE), &Payments::new()),
            Reading::UnknownPayment
        );
        // A payment to another receiver does not make this Transfer its payout.
        let other = Payments::from([(hash, Payment::from(&info(FACILITATOR)))]);
        assert_eq!(
            read(USDC, CHAIN, &via_router, Some(&r), at(2, TOKEN_STORE), &other),
            settlement(SettlementForm::Transfer, TOKEN_STORE, Some(FACILITATOR))
        );
    }

    #[test]
    fn a_seller_that_takes_its_own_fee_is_paid_once() {
        let charged = escrow_v1_0::PaymentCharged {
            paymentInfoHash: B256::repeat_byte(0x22),
            paymentInfo: PaymentInfo { feeReceiver: SELLER, ..info(SELLER) },
            amount: U256::from(20_000u64),
            tokenCollector: Address::ZERO,
            feeBps: 5_000,
            feeReceiver: SELLER,
        };
        let r = receipt(ESCROW, vec![event(ESCROW, 1, &charged), transfer(TOKEN_STORE, 2), transfer(TOKEN_STORE, 3)]);
        let via = tx(FACILITATOR, ESCROW, vec![]);
        assert_eq!(read(USDC, CHAIN, &via, Some(&r), at(2, TOKEN_STORE), &Payments::new()), Reading::PayoutFee);
        assert_eq!(
            read(USDC, CHAIN, &via, Some(&r), at(3, TOKEN_STORE), &Payments::new()),
            settlement(SettlementForm::AuthCapture, PAYER, Some(FACILITATOR))
        );
    }

    #[test]
    fn a_batch_sweep_and_a_bundler_are_what_they_are() {
        let sweep = receipt(BATCH, vec![transfer(BATCH, 0)]);
        assert_eq!(
            read(USDC, CHAIN, &tx(FACILITATOR, BATCH, vec![]), Some(&sweep), at(0, BATCH), &Payments::new()),
            Reading::Sweep
        );
        // A smart account's payment through a bundler: the account paid, nobody facilitated.
        let bundled = receipt(ENTRY_POINT, vec![transfer(PAYER, 0)]);
        assert_eq!(
            read(USDC, CHAIN, &tx(FACILITATOR, ENTRY_POINT, vec![]), Some(&bundled), at(0, PAYER), &Payments::new()),
            settlement(SettlementForm::Transfer, PAYER, None)
        );
        // An EIP-3009 authorization by a smart wallet (ERC-1271), relayed: the wallet is the payer.
        let auth = event(USDC, 0, &AuthorizationUsed { authorizer: PAYER, nonce: B256::ZERO });
        let relayed = receipt(FACILITATOR, vec![auth, transfer(PAYER, 1)]);
        assert_eq!(
            read(USDC, CHAIN, &tx(FACILITATOR, FACILITATOR, vec![]), Some(&relayed), at(1, PAYER), &Payments::new()),
            settlement(SettlementForm::Eip3009, PAYER, Some(FACILITATOR))
        );
    }
}
