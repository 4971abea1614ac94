-- The settlement pass over carried state (`carry_pairs.rs`): the tables `settlements.sql` leaves,
-- from a stored state of an earlier day P brought up to the day with only the partitions after P,
-- a window of recent partitions, and the rows of the sellers whose claims for the days up to P
-- changed (`cs_touched`). Every output equals `settlements.sql`'s on the same lake
-- (`tests/e2e/carried.rs` compares every published byte); the differences of form are said
-- where they are made.
-- Placeholders filled by `carry_pairs.rs`: the stored state's files ({pairs_file}, {payees_file},
-- {cited_file}, {claims_file}), {clip_day} (a UTC day number), {base_date}, {from_date},
-- {from_epoch}; the rebuild's own: {day_end}, {d30_epoch}, {d7_epoch}, {horizon_epoch},
-- {receipt_window}.
-- Reads: price_bounds, facilitators, oracle_payers, seller_ids (`listings.sql`), receipts,
-- settlements (lake). Leaves: nonq, pp, settle, cadence, cited, seller_recent, seller_days,
-- payer_recent, seller_forms.

-- name: state
-- The stored state of day P (run only when there is one; else `carry_pairs.rs` makes these empty).
CREATE OR REPLACE TEMP VIEW cs_state_pairs AS
SELECT * REPLACE (gsum::HUGEINT AS gsum, gsq::HUGEINT AS gsq) FROM read_parquet({pairs_file}, hive_partitioning = false);
CREATE OR REPLACE TEMP VIEW cs_state_payees AS SELECT * FROM read_parquet({payees_file}, hive_partitioning = false);
CREATE OR REPLACE TEMP VIEW cs_state_cited AS SELECT * FROM read_parquet({cited_file}, hive_partitioning = false);
CREATE OR REPLACE TEMP VIEW cs_state_claims AS SELECT * FROM read_parquet({claims_file}, hive_partitioning = false);

-- name: claims
-- Each claimed wallet's attribution inputs for the days before {clip_day}, as one digest: the
-- pieces of `price_bounds` cut at that day. A state of day P folded the wallet's rows against
-- these. A wallet whose digest for the days up to P differs today (a claim crawled for the first
-- time reaches back to the chain's start, a crawl arrived late) is touched: recomputed from all
-- its rows.
CREATE OR REPLACE TEMP TABLE cs_claims AS
SELECT address, md5(string_agg(concat_ws('/', net, asset, from_day, least(until_day, {clip_day}), min_price,
                                         prices::VARCHAR), ' ' ORDER BY net, asset, from_day)) AS h
FROM price_bounds WHERE from_day < {clip_day} GROUP BY address;

-- name: touched
CREATE OR REPLACE TEMP TABLE cs_touched AS
SELECT coalesce(a.address, b.address) AS address
FROM cs_claims a FULL JOIN cs_state_claims b ON a.address = b.address
WHERE a.h IS NULL OR b.h IS NULL OR a.h <> b.h;

-- name: attribute
-- `settlements.sql`'s `s`, of every claimed wallet (not only today's sellers: a wallet whose
-- listings lapse keeps its state for the day it is listed again), keyed by the wallet's address
-- instead of the day's seller id, with the partition's day (a filter on it reads only those
-- partitions).
CREATE OR REPLACE TEMP VIEW cs_attributed AS
SELECT pay_to, payer, value, t, tx_h, exact, date,
       attributed AND value >= min_price AS q,
       attributed AND value < min_price AS below_price
