//! x402 batch settlement (payment channels): a claim raises channels' claimed totals, one
//! `Claimed(channelId, sender, claimAmount, newTotalClaimed)` per channel it raised, and moves no
//! money; a later `settle` sweeps every claimed channel of a receiver in one Transfer. So a claim
//! of a channel is the settlement (paid by the channel's payer, of the raise), and the sweep is not
//! counted again ([`super::reading::Reading::Sweep`]). The chain does not say how many calls a
//! claim covers: a voucher caps a cumulative amount, not a count.
//!
//! `Claimed` does not name the payer. The channel's configuration does: from its `ChannelCreated`
//! (emitted when it was first funded) when that is in the scanned range, or from the claim's own
//! call, whose rows carry each channel's configuration; its id is the configuration's EIP-712 hash
//! under the contract's domain (`"x402 Batch Settlement"`, version 1), checked against the event's.

use std::collections::{BTreeMap, BTreeSet, HashMap};

use agentrep_lake::SettlementForm;
use agentrep_lake::datasets::SettlementRow;
use alloy::primitives::{Address, B256, U256};
use alloy::rpc::types::Log;
use alloy::sol_types::{Eip712Domain, SolCall, SolEvent, SolStruct};

use crate::chain::TxSummary;
use crate::chain::events::{ChannelConfig, ChannelCreated, Claimed, claimCall, claimWithSignatureCall, multicallCall};
use crate::sources::{hex_address, ts};

/// The batch contract's events the scan reads.
pub(super) fn topics() -> Vec<B256> {
    vec![ChannelCreated::SIGNATURE_HASH, Claimed::SIGNATURE_HASH]
}

/// A channel's id: what the contract at `contract` on `chain_id` computes (`getChannelId`).
pub(super) fn channel_id(config: &ChannelConfig, chain_id: u64, contract: Address) -> B256 {
    let domain = Eip712Domain::new(
        Some("x402 Batch Settlement".into()),
        Some("1".into()),
        Some(U256::from(chain_id)),
        Some(contract),
        None,
    );
    config.eip712_signing_hash(&domain)
}

/// The channel configurations a claim's call carries: `claim`, `claimWithSignature`, or either
/// inside `multicall` (nested at most a few levels).
fn configs_in(input: &[u8], depth: u8) -> Vec<ChannelConfig> {
    let Some(selector) = input.get(..4) else { return Vec::new() };
    let rows = if selector == claimCall::SELECTOR {
        claimCall::abi_decode(input).map(|c| c.voucherClaims).unwrap_or_default()
    } else if selector == claimWithSignatureCall::SELECTOR {
        claimWithSignatureCall::abi_decode(input).map(|c| c.voucherClaims).unwrap_or_default()
    } else if selector == multicallCall::SELECTOR && depth < 3 {
        let calls = multicallCall::abi_decode(input).map(|c| c.data).unwrap_or_default();
        return calls.iter().flat_map(|c| configs_in(c, depth + 1)).collect();
    } else {
        Vec::new()
    };
    rows.into_iter().map(|r| r.voucher.channel).collect()
}

/// What the claims scan found.
#[derive(Debug, Default)]
pub(super) struct ClaimScan {
    /// A settlement row per claimed channel of a candidate seller, in chain order.
    pub rows: Vec<SettlementRow>,
    /// Claims whose channel configuration was found nowhere (left out).
    pub unresolved: u64,
}

/// What [`scan`] needs besides the logs.
pub(super) struct ClaimContext<'a> {
    /// The chain's id (the channels' EIP-712 domain).
    pub chain_id: u64,
    /// USDC: claims of channels in another token are not USDC settlements.
    pub usdc: Address,
    /// The network written into rows.
    pub network: &'a str,
    /// Candidate sellers.
    pub sellers: &'a BTreeSet<Address>,
}

/// Turns the batch contract's logs (chain order) into settlement rows.
pub(super) fn scan(
    cx: &ClaimContext<'_>,
    logs: &[Log],
    txs: &HashMap<B256, TxSummary>,
    times: &BTreeMap<u64, i64>,
) -> ClaimScan {
    let mut configs: HashMap<B256, ChannelConfig> = HashMap::new();
    let mut out = ClaimScan::default();
    for log in logs {
        if let Ok(created) = log.log_decode::<ChannelCreated>() {
            let e = created.inner.data;
            configs.insert(e.channelId, e.config);
            continue;
        }
        let Ok(claimed) = log.log_decode::<Claimed>() else { continue };
        let (Some(block), Some(hash), Some(index)) = (log.block_number, log.transaction_hash, log.log_index) else {
            continue;
        };
        let claimed = claimed.inner.data;
        let tx = txs.get(&hash);
        if !configs.contains_key(&claimed.channelId) {
            for config in tx.map(|t| configs_in(&t.input, 0)).unwrap_or_default() {
                configs.insert(channel_id(&config, cx.chain_id, log.address()), config);
            }
        }
        let Some(config) = configs.get(&claimed.channelId) else {
            out.unresolved += 1;
            continue;
        };
        if config.token != cx.usdc || !cx.sellers.contains(&config.receiver) {
            continue;
        }
        // Whoever sent the claim for the receiver (a relay, or the facilitator acting as the
        // receiver's authorizer) is its facilitator; the receiver or the payer sending it is not.
        let sender = tx.map_or(claimed.sender, |t| t.from);
        let own = [config.receiver, config.payer].contains(&sender);
        let (builder_app, builder_wallet, builder_services) =
            tx.and_then(|t| crate::chain::builder_codes::parse(&t.input)).unwrap_or_default().into_columns();
        out.rows.push(SettlementRow {
            tx_hash: format!("{hash:#x}"),
            log_index: index as u32,
            block_number: block,
            block_time: ts(times.get(&block).copied().unwrap_or_default()),
            payer: hex_address(&config.payer),
            pay_to: hex_address(&config.receiver),
            value: u64::try_from(claimed.claimAmount).unwrap_or(u64::MAX),
            asset: hex_address(&cx.usdc),
            facilitator: (!own).then(|| hex_address(&sender)),
            eip3009: false,
            network: cx.network.to_owned(),
            form: Some(SettlementForm::BatchClaim),
            channel: Some(format!("{:#x}", claimed.channelId)),
            builder_app,
            builder_wallet,
            builder_services,
        });
    }
    out
}

