-- name: round_limit
-- "If we add a round limit, how many games end by it?" (rulebook, Open points), read from games played
-- with no limit: a limit of L rounds decides a game still undecided after round L. share is a fraction
-- of 1 (as in every query: 0.0059 = 0.59%), with its Wilson 95% interval. The README's first example;
-- round_limit_effect has the winners too.
-- game: paws
-- param: limits int[] >= 1 <= 1000 = 10,15,20,25,30 | round limits to try (comma separated)
-- fixed: round_limit
-- empty: this query reads games played with no round limit (round_limit = 0), where every game runs its course; these results hold none
-- columns: round_limit, games, ended_by_limit, share, ci95_low, ci95_high
SELECT l.round_limit, count(*) AS games,
       count(*) FILTER (WHERE decided_by_limit(g.rounds, g.end_reason, l.round_limit)) AS ended_by_limit,
       ended_by_limit / games AS share,
       wilson_low(ended_by_limit, games) AS ci95_low,
       wilson_high(ended_by_limit, games) AS ci95_high
FROM games g CROSS JOIN (SELECT unnest($limits::INTEGER[]) AS round_limit) l
WHERE g.round_limit = 0
GROUP BY l.round_limit
ORDER BY l.round_limit;
