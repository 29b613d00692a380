-- name: seat_win_rate
-- kind: rate
-- Free-for-all: share of games each seat wins, and the first player's (§2.5: the highest roll goes
-- first; §13 winning). Teams games have no seat winner (see team_win_rate).
-- game: paws
-- columns: cell, key, k, n
WITH ffa AS (
    SELECT cell, winner_seat, first_seat, unnest(range(players::BIGINT)) AS seat FROM games WHERE mode = 'ffa'
)
SELECT cell, 'seat ' || seat AS key, count(*) FILTER (WHERE winner_seat = seat) AS k, count(*) AS n
FROM ffa GROUP BY ALL
UNION ALL
SELECT cell, 'first player' AS key, count(*) FILTER (WHERE winner_seat = first_seat) AS k, count(*) AS n
FROM games WHERE mode = 'ffa' GROUP BY ALL
ORDER BY ALL;
