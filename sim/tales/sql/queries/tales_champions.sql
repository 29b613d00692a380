-- name: tales_champions
-- Which Champion wins? Per mode, people and the seat's bot: how often each Champion is chosen ("Game
-- Setup": one Champion per commander, face down), the win rate of the seats that chose it (their team
-- wins; a draw is no win) with Wilson 95% intervals, the people's win rate over all its seats for
-- comparison, and how often the Champion is still alive at the end.
-- game: tales
-- columns: ruleset, mode, people, bot, champion, seat_games, chosen_share, wins, draws, win_rate, ci95_low, ci95_high, people_win_rate, alive_share
WITH outcomes AS (
    SELECT ruleset, mode, people, bots, champion, champion_alive, winner_team, count(*) AS n
    FROM games
    GROUP BY ALL
), seats AS (
    SELECT ruleset, mode, n, winner_team, unnest(range(len(people)::BIGINT)) AS seat, people, bots, champion,
           champion_alive
    FROM outcomes
), per_seat AS (
    SELECT ruleset, mode, people[seat + 1] AS people, bots[seat + 1] AS bot, champion[seat + 1] AS champion,
           champion_alive[seat + 1] AS alive, winner_team = seat % 2 AS won, winner_team = -1 AS draw, n
    FROM seats
), counted AS (
    SELECT ruleset, mode, people, bot, champion,
           sum(n) AS seat_games,
           coalesce(sum(n) FILTER (WHERE won), 0) AS wins,
           coalesce(sum(n) FILTER (WHERE draw), 0) AS draws,
           coalesce(sum(n) FILTER (WHERE alive), 0) AS alive
    FROM per_seat
    GROUP BY ALL
), with_people AS (
    SELECT *, sum(seat_games) OVER w AS people_games, sum(wins) OVER w AS people_wins
    FROM counted
    WINDOW w AS (PARTITION BY ruleset, mode, people, bot)
)
SELECT ruleset, mode, people, bot, champion, seat_games,
       seat_games / people_games AS chosen_share,
       wins, draws, wins / seat_games AS win_rate,
       wilson_low(wins, seat_games) AS ci95_low, wilson_high(wins, seat_games) AS ci95_high,
       people_wins / people_games AS people_win_rate,
       alive / seat_games AS alive_share
FROM with_people
ORDER BY ruleset, mode, people, bot, champion;
