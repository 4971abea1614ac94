//! The rebuild as declared stages: [`STAGES`] is the one ordered table of what a rebuild does, and
//! [`run`] the one runner that goes through it.
//!
//! Each stage names the carried states it folds, the SQL files it runs (whose declarations in
//! `sql_files` are the DuckDB tables it reads and leaves, and through them the lake datasets it
//! reads), and the Rust values it needs from the stages before it and makes for those after it
//! ([`Product`]). The runner checks each declaration as the stage runs (the tables a stage reads
//! exist before it, those it leaves after it; what it needs was made, what it makes is there),
//! times each stage, logs the memory after it, records how each carried state was read, and drops
//! each value once no later stage and no part of the snapshot needs it. The unit tests check the
//! table itself: every table and value is made before anything reads it.
//! ARCHITECTURE.md's stage table is generated from it ([`markdown`]).

use std::collections::BTreeSet;
use std::time::Instant;

use agentrep_lake::datasets::DailyScoreRow;
use agentrep_lake::{Dataset, Lake};
use agentrep_model::records::SettlementMix;
use agentrep_model::{BuyerTrust, Counterparty, DeployerRecord, SellerRecord, SnapshotInput};
use chrono::NaiveDate;

use crate::carry::{self, Fold};
use crate::carry_pairs;
use crate::directory::{self, Directory};
use crate::engine::Engine;
use crate::graph::WalletGraph;
use crate::live_basis::LiveInputs;
use crate::passes::{LocalTables, PassEngine, SETTLEMENTS};
use crate::sql_files::{self, SqlFile};
use crate::{
    PipelineError, RebuildOptions, RebuildTimings, SourceFreshness, buyers, deployers, domains, engine, freshness,
    history, sellers, settlement_mix,
};

/// One stage of the rebuild.
#[derive(Debug)]
pub(crate) struct Stage {
    /// Its name in timings (`runs.jsonl`'s passes), logs and errors.
    pub name: &'static str,
    /// What it does, in a few words (the stage table in ARCHITECTURE.md).
    pub does: &'static str,
    /// The carried states it brings up to the day before it runs (each leaves `carried_<name>`),
    /// storing a state when it is due.
    pub carries: &'static [&'static Fold],
    /// The SQL files it runs, in order: it reads what they read (but what an earlier one of them
    /// leaves) and leaves what they leave.
    pub sql: &'static [&'static SqlFile],
    /// The values of earlier stages it reads.
    pub needs: &'static [Product],
    /// The values it makes.
    pub makes: &'static [Product],
    /// The work.
    run: fn(&mut Day<'_>) -> Result<(), PipelineError>,
}

/// A value a stage makes in Rust for the stages after it or for the snapshot.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub(crate) enum Product {
    /// The digest of every input partition up to the day.
    InputDigest,
    /// Which sources are stale.
    Freshness,
    /// The wallet graph with both trust passes run.
    Graph,
    /// Every deployer's record.
    Deployers,
    /// By wallet id, the deployers whose verdict is `AVOID`.
    Avoided,
    /// Every seller's record.
    Sellers,
    /// The facilitators and the oracle's own paying wallets.
    WalletLists,
    /// Known wallets that are not sellers.
    Counterparties,
    /// How each seller was paid in its last 30 days.
    SettlementMix,
    /// The directory: proofs, lists, identities, crawlers, funding chains, listings.
    Directory,
    /// Every launched token's buyer-trust verdict.
    BuyerTrust,
}

impl Product {
    /// Its name in the stage table and errors.
    pub fn name(self) -> &'static str {
        match self {
            Self::InputDigest => "input digest",
            Self::Freshness => "freshness",
            Self::Graph => "wallet graph",
            Self::Deployers => "deployers",
            Self::Avoided => "avoided deployers",
            Self::Sellers => "sellers",
            Self::WalletLists => "wallet lists",
            Self::Counterparties => "counterparties",
            Self::SettlementMix => "settlement mix",
            Self::Directory => "directory",
            Self::BuyerTrust => "buyer trust",
        }
    }

    /// Whether the snapshot carries it (so the runner keeps it to the end).
    fn in_snapshot(self) -> bool {
        !matches!(self, Self::Freshness | Self::Graph | Self::Avoided)
    }
}

