-- name: win_matrix
-- Which bot beats which? For every ordered pair of bots that met on opposing seats (a ladder: playtest
-- ladder; or any results with mixed bots): the games between them, the row bot's wins, the draws (nobody
-- won) and its losses, and its win share with a Wilson 95% interval. share + the opponent's share =
-- 1 - the draw share. With more than 2 seats a pair counts in the games one of the two won or nobody won.
-- game: any
-- fixed: bots
-- columns: bot, opponent, games, wins, draws, losses, share, ci95_low, ci95_high
SELECT bot, opponent, wins + draws + losses AS games, wins, draws, losses,
       wins / nullif(wins + draws + losses, 0) AS share,
       wilson_low(wins, wins + draws + losses) AS ci95_low,
       wilson_high(wins, wins + draws + losses) AS ci95_high
FROM bot_meetings
ORDER BY bot, opponent;
