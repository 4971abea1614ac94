//! The rebuild's SQL files, in the order it runs them, each with the tables it reads and the tables
//! it leaves: the DuckDB temporary tables the passes share are one namespace, declared here once.
//!
//! A file is a script run whole, or named sections (`-- name: <section>` lines, the convention of
//! yesql and aiosql) that Rust runs or queries one at a time ([`SqlFile::section`]): no stage
//! writes its SQL in Rust. The stages (`stages.rs`) name the files they run.
//!
//! The tests read every file's text and check it against its declaration (what it creates and
//! does not drop is what it leaves; what it reads that it did not create is what it reads), and
//! check the order: every table a file reads is a lake view, a carried state its stage folds, or
//! one an earlier file leaves.

use crate::PipelineError;
use crate::passes::SETTLEMENTS;

/// One SQL file of the rebuild.
#[derive(Debug)]
pub(crate) struct SqlFile {
    /// Its file name under `src/sql/`.
    pub name: &'static str,
    /// Its DuckDB text.
    pub text: &'static str,
    /// The tables and views it reads that it does not create.
    pub reads: &'static [&'static str],
    /// The tables it creates and leaves for the files after it.
    pub leaves: &'static [&'static str],
}

/// The line that opens a section.
const SECTION: &str = "-- name: ";

