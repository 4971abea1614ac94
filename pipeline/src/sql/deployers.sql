-- Launches up to the day with their daily observations, for the deployer model.
SELECT lower(l.deployer), lower(l.token), l.platform, epoch(l.launched_at)::BIGINT,
       ((epoch(o.date::TIMESTAMP) - epoch(date_trunc('day', l.launched_at)))::BIGINT // 86400)::BIGINT AS day,
       o.liquidity, o.swaps, o.holders, o.price, o.creator_holding
FROM token_launches l
LEFT JOIN launch_observations o ON o.token = l.token AND o.date::TIMESTAMP < {day_end}
WHERE l.launched_at < {day_end}
ORDER BY 1, 2, 5
