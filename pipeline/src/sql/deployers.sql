-- The deployer pass (`deployers.rs`).

-- name: launches
-- Launches up to the day with their daily observations, for the deployer model. One launch per
-- token (the earliest). An indexer that re-ran a day wrote a second row for the same (token,
-- day): the rows come in a total order, and `deployers.rs` keeps the first of each day.
SELECT lower(l.deployer) AS deployer, lower(l.token) AS token, l.platform, epoch(l.launched_at)::BIGINT AS launched_at,
       ((epoch(o.date::TIMESTAMP) - epoch(date_trunc('day', l.launched_at)))::BIGINT // 86400)::BIGINT AS day,
       o.liquidity, o.swaps, o.holders, o.price, o.creator_holding
FROM (
    SELECT * FROM token_launches WHERE launched_at < {day_end}
    QUALIFY row_number() OVER (PARTITION BY lower(token) ORDER BY launched_at, lower(deployer), platform, name, symbol) = 1
) l
LEFT JOIN launch_observations o ON o.token = l.token AND o.date::TIMESTAMP < {day_end}
ORDER BY 1, 2, 5, 6 DESC, 7 DESC, 8 DESC, 9 DESC, 10

-- name: wallets
-- The deployers' wallet ids.
SELECT w.address, w.wid FROM wallets w SEMI JOIN (SELECT lower(deployer) AS address FROM token_launches) d USING (address)

-- name: proofs
SELECT address, proof_types FROM proofs

-- name: denylisted
SELECT address FROM lists WHERE denylisted