FROM (
    SELECT st.pay_to, st.payer, st.value, st.date, epoch(st.block_time)::BIGINT AS t, hash(st.tx_hash) AS tx_h,
           coalesce(coalesce(st.form IN ({x402_forms}), st.eip3009) AND f.address IS NOT NULL AND b.min_price IS NOT NULL, false) AS attributed,
           b.min_price, coalesce(list_contains(b.prices, st.value), false) AS exact
    FROM settlements st
    LEFT JOIN facilitators f ON f.address = st.facilitator
    LEFT JOIN price_bounds b ON b.k = hash(st.pay_to, st.network, st.asset)
          AND epoch(st.block_time)::BIGINT // 86400 >= b.from_day AND epoch(st.block_time)::BIGINT // 86400 < b.until_day
    WHERE st.block_time < {day_end} AND st.payer NOT IN (SELECT address FROM oracle_payers)
);

-- The rows the day reads: those of the partitions after the base day ({base_date}; `new`), and
-- those of the recent window before it (from {from_date}, {from_epoch}), of the claimed wallets
-- the state keeps (not the touched ones).
CREATE OR REPLACE TEMP TABLE cs_rows AS
SELECT * EXCLUDE (date), date > {base_date} AS new FROM cs_attributed
WHERE date >= {from_date} AND t >= {from_epoch}
  AND pay_to IN (SELECT address FROM price_bounds) AND pay_to NOT IN (SELECT address FROM cs_touched);

-- name: touched rows
-- Every row of the touched wallets, from every partition (run only when there are some).
INSERT INTO cs_rows SELECT * EXCLUDE (date), true AS new FROM cs_attributed WHERE pay_to IN (SELECT address FROM cs_touched);

-- name: fold
-- The new rows' pairs (q rows): counts, spend, exact-price count, first and last time and the gaps
-- between consecutive payments as exact integer sums, the cadence's inputs. Merged onto the
-- state's pairs (but the touched wallets'): every new row is later than every state row (a
-- partition holding rows of another day is never folded, `carry_pairs.rs`), so the gap between
-- the state's last payment and the new first one joins the two.
CREATE OR REPLACE TEMP TABLE cs_pairs_new AS
SELECT pay_to, payer, count(*)::BIGINT AS n, sum(value)::UBIGINT AS spend,
       count(*) FILTER (WHERE exact)::BIGINT AS n_exact, min(t) AS first_t, max(t) AS last_t,
       count(gap)::BIGINT AS gaps, coalesce(sum(gap), 0)::HUGEINT AS gsum, coalesce(sum(gap * gap), 0)::HUGEINT AS gsq
FROM (
    SELECT pay_to, payer, value, t, exact, (t - lag(t) OVER (PARTITION BY pay_to, payer ORDER BY t))::HUGEINT AS gap
    FROM cs_rows WHERE new AND q
) GROUP BY pay_to, payer;

CREATE OR REPLACE TEMP TABLE cs_pairs AS
SELECT coalesce(o.pay_to, n.pay_to) AS pay_to, coalesce(o.payer, n.payer) AS payer,
       (coalesce(o.n, 0) + coalesce(n.n, 0))::BIGINT AS n,
       (coalesce(o.spend, 0) + coalesce(n.spend, 0))::UBIGINT AS spend,
       (coalesce(o.n_exact, 0) + coalesce(n.n_exact, 0))::BIGINT AS n_exact,
       least(o.first_t, n.first_t) AS first_t, greatest(o.last_t, n.last_t) AS last_t,
       CASE WHEN o.n IS NULL THEN n.gaps WHEN n.n IS NULL THEN o.gaps ELSE o.gaps + n.gaps + 1 END::BIGINT AS gaps,
       CASE WHEN o.n IS NULL THEN n.gsum WHEN n.n IS NULL THEN o.gsum
            ELSE o.gsum + n.gsum + (n.first_t - o.last_t) END::HUGEINT AS gsum,
       CASE WHEN o.n IS NULL THEN n.gsq WHEN n.n IS NULL THEN o.gsq
            ELSE o.gsq + n.gsq + (n.first_t - o.last_t)::HUGEINT * (n.first_t - o.last_t)::HUGEINT END::HUGEINT AS gsq
FROM (SELECT * FROM cs_state_pairs WHERE pay_to NOT IN (SELECT address FROM cs_touched)) o
FULL JOIN cs_pairs_new n ON o.pay_to = n.pay_to AND o.payer = n.payer;

