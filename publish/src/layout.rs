//! Where each file of a snapshot lives, and what a file is: the one definition shared by the
//! writer, the reader and the server.
//!
//! A published snapshot holds the whole-snapshot documents, the indexes and the record tables
//! ([`crate::tables`]); the server renders per-wallet documents from the tables. The paths of
//! those rendered documents are defined here too, because `export-static` writes them into a
//! static tree: score, badge and deployer one file per wallet, the other per-wallet payloads as
//! keyed bundles, one line per wallet (`<address> <json>`).

/// Score previews: `score/<address>.json`.
pub const SCORE: &str = "score";
/// Deployers: `deployer/<address>.json`.
pub const DEPLOYER: &str = "deployer";
/// Badges: `badge/<address>.svg`.
pub const BADGE: &str = "badge";
/// Preflight decisions, keyed bundle.
pub const PREFLIGHT: &str = "bundles/preflight.keyed.jsonl";
/// Trust shields, keyed bundle.
pub const SHIELD: &str = "bundles/trust-shield.keyed.jsonl";
/// Histories (all retained days), keyed bundle.
pub const HISTORY: &str = "bundles/history.keyed.jsonl";
/// Buyer-trust verdicts of launched tokens, keyed bundle (keyed by token address).
pub const BUYER_TRUST: &str = "bundles/buyer-trust.keyed.jsonl";
/// What each seller's live re-score builds on, typed columns (read by the server, not served).
pub const LIVE_BASIS: &str = "live-basis.parquet";
/// What every live re-score of the snapshot shares (day, known facilitators).
pub const LIVE_CONTEXT: &str = "live-context.json";
/// The manifest.
pub const MANIFEST: &str = "manifest.json";

/// A snapshot's digest: the SHA-256 (hex) of its `manifest.json`, which lists every other file
/// with its hash, so two snapshots with the same digest hold the same bytes.
pub fn snapshot_digest(manifest_bytes: &[u8]) -> String {
    use sha2::Digest as _;
    hex::encode(sha2::Sha256::digest(manifest_bytes))
}
/// Default leaderboard view.
pub const LEADERBOARD: &str = "leaderboard.json";
/// Every ranked entry with sparklines.
pub const LEADERBOARD_FULL: &str = "leaderboard-full.json";
/// CSV export of every seller, ranked ones first.
pub const SCORES_CSV: &str = "scores.csv";
/// Parquet export of scores.
pub const SCORES_PARQUET: &str = "scores.parquet";
/// Parquet export of history.
pub const HISTORY_PARQUET: &str = "history.parquet";
/// Parquet export of how each seller was paid in its last 30 days (settlement forms, builder
/// codes, escrow outcomes).
pub const SETTLEMENT_FORMS_PARQUET: &str = "settlement-forms.parquet";
/// Daily movers (top 10 each way).
pub const MOVERS: &str = "movers.json";
/// Known non-seller wallets, in address order.
pub const COUNTERPARTIES: &str = "counterparties.parquet";
/// Known non-seller wallets as CSV: in snapshots published before 2026-12-07, and in a static
/// export (written from [`COUNTERPARTIES`]).
pub const COUNTERPARTIES_CSV: &str = "counterparties.csv";
/// Every indexed seller as the queries read it, one JSON object per line.
pub const AGENTS_INDEX: &str = "index/agents.jsonl";
/// Every scored deployer as the queries read it, one JSON object per line.
pub const DEPLOYERS_INDEX: &str = "index/deployers.jsonl";
/// Identity proofs, one per line.
pub const PROOFS_INDEX: &str = "index/proofs.jsonl";
/// Denylist and allowlist entries, one per line.
pub const LISTS_INDEX: &str = "index/lists.jsonl";
/// ERC-8004 registered agents, one per line.
pub const IDENTITIES_INDEX: &str = "index/identities.jsonl";
/// Marketplace crawl sources, one per line.
pub const CRAWLERS_INDEX: &str = "index/crawlers.jsonl";
/// Every current marketplace listing (resource, payTo, network, asset, price), one per line: what
/// the URL preflight resolves a resource URL with.
pub const LISTINGS_INDEX: &str = "index/listings.jsonl";
/// First fundings of sellers, deployers and their funders (4 hops), one per line.
pub const FUNDING_INDEX: &str = "index/funding.jsonl";

/// Every seller's assessment, profile and history, keyed by seller ([`crate::tables`]).
pub const SELLERS_TABLE: &str = "sellers.parquet";
/// Every deployer's record, keyed by deployer ([`crate::tables`]).
pub const DEPLOYERS_TABLE: &str = "deployers.parquet";
/// Every launched token's buyer trust, keyed by token ([`crate::tables`]).
pub const TOKENS_TABLE: &str = "tokens.parquet";

/// Folders of a published snapshot.
pub const SNAPSHOT_FOLDERS: &[&str] = &["index"];

/// Folders of a static tree (`export-static`): the snapshot's and those of the rendered files.
pub const STATIC_FOLDERS: &[&str] = &[SCORE, BADGE, DEPLOYER, "bundles", "index"];

