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
    SELECT payer AS address, sum(n) AS payments, count(*) AS sellers_paid, 0 AS funded, false AS denylisted,
           sum(spend) AS spent, 0 AS spent_7d, 0 AS payments_7d, 0 AS sellers_7d,
           min(first_t) AS first_t, max(last_t) AS last_t
    FROM pp GROUP BY 1
    UNION ALL
    SELECT payer, 0, 0, 0, false, 0, spent_7d, payments_7d, sellers_7d, NULL, NULL FROM payer_recent
    UNION ALL
    SELECT funder, 0, 0, count(*), false, 0, 0, 0, 0, NULL, NULL FROM first_funder GROUP BY 1
    UNION ALL
    SELECT address, 0, 0, 0, denylisted, 0, 0, 0, 0, NULL, NULL FROM lists
)
WHERE address NOT IN (SELECT address FROM seller_listing)
GROUP BY 1 ORDER BY 1
