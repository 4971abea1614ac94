//! The directory pass: what the free reads show beside scores (7-day activity, the last probe,
//! ERC-8004 identities and cards, identity proofs, the lists, crawl sources, first fundings).
//! Read after the seller pass, from its temporary tables and the lake views; nothing here feeds
//! the model.

use std::collections::HashMap;

use agentrep_model::trust::MAX_FUNDING_HOPS;
use agentrep_model::{
    AgentIdentity, CrawlerRecord, DeployerRecord, FundingRecord, ListedAddress, ProbeSummary, ProofRecord,
    ResourceListing, SellerProfile, SellerRecord,
};

use crate::PipelineError;
use crate::engine::{Engine, query};
use crate::sql_files::DIRECTORY;

/// Everything the directory pass reads, besides the per-seller profiles it attaches.
#[derive(Debug, Default)]
pub(crate) struct Directory {
    pub proofs: Vec<ProofRecord>,
    pub lists: Vec<ListedAddress>,
    pub identities: Vec<AgentIdentity>,
    pub crawlers: Vec<CrawlerRecord>,
    pub funding: Vec<FundingRecord>,
    pub listings: Vec<ResourceListing>,
}

/// Reads the directory and attaches each seller's profile.
pub(crate) fn read(
    db: &Engine,
    sellers: &mut [SellerRecord],
    deployers: &[DeployerRecord],
) -> Result<Directory, PipelineError> {
    let identities = query(db, "identities", DIRECTORY.section("identities")?, |r| {
        Ok(AgentIdentity {
            agent_id: r.get("agent_id")?,
            owner: r.get("owner")?,
            agent_wallet: r.get("agent_wallet")?,
            uri: r.get("uri")?,
            registered_at: r.get("registered_at")?,
            name: r.get("name")?,
            links_back: r.get("links_back")?,
            card_fetched_at: r.get("card_fetched_at")?,
            card_error: r.get("card_error")?,
        })
    })?;
    let by_wallet: HashMap<&str, &AgentIdentity> = identities
        .iter()
        .filter_map(|i| Some((i.agent_wallet.as_deref()?, i)))
        .fold(HashMap::new(), |mut m, (w, i)| {
            // The lowest agent id names a wallet that several registrations declare.
            m.entry(w).or_insert(i);
            m
        });
    let profiles = query(db, "profiles", DIRECTORY.section("profiles")?, |r| {
        let probed_at: Option<i64> = r.get("probed_at")?;
        Ok((
            r.get::<_, String>("address")?,
            SellerProfile {
                earned_7d: r.get("earned_7d")?,
                settlements_7d: r.get("settlements_7d")?,
                buyers_7d: r.get("buyers_7d")?,
                last_settlement_at: r.get("last_settlement_at")?,
                last_probe: match probed_at {
                    Some(probed_at) => {
                        Some(ProbeSummary { probed_at, status: r.get("status")?, error: r.get("error")? })
                    }
                    None => None,
                },
                identity: None,
            },
        ))
    })?;
    let mut profiles: HashMap<String, SellerProfile> = profiles.into_iter().collect();
    for s in sellers.iter_mut() {
        let mut profile = profiles.remove(&s.address).unwrap_or_default();
        profile.identity = by_wallet.get(s.address.as_str()).map(|i| (*i).clone());
        s.profile = profile;
    }
    let proofs = query(db, "proofs", DIRECTORY.section("proofs")?, |r| {
        Ok(ProofRecord {
            address: r.get("address")?,
            proof_type: r.get("proof_type")?,
            source: r.get("source")?,
            verified_at: r.get("verified_at")?,
        })
    })?;
    let lists = query(db, "lists", DIRECTORY.section("lists")?, |r| {
        Ok(ListedAddress {
            address: r.get("address")?,
            list: r.get("list")?,
            source: r.get("source")?,
            category: r.get("category")?,
            added_at: r.get("added_at")?,
        })
    })?;
    let crawlers = query(db, "crawlers", DIRECTORY.section("crawlers")?, |r| {
        Ok(CrawlerRecord {
            source_url: r.get("source_url")?,
            ecosystem: r.get("ecosystem")?,
            runs: r.get("runs")?,
            failed_runs: r.get("failed_runs")?,
            last_run_at: r.get("last_run_at")?,
            last_error: r.get("last_error")?,
            last_items: r.get("last_items")?,
            addresses: r.get("addresses")?,
        })
    })?;
    let roots = sellers.iter().map(|s| s.address.as_str()).chain(deployers.iter().map(|d| d.address.as_str()));
    let funding = funding_chains(&db.conn, roots)?;
    let listings = query(db, "listings", DIRECTORY.section("listings")?, |r| {
        Ok(ResourceListing {
            resource: r.get("resource")?,
            pay_to: r.get("pay_to")?,
            network: r.get("network")?,
            asset: r.get("asset")?,
            price: r.get("price")?,
            ecosystem: r.get("ecosystem")?,
            first_seen: r.get("first_seen")?,
            last_seen: r.get("last_seen")?,
        })
    })?;
    Ok(Directory { proofs, lists, identities, crawlers, funding, listings })
}

