-- name: stall_rate
-- kind: rate
-- Share of games with no winner by the safety cap max_rounds ("stalled"; docs/rules-interpretation.md).
-- game: paws
-- columns: cell, key, k, n
SELECT cell, 'stalled' AS key, count(*) FILTER (WHERE end_reason = 'stalled') AS k, count(*) AS n
FROM games
GROUP BY ALL
ORDER BY ALL;