/// The rebuild, stage by stage.
pub(crate) const STAGES: &[Stage] = &[
    Stage {
        name: "digest",
        does: "the digest of every input partition up to the day (the snapshot's `inputDigest`)",
        carries: &[],
        sql: &[],
        needs: &[],
        makes: &[Product::InputDigest],
        run: |d| {
            d.input_digest = Some(d.lake.input_digest(d.day)?);
            Ok(())
        },
    },
    Stage {
        name: "freshness",
        does: "which sources are stale on the day, by the sources table's freshness rules",
        carries: &[],
        sql: &[],
        needs: &[],
        makes: &[Product::Freshness],
        run: |d| {
            d.freshness = Some(freshness::check(d.lake, d.day)?);
            Ok(())
        },
    },
    Stage {
        name: "first fundings",
        does: "each wallet's first funding, carried",
        carries: &[&carry::FIRST_FUNDINGS],
        sql: &[],
        needs: &[],
        makes: &[],
        run: |_| Ok(()),
    },
    Stage {
        name: "settlement pass",
        does: "current listings and price bounds, then the settlements attributed and aggregated per seller, pair \
               and payer: the carried pairs brought up to the day with the partitions since (`settlement_pairs`), or \
               every settlement on the pass engine (a cluster, or `--from-scratch`)",
        carries: &[],
        sql: &[&sql_files::LISTINGS, &sql_files::SETTLEMENTS_CARRIED, &sql_files::SETTLEMENTS_DUCKDB],
        needs: &[],
        makes: &[],
        run: |d| {
            d.db.run_file(&sql_files::LISTINGS)?;
            if d.engine.reads_lake_remotely() || d.options.from_scratch {
                if d.options.from_scratch {
                    d.db.carried.push(carry_pairs::NAME, carry::Carried::Recomputed(carry::Recompute::Requested));
                }
                d.engine.run(&SETTLEMENTS, &LocalTables::new(&d.db))
            } else {
                carry_pairs::run(&d.db).map(|_| ())
            }
        },
    },
    Stage {
        name: "seller sql",
        does: "funding, registrations, reviews, receipts, proofs, lists, wallet ids; domains and counted origins",
        carries: &[],
        sql: &[&sql_files::SELLERS, &sql_files::LISTING_DOMAINS, &sql_files::DOMAINS, &sql_files::ORIGINS],
        needs: &[],
        makes: &[],
        run: |d| {
            d.db.run_file(&sql_files::SELLERS)?;
            domains::prepare(&d.db)?;
            d.db.run_file(&sql_files::DOMAINS)?;
            d.db.run_file(&sql_files::ORIGINS)?;
            // From here Rust holds the most (the wallet graph, then every seller's inputs and
            // records): DuckDB's temporary tables move to its spill folder as far as they must.
            d.db.lower_memory_limit(engine::DUCKDB_SCORING_SHARE);
            Ok(())
        },
    },
    Stage {
        name: "trust",
        does: "the wallet graph by wallet id and both trust passes",
        carries: &[],
        sql: &[&sql_files::GRAPH],
        needs: &[],
        makes: &[Product::Graph],
        run: |d| {
            let tolerance = if d.options.exact_trust { 0.0 } else { agentrep_model::trust::TOLERANCE };
            d.graph = Some(WalletGraph::load(&d.db, d.day_end, tolerance)?);
            Ok(())
        },
    },
    Stage {
        name: "deployers",
        does: "every token launch classified, every deployer assessed, taint along first fundings",
        carries: &[],
        sql: &[&sql_files::DEPLOYERS],
        needs: &[Product::Graph],
        makes: &[Product::Deployers, Product::Avoided],
        run: |d| {
            let (deployers, avoided) = deployers::assess(&d.db, d.day, need(&d.graph, Product::Graph)?)?;
            (d.deployers, d.avoided) = (Some(deployers), Some(avoided));
            Ok(())
        },
    },
    Stage {
        name: "sellers",
        does: "each seller's live inputs, features, demand weighing, assessment and live basis",
        carries: &[],
        sql: &[&sql_files::LIVE_BASIS, &sql_files::SELLERS_SELECT, &sql_files::SELLER_EVIDENCE],
        needs: &[Product::Graph, Product::Avoided, Product::Freshness],
        makes: &[Product::Sellers, Product::WalletLists],
        run: assess_sellers,
    },
    Stage {
        name: "history",
        does: "each seller's last 90 days of scores",
        carries: &[],
        sql: &[&sql_files::HISTORY],
        needs: &[Product::Sellers],
        makes: &[],
        run: |d| {
            let sellers = need_mut(&mut d.sellers, Product::Sellers)?;
            history::attach(&d.db, d.day, sellers)
        },
    },
    Stage {
        name: "counterparties",
        does: "known wallets that are not sellers",
        carries: &[],
        sql: &[&sql_files::COUNTERPARTIES],
        needs: &[],
        makes: &[Product::Counterparties],
        run: |d| {
            d.counterparties = Some(sellers::counterparties(&d.db)?);
            Ok(())
        },
    },
    Stage {
        name: "settlement mix",
        does: "each seller's last 30 days by settlement form, builder codes and escrow outcomes",
        carries: &[],
        sql: &[&sql_files::SETTLEMENT_MIX],
        needs: &[],
        makes: &[Product::SettlementMix],
        run: |d| {
            d.settlement_mix = Some(settlement_mix::read(&d.db)?);
            Ok(())
        },
    },
    Stage {
        name: "directory",
        does: "7-day activity and last probes, identities, proofs, lists, crawlers, funding chains, listings",
        carries: &[],
        sql: &[&sql_files::DIRECTORY],
        needs: &[Product::Sellers, Product::Deployers],
        makes: &[Product::Directory],
        run: |d| {
            let sellers = need_mut(&mut d.sellers, Product::Sellers)?;
            d.directory = Some(directory::read(&d.db, sellers, need(&d.deployers, Product::Deployers)?)?);
            Ok(())
        },
    },
    Stage {
        name: "buyer trust",
        does: "every launched token's buyers classed and judged",
        carries: &[&carry::TOKEN_DEPLOYERS, &carry::TOKEN_BUYS],
        sql: &[&sql_files::BUYERS],
        needs: &[Product::Sellers, Product::Deployers, Product::Directory],
        makes: &[Product::BuyerTrust],
        run: |d| {
            let buyer_trust = buyers::assess(
                &d.db,
                need(&d.sellers, Product::Sellers)?,
                need(&d.deployers, Product::Deployers)?,
                need(&d.directory, Product::Directory)?,
            )?;
            d.buyer_trust = Some(buyer_trust);
            Ok(())
        },
    },
    Stage {
        name: "daily_scores",
        does: "the day's scores written to the lake's `daily_scores`, for later days' history",
        carries: &[],
        sql: &[],
        needs: &[Product::Sellers],
        makes: &[],
        run: |d| {
            let rows: Vec<DailyScoreRow> = need(&d.sellers, Product::Sellers)?
                .iter()
                .map(|s| DailyScoreRow {
                    address: s.address.clone(),
                    score: s.assessment.score.map(u32::from),
                    decision: s.assessment.decision.as_str().to_owned(),
                    settlements: s.features.demand.settlements,
                    volume: s.features.demand.volume,
                    methodology: agentrep_model::METHODOLOGY_VERSION.to_owned(),
                })
                .collect();
            d.lake.write_partition(d.day, &rows)?;
            Ok(())
        },
    },
];

