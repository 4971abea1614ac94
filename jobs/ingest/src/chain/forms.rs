//! The contracts through which x402 settles on Base besides USDC itself (`x402.md` § 8), one row
//! each: what the settlements job reads a settlement's form from. The addresses are the same on
//! every chain the x402 contracts are deployed to (CREATE2), so the table is not configuration;
//! the test chain places its contracts at these addresses.

use agentrep_lake::SettlementForm;
use alloy::primitives::{Address, address};

/// What a contract is to the settlements job.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Role {
    /// An x402 Permit2 proxy: its `Settled()` or `SettledWithPermit()` beside a Transfer from the
    /// payer to the seller makes the Transfer a settlement of `form`.
    Proxy(SettlementForm),
    /// base/commerce-payments' AuthCaptureEscrow: a Transfer to the seller from the operator's token
    /// store, after a capture or a charge, is the seller's pay; its events are escrow outcomes.
    Escrow(EscrowVersion),
    /// x402's batch settlement: a `Claimed` per channel is a settlement; the Transfer that sweeps
    /// the claims to the seller (`settle`) is not another one.
    BatchSettlement,
    /// An ERC-4337 EntryPoint: a transaction to it was sent by a bundler, which is never a
    /// facilitator (the payer is the smart account the Transfer names).
    EntryPoint,
}

/// The escrow's ABI version: v1.1 gives the fee as an amount where v1.0 gave basis points.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum EscrowVersion {
    /// The first deployment (`feeBps`).
    V1_0,
    /// base/commerce-payments#90 (`feeAmount`).
    V1_1,
}

/// One contract of the table.
#[derive(Debug, Clone, Copy)]
pub struct SettlementContract {
    /// Its address on Base.
    pub address: Address,
    /// What it is.
    pub role: Role,
    /// Its name in the x402 or commerce-payments sources.
    pub name: &'static str,
}

const fn row(address: Address, role: Role, name: &'static str) -> SettlementContract {
    SettlementContract { address, role, name }
}

/// Every contract the settlements job tells a settlement's form by.
pub const SETTLEMENT_CONTRACTS: &[SettlementContract] = &[
    row(
        address!("0x402085c248EeA27D92E8b30b2C58ed07f9E20001"),
        Role::Proxy(SettlementForm::Permit2),
        "x402ExactPermit2Proxy",
    ),
    row(
        address!("0x4020615294c913F045dc10f0a5cdEbd86c280001"),
        Role::Proxy(SettlementForm::Permit2),
        "x402ExactPermit2Proxy (first deployment)",
    ),
    row(
        address!("0x4020A4f3b7b90ccA423B9fabCc0CE57C6C240002"),
        Role::Proxy(SettlementForm::Upto),
        "x402UptoPermit2Proxy",
    ),
    row(
        address!("0x4020633461b2895a48930Ff97eE8fCdE8E520002"),
        Role::Proxy(SettlementForm::Upto),
        "x402UptoPermit2Proxy (first deployment)",
    ),
    row(
        address!("0x402015c795ecb48A360bDC6e35a2EaEb313a0002"),
        Role::Proxy(SettlementForm::Upto),
        "x402UptoPermit2Proxy (the contracts' README)",
    ),
    row(address!("0x4020074e9dF2ce1deE5A9C1b5c3f541D02a10003"), Role::BatchSettlement, "x402BatchSettlement"),
    row(
        address!("0xBdEA0D1bcC5966192B070Fdf62aB4EF5b4420cff"),
        Role::Escrow(EscrowVersion::V1_0),
        "AuthCaptureEscrow v1.0",
    ),
    row(
        address!("0x13AC3b34322D12FE27D5e192D0c2b2266d4F29CB"),
        Role::Escrow(EscrowVersion::V1_1),
        "AuthCaptureEscrow v1.1",
    ),
    row(
        address!("0xf96815976523E00e65Be8f34cA5e64b4f41EB19c"),
        Role::Escrow(EscrowVersion::V1_1),
        "AuthCaptureEscrow v1.1 (@x402/evm 2.27)",
    ),
    row(address!("0x5FF137D4b0FDCD49DcA30c7CF57E578a026d2789"), Role::EntryPoint, "EntryPoint v0.6"),
    row(address!("0x0000000071727De22E5E9d8BAf0edAc6f37da032"), Role::EntryPoint, "EntryPoint v0.7"),
    row(address!("0x4337084D9E255Ff0702461CF8895CE9E3b5Ff108"), Role::EntryPoint, "EntryPoint v0.8"),
    row(address!("0x433709009B8330FDa32311DF1C2AFA402eD8D009"), Role::EntryPoint, "EntryPoint v0.9"),
];

/// The role of `address`, if the table has it.
pub fn role_of(address: Address) -> Option<Role> {
    SETTLEMENT_CONTRACTS.iter().find(|c| c.address == address).map(|c| c.role)
}

/// The addresses of the contracts with a role `keep` accepts.
pub fn addresses(keep: impl Fn(Role) -> bool) -> Vec<Address> {
    SETTLEMENT_CONTRACTS.iter().filter(|c| keep(c.role)).map(|c| c.address).collect()
}

#[cfg(test)]
mod tests {
    use std::collections::HashSet;

    use super::*;

    #[test]
    fn each_address_has_one_role() {
        let unique: HashSet<Address> = SETTLEMENT_CONTRACTS.iter().map(|c| c.address).collect();
        assert_eq!(unique.len(), SETTLEMENT_CONTRACTS.len());
        assert_eq!(role_of(SETTLEMENT_CONTRACTS[0].address), Some(Role::Proxy(SettlementForm::Permit2)));
        assert_eq!(role_of(Address::ZERO), None);
    }

    #[test]
    fn the_proxies_settle_as_x402_forms() {
        for c in SETTLEMENT_CONTRACTS {
            if let Role::Proxy(form) = c.role {
                assert!(form.is_x402() && matches!(form, SettlementForm::Permit2 | SettlementForm::Upto), "{}", c.name);
            }
        }
    }
}
