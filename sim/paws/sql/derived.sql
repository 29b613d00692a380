-- Per-game columns the knockouts query reads instead of the per-seat lists (sim/derived.py, version 2):
-- the same expressions it would work out per game. out_of_lives is never NULL, so a part has these columns
-- exactly where out_of_lives IS NOT NULL.
SELECT list_sum(knockouts)::BIGINT AS knockouts_sum,
       list_sum(knockouts_dealt)::BIGINT AS knockouts_dealt_sum,
       (coalesce((lives_left[1] = 0)::INT, 0) + coalesce((lives_left[2] = 0)::INT, 0)
        + coalesce((lives_left[3] = 0)::INT, 0) + coalesce((lives_left[4] = 0)::INT, 0))::TINYINT AS out_of_lives
FROM games