/// What the stages share: the day, its connection, and the values they make.
pub(crate) struct Day<'a> {
    db: Engine,
    lake: &'a Lake,
    day: NaiveDate,
    /// The day's end, in seconds since the epoch.
    day_end: i64,
    options: &'a RebuildOptions,
    engine: &'a dyn PassEngine,
    /// Datasets the pass engine reads where the lake lives: no views of this connection.
    elsewhere: Vec<&'static str>,
    input_digest: Option<String>,
    freshness: Option<SourceFreshness>,
    graph: Option<WalletGraph>,
    deployers: Option<Vec<DeployerRecord>>,
    avoided: Option<Vec<bool>>,
    sellers: Option<Vec<SellerRecord>>,
    wallet_lists: Option<(Vec<String>, Vec<String>)>,
    counterparties: Option<Vec<Counterparty>>,
    settlement_mix: Option<Vec<SettlementMix>>,
    directory: Option<Directory>,
    buyer_trust: Option<Vec<BuyerTrust>>,
}

/// A value an earlier stage made.
/// A value an earlier stage made. The runner checks a stage's declared needs before it runs, so
/// this fails only for a stage that reads a value it does not declare.
fn need<T>(slot: &Option<T>, product: Product) -> Result<&T, PipelineError> {
    slot.as_ref().ok_or(PipelineError::StageOrder { stage: "undeclared", product: product.name() })
}

