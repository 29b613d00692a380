-- name: stall_rate
-- Share of games that stall (no winner by max_rounds) or end by the round limit, by ruleset, board,
-- mode, players and round limit, with Wilson 95% intervals on the share.
-- game: paws
-- columns: ruleset, board, mode, players, round_limit, games, stalled, round_limit_ends, share, ci95_low, ci95_high
SELECT ruleset, board, mode, players, round_limit,
       count(*) AS games,
       count(*) FILTER (WHERE end_reason = 'stalled') AS stalled,
       count(*) FILTER (WHERE end_reason = 'round_limit') AS round_limit_ends,
       (stalled + round_limit_ends) / games AS share,
       wilson_low(stalled + round_limit_ends, games) AS ci95_low,
       wilson_high(stalled + round_limit_ends, games) AS ci95_high
FROM games AS g
GROUP BY ALL
ORDER BY ALL;
