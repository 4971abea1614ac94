//! The sources table: every job that writes the lake's source datasets, with everything known
//! about it in one row: its name, its place in the run order, whether it reads the chain, whether
//! a day's rebuild waits for it, how often the scheduler runs it (the `[schedule.every_secs]` key
//! and its default), what it needs to run at all, and, for each dataset it writes, how old that
//! dataset's newest partition may get before the rebuild treats the evidence as stale and what
//! staleness then does.
//!
//! It lives in the lake because it is the contract between the two sides of it: the ingest jobs
//! (the scheduler, `agentrep ingest`, `--plan`, `/status`) and the rebuild (its freshness check)
//! both read it, and neither depends on the other. The operators' guide's, ARCHITECTURE.md's and
//! SCORING.md's tables of sources are generated from it ([`markdown_table`],
//! [`freshness_markdown`]) and a test keeps them equal.

use std::fmt;

use serde::{Deserialize, Serialize};

use crate::Dataset;

/// What a stale dataset does to the rebuild's answers (`SCORING.md` § 3, *Freshness*).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum WhenStale {
    /// Every seller score is `null` (`DEGRADED:<key>`) and decisions fail closed: the score cannot
    /// be computed without it.
    NoScore,
    /// Reported in `missingSignals` and `DEGRADED:` sources, and every seller decision is capped
    /// at `PROCEED_LOW_VALUE`: the checks it feeds cannot be trusted to be complete.
    CapsSellers,
    /// Reported for deployers only (their verdicts' `DEGRADED:` sources).
    CapsDeployers,
    /// Rows older than the window prove nothing any more (the proof lapses); nothing else changes.
    Lapses,
    /// Evidence only when present: none is no evidence (the operator may not run the source).
    EvidenceOnly,
}

impl WhenStale {
    /// What it does, in the words of the docs' tables.
    pub fn describe(self, key: &str) -> String {
        match self {
            WhenStale::NoScore => format!("every score `null` (`DEGRADED:{key}`), decision fails closed"),
            WhenStale::CapsSellers => {
                format!("`DEGRADED:{key}`, in `missingSignals`, seller decisions capped at `PROCEED_LOW_VALUE`")
            }
            WhenStale::CapsDeployers => format!("`DEGRADED:{key}` on deployer verdicts only"),
            WhenStale::Lapses => "no cap: older rows prove nothing (the proof lapses, nothing else changes)".to_owned(),
            WhenStale::EvidenceOnly => "no cap: evidence only when present, none is no evidence".to_owned(),
        }
    }
}

/// How old one dataset's newest partition may get, and what it does then.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Freshness {
    /// The dataset.
    pub dataset: Dataset,
    /// Days its newest partition may lag the rebuild day.
    pub max_age_days: i64,
    /// The `DEGRADED:` / `missingSignals` key when stale.
    pub key: &'static str,
    /// What staleness does.
    pub when_stale: WhenStale,
}

/// What a source needs before it can run at all (checked against the configuration by the
/// ingest jobs; an unmet need turns the source off, and `--plan` and `/status` say why).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Need {
    /// A JSON-RPC node of the configured chain (`chain.rpc_urls`).
    Chain,
    /// At least one marketplace discovery URL (`marketplace.discovery`).
    DiscoveryUrl,
    /// A ranked-domain list (`domain_ranks.enabled` and its URL).
    DomainList,
    /// The operator's consent to spend and a budget (`paid_probes.enabled`, a non-zero
    /// `paid_probes.budget_per_day`) and the paying key (`AGENTREP_PROBE_KEY`).
    ProbeBudgetAndKey,
    /// The server's write store (`AGENTREP_STORE`, or `agentrep-store.sqlite` beside the
    /// snapshots).
    Store,
}

impl Need {
    /// Every need.
    pub const ALL: &'static [Need] =
        &[Need::Chain, Need::DiscoveryUrl, Need::DomainList, Need::ProbeBudgetAndKey, Need::Store];

    /// What it is, in the docs' words.
    pub fn describe(self) -> &'static str {
        match self {
            Need::Chain => "the chain (`chain.rpc_urls`)",
            Need::DiscoveryUrl => "a discovery URL (`marketplace.discovery`)",
            Need::DomainList => "a ranked-domain list (`domain_ranks.url`)",
            Need::ProbeBudgetAndKey => {
                "`paid_probes.enabled`, a budget (`paid_probes.budget_per_day`) and the key (`AGENTREP_PROBE_KEY`)"
            }
            Need::Store => "the server's store (`AGENTREP_STORE`)",
        }
    }
}

/// Whether a source's schedule is public.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Schedule {
    /// `/status` shows its cadence, last run and next due time.
    Public,
    /// `/status` shows none of them: a seller that knew when the oracle's paid calls come could
    /// serve them and rob everyone else (its spend and counts are still shown).
    Private,
}

