"""The games playtest knows, behind one interface that the CLI, sweeps and regression use.

A :class:`GameDef` turns plain values (a preset name, rule overrides, setup values such as board or
players, paths to data files) into a validated, picklable :class:`Match`: everything needed to play
any range of games of one configuration with either engine. Adding a game means adding a ``GameDef``
to ``GAMES``; nothing downstream names a game.
"""

from __future__ import annotations

import hashlib
import importlib.util
import json
import os
from dataclasses import dataclass, field
from typing import Any, Callable, Iterator, Mapping

import pyarrow as pa

from sim.params import RuleError, as_dict, digest
from sim.record_schema import add_data_columns

ENGINES = ("core", "reference")          # core: the Cython engine (default); reference: pure Python


class EngineError(RuntimeError):
    """An engine could not play a configuration (a capacity overflowed, or it has no such game yet)."""


def check_engine(engine: str) -> None:
    """Refuse an unknown engine name, listing the valid ones."""
    if engine not in ENGINES:
        raise ValueError(f"engine {engine!r} is not available; expected one of {', '.join(ENGINES)}")


@dataclass(frozen=True)
class Match:
    """One validated game configuration: game, setup, rule set and card data. Picklable (Ray ships it)."""

    game: str
    setup: Any                       # the game's frozen setup object (board/mode/players/bots, ...)
    rules: Any                       # the game's frozen rule-parameter object
    data: Any                        # the game's validated card data (has ``.digest``)
    tables: tuple[str, ...] = ("games",)   # result tables a batch returns; "games" always first

    @property
    def definition(self) -> "GameDef":
        return GAMES[self.game]

    @property
    def schemas(self) -> dict[str, pa.Schema]:
        return {name: self.definition.schemas[name] for name in self.tables}

    def play_batch(self, seed: int, start: int, count: int, engine: str = "core") -> dict[str, pa.Table]:
        """Games ``start .. start+count-1`` of master seed ``seed``: {table name: Arrow table}."""
        check_engine(engine)
        tables = self.definition.play_batch(self, seed, start, count, engine)
        return {**tables, "games": add_data_columns(tables["games"], self.data_digest, self.data_name)}

    def iter_batches(self, seed: int, start: int, count: int, engine: str = "core",
                     chunk: int | None = None) -> Iterator[dict[str, pa.Table]]:
        """The same games as :meth:`play_batch`, in chunks of at most ``chunk`` games (bounded memory)."""
        check_engine(engine)
        chunk = chunk or self.definition.default_chunk[engine]
        for lo in range(start, start + count, chunk):
            yield self.play_batch(seed, lo, min(chunk, start + count - lo), engine)

    def play_one(self, seed: int, game_index: int, log: list[str] | None = None) -> dict:
        """One game's record from the reference engine; pass a list as ``log`` for the turn-by-turn log."""
        record = self.definition.play_one(self, seed, game_index, log)
        return {**record, "data_digest": self.data_digest, "data_name": self.data_name}

    @property
    def rules_digest(self) -> str:
        return digest(self.rules)

    @property
    def data_digest(self) -> str:
        return self.data.digest

    @property
    def data_name(self) -> str:
        """The card data files by name (``items=items.toml; monsters=monsters.toml``), as the record shows them."""
        return "; ".join(f"{key}={os.path.basename(str(path))}" for key, path in self.definition.data_files(self.data))

    def describe(self) -> dict[str, Any]:
        """Plain, JSON-able description: game, setup values and every rule parameter."""
        return {"game": self.game, "setup": self.definition.setup_values(self.setup),
                "rules": as_dict(self.rules), "tables": list(self.tables)}

    @property
    def digest(self) -> str:
        """Digest of everything that decides the games: setup, rules and card data."""
        blob = json.dumps({**self.describe(), "data": self.data_digest}, sort_keys=True, default=str).encode()
        return hashlib.sha256(blob).hexdigest()[:16]


