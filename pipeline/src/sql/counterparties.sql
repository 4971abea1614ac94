-- Known wallets that are not sellers: payers, non-hub funders, listed addresses. Uses the
-- temporary tables of sellers.sql.
SELECT address, sum(payments)::UBIGINT, sum(sellers_paid)::UINTEGER, sum(funded)::UINTEGER, bool_or(denylisted)
FROM (
    SELECT payer AS address, sum(n) AS payments, count(*) AS sellers_paid, 0 AS funded, false AS denylisted
    FROM pp GROUP BY 1
    UNION ALL
    SELECT funder, 0, 0, count(*), false FROM first_funder GROUP BY 1
    UNION ALL
    SELECT address, 0, 0, 0, denylisted FROM lists
)
WHERE address NOT IN (SELECT address FROM seller_listing)
GROUP BY 1 ORDER BY 1
