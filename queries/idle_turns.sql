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
), per_game AS (
    SELECT COLUMNS('^(game|ruleset|board|mode|players|round_limit|team_vp_target)$'), turns, idle_turns,
           row(*COLUMNS('^(game|ruleset|board|mode|players|round_limit|team_vp_target)$')) AS setup_key
    FROM recorded
), with_ratio AS (
    SELECT *, sum(idle_turns) OVER w / sum(turns) OVER w AS ratio
    FROM per_game
    WINDOW w AS (PARTITION BY setup_key)
), counted AS (
    SELECT COLUMNS('^(game|ruleset|board|mode|players|round_limit|team_vp_target)$'),
           count(*) AS games, sum(turns) AS turns, sum(idle_turns) AS idle_turns,
           sum(idle_turns) / sum(turns) AS share,
           avg(turns) AS turns_mean,
           var_samp(idle_turns - ratio * turns) AS resid_var     -- the delta method: per game, idle - share x turns
    FROM with_ratio
    GROUP BY ALL
)
SELECT COLUMNS('^(game|ruleset|board|mode|players|round_limit|team_vp_target)$'), games, turns, idle_turns, share,
       CASE WHEN share IS NOT NULL
            THEN greatest(0.0, share - 1.959963984540054 * sqrt(resid_var / games) / turns_mean) END AS ci95_low,
       CASE WHEN share IS NOT NULL
            THEN least(1.0, share + 1.959963984540054 * sqrt(resid_var / games) / turns_mean) END AS ci95_high
FROM counted
ORDER BY ALL;
