//! The attacker's cost model: what an attack instance spends that it cannot get back, in USDC.
//!
//! One table of constants; every attack instance's `cost_usdc` label is computed from it by
//! [`Tally::usdc`] over what the instance's plan actually does (payments, transactions, exchange
//! withdrawals, identity proofs). Lead time (pre-ageing wallets) costs nothing in USDC and is
//! recorded as the knob `lead_days` instead.
//!
//! | item | non-recoverable USDC |
//! |---|---|
//! | payment to a wallet the attacker does not control (an honest seller, a stranger) | the full amount |
//! | payment to a wallet the attacker controls (its own seller, its own puppets) | 0, plus [`FACILITATOR_FEE_USDC`] per x402 settlement |
//! | a transaction the attacker sends itself (funding, dust, plain transfer, ERC-8004 feedback, registration) | [`GAS_PER_TX_USDC`] |
//! | an exchange withdrawal that gives a wallet an independent-looking origin | [`HUB_WITHDRAWAL_USDC`] |
//! | identity proof, per wallet | [`PROOF_COSTS`]: basename 3, ens 5, farcaster-fid 5, virtuals-agent 10; cb1-verified needs a KYC'd person and is not available |
//! | lead days (pre-ageing) | 0 (recorded as `lead_days`) |

/// Facilitator fee per x402 settlement the attacker routes to itself.
pub const FACILITATOR_FEE_USDC: f64 = 0.001;
/// Gas per transaction the attacker sends itself.
pub const GAS_PER_TX_USDC: f64 = 0.002;
/// Fee of one exchange withdrawal (an independent-looking first funder).
pub const HUB_WITHDRAWAL_USDC: f64 = 0.10;
/// Identity proof costs per wallet; `None`: not available to an attacker's wallets.
pub const PROOF_COSTS: &[(&str, Option<f64>)] = &[
    ("basename", Some(3.0)),
    ("ens", Some(5.0)),
    ("farcaster-fid", Some(5.0)),
    ("virtuals-agent", Some(10.0)),
    ("cb1-verified", None),
];

/// Cost of one identity proof for an attacker's wallet; `None` when it cannot be had.
pub fn proof_cost(proof_type: &str) -> Option<f64> {
    PROOF_COSTS.iter().find(|(t, _)| *t == proof_type).and_then(|(_, c)| *c)
}

/// What one attack instance does that costs money.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Tally {
    /// x402 settlements to wallets the attacker controls.
    pub own_settlements: u64,
    /// Transactions the attacker sends itself.
    pub txs: u64,
    /// Exchange withdrawals.
    pub withdrawals: u64,
    /// Identity proofs bought, USDC.
    pub proofs_usdc: f64,
    /// Payments to wallets the attacker does not control, USDC.
    pub external_usdc: f64,
}

impl Tally {
    /// Non-recoverable spend, USDC.
    pub fn usdc(&self) -> f64 {
        self.own_settlements as f64 * FACILITATOR_FEE_USDC
            + self.txs as f64 * GAS_PER_TX_USDC
            + self.withdrawals as f64 * HUB_WITHDRAWAL_USDC
            + self.proofs_usdc
            + self.external_usdc
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn tally_adds_up() {
        let t = Tally { own_settlements: 1000, txs: 10, withdrawals: 2, proofs_usdc: 3.0, external_usdc: 1.5 };
        assert!((t.usdc() - (1.0 + 0.02 + 0.2 + 3.0 + 1.5)).abs() < 1e-9);
        assert_eq!(proof_cost("cb1-verified"), None);
        assert_eq!(proof_cost("ens"), Some(5.0));
    }
}
