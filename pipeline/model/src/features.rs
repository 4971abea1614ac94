//! Per-wallet features: the one input of the seller model, computed by the rebuild's columnar
//! passes (and later by the live re-score) and consumed here without any I/O.

use serde::{Deserialize, Serialize};

use crate::MicroUsdc;

/// Identity proof types the interface enumerates (seed §2.8).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum ProofType {
    /// Registered as a Virtuals agent.
    VirtualsAgent,
    /// Operator of a Virtuals agent token.
    VirtualsAgentToken,
    /// Verified address of a Farcaster FID.
    FarcasterFid,
    /// Coinbase Verified Account (cb1) attestation.
    Cb1Verified,
    /// Forward-verified Basename.
    Basename,
    /// Forward-verified ENS primary name.
    Ens,
}

impl ProofType {
    /// Every proof type, in the interface's order.
    pub const ALL: [ProofType; 6] = [
        ProofType::VirtualsAgent,
        ProofType::VirtualsAgentToken,
        ProofType::FarcasterFid,
        ProofType::Cb1Verified,
        ProofType::Basename,
        ProofType::Ens,
    ];

    /// The wire name, e.g. `farcaster-fid`.
    pub fn as_str(self) -> &'static str {
        match self {
            ProofType::VirtualsAgent => "virtuals-agent",
            ProofType::VirtualsAgentToken => "virtuals-agent-token",
            ProofType::FarcasterFid => "farcaster-fid",
            ProofType::Cb1Verified => "cb1-verified",
            ProofType::Basename => "basename",
            ProofType::Ens => "ens",
        }
    }

    /// Parses a wire name.
    pub fn parse(s: &str) -> Option<Self> {
        Self::ALL.into_iter().find(|p| p.as_str() == s)
    }
}

/// Health-probe statistics over the probe window.
#[derive(Debug, Clone, Copy, Default, PartialEq, Serialize, Deserialize)]
pub struct SlaStats {
    /// Probes taken.
    pub samples: u32,
    /// Probes whose status counted as alive.
    pub ok: u32,
    /// Median latency of answered probes, milliseconds.
    pub latency_p50_ms: u32,
    /// 95th percentile latency of answered probes, milliseconds.
    pub latency_p95_ms: u32,
    /// Mean latency of answered probes, milliseconds.
    pub avg_latency_ms: u32,
    /// Outcome of the most recent probe, if any.
    pub last_ok: Option<bool>,
}

impl SlaStats {
    /// Share of probes that were alive, or `None` without samples.
    pub fn ok_rate(&self) -> Option<f64> {
        (self.samples > 0).then(|| f64::from(self.ok) / f64::from(self.samples))
    }
}

/// Everything the seller model knows about one wallet on one day.
///
/// Counts that could not be read are not zero: the rebuild records the failed source in
/// `degraded_sources` and the model then refuses to produce a measured score.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct SellerFeatures {
    // Marketplace listings.
    /// Listings that name this wallet as `payTo`.
    pub listing_count: u32,
    /// Distinct tags across the wallet's listings.
    pub tag_count: u32,
    /// Days since the wallet was first seen in a listing.
    pub age_days: u32,
    /// Lowest advertised price, micro-USDC.
    pub advertised_price: Option<MicroUsdc>,
    /// A listing's host ends in a TLD on the suspicious list.
    pub suspicious_tld: bool,
    /// A listing's path looks like an admin or secrets path.
    pub admin_path: bool,
    /// Distinct letter-case spellings of the address seen in listings.
    pub case_variants: u32,

    // Settlements.
    /// Settlements to this wallet up to the scoring day.
    pub settlements: u64,
    /// Settlements in the 30 days up to the scoring day.
    pub settlements_30d: u64,
    /// Settled volume up to the scoring day.
    pub volume: MicroUsdc,
    /// Distinct payers up to the scoring day.
    pub distinct_payers: u32,
    /// Payers who paid at least twice, over distinct payers.
    pub repeat_payer_ratio: f64,
    /// Settlements of the most frequent payer, over all settlements.
    pub top_payer_share: f64,
    /// Days since the last settlement, `None` if there never was one.
    pub days_since_last_settlement: Option<u32>,
    /// Days with at least one settlement in the last 30.
    pub active_days_30d: u32,
    /// Settlements whose amount equals the advertised price exactly.
    pub exact_price_share: f64,
    /// Median settled amount over the advertised price.
    pub median_price_ratio: Option<f64>,
    /// Coefficient of variation of the gaps between consecutive settlements.
    pub interval_cv: Option<f64>,
    /// Settlements whose payer is the seller itself.
    pub self_payments: u64,

    // Funding graph.
    /// Distinct payers whose first funder is known.
    pub payers_with_funder: u32,
    /// The largest share of funded payers that share one funder.
    pub top_funder_share: f64,
    /// Share of funded payers whose funder is the seller itself.
    pub seller_funded_share: f64,

    // Health probes.
    /// Probe statistics over the probe window.
    pub sla: SlaStats,

    // ERC-8004.
    /// The wallet is the `agentWallet` of a registered agent.
    pub erc8004_registered: bool,
    /// Non-revoked feedback entries.
    pub feedback_count: u32,
    /// Distinct feedback clients.
    pub feedback_clients: u32,
    /// Distinct feedback clients that also paid the wallet.
    pub paid_feedback_clients: u32,
    /// Sum of paid clients' feedback values, normalised to 0..=1 each.
    pub paid_feedback_sum: f64,
    /// Number of paid feedback entries behind `paid_feedback_sum`.
    pub paid_feedback_count: u32,

    // Buyer-signed receipts.
    /// Receipts naming this wallet as the agent.
    pub receipts: u32,
    /// Receipts reporting success.
    pub receipt_successes: u32,

    // Identity and lists.
    /// Identity proofs of distinct types.
    pub proofs: Vec<ProofType>,
    /// The wallet is on the denylist.
    pub denylisted: bool,
    /// Label of the allowlist entry, if allowlisted.
    pub allowlist_label: Option<String>,

    /// Sources that failed for this wallet (e.g. `reputation-unreadable`); non-empty means the
    /// score is not measured.
    pub degraded_sources: Vec<String>,
}