@dataclass(frozen=True)
class GameDef:
    """How to build and play one game. ``resolve`` validates everything before any game is played."""

    name: str
    title: str
    presets: tuple[str, ...]
    default_preset: str
    setup_keys: dict[str, str]                      # setup value name -> help (allowed values)
    data_keys: dict[str, str]                       # data file name -> help
    schemas: dict[str, pa.Schema]                   # result table name -> schema ("games" first)
    resolve_fn: Callable[..., Match]
    play_batch_fn: Callable[..., dict[str, pa.Table]]
    play_one_fn: Callable[..., dict]
    setup_values_fn: Callable[[Any], dict]
    default_chunk: dict[str, int] = field(default_factory=lambda: {"core": 65536, "reference": 256})
    rule_presets: Mapping[str, Any] = field(default_factory=dict)   # preset name -> its frozen rule set
    bot_weights: Any = None                          # the heuristic bot's frozen weights class (defaults)
    column_docs: Mapping[str, Mapping[str, str]] = field(default_factory=dict)   # table -> column -> meaning

    def resolve(self, rules: str | None = None, overrides: Mapping[str, Any] | None = None,
                setup: Mapping[str, Any] | None = None, data: Mapping[str, Any] | None = None,
                tables: tuple[str, ...] = ("games",), where: str = "rules") -> Match:
        """Validate a preset, overrides, setup values and data files into a :class:`Match`.

        Raises :class:`sim.params.RuleError` (or the game's data error, a ``ValueError``) naming the
        field and the allowed values.
        """
        setup = dict(setup or {})
        data = dict(data or {})
        for key in setup:
            if key not in self.setup_keys:
                raise RuleError(f"{where}: unknown {self.name} setup value {key!r}; "
                                f"valid: {', '.join(self.setup_keys)}")
        for key in data:
            if key not in self.data_keys:
                raise RuleError(f"{where}: unknown {self.name} data file {key!r}; valid: {', '.join(self.data_keys)}")
        for t in tables:
            if t not in self.schemas:
                raise RuleError(f"{where}: unknown {self.name} result table {t!r}; valid: {', '.join(self.schemas)}")
        tables = ("games",) + tuple(t for t in tables if t != "games")
        return self.resolve_fn(rules, dict(overrides or {}), setup, data, tables, where)

    def play_batch(self, match: Match, seed: int, start: int, count: int, engine: str) -> dict[str, pa.Table]:
        return self.play_batch_fn(match, seed, start, count, engine)

    def play_one(self, match: Match, seed: int, game_index: int, log: list[str] | None) -> dict:
        return self.play_one_fn(match, seed, game_index, log)

    def setup_values(self, setup: Any) -> dict:
        return self.setup_values_fn(setup)

    def data_files(self, data: Any) -> list[tuple[str, str]]:
        """(data key, path) of each card data file of a game's validated data (``<key>_path`` attributes)."""
        return [(key, getattr(data, f"{key}_path")) for key in self.data_keys]


def _paws() -> GameDef:
    from sim.paws.match import PAWS
    return PAWS


_LOADERS: dict[str, Callable[[], GameDef]] = {"paws": _paws}


def _tales() -> GameDef:
    from sim.tales.match import TALES
    return TALES


if importlib.util.find_spec("sim.tales") is not None:  # Tales are Real, once its package exists
    _LOADERS["tales"] = _tales


class _Registry(dict):
    """Game name -> GameDef, loaded on first use (so importing sim.games stays cheap)."""

    def __missing__(self, name: str) -> GameDef:
        if name not in _LOADERS:
            raise RuleError(f"unknown game {name!r}; expected one of {', '.join(_LOADERS)}")
        self[name] = _LOADERS[name]()
        return self[name]

    def names(self) -> tuple[str, ...]:
        return tuple(_LOADERS)


GAMES = _Registry()


def get(name: str) -> GameDef:
    """The game called ``name``; an unknown name is a RuleError listing the known games."""
    return GAMES[name]
