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
import re
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Callable

from sim.files import MAX_NESTING, load_toml_bounded, nesting_of_value
from sim.games import ENGINES, GAMES, EngineError, Game, Match, get
from sim.kit import winprob
from sim.kit.bots import spec_fields
from sim.kit.learned import model_path
from infra.metrics import Metric, MetricError, fair_share, parse_metric, summarize
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
    "stop": (dict, "a table of stopping keys ([stop]; docs/sweeps.md)"),
    "kingmaking": (dict, "the kingmaking table's options: threshold, oracle (docs/kingmaking.md)"),
    "oracle": (str, "a shipped learned model of the game rating the seats of the win_prob table (docs/tension.md)"),
}
TABLE_OPTIONS = ("kingmaking",)     # result tables with options of their own: a top-level table named like it
REQUIRED = ("game", "seed", "games_per_cell")       # [stop] specs: max_games_per_cell in [stop] instead

# [stop] key -> (TOML type, what is allowed)
STOP_KEYS: dict[str, tuple[type | tuple[type, ...], str]] = {
    "metric": (str, "a metric name or 'sql: <expression>' (docs/sweeps.md)"),
    "half_width": ((int, float), "a number in (0, 0.5) for a share; for a mean, in (0, half its range)"),
    "relative": ((int, float), "a number in (0, 1): the half-width as a share of the estimate"),
    "max_games_per_cell": (int, f"an integer from 1 to {MAX_GAMES_PER_CELL}"),
    "confidence": ((int, float), "a number in (0.5, 1); default 0.95"),
    "test": (str, "'<metric> <= x' or '<metric> >= x', x a number in [0, 1] or fair, fair + d, fair - d"),
    "alpha": ((int, float), "a number in (0, 0.5); default 0.05"),
    "beta": ((int, float), "a number in (0, 0.5); default 0.05"),
    "delta": ((int, float), "a number in (0, 0.5): the SPRT's indifference width; default 0.01"),
}
PRECISION_KEYS = ("metric", "half_width", "relative", "confidence")
TEST_KEYS = ("test", "alpha", "beta", "delta")
_TEST = re.compile(r"^(?P<metric>.+)(?P<op><=|>=)\s*(?P<rhs>fair(?:\s*(?P<sign>[+-])\s*(?P<off>[0-9]*\.?[0-9]+))?|"
                   r"(?P<num>[0-9]*\.?[0-9]+))\s*$", re.DOTALL)


class SpecError(ValueError):
    """A sweep spec was refused; the message names the file, the key and the allowed values."""


@dataclass(frozen=True)
class Cell:
    """One configuration of a sweep: ``id`` (``c003``: its position), the varied ``values`` and its Match."""

    id: str
    values: dict[str, Any]
    match: Match


@dataclass(frozen=True)
class StopSpec:
    """A validated ``[stop]``: a precision target (``half_width`` or ``relative``) or a pass/fail ``test``."""

    metric: Metric
    max_games_per_cell: int
    half_width: float | None = None          # on the metric's own scale
    relative: float | None = None
    confidence: float = 0.95
    op: str | None = None                    # "<=" or ">=": a pass/fail test
    threshold: str | None = None             # as written: "0.3", "fair", "fair + 0.02"
    thresholds: dict[str, float] = field(default_factory=dict)   # per cell: the threshold's value
    alpha: float = 0.05
    beta: float = 0.05
    delta: float = 0.01

    @property
    def test(self) -> bool:
        return self.op is not None

    def describe(self) -> dict[str, Any]:
        """What decides where each cell stops (part of the spec digest)."""
        if self.test:
            return {"test": f"{self.metric.name} {self.op} {self.threshold}", "thresholds": self.thresholds,
                    "alpha": self.alpha, "beta": self.beta, "delta": self.delta,
                    "max_games_per_cell": self.max_games_per_cell}
        return {"metric": self.metric.name, "half_width": self.half_width, "relative": self.relative,
                "confidence": self.confidence, "max_games_per_cell": self.max_games_per_cell}


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
    stop: StopSpec | None = None      # [stop]: games_per_cell is then the cap, max_games_per_cell

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
            **({"stop": self.stop.describe()} if self.stop is not None else {}),
        }

    @property
    def digest(self) -> str:
        """Digest of resolved cells, games, seed, batch size and data digests (the name is not part of it)."""
        blob = json.dumps(self.describe(), sort_keys=True, default=str).encode()
        return hashlib.sha256(blob).hexdigest()[:16]


