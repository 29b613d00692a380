-- name: draw_share
-- How often does nobody win? Share of games with no winner (a draw, a tie at the round limit or a stalled
-- game: winning_side = -1 in seat_outcomes), per game and setup, with Wilson 95% intervals. Any game.
-- game: any
-- columns: game, ruleset?, board?, mode?, players?, team_vp_target?, round_limit?, games, no_winner, share, ci95_low, ci95_high
SELECT COLUMNS('^(game|ruleset|board|mode|players|round_limit|team_vp_target)$'),
       count(*) AS games,
       count(*) FILTER (WHERE winning_side = -1) AS no_winner,
       count(*) FILTER (WHERE winning_side = -1) / count(*) AS share,
       wilson_low(count(*) FILTER (WHERE winning_side = -1), count(*)) AS ci95_low,
       wilson_high(count(*) FILTER (WHERE winning_side = -1), count(*)) AS ci95_high
FROM seat_outcomes
GROUP BY ALL
ORDER BY ALL;
