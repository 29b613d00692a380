"""Sweep specs: a TOML file naming a game, a base rule set and the cells to play, validated completely.

A spec's cells are its grid (cartesian product, keys in file order, the last varying fastest) followed by
its explicit ``[[cells]]``. Each cell is resolved into a :class:`sim.games.Match` before any game is
played, so every unknown key, bad type or bad value is reported with the file, the key and the allowed
values. See ``docs/sweeps.md`` for the format.
"""

from __future__ import annotations

import hashlib
import itertools
import json
import math
import tomllib
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from sim.files import read_text_bounded
from sim.games import ENGINES, GAMES, EngineError, Game, Match, get
from sim.params import RuleError, fields

MAX_BATCH = 100_000                 # games per part, at most
MAX_CELLS = 10_000
MAX_PARTS = 100_000                 # the manifest holds one entry per part (~300 bytes in the driver)
MAX_GAMES_PER_CELL = MAX_PARTS * MAX_BATCH      # 10^10: one cell of MAX_PARTS parts of MAX_BATCH games
MAX_SPEC_BYTES = 2**20              # a spec file is read only up to this size
# Automatic batch size: games per part that take ~1-3 s on one core (core: ~20-35k games/s per core).
AUTO_BATCH = {"core": 40_000, "reference": 200}

# top-level key -> (TOML type, what is allowed), in the order the docs list them
KEYS: dict[str, tuple[type | tuple[type, ...], str]] = {
    "name": (str, "free text"),
    "game": (str, "a game name"),
    "rules": (str, "a preset name"),
    "seed": (int, f"an integer from 0 to {2**64 - 1}"),
    "games_per_cell": (int, f"an integer from 1 to {MAX_GAMES_PER_CELL}"),
    "batch_size": (int, f"0 (automatic) or an integer from 1 to {MAX_BATCH}"),
    "engine": (str, f"one of {', '.join(ENGINES)}"),
    "tables": (list, "a list of result table names"),
    "setup": (dict, "a table of setup values"),
    "overrides": (dict, "a table of rule parameters"),
    "data": (dict, "a table of card data file paths"),
    "grid": (dict, "a table of key = [values]"),
    "cells": (list, "an array of tables ([[cells]])"),
}
REQUIRED = ("game", "seed", "games_per_cell")


class SpecError(ValueError):
    """A sweep spec was refused; the message names the file, the key and the allowed values."""


@dataclass(frozen=True)
class Cell:
    """One configuration of a sweep: ``id`` (``c003``: its position), the varied ``values`` and its Match."""

    id: str
    values: dict[str, Any]
    match: Match


@dataclass(frozen=True)
class SweepSpec:
    """A validated sweep: the base configuration, resolved cells, games per cell, seed and batch size."""

    source: str                       # the spec file (or the name given to parse_spec)
    name: str
    game: str
    rules: str | None                # None: each cell's game default (a game may pick it by a setup value)
    seed: int
    games_per_cell: int
    batch_size: int                   # resolved: never 0
    engine: str
    tables: tuple[str, ...]
    setup: dict[str, Any]
    overrides: dict[str, Any]
    data: dict[str, str]              # absolute paths
    grid: dict[str, list]
    cells: list[Cell] = field(repr=False)
    raw: dict[str, Any] = field(repr=False, default_factory=dict)   # the spec as written

    @property
    def parts_per_cell(self) -> int:
        return math.ceil(self.games_per_cell / self.batch_size)

    @property
    def total_games(self) -> int:
        return self.games_per_cell * len(self.cells)

    @property
    def total_parts(self) -> int:
        return self.parts_per_cell * len(self.cells)

    def part_games(self, batch: int) -> tuple[int, int]:
        """(first game index, game count) of part ``batch`` of any cell."""
        start = batch * self.batch_size
        return start, min(self.batch_size, self.games_per_cell - start)

    def describe(self) -> dict[str, Any]:
        """Everything that decides the games, as plain JSON: the spec digest is taken over this."""
        return {
            "game": self.game, "engine": self.engine, "seed": self.seed, "games_per_cell": self.games_per_cell,
            "batch_size": self.batch_size, "tables": list(self.tables),
            "cells": [{"id": c.id, "values": c.values, "match": c.match.describe(),
                       "rules_digest": c.match.rules_digest, "data_digest": c.match.data_digest}
                      for c in self.cells],
        }

    @property
    def digest(self) -> str:
        """Digest of resolved cells, games, seed, batch size and data digests (the name is not part of it)."""
        blob = json.dumps(self.describe(), sort_keys=True, default=str).encode()
        return hashlib.sha256(blob).hexdigest()[:16]


