-- The listing part of the per-seller inputs: current listings, the sellers they name and the
-- prices they advertise. Placeholders: {day_end} (exclusive), {listing_cutoff}, {suspicious_tlds},
-- {admin_segments}. Every address is lowercased here; listings keep the case they were observed with.
-- Wherever one row is picked among several, the order is total (determinism).

-- Current listings: every claim (resource, wallet, network, asset, price) crawled in the last 30
-- days (so only the crawls of those days are read), at its latest crawl. A listing is a claim
-- anyone can make: a URL listed under several wallets, or at several prices, stays listed under
-- each, and which wallet the URL really takes is what its 402s say (`origins.sql`); no claim
-- replaces another because its crawl sorts first. Ties (two marketplaces listing one claim at one
-- time) are broken by every column. `origin` is the URL's scheme and authority, lowercase: what a
-- probe or a paid call reached.
CREATE TEMP TABLE cur AS
SELECT * EXCLUDE (rn) FROM (
    SELECT *,
           CASE network WHEN 'base' THEN 'eip155:8453' WHEN 'base-sepolia' THEN 'eip155:84532' ELSE network END AS net,
           lower(regexp_extract(trim(resource), '^[A-Za-z][A-Za-z0-9+.-]*://[^/?#]*')) AS origin,
           row_number() OVER (PARTITION BY resource, lower(pay_to), net, lower(asset), price_atomic
                              ORDER BY last_seen DESC, pay_to, network, asset, ecosystem, first_seen,
                                       description NULLS LAST) AS rn
    FROM listings WHERE last_seen >= {listing_cutoff} AND last_seen < {day_end}
) WHERE rn = 1;

CREATE TEMP TABLE seller_listing AS
SELECT lower(pay_to) AS address,
       count(DISTINCT resource) AS listing_count,
       count(DISTINCT pay_to) AS case_variants,
       epoch(min(first_seen))::BIGINT AS first_seen,
       min(price_atomic) AS price,
       count(DISTINCT price_atomic) AS price_points,
       arg_min(resource, (first_seen, resource)) AS resource,
       string_agg(DISTINCT resource, ' ' ORDER BY resource) AS resources,
       arg_min(description, (first_seen, resource)) AS description,
       arg_min(ecosystem, (first_seen, resource)) AS ecosystem,
       arg_min(network, (first_seen, resource)) AS network,
       arg_min(asset, (first_seen, resource)) AS asset
FROM cur GROUP BY 1;

CREATE TEMP TABLE seller_tags AS
SELECT address, string_agg(tag, ',' ORDER BY tag) AS tags, count(*) AS tag_count FROM (
    SELECT DISTINCT lower(pay_to) AS address, unnest(tags) AS tag FROM cur
) GROUP BY 1;

-- Each wallet's listed resources, once each, with their origins: what probes and paid calls join.
CREATE TEMP TABLE wallet_resources AS
SELECT DISTINCT lower(pay_to) AS address, resource, origin FROM cur;

CREATE TEMP TABLE seller_ids AS
SELECT address, row_number() OVER (ORDER BY address)::UINTEGER AS sid FROM seller_listing;

-- Advertised prices per seller, network and asset: a settlement qualifies at no less than the
-- cheapest price listed for its network and asset, and is exact when it equals one of them.
-- `k` hashes (seller, network, asset) so the ten-million-row join below compares integers.
CREATE TEMP TABLE price_bounds AS
SELECT hash(lower(pay_to), net, lower(asset)) AS k, lower(pay_to) AS address, net, lower(asset) AS asset,
       min(price_atomic) AS min_price, list(DISTINCT price_atomic ORDER BY price_atomic) AS prices
FROM cur GROUP BY ALL;

CREATE TEMP TABLE facilitators AS
SELECT DISTINCT lower(address) AS address FROM entity_labels WHERE entity = 'facilitator' AND added_at < {day_end};

-- The oracle's own wallets: every payer of its paid calls. Their settlements are its paid probes
-- (judged as such, `origins.sql`), no seller's demand, and they are nobody's counterparty:
-- `settlements.sql` leaves them out of every table it makes.
CREATE TEMP TABLE oracle_payers AS
SELECT DISTINCT lower(payer) AS address FROM paid_probes WHERE payer <> '' AND probed_at < {day_end};