/// [`need`], for a stage that adds to the value (history and the directory add to each seller's
/// record).
fn need_mut<T>(slot: &mut Option<T>, product: Product) -> Result<&mut T, PipelineError> {
    slot.as_mut().ok_or(PipelineError::StageOrder { stage: "undeclared", product: product.name() })
}

impl Day<'_> {
    fn has(&self, product: Product) -> bool {
        match product {
            Product::InputDigest => self.input_digest.is_some(),
            Product::Freshness => self.freshness.is_some(),
            Product::Graph => self.graph.is_some(),
            Product::Deployers => self.deployers.is_some(),
            Product::Avoided => self.avoided.is_some(),
            Product::Sellers => self.sellers.is_some(),
            Product::WalletLists => self.wallet_lists.is_some(),
            Product::Counterparties => self.counterparties.is_some(),
            Product::SettlementMix => self.settlement_mix.is_some(),
            Product::Directory => self.directory.is_some(),
            Product::BuyerTrust => self.buyer_trust.is_some(),
        }
    }

    /// Drops a value nothing later reads (the graph's pairs and per-wallet vectors go before the
    /// passes after the sellers).
    fn discard(&mut self, product: Product) {
        match product {
            Product::Freshness => self.freshness = None,
            Product::Graph => self.graph = None,
            Product::Avoided => self.avoided = None,
            _ => {}
        }
    }

    fn into_input(self) -> Result<SnapshotInput, PipelineError> {
        let missing = |product: Product| PipelineError::StageOrder { stage: "snapshot", product: product.name() };
        let directory = self.directory.ok_or(missing(Product::Directory))?;
        let (facilitators, oracle_payers) = self.wallet_lists.ok_or(missing(Product::WalletLists))?;
        let directory::Directory { proofs, lists, identities, crawlers, funding, listings } = directory;
        Ok(SnapshotInput {
            date: self.day.to_string(),
            input_digest: self.input_digest.ok_or(missing(Product::InputDigest))?,
            sellers: self.sellers.ok_or(missing(Product::Sellers))?,
            deployers: self.deployers.ok_or(missing(Product::Deployers))?,
            counterparties: self.counterparties.ok_or(missing(Product::Counterparties))?,
            settlement_mix: self.settlement_mix.ok_or(missing(Product::SettlementMix))?,
            proofs,
            lists,
            identities,
            crawlers,
            funding,
            listings,
            buyer_trust: self.buyer_trust.ok_or(missing(Product::BuyerTrust))?,
            facilitators,
            oracle_payers,
        })
    }
}

fn assess_sellers(d: &mut Day<'_>) -> Result<(), PipelineError> {
    let graph = need(&d.graph, Product::Graph)?;
    let LiveInputs { window, sellers: live, facilitators, oracle_payers } =
        LiveInputs::read(&d.db, d.lake, graph.seller_wid.len(), d.day_end)?;
    d.db.log_memory("live inputs");
    let freshness = need(&d.freshness, Product::Freshness)?;
    let sellers = sellers::assess(&d.db, graph, need(&d.avoided, Product::Avoided)?, freshness, window, live)?;
    if sellers.is_empty() && d.lake.partitions_up_to(Dataset::Listings, d.day)?.is_empty() {
        return Err(PipelineError::NoListings(d.day));
    }
    (d.sellers, d.wallet_lists) = (Some(sellers), Some((facilitators, oracle_payers)));
    Ok(())
}

