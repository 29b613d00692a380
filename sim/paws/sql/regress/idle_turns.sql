-- name: idle_turns
-- kind: ordinal
-- unit: idle turns
-- Idle turns: games per number of turns in which the player took no action (§3: ended the turn at
-- once, had no AP, or was knocked out by poison at its start; the designer metric idle_turns).
-- game: paws
-- columns: cell, key, count
SELECT cell, idle_turns AS key, count(*) AS count
FROM games
GROUP BY ALL
ORDER BY ALL;
