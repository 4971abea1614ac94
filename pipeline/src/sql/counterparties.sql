-- Known wallets that are not sellers: payers (with their qualifying spend, overall and in the
-- last 7 days, and the times of their first and last qualifying payment within the horizon),
-- non-hub funders, listed addresses. Uses the temporary tables of the seller passes
-- (`listings.sql`, `settlements.sql`, `sellers.sql`).
SELECT address, sum(payments)::UBIGINT AS payments, sum(sellers_paid)::UINTEGER AS sellers_paid,
       sum(funded)::UINTEGER AS funded, bool_or(denylisted) AS denylisted, sum(spent)::UBIGINT AS spent,
       sum(spent_7d)::UBIGINT AS spent_7d, sum(payments_7d)::UBIGINT AS payments_7d,
       sum(sellers_7d)::UINTEGER AS sellers_paid_7d,
       min(first_t)::BIGINT AS first_paid_at, max(last_t)::BIGINT AS last_paid_at
FROM (
    -- One row per (seller, payer) pair and per funding: one aggregation over all of them, not one
    -- per source and another over their union (two hash tables of every payer at once did not fit
    -- the rebuild's memory on the census world).
    SELECT payer AS address, n AS payments, 1 AS sellers_paid, 0 AS funded, false AS denylisted,
           spend AS spent, 0 AS spent_7d, 0 AS payments_7d, 0 AS sellers_7d, first_t, last_t
    FROM pp
    UNION ALL
    SELECT payer, 0, 0, 0, false, 0, spent_7d, payments_7d, sellers_7d, NULL, NULL FROM payer_recent
    UNION ALL
    SELECT funder, 0, 0, 1, false, 0, 0, 0, 0, NULL, NULL FROM first_funder
    UNION ALL
    SELECT address, 0, 0, 0, denylisted, 0, 0, 0, 0, NULL, NULL FROM lists
)
WHERE address NOT IN (SELECT address FROM seller_listing)
GROUP BY 1 ORDER BY 1