/// A cadence: the `[schedule.every_secs]` key and its default.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Cadence {
    /// The key under `[schedule.every_secs]` (the source's name with `_` for `-`).
    pub key: &'static str,
    /// Seconds between two runs by default.
    pub default_secs: u64,
}

const fn fresh(dataset: Dataset, max_age_days: i64, key: &'static str, when_stale: WhenStale) -> Freshness {
    Freshness { dataset, max_age_days, key, when_stale }
}

macro_rules! sources {
    ($(
        $(#[doc = $doc:literal])*
        $variant:ident => $name:literal {
            chain: $chain:literal,
            required: $required:literal,
            schedule: $schedule:ident,
            every: ($key:literal, $secs:expr),
            needs: [$($need:ident),*],
            writes: [$($ds:ident),* $(,)?],
            freshness: [$($fresh:expr),* $(,)?] $(,)?
        }
    ),* $(,)?) => {
        /// Every source, in the order `ingest` and `schedule` run them (later ones read what
        /// earlier ones wrote: settlements read the listings' payTos, funding every actor the
        /// others found, the paid probe the day's listings and demand).
        #[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
        #[serde(rename_all = "kebab-case")]
        pub enum SourceName { $( $(#[doc = $doc])* $variant ),* }

        impl SourceName {
            /// Every source, in run order.
            pub const ALL: &'static [SourceName] = &[ $( SourceName::$variant ),* ];

            /// The name used on the command line, in checkpoints and in `/status`.
            pub fn as_str(self) -> &'static str {
                match self { $( SourceName::$variant => $name ),* }
            }

            /// What it gathers (the row's doc comment).
            pub fn summary(self) -> &'static str {
                match self { $( SourceName::$variant => concat!($($doc, " "),*) ),* }
            }

            /// Whether it reads the chain.
            pub fn reads_chain(self) -> bool {
                match self { $( SourceName::$variant => $chain ),* }
            }

            /// Whether `/status` may show when it runs.
            pub fn schedule(self) -> Schedule {
                match self { $( SourceName::$variant => Schedule::$schedule ),* }
            }

            /// Whether the rebuild of a day waits for it to cover the day.
            pub fn required(self) -> bool {
                match self { $( SourceName::$variant => $required ),* }
            }

            /// How often the scheduler runs it, by default.
            pub fn cadence(self) -> Cadence {
                match self { $( SourceName::$variant => Cadence { key: $key, default_secs: $secs } ),* }
            }

            /// What it needs to run at all.
            pub fn needs(self) -> &'static [Need] {
                match self { $( SourceName::$variant => &[$(Need::$need),*] ),* }
            }

            /// The datasets it writes.
            pub fn datasets(self) -> &'static [Dataset] {
                match self { $( SourceName::$variant => &[$(Dataset::$ds),*] ),* }
            }

            /// How stale each dataset it feeds the rebuild may get.
            pub fn freshness(self) -> &'static [Freshness] {
                match self { $( SourceName::$variant => {
                    const RULES: &[Freshness] = &[$($fresh),*];
                    RULES
                } ),* }
            }
        }
    };
}

use WhenStale::{CapsDeployers, CapsSellers, EvidenceOnly, Lapses, NoScore};

const MINUTE: u64 = 60;
const HOUR: u64 = 3_600;
const DAY: u64 = 86_400;

