-- Who won, per seat, in the words every game shares (the view seat_outcomes; queries/library.py):
-- seat_sides lists each seat's side (its team, seat % 2: in 2 vs. 2 seats 0+2 against 1+3) and
-- winning_side is the team that won, or -1 on a draw; first_player_side is the team that began the first
-- battle. The record keeps no per-round standings trace (no standings column).
SELECT *,
       [s % 2 FOR s IN range(players::BIGINT)] AS seat_sides,
       winner_team AS winning_side,
       first_side AS first_player_side
FROM games
