"""Scenario harness for hand-worked rulebook tests of both engines (sim/paws and the core).

A scenario builds a :class:`~sim.paws.state.Game` in a known state (board, positions, HP, hands,
owners, decks) and then runs one engine function inside ``with script(g, ...)``. The script is ONE
ordered queue shared by the dice, the random picks and the bots' decisions:

* an int 1..6 is the next ``g.rng.die()``;
* ``Pick(n, k)`` is the next ``g.rng.below(n)`` and returns ``k`` (``n`` must match);
* ``Ask(seat, Decision.X, value)`` is the next bot decision: that seat, that kind, and the option
  equal to ``value`` is chosen (``options=[...]`` additionally asserts the full option list);
* lists and tuples are flattened, so a roll of four dice is written ``[6, 5, 2, 1]``.

Any draw or decision that is not the next scripted entry fails at once, and leaving the ``with``
block with entries not consumed fails too, so a test pins exactly how many dice the engine rolls and
which choices it asks for. Outside a ``with`` block the queue is empty: any draw or ask fails.

Each test runs once per engine (the ``engine`` fixture, tests/paws/conftest.py): on the core, the
engine functions it calls are core twins (core_scenario.py) that run on the same ``Game`` and take
their dice, picks and decisions from the same queue. ``@reference_only`` keeps a test to the reference
engine (say why next to it).
"""

from __future__ import annotations

import contextlib
from collections import deque
from dataclasses import dataclass
from typing import Any

import pytest

from sim.paws.cards import load_cards
from sim.paws.kinds import Tile
from sim.paws.rules import V4, PawsRules, PawsSetup
from sim.paws.state import NOBODY, Game

ENGINES = ("reference", "core")
reference_only = pytest.mark.parametrize("engine", ["reference"], indirect=True)

CARDS = load_cards()
ITEM_ID = {c.name: c.id for c in CARDS.items}
MONSTER_ID = {c.name: c.id for c in CARDS.monsters}

H, M, C, F, D = Tile.HOME, Tile.MANSION, Tile.CHEST, Tile.FOREST, Tile.DESERT

# A fixed Beginner board (§2.2: 4 mansions, 4 homes, 6 chests, 4 forests in two rings).
# Cell 0 is the Desert; ring 1 is cells 1..6, ring 2 cells 7..18 (sim/paws/board.py).
#   neighbours: 0: 3 4 5 6 1 2 | 1: 2 0 6 18 7 8 | 2: 10 3 0 1 8 9 | 3: 11 12 4 0 2 10
#               4: 12 13 14 5 0 3 | 5: 4 14 15 16 6 0 | 6: 0 5 16 17 18 1 | 7: 8 1 18 | 8: 9 2 1 7
LAYOUT = {
    0: D,
    1: H, 2: H, 3: M, 4: C, 5: F, 6: C,
    7: H, 8: H, 9: M, 10: M, 11: M, 12: C, 13: C, 14: C, 15: C, 16: F, 17: F, 18: F,
}


def item(name: str) -> int:
    return ITEM_ID[name]


def monster(name: str) -> int:
    return MONSTER_ID[name]


def items(*names: str) -> list[int]:
    return [ITEM_ID[n] for n in names]


def monsters(*names: str) -> list[int]:
    return [MONSTER_ID[n] for n in names]


class ScriptError(AssertionError):
    """The engine drew a die, a random number or a decision the scenario did not script."""


@dataclass(frozen=True)
class Pick:
    """The next ``rng.below(n)`` returns ``k``."""
    n: int
    k: int


@dataclass(frozen=True)
class Ask:
    """The next bot decision: ``seat`` decides ``kind`` and picks the option equal to ``value``."""
    seat: int
    kind: Any
    value: Any
    options: list | None = None


def flatten(entries) -> list:
    out = []
    for e in entries:
        if isinstance(e, (list, tuple)) and not isinstance(e, (Pick, Ask)):
            out.extend(flatten(e))
        else:
            out.append(e)
    return out


class Script:
    """The ordered queue of dice, picks and decisions a scenario expects, and what was consumed."""

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
        assert 0 <= e.k < n, f"bad script entry {e!r}"
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
    """Stands in for sim.rng.Rng: die(), below(n) and shuffle() come from the script."""

    def __init__(self, script: Script):
        self.script = script

    def die(self) -> int:
        return self.script.die()

    def below(self, n: int) -> int:
        return self.script.below(n)

    def shuffle(self, items: list) -> None:
        """Fisher-Yates from the last position down, exactly as sim.rng.Rng.shuffle (one Pick per swap)."""
        for i in range(len(items) - 1, 0, -1):
            j = self.below(i + 1)
            items[i], items[j] = items[j], items[i]

    def next32(self) -> int:
        raise ScriptError("engine called next32() directly")


