-- name: game_length
-- How long are games? Rounds and turns: mean and percentiles (pNN = nearest rank: the smallest value
-- with at least NN% of games at or below it), per game and setup.
-- Any game: groups by whichever of ruleset, board, mode, players, round_limit, team_vp_target the records have.
-- game: any
-- columns: game, ruleset?, board?, mode?, players?, team_vp_target?, round_limit?, games, rounds_mean, rounds_p10, rounds_p25, rounds_p50, rounds_p75, rounds_p90, rounds_p99, rounds_max, turns_mean, turns_p10, turns_p50, turns_p90, turns_p99, turns_max
SELECT COLUMNS('^(game|ruleset|board|mode|players|round_limit|team_vp_target)$'),
       count(*) AS games,
       avg(rounds) AS rounds_mean,
       quantile_disc(rounds, 0.10) AS rounds_p10,
       quantile_disc(rounds, 0.25) AS rounds_p25,
       quantile_disc(rounds, 0.50) AS rounds_p50,
       quantile_disc(rounds, 0.75) AS rounds_p75,
       quantile_disc(rounds, 0.90) AS rounds_p90,
       quantile_disc(rounds, 0.99) AS rounds_p99,
       max(rounds) AS rounds_max,
       avg(turns) AS turns_mean,
       quantile_disc(turns, 0.10) AS turns_p10,
       quantile_disc(turns, 0.50) AS turns_p50,
       quantile_disc(turns, 0.90) AS turns_p90,
       quantile_disc(turns, 0.99) AS turns_p99,
       max(turns) AS turns_max
FROM games
GROUP BY ALL
ORDER BY ALL;
