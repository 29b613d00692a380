-- name: length_target
-- Do games last as long as the designer wants? Share of games whose rounds fall inside a target window
-- (shortest to longest, both included), and the shares shorter and longer, per game and setup, with
-- Wilson 95% intervals.
-- game: any
-- param: shortest int >= 1 <= 100000 = 5 | the fewest rounds a game should last
-- param: longest int >= 1 <= 100000 = 15 | the most rounds a game should last
-- columns: game, ruleset?, board?, mode?, players?, team_vp_target?, round_limit?, games, shortest, longest, inside, share, ci95_low, ci95_high, shorter_share, longer_share
WITH counted AS (
    SELECT COLUMNS('^(game|ruleset|board|mode|players|round_limit|team_vp_target)$'),
           count(*) AS games,
           count(*) FILTER (WHERE rounds BETWEEN $shortest AND $longest) AS inside,
           count(*) FILTER (WHERE rounds < $shortest) AS shorter,
           count(*) FILTER (WHERE rounds > $longest) AS longer
    FROM games
    WHERE CASE WHEN $shortest <= $longest THEN true
               ELSE error('param shortest = ' || $shortest || ' is more than longest = ' || $longest
                          || '; expected shortest <= longest') END
    GROUP BY ALL
)
SELECT COLUMNS('^(game|ruleset|board|mode|players|round_limit|team_vp_target)$'), games,
       $shortest::INTEGER AS shortest, $longest::INTEGER AS longest, inside,
       inside / games AS share, wilson_low(inside, games) AS ci95_low, wilson_high(inside, games) AS ci95_high,
       shorter / games AS shorter_share, longer / games AS longer_share
FROM counted
ORDER BY ALL;