#[cfg(test)]
mod tests {
    use alloy::primitives::{Bytes, Log as PrimitiveLog, address, aliases::U40};

    use super::*;
    use crate::chain::events::{Voucher, VoucherClaim};

    const BATCH: Address = address!("0x4020074e9dF2ce1deE5A9C1b5c3f541D02a10003");
    const USDC: Address = address!("0x833589fCD6eDb6E08f4c7C32D4f71b54bdA02913");
    const PAYER: Address = address!("0x00000000000000000000000000000000000000aa");
    const SELLER: Address = address!("0x00000000000000000000000000000000000000bb");
    const RELAY: Address = address!("0x00000000000000000000000000000000000000cc");

    fn config(payer: Address) -> ChannelConfig {
        ChannelConfig {
            payer,
            payerAuthorizer: Address::ZERO,
            receiver: SELLER,
            receiverAuthorizer: RELAY,
            token: USDC,
            withdrawDelay: U40::from(900u64),
            salt: B256::repeat_byte(3),
        }
    }

    fn claimed(id: B256, index: u64, amount: u128) -> Log {
        let data = Claimed { channelId: id, sender: RELAY, claimAmount: amount, newTotalClaimed: amount * 2 }
            .encode_log_data();
        Log {
            inner: PrimitiveLog { address: BATCH, data },
            block_number: Some(7),
            transaction_hash: Some(B256::repeat_byte(9)),
            log_index: Some(index),
            ..Log::default()
        }
    }

    #[test]
    fn a_claim_is_paid_by_its_channels_payer_found_in_the_call() {
        let (a, b) = (config(PAYER), config(address!("0x00000000000000000000000000000000000000ab")));
        let (id_a, id_b) = (channel_id(&a, 8453, BATCH), channel_id(&b, 8453, BATCH));
        assert_ne!(id_a, id_b);
        let row = |c: &ChannelConfig| VoucherClaim {
            voucher: Voucher { channel: c.clone(), maxClaimableAmount: 1_000_000 },
            signature: Bytes::from(vec![1u8; 65]),
            totalClaimed: 50_000,
        };
        let inner = claimWithSignatureCall { voucherClaims: vec![row(&a), row(&b)], authorizerSignature: Bytes::new() };
        let input = multicallCall { data: vec![inner.abi_encode().into()] }.abi_encode();
        let tx = TxSummary { hash: B256::repeat_byte(9), from: RELAY, to: Some(BATCH), input: input.into() };
        let txs = HashMap::from([(tx.hash, tx)]);
        let sellers = BTreeSet::from([SELLER]);
        let cx = ClaimContext { chain_id: 8453, usdc: USDC, network: "eip155:8453", sellers: &sellers };
        let logs = [claimed(id_a, 1, 20_000), claimed(id_b, 2, 30_000), claimed(B256::repeat_byte(1), 3, 5)];
        let scan = scan(&cx, &logs, &txs, &BTreeMap::from([(7, 1_700_000_000)]));
        assert_eq!(scan.unresolved, 1, "a channel no call or event describes");
        let got: Vec<(&str, u64, Option<&str>)> =
            scan.rows.iter().map(|r| (r.payer.as_str(), r.value, r.facilitator.as_deref())).collect();
        let relay = hex_address(&RELAY);
        assert_eq!(
            got,
            vec![
                ("0x00000000000000000000000000000000000000aa", 20_000, Some(relay.as_str())),
                ("0x00000000000000000000000000000000000000ab", 30_000, Some(relay.as_str())),
            ]
        );
        assert!(scan.rows.iter().all(|r| r.form == Some(SettlementForm::BatchClaim)));
        assert_eq!(scan.rows[0].channel, Some(format!("{id_a:#x}")));
        // Under another chain's domain, the ids are not these channels'.
        assert_ne!(channel_id(&a, 84532, BATCH), id_a);
    }
}
