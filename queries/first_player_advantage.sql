-- name: first_player_advantage
-- Does going first help? Among the games somebody won ("decided"), the first player's share (teams: the first
-- player's team) against the fair share (1 / sides), per game and setup, with Wilson 95% intervals; the games
-- nobody won (draws, stalls, ties at the round limit) are their own line (undecided_share), never a loss of the
-- first player's. Any game: reads seat_outcomes.
-- game: any
-- empty: these results hold no games
-- columns: game, ruleset?, board?, mode?, players?, team_vp_target?, round_limit?, games, decided, undecided_share, undecided_ci95_low, undecided_ci95_high, first_wins, first_share, ci95_low, ci95_high, fair_share, advantage, advantage_low, advantage_high
WITH counted AS (
    SELECT COLUMNS('^(game|ruleset|board|mode|players|round_limit|team_vp_target)$'),
           sides,
           count(*) AS games,
           count(*) FILTER (WHERE winning_side >= 0) AS decided,
           count(*) FILTER (WHERE winning_side = first_player_side) AS first_wins
    FROM seat_outcomes
    GROUP BY ALL
)
SELECT COLUMNS('^(game|ruleset|board|mode|players|round_limit|team_vp_target)$'), games, decided,
       (games - decided) / games AS undecided_share,
       wilson_low(games - decided, games) AS undecided_ci95_low,
       wilson_high(games - decided, games) AS undecided_ci95_high,
       first_wins,
       first_wins / nullif(decided, 0) AS first_share,
       wilson_low(first_wins, decided) AS ci95_low, wilson_high(first_wins, decided) AS ci95_high,
       1.0 / sides AS fair_share,
       first_wins / nullif(decided, 0) - 1.0 / sides AS advantage,
       wilson_low(first_wins, decided) - 1.0 / sides AS advantage_low,
       wilson_high(first_wins, decided) - 1.0 / sides AS advantage_high
FROM counted
ORDER BY ALL;
