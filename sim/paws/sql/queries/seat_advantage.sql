-- name: seat_advantage
-- Does where you sit matter? Free-for-all win rate of each seat and of the first player (§2.5: the
-- highest roll goes first), with Wilson 95% intervals; fair_share = 1 / players. Teams: see team_vp_target.
-- game: paws
-- fixed: mode
-- columns: ruleset, board, players, round_limit, who, games, wins, win_rate, ci95_low, ci95_high, fair_share
WITH per_setup AS (
    SELECT ruleset, board, players, round_limit,
           count(*) AS games,
           count(*) FILTER (WHERE winner_seat = first_seat) AS first_wins,
           [count(*) FILTER (WHERE winner_seat = 0), count(*) FILTER (WHERE winner_seat = 1),
            count(*) FILTER (WHERE winner_seat = 2), count(*) FILTER (WHERE winner_seat = 3)] AS seat_wins
    FROM games
    WHERE mode = 'ffa'
    GROUP BY ALL
), rows AS (
    SELECT ruleset, board, players, round_limit, 'first player' AS who, games, first_wins AS wins FROM per_setup
    UNION ALL
    SELECT ruleset, board, players, round_limit, 'seat ' || seat AS who, games, seat_wins[seat + 1] AS wins
    FROM (SELECT *, unnest(range(players::BIGINT)) AS seat FROM per_setup)
)
SELECT *, wins / games AS win_rate, wilson_low(wins, games) AS ci95_low, wilson_high(wins, games) AS ci95_high,
       1 / players AS fair_share
FROM rows
ORDER BY ALL;
