"""Game Setup: each commander chooses a Champion face down and shuffles the creature deck; each opposing
pairing shuffles one equipment deck.

Random draws, in this order: for each seat 0..n-1, its Champion decision (a random bot draws
``below(champions)``), then the Fisher-Yates shuffle of its creature deck (the people's non-Champion
cards in file order); then for each pairing 0..n/2-1 the shuffle of its equipment deck (file order,
copies expanded).
"""

from __future__ import annotations

from sim.tales.kinds import Decision
from sim.tales.state import Game


def choose_champions(g: Game) -> None:
    """Each commander picks a Champion (face down, revealed in recruitment) and shuffles the rest."""
    for st in g.seats:
        options = g.cards.champions(st.people)
        st.champion = g.choose(st.seat, Decision.CHAMPION, options)
        st.deck = g.cards.creature_deck(st.people)
        g.rng.shuffle(st.deck)


def shuffle_equipment(g: Game) -> None:
    """One shared equipment deck per opposing pairing (2 vs. 2: seats 0+1 and 2+3)."""
    for p in range(len(g.equipment_deck)):
        deck = g.cards.equipment_deck()
        g.rng.shuffle(deck)
        g.equipment_deck[p] = deck


def setup_game(g: Game) -> None:
    choose_champions(g)
    shuffle_equipment(g)
    people = ", ".join(f"{g.seat_name(st.seat)}: {st.people.name.capitalize()} ({g.setup.bots[st.seat]})"
                       for st in g.seats)
    g.emit("setup", f"== Tales are Real, {g.setup.mode} ({g.rules.ruleset} rules): {people}")
    if g.n > 2:
        g.emit("teams", "Teams: " + "; ".join(g.team_name(t) for t in (0, 1)))