-- Per wallet, its rows that are no demand: unattributed, or below every price in force.
CREATE OR REPLACE TEMP TABLE cs_payees AS
SELECT pay_to, sum(unattributed)::BIGINT AS unattributed, sum(below_price)::BIGINT AS below_price FROM (
    SELECT pay_to, unattributed, below_price FROM cs_state_payees WHERE pay_to NOT IN (SELECT address FROM cs_touched)
    UNION ALL
    SELECT pay_to, count(*) FILTER (WHERE NOT below_price) AS unattributed, count(*) FILTER (WHERE below_price) AS below_price
    FROM cs_rows WHERE new AND NOT q GROUP BY pay_to
) GROUP BY pay_to;

-- Receipts matched to the q rows they cite, within the receipt window: the state's matches (but
-- the touched wallets'), those of the new rows, and the new receipts' of the recent rows (a
-- receipt received after P cites a payment no older than the window before P).
CREATE OR REPLACE TEMP TABLE cs_cited AS
SELECT DISTINCT * FROM (
    SELECT tx_hash, pay_to, payer FROM cs_state_cited WHERE pay_to NOT IN (SELECT address FROM cs_touched)
    UNION ALL
    SELECT r.tx_hash, s.pay_to, s.payer
    FROM cs_rows s JOIN (
        SELECT lower(tx_hash) AS tx_hash, epoch_us(received_at) // 1000000 AS rt
        FROM receipts WHERE tx_hash IS NOT NULL AND received_at < {day_end}
    ) r ON s.tx_h = hash(r.tx_hash)
    WHERE s.q AND r.rt >= s.t - 86400 AND r.rt < s.t + {receipt_window}
);

-- The last 30 days' q rows of today's sellers: the day masks, the 30- and 7-day figures.
CREATE OR REPLACE TEMP TABLE cs_window AS
SELECT i.sid, w.* EXCLUDE (q, below_price, new) FROM cs_rows w
JOIN seller_ids i ON i.address = w.pay_to
WHERE w.q AND w.t >= {d30_epoch};

-- name: outputs
-- `settlements.sql`'s tables, from the carried pairs, payees and matches and the window.
CREATE TEMP TABLE nonq AS
SELECT i.address, p.unattributed, p.below_price FROM cs_payees p JOIN seller_ids i ON i.address = p.pay_to
WHERE p.unattributed + p.below_price > 0;

CREATE TEMP TABLE pp AS
SELECT i.sid, hash(p.payer) AS payer_h, p.payer, p.n, p.spend, p.first_t, p.last_t,
       coalesce(m.mask30, 0)::UBIGINT AS mask30