def load_spec(path: str | Path) -> SweepSpec:
    """Read and validate a TOML sweep spec; raises :class:`SpecError` naming the file, key and allowed values."""
    path = Path(path)
    raw = load_toml_bounded(path, "spec file", SpecError, MAX_SPEC_BYTES)   # nesting bounded: one line
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


@dataclass
class _Reading:
    """A spec as parse_spec reads it, section by section: each section's parser (:data:`SECTIONS`) checks its keys
    of ``raw`` and keeps what it resolved here for the sections after it."""

    src: str                           # the spec file (or the name given to parse_spec): every error line's start
    raw: dict[str, Any]                # the spec as written ([stop] max_games_per_cell as games_per_cell)
    base_dir: str | Path               # card data paths are relative to it
    within: str | Path | None = None   # every file the spec names must lie in this folder ("" none; None any)
    stop_raw: Any = None               # [stop] as written, or None
    gdef: Game | None = None
    rules: str | None = None           # None: each cell's game default
    seed: int = 0
    games_per_cell: int = 0
    stop_keys: dict[str, Any] | None = None
    engine: str = "core"
    batch_size: int = 0
    tables: tuple[str, ...] = ("games",)
    setup: dict[str, Any] = field(default_factory=dict)
    data: dict[str, str] = field(default_factory=dict)
    overrides: dict[str, Any] = field(default_factory=dict)
    options: dict[str, Any] = field(default_factory=dict)
    param_names: list[str] = field(default_factory=list)
    cell_keys: list[str] = field(default_factory=list)
    grid: dict[str, list] = field(default_factory=dict)
    combos: list[dict[str, Any]] = field(default_factory=list)
    cells: list[Cell] = field(default_factory=list)
    stop: StopSpec | None = None


def parse_spec(raw: dict[str, Any], source: str = "<spec>", base_dir: str | Path = ".",
               within: str | Path | None = None) -> SweepSpec:
    """Validate a spec given as a dict (parsed TOML); data paths are relative to ``base_dir``.

    ``within``: a spec read from a results folder that no signature vouches for (a manifest's stored spec) names
    no file outside that folder: a card data file or a learned model's file elsewhere is refused before it is
    opened (``""``: no file at all, a folder on object storage). None: any file (a spec the user gave)."""
    r = _Reading(src=source, raw=raw, base_dir=base_dir, within=within)
    if within is not None:
        _models_inside(source, raw, within)
    for parse in SECTIONS.values():     # in order: a section reads what the ones before it resolved
        parse(r)
    raw = r.raw
    if r.stop is not None:
        raw = {k: v for k, v in raw.items() if k != "games_per_cell"}       # the spec as written
    return SweepSpec(source=r.src, name=raw.get("name", Path(r.src).stem), game=raw["game"], rules=r.rules,
                     seed=r.seed, games_per_cell=r.games_per_cell, batch_size=r.batch_size, engine=r.engine,
                     tables=r.tables, setup=dict(r.setup), overrides=dict(r.overrides), data=r.data,
                     grid=dict(r.grid), cells=r.cells, raw=raw, stop=r.stop)


