-- name: tales_cards
-- Which creatures and equipment cards matter? From the per-card table (a sweep with tables = ["games",
-- "cards"]): per mode, people, the seat's bot and card, the seat-games that fielded the creature or carried
-- the equipment, the win rate of those seats (their team wins; a draw is no win) with Wilson 95% intervals
-- against the people's win rate over all its seat-games (impact = the difference), how often it survived
-- (creature: on the field at the end; equipment: still carried), and kills per seat-game present (mean,
-- normal 95% interval). Fielding is not random (bots choose), so impact is association, not cause.
-- game: tales
-- param: kind str in (creature, equipment, any) = any | creature, equipment or any
-- param: min_games int >= 1 = 1 | leave out cards present in fewer seat-games
-- columns: ruleset, mode, people, bot, kind, card, tier, present, seat_games, present_share, wins, win_rate, ci95_low, ci95_high, people_win_rate, impact, survived_share, survived_ci95_low, survived_ci95_high, kills_per_game, kills_ci95_low, kills_ci95_high
WITH seat_games AS (
    SELECT results, coalesce(cell, '') AS cell, seed, game_index, ruleset, mode, people, bots, winner_team,
           unnest(range(players::BIGINT)) AS seat
    FROM games
), seats AS (
    SELECT results, cell, seed, game_index, seat, ruleset, mode, people[seat + 1] AS people,
           bots[seat + 1] AS bot, winner_team = seat % 2 AS won
    FROM seat_games
), people_totals AS (
    SELECT ruleset, mode, people, bot, count(*) AS seat_games, count(*) FILTER (WHERE won) AS people_wins
    FROM seats
    GROUP BY ALL
), present AS (   -- a card appears at most once per seat and game: rows are seat-games
    SELECT s.ruleset, s.mode, s.people, s.bot, c.kind, c.card, c.tier,
           count(*) AS present,
           count(*) FILTER (WHERE s.won) AS wins,
           count(*) FILTER (WHERE c.survived) AS survived,
           avg(c.kills) AS kills_per_game,
           stddev_samp(c.kills) AS kills_sd
    FROM cards c
    JOIN seats s ON c.results = s.results AND coalesce(c.cell, '') = s.cell AND c.seed = s.seed
                AND c.game_index = s.game_index AND c.seat = s.seat
    WHERE CASE WHEN $kind IN ('any', 'creature', 'equipment') THEN $kind = 'any' OR c.kind = $kind
               ELSE error('param kind = ''' || $kind || ''' is not allowed; expected creature, equipment or any') END
    GROUP BY ALL
)
SELECT p.ruleset, p.mode, p.people, p.bot, kind, card, tier, present, seat_games,
       present / seat_games AS present_share,
       wins, wins / present AS win_rate,
       wilson_low(wins, present) AS ci95_low, wilson_high(wins, present) AS ci95_high,
       people_wins / seat_games AS people_win_rate,
       wins / present - people_wins / seat_games AS impact,
       survived / present AS survived_share,
       wilson_low(survived, present) AS survived_ci95_low, wilson_high(survived, present) AS survived_ci95_high,
       kills_per_game,
       CASE WHEN present > 1 THEN greatest(0.0, kills_per_game - 1.959963984540054 * kills_sd / sqrt(present))
            END AS kills_ci95_low,
       kills_per_game + 1.959963984540054 * kills_sd / sqrt(present) AS kills_ci95_high
FROM present p
JOIN people_totals t ON p.ruleset = t.ruleset AND p.mode = t.mode AND p.people = t.people AND p.bot = t.bot
WHERE present >= $min_games
ORDER BY p.ruleset, p.mode, p.people, p.bot, kind, impact DESC, card;
