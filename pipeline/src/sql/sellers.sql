-- Per-seller features for one day. Placeholders: {day_end} (exclusive), {d30}, {d7}, {listing_cutoff}.
-- Every address is lowercased here; listings keep the case they were observed with.

-- Current listings: the latest crawl of each resource, if seen in the last 30 days.
CREATE TEMP TABLE cur AS
SELECT * EXCLUDE (rn) FROM (
    SELECT *, row_number() OVER (PARTITION BY resource ORDER BY last_seen DESC) AS rn
    FROM listings WHERE last_seen < {day_end}
) WHERE rn = 1 AND last_seen >= {listing_cutoff};

CREATE TEMP TABLE seller_listing AS
SELECT lower(pay_to) AS address,
       count(*) AS listing_count,
       count(DISTINCT pay_to) AS case_variants,
       epoch(min(first_seen))::BIGINT AS first_seen,
       min(price_atomic) AS price,
       arg_min(resource, (first_seen, resource)) AS resource,
       string_agg(resource, ' ' ORDER BY first_seen, resource) AS resources,
       arg_min(description, (first_seen, resource)) AS description,
       arg_min(ecosystem, (first_seen, resource)) AS ecosystem,
       arg_min(network, (first_seen, resource)) AS network,
       arg_min(asset, (first_seen, resource)) AS asset,
       bool_or(regexp_matches(lower(resource), '^https?://[^/:]+\.({suspicious_tlds})(:[0-9]+)?(/|$)')) AS suspicious_tld,
       bool_or(regexp_matches(lower(resource), '/(admin|wp-admin|\.env|phpmyadmin|debug|\.git)(/|$)')) AS admin_path
FROM cur GROUP BY 1;

CREATE TEMP TABLE seller_tags AS
SELECT address, string_agg(tag, ',' ORDER BY tag) AS tags, count(*) AS tag_count FROM (
    SELECT DISTINCT lower(pay_to) AS address, unnest(tags) AS tag FROM cur
) GROUP BY 1;

-- Settlements to listed sellers up to the end of the day. Sorting and grouping use integer keys
-- (a dense seller id, a 64-bit hash of the payer), far cheaper than 42-character strings.
CREATE TEMP TABLE seller_ids AS
SELECT address, row_number() OVER (ORDER BY address)::UINTEGER AS sid FROM seller_listing;

CREATE TEMP TABLE s AS
SELECT st.payer, hash(st.payer) AS payer_h, i.sid, st.pay_to, st.value, st.block_time, epoch(st.block_time)::BIGINT AS t
FROM settlements st JOIN seller_ids i ON st.pay_to = i.address
WHERE st.block_time < {day_end};

CREATE TEMP TABLE pp AS
SELECT any_value(pay_to) AS pay_to, any_value(payer) AS payer, sid, payer_h, count(*) AS n
FROM s GROUP BY sid, payer_h;

CREATE TEMP TABLE settle AS
SELECT s.pay_to AS address,
       count(*) AS settlements,
       count(*) FILTER (WHERE block_time >= {d30}) AS settlements_30d,
       sum(value)::UBIGINT AS volume,
       epoch(max(block_time))::BIGINT AS last_settlement,
       count(DISTINCT date_trunc('day', block_time)) FILTER (WHERE block_time >= {d30}) AS active_days_30d,
       count(*) FILTER (WHERE payer = s.pay_to) AS self_payments,
       count(*) FILTER (WHERE value = l.price) / count(*) AS exact_price_share,
       median(value::DOUBLE / nullif(l.price, 0)) AS median_price_ratio
FROM s JOIN seller_listing l ON s.pay_to = l.address
GROUP BY 1;

CREATE TEMP TABLE payers AS
SELECT pay_to AS address,
       count(*) AS distinct_payers,
       count(*) FILTER (WHERE n >= 2) / count(*) AS repeat_payer_ratio,
       max(n) / sum(n) AS top_payer_share
FROM pp GROUP BY 1;

-- Regularity: per (seller, payer) with >= 3 payments, the coefficient of variation of the gaps;
-- the seller's value is the median over its payers. Sums are exact integers so the result does
-- not depend on the order DuckDB's threads combine partial aggregates in (determinism).
CREATE TEMP TABLE cadence AS
SELECT i.address, c.interval_cv FROM (
    SELECT sid, median(cv) AS interval_cv FROM (
        SELECT sid, payer_h,
               sqrt((count(*) * sum(gap * gap) - sum(gap) * sum(gap))::DOUBLE) / nullif(sum(gap), 0)::DOUBLE AS cv
        FROM (
            SELECT sid, payer_h, (t - lag(t) OVER (PARTITION BY sid, payer_h ORDER BY t))::HUGEINT AS gap
            FROM s SEMI JOIN (SELECT sid, payer_h FROM pp WHERE n >= 3) USING (sid, payer_h)
        ) WHERE gap IS NOT NULL GROUP BY ALL
    ) GROUP BY 1
) c JOIN seller_ids i USING (sid);

