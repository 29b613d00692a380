-- name: bot_win_rate
-- kind: rate
-- Mixed tables only (two or more bot specs in a game): share of seat-games each bot spec wins
-- (free-for-all: its seat wins; Teams: its team wins). n counts seats, so it is players x games.
-- game: paws
-- columns: cell, key, k, n
WITH seats AS (
    SELECT cell, mode, winner_seat, winner_team,
           unnest(bots) AS bot, unnest(range(len(bots)::BIGINT)) AS seat
    FROM games
    WHERE len(list_distinct(bots)) > 1
)
SELECT cell, bot AS key,
       count(*) FILTER (WHERE CASE WHEN mode = 'teams' THEN winner_team = seat % 2 ELSE winner_seat = seat END) AS k,
       count(*) AS n
FROM seats
GROUP BY ALL
ORDER BY ALL;
