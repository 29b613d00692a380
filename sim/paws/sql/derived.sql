-- Per-game columns the Paws in Peril queries read instead of the per-seat lists (infra/derived.py, version 2).
-- knockouts: the same expressions it works out per game; out_of_lives is never NULL, so a part has these
-- columns exactly where out_of_lives IS NOT NULL.
-- round_limit_effect: limit_leaders_fit is true when lead_leaders (the sole leader after each round, from
-- seats.sql's sides) is limit_winner's answer (macros.sql) for every round a limit can decide: the trace
-- covers all rounds played and the sides are the macro's (free-for-all, or Teams of 4); else NULL (never
-- false), so one test on it picks the games that need the walk over vp_trace.
SELECT list_sum(knockouts)::BIGINT AS knockouts_sum,
       list_sum(knockouts_dealt)::BIGINT AS knockouts_dealt_sum,
       (coalesce((lives_left[1] = 0)::INT, 0) + coalesce((lives_left[2] = 0)::INT, 0)
        + coalesce((lives_left[3] = 0)::INT, 0) + coalesce((lives_left[4] = 0)::INT, 0))::TINYINT AS out_of_lives,
       CASE WHEN length(lead_leaders) >= rounds AND (mode <> 'teams' OR players = 4) THEN true END
           AS limit_leaders_fit
FROM games
