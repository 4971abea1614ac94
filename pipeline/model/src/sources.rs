//! What a score says it stands on: the `sources` of every score payload, directory row and
//! attestation. Each entry is an evidence source that contributed, the basis a component was
//! measured on, or a source that was stale on the day. The wire keeps the original service's
//! words (`marketplace`, `BASIS:demand=trusted-entities`, `DEGRADED:settlements-stale`); in the
//! code they are [`SourceNote`]s, built by [`SourceNote::of`] from the features and matched as
//! variants.

use std::fmt;
use std::str::FromStr;

use crate::features::SellerFeatures;

/// An evidence source behind a seller's score.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum EvidenceSource {
    /// A marketplace listing (always: a seller is scored because it is listed).
    Marketplace,
    /// Health probes of the listed endpoints.
    HealthProbe,
    /// Qualifying settlements on chain.
    OnchainSettlements,
    /// An ERC-8004 registration naming the seller.
    Erc8004,
    /// The seller's own identity proofs.
    IdentityProofs,
    /// Receipts from paying buyers.
    Receipts,
    /// The operator's paid calls.
    PaidProbe,
    /// A ranked domain serving the listing.
    RankedDomain,
}

/// How the demand component counted payers.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum DemandBasis {
    /// Trusted paying entities.
    TrustedEntities,
    /// Paying entities none of which is trusted yet.
    PayingEntitiesUnproven,
}

/// What the recency component measured from.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum RecencyBasis {
    /// The last trusted settlement.
    TrustedSettlement,
    /// The last settlement of any payer.
    AnySettlement,
}

/// One entry of a score's `sources`.
#[derive(Debug, Clone, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum SourceNote {
    /// An evidence source that contributed.
    Evidence(EvidenceSource),
    /// `BASIS:demand=…`.
    Demand(DemandBasis),
    /// `BASIS:recency=…`.
    Recency(RecencyBasis),
    /// `DEGRADED:<key>`: a source stale on the day, by its key in the sources table
    /// (`agentrep_lake::sources`), e.g. `settlements-stale`.
    Degraded(String),
}

/// Every closed-set name and its wire word, once.
macro_rules! wire_words {
    ($ty:ident { $($variant:ident => $word:literal),* $(,)? }) => {
        impl $ty {
            /// Every value, in wire order.
            pub const ALL: &'static [$ty] = &[$($ty::$variant),*];

            /// The wire word.
            pub fn as_str(self) -> &'static str {
                match self { $($ty::$variant => $word),* }
            }

            fn from_word(word: &str) -> Option<Self> {
                match word { $($word => Some($ty::$variant),)* _ => None }
            }
        }
    };
}

wire_words!(EvidenceSource {
    Marketplace => "marketplace",
    HealthProbe => "health-probe",
    OnchainSettlements => "onchain-settlements",
    Erc8004 => "erc8004",
    IdentityProofs => "identity-proofs",
    Receipts => "receipts",
    PaidProbe => "paid-probe",
    RankedDomain => "ranked-domain",
});
wire_words!(DemandBasis { TrustedEntities => "trusted-entities", PayingEntitiesUnproven => "paying-entities-unproven" });
wire_words!(RecencyBasis { TrustedSettlement => "trusted-settlement", AnySettlement => "any-settlement" });

const DEMAND: &str = "BASIS:demand=";
const RECENCY: &str = "BASIS:recency=";
const DEGRADED: &str = "DEGRADED:";

