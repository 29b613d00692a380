-- name: game_length
-- How long are games? Rounds and turns: mean and percentiles (pNN = nearest rank: the smallest value
-- with at least NN% of games at or below it), per game and setup.
-- Any game: groups by whichever of ruleset, board, mode, players, round_limit, team_vp_target the records have.
-- game: any
-- columns: game, ruleset?, board?, mode?, players?, team_vp_target?, round_limit?, games, rounds_mean, rounds_p10, rounds_p25, rounds_p50, rounds_p75, rounds_p90, rounds_p99, rounds_max, turns_mean, turns_p10, turns_p50, turns_p90, turns_p99, turns_max
WITH per_setup AS (   -- one list-quantile aggregate per column: a single sort, not one per percentile
    SELECT COLUMNS('^(game|ruleset|board|mode|players|round_limit|team_vp_target)$'),
           count(*) AS games,
           avg(rounds) AS rounds_mean,
           quantile_disc(rounds, [0.10, 0.25, 0.50, 0.75, 0.90, 0.99]) AS rq,
           max(rounds) AS rounds_max,
           avg(turns) AS turns_mean,
           quantile_disc(turns, [0.10, 0.50, 0.90, 0.99]) AS tq,
           max(turns) AS turns_max
    FROM games
    GROUP BY ALL
)
SELECT COLUMNS('^(game|ruleset|board|mode|players|round_limit|team_vp_target)$'), games, rounds_mean,
       rq[1] AS rounds_p10, rq[2] AS rounds_p25, rq[3] AS rounds_p50, rq[4] AS rounds_p75, rq[5] AS rounds_p90,
       rq[6] AS rounds_p99, rounds_max, turns_mean,
       tq[1] AS turns_p10, tq[2] AS turns_p50, tq[3] AS turns_p90, tq[4] AS turns_p99, turns_max
FROM per_setup
ORDER BY ALL;
