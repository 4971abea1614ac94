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

const PROFILE_SQL: &str = "
SELECT i.address, coalesce(a.earned_7d, 0)::UBIGINT AS earned_7d,
       coalesce(a.settlements_7d, 0)::UBIGINT AS settlements_7d, coalesce(a.buyers_7d, 0)::UINTEGER AS buyers_7d,
       a.last_t AS last_settlement_at, lp.probed_at, lp.status, lp.error
FROM seller_ids i
LEFT JOIN seller_recent a USING (sid)
LEFT JOIN (
    SELECT lower(c.pay_to) AS address,
           epoch(max(p.probed_at))::BIGINT AS probed_at,
           arg_max(p.status, (p.probed_at, p.resource)) AS status,
           arg_max(p.error, (p.probed_at, p.resource)) AS error
    FROM probes p JOIN cur c USING (resource)
    WHERE p.probed_at < {day_end} GROUP BY 1
) lp USING (address)
ORDER BY i.address";

const IDENTITIES_SQL: &str = "
SELECT r.agent_id, lower(r.owner) AS owner, lower(r.agent_wallet) AS agent_wallet, r.registration_uri AS uri,
       epoch(r.registered_at)::BIGINT AS registered_at, c.name, coalesce(c.links_back, false) AS links_back,
       c.fetched_at AS card_fetched_at, c.error AS card_error
FROM (
    SELECT * EXCLUDE (rn) FROM (
        SELECT *, row_number() OVER (PARTITION BY agent_id ORDER BY registered_at DESC, registration_uri DESC) AS rn
        FROM erc8004_registrations WHERE registered_at < {day_end}
    ) WHERE rn = 1
) r
LEFT JOIN (
    SELECT agent_id, arg_max(name, (fetched_at, uri)) AS name, arg_max(links_back, (fetched_at, uri)) AS links_back,
           epoch(max(fetched_at))::BIGINT AS fetched_at, arg_max(error, (fetched_at, uri)) AS error
    FROM agent_cards WHERE fetched_at < {day_end} GROUP BY 1
) c USING (agent_id)
ORDER BY r.agent_id";

const PROOFS_SQL: &str = "
SELECT lower(address) AS address, proof_type, arg_min(source, (verified_at, source)) AS source,
       epoch(min(verified_at))::BIGINT AS verified_at
FROM identity_proofs WHERE verified_at < {day_end}
GROUP BY 1, 2 ORDER BY 2, 1";

const LISTS_SQL: &str = "
SELECT lower(address) AS address, list, arg_min(source, (added_at, source)) AS source,
       arg_min(category, (added_at, category)) AS category, epoch(min(added_at))::BIGINT AS added_at
FROM address_lists WHERE added_at < {day_end}
GROUP BY 1, 2 ORDER BY 2, 1";

const CRAWLERS_SQL: &str = "
SELECT r.source_url, r.ecosystem, r.runs::UINTEGER AS runs, r.failed::UINTEGER AS failed_runs,
       r.last_run AS last_run_at, r.last_error, r.last_items, coalesce(a.addresses, 0)::UINTEGER AS addresses
FROM (
    SELECT source_url, arg_max(ecosystem, finished_at) AS ecosystem, count(*) AS runs,
           count(*) FILTER (WHERE error IS NOT NULL) AS failed, epoch(max(finished_at))::BIGINT AS last_run,
           arg_max(error, finished_at) AS last_error, arg_max(items, finished_at) AS last_items
    FROM crawl_runs WHERE finished_at < {day_end} GROUP BY 1
) r
LEFT JOIN (SELECT ecosystem, count(DISTINCT lower(pay_to)) AS addresses FROM cur GROUP BY 1) a USING (ecosystem)
ORDER BY 1";

/// The first fundings of the wallets in `funding_roots` (the sellers and deployers) and of their
/// funders, `{max_hops}` hops back (the root's own funding is the first), in funded order:
/// what `/funded-by` answers without publishing every wallet's funding. The chains are walked
/// here, so only the kept rows leave DuckDB (`first_funder` has a row for every funded wallet:
/// tens of millions at ten times the benchmark scale).
const FUNDING_CHAINS_SQL: &str = "
WITH RECURSIVE chain(wallet, hop) AS (
    SELECT address, 1 FROM funding_roots
    UNION
    SELECT f.funder, c.hop + 1 FROM chain c JOIN first_funder f ON f.funded = c.wallet WHERE c.hop < {max_hops}
)
SELECT f.funded, f.funder, f.amount, f.t AS first_funded_at FROM first_funder f SEMI JOIN chain c ON f.funded = c.wallet
ORDER BY f.funded";

