-- name: round_limit_effect
-- What would a round limit do (Open points)? For each limit L, from games played with no limit: how many
-- games the limit ends (still going after round L: ended_by_limit; "decided" means a game somebody won), with Wilson 95% intervals, how many of those
-- are draws (a tie for most VP after round L), how many games change winner against the same seeds with
-- no limit, and the winner distribution (wins per seat, Teams: per team) with and without the limit.
-- Same rule as round_limit in docs/rules-interpretation.md, computed from vp_trace after the fact.
-- game: paws
-- param: limits int[] >= 1 <= 1000 = 15,20,25,30 | round limits to try (comma separated)
-- fixed: round_limit
-- empty: this query reads games played with no round limit (round_limit = 0), where every game runs its course; these results hold none
-- columns: ruleset, board, mode, players, round_limit, games, ended_by_limit, ended_by_limit_share, ci95_low, ci95_high, draws, winner_changed, wins_no_limit, wins_with_limit, no_winner_no_limit, no_winner_with_limit, first_share_no_limit, first_share_with_limit
WITH rl_games AS NOT MATERIALIZED (   -- parts written without lead_leaders (infra/derived.py): NULL
    SELECT * FROM (SELECT NULL::VARCHAR AS lead_leaders, NULL::BOOLEAN AS limit_leaders_fit WHERE false)
    UNION ALL BY NAME SELECT * FROM games
), base AS (
    SELECT ruleset, board, mode, players, end_reason, rounds, lead_leaders, limit_leaders_fit, vp_trace,
           CASE WHEN mode = 'teams' THEN first_seat % 2 ELSE first_seat END AS first,
           CASE WHEN mode = 'teams' THEN winner_team ELSE winner_seat END AS winner
    FROM rl_games
    WHERE round_limit = 0
), limits AS (
    SELECT unnest($limits::INTEGER[]) AS round_limit
), per_game AS (
    -- lead_leaders (the sole leader after each round, infra/derived.py: chr(48 + side), '/' for a tie) is
    -- limit_winner's answer for every round a limit can decide where limit_leaders_fit
    -- (sim/paws/sql/derived.sql); the other games walk vp_trace
    SELECT b.* EXCLUDE (lead_leaders, limit_leaders_fit), l.round_limit,
           decided_by_limit(b.rounds, b.end_reason, l.round_limit) AS by_limit,
           CASE WHEN by_limit THEN ascii(b.lead_leaders[l.round_limit]) - 48 ELSE b.winner END AS winner_limited
    FROM (SELECT * EXCLUDE (vp_trace) FROM base WHERE limit_leaders_fit IS NOT NULL) b CROSS JOIN limits l
    UNION ALL
    SELECT b.* EXCLUDE (vp_trace, lead_leaders, limit_leaders_fit), l.round_limit,
           decided_by_limit(b.rounds, b.end_reason, l.round_limit) AS by_limit,
           CASE WHEN by_limit THEN limit_winner(b.vp_trace, l.round_limit, b.mode) ELSE b.winner END AS winner_limited
    FROM (SELECT * FROM base WHERE limit_leaders_fit IS NULL) b CROSS JOIN limits l
), tallies AS (   -- games per outcome (a few rows per setup and limit): the counts below add them up
    SELECT ruleset, board, mode, players, round_limit, by_limit, winner_limited, winner, first, count(*) AS n
    FROM per_game
    GROUP BY ALL
)
SELECT ruleset, board, mode, players, round_limit,
       sum(n)::BIGINT AS games,
       coalesce(sum(n) FILTER (WHERE by_limit), 0)::BIGINT AS ended_by_limit,
       ended_by_limit / games AS ended_by_limit_share,
       wilson_low(ended_by_limit, games) AS ci95_low,
       wilson_high(ended_by_limit, games) AS ci95_high,
       coalesce(sum(n) FILTER (WHERE by_limit AND winner_limited = -1), 0)::BIGINT AS draws,
       coalesce(sum(n) FILTER (WHERE winner_limited <> winner), 0)::BIGINT AS winner_changed,
       list_slice([coalesce(sum(n) FILTER (WHERE winner = 0), 0)::BIGINT,
                   coalesce(sum(n) FILTER (WHERE winner = 1), 0)::BIGINT,
                   coalesce(sum(n) FILTER (WHERE winner = 2), 0)::BIGINT,
                   coalesce(sum(n) FILTER (WHERE winner = 3), 0)::BIGINT],
                  1, CASE WHEN mode = 'teams' THEN 2 ELSE players END) AS wins_no_limit,
       list_slice([coalesce(sum(n) FILTER (WHERE winner_limited = 0), 0)::BIGINT,
                   coalesce(sum(n) FILTER (WHERE winner_limited = 1), 0)::BIGINT,
                   coalesce(sum(n) FILTER (WHERE winner_limited = 2), 0)::BIGINT,
                   coalesce(sum(n) FILTER (WHERE winner_limited = 3), 0)::BIGINT],
                  1, CASE WHEN mode = 'teams' THEN 2 ELSE players END) AS wins_with_limit,
       coalesce(sum(n) FILTER (WHERE winner = -1), 0)::BIGINT AS no_winner_no_limit,
       coalesce(sum(n) FILTER (WHERE winner_limited = -1), 0)::BIGINT AS no_winner_with_limit,
       coalesce(sum(n) FILTER (WHERE winner = first), 0)::BIGINT / games AS first_share_no_limit,
       coalesce(sum(n) FILTER (WHERE winner_limited = first), 0)::BIGINT / games AS first_share_with_limit
FROM tallies
GROUP BY ruleset, board, mode, players, round_limit
ORDER BY ALL;
