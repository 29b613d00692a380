-- name: game_length
-- How long are games? Rounds and turns: mean and percentiles (pNN = nearest rank: the smallest value
-- with at least NN% of games at or below it), per game and setup.
-- Any game: groups by whichever of ruleset, board, mode, players, round_limit, team_vp_target the records have.
-- game: any
-- columns: game, ruleset?, board?, mode?, players?, team_vp_target?, round_limit?, games, rounds_mean, rounds_p10, rounds_p25, rounds_p50, rounds_p75, rounds_p90, rounds_p99, rounds_max, turns_mean, turns_p10, turns_p50, turns_p90, turns_p99, turns_max
WITH joint AS (   -- one pass over the games: how many games had each (rounds, turns), per setup
    SELECT COLUMNS('^(game|ruleset|board|mode|players|round_limit|team_vp_target)$'), rounds, turns, count(*) AS n
    FROM games
    GROUP BY ALL
), hist AS (      -- each column's own histogram (a few hundred rows)
    SELECT COLUMNS('^(game|ruleset|board|mode|players|round_limit|team_vp_target)$'), 'r' AS kind, rounds AS v, sum(n) AS n FROM joint GROUP BY ALL
    UNION ALL
    SELECT COLUMNS('^(game|ruleset|board|mode|players|round_limit|team_vp_target)$'), 't' AS kind, turns AS v, sum(n) AS n FROM joint GROUP BY ALL
), cum AS (       -- games at or below each value (NULLs last: not counted), and the games with a value
    SELECT *, sum(n) OVER (PARTITION BY setup_key, kind ORDER BY v ROWS UNBOUNDED PRECEDING) AS c,
           sum(n) FILTER (WHERE v IS NOT NULL) OVER (PARTITION BY setup_key, kind) AS total
    FROM (SELECT *, row(*COLUMNS('^(game|ruleset|board|mode|players|round_limit|team_vp_target)$')) AS setup_key FROM hist)
)
-- pNN, nearest rank: the smallest value with at least ceil(NN% x games) games at or below it (as quantile_disc)
SELECT COLUMNS('^(game|ruleset|board|mode|players|round_limit|team_vp_target)$'),
       (sum(n) FILTER (WHERE kind = 'r'))::BIGINT AS games,
       sum(v::HUGEINT * n) FILTER (WHERE kind = 'r')::DOUBLE / sum(n) FILTER (WHERE kind = 'r' AND v IS NOT NULL)
           AS rounds_mean,
       min(v) FILTER (WHERE kind = 'r' AND c >= greatest(1, (total * 10 + 99) // 100)) AS rounds_p10,
       min(v) FILTER (WHERE kind = 'r' AND c >= greatest(1, (total * 25 + 99) // 100)) AS rounds_p25,
       min(v) FILTER (WHERE kind = 'r' AND c >= greatest(1, (total * 50 + 99) // 100)) AS rounds_p50,
       min(v) FILTER (WHERE kind = 'r' AND c >= greatest(1, (total * 75 + 99) // 100)) AS rounds_p75,
       min(v) FILTER (WHERE kind = 'r' AND c >= greatest(1, (total * 90 + 99) // 100)) AS rounds_p90,
       min(v) FILTER (WHERE kind = 'r' AND c >= greatest(1, (total * 99 + 99) // 100)) AS rounds_p99,
       max(v) FILTER (WHERE kind = 'r') AS rounds_max,
       sum(v::HUGEINT * n) FILTER (WHERE kind = 't')::DOUBLE / sum(n) FILTER (WHERE kind = 't' AND v IS NOT NULL)
           AS turns_mean,
       min(v) FILTER (WHERE kind = 't' AND c >= greatest(1, (total * 10 + 99) // 100)) AS turns_p10,
       min(v) FILTER (WHERE kind = 't' AND c >= greatest(1, (total * 50 + 99) // 100)) AS turns_p50,
       min(v) FILTER (WHERE kind = 't' AND c >= greatest(1, (total * 90 + 99) // 100)) AS turns_p90,
       min(v) FILTER (WHERE kind = 't' AND c >= greatest(1, (total * 99 + 99) // 100)) AS turns_p99,
       max(v) FILTER (WHERE kind = 't') AS turns_max
FROM cum
GROUP BY ALL
ORDER BY ALL;
