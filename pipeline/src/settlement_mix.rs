//! How each seller was paid in its last 30 days (`sql/settlement_mix.sql`): transfers by
//! settlement form, the ERC-8021 builder codes seen most on its settling calls, and the auth-capture
//! escrow's outcomes for its payments. Evidence for analysts; no score reads it.

use std::collections::{BTreeMap, HashMap};

use agentrep_lake::{EscrowAction, SettlementForm};
use agentrep_model::records::{EscrowFlow, SettlementMix};
use arrow::array::Array;

use crate::PipelineError;
use crate::engine::Engine;
use crate::engine::columns::{strs, u64s};
use crate::sql_files::SETTLEMENT_MIX;

/// Every seller paid in the window (by transfer or escrow), in address order.
pub(crate) fn read(db: &Engine) -> Result<Vec<SettlementMix>, PipelineError> {
    let mut mix: BTreeMap<String, SettlementMix> = BTreeMap::new();
    let mut codes: HashMap<(String, Kind), HashMap<String, u64>> = HashMap::new();
    db.each_batch("settlement mix", SETTLEMENT_MIX.section("forms")?, |b| {
        let (address, form, n) = (strs(b, "address"), strs(b, "form"), u64s(b, "n"));
        let (app, wallet, services) = (strs(b, "app"), strs(b, "wallet"), strs(b, "services"));
        for i in 0..b.num_rows() {
            let seller = address.value(i).to_owned();
            let entry = mix
                .entry(seller.clone())
                .or_insert_with(|| SettlementMix { address: seller.clone(), ..Default::default() });
            let n = n.value(i);
            let counts = &mut entry.forms;
            // The pass writes only forms' wire names; a name this build does not know (a newer
            // writer's) counts nowhere rather than as another form.
            match SettlementForm::parse(form.value(i)) {
                Some(SettlementForm::Eip3009) => counts.eip3009 += n,
                Some(SettlementForm::Permit2) => counts.permit2 += n,
                Some(SettlementForm::Upto) => counts.upto += n,
                Some(SettlementForm::AuthCapture) => counts.auth_capture += n,
                Some(SettlementForm::BatchClaim) => counts.batch_claim += n,
                Some(SettlementForm::Transfer) => counts.transfer += n,
                None => {}
            }
            let mut seen = |kind: Kind, code: &str| {
                *codes.entry((seller.clone(), kind)).or_default().entry(code.to_owned()).or_default() += n;
            };
            if app.is_valid(i) {
                seen(Kind::App, app.value(i));
            }
            if wallet.is_valid(i) {
                seen(Kind::Wallet, wallet.value(i));
            }
            if services.is_valid(i) {
                services.value(i).split(',').filter(|c| !c.is_empty()).for_each(|c| seen(Kind::Service, c));
            }
        }
    })?;
    db.each_batch("settlement mix", SETTLEMENT_MIX.section("escrow")?, |b| {
        let (address, action, n, amount) = (strs(b, "address"), strs(b, "action"), u64s(b, "n"), u64s(b, "amount"));
        for i in 0..b.num_rows() {
            let seller = address.value(i).to_owned();
            let entry =
                mix.entry(seller.clone()).or_insert_with(|| SettlementMix { address: seller, ..Default::default() });
            let flow = EscrowFlow { count: n.value(i), amount: amount.value(i) };
            let e = &mut entry.escrow;
            match EscrowAction::parse(action.value(i)) {
                Some(EscrowAction::Authorized) => e.authorized = flow,
                Some(EscrowAction::Charged) => e.charged = flow,
                Some(EscrowAction::Captured) => e.captured = flow,
                Some(EscrowAction::Voided) => e.voided = flow,
                Some(EscrowAction::Reclaimed) => e.reclaimed = flow,
                Some(EscrowAction::Refunded) => e.refunded = flow,
                None => {}
            }
        }
    })?;
    for ((seller, kind), counts) in codes {
        let Some(entry) = mix.get_mut(&seller) else { continue };
        let list = match kind {
            Kind::App => &mut entry.apps,
            Kind::Wallet => &mut entry.wallets,
            Kind::Service => &mut entry.services,
        };
        *list = most_frequent(counts);
    }
    Ok(mix.into_values().collect())
}

/// Which code of a suffix.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
enum Kind {
    App,
    Wallet,
    Service,
}

/// The codes by count, most first, ties by code; at most [`SettlementMix::MAX_CODES`].
fn most_frequent(counts: HashMap<String, u64>) -> Vec<String> {
    let mut ranked: Vec<(String, u64)> = counts.into_iter().collect();
    ranked.sort_by(|a, b| b.1.cmp(&a.1).then_with(|| a.0.cmp(&b.0)));
    ranked.into_iter().take(SettlementMix::MAX_CODES).map(|(code, _)| code).collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn codes_rank_by_count_then_name_and_stop_at_ten() {
        let mut counts: HashMap<String, u64> = (0..12).map(|i| (format!("c{i:02}"), 1)).collect();
        counts.insert("top".into(), 5);
        counts.insert("b".into(), 2);
        counts.insert("a".into(), 2);
        let ranked = most_frequent(counts);
        assert_eq!(ranked.len(), SettlementMix::MAX_CODES);
        assert_eq!(&ranked[..4], ["top", "a", "b", "c00"]);
    }
}
