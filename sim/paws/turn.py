"""§3 Your turn: start-of-turn effects (rest, buffs, poison, snares), then actions until AP runs out."""

from __future__ import annotations

from sim.paws.actions import apply_action, legal_actions
from sim.paws.items import card_damage, heal
from sim.paws.kinds import Action, Buff, Decision
from sim.paws.state import Game


def start_turn(g: Game, seat: int) -> bool:
    """Start-of-turn effects in a fixed order; False if they knock the player out (the turn ends)."""
    p = g.players[seat]
    r = g.rules
    p.protected = False
    p.active = [True] * len(p.monsters)           # §5: buffs work from the start of your next turn
    if p.pos == 0 and r.desert_heal:              # §3 Rest: start on the Desert, heal first
        heal(g, seat, r.desert_heal)
    regen = g.buff(seat, Buff.REGEN)
    if regen:
        heal(g, seat, regen)
    lost = sum(p.snared)                          # §10 Snare: spent on this turn, even if the poison ends it
    p.snared = [0] * g.n
    if p.poison_ticks > 0:                        # §10 Poison Dart: 1 more at the start of the next turns
        p.poison_ticks -= 1
        g.say(f"  P{seat} suffers poison")
        knocked = p.knockouts
        card_damage(g, p.poisoner, seat, 1)
        if p.knockouts != knocked:
            return False
    g.ap = max(0, r.ap_per_turn + g.buff(seat, Buff.EXTRA_AP) - lost)
    g.building_fights_left = r.building_fights_per_turn if r.building_fights_per_turn else 1 << 30
    g.raids_left = r.raids_per_turn
    return True


def take_turn(g: Game, seat: int) -> None:
    """One player's turn: the bot picks legal actions until it ends the turn or has no AP."""
    p = g.players[seat]
    g.seat = seat
    g.turns += 1
    g.say(f"- round {g.round}, P{seat}'s turn: HP {p.hp}, lives {p.lives}, VP {g.vp(seat)}, "
          f"{len(p.items)} cards, cell {p.pos}")
    knocked = p.knockouts
    if start_turn(g, seat):
        for _ in range(g.rules.max_actions_per_turn):
            acts = legal_actions(g, seat)
            act = g.choose(seat, Decision.ACTION, acts)
            if act[0] == Action.END_TURN:
                break
            apply_action(g, seat, act)
            if g.over or p.knockouts != knocked:  # §3: knocked out on your own turn, your turn ends
                break
    g.seat = -1