impl SqlFile {
    /// The text of the section `name`: from the line after its `-- name: <name>` line to the next
    /// such line or the end.
    pub fn section(&self, name: &'static str) -> Result<&'static str, PipelineError> {
        let text: &'static str = self.text;
        let start = text
            .match_indices(SECTION)
            .map(|(i, _)| i + SECTION.len())
            .find(|&i| text[i..].lines().next() == Some(name))
            .ok_or(PipelineError::MissingSection { file: self.name, section: name })?;
        let body = start + text[start..].find('\n').map_or(text.len() - start, |n| n + 1);
        let end = text[body..].find(&format!("\n{SECTION}")).map_or(text.len(), |n| body + n + 1);
        Ok(&text[body..end])
    }
}

/// Current listings, the sellers and their ids, price bounds, facilitators.
pub(crate) const LISTINGS: SqlFile = SqlFile {
    name: "listings.sql",
    text: include_str!("sql/listings.sql"),
    reads: &["entity_labels", "listings", "paid_probes"],
    leaves: &[
        "cur",
        "seller_listing",
        "seller_tags",
        "wallet_resources",
        "seller_ids",
        "price_bounds",
        "facilitators",
        "oracle_payers",
    ],
};

/// What either form of the settlement pass reads: the same lake datasets and `listings.sql`'s tables.
const SETTLEMENT_PASS_READS: &[&str] =
    &["facilitators", "oracle_payers", "price_bounds", "receipts", "seller_ids", "settlements"];

/// What either form of the settlement pass leaves (and [`SETTLEMENTS`]'s outputs).
const SETTLEMENT_PASS_LEAVES: &[&str] =
    &["nonq", "pp", "settle", "cadence", "cited", "seller_recent", "seller_days", "payer_recent", "seller_forms"];

/// The settlement pass's DuckDB text ([`SETTLEMENTS`] runs it, or its DataFusion form).
pub(crate) const SETTLEMENTS_DUCKDB: SqlFile = SqlFile {
    name: "settlements.sql",
    text: SETTLEMENTS.duckdb,
    reads: SETTLEMENT_PASS_READS,
    leaves: SETTLEMENT_PASS_LEAVES,
};

/// The settlement pass over carried state (`carry_pairs.rs`): the same tables as
/// [`SETTLEMENTS_DUCKDB`], from the stored state and the partitions since.
pub(crate) const SETTLEMENTS_CARRIED: SqlFile = SqlFile {
    name: "settlements_carried.sql",
    text: include_str!("sql/settlements_carried.sql"),
    reads: SETTLEMENT_PASS_READS,
    leaves: SETTLEMENT_PASS_LEAVES,
};

/// Funding, registrations, reviews, receipts, proofs, lists, the wallet ids, probe SLAs.
pub(crate) const SELLERS: SqlFile = SqlFile {
    name: "sellers.sql",
    text: include_str!("sql/sellers.sql"),
    reads: &[
        "address_lists",
        "attestations",
        "carried_first_fundings",
        "cited",
        "entity_labels",
        "erc8004_feedback",
        "erc8004_registrations",
        "identity_proofs",
        "pp",
        "probes",
        "receipts",
        "seller_ids",
        "token_launches",
        "wallet_resources",
    ],
    leaves: &["first_funder", "hubs", "reg", "fb", "rc", "proofs", "attested", "lists", "wallets", "listing_probes"],
};

/// The current listings' resources, and the table `domains.rs` fills with their registrable
/// domains.
pub(crate) const LISTING_DOMAINS: SqlFile = SqlFile {
    name: "listing_domains.sql",
    text: include_str!("sql/listing_domains.sql"),
    reads: &["cur"],
    leaves: &["listing_domains"],
};

/// Ranked domains.
pub(crate) const DOMAINS: SqlFile = SqlFile {
    name: "domains.sql",
    text: include_str!("sql/domains.sql"),
    reads: &["domain_ranks", "listing_domains", "listing_probes"],
    leaves: &["ranks", "domain_offers", "seller_domain"],
};

/// The origins whose evidence counts for each seller, and the probe SLAs, paid calls and listing
/// risks over them (methodology 3.1; ownership proofs since 3.2).
pub(crate) const ORIGINS: SqlFile = SqlFile {
    name: "origins.sql",
    text: include_str!("sql/origins.sql"),
    reads: &[
        "agent_cards",
        "cur",
        "listing_domains",
        "listing_probes",
        "origin_proofs",
        "paid_probes",
        "reg",
        "seller_domain",
        "seller_ids",
        "wallet_resources",
    ],
    leaves: &[
        "bound_origins",
        "taken_resources",
        "counted_probes",
        "listing_paid",
        "seller_origins",
        "unbound_ranked",
        "counted_origins",
        "unbound_rivals",
        "listing_risks",
        "sla",
        "paid",
    ],
};

/// One row per seller, read by name into the model's features.
pub(crate) const SELLERS_SELECT: SqlFile = SqlFile {
    name: "sellers_select.sql",
    text: include_str!("sql/sellers_select.sql"),
    reads: &[
        "attested",
        "cadence",
        "listing_risks",
        "lists",
        "nonq",
        "paid",
        "proofs",
        "reg",
        "seller_domain",
        "seller_ids",
        "seller_listing",
        "seller_tags",
        "settle",
        "sla",
    ],
    leaves: &[],
};

/// How each seller was paid in its last 30 days: forms, builder codes, escrow outcomes.
pub(crate) const SETTLEMENT_MIX: SqlFile = SqlFile {
    name: "settlement_mix.sql",
    text: include_str!("sql/settlement_mix.sql"),
    reads: &["escrow_events", "seller_forms", "seller_ids"],
    leaves: &[],
};

/// Known wallets that are not sellers.
pub(crate) const COUNTERPARTIES: SqlFile = SqlFile {
    name: "counterparties.sql",
    text: include_str!("sql/counterparties.sql"),
    reads: &["first_funder", "lists", "payer_recent", "pp", "seller_listing"],
    leaves: &[],
};

/// The wallet graph trust runs on.
pub(crate) const GRAPH: SqlFile = SqlFile {
    name: "graph.sql",
    text: include_str!("sql/graph.sql"),
    reads: &["first_funder", "hubs", "lists", "pp", "proofs", "seller_domain", "seller_ids", "wallets"],
    leaves: &[],
};

/// Token launches and their daily observations, the deployers' wallet ids, proofs and denylist.
pub(crate) const DEPLOYERS: SqlFile = SqlFile {
    name: "deployers.sql",
    text: include_str!("sql/deployers.sql"),
    reads: &["launch_observations", "lists", "proofs", "token_launches", "wallets"],
    leaves: &[],
};

/// What each seller's live re-score builds on.
pub(crate) const LIVE_BASIS: SqlFile = SqlFile {
    name: "live_basis.sql",
    text: include_str!("sql/live_basis.sql"),
    reads: &[
        "counted_origins",
        "counted_probes",
        "cur",
        "facilitators",
        "listing_domains",
        "oracle_payers",
        "pp",
        "seller_days",
        "seller_domain",
        "seller_ids",
        "taken_resources",
        "unbound_rivals",
        "wallet_resources",
        "wallets",
    ],
    leaves: &[],
};

/// Each seller's feedback and receipts by wallet id.
pub(crate) const SELLER_EVIDENCE: SqlFile = SqlFile {
    name: "seller_evidence.sql",
    text: include_str!("sql/seller_evidence.sql"),
    reads: &["fb", "rc", "wallets"],
    leaves: &[],
};

/// Earlier days' scores.
pub(crate) const HISTORY: SqlFile =
    SqlFile { name: "history.sql", text: include_str!("sql/history.sql"), reads: &["daily_scores"], leaves: &[] };

/// What the free reads show beside scores.
pub(crate) const DIRECTORY: SqlFile = SqlFile {
    name: "directory.sql",
    text: include_str!("sql/directory.sql"),
    reads: &[
        "address_lists",
        "agent_cards",
        "crawl_runs",
        "cur",
        "erc8004_registrations",
        "first_funder",
        "identity_proofs",
        "listings",
        "probes",
        "seller_ids",
        "seller_recent",
    ],
    leaves: &[],
};

/// Every launched token's buyers, classed and totalled.
pub(crate) const BUYERS: SqlFile = SqlFile {
    name: "buyers.sql",
    text: include_str!("sql/buyers.sql"),
    reads: &["carried_token_buys", "carried_token_deployers", "first_funder"],
    leaves: &[],
};

#[cfg(test)]
mod tests;
