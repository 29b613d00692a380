-- name: lead_changes
-- kind: ordinal
-- unit: lead changes
-- Lead changes: games per number of times the leader changed (the designer metric lead_changes, from
-- the VP trace: a side leads after a round when its VP, Teams: its seats' sum, is strictly the highest;
-- rounds with a tie for the lead are skipped).
-- game: paws
-- columns: cell, key, count
WITH traced AS NOT MATERIALIZED (   -- parts written without the per-game lead columns (infra/derived.py): lead_rounds NULL
    SELECT * FROM (SELECT NULL::INTEGER AS lead_rounds, NULL::INTEGER AS lead_changes WHERE false)
    UNION ALL BY NAME SELECT * FROM games
), sided AS (   -- each seat's side: free-for-all its own seat; Teams (§1) seats 0+2 side 0, 1+3 side 1
    SELECT cell, vp_trace,
           CASE WHEN mode = 'teams' THEN [s % 2 FOR s IN range(players::BIGINT)]
                ELSE range(players::BIGINT) END AS seat_sides
    FROM traced
    WHERE lead_rounds IS NULL
), totals AS (
    SELECT cell,
           [list_transform(range(len(list_distinct(seat_sides))),
                           lambda s: list_sum(list_filter(row, lambda v, i: seat_sides[i] = s)))
            FOR row IN vp_trace] AS totals
    FROM sided
), led AS (
    SELECT cell,
           list_filter([CASE WHEN len(list_filter(t, lambda x: x = list_max(t))) = 1
                             THEN list_position(t, list_max(t)) END FOR t IN totals],
                       lambda x: x IS NOT NULL) AS led
    FROM totals
), keyed AS (
    SELECT cell, len(list_filter(range(2, len(led) + 1), lambda r: led[r] <> led[r - 1])) AS key FROM led
    UNION ALL
    SELECT cell, lead_changes::BIGINT AS key FROM traced WHERE lead_rounds IS NOT NULL
)
SELECT cell, key, count(*) AS count
FROM keyed
GROUP BY ALL
ORDER BY ALL;