impl SourceNote {
    /// The notes of a seller's score, in the published order: the evidence sources that
    /// contributed, the two bases, then the stale sources (required ones first).
    pub fn of(f: &SellerFeatures) -> Vec<SourceNote> {
        use EvidenceSource as E;
        let present = [
            (E::Marketplace, true),
            (E::HealthProbe, f.sla.samples > 0),
            (E::OnchainSettlements, f.demand.settlements > 0),
            (E::Erc8004, f.erc8004_registered),
            (E::IdentityProofs, !f.proofs.is_empty()),
            (E::Receipts, f.reputation.receipts > 0),
            (E::PaidProbe, f.paid_probes.paid + f.paid_probes.unpaid_failures > 0),
            (E::RankedDomain, f.domain.is_some()),
        ];
        let mut out: Vec<SourceNote> =
            present.into_iter().filter(|(_, yes)| *yes).map(|(e, _)| SourceNote::Evidence(e)).collect();
        out.push(SourceNote::Demand(if f.demand.trusted_entities > 0 {
            DemandBasis::TrustedEntities
        } else {
            DemandBasis::PayingEntitiesUnproven
        }));
        out.push(SourceNote::Recency(if f.demand.days_since_last_trusted.is_some() {
            RecencyBasis::TrustedSettlement
        } else {
            RecencyBasis::AnySettlement
        }));
        out.extend(f.degraded_sources.iter().chain(&f.stale_sources).cloned().map(SourceNote::Degraded));
        out
    }

    /// Whether the note says a source was stale.
    pub fn is_degraded(&self) -> bool {
        matches!(self, SourceNote::Degraded(_))
    }
}

impl fmt::Display for SourceNote {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            SourceNote::Evidence(e) => f.write_str(e.as_str()),
            SourceNote::Demand(b) => write!(f, "{DEMAND}{}", b.as_str()),
            SourceNote::Recency(b) => write!(f, "{RECENCY}{}", b.as_str()),
            SourceNote::Degraded(key) => write!(f, "{DEGRADED}{key}"),
        }
    }
}

/// A `sources` entry this build does not know.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct UnknownSourceNote(pub String);

impl fmt::Display for UnknownSourceNote {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "unknown source note {:?}", self.0)
    }
}

impl std::error::Error for UnknownSourceNote {}

impl FromStr for SourceNote {
    type Err = UnknownSourceNote;

    fn from_str(s: &str) -> Result<Self, Self::Err> {
        let unknown = || UnknownSourceNote(s.to_owned());
        if let Some(word) = s.strip_prefix(DEMAND) {
            return DemandBasis::from_word(word).map(SourceNote::Demand).ok_or_else(unknown);
        }
        if let Some(word) = s.strip_prefix(RECENCY) {
            return RecencyBasis::from_word(word).map(SourceNote::Recency).ok_or_else(unknown);
        }
        if let Some(key) = s.strip_prefix(DEGRADED) {
            return Ok(SourceNote::Degraded(key.to_owned()));
        }
        EvidenceSource::from_word(s).map(SourceNote::Evidence).ok_or_else(unknown)
    }
}

impl serde::Serialize for SourceNote {
    fn serialize<S: serde::Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        serializer.collect_str(self)
    }
}

impl<'de> serde::Deserialize<'de> for SourceNote {
    fn deserialize<D: serde::Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        let text = <std::borrow::Cow<'de, str>>::deserialize(deserializer)?;
        text.parse().map_err(serde::de::Error::custom)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_note_reads_back_from_its_wire_words() {
        let mut notes: Vec<SourceNote> = EvidenceSource::ALL.iter().copied().map(SourceNote::Evidence).collect();
        notes.extend(DemandBasis::ALL.iter().copied().map(SourceNote::Demand));
        notes.extend(RecencyBasis::ALL.iter().copied().map(SourceNote::Recency));
        notes.push(SourceNote::Degraded("settlements-stale".into()));
        for note in notes {
            let json = serde_json::to_string(&note).expect("serialises");
            assert_eq!(serde_json::from_str::<SourceNote>(&json).expect("reads back"), note, "{json}");
        }
        assert_eq!(SourceNote::Demand(DemandBasis::TrustedEntities).to_string(), "BASIS:demand=trusted-entities");
        assert_eq!(SourceNote::Degraded("funding-stale".into()).to_string(), "DEGRADED:funding-stale");
        assert!("BASIS:demand=everyone".parse::<SourceNote>().is_err());
        assert!("hearsay".parse::<SourceNote>().is_err());
    }

    #[test]
    fn a_listed_seller_with_nothing_else_stands_on_its_listing() {
        let notes: Vec<String> = SourceNote::of(&SellerFeatures::default()).iter().map(ToString::to_string).collect();
        assert_eq!(notes, ["marketplace", "BASIS:demand=paying-entities-unproven", "BASIS:recency=any-settlement"]);
    }
}
