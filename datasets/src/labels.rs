//! Ground-truth labels of a generated world, kept beside the lake for `agentrep eval` only.

use serde::{Deserialize, Serialize};

use crate::plan::{DeployerKind, SellerKind, World};

/// File name of the labels in the lake root.
pub const LABELS_FILE: &str = "labels.json";

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
            SellerKind::Honest | SellerKind::Flapping | SellerKind::Young => SellerClass::Honest,
            SellerKind::Ghost => SellerClass::Ghost,
            SellerKind::Wash
            | SellerKind::SelfDealing
            | SellerKind::Dead
            | SellerKind::SybilFeedback
            | SellerKind::ScamListing
            | SellerKind::Denylisted => SellerClass::Bad,
        }
    }
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
}

/// Labels of a whole world.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Labels {
    /// Format version.
    pub version: String,
    /// World seed.
    pub seed: u64,
    /// World scale.
    pub scale: String,
    /// Last day.
    pub end: String,
    /// Sellers.
    pub sellers: Vec<SellerLabel>,
    /// Deployers.
    pub deployers: Vec<DeployerLabel>,
}

impl Labels {
    pub(crate) fn from_world(world: &World) -> Self {
        Self {
            version: "agentrep-world-labels-v1".to_owned(),
            seed: world.config.seed,
            scale: world.config.scale.as_str().to_owned(),
            end: world.config.end.to_string(),
            sellers: world
                .sellers
                .iter()
                .map(|s| SellerLabel {
                    address: s.address.clone(),
                    kind: s.kind,
                    class: s.kind.class(),
                    quality: s.quality,
                })
                .collect(),
            deployers: world
                .deployers
                .iter()
                .map(|d| DeployerLabel {
                    address: d.address.clone(),
                    kind: d.kind,
                    bad: matches!(d.kind, DeployerKind::Rugger | DeployerKind::SerialRugger) || d.denylisted,
                })
                .collect(),
        }
    }
}
