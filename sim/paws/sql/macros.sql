-- Round-limit helpers for the Paws in Peril queries (round_limit, round_limit_effect): the winner after
-- round `l` from the per-round VP trace (Teams: seats 0+2 vs 1+3; a tie for most VP is a draw, -1),
-- docs/rules-interpretation.md, "Round limit". A game that stalled at max_rounds = l is decided by a limit
-- of l: the limit is checked before the safety cap.
CREATE OR REPLACE MACRO sole_leader(scores) AS
    CASE WHEN list_position(scores, list_max(scores))
              = len(scores) + 1 - list_position(list_reverse(scores), list_max(scores))
         THEN list_position(scores, list_max(scores)) - 1 ELSE -1 END;
CREATE OR REPLACE MACRO scores_after(vp_trace, l, mode) AS
    CASE WHEN mode = 'teams' THEN [vp_trace[l][1] + vp_trace[l][3], vp_trace[l][2] + vp_trace[l][4]]
         ELSE vp_trace[l] END;
CREATE OR REPLACE MACRO decided_by_limit(rounds, end_reason, l) AS
    rounds > l OR (rounds = l AND end_reason = 'stalled');
CREATE OR REPLACE MACRO limit_winner(vp_trace, l, mode) AS sole_leader(scores_after(vp_trace, l, mode));
