-- name: skill_depth
-- Does skill matter in this game? Over a ladder's results (playtest ladder): each bot level (the ladder's
-- bot order) against the level below and against random, as its score share (wins plus half the games
-- nobody won, of the games between the two; 0.5 = even) with a Wilson 95% interval. A game whose strongest
-- bot barely beats random is mostly luck. With more than 2 seats, a pair counts in the games one of the two
-- won or nobody won (a third seat's win says nothing of the pair).
-- game: any
-- fixed: bots
-- columns: level, bot, against, opponent, games, wins, draws, losses, score, ci95_low, ci95_high
WITH keyed AS NOT MATERIALIZED (   -- parts without infra.derived's bots_key (the bots as JSON text): NULL
    SELECT * FROM (SELECT NULL::VARCHAR AS bots_key WHERE false) UNION ALL BY NAME SELECT * FROM seat_outcomes
), line_ups AS (
    SELECT DISTINCT cell, bots_key::JSON::VARCHAR[] AS bots
    FROM (SELECT DISTINCT cell, bots_key FROM keyed WHERE bots_key IS NOT NULL)
    UNION
    SELECT DISTINCT cell, bots FROM keyed WHERE bots_key IS NULL
), seats AS (          -- first seen: the ladder's cells list its bots in field order (c000 = level 0 vs 1)
    SELECT cell, unnest(bots) AS bot, unnest(range(len(bots)::BIGINT)) AS seat
    FROM line_ups
), firsts AS (
    SELECT bot, min(coalesce(cell, '')) AS first_cell FROM seats GROUP BY bot
), levels AS (
    SELECT f.bot, row_number() OVER (ORDER BY f.first_cell, min(s.seat)) - 1 AS level
    FROM firsts f JOIN seats s ON s.bot = f.bot AND coalesce(s.cell, '') = f.first_cell
    GROUP BY f.bot, f.first_cell
), asked AS (
    SELECT l.level, l.bot, 'level below' AS against, below.bot AS opponent
    FROM levels l JOIN levels below ON below.level = l.level - 1
    UNION ALL
    SELECT l.level, l.bot, 'random', 'random'
    FROM levels l
    WHERE l.bot <> 'random' AND EXISTS (SELECT 1 FROM levels WHERE bot = 'random')
      AND (SELECT bot FROM levels WHERE level = l.level - 1) IS DISTINCT FROM 'random'
)
SELECT a.level, a.bot, a.against, a.opponent,
       m.wins + m.draws + m.losses AS games, m.wins, m.draws, m.losses,
       (m.wins + m.draws / 2) / nullif(m.wins + m.draws + m.losses, 0) AS score,
       wilson_low(m.wins + m.draws / 2, m.wins + m.draws + m.losses) AS ci95_low,
       wilson_high(m.wins + m.draws / 2, m.wins + m.draws + m.losses) AS ci95_high
FROM asked a LEFT JOIN bot_meetings m ON m.bot = a.bot AND m.opponent = a.opponent
ORDER BY a.level, a.against = 'random';
