"""1. Recruitment: round 1 draws ``first_draw`` creatures, places ``first_place`` and the Champion in the
middle; later rounds (not Survive!) refill the empty slots from the deck.

Random draws: only the RETURN decisions of round 1 (seat order; a random bot draws ``below(cards
still drawn)`` once per card returned). Placement has no choice: the kept creatures fill the
non-middle slots left to right in draw order; refills fill empty slots left to right from the deck top.
"""

from __future__ import annotations

from sim.kit.decks import draw, put_under
from sim.tales.kinds import Decision
from sim.tales.state import EMPTY, Game


def place(g: Game, seat: int, slot: int, creature: int) -> None:
    st = g.seats[seat]
    st.slot[slot] = creature
    st.damage[slot] = 0
    st.exhausted[slot] = 0
    st.gear[slot] = []
    st.potion[slot] = [0, 0, 0]
    st.fielded[creature] = 1


def first_recruitment(g: Game, seat: int) -> None:
    """Draw ``first_draw``, put the unwanted ones under the deck, place the rest and the Champion."""
    st, r = g.seats[seat], g.rules
    drawn = draw(st.deck, r.first_draw)
    while len(drawn) > r.first_place:
        back = drawn.pop(g.ask(seat, Decision.RETURN, list(drawn)))
        put_under(st.deck, back)                    # "placed under the creature deck"
    slots = [k for k in range(g.army) if k != g.middle]
    for k, c in zip(slots, drawn):
        place(g, seat, k, c)
    place(g, seat, g.middle, st.champion)         # revealed once all armies are set up
    g.emit("recruit", f"{g.seat_name(seat)} fields {line(g, seat)} (Champion: {g.cards.creatures[st.champion].name})",
           seat, 1)


def refill(g: Game, seat: int) -> None:
    """Draw until the field holds ``army_size`` creatures again (or the deck runs out)."""
    st = g.seats[seat]
    new = []
    for k in range(g.army):
        if st.slot[k] == EMPTY and st.deck:
            place(g, seat, k, st.deck.pop())
            new.append(g.cards.creatures[st.slot[k]].name)
    if new:
        g.emit("refill", f"{g.seat_name(seat)} refills the battle line with {', '.join(new)}", seat, 1)


def recruitment(g: Game) -> None:
    if g.round == 1:
        for seat in range(g.n):
            first_recruitment(g, seat)
    elif not g.rules.survive:                       # Survive!: one recruitment phase only
        for seat in range(g.n):
            refill(g, seat)


def line(g: Game, seat: int) -> str:
    st = g.seats[seat]
    return " | ".join("-" if c == EMPTY else f"{g.cards.creatures[c].name} {g.life_left((seat, k))}"
                      for k, c in enumerate(st.slot))
