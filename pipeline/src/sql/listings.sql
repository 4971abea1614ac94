-- The listing part of the per-seller inputs: current listings, the sellers they name and the
-- prices they advertise. Placeholders: {day_end} (exclusive), {listing_cutoff}, {suspicious_tlds},
-- {admin_segments}. Every address is lowercased here; listings keep the case they were observed with.
-- Wherever one row is picked among several, the order is total (determinism).

-- Current listings: every claim (resource, wallet, network, asset, price) crawled in the last 30
-- days, at its latest crawl (the prices in force, below, read every crawl). A listing is a claim
-- anyone can make: a URL listed under several wallets, or at several prices, stays listed under
-- each, and which wallet the URL really takes is what its 402s say (`origins.sql`); no claim
-- replaces another because its crawl sorts first. Ties (two marketplaces listing one claim at one
-- time) are broken by every column. `origin` is the URL's scheme and authority, lowercase: what a
-- probe or a paid call reached.
CREATE TEMP TABLE cur AS
SELECT * EXCLUDE (rn) FROM (
    SELECT *,
           caip2(network) AS net,
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

-- The prices in force: a settlement is attributed against the claims in force on its own day
-- (SCORING.md § 1, *Attribution*), so a price change never re-reads history. A claim crawled on
-- day c is in force to day c + 29, as `cur` is on the rebuild's day; a claim's crawls closer than
-- that join into one span [from_day, until_day) of UTC day numbers (a crawl's day is its UTC
-- date, to the microsecond: `epoch` would round a crawl in a day's last half-second into the
-- next). A claim's first span reaches back to day 0: the chain's history is older than any crawl
-- of it, and a claim only ever adds a price to the days it covers, so a dearer claim anyone
-- lists, even before the seller's own, never raises the bound of a day the seller's own claim
-- covers. Every claimed wallet's claims, read from every crawl up to the day (not only today's
-- sellers': the settlement pass's carried state, `settlements_carried.sql`, keeps a wallet whose
-- listings lapsed for the day it is listed again).
CREATE TEMP TABLE claim_spans AS
SELECT address, net, asset, price, CASE WHEN span = 0 THEN 0 ELSE min(day) END AS from_day,
       max(day) + 30 AS until_day FROM (
    SELECT *, sum(CASE WHEN day - prev_day > 30 THEN 1 ELSE 0 END)
                  OVER (PARTITION BY address, net, asset, price ORDER BY day) AS span
    FROM (
        SELECT *, lag(day) OVER (PARTITION BY address, net, asset, price ORDER BY day) AS prev_day FROM (
            SELECT DISTINCT lower(pay_to) AS address,
                   caip2(network) AS net,
                   lower(asset) AS asset, price_atomic AS price, epoch_us(last_seen) // 86400000000 AS day
            FROM listings WHERE last_seen < {day_end}
        )
    )
) GROUP BY address, net, asset, price, span;

-- Advertised prices per seller, network and asset, piecewise by day: on the days
-- [from_day, until_day) a settlement qualifies at no less than the cheapest price in force, and is
-- exact when it equals one of them. The pieces cut where a claim's span starts or ends; a day no
-- claim is in force (every claim lapsed and not crawled again yet) has no piece: its settlements
-- are unattributed. `k` hashes (seller, network, asset) so the ten-million-row join below
-- compares integers.
CREATE TEMP TABLE price_bounds AS
WITH cuts AS (
    SELECT address, net, asset, from_day AS day FROM claim_spans
    UNION SELECT address, net, asset, until_day FROM claim_spans
), pieces AS (
    SELECT * FROM (
        SELECT address, net, asset, day AS from_day,
               lead(day) OVER (PARTITION BY address, net, asset ORDER BY day) AS until_day
        FROM cuts
    ) WHERE until_day IS NOT NULL
)
SELECT hash(p.address, p.net, p.asset) AS k, p.address, p.net, p.asset, p.from_day, p.until_day,
       min(c.price) AS min_price, list(DISTINCT c.price ORDER BY c.price) AS prices
FROM pieces p JOIN claim_spans c
  ON c.address = p.address AND c.net = p.net AND c.asset = p.asset
 AND c.from_day <= p.from_day AND p.until_day <= c.until_day
GROUP BY ALL;

DROP TABLE claim_spans;

CREATE TEMP TABLE facilitators AS
SELECT DISTINCT lower(address) AS address FROM entity_labels WHERE entity = 'facilitator' AND added_at < {day_end};

-- The oracle's own wallets: every payer of its paid calls. Their settlements are its paid probes
-- (judged as such, `origins.sql`), no seller's demand, and they are nobody's counterparty:
-- `settlements.sql` leaves them out of every table it makes.
CREATE TEMP TABLE oracle_payers AS
SELECT DISTINCT lower(payer) AS address FROM paid_probes WHERE payer <> '' AND probed_at < {day_end};
