-- name: end_reasons
-- How do games end? Share of each end reason per game and setup, with Wilson 95% intervals.
-- Any game: groups by whichever of ruleset, board, mode, players, round_limit, team_vp_target the records have
-- (each game's end reasons: playtest columns GAME, column end_reason).
-- game: any
-- columns: game, ruleset?, board?, mode?, players?, team_vp_target?, round_limit?, end_reason, games, share, ci95_low, ci95_high
WITH counted AS (
    SELECT COLUMNS('^(game|ruleset|board|mode|players|round_limit|team_vp_target)$'), end_reason, count(*) AS games,
           row(*COLUMNS('^(game|ruleset|board|mode|players|round_limit|team_vp_target)$')) AS setup_key
    FROM games
    GROUP BY ALL
), totals AS (
    SELECT * EXCLUDE (setup_key), sum(games) OVER (PARTITION BY setup_key) AS all_games FROM counted
)
SELECT * EXCLUDE (all_games),
       games / all_games AS share,
       wilson_low(games, all_games) AS ci95_low,
       wilson_high(games, all_games) AS ci95_high
FROM totals
ORDER BY ALL;
