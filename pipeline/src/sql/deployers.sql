-- Launches up to the day with their daily observations, for the deployer model. One launch per
-- token (the earliest) and one observation per (token, day): an indexer that re-ran a day wrote a
-- second row, and the pick among duplicates is a total order (determinism).
SELECT lower(l.deployer), lower(l.token), l.platform, epoch(l.launched_at)::BIGINT,
       ((epoch(o.date::TIMESTAMP) - epoch(date_trunc('day', l.launched_at)))::BIGINT // 86400)::BIGINT AS day,
       o.liquidity, o.swaps, o.holders, o.price, o.creator_holding
FROM (
    SELECT * FROM token_launches WHERE launched_at < {day_end}
    QUALIFY row_number() OVER (PARTITION BY lower(token) ORDER BY launched_at, lower(deployer), platform, name, symbol) = 1
) l
LEFT JOIN (
    SELECT * FROM launch_observations WHERE date::TIMESTAMP < {day_end}
    QUALIFY row_number() OVER (PARTITION BY token, date
                               ORDER BY liquidity DESC, swaps DESC, holders DESC, price DESC, creator_holding) = 1
) o ON o.token = l.token
ORDER BY 1, 2, 5
