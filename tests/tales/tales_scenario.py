"""Scenario harness for hand-worked rulebook tests of the Tales are Real reference engine (sim/tales).

A scenario builds a :class:`~sim.tales.state.Game` in a known state (battle lines, damage, gear,
hands, decks) and runs one engine function inside ``with script(g, ...)``. The script is ONE ordered
queue shared by the dice, the random picks and the bots' decisions:

* an int 1..6 is the next ``g.rng.die()``;
* ``Pick(n, k)`` is the next ``g.rng.below(n)`` and returns ``k`` (``n`` must match);
* ``Ask(seat, Decision.X, value)`` is the next bot decision: that seat, that kind, and the option
  equal to ``value`` is chosen (``options=[...]`` also asserts the full option list);
* lists are flattened, so several dice are written ``[6, 5]``.

Any draw or decision that is not the next scripted entry fails at once, and leaving the ``with``
block with entries left over fails too, so a test pins exactly which dice the engine rolls and
which choices it asks for. (Named scenario.py after tests/paws/scenario.py, whose pattern it follows.)
"""

from __future__ import annotations

import contextlib
from collections import deque
from dataclasses import dataclass
from typing import Any

from sim.tales.cards import load_cards
from sim.tales.kinds import Decision
from sim.tales.rules import PEOPLES, TalesRules, TalesSetup, preset
from sim.tales.state import EMPTY, Game

CARDS = load_cards()
CREATURE = {c.name: c.id for c in CARDS.creatures}
EQUIPMENT = {c.name: c.id for c in CARDS.equipment}


class ScriptError(AssertionError):
    """The engine drew a die, a random number or a decision the scenario did not script."""


@dataclass(frozen=True)
class Pick:
    n: int
    k: int


@dataclass(frozen=True)
class Ask:
    seat: int
    kind: Any
    value: Any
    options: list | None = None


def flatten(entries) -> list:
    out = []
    for e in entries:
        if isinstance(e, list):
            out.extend(flatten(e))
        else:
            out.append(e)
    return out


class Script:
    def __init__(self):
        self.queue: deque = deque()
        self.used: list = []

    def _next(self, what: str):
        if not self.queue:
            raise ScriptError(f"unscripted {what}: the script is exhausted (consumed so far: {self.used})")
        return self.queue.popleft()

    def die(self) -> int:
        e = self._next("die()")
        if not isinstance(e, int) or isinstance(e, bool) or not 1 <= e <= 6:
            raise ScriptError(f"engine rolled a die but the script expects {e!r} (consumed: {self.used})")
        self.used.append(e)
        return e

    def below(self, n: int) -> int:
        e = self._next(f"below({n})")
        if not isinstance(e, Pick) or e.n != n:
            raise ScriptError(f"engine drew below({n}) but the script expects {e!r} (consumed: {self.used})")
        self.used.append(e)
        return e.k

    def decide(self, seat: int, kind, options: list) -> int:
        e = self._next(f"decision {kind!r} of seat {seat} among {options}")
        if not isinstance(e, Ask) or e.seat != seat or e.kind != kind:
            raise ScriptError(f"engine asked seat {seat} for {kind!r} among {options} but the script expects "
                              f"{e!r} (consumed: {self.used})")
        if e.options is not None and list(options) != list(e.options):
            raise ScriptError(f"seat {seat} {kind!r}: options {options}, expected {e.options}")
        if e.value not in options:
            raise ScriptError(f"seat {seat} {kind!r}: scripted choice {e.value!r} is not among {options}")
        self.used.append(e)
        return list(options).index(e.value)


class ScriptedRng:
    def __init__(self, script: Script):
        self.script = script

    def die(self) -> int:
        return self.script.die()

    def below(self, n: int) -> int:
        return self.script.below(n)

    def shuffle(self, items: list) -> None:
        """Fisher-Yates from the last position down, as sim.rng.Rng.shuffle (one Pick per swap)."""
        for i in range(len(items) - 1, 0, -1):
            j = self.below(i + 1)
            items[i], items[j] = items[j], items[i]


class ScriptedBot:
    def __init__(self, script: Script):
        self.script = script

    def decide(self, g, seat: int, kind, options: list) -> int:
        return self.script.decide(seat, kind, options)


def no_shuffle(n: int) -> list[Pick]:
    """Picks that leave a shuffle of ``n`` items in place."""
    return [Pick(i + 1, i) for i in range(n - 1, 0, -1)]


@contextlib.contextmanager
def script(g: Game, *entries):
    """Run the block with exactly these dice, picks and decisions, in this order; all must be used."""
    s: Script = g.script
    assert not s.queue, f"a previous script was not consumed: {list(s.queue)}"
    s.queue.extend(flatten(entries))
    yield s
    left = list(s.queue)
    s.queue.clear()
    if left:
        raise ScriptError(f"the engine did not use all of the script: left over {left}")


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
           "ScriptError"]
