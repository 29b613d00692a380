-- name: draw_rate
-- kind: rate
-- Share of games with no winner (draws: the Tales counterpart of a stalled game).
-- game: tales
-- columns: cell, key, k, n
SELECT cell, 'draw' AS key, count(*) FILTER (WHERE winner_team = -1) AS k, count(*) AS n
FROM games
GROUP BY ALL
ORDER BY ALL;