/// A per-wallet document.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum WalletDoc {
    /// `score/<address>.json`.
    Score,
    /// `deployer/<address>.json`.
    Deployer,
    /// `badge/<address>.svg`.
    Badge,
    /// A line of the preflight bundle.
    Preflight,
    /// A line of the trust-shield bundle.
    Shield,
    /// A line of the history bundle.
    History,
    /// A line of the buyer-trust bundle (keyed by token).
    BuyerTrust,
}

/// A whole-snapshot document served as published.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum WholeDoc {
    /// `leaderboard.json`.
    Leaderboard,
    /// `scores.csv`.
    ScoresCsv,
    /// `scores.parquet`.
    ScoresParquet,
    /// `history.parquet`.
    HistoryParquet,
    /// `settlement-forms.parquet`.
    SettlementFormsParquet,
    /// `movers.json`.
    Movers,
}

/// What a file of a snapshot holds.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum FileKind<'a> {
    /// One wallet's document, served as-is.
    Wallet(WalletDoc, &'a str),
    /// A keyed bundle of one wallet document per line.
    Bundle(WalletDoc),
    /// A whole-snapshot document.
    Whole(WholeDoc),
    /// The server's own inputs, never served and left out of a static export: the record tables
    /// the rendered documents are made from (`sellers.parquet`, `deployers.parquet`,
    /// `tokens.parquet`) and what live re-scores build on (`live-basis.parquet`,
    /// `live-context.json`).
    ServerOnly,
    /// Read by the loader, not served as a file (manifest, indexes, counterparties, full
    /// leaderboard), and kept in a static export.
    Data,
}

/// Classifies a manifest path.
pub fn classify(path: &str) -> FileKind<'_> {
    match path {
        PREFLIGHT => return FileKind::Bundle(WalletDoc::Preflight),
        SHIELD => return FileKind::Bundle(WalletDoc::Shield),
        HISTORY => return FileKind::Bundle(WalletDoc::History),
        BUYER_TRUST => return FileKind::Bundle(WalletDoc::BuyerTrust),
        LEADERBOARD => return FileKind::Whole(WholeDoc::Leaderboard),
        SCORES_CSV => return FileKind::Whole(WholeDoc::ScoresCsv),
        SCORES_PARQUET => return FileKind::Whole(WholeDoc::ScoresParquet),
        HISTORY_PARQUET => return FileKind::Whole(WholeDoc::HistoryParquet),
        SETTLEMENT_FORMS_PARQUET => return FileKind::Whole(WholeDoc::SettlementFormsParquet),
        MOVERS => return FileKind::Whole(WholeDoc::Movers),
        SELLERS_TABLE | DEPLOYERS_TABLE | TOKENS_TABLE | LIVE_BASIS | LIVE_CONTEXT => return FileKind::ServerOnly,
        _ => {}
    }
    let Some((dir, file)) = path.split_once('/') else { return FileKind::Data };
    let address = file.rsplit_once('.').map_or(file, |(a, _)| a);
    match dir {
        SCORE => FileKind::Wallet(WalletDoc::Score, address),
        DEPLOYER => FileKind::Wallet(WalletDoc::Deployer, address),
        BADGE => FileKind::Wallet(WalletDoc::Badge, address),
        _ => FileKind::Data,
    }
}

/// Splits a keyed bundle into `(address, json)` pairs.
pub fn keyed_lines(bundle: &[u8]) -> impl Iterator<Item = (&str, &[u8])> {
    bundle.split(|b| *b == b'\n').filter(|l| !l.is_empty()).filter_map(|line| {
        let space = line.iter().position(|b| *b == b' ')?;
        Some((std::str::from_utf8(&line[..space]).ok()?, &line[space + 1..]))
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn classifies_every_kind() {
        assert_eq!(classify("score/0xab.json"), FileKind::Wallet(WalletDoc::Score, "0xab"));
        assert_eq!(classify("badge/0xab.svg"), FileKind::Wallet(WalletDoc::Badge, "0xab"));
        assert_eq!(classify(SHIELD), FileKind::Bundle(WalletDoc::Shield));
        assert_eq!(classify(MOVERS), FileKind::Whole(WholeDoc::Movers));
        assert_eq!(classify(AGENTS_INDEX), FileKind::Data);
        assert_eq!(classify(MANIFEST), FileKind::Data);
        assert_eq!(classify(LIVE_BASIS), FileKind::ServerOnly);
        assert_eq!(classify(LIVE_CONTEXT), FileKind::ServerOnly);
        assert_eq!(classify(SELLERS_TABLE), FileKind::ServerOnly);
    }

    #[test]
    fn keyed_lines_split_on_the_first_space() {
        let lines: Vec<_> = keyed_lines(b"0xa {\"x\": 1}\n\n0xb {}\n").collect();
        assert_eq!(lines, vec![("0xa", &b"{\"x\": 1}"[..]), ("0xb", &b"{}"[..])]);
    }
}
