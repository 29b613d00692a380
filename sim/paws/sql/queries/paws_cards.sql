-- name: paws_cards
-- Which item and monster cards matter? From the per-card table (a sweep with tables = ["games", "cards"],
-- or playtest run --cards-out): per cell, setup, the seat's bot and card, the seat-games in which the seat
-- played the item card (§10) or met the monster card (fought it §5, defended with it or invaded it §6,
-- took or kept it §8), the win rate of those seats (Teams: their team won; a game with no winner is no win)
-- with Wilson 95% intervals, against the same bot's other seat-games in the cell (the baseline: seats that
-- did not), and the difference (impact) with Newcombe's 95% interval from the two Wilson intervals. Items:
-- plays. Monsters: §5 fights against it and the share the players won; invasions it defended and the
-- share it held (its win share as a defender, Wilson 95%); times kept through a knockout (§8.3) and taken
-- (§6.3, §8.2). Playing a card is the bot's choice, so impact is association, not cause. Cells are never
-- pooled: each row is one cell's.
-- game: paws
-- param: kind str in (item, monster, any) = any | item, monster or any
-- param: min_games int >= 1 = 1 | leave out cards present in fewer seat-games
-- columns: cell, ruleset, board, mode, players, bot, kind, card, seat_games, present, plays, wins, win_rate, ci95_low, ci95_high, others, others_wins, others_win_rate, others_ci95_low, others_ci95_high, impact, impact_ci95_low, impact_ci95_high, fights, beaten_share, defended, held, held_share, held_ci95_low, held_ci95_high, kept, captured
WITH seat_games AS (
    SELECT results, coalesce(cell, '') AS cell, seed, game_index, ruleset, board, mode, players, bots,
           winner_seat, winner_team, unnest(range(players::BIGINT)) AS seat
    FROM games
), seats AS (
    SELECT results, cell, seed, game_index, seat, ruleset, board, mode, players, bots[seat + 1] AS bot,
           coalesce(CASE WHEN mode = 'teams' THEN winner_team = seat % 2 ELSE winner_seat = seat END, false) AS won
    FROM seat_games
), bot_totals AS (
    SELECT cell, ruleset, board, mode, players, bot, count(*) AS seat_games, count(*) FILTER (WHERE won) AS bot_wins
    FROM seats
    GROUP BY ALL
), present AS (   -- a card has at most one row per seat and game: rows are seat-games
    SELECT s.cell, s.ruleset, s.board, s.mode, s.players, s.bot, c.kind, c.card,
           count(*) AS present,
           count(*) FILTER (WHERE s.won) AS wins,
           sum(c.plays) AS plays,
           sum(c.fights) AS fights, sum(c.beaten) AS beaten,
           sum(c.defended) AS defended, sum(c.held) AS held,
           sum(c.kept) AS kept, sum(c.captured) AS captured
    FROM cards c
    JOIN seats s ON c.results = s.results AND coalesce(c.cell, '') = s.cell AND c.seed = s.seed
                AND c.game_index = s.game_index AND c.seat = s.seat
    WHERE CASE WHEN $kind IN ('any', 'item', 'monster') THEN $kind = 'any' OR c.kind = $kind
               ELSE error('param kind = ''' || $kind || ''' is not allowed; expected item, monster or any') END
    GROUP BY ALL
), rates AS (
    SELECT p.*, t.seat_games, t.seat_games - p.present AS others, t.bot_wins - p.wins AS others_wins,
           p.wins / p.present AS win_rate,
           wilson_low(p.wins, p.present) AS ci95_low, wilson_high(p.wins, p.present) AS ci95_high,
           CASE WHEN t.seat_games > p.present THEN (t.bot_wins - p.wins) / (t.seat_games - p.present) END
               AS others_win_rate,
           CASE WHEN t.seat_games > p.present THEN wilson_low(t.bot_wins - p.wins, t.seat_games - p.present) END
               AS others_ci95_low,
           CASE WHEN t.seat_games > p.present THEN wilson_high(t.bot_wins - p.wins, t.seat_games - p.present) END
               AS others_ci95_high
    FROM present p
    JOIN bot_totals t ON p.cell = t.cell AND p.ruleset = t.ruleset AND p.board = t.board AND p.mode = t.mode
                     AND p.players = t.players AND p.bot = t.bot
)
SELECT cell, ruleset, board, mode, players, bot, kind, card, seat_games, present, plays, wins, win_rate,
       ci95_low, ci95_high, others, others_wins, others_win_rate, others_ci95_low, others_ci95_high,
       win_rate - others_win_rate AS impact,
       -- Newcombe (1998) method 10: the difference's interval from each side's Wilson interval
       win_rate - others_win_rate
           - sqrt((win_rate - ci95_low) ^ 2 + (others_ci95_high - others_win_rate) ^ 2) AS impact_ci95_low,
       win_rate - others_win_rate
           + sqrt((ci95_high - win_rate) ^ 2 + (others_win_rate - others_ci95_low) ^ 2) AS impact_ci95_high,
       fights, CASE WHEN fights > 0 THEN beaten / fights END AS beaten_share,
       defended, held, CASE WHEN defended > 0 THEN held / defended END AS held_share,
       CASE WHEN defended > 0 THEN wilson_low(held, defended) END AS held_ci95_low,
       CASE WHEN defended > 0 THEN wilson_high(held, defended) END AS held_ci95_high,
       kept, captured
FROM rates
WHERE present >= $min_games
ORDER BY cell, ruleset, board, mode, players, bot, kind, impact DESC NULLS LAST, card;
