"""Batch API: play a range of games of one setup and rule set, as Arrow tables.

Game ``k`` of a batch uses the random stream of (master seed, k), so any slice of a batch (or one
game alone) reproduces exactly the same records.
"""

from __future__ import annotations

from typing import Iterator

import pyarrow as pa

from sim.paws.cards import CardSet, load_cards
from sim.paws.game import play_game
from sim.paws.record import SCHEMA, to_table
from sim.paws.rules import PawsRules, PawsSetup

ENGINES = ("core", "reference")          # core: the Cython engine (default); reference: pure Python
DEFAULT_CHUNK = {"core": 65536, "reference": 256}


def check_engine(engine: str) -> None:
    if engine not in ENGINES:
        raise ValueError(f"engine {engine!r} is not available; expected one of {', '.join(ENGINES)}")


def play_batch(setup: PawsSetup, rules: PawsRules, master_seed: int, start: int, count: int,
               engine: str = "core", cards: CardSet | None = None) -> pa.Table:
    """Play games ``start .. start+count-1`` and return their records as one table."""
    check_engine(engine)
    cards = cards or load_cards()
    if engine == "core":
        from sim.paws.core_engine import play_batch_core
        return play_batch_core(setup, rules, cards, master_seed, start, count)
    return to_table([play_game(setup, rules, master_seed, i, cards) for i in range(start, start + count)])


def iter_batches(setup: PawsSetup, rules: PawsRules, master_seed: int, start: int, count: int,
                 engine: str = "core", cards: CardSet | None = None,
                 chunk: int | None = None) -> Iterator[pa.Table]:
    """The same games as :func:`play_batch`, streamed in tables of at most ``chunk`` rows."""
    check_engine(engine)
    cards = cards or load_cards()
    chunk = chunk or DEFAULT_CHUNK[engine]
    for lo in range(start, start + count, chunk):
        yield play_batch(setup, rules, master_seed, lo, min(chunk, start + count - lo), engine, cards)


def empty_table() -> pa.Table:
    return SCHEMA.empty_table()