class ScriptedBot:
    def __init__(self, script: Script):
        self.script = script

    def decide(self, g, seat: int, kind, options: list) -> int:
        return self.script.decide(seat, kind, options)


def no_shuffle(n: int) -> list[Pick]:
    """Picks that make a shuffle of ``n`` items leave them in place (every swap is i with i)."""
    return [Pick(i + 1, i) for i in range(n - 1, 0, -1)]


@contextlib.contextmanager
def script(g: Game, *entries):
    """Run the block with exactly these dice, picks and decisions, in this order; all must be used."""
    s: Script = g.script
    assert not s.queue, f"a previous script was not consumed: {list(s.queue)}"
    s.queue.extend(flatten(entries))
    start = len(s.used)
    yield s
    left = list(s.queue)
    s.queue.clear()
    if left:
        raise ScriptError(f"the engine did not use all of the script: left over {left} "
                          f"(consumed: {s.used[start:]})")


def make_game(rules: PawsRules = V4, players: int = 2, board: str = "beginner", mode: str = "ffa",
              layout: dict | None = None, log: bool = True) -> Game:
    """A game with the fixed board, everyone on the Desert at start HP with empty hands and decks.

    Nothing random has happened: the decks are empty until the scenario fills them.
    """
    setup = PawsSetup(board=board, mode=mode, players=players, bots=("random",) * players)
    s = Script()
    g = Game(setup, rules, CARDS, [ScriptedBot(s) for _ in range(players)], ScriptedRng(s),
             [] if log else None)
    g.script = s
    if board == "beginner":
        for cell, kind in (LAYOUT if layout is None else layout).items():
            g.tile[cell] = kind
    else:
        g.tile[0] = Tile.DESERT
        for cell, kind in (layout or {}).items():
            g.tile[cell] = kind
    g.board_changed()
    return g


def place(g: Game, seat: int, pos: int | None = None, hp: int | None = None, hand: list[str] | None = None,
          beasts: list[str] | None = None, active: list[bool] | None = None, lives: int | None = None) -> None:
    """Set one player's position, HP, item cards (by name), monster cards (by name) and lives."""
    p = g.players[seat]
    if pos is not None:
        p.pos = pos
    if hp is not None:
        p.hp = hp
    if hand is not None:
        p.items = items(*hand)
    if beasts is not None:
        p.monsters = monsters(*beasts)
        p.active = list(active) if active is not None else [False] * len(p.monsters)
    if lives is not None:
        p.lives = lives


def own(g: Game, seat: int, *cells: int) -> None:
    """``seat`` owns these homes/mansions (marker and brick)."""
    for c in cells:
        assert g.tile[c] in (Tile.HOME, Tile.MANSION)
        g.owner[c] = g.brick[c] = seat


def monster_deck(g: Game, *names_top_first: str) -> None:
    """Set the monster deck; the first name is the top card (the engine's top is the list's end)."""
    g.monster_deck = list(reversed(monsters(*names_top_first)))


def item_deck(g: Game, *names_top_first: str) -> None:
    """Set the item deck; the first name is the top card."""
    g.item_deck = list(reversed(items(*names_top_first)))


def names(ids: list[int]) -> list[str]:
    return [CARDS.items[i].name for i in ids]


def beast_names(ids: list[int]) -> list[str]:
    return [CARDS.monsters[i].name for i in ids]


def deck_top_first(g: Game) -> list[str]:
    return beast_names(list(reversed(g.monster_deck)))


def items_top_first(g: Game) -> list[str]:
    return names(list(reversed(g.item_deck)))


def begin_turn(g: Game, seat: int) -> bool:
    """The engine's start of turn for ``seat`` (as turn.take_turn does before the first action)."""
    from sim.paws.turn import start_turn
    g.seat = seat
    return start_turn(g, seat)


__all__ = ["NOBODY", "Pick", "Ask", "script", "make_game", "place", "own", "monster_deck", "item_deck", "item",
           "monster", "items", "monsters", "names", "beast_names", "deck_top_first", "items_top_first",
           "no_shuffle", "begin_turn", "CARDS", "H", "M", "C", "F", "D", "ScriptError", "ENGINES", "reference_only"]