-- Funding: first funder of each payer, ignoring hubs (exchanges, bridges) that fund many.
CREATE TEMP TABLE first_funder AS
SELECT funded, arg_min(funder, (first_funded_at, funder)) AS funder
FROM funding_edges WHERE first_funded_at < {day_end} GROUP BY 1;

CREATE TEMP TABLE hubs AS
SELECT funder FROM first_funder GROUP BY 1 HAVING count(*) >= {hub_min_fanout};

CREATE TEMP TABLE funding AS
SELECT address,
       sum(k)::BIGINT AS payers_with_funder,
       max(k) / sum(k) AS top_funder_share,
       coalesce(sum(k) FILTER (WHERE funder = address), 0) / sum(k) AS seller_funded_share
FROM (
    SELECT pp.pay_to AS address, f.funder, count(*) AS k
    FROM pp JOIN first_funder f ON f.funded = pp.payer
    WHERE f.funder NOT IN (SELECT funder FROM hubs)
    GROUP BY ALL
) GROUP BY 1;

-- Health probes of the seller's current endpoints in the probe window.
CREATE TEMP TABLE sla AS
SELECT lower(c.pay_to) AS address,
       count(*) AS samples,
       count(*) FILTER (WHERE p.ok) AS ok,
       coalesce(quantile_cont(p.latency_ms, 0.5) FILTER (WHERE p.ok), 0)::BIGINT AS p50,
       coalesce(quantile_cont(p.latency_ms, 0.95) FILTER (WHERE p.ok), 0)::BIGINT AS p95,
       coalesce(sum(p.latency_ms) FILTER (WHERE p.ok) // count(p.latency_ms) FILTER (WHERE p.ok), 0)::BIGINT AS avg_latency,
       arg_max(p.ok, (p.probed_at, p.resource)) AS last_ok
FROM probes p JOIN cur c USING (resource)
WHERE p.probed_at >= {d7} AND p.probed_at < {day_end}
GROUP BY 1;

-- ERC-8004: registrations whose agentWallet is the seller, and their non-revoked feedback with
-- values in 0..=100 (out-of-range values are excluded, not clamped).
CREATE TEMP TABLE reg AS
SELECT agent_id, lower(agent_wallet) AS address FROM erc8004_registrations
WHERE registered_at < {day_end} AND agent_wallet IS NOT NULL;

-- v is the rating scaled to millionths of a point (exact integer, so sums are deterministic).
CREATE TEMP TABLE fb AS
SELECT r.address, lower(f.client) AS client, (f.value * pow(10, 6 - f.value_decimals))::HUGEINT AS v
FROM erc8004_feedback f JOIN reg r USING (agent_id)
WHERE NOT f.revoked AND f.block_time < {day_end};

CREATE TEMP TABLE feedback AS
SELECT fb.address,
       count(*) AS feedback_count,
       count(DISTINCT fb.client) AS feedback_clients,
       count(DISTINCT fb.client) FILTER (WHERE pp.payer IS NOT NULL) AS paid_clients,
       coalesce(sum(fb.v) FILTER (WHERE pp.payer IS NOT NULL), 0)::DOUBLE / 100000000 AS paid_sum,
       count(*) FILTER (WHERE pp.payer IS NOT NULL) AS paid_count
FROM fb LEFT JOIN pp ON pp.pay_to = fb.address AND pp.payer = fb.client
WHERE fb.v BETWEEN 0 AND 100000000
GROUP BY 1;

CREATE TEMP TABLE rcpt AS
SELECT lower(agent) AS address, count(*) AS receipts, count(*) FILTER (WHERE success) AS successes
FROM receipts WHERE received_at < {day_end} GROUP BY 1;

CREATE TEMP TABLE proofs AS
SELECT lower(address) AS address, string_agg(DISTINCT proof_type, ',' ORDER BY proof_type) AS proof_types
FROM identity_proofs WHERE verified_at < {day_end} GROUP BY 1;

CREATE TEMP TABLE lists AS
SELECT lower(address) AS address,
       bool_or(list = 'deny') AS denylisted,
       min(category) FILTER (WHERE list = 'allow') AS allow_label
FROM address_lists WHERE added_at < {day_end} GROUP BY 1;
