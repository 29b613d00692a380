"""Tension as a sweep (``playtest tension``; docs/tension.md): the spec that asks for the ``win_prob`` table
(each seat's chance to win by the oracle's value head as every turn begins, computed in the engine core), and
nothing else. It runs like any sweep (``playtest status DIR``, ``--verify``, ``--resume``); the measures are read
from the folder (measures/tension/answer.py over trace.py), by ``playtest tension`` and by ``playtest
report`` per cell."""

from __future__ import annotations

from typing import Any

STEM = "tension"                 # DIR/tension.toml: the sweep spec in its results folder (cluster/measure_sweep.py)
HEADER = "tension: written by playtest tension (docs/tension.md)"
TABLE = "win_prob"


def check(match, oracle) -> None:
    """Nothing beyond the spec's own checks (the oracle is one of the game's models; the core plays it)."""


def spec_raw(game: str, rules: str | None, overrides: dict, setup: dict, seed: int, games: int,
             oracle: str) -> dict[str, Any]:
    """The sweep spec (as parse_spec takes it) of one tension run: one cell, the games and win_prob tables."""
    raw: dict[str, Any] = {"name": f"tension {game}", "game": game}
    if rules is not None:
        raw["rules"] = rules
    raw.update(seed=seed, games_per_cell=games, engine="core", tables=["games", TABLE], oracle=oracle,
               setup=dict(setup))
    if overrides:
        raw["overrides"] = dict(overrides)
    return raw
