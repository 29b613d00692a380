-- name: end_reasons
-- kind: categorical
-- How games end (§13; vp, last_alive, round_limit, stalled): games per end reason.
-- game: paws
-- columns: cell, key, count
SELECT cell, end_reason AS key, count(*) AS count
FROM games
GROUP BY ALL
ORDER BY ALL;
