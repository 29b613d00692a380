-- name: tales_people
-- Animalis or Schatten: which people wins more? Per mode and bots, each people's win rate over the
-- team-games it plays, on either side and on each side (team = seat % 2: 2 players, the seat; 2 vs. 2,
-- seats 0+2 against 1+3), with Wilson 95% intervals. A draw is no win ("Victory and Defeat"); a team
-- whose two seats play different peoples counts as people 'mixed'.
-- game: tales
-- columns: ruleset, mode, bots, people, side, games, wins, draws, win_rate, ci95_low, ci95_high
WITH outcomes AS (   -- aggregate first: the teams are expanded per distinct outcome, not per game
    SELECT ruleset, mode, array_to_string(bots, ',') AS bots, players, people, winner_team, count(*) AS n
    FROM games
    GROUP BY ALL
), teams AS (
    SELECT *, unnest([0, 1]) AS team FROM outcomes
), team_games AS (
    SELECT ruleset, mode, bots, team, winner_team, n,
           CASE WHEN players = 2 OR people[team + 1] = people[team + 3] THEN people[team + 1]
                ELSE 'mixed' END AS people
    FROM teams
), sides AS (
    SELECT *, 'either' AS side FROM team_games
    UNION ALL
    SELECT *, 'team ' || team AS side FROM team_games
), counted AS (
    SELECT ruleset, mode, bots, people, side,
           sum(n) AS games,
           coalesce(sum(n) FILTER (WHERE winner_team = team), 0) AS wins,
           coalesce(sum(n) FILTER (WHERE winner_team = -1), 0) AS draws
    FROM sides
    GROUP BY ALL
)
SELECT *, wins / games AS win_rate, wilson_low(wins, games) AS ci95_low, wilson_high(wins, games) AS ci95_high
FROM counted
ORDER BY ruleset, mode, bots, people, side;
