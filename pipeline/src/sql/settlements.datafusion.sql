-- The settlement pass in DataFusion's dialect, for a Ballista cluster: `settlements.sql` ported,
-- statement for statement, to leave the same tables (`passes::SETTLEMENTS` converts their columns
-- to the DuckDB text's types on import). Placeholders: {day_end} (exclusive), {d30_epoch}, {d7_epoch}, {horizon_epoch}, {receipt_window}.
-- Reads: settlements, receipts (lake, from the bucket); seller_ids, price_bounds (the prices in
-- force, by day), price_points (the advertised prices one row each, per piece of `price_bounds`), facilitators, oracle_payers (the oracle's own wallets) (shipped from the rebuild). Every `CREATE TABLE` is written to the bucket as Parquet.
--
-- Where the dialects differ, and what this text does about it (each marked [n] where it occurs):
-- [1] `hash`: DuckDB joins and groups 64-bit hashes of strings (the price bounds' key, payers,
--     transaction hashes) to keep its ten-million-row table narrow; DataFusion has no function
--     giving DuckDB's values, so this text joins and groups the strings. The same rows meet,
--     unless two strings' hashes collide in DuckDB (about 2^-64 for a pair).
-- [2] `epoch(ts)::BIGINT` is `to_unixtime(ts)`: DuckDB rounds fractional seconds to the nearest,
--     DataFusion truncates. Block times are whole seconds, so both give the same number; a
--     receipt's time may not be, so the DuckDB text truncates it (`epoch_us(…) // 1000000`).
-- [3] Integer division: DuckDB's `/` divides into a DOUBLE and `//` is integer division;
--     DataFusion's `/` of two integers is integer division. Shares cast to DOUBLE first (the same
--     IEEE division); day numbers divide non-negative integers, where both truncate alike.
-- [4] HUGEINT is DECIMAL(38, 0): exact integer sums of squared gaps, cast to DOUBLE once (both
--     round an integer below 2^64 to the nearest double).
-- [5] `median`: DuckDB's median of an even count is `(lo + hi) / 2` (checked against it on random
--     doubles: never `lo + (hi - lo) * 0.5`, which differs in the last bit for about one pair in
--     seven). This text computes that form from the two middle values itself rather than rely on
--     how DataFusion's `median` rounds.
-- [6] Names: `SEMI JOIN` is `LEFT SEMI JOIN`, `UBIGINT` is `BIGINT UNSIGNED`,
--     `count(DISTINCT x) FILTER (…)` is `count(DISTINCT CASE … THEN x END)`. Lists: Ballista's
--     executors have no list functions, so `list_contains(b.prices, value)` is a join with the
--     price points (distinct per piece of the prices in force, `from_day`, so it adds no row).
-- [7] NULL ordering plays no part: no statement picks a row by order but `min` of strings (both
--     compare bytes) and the median, whose ties are equal values.

-- [1] [2] [3] [6] Every transfer to a listed seller, with its attribution against the prices in
-- force on its day (see `settlements.sql`).
CREATE TABLE s AS
SELECT payer, sid, value, t, exact, tx_hash,
       attributed AND value >= min_price AS q,
       attributed AND value < min_price AS below_price
FROM (
    SELECT st.payer, i.sid, st.value, st.tx_hash, to_unixtime(st.block_time) AS t,
           coalesce(coalesce(st.form IN ({x402_forms}), st.eip3009) AND f.address IS NOT NULL AND b.min_price IS NOT NULL, false) AS attributed,
           b.min_price, pt.price IS NOT NULL AS exact
    FROM settlements st
    JOIN seller_ids i ON st.pay_to = i.address
    LEFT JOIN facilitators f ON f.address = st.facilitator
    LEFT JOIN price_bounds b ON b.address = st.pay_to AND b.net = st.network AND b.asset = st.asset
          AND to_unixtime(st.block_time) / 86400 >= b.from_day AND to_unixtime(st.block_time) / 86400 < b.until_day
    LEFT JOIN price_points pt
           ON pt.address = st.pay_to AND pt.net = st.network AND pt.asset = st.asset AND pt.price = st.value
          AND pt.from_day = b.from_day
    WHERE st.block_time < {day_end} AND st.payer NOT IN (SELECT address FROM oracle_payers)
) attributed_settlements;

CREATE TABLE nonq AS
SELECT i.address, count(*) FILTER (WHERE NOT s.below_price) AS unattributed,
       count(*) FILTER (WHERE s.below_price) AS below_price
FROM s JOIN seller_ids i ON i.sid = s.sid WHERE NOT s.q GROUP BY i.address;

-- [1] [3] [6] Per (seller, payer), grouped by the payer itself, within the evidence horizon.
CREATE TABLE pp AS
SELECT sid, payer, count(*) AS n, sum(value) AS spend, min(t) AS first_t, max(t) AS last_t,
       bit_or(CASE WHEN t >= {d30_epoch}
                   THEN CAST(1 AS BIGINT UNSIGNED) << CAST((t - {d30_epoch}) / 86400 AS BIGINT UNSIGNED)
                   ELSE CAST(0 AS BIGINT UNSIGNED) END) AS mask30
FROM s WHERE q GROUP BY sid, payer HAVING max(t) >= {horizon_epoch};

