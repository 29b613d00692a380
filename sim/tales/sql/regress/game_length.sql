-- name: game_length
-- kind: ordinal
-- unit: rounds
-- Game length: games per number of rounds played.
-- game: tales
-- columns: cell, key, count
SELECT cell, rounds AS key, count(*) AS count
FROM games
GROUP BY ALL
ORDER BY ALL;
