-- Who won, per seat, in the words every game shares (the view seat_outcomes; queries/connection.py):
-- seat_sides lists each seat's side (its team, seat % 2: in 2 vs. 2 seats 0+2 against 1+3) and
-- winning_side is the team that won, or -1 on a draw; first_player_side is the team that began the first
-- battle. The record keeps no per-round standings trace (no standings column). sides is the number of
-- sides, len(list_distinct(seat_sides)), as a plain number (ten times cheaper per row).
SELECT *,
       CASE WHEN players BETWEEN 0 AND 4 THEN ([0, 1, 0, 1]::BIGINT[])[1:players]
            ELSE [s % 2 FOR s IN range(players::BIGINT)] END AS seat_sides,
       least(greatest(players, 0), 2)::BIGINT AS sides,
       winner_team AS winning_side,
       first_side AS first_player_side
FROM games