-- [3] The share of exact prices: a DOUBLE division.
CREATE TABLE settle AS
SELECT i.address, a.settlements, a.settlements_30d, a.volume, a.exact_price_share, a.exact_settlements FROM (
    SELECT sid,
           count(*) AS settlements,
           count(*) FILTER (WHERE t >= {d30_epoch}) AS settlements_30d,
           sum(value) AS volume,
           CAST(count(*) FILTER (WHERE exact) AS DOUBLE) / CAST(count(*) AS DOUBLE) AS exact_price_share,
           count(*) FILTER (WHERE exact) AS exact_settlements
    FROM (
        SELECT sid, t, value, exact FROM s WHERE q AND t >= {horizon_epoch}
        UNION ALL
        SELECT s.sid, s.t, s.value, s.exact FROM s LEFT SEMI JOIN pp ON pp.sid = s.sid AND pp.payer = s.payer
        WHERE s.q AND s.t < {horizon_epoch}
    ) within_horizon GROUP BY sid
) a JOIN seller_ids i ON i.sid = a.sid;

-- [4] [5] [6] Regularity: the coefficient of variation of each (seller, payer)'s gaps, and the
-- median over the seller's payers, for the sellers `metronome-payments` applies to.
CREATE TABLE cadence AS
WITH gaps AS (
    SELECT s.sid, s.payer,
           CAST(s.t - lag(s.t) OVER (PARTITION BY s.sid, s.payer ORDER BY s.t) AS DECIMAL(38, 0)) AS gap
    FROM s LEFT SEMI JOIN (
        SELECT pp.sid, pp.payer FROM pp LEFT SEMI JOIN (
            SELECT i.sid FROM settle JOIN seller_ids i ON i.address = settle.address
            WHERE settle.settlements >= 10 AND settle.exact_price_share >= 0.95
        ) m ON m.sid = pp.sid
        WHERE pp.n >= 5
    ) k ON k.sid = s.sid AND k.payer = s.payer
    WHERE s.q
), cvs AS (
    SELECT sid, payer,
           sqrt(CAST(count(*) * sum(gap * gap) - sum(gap) * sum(gap) AS DOUBLE))
               / CAST(nullif(sum(gap), 0) AS DOUBLE) AS cv
    FROM gaps WHERE gap IS NOT NULL GROUP BY sid, payer
), ranked AS (
    SELECT sid, cv, CAST(row_number() OVER (PARTITION BY sid ORDER BY cv) AS BIGINT) - 1 AS r,
           count(*) OVER (PARTITION BY sid) AS k
    FROM cvs WHERE cv IS NOT NULL
), medians AS (
    SELECT sid, max(CASE WHEN r = (k - 1) / 2 THEN cv END) AS lo, max(CASE WHEN r = k / 2 THEN cv END) AS hi
    FROM ranked GROUP BY sid
)
SELECT i.address, (m.lo + m.hi) / 2 AS interval_cv
FROM (SELECT DISTINCT sid FROM cvs) c
LEFT JOIN medians m ON m.sid = c.sid
JOIN seller_ids i ON i.sid = c.sid;

-- [1] Receipts that cite a qualifying settlement of the seller they name, joined by the hash string.
CREATE TABLE cited AS
SELECT c.tx_hash, c.sid, min(c.payer) AS payer FROM (
    SELECT r.tx_hash, s.sid, s.payer
    FROM s JOIN (
        SELECT lower(tx_hash) AS tx_hash, to_unixtime(received_at) AS rt
        FROM receipts WHERE tx_hash IS NOT NULL AND received_at < {day_end}
    ) r ON s.tx_hash = r.tx_hash
    WHERE s.q AND r.rt >= s.t - 86400 AND r.rt < s.t + {receipt_window}
) c LEFT SEMI JOIN pp ON pp.sid = c.sid AND pp.payer = c.payer GROUP BY c.tx_hash, c.sid;

-- [6]
CREATE TABLE seller_recent AS
SELECT sid, sum(value) FILTER (WHERE t >= {d7_epoch}) AS earned_7d,
       count(*) FILTER (WHERE t >= {d7_epoch}) AS settlements_7d,
       count(DISTINCT CASE WHEN t >= {d7_epoch} THEN payer END) AS buyers_7d, max(t) AS last_t
FROM s WHERE q GROUP BY sid;

-- [3]
CREATE TABLE seller_days AS
SELECT sid, t / 86400 AS day, count(*) AS n FROM s WHERE q AND t >= {d30_epoch} GROUP BY sid, t / 86400;

CREATE TABLE payer_recent AS
SELECT payer, sum(value) AS spent_7d, count(*) AS payments_7d, count(DISTINCT sid) AS sellers_7d
FROM s WHERE q AND t >= {d7_epoch} GROUP BY payer;

-- [2] How each of today's sellers was paid in its last 30 days, by form and builder codes (see
-- `settlements.sql`).
CREATE TABLE seller_forms AS
SELECT i.address, coalesce(st.form, CASE WHEN st.eip3009 THEN 'eip3009' ELSE 'transfer' END) AS form,
       st.builder_app AS app, st.builder_wallet AS wallet, st.builder_services AS services, count(*) AS n
FROM settlements st JOIN seller_ids i ON st.pay_to = i.address
WHERE to_unixtime(st.block_time) >= {d30_epoch} AND st.block_time < {day_end}
  AND st.payer NOT IN (SELECT address FROM oracle_payers)
GROUP BY i.address, coalesce(st.form, CASE WHEN st.eip3009 THEN 'eip3009' ELSE 'transfer' END),
         st.builder_app, st.builder_wallet, st.builder_services;
