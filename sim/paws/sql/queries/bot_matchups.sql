-- name: bot_matchups
-- Which bot beats which? For every pair of opposing seats in a game (free-for-all: any two seats;
-- Teams: seats of different teams) with bot specs (bot, opponent): meetings, wins of each, and the bot's
-- share of the games either of the two won, with Wilson 95% intervals. Each pair appears both ways round.
-- game: paws
-- columns: ruleset, board, mode, players, bot, opponent, meetings, bot_wins, opponent_wins, bot_share, ci95_low, ci95_high
WITH keyed AS NOT MATERIALIZED (   -- parts without infra.derived's bots_key (the bots as JSON text): NULL
    SELECT * FROM (SELECT NULL::VARCHAR AS bots_key WHERE false) UNION ALL BY NAME SELECT * FROM games
), outcomes AS (   -- aggregate first: the pairs are expanded per distinct outcome, not per game
    SELECT ruleset, board, mode, players, bots_key::JSON::VARCHAR[] AS bots, winner_seat, winner_team, n
    FROM (SELECT ruleset, board, mode, players, bots_key, winner_seat, winner_team, count(*) AS n
          FROM keyed WHERE bots_key IS NOT NULL GROUP BY ALL)
    UNION ALL
    SELECT ruleset, board, mode, players, bots, winner_seat, winner_team, count(*) AS n
    FROM keyed WHERE bots_key IS NULL
    GROUP BY ALL
), seat_a AS (
    SELECT *, unnest(range(players::BIGINT)) AS a FROM outcomes
), pairs AS (
    SELECT *, unnest(range(players::BIGINT)) AS b FROM seat_a
), opposed AS (
    SELECT ruleset, board, mode, players, bots[a + 1] AS bot, bots[b + 1] AS opponent, n,
           CASE WHEN mode = 'teams' THEN winner_team = a % 2 ELSE winner_seat = a END AS a_won,
           CASE WHEN mode = 'teams' THEN winner_team = b % 2 ELSE winner_seat = b END AS b_won
    FROM pairs
    WHERE a <> b AND (mode <> 'teams' OR a % 2 <> b % 2)
)
SELECT ruleset, board, mode, players, bot, opponent,
       sum(n) AS meetings,
       coalesce(sum(n) FILTER (WHERE a_won), 0) AS bot_wins,
       coalesce(sum(n) FILTER (WHERE b_won), 0) AS opponent_wins,
       bot_wins / nullif(bot_wins + opponent_wins, 0) AS bot_share,
       wilson_low(bot_wins, bot_wins + opponent_wins) AS ci95_low,
       wilson_high(bot_wins, bot_wins + opponent_wins) AS ci95_high
FROM opposed
GROUP BY ALL
ORDER BY ALL;
