-- name: lead_changes
-- Is the race close, and when is it decided? From the per-round standings trace (seat_outcomes.standings;
-- records without one answer with empty values), per game and setup. A side leads after a round when its
-- standing (teams: the sum of its seats') is strictly the highest; a tie means nobody leads.
-- lead_changes: per game, how often the leader differs from the previous leader (rounds with a tie are
-- skipped), mean with a t 95% interval (cut at 0). decided_round: the first round from which the same side
-- leads to the end of the trace (games that end in a tie for the lead have none), mean with a t 95% interval
-- (cut at 1), and decided_fraction, that round over the trace's rounds (mean). comeback_share: of the games
-- with a winner that lasted at least behind_after rounds, those whose winner was strictly behind the leader
-- after round behind_after, with a Wilson 95% interval. Any game whose seats.sql names its standings trace.
-- game: any
-- param: behind_after int >= 1 <= 100000 = 3 | the round after which a winner behind made a comeback
-- columns: game, ruleset?, board?, mode?, players?, team_vp_target?, round_limit?, games, lead_changes_mean, lead_changes_ci95_low, lead_changes_ci95_high, decided_games, decided_round_mean, decided_round_ci95_low, decided_round_ci95_high, decided_fraction_mean, behind_after, comeback_games, comebacks, comeback_share, comeback_ci95_low, comeback_ci95_high
WITH traced AS NOT MATERIALIZED (   -- records without a standings trace: standings NULL; without derived columns: lead_* NULL
    SELECT * FROM (SELECT NULL::INTEGER[][] AS standings, NULL::INTEGER AS lead_rounds, NULL::INTEGER AS lead_changes,
                          NULL::INTEGER AS lead_decided_round, NULL::BIGINT AS lead_behind_mask,
                          NULL::INTEGER[] AS lead_behind_late WHERE false)
    UNION ALL BY NAME SELECT * FROM seat_outcomes
), per_game AS (   -- the walk over the trace, for games written without the per-game lead columns (infra/derived.py)
    SELECT COLUMNS('^(game|ruleset|board|mode|players|round_limit|team_vp_target)$'), winning_side,
           -- each round's standing per side: the sum over the side's seats
           [list_transform(range(sides),
                           lambda s: list_sum(list_filter(row, lambda v, i: seat_sides[i] = s)))
            FOR row IN standings] AS totals
    FROM traced
    WHERE lead_rounds IS NULL
), leaders AS (
    SELECT *,
           [CASE WHEN len(list_filter(t, lambda x: x = list_max(t))) = 1 THEN list_position(t, list_max(t)) - 1 END
            FOR t IN totals] AS leader
    FROM per_game
), walked AS (
    SELECT COLUMNS('^(game|ruleset|board|mode|players|round_limit|team_vp_target)$'),
           len(list_filter(range(2, len(led) + 1), lambda i: led[i] <> led[i - 1])) AS changes,
           CASE WHEN len(leader) > 0 AND leader[len(leader)] IS NOT NULL
                THEN 1 + coalesce(list_max(list_filter(range(1, len(leader) + 1),
                                                       lambda r: leader[r] IS DISTINCT FROM leader[len(leader)])), 0)
                END AS decided_round,
           len(leader) AS trace_rounds,
           winning_side >= 0 AND len(totals) >= $behind_after AS comeback_eligible,
           winning_side >= 0 AND len(totals) >= $behind_after
               AND totals[$behind_after][winning_side + 1] < list_max(totals[$behind_after]) AS comeback
    FROM (SELECT *, list_filter(leader, lambda x: x IS NOT NULL) AS led FROM leaders)
), story AS (   -- the same values, worked out when the part was written: flat columns
    SELECT COLUMNS('^(game|ruleset|board|mode|players|round_limit|team_vp_target)$'),
           lead_changes::BIGINT AS changes, lead_decided_round::BIGINT AS decided_round,
           lead_rounds::BIGINT AS trace_rounds,
           winning_side >= 0 AND lead_rounds >= $behind_after AS comeback_eligible,
           winning_side >= 0 AND lead_rounds >= $behind_after
               AND CASE WHEN $behind_after <= 63 THEN (lead_behind_mask >> ($behind_after - 1)) & 1 = 1
                        ELSE list_contains(lead_behind_late, $behind_after) END AS comeback
    FROM traced
    WHERE lead_rounds IS NOT NULL
    UNION ALL
    SELECT * FROM walked
), per_setup AS (
    SELECT COLUMNS('^(game|ruleset|board|mode|players|round_limit|team_vp_target)$'),
           count(*) AS games,
           avg(changes) AS lead_changes_mean,
           count(changes) AS lc_n, sum(changes) AS lc_s, sum(changes * changes) AS lc_ss,
           count(decided_round) AS decided_games,
           avg(decided_round) AS decided_round_mean,
           sum(decided_round) AS dr_s, sum(decided_round * decided_round) AS dr_ss,
           avg(decided_round / trace_rounds) AS decided_fraction_mean,
           count(*) FILTER (WHERE comeback_eligible) AS comeback_games,
           count(*) FILTER (WHERE comeback) AS comebacks
    FROM story
    GROUP BY ALL
), with_t AS (   -- Student's t, 97.5% point: exact to df 30, then a Cornish-Fisher expansion (error < 1e-4)
    SELECT *,
           -- sample standard deviations from exact integer sums (as stddev_samp, without its per-row divisions)
           CASE WHEN lc_n > 1 THEN sqrt(greatest(0.0, (lc_ss - lc_s::DOUBLE * lc_s / lc_n) / (lc_n - 1))) END AS lc_sd,
           CASE WHEN decided_games > 1
                THEN sqrt(greatest(0.0, (dr_ss - dr_s::DOUBLE * dr_s / decided_games) / (decided_games - 1))) END AS dr_sd,
           CASE WHEN games > 31 THEN 1.959963984540054 + 2.372271230 / (games - 1) + 2.822498616 / (games - 1) ^ 2
                                     + 2.555849680 / (games - 1) ^ 3
                WHEN games > 1 THEN [12.7062, 4.3027, 3.1824, 2.7764, 2.5706, 2.4469, 2.3646, 2.3060, 2.2622, 2.2281,
                                     2.2010, 2.1788, 2.1604, 2.1448, 2.1314, 2.1199, 2.1098, 2.1009, 2.0930, 2.0860,
                                     2.0796, 2.0739, 2.0687, 2.0639, 2.0595, 2.0555, 2.0518, 2.0484, 2.0452,
                                     2.0423][games - 1] END AS t_games,
           CASE WHEN decided_games > 31 THEN 1.959963984540054 + 2.372271230 / (decided_games - 1)
                                             + 2.822498616 / (decided_games - 1) ^ 2 + 2.555849680 / (decided_games - 1) ^ 3
                WHEN decided_games > 1 THEN [12.7062, 4.3027, 3.1824, 2.7764, 2.5706, 2.4469, 2.3646, 2.3060, 2.2622,
                                             2.2281, 2.2010, 2.1788, 2.1604, 2.1448, 2.1314, 2.1199, 2.1098, 2.1009,
                                             2.0930, 2.0860, 2.0796, 2.0739, 2.0687, 2.0639, 2.0595, 2.0555, 2.0518,
                                             2.0484, 2.0452, 2.0423][decided_games - 1] END AS t_decided
    FROM per_setup
)
SELECT COLUMNS('^(game|ruleset|board|mode|players|round_limit|team_vp_target)$'), games,
       lead_changes_mean,
       CASE WHEN lead_changes_mean IS NOT NULL
            THEN greatest(0.0, lead_changes_mean - t_games * lc_sd / sqrt(games)) END AS lead_changes_ci95_low,
       lead_changes_mean + t_games * lc_sd / sqrt(games) AS lead_changes_ci95_high,
       decided_games, decided_round_mean,
       CASE WHEN decided_round_mean IS NOT NULL
            THEN greatest(1.0, decided_round_mean - t_decided * dr_sd / sqrt(decided_games)) END
           AS decided_round_ci95_low,
       decided_round_mean + t_decided * dr_sd / sqrt(decided_games) AS decided_round_ci95_high,
       decided_fraction_mean,
       $behind_after::INTEGER AS behind_after, comeback_games, comebacks,
       CASE WHEN comeback_games > 0 THEN comebacks / comeback_games END AS comeback_share,
       wilson_low(comebacks, comeback_games) AS comeback_ci95_low,
       wilson_high(comebacks, comeback_games) AS comeback_ci95_high
FROM with_t
ORDER BY ALL;
