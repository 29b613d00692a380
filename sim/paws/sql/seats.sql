-- Who won, per seat, in the words every game shares (the view seat_outcomes; queries/connection.py):
-- seat_sides lists each seat's side (free-for-all: its own seat; Teams, §1: seats 0+2 are side 0, 1+3 side 1)
-- and winning_side is the side that won, or -1 when nobody did (a round-limit tie or a stalled game);
-- first_player_side is the side of the first player (§2.5), and standings the per-round standings trace
-- (vp_trace: standings[r][s + 1] is seat s's VP after round r; the designer metrics read it); sides is
-- the number of sides, len(list_distinct(seat_sides)), as a plain number (ten times cheaper per row).
-- seat_sides of up to 4 seats (every rule set) are slices of constant lists: half the cost of building them.
SELECT *,
       CASE WHEN players BETWEEN 0 AND 4
                THEN ((CASE WHEN mode = 'teams' THEN [0, 1, 0, 1] ELSE [0, 1, 2, 3] END)::BIGINT[])[1:players]
            WHEN mode = 'teams' THEN [s % 2 FOR s IN range(players::BIGINT)]
            ELSE range(players::BIGINT) END AS seat_sides,
       (CASE WHEN mode = 'teams' THEN least(greatest(players, 0), 2) ELSE greatest(players, 0) END)::BIGINT AS sides,
       CASE WHEN mode = 'teams' THEN winner_team ELSE winner_seat END AS winning_side,
       CASE WHEN mode = 'teams' THEN first_seat % 2 ELSE first_seat END AS first_player_side,
       vp_trace AS standings
FROM games