/// Runs every stage of [`STAGES`] for `day`, checking each one's declaration.
pub(crate) fn run(
    lake: &Lake,
    day: NaiveDate,
    options: &RebuildOptions,
    engine: &dyn PassEngine,
) -> Result<(SnapshotInput, RebuildTimings), PipelineError> {
    let mut timings = RebuildTimings::default();
    let t = Instant::now();
    let db = Engine::open(lake, day, options.from_scratch)?;
    timings.record("register", t);
    // An engine that reads the lake where it lives reads the pass's remote-only datasets there:
    // they are no views of this connection.
    let elsewhere: Vec<&'static str> = match engine.reads_lake_remotely() {
        true => SETTLEMENTS.remote_only.iter().map(|d| d.name()).collect(),
        false => Vec::new(),
    };
    let day_end = db.day_end();
    let mut d = Day {
        db,
        lake,
        day,
        day_end,
        options,
        engine,
        elsewhere,
        input_digest: None,
        freshness: None,
        graph: None,
        deployers: None,
        avoided: None,
        sellers: None,
        wallet_lists: None,
        counterparties: None,
        settlement_mix: None,
        directory: None,
        buyer_trust: None,
    };
    for (i, stage) in STAGES.iter().enumerate() {
        let t = Instant::now();
        if let Some(product) = stage.needs.iter().find(|p| !d.has(**p)) {
            return Err(PipelineError::StageOrder { stage: stage.name, product: product.name() });
        }
        for fold in stage.carries {
            carry::materialise(&d.db, fold)?;
        }
        let mut left_here: Vec<&str> = Vec::new();
        for file in stage.sql {
            let ignore: Vec<&str> = d.elsewhere.iter().copied().chain(left_here.iter().copied()).collect();
            d.db.require(file, "reads", &ignore)?;
            left_here.extend(file.leaves);
        }
        (stage.run)(&mut d)?;
        for file in stage.sql {
            d.db.require(file, "leaves", &[])?;
        }
        if let Some(product) = stage.makes.iter().find(|p| !d.has(**p)) {
            return Err(PipelineError::StageOrder { stage: stage.name, product: product.name() });
        }
        let later = &STAGES[i + 1..];
        for product in STAGES[..=i].iter().flat_map(|s| s.makes) {
            if !product.in_snapshot() && !later.iter().any(|s| s.needs.contains(product)) {
                d.discard(*product);
            }
        }
        timings.record(stage.name, t);
        d.db.log_memory(stage.name);
    }
    timings.carried = d.db.carried.take();
    Ok((d.into_input()?, timings))
}

/// The lake datasets and the tables a stage reads, and the tables it leaves, from its SQL files'
/// declarations (what one of its files leaves and a later one reads is neither).
fn tables(stage: &Stage) -> (Vec<&'static str>, Vec<&'static str>, Vec<&'static str>) {
    let carried: Vec<String> = stage.carries.iter().map(|f| f.table()).collect();
    let (mut datasets, mut tables, mut leaves) = (BTreeSet::new(), BTreeSet::new(), Vec::new());
    for file in stage.sql {
        for read in file.reads {
            if leaves.contains(read) || carried.iter().any(|c| c == read) {
                continue;
            }
            match Dataset::ALL.iter().any(|d| d.name() == *read) {
                true => datasets.insert(*read),
                false => tables.insert(*read),
            };
        }
        leaves.extend(file.leaves);
    }
    (datasets.into_iter().collect(), tables.into_iter().collect(), leaves)
}

/// The stage table as Markdown (ARCHITECTURE.md's, checked by `tests/e2e/docs.rs`).
pub fn markdown() -> String {
    let code = |names: &[&str]| names.iter().map(|n| format!("`{n}`")).collect::<Vec<_>>().join(", ");
    let mut out = String::from(
        "| # | stage | what it does | carries | SQL files | reads datasets | reads tables | leaves tables | needs | makes |\n\
         |---|---|---|---|---|---|---|---|---|---|\n",
    );
    for (i, stage) in STAGES.iter().enumerate() {
        let (datasets, tables, leaves) = tables(stage);
        let carried: Vec<&str> = stage.carries.iter().map(|f| f.name).collect();
        let files: Vec<&str> = stage.sql.iter().map(|f| f.name).collect();
        let products = |p: &[Product]| p.iter().map(|p| p.name()).collect::<Vec<_>>().join(", ");
        out.push_str(&format!(
            "| {} | {} | {} | {} | {} | {} | {} | {} | {} | {} |\n",
            i + 1,
            stage.name,
            stage.does,
            code(&carried),
            code(&files),
            code(&datasets),
            code(&tables),
            code(&leaves),
            products(stage.needs),
            products(stage.makes),
        ));
    }
    out
}

#[cfg(test)]
mod tests;
