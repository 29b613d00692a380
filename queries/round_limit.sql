-- Question: "if we add a 20-round limit, how many games end by it?" (rulebook, Open points)
-- Read from one sweep played without a limit: a game would be cut by a limit of L rounds when it was
-- still undecided after round L, i.e. it lasted longer than L rounds (or stalled).
-- 95% Wilson score interval on the share.
WITH limits AS (SELECT unnest([10, 15, 20, 25, 30]) AS round_limit),
cut AS (
    SELECT l.round_limit, count(*) AS games,
           count(*) FILTER (WHERE g.rounds > l.round_limit OR g.end_reason = 'stalled') AS ended_by_limit
    FROM games g CROSS JOIN limits l
    WHERE g.round_limit = 0
    GROUP BY l.round_limit
)
SELECT round_limit, games, ended_by_limit,
       round(100.0 * ended_by_limit / games, 2) AS pct,
       round(100.0 * ((p + z*z/(2*n)) - z * sqrt(p*(1-p)/n + z*z/(4*n*n))) / (1 + z*z/n), 2) AS ci95_low,
       round(100.0 * ((p + z*z/(2*n)) + z * sqrt(p*(1-p)/n + z*z/(4*n*n))) / (1 + z*z/n), 2) AS ci95_high
FROM (SELECT *, ended_by_limit::DOUBLE / games AS p, games::DOUBLE AS n, 1.959964 AS z FROM cut)
ORDER BY round_limit;
