-- name: team_win_rate
-- kind: rate
-- Teams: share of games each team wins (team 0: seats 0 and 2, team 1: seats 1 and 3; §1, §13).
-- game: paws
-- columns: cell, key, k, n
SELECT cell, 'team ' || team AS key, count(*) FILTER (WHERE winner_team = team) AS k, count(*) AS n
FROM (SELECT cell, winner_team, unnest(range(2)) AS team FROM games WHERE mode = 'teams')
GROUP BY ALL
ORDER BY ALL;