sources! {
    /// Entity labels and address lists: the curated list shipped in the repository, facilitator
    /// signers from `/supported`, the operator's additions.
    Labels => "labels" {
        chain: false, required: false, schedule: Public, every: ("labels", HOUR), needs: [],
        writes: [EntityLabels, AddressLists],
        freshness: [
            fresh(Dataset::AddressLists, 2, "denylist-stale", CapsSellers),
            fresh(Dataset::EntityLabels, 30, "entity-labels-stale", CapsSellers),
        ],
    },
    /// x402 Bazaar discovery: listings and crawl runs.
    Marketplace => "marketplace" {
        chain: false, required: true, schedule: Public, every: ("marketplace", HOUR), needs: [DiscoveryUrl],
        writes: [Listings, CrawlRuns],
        freshness: [fresh(Dataset::Listings, 7, "marketplace-stale", NoScore)],
    },
    /// A public ranked-domain list, kept for the domains the listings use.
    DomainRanks => "domain-ranks" {
        chain: false, required: false, schedule: Public, every: ("domain_ranks", 7 * DAY), needs: [DomainList],
        writes: [DomainRanks],
        freshness: [fresh(Dataset::DomainRanks, 45, "domain-ranks-stale", Lapses)],
    },
    /// USDC settlements to the listed payTos, in every form x402 settles in, and the auth-capture
    /// escrow's outcomes for them.
    Settlements => "settlements" {
        chain: true, required: true, schedule: Public, every: ("settlements", 30), needs: [Chain],
        writes: [Settlements, EscrowEvents],
        freshness: [fresh(Dataset::Settlements, 1, "settlements-stale", NoScore)],
    },
    /// ERC-8004 registrations and feedback.
    Erc8004 => "erc8004" {
        chain: true, required: false, schedule: Public, every: ("erc8004", 30), needs: [Chain],
        writes: [Erc8004Registrations, Erc8004Feedback],
        freshness: [
            fresh(Dataset::Erc8004Registrations, 2, "erc8004-stale", CapsSellers),
            fresh(Dataset::Erc8004Feedback, 2, "erc8004-stale", CapsSellers),
        ],
    },
    /// Token launches and their daily observations.
    Launches => "launches" {
        chain: true, required: false, schedule: Public, every: ("launches", 30), needs: [Chain],
        writes: [TokenLaunches, LaunchObservations, TokenBuys],
        freshness: [
            fresh(Dataset::TokenLaunches, 2, "launches-stale", CapsDeployers),
            fresh(Dataset::LaunchObservations, 2, "launches-stale", CapsDeployers),
        ],
    },
    /// The server's records the rebuild reads (signed attestations, receipts, badge claims,
    /// discovery submissions), carried from its store into the lake.
    StoreExport => "store-export" {
        chain: false, required: false, schedule: Public, every: ("store_export", 15 * MINUTE), needs: [Store],
        writes: [Attestations, Receipts, BadgeClaims, DiscoverySubmissions],
        freshness: [fresh(Dataset::Receipts, 2, "receipts-stale", CapsSellers)],
    },
    /// ERC-8004 registration files, and the cards submitted to the server.
    AgentCards => "agent-cards" {
        chain: false, required: false, schedule: Public, every: ("agent_cards", DAY), needs: [],
        writes: [AgentCards, SubmittedCards],
        freshness: [fresh(Dataset::AgentCards, 7, "agent-cards-stale", EvidenceOnly)],
    },
    /// Ownership proofs: the wallets each listed origin's `/.well-known/x402` document proves it
    /// belongs to (the origin's text signed by the wallet), so an origin its payTo signed binds it.
    OriginProofs => "origin-proofs" {
        chain: false, required: false, schedule: Public, every: ("origin_proofs", DAY), needs: [],
        writes: [OriginProofs],
        freshness: [fresh(Dataset::OriginProofs, 30, "origin-proofs-stale", Lapses)],
    },
    /// First USDC funders of every actor the sources above found (so it runs after them), and of
    /// their funders.
    Funding => "funding" {
        chain: true, required: false, schedule: Public, every: ("funding", 30), needs: [Chain],
        writes: [FundingEdges],
        freshness: [fresh(Dataset::FundingEdges, 2, "funding-stale", CapsSellers)],
    },
    /// Identity proofs: Coinbase verifications (EAS) and Farcaster (a hub's API); Basename and ENS
    /// reverse names are not read yet.
    Proofs => "proofs" {
        chain: true, required: false, schedule: Public, every: ("proofs", DAY), needs: [Chain],
        writes: [IdentityProofs],
        freshness: [fresh(Dataset::IdentityProofs, 7, "identity-proofs-stale", CapsSellers)],
    },
    /// Unpaid probes of every listed resource.
    Probes => "probes" {
        chain: false, required: true, schedule: Public, every: ("probes", 15 * MINUTE), needs: [],
        writes: [Probes],
        freshness: [fresh(Dataset::Probes, 6, "probes-stale", NoScore)],
    },
    /// agentrep's own paid calls, on the operator's budget (off unless configured; it reads the
    /// chain with its own reader).
    PaidProbes => "paid-probes" {
        chain: false, required: false, schedule: Private, every: ("paid_probes", HOUR), needs: [ProbeBudgetAndKey, Chain],
        writes: [PaidProbes],
        freshness: [fresh(Dataset::PaidProbes, 30, "paid-probes-stale", EvidenceOnly)],
    },
}

