-- name: knockouts
-- How violent are games? Knockouts per game (all, by players in fights, by monsters), share of games
-- with at least one knockout (Wilson 95%), players out of lives per game, and last-alive endings.
-- game: paws
-- columns: ruleset, board, mode, players, games, knockouts_per_game, by_players_per_game, by_monsters_per_game, games_with_knockout, knockout_share, ci95_low, ci95_high, out_of_lives_per_game, last_alive_ends
WITH ko_games AS NOT MATERIALIZED (   -- parts written without the per-game columns (infra/derived.py): NULL
    SELECT * FROM (SELECT NULL::BIGINT AS knockouts_sum, NULL::BIGINT AS knockouts_dealt_sum,
                          NULL::TINYINT AS out_of_lives WHERE false)
    UNION ALL BY NAME SELECT * FROM games
), per_game AS (
    SELECT ruleset, board, mode, players, end_reason,
           knockouts_sum AS ko, knockouts_dealt_sum AS ko_by_players, out_of_lives
    FROM ko_games
    WHERE out_of_lives IS NOT NULL     -- the sums below, worked out when the part was written
    UNION ALL
    SELECT ruleset, board, mode, players, end_reason,
           list_sum(knockouts) AS ko,
           list_sum(knockouts_dealt) AS ko_by_players,
           -- at most 4 seats; a missing seat's comparison is NULL and counts 0
           coalesce((lives_left[1] = 0)::INT, 0) + coalesce((lives_left[2] = 0)::INT, 0)
             + coalesce((lives_left[3] = 0)::INT, 0) + coalesce((lives_left[4] = 0)::INT, 0) AS out_of_lives
    FROM ko_games
    WHERE out_of_lives IS NULL
)
SELECT ruleset, board, mode, players,
       count(*) AS games,
       avg(ko) AS knockouts_per_game,
       avg(ko_by_players) AS by_players_per_game,
       avg(ko - ko_by_players) AS by_monsters_per_game,
       count(*) FILTER (WHERE ko > 0) AS games_with_knockout,
       games_with_knockout / games AS knockout_share,
       wilson_low(games_with_knockout, games) AS ci95_low,
       wilson_high(games_with_knockout, games) AS ci95_high,
       avg(out_of_lives) AS out_of_lives_per_game,
       count(*) FILTER (WHERE end_reason = 'last_alive') AS last_alive_ends
FROM per_game
GROUP BY ALL
ORDER BY ALL;