def _parse_keys(r: _Reading) -> None:
    """The top level: a table of known keys, nested within bounds, the required ones there, each of its type."""
    src, raw = r.src, r.raw
    if not isinstance(raw, dict):
        raise SpecError(f"{src}: a sweep spec is a table of keys; valid keys: {', '.join(KEYS)}")
    if nesting_of_value(raw) > MAX_NESTING:       # a stored spec (a manifest's) is read without parse_toml
        raise SpecError(f"{src}: tables and lists nest more than {MAX_NESTING} deep; at most {MAX_NESTING} "
                        "levels are allowed")
    for key in raw:
        if key not in KEYS:
            raise SpecError(f"{src}: unknown key {key!r}; valid keys: {', '.join(KEYS)}")
    r.stop_raw = stop_raw = raw.get("stop")
    if stop_raw is not None and "games_per_cell" in raw:
        raise SpecError(f"{src}: games_per_cell and [stop] together; a [stop] sweep plays until each cell's answer "
                        "is clear, up to [stop] max_games_per_cell: remove games_per_cell")
    if isinstance(stop_raw, dict):
        if "max_games_per_cell" not in stop_raw:
            raise SpecError(f"{src}: [stop] missing key 'max_games_per_cell' ({STOP_KEYS['max_games_per_cell'][1]})")
        _check_type(src, "[stop] max_games_per_cell", stop_raw["max_games_per_cell"], int,
                    KEYS["games_per_cell"][1])
        r.raw = raw = {**raw, "games_per_cell": stop_raw["max_games_per_cell"]}
    for key in REQUIRED:
        if key not in raw:
            raise SpecError(f"{src}: missing key {key!r} ({KEYS[key][1]}); required keys: {', '.join(REQUIRED)}")
    for key, value in raw.items():
        _check_type(src, key, value, *KEYS[key])


def _parse_game(r: _Reading) -> None:
    game = r.raw["game"]
    if game not in GAMES.names():
        raise SpecError(f"{r.src}: game = {game!r} is not allowed; expected one of {', '.join(GAMES.names())}")
    r.gdef = get(game)


def _parse_rules(r: _Reading) -> None:
    r.rules = r.raw.get("rules")            # None: the game's own choice (Game.preset_note says how)
    if r.rules is not None and r.rules not in r.gdef.presets:
        raise SpecError(f"{r.src}: rules = {r.rules!r} is not allowed; expected one of {', '.join(r.gdef.presets)}")


def _parse_seed(r: _Reading) -> None:
    r.seed = r.raw["seed"]
    _int_range(r.src, "seed", r.seed, 0, 2**64 - 1, KEYS["seed"][1])


def _parse_games_per_cell(r: _Reading) -> None:
    r.games_per_cell = r.raw["games_per_cell"]
    gkey = "[stop] max_games_per_cell" if r.stop_raw is not None else "games_per_cell"
    _check_type(r.src, gkey, r.games_per_cell, int, KEYS["games_per_cell"][1])
    _int_range(r.src, gkey, r.games_per_cell, 1, MAX_GAMES_PER_CELL, KEYS["games_per_cell"][1])


def _parse_stop(r: _Reading) -> None:
    """[stop] on its own; its metric is checked on every cell once they are resolved (:func:`_parse_stop_cells`)."""
    r.stop_keys = _stop_keys(r.src, r.gdef, r.stop_raw) if r.stop_raw is not None else None


def _parse_engine(r: _Reading) -> None:
    r.engine = r.raw.get("engine", "core")
    if r.engine not in ENGINES:
        raise SpecError(f"{r.src}: engine = {r.engine!r} is not allowed; expected one of {', '.join(ENGINES)}")


def _parse_batch_size(r: _Reading) -> None:
    """The batch size as written (0: automatic, resolved once the cells are counted, :func:`_parse_cells`)."""
    r.batch_size = r.raw.get("batch_size", 0)
    _int_range(r.src, "batch_size", r.batch_size, 0, MAX_BATCH, KEYS["batch_size"][1])


