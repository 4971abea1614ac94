-- The settlement pass, in DuckDB's dialect: every transfer to a listed seller, attributed, and the
-- aggregates the rest of the rebuild reads. The one pass whose input grows with the chain's
-- history, and so the one an engine may run on a cluster: `settlements.datafusion.sql` is its
-- DataFusion form, and `passes::SETTLEMENTS` names its inputs and outputs (the tables below that
-- outlive it). Placeholders: {day_end} (exclusive), {d30_epoch}, {d7_epoch}, {horizon_epoch} (the
-- evidence horizon: `RELATIONSHIP_HORIZON_DAYS` before the day's end), {receipt_window} (seconds).
-- Reads: settlements, receipts (lake); seller_ids, price_bounds, facilitators, oracle_payers
-- (`listings.sql`: the oracle's own wallets, whose payments are left out of everything here).
-- Leaves: nonq, pp, settle, cadence, cited, seller_recent, seller_days, payer_recent, seller_forms.

-- Every transfer to a listed seller, with its attribution. `q` marks qualifying settlements:
-- facilitator-settled payments in one of x402's forms ({x402_forms}: the payer's own signed
-- authorization moved the funds; `SettlementForm::is_x402`, and for rows written before forms were
-- read, their `eip3009` flag) on a listed network and asset at no less than a price
-- advertised on the settlement's day (`price_bounds`: the claims in force then). Only these are demand; the passes below read `WHERE q`. Narrow on purpose (no
-- string but the payer): at bench scale it holds ten million rows.
CREATE TEMP TABLE s AS
SELECT payer, hash(payer) AS payer_h, sid, value, t, exact, hash(tx_hash) AS tx_h,
       attributed AND value >= min_price AS q,
       attributed AND value < min_price AS below_price
FROM (
    SELECT st.payer, i.sid, st.value, st.tx_hash, epoch(st.block_time)::BIGINT AS t,
           coalesce(coalesce(st.form IN ({x402_forms}), st.eip3009) AND f.address IS NOT NULL AND b.min_price IS NOT NULL, false) AS attributed,
           b.min_price, coalesce(list_contains(b.prices, st.value), false) AS exact
    FROM settlements st
    JOIN seller_ids i ON st.pay_to = i.address
    LEFT JOIN facilitators f ON f.address = st.facilitator
    LEFT JOIN price_bounds b ON b.k = hash(st.pay_to, st.network, st.asset)
          AND epoch(st.block_time)::BIGINT // 86400 >= b.from_day AND epoch(st.block_time)::BIGINT // 86400 < b.until_day
    WHERE st.block_time < {day_end} AND st.payer NOT IN (SELECT address FROM oracle_payers)
);

CREATE TEMP TABLE nonq AS
SELECT i.address, count(*) FILTER (WHERE NOT below_price) AS unattributed, count(*) FILTER (WHERE below_price) AS below_price
FROM s JOIN seller_ids i USING (sid) WHERE NOT q GROUP BY 1;

-- Per (seller, payer): payments, spend, first and last time, and a bit mask of the days (of the
-- last 30) it paid on. A relationship counts until `RELATIONSHIP_HORIZON_DAYS` after its last
-- payment (the evidence horizon, SCORING.md § 1): one whose last payment is older is no pair.
CREATE TEMP TABLE pp AS
SELECT sid, payer_h, any_value(payer) AS payer, count(*) AS n,
       sum(value)::UBIGINT AS spend, min(t) AS first_t, max(t) AS last_t,
       bit_or(CASE WHEN t >= {d30_epoch} THEN (1::UBIGINT << ((t - {d30_epoch}) // 86400)::INTEGER) ELSE 0::UBIGINT END) AS mask30
FROM s WHERE q GROUP BY sid, payer_h HAVING max(t) >= {horizon_epoch};

-- Per seller, the settlements of its relationships within the horizon (a payment older than the
-- horizon counts while its pair does, so every share below compares like with like: the pairs'
-- own payments and the seller's). A payment newer than the horizon always belongs to such a pair.
CREATE TEMP TABLE settle AS
SELECT i.address, a.* EXCLUDE (sid) FROM (
    SELECT sid,
           count(*) AS settlements,
           count(*) FILTER (WHERE t >= {d30_epoch}) AS settlements_30d,
           sum(value)::UBIGINT AS volume,
           count(*) FILTER (WHERE exact) / count(*) AS exact_price_share,
           count(*) FILTER (WHERE exact) AS exact_settlements
    FROM (
        SELECT sid, t, value, exact FROM s WHERE q AND t >= {horizon_epoch}
        UNION ALL
        SELECT sid, t, value, exact FROM s SEMI JOIN pp USING (sid, payer_h) WHERE q AND t < {horizon_epoch}
    ) GROUP BY 1
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

-- Receipts that cite a qualifying settlement of the seller they name, by a payer whose relationship
-- is within the horizon: the settlement's payer. A receipt cites a settlement it was received
-- within the receipt window after (`RECEIPT_WINDOW_DAYS`; or up to a day before its block time,
-- for clocks): a receipt is the buyer's account of a call, made when the call is (SCORING.md § 1).
CREATE TEMP TABLE cited AS
SELECT c.tx_hash, c.sid, min(c.payer) AS payer FROM (
    SELECT r.tx_hash, s.sid, s.payer, s.payer_h
    FROM s JOIN (
        SELECT lower(tx_hash) AS tx_hash, epoch_us(received_at) // 1000000 AS rt
        FROM receipts WHERE tx_hash IS NOT NULL AND received_at < {day_end}
    ) r ON s.tx_h = hash(r.tx_hash)
    WHERE s.q AND r.rt >= s.t - 86400 AND r.rt < s.t + {receipt_window}
) c SEMI JOIN pp USING (sid, payer_h) GROUP BY 1, 2;

-- Each seller's last 7 days and last payment (the directory's profile).
CREATE TEMP TABLE seller_recent AS
SELECT sid, sum(value) FILTER (WHERE t >= {d7_epoch})::UBIGINT AS earned_7d,
       count(*) FILTER (WHERE t >= {d7_epoch}) AS settlements_7d,
       count(DISTINCT payer_h) FILTER (WHERE t >= {d7_epoch}) AS buyers_7d, max(t) AS last_t
FROM s WHERE q GROUP BY 1;

-- Each seller's qualifying settlements per day of the last 30 (the live re-score's basis).
CREATE TEMP TABLE seller_days AS
SELECT sid, (t // 86400)::BIGINT AS day, count(*)::UBIGINT AS n FROM s WHERE q AND t >= {d30_epoch} GROUP BY 1, 2;

-- Each payer's last 7 days (counterparties).
CREATE TEMP TABLE payer_recent AS
SELECT payer, sum(value)::UBIGINT AS spent_7d, count(*) AS payments_7d, count(DISTINCT sid) AS sellers_7d
FROM s WHERE q AND t >= {d7_epoch} GROUP BY 1;

-- How each of today's sellers was paid in its last 30 days, whether or not it counted as demand
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

DROP TABLE s;
