-- name: game_length
-- kind: ordinal
-- unit: rounds
-- Game length: games per number of rounds played (the last round may be partial).
-- game: paws
-- columns: cell, key, count
SELECT cell, rounds AS key, count(*) AS count
FROM games
GROUP BY ALL
ORDER BY ALL;