def _parse_tables(r: _Reading) -> None:
    tables = r.raw.get("tables", ["games"])
    for t in tables:
        if not isinstance(t, str):
            raise SpecError(f"{r.src}: tables: {t!r} is not a {r.gdef.name} result table; expected some of "
                            f"{', '.join(r.gdef.schemas)}")
    _check_keys(r.gdef, f"{r.src}: tables", tables=tables)
    r.tables = ("games",) + tuple(dict.fromkeys(t for t in tables if t != "games"))


def _parse_setup(r: _Reading) -> None:
    r.setup = r.raw.get("setup", {})
    _check_keys(r.gdef, f"{r.src}: [setup]", setup=r.setup)


def _parse_data(r: _Reading) -> None:
    r.data = {key: _data_path(r.src, f"[data] {key}", r.gdef, key, value, r.base_dir, r.within)
              for key, value in r.raw.get("data", {}).items()}


def _parse_table_options(r: _Reading) -> None:
    """The options of tables that take some ([kingmaking]) and the sweep's oracle (the win_prob table's, and
    kingmaking's unless [kingmaking] names its own); the game checks them as it resolves the cells."""
    src, raw = r.src, r.raw
    options = {t: raw[t] for t in TABLE_OPTIONS if t in raw}      # checked by the game (Game.table_options)
    if winprob.TABLE in r.tables:
        if r.engine != "core":
            raise SpecError(f"{src}: tables: {winprob.NEEDS_CORE}")
        try:        # checked once here, with the key's own words; every cell keeps it as its table's option
            oracle = winprob.resolve_oracle(r.gdef, raw.get("oracle"), src)
        except RuleError as e:
            raise SpecError(str(e)) from None
        options[winprob.TABLE] = {"oracle": winprob.describe(oracle)}
    elif "oracle" in raw and "kingmaking" not in r.tables:
        raise SpecError(f"{src}: oracle = {raw['oracle']!r} without the {winprob.TABLE} table; the oracle rates the "
                        f"seats of {winprob.TABLE} (and kingmaking) only: add it to tables (tables = [\"games\", "
                        f"\"{winprob.TABLE}\"])")
    if "oracle" in raw and "kingmaking" in r.tables:     # the sweep's oracle, unless [kingmaking] names its own
        options["kingmaking"] = {"oracle": raw["oracle"], **(options.get("kingmaking") or {})}
    r.options = options


def _parse_overrides(r: _Reading) -> None:
    """[overrides]: rule parameters of the base configuration, which resolves with them (and without)."""
    src, gdef = r.src, r.gdef
    r.overrides = r.raw.get("overrides", {})
    bare = _resolve(gdef, r.rules, {}, r.setup, r.data, r.tables, f"{src}: [setup]", r.options)
    r.param_names = [f.name for f in fields(bare.rules)]
    r.cell_keys = ["rules", *gdef.setup_keys, *gdef.data_keys, *r.param_names]
    for key in r.overrides:
        if key not in r.param_names:
            raise SpecError(f"{src}: [overrides] unknown rule parameter {key!r}; valid: {', '.join(r.param_names)}")
    _resolve(gdef, r.rules, r.overrides, r.setup, r.data, r.tables, f"{src}: [overrides]", r.options)


def _unknown_cell_key(r: _Reading, where: str, key: str) -> SpecError:
    gdef = r.gdef
    return SpecError(f"{r.src}: {where} unknown key {key!r}; valid: rules, {gdef.name} setup keys "
                     f"({', '.join(gdef.setup_keys)}), card data files ({', '.join(gdef.data_keys)}) "
                     f"or rule parameters ({', '.join(r.param_names)})")


