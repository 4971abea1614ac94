//! Domain records handed from the rebuild to the publisher: one scored seller, one scored
//! deployer, and the whole day's input to a snapshot. They carry no wire format; the publisher
//! maps them onto the versioned payloads.

use serde::{Deserialize, Serialize};

use crate::MicroUsdc;
use crate::decision::Assessment;
use crate::deployer::{DeployerAssessment, DeployerFeatures, LaunchSummary};
use crate::features::{ProofType, SellerFeatures};

/// What the marketplace says about a seller (its earliest current listing leads).
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct ListingInfo {
    /// Primary paid endpoint.
    pub resource: String,
    /// Every current endpoint.
    pub resources: Vec<String>,
    /// Description.
    pub description: Option<String>,
    /// Distinct tags, sorted.
    pub tags: Vec<String>,
    /// Marketplace.
    pub ecosystem: String,
    /// Network as listed.
    pub network: String,
    /// Lowest advertised price, atomic units.
    pub price: Option<MicroUsdc>,
    /// Asset contract.
    pub asset: Option<String>,
}

/// One day of a wallet's score history.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct HistoryPoint {
    /// `YYYY-MM-DD`.
    pub date: String,
    /// Score that day, `None` when degraded.
    pub score: Option<u8>,
    /// Settlements up to that day.
    pub job_count: u64,
    /// Methodology version that computed the score.
    pub methodology: String,
}

/// A seller with its features, assessment and history.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct SellerRecord {
    /// Lowercase address.
    pub address: String,
    /// Marketplace listing.
    pub listing: ListingInfo,
    /// Features the model read.
    pub features: SellerFeatures,
    /// What the model said.
    pub assessment: Assessment,
    /// Days up to and including the snapshot day, oldest first.
    pub history: Vec<HistoryPoint>,
    /// Evidence sources, with `BASIS:` and `DEGRADED:` annotations.
    pub sources: Vec<String>,
}

/// A deployer with its launches and assessment.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct DeployerRecord {
    /// Lowercase address.
    pub address: String,
    /// Features the model read.
    pub features: DeployerFeatures,
    /// What the model said.
    pub assessment: DeployerAssessment,
    /// Launches, newest first.
    pub launches: Vec<LaunchSummary>,
    /// Identity proofs.
    pub proofs: Vec<ProofType>,
    /// `YYYY-MM-DD` of the first launch.
    pub first_launch: String,
}

/// A known wallet that is neither a seller nor a deployer (payer, funder, listed address): the
/// "database cross-references" of an unknown address's preliminary signals.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Counterparty {
    /// Lowercase address.
    pub address: String,
    /// Settlements it paid.
    pub payments: u64,
    /// Distinct sellers it paid.
    pub sellers_paid: u32,
    /// Addresses it funded first.
    pub funded: u32,
    /// On the denylist.
    pub denylisted: bool,
}

/// Everything one day's snapshot is made of.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct SnapshotInput {
    /// Snapshot day, `YYYY-MM-DD`.
    pub date: String,
    /// SHA-256 of the lake input up to the day.
    pub input_digest: String,
    /// Sellers, in address order.
    pub sellers: Vec<SellerRecord>,
    /// Deployers, in address order.
    pub deployers: Vec<DeployerRecord>,
    /// Other known wallets, in address order.
    pub counterparties: Vec<Counterparty>,
}
