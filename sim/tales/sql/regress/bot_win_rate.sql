-- name: bot_win_rate
-- kind: rate
-- Mixed tables only (two or more bot specs in a game): share of seat-games each bot spec wins (its
-- team, seat % 2, wins). n counts seats, so it is seats x games.
-- game: tales
-- columns: cell, key, k, n
WITH seats AS (
    SELECT cell, winner_team, unnest(bots) AS bot, unnest(range(len(bots)::BIGINT)) AS seat
    FROM games
    WHERE len(list_distinct(bots)) > 1
)
SELECT cell, bot AS key, count(*) FILTER (WHERE winner_team = seat % 2) AS k, count(*) AS n
FROM seats
GROUP BY ALL
ORDER BY ALL;