def _parse_grid(r: _Reading) -> None:
    src = r.src
    r.grid = grid = r.raw.get("grid", {})
    for key, values in grid.items():
        if key not in r.cell_keys:
            raise _unknown_cell_key(r, "[grid]", key)
        if not isinstance(values, list) or not values:
            raise SpecError(f"{src}: [grid] {key} = {_clip(values)} must be a non-empty list of values")
        if len(values) > MAX_CELLS:
            raise SpecError(f"{src}: [grid] {key} lists {len(values)} values; at most {MAX_CELLS} cells are "
                            "allowed in one sweep")
        seen = [json.dumps(v, sort_keys=True) for v in values]
        if len(set(seen)) != len(seen):
            raise SpecError(f"{src}: [grid] {key} = {_clip(values)} lists a value twice")


def _parse_cells(r: _Reading) -> None:
    """[[cells]] and the grid's product: counted (and the parts with them, the batch size resolved) before the
    product is expanded, so a grid of 10^10 cells is refused without building it."""
    src, grid = r.src, r.grid
    explicit = r.raw.get("cells", [])
    n_cells = (math.prod(len(v) for v in grid.values()) if grid else 0) + len(explicit)
    if n_cells > MAX_CELLS:
        sizes = " x ".join(str(len(v)) for v in grid.values())
        raise SpecError(f"{src}: {n_cells} cells ({sizes or 0} from [grid]"
                        f"{f' + {len(explicit)} [[cells]]' if explicit else ''}); at most {MAX_CELLS} are allowed "
                        "in one sweep")
    n_cells = max(n_cells, 1)
    r.batch_size = min(r.batch_size or auto_batch_size(r.games_per_cell, r.engine, n_cells), r.games_per_cell)
    per_cell = math.ceil(r.games_per_cell / r.batch_size)
    parts = n_cells * per_cell        # checked before any cell is resolved
    if parts > MAX_PARTS:
        raise SpecError(f"{src}: {parts} parts ({n_cells} cells x {per_cell}); "
                        f"at most {MAX_PARTS} are allowed: raise batch_size (up to {MAX_BATCH}) or split the sweep")
    combos = [dict(zip(grid, combo)) for combo in itertools.product(*grid.values())] if grid else []
    for i, cell in enumerate(explicit):
        if not isinstance(cell, dict):
            raise SpecError(f"{src}: cells[{i}] = {cell!r} must be a table ([[cells]]) of key = value")
        for key in cell:
            if key not in r.cell_keys:
                raise _unknown_cell_key(r, f"cells[{i}]:", key)
    r.combos = (combos + [dict(c) for c in explicit]) or [{}]


def _parse_resolve_cells(r: _Reading) -> None:
    """Every cell resolved into its Match (each must play other games than the rest), then checked against the
    engine: what it cannot play is refused before any work starts."""
    src, gdef, combos = r.src, r.gdef, r.combos
    width = max(3, len(str(len(combos) - 1)))
    by_digest: dict[str, str] = {}
    for i, values in enumerate(combos):
        cid = f"c{i:0{width}d}"
        where = f"{src}: cell {cid} {_show(values)}"
        cell_rules = values.get("rules", r.rules)
        if cell_rules is not None and (not isinstance(cell_rules, str) or cell_rules not in gdef.presets):
            raise SpecError(f"{where}: rules = {cell_rules!r} is not allowed; expected one of "
                            f"{', '.join(gdef.presets)}")
        cell_setup = {**r.setup, **{k: v for k, v in values.items() if k in gdef.setup_keys}}
        cell_over = {**r.overrides, **{k: v for k, v in values.items() if k in r.param_names}}
        cell_data = {**r.data, **{k: _data_path(where, k, gdef, k, v, r.base_dir, r.within)
                                  for k, v in values.items() if k in gdef.data_keys}}
        match = _resolve(gdef, cell_rules, cell_over, cell_setup, cell_data, r.tables, where, r.options)
        if match.digest in by_digest:
            raise SpecError(f"{where}: plays the same games as cell {by_digest[match.digest]}; "
                            "every cell must differ")
        by_digest[match.digest] = cid
        r.cells.append(Cell(cid, values, match))
    for cell in r.cells:
        try:
            cell.match.check_engine(r.engine)
        except EngineError as e:
            raise SpecError(f"{src}: cell {cell.id} {_show(cell.values)}: {e}") from None


