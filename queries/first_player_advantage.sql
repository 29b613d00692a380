-- name: first_player_advantage
-- Does going first help? The first player's win share (teams: the first player's team) minus the fair share
-- (1 / sides), per game and setup, with the Wilson 95% interval of the share moved by the same amount.
-- A draw is no win for anyone, so with draws the fair share is an upper mark. Any game: reads seat_outcomes.
-- game: any
-- columns: game, ruleset?, board?, mode?, players?, team_vp_target?, round_limit?, games, first_wins, first_share, ci95_low, ci95_high, fair_share, advantage, advantage_low, advantage_high
WITH counted AS (
    SELECT COLUMNS('^(game|ruleset|board|mode|players|round_limit|team_vp_target)$'),
           sides,
           count(*) AS games,
           count(*) FILTER (WHERE winning_side = first_player_side) AS first_wins
    FROM seat_outcomes
    GROUP BY ALL
)
SELECT COLUMNS('^(game|ruleset|board|mode|players|round_limit|team_vp_target)$'), games, first_wins,
       first_wins / games AS first_share,
       wilson_low(first_wins, games) AS ci95_low, wilson_high(first_wins, games) AS ci95_high,
       1.0 / sides AS fair_share,
       first_wins / games - 1.0 / sides AS advantage,
       wilson_low(first_wins, games) - 1.0 / sides AS advantage_low,
       wilson_high(first_wins, games) - 1.0 / sides AS advantage_high
FROM counted
ORDER BY ALL;
