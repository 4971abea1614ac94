-- Score history: the derived `daily_scores` of earlier rebuilds, up to 89 days back (`history.rs`
-- adds the day being rebuilt).
SELECT address, strftime(date, '%Y-%m-%d') AS date, score, settlements, methodology FROM daily_scores
WHERE date >= {d90} AND date::TIMESTAMP < {day_end} - INTERVAL 1 DAY ORDER BY address, date
