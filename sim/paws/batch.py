"""Batch API for Paws in Peril: play a range of games of one setup and rule set, as Arrow tables.

Game ``k`` of a batch uses the random stream of (master seed, k), so any slice of a batch (or one
game alone) reproduces exactly the same records. Every game is also reachable through the generic
interface in :mod:`sim.games` (``get("paws").resolve(...)``), which sweeps and the CLI use.
"""

from __future__ import annotations

from typing import Iterator

import pyarrow as pa

from sim.games import ENGINES, BatchRequest, Match, check_engine  # noqa: F401  (re-exported)
from sim.paws.cards import CardSet, load_cards
from sim.paws.plugin import Paws
from sim.paws.rules import PawsRules, PawsSetup


def _match(setup: PawsSetup, rules: PawsRules, cards: CardSet | None) -> Match:
    return Match(Paws.name, setup, rules, cards or load_cards())


def request(setup: PawsSetup, rules: PawsRules, master_seed: int, start: int, count: int, engine: str = "core",
            cards: CardSet | None = None) -> BatchRequest:
    """The batch of games ``start .. start+count-1`` of one setup and rule set (the default card data when
    ``cards`` is None), as the engines take it."""
    return BatchRequest(_match(setup, rules, cards), master_seed, start, count, engine)


def play_batch(setup: PawsSetup, rules: PawsRules, master_seed: int, start: int, count: int,
               engine: str = "core", cards: CardSet | None = None) -> pa.Table:
    """Play games ``start .. start+count-1`` and return their records as one table."""
    return request(setup, rules, master_seed, start, count, engine, cards).play()["games"]


def iter_batches(setup: PawsSetup, rules: PawsRules, master_seed: int, start: int, count: int,
                 engine: str = "core", cards: CardSet | None = None,
                 chunk: int | None = None) -> Iterator[pa.Table]:
    """The same games as :func:`play_batch`, streamed in tables of at most ``chunk`` rows."""
    for tables in _match(setup, rules, cards).iter_batches(master_seed, start, count, engine, chunk):
        yield tables["games"]
