-- Per-seller inputs for one day. Placeholders: {day_end} (exclusive), {day_end_epoch}, {d1}, {d30},
-- {d30_epoch}, {d7}, {listing_cutoff}, {suspicious_tlds}, {admin_segments}, {hub_min_fanout}, {hub_min_amount},
-- {hub_min_days}. Every address is lowercased here; listings keep the case they were observed with.
-- Wherever one row is picked among several, the order is total (determinism).

-- Current listings: the latest crawl of each resource, if seen in the last 30 days (so only the
-- crawls of those days are read: a resource's latest crawl is among them or it is not current).
-- Ties (two marketplaces listing one URL at one time) are broken by every column.
CREATE TEMP TABLE cur AS
SELECT * EXCLUDE (rn) FROM (
    SELECT *,
           CASE network WHEN 'base' THEN 'eip155:8453' WHEN 'base-sepolia' THEN 'eip155:84532' ELSE network END AS net,
           row_number() OVER (PARTITION BY resource
                              ORDER BY last_seen DESC, pay_to, network, asset, price_atomic, ecosystem, first_seen,
                                       description NULLS LAST) AS rn
    FROM listings WHERE last_seen >= {listing_cutoff} AND last_seen < {day_end}
) WHERE rn = 1;

CREATE TEMP TABLE seller_listing AS
SELECT lower(pay_to) AS address,
       count(*) AS listing_count,
       count(DISTINCT pay_to) AS case_variants,
       epoch(min(first_seen))::BIGINT AS first_seen,
       min(price_atomic) AS price,
       count(DISTINCT price_atomic) AS price_points,
       arg_min(resource, (first_seen, resource)) AS resource,
       string_agg(resource, ' ' ORDER BY first_seen, resource) AS resources,
       arg_min(description, (first_seen, resource)) AS description,
       arg_min(ecosystem, (first_seen, resource)) AS ecosystem,
       arg_min(network, (first_seen, resource)) AS network,
       arg_min(asset, (first_seen, resource)) AS asset,
       bool_or(regexp_matches(lower(resource), '^https?://[^/:]+\.({suspicious_tlds})(:[0-9]+)?(/|$)')) AS suspicious_tld,
       bool_or(regexp_matches(lower(resource), '/({admin_segments})(/|[?#]|$)')) AS admin_path
FROM cur GROUP BY 1;

CREATE TEMP TABLE seller_tags AS
SELECT address, string_agg(tag, ',' ORDER BY tag) AS tags, count(*) AS tag_count FROM (
    SELECT DISTINCT lower(pay_to) AS address, unnest(tags) AS tag FROM cur
) GROUP BY 1;

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

-- Every transfer to a listed seller, with its attribution. `q` marks qualifying settlements:
-- facilitator-settled EIP-3009 payments on a listed network and asset at no less than an
-- advertised price. Only these are demand; the passes below read `WHERE q`. Narrow on purpose (no
-- string but the payer): at bench scale it holds ten million rows.
CREATE TEMP TABLE s AS
SELECT payer, hash(payer) AS payer_h, sid, value, t, exact, hash(tx_hash) AS tx_h,
       attributed AND value >= min_price AS q,
       attributed AND value < min_price AS below_price
FROM (
    SELECT st.payer, i.sid, st.value, st.tx_hash, epoch(st.block_time)::BIGINT AS t,
           coalesce(st.eip3009 AND f.address IS NOT NULL AND b.min_price IS NOT NULL, false) AS attributed,
           b.min_price, coalesce(list_contains(b.prices, st.value), false) AS exact
    FROM settlements st
    JOIN seller_ids i ON st.pay_to = i.address
    LEFT JOIN facilitators f ON f.address = st.facilitator
    LEFT JOIN price_bounds b ON b.k = hash(st.pay_to, st.network, st.asset)
    WHERE st.block_time < {day_end}
);

CREATE TEMP TABLE nonq AS
SELECT i.address, count(*) FILTER (WHERE NOT below_price) AS unattributed, count(*) FILTER (WHERE below_price) AS below_price
FROM s JOIN seller_ids i USING (sid) WHERE NOT q GROUP BY 1;

-- Per (seller, payer): payments, spend, first and last time, and a bit mask of the days (of the
-- last 30) it paid on.
CREATE TEMP TABLE pp AS
SELECT sid, payer_h, any_value(payer) AS payer, count(*) AS n,
       sum(value)::UBIGINT AS spend, min(t) AS first_t, max(t) AS last_t,
       bit_or(CASE WHEN t >= {d30_epoch} THEN (1::UBIGINT << ((t - {d30_epoch}) // 86400)::INTEGER) ELSE 0::UBIGINT END) AS mask30
FROM s WHERE q GROUP BY sid, payer_h;

CREATE TEMP TABLE settle AS
SELECT i.address, a.* EXCLUDE (sid) FROM (
    SELECT sid,
           count(*) AS settlements,
           count(*) FILTER (WHERE t >= {d30_epoch}) AS settlements_30d,
           sum(value)::UBIGINT AS volume,
           count(*) FILTER (WHERE exact) / count(*) AS exact_price_share,
           count(*) FILTER (WHERE exact) AS exact_settlements
    FROM s WHERE q GROUP BY 1
) a JOIN seller_ids i USING (sid);

-- Regularity: per (seller, payer) with >= 5 payments, the coefficient of variation of the gaps;
-- the seller's value is the median over its payers. Exact integer sums (determinism). Computed
-- only for sellers the `metronome-payments` check applies to (>= 10 qualifying settlements, >= 95%
-- at an advertised price): the window over every payment is the costliest statement here.
CREATE TEMP TABLE cadence AS
SELECT i.address, c.interval_cv FROM (
    SELECT sid, median(cv) AS interval_cv FROM (
        SELECT sid, payer_h,
               sqrt((count(*) * sum(gap * gap) - sum(gap) * sum(gap))::DOUBLE) / nullif(sum(gap), 0)::DOUBLE AS cv
        FROM (
            SELECT sid, payer_h, (t - lag(t) OVER (PARTITION BY sid, payer_h ORDER BY t))::HUGEINT AS gap
            FROM s SEMI JOIN (
                SELECT sid, payer_h FROM pp SEMI JOIN (
                    SELECT i.sid FROM settle JOIN seller_ids i USING (address)
                    WHERE settlements >= 10 AND exact_price_share >= 0.95
                ) m USING (sid) WHERE n >= 5
            ) USING (sid, payer_h) WHERE q
        ) WHERE gap IS NOT NULL GROUP BY ALL
    ) GROUP BY 1
) c JOIN seller_ids i USING (sid);

-- Funding: the first funder of each wallet, carried from day to day (`carry::FIRST_FUNDINGS`).
CREATE TEMP TABLE first_funder AS
SELECT funded, funder, epoch(first_funded_at)::BIGINT AS t, amount FROM carried_first_fundings;
DROP TABLE carried_first_fundings;

-- Hubs: labelled infrastructure, and wallets that first-funded many wallets with real amounts on
-- many days (dust fan-out does not make a hub).
CREATE TEMP TABLE hubs AS
SELECT DISTINCT lower(address) AS address FROM entity_labels WHERE added_at < {day_end}
UNION
SELECT funder FROM first_funder WHERE amount >= {hub_min_amount}
GROUP BY funder HAVING count(*) >= {hub_min_fanout} AND count(DISTINCT t // 86400) >= {hub_min_days};

-- ERC-8004: registrations whose agentWallet is the seller, and their non-revoked feedback with
-- values in 0..=100 (out-of-range values are excluded, not clamped). v is the rating in
-- millionths of a point.
CREATE TEMP TABLE reg AS
SELECT agent_id, lower(agent_wallet) AS address FROM erc8004_registrations
WHERE registered_at < {day_end} AND agent_wallet IS NOT NULL;

CREATE TEMP TABLE fb AS
SELECT i.sid, lower(f.client) AS client, epoch(f.block_time)::BIGINT AS t,
       (f.value * pow(10, 6 - f.value_decimals))::HUGEINT AS v
FROM erc8004_feedback f JOIN reg r USING (agent_id) JOIN seller_ids i ON i.address = r.address
WHERE NOT f.revoked AND f.block_time < {day_end};

-- Receipts naming a seller; tx_payer is the payer of the qualifying settlement the receipt cites
-- (matched by a 64-bit hash of the transaction hash, kept in `s` for this).
CREATE TEMP TABLE cited AS
SELECT s.tx_h, s.sid, min(s.payer) AS payer FROM s
WHERE s.q AND s.tx_h IN (SELECT hash(lower(tx_hash)) FROM receipts WHERE tx_hash IS NOT NULL AND received_at < {day_end})
GROUP BY 1, 2;

CREATE TEMP TABLE rc AS
SELECT i.sid, lower(r.buyer) AS buyer, r.success, epoch(r.received_at)::BIGINT AS t, r.tx_hash IS NOT NULL AS cites,
       q.payer AS tx_payer
FROM receipts r JOIN seller_ids i ON i.address = lower(r.agent)
LEFT JOIN cited q ON q.sid = i.sid AND q.tx_h = hash(lower(r.tx_hash))
WHERE r.received_at < {day_end};

CREATE TEMP TABLE proofs AS
SELECT lower(address) AS address, string_agg(DISTINCT proof_type, ',' ORDER BY proof_type) AS proof_types
FROM identity_proofs WHERE verified_at < {day_end} GROUP BY 1;

-- Sellers with an operator attestation signed in the 24 hours up to the day's end (the `attested`
-- tier); attestations reach the lake from the server's store through `agentrep export-store`.
CREATE TEMP TABLE attested AS
SELECT DISTINCT lower(address) AS address FROM attestations WHERE signed_at >= {d1} AND signed_at < {day_end};

CREATE TEMP TABLE lists AS
SELECT lower(address) AS address,
       bool_or(list = 'deny') AS denylisted,
       min(category) FILTER (WHERE list = 'allow') AS allow_label
FROM address_lists WHERE added_at < {day_end} GROUP BY 1;

-- Dense wallet ids for the trust graph: every wallet that pays, sells, funds, is funded, reviews,
-- sends a receipt, is listed, proves an identity or deploys a token.
-- `h` is a 64-bit hash of the address: the big joins to wallet ids go through it (integers, not
-- 42-character strings).
CREATE TEMP TABLE wallets AS
SELECT address, hash(address) AS h, (row_number() OVER (ORDER BY address) - 1)::UINTEGER AS wid FROM (
    SELECT payer AS address FROM pp
    UNION SELECT address FROM seller_ids
    UNION SELECT funded FROM first_funder
    UNION SELECT funder FROM first_funder
    UNION SELECT client FROM fb
    UNION SELECT buyer FROM rc
    UNION SELECT address FROM lists
    UNION SELECT address FROM proofs
    UNION SELECT lower(deployer) FROM token_launches WHERE launched_at < {day_end}
);

-- Health probes of the seller's current endpoints in the probe window. Alive: 200/201/204, or a
-- 402 with a well-formed x402 offer.
CREATE TEMP TABLE sla AS
SELECT lower(c.pay_to) AS address,
       count(*) AS samples,
       count(*) FILTER (WHERE alive) AS ok,
       quantile_cont(p.latency_ms, 0.5) FILTER (WHERE alive)::BIGINT AS p50,
       quantile_cont(p.latency_ms, 0.95) FILTER (WHERE alive)::BIGINT AS p95,
       (sum(p.latency_ms) FILTER (WHERE alive) // count(p.latency_ms) FILTER (WHERE alive))::BIGINT AS avg_latency,
       arg_max(alive, (p.probed_at, p.resource)) AS last_ok,
       count(*) FILTER (WHERE p.offer_version IS NOT NULL) AS offers,
       count(*) FILTER (WHERE p.offer_matches = false) AS offer_mismatches
-- A probe without an answer (status null) is dead, not unknown: `alive` is never null, so the last
-- probe is the last probe even when nothing answered it.
FROM (SELECT *, coalesce(status IN (200, 201, 204) OR (status = 402 AND offer_version IS NOT NULL), false) AS alive
      FROM probes) p
JOIN cur c USING (resource)
WHERE p.probed_at >= {d7} AND p.probed_at < {day_end}
GROUP BY 1;
