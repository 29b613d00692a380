-- name: balance
-- How far apart are the sides? The largest gap between two sides' win shares (free-for-all: seats; teams:
-- teams), per game and setup, with a simultaneous 95% interval: Wilson intervals for every side's share at
-- the Bonferroni level 0.05 / sides hold together with 95% probability, and the gap's bounds follow from
-- them (low = the largest low bound minus the smallest high bound, at least 0; high = the largest high bound
-- minus the smallest low bound). A draw is no side's win. Any game: reads seat_outcomes (each game's sql/seats.sql).
-- game: any
-- columns: game, ruleset?, board?, mode?, players?, team_vp_target?, round_limit?, games, sides, best_side, best_share, worst_side, worst_share, gap, ci95_low, ci95_high, fair_share
WITH per_game AS (
    SELECT COLUMNS('^(game|ruleset|board|mode|players|round_limit|team_vp_target)$'),
           sides, winning_side
    FROM seat_outcomes
), counted AS (
    SELECT COLUMNS('^(game|ruleset|board|mode|players|round_limit|team_vp_target|sides)$'),
           count(*) AS games,
           [count(*) FILTER (WHERE winning_side = 0), count(*) FILTER (WHERE winning_side = 1),
            count(*) FILTER (WHERE winning_side = 2), count(*) FILTER (WHERE winning_side = 3),
            count(*) FILTER (WHERE winning_side = 4), count(*) FILTER (WHERE winning_side = 5),
            count(*) FILTER (WHERE winning_side = 6), count(*) FILTER (WHERE winning_side = 7)] AS wins
    FROM per_game
    GROUP BY ALL
), shares AS (
    SELECT *, 1.0 / sides AS fair_share,
           -- z of 1 - 0.025 / sides (Bonferroni), for up to 8 sides
           [1.959964, 2.241403, 2.393980, 2.497705, 2.575829, 2.638257, 2.690110, 2.734369][sides] AS z,
           wins[1:sides] AS side_wins
    FROM counted
), bounds AS (
    SELECT *,
           [wilson_low(k, games, z := z) FOR k IN side_wins] AS lows,
           [wilson_high(k, games, z := z) FOR k IN side_wins] AS highs
    FROM shares
)
SELECT COLUMNS('^(game|ruleset|board|mode|players|round_limit|team_vp_target)$'), games, sides,
       list_position(side_wins, list_max(side_wins)) - 1 AS best_side,
       list_max(side_wins) / games AS best_share,
       list_position(side_wins, list_min(side_wins)) - 1 AS worst_side,
       list_min(side_wins) / games AS worst_share,
       (list_max(side_wins) - list_min(side_wins)) / games AS gap,
       greatest(0.0, list_max(lows) - list_min(highs)) AS ci95_low,
       list_max(highs) - list_min(lows) AS ci95_high,
       fair_share
FROM bounds
ORDER BY ALL;
