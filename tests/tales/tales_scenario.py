"""Scenario harness for hand-worked rulebook tests of the Tales are Real reference engine (sim/tales).

A scenario builds a :class:`~sim.tales.state.Game` in a known state (battle lines, damage, gear,
hands, decks) and runs one engine function inside ``with script(g, ...)``: the dice, random picks
and bot decisions it expects, in order (tests/script_queue.py). (Named after tests/paws/scenario.py,
whose pattern it follows.) A scenario module runs on both engines (``pytestmark = both_engines``, see
conftest.py); ``@reference_only`` keeps a test to the reference engine (say why next to it).
"""

from __future__ import annotations

import pytest

from sim.tales.cards import load_cards
from sim.tales.kinds import Decision
from sim.tales.rules import PEOPLES, TalesRules, TalesSetup, preset
from sim.tales.state import EMPTY, Game
from script_queue import Ask, Pick, Script, ScriptedBot, ScriptedRng, ScriptError, no_shuffle, script  # noqa: F401

ENGINES = ("reference", "core")
both_engines = pytest.mark.usefixtures("engine")
reference_only = pytest.mark.parametrize("engine", ["reference"], indirect=True)

CARDS = load_cards()
CREATURE = {c.name: c.id for c in CARDS.creatures}
EQUIPMENT = {c.name: c.id for c in CARDS.equipment}


def make_game(mode: str = "standard", rules: TalesRules | None = None, people: tuple | None = None,
              **overrides) -> Game:
    """A game with empty battle lines, hands and decks: nothing random has happened yet."""
    rules = rules or preset(mode, overrides)
    seats = 4 if "2v2" in mode else 2
    people = people or tuple(PEOPLES[s % 2] for s in range(seats))
    setup = TalesSetup(mode=mode, people=people, bots=("random",) * seats)
    s = Script()
    g = Game(setup, rules, CARDS, [ScriptedBot(s) for _ in range(seats)], ScriptedRng(s), [])
    g.script = s
    g.round = 1
    return g


def field(g: Game, seat: int, *names: str | None, damage: dict | None = None, gear: dict | None = None,
          champion: str | None = None, exhausted: tuple = ()) -> None:
    """Put creatures (by name; None = empty slot) in slots 0.. of a seat's line, with damage and gear."""
    st = g.seats[seat]
    for k in range(g.army):
        st.slot[k] = EMPTY
        st.damage[k] = 0
        st.gear[k] = []
        st.exhausted[k] = 0
        st.potion[k] = [0, 0, 0]
    for k, name in enumerate(names):
        if name is not None:
            st.slot[k] = CREATURE[name]
            st.fielded[CREATURE[name]] = 1
    for k, d in (damage or {}).items():
        st.damage[k] = d
    for k, items in (gear or {}).items():
        st.gear[k] = [EQUIPMENT[n] for n in items]
    for k in exhausted:
        st.exhausted[k] = 1
    if champion is not None:
        st.champion = CREATURE[champion]


def hand(g: Game, seat: int, *names: str) -> None:
    g.seats[seat].hand = [EQUIPMENT[n] for n in names]


def creature_deck(g: Game, seat: int, *names_top_first: str) -> None:
    g.seats[seat].deck = [CREATURE[n] for n in reversed(names_top_first)]


def equipment_deck(g: Game, pairing: int, *names_top_first: str) -> None:
    g.equipment_deck[pairing] = [EQUIPMENT[n] for n in reversed(names_top_first)]


def names(ids) -> list[str]:
    return [CARDS.creatures[i].name if i != EMPTY else None for i in ids]


def gear_names(ids) -> list[str]:
    return [CARDS.equipment[i].name for i in ids]


def deck_top_first(g: Game, seat: int) -> list[str]:
    return names(list(reversed(g.seats[seat].deck)))


__all__ = ["Pick", "Ask", "script", "make_game", "field", "hand", "creature_deck", "equipment_deck", "names",
           "gear_names", "deck_top_first", "no_shuffle", "CARDS", "CREATURE", "EQUIPMENT", "Decision",
           "ScriptError", "ENGINES", "both_engines", "reference_only"]
