-- name: team_win_rate
-- kind: rate
-- Share of games each team wins (2 players: team = seat; 2 vs. 2: team = seat % 2), and the share the
-- team that began the first battle wins ("The higher dice roll decides who may begin").
-- game: tales
-- columns: cell, key, k, n
SELECT cell, 'team ' || team AS key, count(*) FILTER (WHERE winner_team = team) AS k, count(*) AS n
FROM (SELECT cell, winner_team, unnest(range(2)) AS team FROM games)
GROUP BY ALL
UNION ALL
SELECT cell, 'first team' AS key, count(*) FILTER (WHERE winner_team = first_side) AS k, count(*) AS n
FROM games GROUP BY ALL
ORDER BY ALL;
