-- How each of today's sellers was paid in its last 30 days (`settlement_mix.rs`): the settlement
-- pass's `seller_forms` (transfers by form and by the builder codes on the settling call) and the
-- auth-capture escrow's outcomes for payments to the seller (lake `escrow_events`). Published as
-- `settlement-forms.parquet`; no score, flag or decision reads it (SCORING.md § 1, *Settlement
-- forms*).
-- Reads: seller_forms (the settlement pass), seller_ids (`listings.sql`), escrow_events (lake).

-- name: forms
SELECT address, form, app, wallet, services, n::UBIGINT AS n FROM seller_forms;

-- name: escrow
SELECT i.address, e.action, count(*)::UBIGINT AS n, sum(e.amount)::UBIGINT AS amount
FROM escrow_events e JOIN seller_ids i ON e.receiver = i.address
WHERE e.date >= CAST({d30} AS DATE) AND e.block_time >= {d30} AND e.block_time < {day_end} AND e.action IS NOT NULL
GROUP BY i.address, e.action;
