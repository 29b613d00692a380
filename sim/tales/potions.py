"""3. Battle, step 1: Use potions. Potions are played from the hand onto a creature in attack mode.

The attacker's commander decides first, then the defender's; each may use up to ``potions_per_fight``
potions on its own creature (options: -1 = none, then hand positions of potions whose points the
creature has). Heal acts at once; Strength, Armor and First Strike "remain there until the creature's
turn is finished" (``potion_lasts = turn``: this fight only) or, in the old reading (``card``), last
the card's ``duration`` fights of that creature (a new lasting potion replaces the old one). A used
potion goes to the graveyard. No die.
"""

from __future__ import annotations

from sim.tales.kinds import Decision, Effect, Kind
from sim.tales.state import Game

NONE = -1


def usable(g: Game, pos: tuple[int, int]) -> list[int]:
    """Hand positions of the owner's potions this creature can use (its points >= the potion's)."""
    st = g.seats[pos[0]]
    points = g.card(pos).points
    return [h for h, e in enumerate(st.hand)
            if g.cards.equipment[e].kind == Kind.POTION and g.cards.equipment[e].points <= points]


def drink(g: Game, pos: tuple[int, int], hand_index: int) -> None:
    st = g.seats[pos[0]]
    e = g.cards.equipment[st.hand.pop(hand_index)]
    st.equipment_graveyard.append(e.id)
    if e.effect == Effect.HEAL:
        st.damage[pos[1]] = max(0, st.damage[pos[1]] - e.amount)
    else:
        # 1. Use potions: "they remain there until the creature's turn is finished"
        fights = e.duration if g.rules.potion_lasts == "card" else 1
        st.potion[pos[1]] = [int(e.effect), e.amount, fights]
    g.emit("potion", f"{g.name(pos)} uses {e.name}: " + (f"heals {e.amount}, life left {g.life_left(pos)}"
                     if e.effect == Effect.HEAL else f"{e.effect.name.replace('_', ' ').title()} +{e.amount}"),
           pos[0], 2)


def use_potions(g: Game, pos: tuple[int, int]) -> None:
    for _ in range(g.rules.potions_per_fight):
        options = [NONE] + usable(g, pos)
        choice = g.choose(pos[0], Decision.POTION, options)
        if choice == NONE:
            return
        drink(g, pos, choice)


def wear_off(g: Game, pos: tuple[int, int]) -> None:
    """After each fight of the creature its lasting potion has one fight fewer to go."""
    p = g.seats[pos[0]].potion[pos[1]]
    if p[2] > 0:
        p[2] -= 1
        if p[2] == 0:
            p[0] = p[1] = 0
