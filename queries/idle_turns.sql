-- name: idle_turns
-- How often does a player take a turn and do nothing? Share of turns with no action taken, per game and
-- setup: the records' idle_turns (turns with no action) over turns, a ratio of sums with a 95% interval by
-- the delta method over games (turns of one game are not independent, so not a Wilson interval). Only
-- records that keep an idle_turns column have this answer: for records that lack it (a game whose every
-- turn takes an action keeps none) idle_turns and the share are empty (NULL).
-- game: any
-- columns: game, ruleset?, board?, mode?, players?, team_vp_target?, round_limit?, games, turns, idle_turns, share, ci95_low, ci95_high
WITH recorded AS (   -- a record without the column: idle_turns NULL
    SELECT * FROM (SELECT NULL::INTEGER AS idle_turns WHERE false) UNION ALL BY NAME SELECT * FROM games
), counted AS (   -- one pass: the residuals' variance from exact integer sums (no window over the setup)
    SELECT COLUMNS('^(game|ruleset|board|mode|players|round_limit|team_vp_target)$'),
           count(*) AS games, sum(turns) AS turns, sum(idle_turns) AS idle_turns,
           sum(idle_turns) / sum(turns) AS share,
           avg(turns) AS turns_mean,
           count(idle_turns) AS n_idle,
           sum(idle_turns::BIGINT * idle_turns) AS s_ii, sum(idle_turns::BIGINT * turns) AS s_it,
           sum(turns::BIGINT * turns + 0 * idle_turns) AS s_tt,                  -- over games with idle_turns
           sum(turns + 0 * idle_turns) AS s_t
    FROM recorded
    GROUP BY ALL
), with_var AS (   -- the delta method: per game e = idle - share x turns; sum(e) = 0, so
    -- var_samp(e) = (sum(idle^2) - 2 share sum(idle turns) + share^2 sum(turns^2) - (sum(e))^2 / n) / (n - 1)
    SELECT *,
           CASE WHEN n_idle > 1 THEN greatest(0.0, (s_ii::DOUBLE - 2 * share * s_it::DOUBLE + share * share * s_tt::DOUBLE
                                                 - (idle_turns - share * s_t) ^ 2 / n_idle) / (n_idle - 1)) END
               AS resid_var
    FROM counted
)
SELECT COLUMNS('^(game|ruleset|board|mode|players|round_limit|team_vp_target)$'), games, turns, idle_turns, share,
       CASE WHEN share IS NOT NULL
            THEN greatest(0.0, share - 1.959963984540054 * sqrt(resid_var / games) / turns_mean) END AS ci95_low,
       CASE WHEN share IS NOT NULL
            THEN least(1.0, share + 1.959963984540054 * sqrt(resid_var / games) / turns_mean) END AS ci95_high
FROM with_var
ORDER BY ALL;