def _parse_stop_cells(r: _Reading) -> None:
    if r.stop_keys:
        r.stop = _stop_cells(r.src, r.gdef, r.stop_keys, r.cells, r.seed, r.engine, r.games_per_cell)


# spec section -> its parser, in the order parse_spec runs them (a section reads what the ones before resolved;
# the order is also which error a spec with several gets first)
SECTIONS: dict[str, Callable[[_Reading], None]] = {
    "keys": _parse_keys,
    "game": _parse_game,
    "rules": _parse_rules,
    "seed": _parse_seed,
    "games_per_cell": _parse_games_per_cell,
    "stop": _parse_stop,
    "engine": _parse_engine,
    "batch_size": _parse_batch_size,
    "tables": _parse_tables,
    "setup": _parse_setup,
    "data": _parse_data,
    "table options": _parse_table_options,
    "overrides": _parse_overrides,
    "grid": _parse_grid,
    "cells": _parse_cells,
    "cell matches": _parse_resolve_cells,
    "stop cells": _parse_stop_cells,
}


def _number(src: str, key: str, value: Any, lo: float, hi: float, allowed: str) -> float:
    """A [stop] number strictly between ``lo`` and ``hi``."""
    if isinstance(value, bool) or not isinstance(value, (int, float)) or not math.isfinite(value) \
            or not lo < value < hi:
        raise SpecError(f"{src}: [stop] {key} = {value!r} is not allowed; expected {allowed}")
    return float(value)


def _stop_keys(src: str, gdef: Game, stop: Any) -> dict[str, Any]:
    """[stop] checked on its own (keys, types, ranges, the metric or test): what does not depend on a cell."""
    if not isinstance(stop, dict):
        raise SpecError(f"{src}: stop = {_clip(stop)} must be a table ([stop]) of keys: {', '.join(STOP_KEYS)}")
    for key in stop:
        if key not in STOP_KEYS:
            raise SpecError(f"{src}: [stop] unknown key {key!r}; valid keys: {', '.join(STOP_KEYS)}")
    for key, value in stop.items():
        kind, allowed = STOP_KEYS[key]
        ok = isinstance(value, kind) and not isinstance(value, bool)
        if not ok:
            raise SpecError(f"{src}: [stop] {key} = {_clip(value)} has the wrong type; expected {allowed}")
    precision = [k for k in PRECISION_KEYS if k in stop]
    testing = [k for k in TEST_KEYS if k in stop]
    if precision and testing:
        raise SpecError(f"{src}: [stop] mixes a precision target ({', '.join(precision)}) with a pass/fail test "
                        f"({', '.join(testing)}); give metric with half_width or relative, or test (with alpha, "
                        "beta, delta)")
    out: dict[str, Any] = {}
    if testing:
        if "test" not in stop:
            raise SpecError(f"{src}: [stop] missing key 'test' ({STOP_KEYS['test'][1]})")
        m = _TEST.match(stop["test"])
        if not m:
            raise SpecError(f"{src}: [stop] test = {_clip(stop['test'])} is not allowed; expected "
                            f"{STOP_KEYS['test'][1]}")
        metric = _metric(src, gdef, "test", m.group("metric").strip())
        if metric.kind != "share":
            raise SpecError(f"{src}: [stop] test: metric {metric.name!r} is a mean; a pass/fail test needs a share")
        out.update(op=m.group("op"), metric=metric)
        if m.group("num") is not None:
            out["threshold"] = m.group("num")
            _number(src, "test", float(m.group("num")), -1e-12, 1 + 1e-12, "a threshold in [0, 1]")
        else:
            out["threshold"] = "fair" + (f" {m.group('sign')} {m.group('off')}" if m.group("sign") else "")
            if not metric.name.startswith(("first_player_share", "win_share:")):
                raise SpecError(f"{src}: [stop] test: 'fair' is the share of one seat or team, so it goes with "
                                f"first_player_share or win_share:player=N / team=N, not {metric.name!r}")
        for key in ("alpha", "beta"):
            out[key] = _number(src, key, stop.get(key, 0.05), 0.0, 0.5, STOP_KEYS[key][1])
        out["delta"] = _number(src, "delta", stop.get("delta", 0.01), 0.0, 0.5, STOP_KEYS["delta"][1])
        return out
    if "metric" not in stop:
        raise SpecError(f"{src}: [stop] needs metric (with half_width or relative) or test; neither is given")
    metric = out["metric"] = _metric(src, gdef, "metric", stop["metric"])
    if ("half_width" in stop) == ("relative" in stop):
        raise SpecError(f"{src}: [stop] give exactly one of half_width ({STOP_KEYS['half_width'][1]}) or relative "
                        f"({STOP_KEYS['relative'][1]}); {'both' if 'half_width' in stop else 'neither'} given")
    if "half_width" in stop:
        top = (metric.high - metric.low) / 2
        out["half_width"] = _number(src, "half_width", stop["half_width"], 0.0, top,
                                    f"a number in (0, {top:g}) for {metric.name} ({metric.kind})")
    else:
        out["relative"] = _number(src, "relative", stop["relative"], 0.0, 1.0, STOP_KEYS["relative"][1])
    out["confidence"] = _number(src, "confidence", stop.get("confidence", 0.95), 0.5, 1.0,
                                STOP_KEYS["confidence"][1])
    return out


