"""§13 Winning: the VP target the moment it is reached, the last player or team with lives, the round limit."""

from __future__ import annotations

from sim.paws.state import NOBODY, Game

END_WORDS = {"vp": "{target} VP reached", "last_alive": "the last with lives left",
             "round_limit": "most VP at the round limit (round {rounds})",
             "stalled": "the game stalled: nobody won by round {rounds}"}


def end(g: Game, reason: str, seat: int = NOBODY, team: int = NOBODY) -> None:
    g.over, g.end_reason, g.winner_seat, g.winner_team = True, reason, seat, team
    who = (g.team_name(team) if team != NOBODY else g.seat_name(seat) if seat != NOBODY else "")
    why = END_WORDS[reason].format(target=g.rules.team_vp_target if g.setup.mode == "teams"
                                   else g.rules.vp_goal(g.setup.board, g.n), rounds=g.round)
    g.emit("game_over", f"== Game over: {who + ' wins, ' if who else 'nobody wins, '}{why}",
           seat if seat != NOBODY else NOBODY)


def team_vp(g: Game, team: int) -> int:
    return sum(g.vp(s) for s in range(g.n) if s % 2 == team)


def check_vp(g: Game, seat: int) -> None:
    """§13: you win the moment you reach the target (Teams: the team target between partners)."""
    if g.over:
        return
    if g.setup.mode == "teams":
        team = seat % 2
        if team_vp(g, team) >= g.rules.team_vp_target:
            end(g, "vp", team=team)
    elif g.vp(seat) >= g.rules.vp_goal(g.setup.board, g.n):
        end(g, "vp", seat=seat)


def check_last_alive(g: Game) -> None:
    """§1: the last player (Teams: the last team) with lives left wins."""
    if g.over:
        return
    alive = [s for s in range(g.n) if g.players[s].alive]
    if g.setup.mode == "teams":
        teams = sorted({s % 2 for s in alive})
        if len(teams) <= 1:
            end(g, "last_alive", team=teams[0] if teams else NOBODY)
    elif len(alive) <= 1:
        end(g, "last_alive", seat=alive[0] if alive else NOBODY)


def check_round_end(g: Game) -> None:
    """After a full round: the round limit (most VP wins, a tie is a draw) or the safety cap (stalled)."""
    if g.over:
        return
    if g.rules.round_limit and g.round >= g.rules.round_limit:
        if g.setup.mode == "teams":
            scores = [team_vp(g, 0), team_vp(g, 1)]
        else:
            scores = [g.vp(s) for s in range(g.n)]
        best = max(scores)
        lead = scores.index(best) if scores.count(best) == 1 else NOBODY
        if g.setup.mode == "teams":
            end(g, "round_limit", team=lead)
        else:
            end(g, "round_limit", seat=lead)
    elif g.round >= g.rules.max_rounds:
        end(g, "stalled")