def load_spec(path: str | Path) -> SweepSpec:
    """Read and validate a TOML sweep spec; raises :class:`SpecError` naming the file, key and allowed values."""
    path = Path(path)
    text = read_text_bounded(path, "spec file", SpecError, MAX_SPEC_BYTES)
    try:
        raw = tomllib.loads(text)
    except tomllib.TOMLDecodeError as e:
        raise SpecError(f"{path}: not valid TOML: {e}") from None
    return parse_spec(raw, source=str(path), base_dir=path.parent)


def _type_name(t) -> str:
    return {int: "an integer", str: "a string", list: "a list", dict: "a table"}.get(t, t.__name__)


def _check_type(src: str, key: str, value: Any, kind, allowed: str) -> None:
    ok = isinstance(value, kind) and not (kind is int and isinstance(value, bool))
    if not ok:
        raise SpecError(f"{src}: {key} = {value!r} has the wrong type; expected {_type_name(kind)} ({allowed})")


def _int_range(src: str, key: str, value: int, lo: int, hi: int, allowed: str) -> None:
    if not lo <= value <= hi:
        raise SpecError(f"{src}: {key} = {value} is out of range; expected {allowed}")


def auto_batch_size(games_per_cell: int, engine: str, cells: int = 1) -> int:
    """Games per part when the spec says 0: about AUTO_BATCH[engine], parts of a cell as equal as possible;
    larger (up to MAX_BATCH) where ``cells`` cells would otherwise make more than MAX_PARTS parts."""
    parts = math.ceil(games_per_cell / AUTO_BATCH[engine])
    parts = max(1, min(parts, max(MAX_PARTS // max(cells, 1), math.ceil(games_per_cell / MAX_BATCH))))
    return math.ceil(games_per_cell / parts)


def parse_spec(raw: dict[str, Any], source: str = "<spec>", base_dir: str | Path = ".") -> SweepSpec:
    """Validate a spec given as a dict (parsed TOML); data paths are relative to ``base_dir``."""
    src = source
    if not isinstance(raw, dict):
        raise SpecError(f"{src}: a sweep spec is a table of keys; valid keys: {', '.join(KEYS)}")
    for key in raw:
        if key not in KEYS:
            raise SpecError(f"{src}: unknown key {key!r}; valid keys: {', '.join(KEYS)}")
    for key in REQUIRED:
        if key not in raw:
            raise SpecError(f"{src}: missing key {key!r} ({KEYS[key][1]}); required keys: {', '.join(REQUIRED)}")
    for key, value in raw.items():
        _check_type(src, key, value, *KEYS[key])

    game = raw["game"]
    if game not in GAMES.names():
        raise SpecError(f"{src}: game = {game!r} is not allowed; expected one of {', '.join(GAMES.names())}")
    gdef = get(game)
    rules = raw.get("rules")            # None: the game's own choice (Game.preset_note says how)
    if rules is not None and rules not in gdef.presets:
        raise SpecError(f"{src}: rules = {rules!r} is not allowed; expected one of {', '.join(gdef.presets)}")
    seed = raw["seed"]
    _int_range(src, "seed", seed, 0, 2**64 - 1, KEYS["seed"][1])
    games_per_cell = raw["games_per_cell"]
    _int_range(src, "games_per_cell", games_per_cell, 1, MAX_GAMES_PER_CELL, KEYS["games_per_cell"][1])
    engine = raw.get("engine", "core")
    if engine not in ENGINES:
        raise SpecError(f"{src}: engine = {engine!r} is not allowed; expected one of {', '.join(ENGINES)}")
    batch_size = raw.get("batch_size", 0)
    _int_range(src, "batch_size", batch_size, 0, MAX_BATCH, KEYS["batch_size"][1])
    tables = raw.get("tables", ["games"])
    for t in tables:
        if not isinstance(t, str):
            raise SpecError(f"{src}: tables: {t!r} is not a {game} result table; expected some of "
                            f"{', '.join(gdef.schemas)}")
    _check_keys(gdef, f"{src}: tables", tables=tables)
    tables = ("games",) + tuple(dict.fromkeys(t for t in tables if t != "games"))

    setup = raw.get("setup", {})
    _check_keys(gdef, f"{src}: [setup]", setup=setup)
    data = {key: _data_path(src, f"[data] {key}", gdef, key, value, base_dir)
            for key, value in raw.get("data", {}).items()}
    overrides = raw.get("overrides", {})

    bare = _resolve(gdef, rules, {}, setup, data, tables, f"{src}: [setup]")
    param_names = [f.name for f in fields(bare.rules)]
    cell_keys = ["rules", *gdef.setup_keys, *gdef.data_keys, *param_names]
    for key in overrides:
        if key not in param_names:
            raise SpecError(f"{src}: [overrides] unknown rule parameter {key!r}; valid: {', '.join(param_names)}")
    _resolve(gdef, rules, overrides, setup, data, tables, f"{src}: [overrides]")

    grid = raw.get("grid", {})
    explicit = raw.get("cells", [])
    for key, values in grid.items():
        if key not in cell_keys:
            raise SpecError(f"{src}: [grid] unknown key {key!r}; valid: rules, {game} setup keys "
                            f"({', '.join(gdef.setup_keys)}), card data files ({', '.join(gdef.data_keys)}) "
                            f"or rule parameters ({', '.join(param_names)})")
        if not isinstance(values, list) or not values:
            raise SpecError(f"{src}: [grid] {key} = {_clip(values)} must be a non-empty list of values")
        if len(values) > MAX_CELLS:
            raise SpecError(f"{src}: [grid] {key} lists {len(values)} values; at most {MAX_CELLS} cells are "
                            "allowed in one sweep")
        seen = [json.dumps(v, sort_keys=True) for v in values]
        if len(set(seen)) != len(seen):
            raise SpecError(f"{src}: [grid] {key} = {_clip(values)} lists a value twice")
    # counted before the product is expanded: a grid of 10^10 cells is refused without building it
    n_cells = (math.prod(len(v) for v in grid.values()) if grid else 0) + len(explicit)
    if n_cells > MAX_CELLS:
        sizes = " x ".join(str(len(v)) for v in grid.values())
        raise SpecError(f"{src}: {n_cells} cells ({sizes or 0} from [grid]"
                        f"{f' + {len(explicit)} [[cells]]' if explicit else ''}); at most {MAX_CELLS} are allowed "
                        "in one sweep")
    n_cells = max(n_cells, 1)
    batch_size = min(batch_size or auto_batch_size(games_per_cell, engine, n_cells), games_per_cell)
    per_cell = math.ceil(games_per_cell / batch_size)
    parts = n_cells * per_cell        # checked before any cell is resolved
    if parts > MAX_PARTS:
        raise SpecError(f"{src}: {parts} parts ({n_cells} cells x {per_cell}); "
                        f"at most {MAX_PARTS} are allowed: raise batch_size (up to {MAX_BATCH}) or split the sweep")
    combos = [dict(zip(grid, combo)) for combo in itertools.product(*grid.values())] if grid else []
    for i, cell in enumerate(explicit):
        if not isinstance(cell, dict):
            raise SpecError(f"{src}: cells[{i}] = {cell!r} must be a table ([[cells]]) of key = value")
        for key in cell:
            if key not in cell_keys:
                raise SpecError(f"{src}: cells[{i}]: unknown key {key!r}; valid: rules, {game} setup keys "
                                f"({', '.join(gdef.setup_keys)}), card data files ({', '.join(gdef.data_keys)}) "
                                f"or rule parameters ({', '.join(param_names)})")
    combos += [dict(c) for c in explicit]
    if not combos:
        combos = [{}]

    width = max(3, len(str(len(combos) - 1)))
    cells: list[Cell] = []
    by_digest: dict[str, str] = {}
    for i, values in enumerate(combos):
        cid = f"c{i:0{width}d}"
        where = f"{src}: cell {cid} {_show(values)}"
        cell_rules = values.get("rules", rules)
        if cell_rules is not None and (not isinstance(cell_rules, str) or cell_rules not in gdef.presets):
            raise SpecError(f"{where}: rules = {cell_rules!r} is not allowed; expected one of "
                            f"{', '.join(gdef.presets)}")
        cell_setup = {**setup, **{k: v for k, v in values.items() if k in gdef.setup_keys}}
        cell_over = {**overrides, **{k: v for k, v in values.items() if k in param_names}}
        cell_data = {**data, **{k: _data_path(where, k, gdef, k, v, base_dir)
                                for k, v in values.items() if k in gdef.data_keys}}
        match = _resolve(gdef, cell_rules, cell_over, cell_setup, cell_data, tables, where)
        if match.digest in by_digest:
            raise SpecError(f"{where}: plays the same games as cell {by_digest[match.digest]}; "
                            "every cell must differ")
        by_digest[match.digest] = cid
        cells.append(Cell(cid, values, match))

    for cell in cells:                 # what the engine cannot play is refused before any work starts
        try:
            cell.match.check_engine(engine)
        except EngineError as e:
            raise SpecError(f"{src}: cell {cell.id} {_show(cell.values)}: {e}") from None

    return SweepSpec(source=src, name=raw.get("name", Path(src).stem), game=game, rules=rules, seed=seed,
                     games_per_cell=games_per_cell, batch_size=batch_size, engine=engine, tables=tables,
                     setup=dict(setup), overrides=dict(overrides), data=data, grid=dict(grid), cells=cells,
                     raw=raw)


def _clip(value: Any, limit: int = 80) -> str:
    """``repr(value)``, cut to ``limit`` characters (an error line stays one short line)."""
    text = repr(value)
    return text if len(text) <= limit else text[:limit - 5] + " ...]"


def _show(values: dict) -> str:
    return "(" + ", ".join(f"{k}={v!r}" for k, v in values.items()) + ")" if values else "(base)"


def _data_path(where: str, label: str, gdef: Game, key: str, value: Any, base_dir: str | Path) -> str:
    """A card data file named in a spec ([data] or a [grid]/[[cells]] axis): a string path, relative to
    the spec's folder, of a file that exists; returned absolute."""
    _check_keys(gdef, f"{where}: [data]", data=[key])
    _check_type(where, label, value, str, gdef.data_keys[key] + " path")
    p = (Path(base_dir) / value).resolve()
    if not p.is_file():
        raise SpecError(f"{where}: {label} = {value!r}: no such file ({p})")
    return str(p)


def _check_keys(gdef: Game, where: str, **given) -> None:
    """The game's own check of setup, data and table names (Game.check_keys), as a SpecError."""
    try:
        gdef.check_keys(where=where, **given)
    except RuleError as e:
        raise SpecError(str(e)) from None


def _resolve(gdef: Game, rules, overrides, setup, data, tables, where) -> Match:
    try:
        return gdef.resolve(rules, overrides, setup, data, tables, where=where)
    except (RuleError, ValueError) as e:   # card-data errors are ValueErrors naming file, card and field
        msg = str(e)
        raise SpecError(msg if msg.startswith(where) else f"{where}: {msg}") from None
