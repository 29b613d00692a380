-- name: people_win_rate
-- kind: rate
-- Share of the games a people (animalis, schatten) plays in that it wins (winner_people).
-- game: tales
-- columns: cell, key, k, n
SELECT cell, p AS key, count(*) FILTER (WHERE winner_people = p) AS k, count(*) AS n
FROM (SELECT cell, winner_people, unnest(list_distinct(people)) AS p FROM games)
GROUP BY ALL
ORDER BY ALL;
