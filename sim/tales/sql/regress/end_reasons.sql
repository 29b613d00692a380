-- name: end_reasons
-- kind: categorical
-- How games end (champion_killed, losses, last_standing, draw): games per end reason.
-- game: tales
-- columns: cell, key, count
SELECT cell, end_reason AS key, count(*) AS count
FROM games
GROUP BY ALL
ORDER BY ALL;