/// The first fundings of `roots` and of their funders, [`MAX_FUNDING_HOPS`] hops back, in funded
/// order (`directory.sql`'s `funding_chains` over `first_funder`): what `/funded-by` answers
/// without publishing every wallet's funding.
fn funding_chains<'a>(
    conn: &duckdb::Connection,
    roots: impl Iterator<Item = &'a str>,
) -> Result<Vec<FundingRecord>, PipelineError> {
    let err = |source| PipelineError::Duckdb { pass: "funding", source };
    conn.execute_batch(DIRECTORY.section("funding_roots")?).map_err(err)?;
    let mut appender = conn.appender("funding_roots").map_err(err)?;
    for root in roots {
        appender.append_row([root]).map_err(err)?;
    }
    appender.flush().map_err(err)?;
    drop(appender);
    let sql = DIRECTORY.section("funding_chains")?.replace("{max_hops}", &MAX_FUNDING_HOPS.to_string());
    let started = std::time::Instant::now();
    let mut stmt = conn.prepare(&sql).map_err(err)?;
    let chains = stmt
        .query_map([], |r| {
            Ok(FundingRecord {
                funded: r.get("funded")?,
                funder: r.get("funder")?,
                amount: r.get("amount")?,
                first_funded_at: r.get("first_funded_at")?,
            })
        })
        .map_err(err)?
        .collect::<duckdb::Result<Vec<_>>>()
        .map_err(err)?;
    tracing::debug!(target: "pipeline::sql", pass = "funding", ms = started.elapsed().as_millis() as u64, rows = chains.len(), "Query done.");
    conn.execute_batch(DIRECTORY.section("drop_funding_roots")?).map_err(err)?;
    Ok(chains)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn funding_chains_keep_each_roots_first_fundings_up_its_chain_and_nothing_else() {
        let conn = duckdb::Connection::open_in_memory().unwrap();
        conn.execute_batch("CREATE TABLE first_funder (funded VARCHAR, funder VARCHAR, t BIGINT, amount UBIGINT)")
            .unwrap();
        // A chain w0 <- w1 <- ... longer than the hops kept, a two-wallet cycle, and a stranger.
        let hops = MAX_FUNDING_HOPS;
        let mut rows: Vec<(String, String)> = (0..hops + 2).map(|i| (format!("w{i}"), format!("w{}", i + 1))).collect();
        rows.extend([("x".into(), "y".into()), ("y".into(), "x".into()), ("z".into(), "w0".into())]);
        for (i, (funded, funder)) in rows.iter().enumerate() {
            conn.execute(
                "INSERT INTO first_funder VALUES (?, ?, ?, ?)",
                duckdb::params![funded, funder, i as i64, 7u64],
            )
            .unwrap();
        }
        let kept = funding_chains(&conn, ["w0", "x", "nobody", "x"].into_iter()).unwrap();
        let funded: Vec<&str> = kept.iter().map(|f| f.funded.as_str()).collect();
        let mut expected: Vec<String> = (0..hops).map(|i| format!("w{i}")).chain(["x".into(), "y".into()]).collect();
        expected.sort();
        assert_eq!(funded, expected, "the root and its funders up to {hops} wallets, each once, in funded order");
        assert_eq!((kept[0].funder.as_str(), kept[0].amount, kept[0].first_funded_at), ("w1", 7, 0));
    }
}