def _metric(src: str, gdef: Game, key: str, text: str) -> Metric:
    try:
        return parse_metric(gdef, text)
    except MetricError as e:
        raise SpecError(f"{src}: [stop] {key}: {e}") from None


def _stop_cells(src: str, gdef: Game, keys: dict[str, Any], cells: list[Cell], seed: int, engine: str,
                cap: int) -> StopSpec:
    """The [stop] metric checked on one game of every cell (game 0 of the seed: a seat the cell lacks, a team
    metric on a free-for-all cell, a sql: value out of [0, 1]), and a test's threshold per cell."""
    metric: Metric = keys["metric"]
    thresholds: dict[str, float] = {}
    for cell in cells:
        where = f"{src}: [stop] cell {cell.id} {_show(cell.values)}"
        try:
            probe = cell.match.play_batch(seed, 0, 1, engine)["games"]
            summarize(gdef, [metric], probe)
            if keys.get("op"):
                text = keys["threshold"]
                if text.startswith("fair"):
                    value = fair_share(gdef, metric, probe)
                    if len(text) > 4:
                        off = float(text.split()[-1])
                        value = value + off if "+" in text else value - off
                else:
                    value = float(text)
                p0 = value if keys["op"] == "<=" else 1.0 - value
                if not (0.0 <= p0 and p0 + keys["delta"] <= 1.0):
                    raise SpecError(f"{where}: test {metric.name} {keys['op']} {text} is {value:g} here, which leaves "
                                    f"no room for delta {keys['delta']:g} in [0, 1]")
                thresholds[cell.id] = value
        except MetricError as e:
            raise SpecError(f"{where}: {e}") from None
    return StopSpec(metric=metric, max_games_per_cell=cap, half_width=keys.get("half_width"),
                    relative=keys.get("relative"), confidence=keys.get("confidence", 0.95), op=keys.get("op"),
                    threshold=keys.get("threshold"), thresholds=thresholds, alpha=keys.get("alpha", 0.05),
                    beta=keys.get("beta", 0.05), delta=keys.get("delta", 0.01))


