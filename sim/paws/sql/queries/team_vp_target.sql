-- name: team_vp_target
-- Is the Teams target right (Open points: 5 team VP, checked in 300 games per board)? For Teams games,
-- per board and team VP target: game length, end reasons, and the balance between the teams (team 0 =
-- seats 0+2) and in favour of the first player's team, with Wilson 95% intervals over games with a winner.
-- game: paws
-- fixed: mode
-- empty: these results hold no Teams games (mode = teams); a Teams sweep sets mode = "teams"
-- columns: ruleset, board, round_limit, team_vp_target, games, rounds_mean, rounds_p50, rounds_p90, turns_p50, vp_ends, last_alive_ends, round_limit_ends, stalled, decided, team0_wins, team0_share, team0_ci95_low, team0_ci95_high, first_team_wins, first_team_share, first_team_ci95_low, first_team_ci95_high
SELECT ruleset, board, round_limit, team_vp_target,
       count(*) AS games,
       avg(rounds) AS rounds_mean,
       quantile_disc(rounds, 0.5) AS rounds_p50,
       quantile_disc(rounds, 0.9) AS rounds_p90,
       quantile_disc(turns, 0.5) AS turns_p50,
       count(*) FILTER (WHERE end_reason = 'vp') AS vp_ends,
       count(*) FILTER (WHERE end_reason = 'last_alive') AS last_alive_ends,
       count(*) FILTER (WHERE end_reason = 'round_limit') AS round_limit_ends,
       count(*) FILTER (WHERE end_reason = 'stalled') AS stalled,
       count(*) FILTER (WHERE winner_team >= 0) AS decided,
       count(*) FILTER (WHERE winner_team = 0) AS team0_wins,
       team0_wins / decided AS team0_share,
       wilson_low(team0_wins, decided) AS team0_ci95_low,
       wilson_high(team0_wins, decided) AS team0_ci95_high,
       count(*) FILTER (WHERE winner_team = first_seat % 2) AS first_team_wins,
       first_team_wins / decided AS first_team_share,
       wilson_low(first_team_wins, decided) AS first_team_ci95_low,
       wilson_high(first_team_wins, decided) AS first_team_ci95_high
FROM games
WHERE mode = 'teams'
GROUP BY ALL
ORDER BY ALL;
