"""Scenario harness for hand-worked rulebook tests of both engines (sim/paws and the core).

A scenario builds a :class:`~sim.paws.state.Game` in a known state (board, positions, HP, hands,
owners, decks) and then runs one engine function inside ``with script(g, ...)``: the dice, random
picks and bot decisions it expects, in order (tests/script_queue.py says how they are written). Outside
a ``with`` block the queue is empty: any draw or ask fails.

Each test runs once per engine (the ``engine`` fixture, tests/paws/conftest.py): on the core, the
engine functions it calls are core twins (core_scenario.py) that run on the same ``Game`` and take
their dice, picks and decisions from the same queue. ``@reference_only`` keeps a test to the reference
engine (say why next to it).
"""

from __future__ import annotations

import pytest

from sim.paws.cards import load_cards
from sim.paws.kinds import Tile
from sim.paws.rules import V4, PawsRules, PawsSetup
from sim.paws.state import NOBODY, Game
from script_queue import Ask, Pick, Script, ScriptedBot, ScriptedRng, ScriptError, no_shuffle, script  # noqa: F401

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