def _clip(value: Any, limit: int = 80) -> str:
    """``repr(value)``, cut to ``limit`` characters (an error line stays one short line)."""
    text = repr(value)
    return text if len(text) <= limit else text[:limit - 5] + " ...]"


def _show(values: dict) -> str:
    return "(" + ", ".join(f"{k}={v!r}" for k, v in values.items()) + ")" if values else "(base)"


def _data_path(where: str, label: str, gdef: Game, key: str, value: Any, base_dir: str | Path,
               within: str | Path | None = None) -> str:
    """A card data file named in a spec ([data] or a [grid]/[[cells]] axis): a string path, relative to
    the spec's folder, of a file that exists; returned absolute. ``within``: see :func:`parse_spec`."""
    _check_keys(gdef, f"{where}: [data]", data=[key])
    _check_type(where, label, value, str, gdef.data_keys[key] + " path")
    if within is not None:
        _file_inside(where, f"{label} = {value!r}", Path(base_dir) / value, within)
    p = (Path(base_dir) / value).resolve()
    if not p.is_file():
        raise SpecError(f"{where}: {label} = {value!r}: no such file ({p})")
    return str(p)


def _file_inside(where: str, what: str, path: Path, within: str | Path) -> None:
    """Refuse, before it is opened, a file a stored spec names outside its results folder ``within``."""
    from infra.folder import inside
    try:
        ok = within != "" and inside(path, within)
    except (OSError, ValueError):
        ok = False
    if not ok:
        place = f"outside the results folder {within}" if within != "" else "a local file, not in the results folder"
        raise SpecError(f"{where}: {what} is {place}; a spec read from a results folder that no signature of this "
                        "machine vouches for is read from the folder alone (no file elsewhere is opened)")


def _models_inside(src: str, raw: Any, within: str | Path) -> None:
    """Every learned model a stored spec names by file lies inside ``within`` (a shipped model's name is not a file
    the spec names): ``model=PATH`` in a bot spec, however spelled, and a kingmaking ``oracle = PATH``. Each text is
    read as the bot parser reads it (sim.kit.bots.spec_fields): whole, as an entry of a bots list is, and cut at ',',
    as a bots string is (sim.bots.bot_specs); a text the parser refuses opens no model and is left to it. A model
    reference is a file where sim.kit.learned.model_path makes it one."""
    def check_ref(what: str, ref: str) -> None:
        try:
            path = model_path(None, ref.partition("@")[0])
        except RuleError:                   # a model named by name: no file the spec names
            return
        _file_inside(src, f"{what}={ref!r}", path, within)

    def check_bots(text: str) -> None:
        for spec in {text, *text.split(",")}:
            try:
                ref = spec_fields(spec)[1].get("model")
            except RuleError:               # no bot spec
                continue
            if ref is not None:
                check_ref("model", ref)

    def walk(value: Any, key: Any = None) -> None:
        if isinstance(value, dict):
            for k, v in value.items():
                walk(v, k)
        elif isinstance(value, list):
            for v in value:
                walk(v, key)
        elif isinstance(value, str):
            check_bots(value)
            if key == "oracle":             # [kingmaking] oracle, or the sweep's (sim.kit.kingmaking.oracle_model)
                check_ref("oracle", value)
    walk(raw)


def _check_keys(gdef: Game, where: str, **given) -> None:
    """The game's own check of setup, data and table names (Game.check_keys), as a SpecError."""
    try:
        gdef.check_keys(where=where, **given)
    except RuleError as e:
        raise SpecError(str(e)) from None


def _resolve(gdef: Game, rules, overrides, setup, data, tables, where, options=None) -> Match:
    try:
        return gdef.resolve(rules, overrides, setup, data, tables, where=where, options=options)
    except (RuleError, ValueError) as e:   # card-data errors are ValueErrors naming file, card and field
        msg = str(e)
        raise SpecError(msg if msg.startswith(where) else f"{where}: {msg}") from None
