//! Ground-truth labels of a generated world, kept beside the lake for `agentrep eval` only.

use std::collections::BTreeMap;

use serde::{Deserialize, Serialize};

use crate::plan::{DeployerKind, SellerKind, World};

/// File name of the labels in the lake root.
pub const LABELS_FILE: &str = "labels.json";

/// Format version of [`Labels`].
pub const LABELS_VERSION: &str = "agentrep-world-labels-v2";

/// How evaluation groups seller archetypes.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum SellerClass {
    /// A real service; a buyer should be allowed to pay it.
    Honest,
    /// One payer, nothing proven either way.
    Ghost,
    /// A buyer should be stopped or warned.
    Bad,
}

impl SellerKind {
    /// The evaluation class of an archetype.
    pub fn class(self) -> SellerClass {
        match self {
            SellerKind::Honest
            | SellerKind::Flapping
            | SellerKind::Young
            | SellerKind::TreasuryFleet
            | SellerKind::SmartAccountBuyers
            | SellerKind::MultiPrice
            | SellerKind::NewHonest
            | SellerKind::CronBuyers => SellerClass::Honest,
            SellerKind::Ghost => SellerClass::Ghost,
            SellerKind::WashRing
            | SellerKind::SelfDealing
            | SellerKind::Dead
            | SellerKind::SybilFeedback
            | SellerKind::ScamListing
            | SellerKind::Denylisted
            | SellerKind::HubDusting
            | SellerKind::SelfFundingIntermediaries
            | SellerKind::SockPuppets
            | SellerKind::PaidOnceReviewers
            | SellerKind::PayThenFail
            | SellerKind::OfferMismatch
            | SellerKind::UnattributedDemand
            | SellerKind::DenylistFunded => SellerClass::Bad,
        }
    }

    /// An honest archetype other than plain `honest`: a real service whose evidence looks unusual
    /// (flapping, young or new, fleets, smart accounts, several prices, cron-like buyers).
    pub fn is_honest_pattern(self) -> bool {
        self.class() == SellerClass::Honest && self != SellerKind::Honest
    }

    /// A deliberate manipulation or fraud (every bad archetype except `dead`, which is a failure,
    /// not an attack). Attack instances carry `cost_usdc`.
    pub fn is_attack(self) -> bool {
        self.class() == SellerClass::Bad && self != SellerKind::Dead
    }
}

/// How an honest seller was griefed.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct GriefLabel {
    /// The griefer's budget of non-recoverable spend, USDC.
    pub budget_usdc: f64,
    /// Methods used (`dust-transfers`, `puppet-payments`, `denylisted-transfer`,
    /// `unpaid-negative-feedback`, `paid-negative-feedback`, `failed-receipts`).
    pub methods: Vec<String>,
}

/// The truth about one seller.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct SellerLabel {
    /// Lowercase address.
    pub address: String,
    /// Archetype.
    pub kind: SellerKind,
    /// Evaluation class.
    pub class: SellerClass,
    /// Latent quality 0..=1.
    pub quality: f64,
    /// Knobs the instance drew (or a cost probe set).
    pub knobs: BTreeMap<String, f64>,
    /// The attacker's non-recoverable spend (cost model), attack instances only.
    pub cost_usdc: Option<f64>,
    /// An extra instance laid out on the cost grid.
    pub cost_probe: bool,
    /// Griefed by an outsider (honest sellers, griefing worlds only).
    pub griefed: Option<GriefLabel>,
}

/// The truth about one deployer.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct DeployerLabel {
    /// Lowercase address.
    pub address: String,
    /// Archetype.
    pub kind: DeployerKind,
    /// A buyer of its tokens should be warned.
    pub bad: bool,
    /// Knobs the instance drew.
    pub knobs: BTreeMap<String, f64>,
}

fn ordinary_day() -> u32 {
    1
}

/// Labels of a whole world.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Labels {
    /// Format version, `agentrep-world-labels-v2`.
    pub version: String,
    /// World seed.
    pub seed: u64,
    /// World scale.
    pub scale: String,
    /// Last day.
    pub end: String,
    /// Knob ranges: `tune` or `test`.
    pub knobs: String,
    /// Whether griefing was generated.
    pub griefing: bool,
    /// [`crate::WorldConfig::settlement_days`] (absent in labels of worlds made before it).
    #[serde(default)]
    pub settlement_days: Option<u32>,
    /// [`crate::WorldConfig::last_day_surge`] (absent: 1).
    #[serde(default = "ordinary_day")]
    pub last_day_surge: u32,
    /// Sellers.
    pub sellers: Vec<SellerLabel>,
    /// Deployers.
    pub deployers: Vec<DeployerLabel>,
}

impl Labels {
    pub(crate) fn from_world(world: &World) -> Self {
        let griefed: BTreeMap<u32, GriefLabel> = world
            .grief
            .iter()
            .map(|g| (g.seller, GriefLabel { budget_usdc: g.budget, methods: g.methods.clone() }))
            .collect();
        Self {
            version: LABELS_VERSION.to_owned(),
            seed: world.config.seed,
            scale: world.config.scale.as_str().to_owned(),
            end: world.config.end.to_string(),
            knobs: world.config.knobs.as_str().to_owned(),
            griefing: world.config.griefing,
            settlement_days: world.config.settlement_days,
            last_day_surge: world.config.last_day_surge,
            sellers: world
                .sellers
                .iter()
                .map(|s| SellerLabel {
                    address: s.address.clone(),
                    kind: s.kind,
                    class: s.kind.class(),
                    quality: s.quality,
                    knobs: s.knobs.clone(),
                    cost_usdc: s.cost.map(|c| (c * 1e6).round() / 1e6),
                    cost_probe: s.cost_probe,
                    griefed: griefed.get(&s.index).cloned(),
                })
                .collect(),
            deployers: world
                .deployers
                .iter()
                .map(|d| DeployerLabel {
                    address: d.address.clone(),
                    kind: d.kind,
                    bad: d.kind.is_bad() || d.denylisted,
                    knobs: d.knobs.clone(),
                })
                .collect(),
        }
    }
}
