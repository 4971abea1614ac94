//! The rebuild's SQL files, in the order it runs them, each with the tables it reads and the tables
//! it leaves: the DuckDB temporary tables the passes share are one namespace, declared here once.
//!
//! The tests read every file's text and check it against its declaration (what it creates and
//! does not drop is what it leaves; what it reads that it did not create is what it reads), and
//! check the order: every table a file reads is a lake view, a carried state, a table the rebuild
//! fills from Rust ([`FROM_OUTSIDE`]), or one an earlier file leaves.

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

/// The settlement pass's DuckDB text ([`SETTLEMENTS`] runs it, or its DataFusion form).
pub(crate) const SETTLEMENTS_DUCKDB: SqlFile = SqlFile {
    name: "settlements.sql",
    text: SETTLEMENTS.duckdb,
    reads: &["facilitators", "oracle_payers", "price_bounds", "receipts", "seller_ids", "settlements"],
    leaves: &["nonq", "pp", "settle", "cadence", "cited", "seller_recent", "seller_days", "payer_recent"],
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

/// Known wallets that are not sellers.
pub(crate) const COUNTERPARTIES: SqlFile = SqlFile {
    name: "counterparties.sql",
    text: include_str!("sql/counterparties.sql"),
    reads: &["first_funder", "lists", "payer_recent", "pp", "seller_listing"],
    leaves: &[],
};

/// Token launches and their daily observations.
pub(crate) const DEPLOYERS: SqlFile = SqlFile {
    name: "deployers.sql",
    text: include_str!("sql/deployers.sql"),
    reads: &["launch_observations", "token_launches"],
    leaves: &[],
};

/// The files in the order the rebuild runs them.
#[cfg(test)]
pub(crate) const REBUILD_ORDER: &[&SqlFile] =
    &[&LISTINGS, &SETTLEMENTS_DUCKDB, &SELLERS, &DOMAINS, &ORIGINS, &SELLERS_SELECT, &COUNTERPARTIES, &DEPLOYERS];

/// What the files read that none of them makes: the carried state `carry::FIRST_FUNDINGS` leaves
/// before them, and `listing_domains`, which `domains::prepare` fills from Rust (the lake's
/// datasets, views of their names, are the rest).
#[cfg(test)]
pub(crate) const FROM_OUTSIDE: &[&str] = &["carried_first_fundings", "listing_domains"];

#[cfg(test)]
mod tests;