/// Reads the directory and attaches each seller's profile.
pub(crate) fn read(
    db: &Engine,
    sellers: &mut [SellerRecord],
    deployers: &[DeployerRecord],
) -> Result<Directory, PipelineError> {
    let identities = query(db, "identities", IDENTITIES_SQL, |r| {
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
    let profiles = query(db, "profiles", PROFILE_SQL, |r| {
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
    let proofs = query(db, "proofs", PROOFS_SQL, |r| {
        Ok(ProofRecord {
            address: r.get("address")?,
            proof_type: r.get("proof_type")?,
            source: r.get("source")?,
            verified_at: r.get("verified_at")?,
        })
    })?;
    let lists = query(db, "lists", LISTS_SQL, |r| {
        Ok(ListedAddress {
            address: r.get("address")?,
            list: r.get("list")?,
            source: r.get("source")?,
            category: r.get("category")?,
            added_at: r.get("added_at")?,
        })
    })?;
    let crawlers = query(db, "crawlers", CRAWLERS_SQL, |r| {
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
    let funding =
        funding_chains(&db.conn, roots).map_err(|source| PipelineError::Duckdb { pass: "funding", source })?;
    let listings = query(db, "listings", LISTINGS_SQL, |r| {
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

/// Every current listing (seen in the listing window, as `cur`), one row per resource, payTo,
/// network and asset at its newest crawl: unlike `cur`, which keeps one listing per resource, a
/// resource that two wallets list keeps both, so a URL preflight can tell a decoy from a seller
/// that someone else also listed. Columns are read by name.
const LISTINGS_SQL: &str = "
SELECT resource, pay_to, net AS network, asset, price, ecosystem, first_seen, last_seen FROM (
    SELECT resource,
           arg_max(pay_to, (last_seen, pay_to, ecosystem, price_atomic)) AS pay_to,
           CASE network WHEN 'base' THEN 'eip155:8453' WHEN 'base-sepolia' THEN 'eip155:84532' ELSE network END AS net,
           lower(asset) AS asset,
           arg_max(price_atomic, (last_seen, pay_to, ecosystem, price_atomic))::UBIGINT AS price,
           arg_max(ecosystem, (last_seen, pay_to, ecosystem, price_atomic)) AS ecosystem,
           epoch(min(first_seen))::BIGINT AS first_seen,
           epoch(max(last_seen))::BIGINT AS last_seen
    FROM listings WHERE last_seen >= {listing_cutoff} AND last_seen < {day_end}
    GROUP BY resource, lower(pay_to), net, lower(asset)
)
ORDER BY resource, lower(pay_to), network, asset";

/// The first fundings of `roots` and of their funders, [`MAX_FUNDING_HOPS`] hops back,
/// in funded order (`FUNDING_CHAINS_SQL` over `first_funder`).
fn funding_chains<'a>(
    conn: &duckdb::Connection,
    roots: impl Iterator<Item = &'a str>,
) -> duckdb::Result<Vec<FundingRecord>> {
    conn.execute_batch("CREATE OR REPLACE TEMP TABLE funding_roots (address VARCHAR)")?;
    let mut appender = conn.appender("funding_roots")?;
    for root in roots {
        appender.append_row([root])?;
    }
    appender.flush()?;
    drop(appender);
    let sql = FUNDING_CHAINS_SQL.replace("{max_hops}", &MAX_FUNDING_HOPS.to_string());
    let started = std::time::Instant::now();
    let mut stmt = conn.prepare(&sql)?;
    let chains = stmt
        .query_map([], |r| {
            Ok(FundingRecord {
                funded: r.get("funded")?,
                funder: r.get("funder")?,
                amount: r.get("amount")?,
                first_funded_at: r.get("first_funded_at")?,
            })
        })?
        .collect::<duckdb::Result<Vec<_>>>()?;
    tracing::debug!(target: "pipeline::sql", pass = "funding", ms = started.elapsed().as_millis() as u64, rows = chains.len(), "Query done.");
    conn.execute_batch("DROP TABLE funding_roots")?;
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
