-- The directory pass (`directory.rs`): what the free reads show beside scores. Nothing here feeds
-- the model.

-- name: identities
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
ORDER BY r.agent_id

-- name: profiles
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
ORDER BY i.address

-- name: proofs
SELECT lower(address) AS address, proof_type, arg_min(source, (verified_at, source)) AS source,
       epoch(min(verified_at))::BIGINT AS verified_at
FROM identity_proofs WHERE verified_at < {day_end}
GROUP BY 1, 2 ORDER BY 2, 1

-- name: lists
SELECT lower(address) AS address, list, arg_min(source, (added_at, source)) AS source,
       arg_min(category, (added_at, category)) AS category, epoch(min(added_at))::BIGINT AS added_at
FROM address_lists WHERE added_at < {day_end}
GROUP BY 1, 2 ORDER BY 2, 1

-- name: crawlers
SELECT r.source_url, r.ecosystem, r.runs::UINTEGER AS runs, r.failed::UINTEGER AS failed_runs,
       r.last_run AS last_run_at, r.last_error, r.last_items, coalesce(a.addresses, 0)::UINTEGER AS addresses
FROM (
    SELECT source_url, arg_max(ecosystem, finished_at) AS ecosystem, count(*) AS runs,
           count(*) FILTER (WHERE error IS NOT NULL) AS failed, epoch(max(finished_at))::BIGINT AS last_run,
           arg_max(error, finished_at) AS last_error, arg_max(items, finished_at) AS last_items
    FROM crawl_runs WHERE finished_at < {day_end} GROUP BY 1
) r
LEFT JOIN (SELECT ecosystem, count(DISTINCT lower(pay_to)) AS addresses FROM cur GROUP BY 1) a USING (ecosystem)
ORDER BY 1

-- name: listings
-- Every current listing (seen in the listing window, as `cur`), one row per resource, payTo,
-- network and asset at its newest crawl: unlike `cur`, which keeps one listing per resource, a
-- resource that two wallets list keeps both, so a URL preflight can tell a decoy from a seller
-- that someone else also listed.
SELECT resource, pay_to, net AS network, asset, price, ecosystem, first_seen, last_seen FROM (
    SELECT resource,
           arg_max(pay_to, (last_seen, pay_to, ecosystem, price_atomic)) AS pay_to,
           caip2(network) AS net,
           lower(asset) AS asset,
           arg_max(price_atomic, (last_seen, pay_to, ecosystem, price_atomic))::UBIGINT AS price,
           arg_max(ecosystem, (last_seen, pay_to, ecosystem, price_atomic)) AS ecosystem,
           epoch(min(first_seen))::BIGINT AS first_seen,
           epoch(max(last_seen))::BIGINT AS last_seen
    FROM listings WHERE last_seen >= {listing_cutoff} AND last_seen < {day_end}
    GROUP BY resource, lower(pay_to), net, lower(asset)
)
ORDER BY resource, lower(pay_to), network, asset

-- name: funding_roots
-- The wallets whose funding chains `/funded-by` answers (the sellers and deployers), filled from
-- Rust.
CREATE OR REPLACE TEMP TABLE funding_roots (address VARCHAR)

-- name: funding_chains
-- The first fundings of the wallets in `funding_roots` and of their funders, `{max_hops}` hops
-- back (the root's own funding is the first), in funded order. The chains are walked here, so
-- only the kept rows leave DuckDB (`first_funder` has a row for every funded wallet: tens of
-- millions at ten times the benchmark scale).
WITH RECURSIVE chain(wallet, hop) AS (
    SELECT address, 1 FROM funding_roots
    UNION
    SELECT f.funder, c.hop + 1 FROM chain c JOIN first_funder f ON f.funded = c.wallet WHERE c.hop < {max_hops}
)
SELECT f.funded, f.funder, f.amount, f.t AS first_funded_at FROM first_funder f SEMI JOIN chain c ON f.funded = c.wallet
ORDER BY f.funded

-- name: drop_funding_roots
DROP TABLE funding_roots