impl fmt::Display for SourceName {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

impl std::str::FromStr for SourceName {
    type Err = String;
    fn from_str(s: &str) -> Result<Self, String> {
        SourceName::ALL.iter().copied().find(|n| n.as_str() == s).ok_or_else(|| {
            let names: Vec<_> = SourceName::ALL.iter().map(|n| n.as_str()).collect();
            format!("unknown source `{s}` (one of: {}, all)", names.join(", "))
        })
    }
}

impl SourceName {
    /// The source whose `[schedule.every_secs]` key is `key`.
    pub fn by_cadence_key(key: &str) -> Option<SourceName> {
        SourceName::ALL.iter().copied().find(|s| s.cadence().key == key)
    }
}

/// Every dataset's freshness rule, in the table's order.
pub fn freshness_rules() -> impl Iterator<Item = (SourceName, &'static Freshness)> {
    SourceName::ALL.iter().flat_map(|s| s.freshness().iter().map(move |f| (*s, f)))
}

/// The window of `dataset`'s rule, if it has one.
pub fn max_age_days(dataset: Dataset) -> Option<i64> {
    freshness_rules().find(|(_, f)| f.dataset == dataset).map(|(_, f)| f.max_age_days)
}

/// A number of seconds in the largest whole unit (`30 s`, `15 min`, `1 h`, `7 d`).
pub fn human_secs(secs: u64) -> String {
    match secs {
        s if s >= DAY && s % DAY == 0 => format!("{} d", s / DAY),
        s if s >= HOUR && s % HOUR == 0 => format!("{} h", s / HOUR),
        s if s >= MINUTE && s % MINUTE == 0 => format!("{} min", s / MINUTE),
        s => format!("{s} s"),
    }
}

/// The operators' guide's and ARCHITECTURE.md's table of sources (Markdown, generated from the table).
pub fn markdown_table() -> String {
    let mut out = String::from(
        "| # | source | what it gathers | every (`[schedule.every_secs]` key) | needs | rebuild waits | datasets | stale after |\n\
         |---|---|---|---|---|---|---|---|\n",
    );
    for (i, s) in SourceName::ALL.iter().enumerate() {
        let cadence = s.cadence();
        let needs: Vec<&str> = s.needs().iter().map(|n| n.describe()).collect();
        let datasets: Vec<String> = s.datasets().iter().map(|d| format!("`{}`", d.name())).collect();
        let stale: Vec<String> =
            s.freshness().iter().map(|f| format!("`{}` {} d", f.dataset.name(), f.max_age_days)).collect();
        out.push_str(&format!(
            "| {} | `{}` | {} | {} (`{}`) | {} | {} | {} | {} |\n",
            i + 1,
            s.as_str(),
            one_line(s.summary()),
            human_secs(cadence.default_secs),
            cadence.key,
            if needs.is_empty() { "nothing".to_owned() } else { needs.join("; ") },
            if s.required() { "yes" } else { "no" },
            datasets.join(", "),
            stale.join(", "),
        ));
    }
    out
}

/// SCORING.md's freshness table (Markdown, generated from the table).
pub fn freshness_markdown() -> String {
    let mut out = String::from("| dataset | source | days | when stale |\n|---|---|---|---|\n");
    for (source, f) in freshness_rules() {
        out.push_str(&format!(
            "| `{}` | `{}` | {} | {} |\n",
            f.dataset.name(),
            source.as_str(),
            f.max_age_days,
            f.when_stale.describe(f.key)
        ));
    }
    out
}

fn one_line(doc: &str) -> String {
    doc.split_whitespace().collect::<Vec<_>>().join(" ")
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Every source has a cadence, a freshness rule for a dataset it writes, and a summary; the
    /// cadence keys are unique.
    #[test]
    fn every_source_has_a_cadence_a_freshness_rule_and_a_summary() {
        for s in SourceName::ALL {
            assert!(s.cadence().default_secs > 0, "{s} has a cadence");
            assert_eq!(s.cadence().key, s.as_str().replace('-', "_"), "{s}'s cadence key is its name");
            assert!(!s.freshness().is_empty(), "{s} has a freshness rule");
            assert!(!s.datasets().is_empty(), "{s} writes a dataset");
            assert!(s.freshness().iter().all(|f| s.datasets().contains(&f.dataset)), "{s} checks what it writes");
            assert!(!s.summary().trim().is_empty(), "{s} says what it gathers");
            assert!(s.freshness().iter().all(|f| f.max_age_days > 0 && f.key.ends_with("-stale")));
        }
    }

    /// A dataset is written by one source only, so its freshness has one owner.
    #[test]
    fn each_dataset_has_one_writer() {
        let mut seen = std::collections::BTreeSet::new();
        for s in SourceName::ALL {
            for d in s.datasets() {
                assert!(seen.insert(*d), "{} is written by two sources", d.name());
            }
        }
    }

    /// The required sources are what a score cannot be computed without.
    #[test]
    fn required_sources_are_the_ones_without_which_there_is_no_score() {
        for s in SourceName::ALL {
            let no_score = s.freshness().iter().any(|f| f.when_stale == WhenStale::NoScore);
            assert_eq!(s.required(), no_score, "{s}");
        }
    }

    #[test]
    fn names_parse_back() {
        for s in SourceName::ALL {
            assert_eq!(s.as_str().parse::<SourceName>(), Ok(*s));
            assert_eq!(SourceName::by_cadence_key(s.cadence().key), Some(*s));
        }
        assert!("nope".parse::<SourceName>().unwrap_err().contains("paid-probes"));
    }
}
