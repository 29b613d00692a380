"""Victory and Defeat: a fallen Champion ends the game at once (Survive! too, unless
``champion_death_ends = false``); Survive! ends when one player has no creature left (``survive_end =
team``: when a whole team has none); otherwise, after the last round, the fewest weighted losses win and
equal losses are a draw.

The weighted loss of a destroyed creature is ``loss_elite`` (tier >= ``elite_min_tier``) or
``loss_normal``. In 2 vs. 2 a team's losses are its two commanders' together.
"""

from __future__ import annotations

from sim.tales.state import NOBODY, Game


def finish(g: Game, winner_team: int, reason: str) -> None:
    g.over = True
    g.winner_team = winner_team
    g.end_reason = reason if winner_team != NOBODY else "draw"
    draw = winner_team == NOBODY
    losses = f"({g.team_losses(0)} v {g.team_losses(1)})"
    why = {"champion_killed": "both Champions fell" if draw else "a Champion fell",
           "last_standing": "both sides have no creature left" if draw else "a side has no creature left",
           "losses": f"equal losses after round {g.round} {losses}" if draw
           else f"fewest losses after round {g.round} {losses}"}[reason]
    g.emit("game_over", f"== Game over: {'a draw' if draw else f'{g.team_name(winner_team)} wins'}, {why}")


def after_fight(g: Game) -> None:
    """Checked once the fight's destroyed creatures have left the field."""
    fell = g.champion_fell
    if g.rules.champion_death_ends and (fell[0] or fell[1]):
        finish(g, NOBODY if fell[0] and fell[1] else (1 if fell[0] else 0), "champion_killed")
    elif g.rules.survive:
        # Survive!: "rounds are played until one player has no creatures left on the playing area"
        if g.rules.survive_end == "player":
            empty = [any(g.seat_on_field(s) == 0 for s in g.team_seats(t)) for t in (0, 1)]
        else:
            empty = [g.on_field(t) == 0 for t in (0, 1)]
        if empty[0] or empty[1]:
            finish(g, NOBODY if empty[0] and empty[1] else (1 if empty[0] else 0), "last_standing")


def by_losses(g: Game) -> None:
    """After the last round: the team with the fewest weighted losses wins; equal losses are a draw."""
    a, b = g.team_losses(0), g.team_losses(1)
    finish(g, NOBODY if a == b else (0 if a < b else 1), "losses")