FROM cs_pairs p JOIN seller_ids i ON i.address = p.pay_to
LEFT JOIN (
    SELECT sid, payer, bit_or(1::UBIGINT << ((t - {d30_epoch}) // 86400)::INTEGER) AS mask30
    FROM cs_window GROUP BY sid, payer
) m ON m.sid = i.sid AND m.payer = p.payer
WHERE p.last_t >= {horizon_epoch};

-- A seller's settlements within the horizon are its pairs' (a payment newer than the horizon
-- always belongs to a pair within it, an older one counts while its pair does).
CREATE TEMP TABLE settle AS
SELECT i.address, a.settlements, coalesce(w.n, 0) AS settlements_30d, a.volume,
       a.exact_settlements / a.settlements AS exact_price_share, a.exact_settlements
FROM (
    SELECT pay_to, sum(n)::BIGINT AS settlements, sum(spend)::UBIGINT AS volume, sum(n_exact)::BIGINT AS exact_settlements
    FROM cs_pairs WHERE last_t >= {horizon_epoch} GROUP BY pay_to
) a JOIN seller_ids i ON i.address = a.pay_to
LEFT JOIN (SELECT sid, count(*) AS n FROM cs_window GROUP BY sid) w ON w.sid = i.sid;

-- Regularity from the carried gap sums: the same integers `settlements.sql` sums from the rows.
CREATE TEMP TABLE cadence AS
SELECT i.address, c.interval_cv FROM (
    SELECT pay_to, median(cv) AS interval_cv FROM (
        SELECT pay_to, sqrt((gaps * gsq - gsum * gsum)::DOUBLE) / nullif(gsum, 0)::DOUBLE AS cv
        FROM cs_pairs
        WHERE last_t >= {horizon_epoch} AND n >= 5 AND pay_to IN (
            SELECT address FROM settle WHERE settlements >= 10 AND exact_price_share >= 0.95
        )
    ) GROUP BY pay_to
) c JOIN seller_ids i ON i.address = c.pay_to;

CREATE TEMP TABLE cited AS
SELECT c.tx_hash, i.sid, min(c.payer) AS payer
FROM cs_cited c JOIN seller_ids i ON i.address = c.pay_to
SEMI JOIN pp ON pp.sid = i.sid AND pp.payer_h = hash(c.payer)
GROUP BY c.tx_hash, i.sid;

CREATE TEMP TABLE seller_recent AS
SELECT i.sid, w.earned_7d, coalesce(w.settlements_7d, 0) AS settlements_7d, coalesce(w.buyers_7d, 0) AS buyers_7d, a.last_t
FROM (SELECT pay_to, max(last_t) AS last_t FROM cs_pairs GROUP BY pay_to) a
JOIN seller_ids i ON i.address = a.pay_to
LEFT JOIN (
    SELECT sid, sum(value)::UBIGINT AS earned_7d, count(*) AS settlements_7d, count(DISTINCT payer) AS buyers_7d
    FROM cs_window WHERE t >= {d7_epoch} GROUP BY sid
) w ON w.sid = i.sid;

CREATE TEMP TABLE seller_days AS
SELECT sid, (t // 86400)::BIGINT AS day, count(*)::UBIGINT AS n FROM cs_window GROUP BY 1, 2;

CREATE TEMP TABLE payer_recent AS
SELECT payer, sum(value)::UBIGINT AS spent_7d, count(*) AS payments_7d, count(DISTINCT sid) AS sellers_7d
FROM cs_window WHERE t >= {d7_epoch} GROUP BY 1;

-- As in `settlements.sql`: how each of today's sellers was paid in its last 30 days, whether or not it counted as demand
-- (x402.md § 8): its transfers by form (a row written before forms were read, by its `eip3009`
-- flag) and by the ERC-8021 builder codes on the settling call, hints any client can write. The
-- export `settlement-forms.parquet` is made from it; no score, flag or decision reads it
-- (SCORING.md § 1, *Settlement forms*).
CREATE TEMP TABLE seller_forms AS
SELECT i.address, coalesce(st.form, CASE WHEN st.eip3009 THEN 'eip3009' ELSE 'transfer' END) AS form,
       st.builder_app AS app, st.builder_wallet AS wallet, st.builder_services AS services, count(*) AS n
FROM settlements st JOIN seller_ids i ON st.pay_to = i.address
WHERE st.date >= CAST({d30} AS DATE) AND st.block_time >= {d30} AND st.block_time < {day_end}
  AND st.payer NOT IN (SELECT address FROM oracle_payers)
GROUP BY i.address, 2, st.builder_app, st.builder_wallet, st.builder_services;

-- name: cleanup
DROP TABLE cs_touched;
DROP TABLE cs_rows;
DROP TABLE cs_pairs_new;
DROP TABLE cs_window;
DROP TABLE cs_pairs;
DROP TABLE cs_payees;
DROP TABLE cs_cited;
DROP TABLE cs_claims;
DROP VIEW cs_attributed;
DROP VIEW cs_state_pairs;
DROP VIEW cs_state_payees;
DROP VIEW cs_state_cited;
DROP VIEW cs_state_claims;
