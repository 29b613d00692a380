"""The baseline file: a small, versioned JSON of one run's record digests and metric counts.

Counts (k of n, histograms), not rates, so any later run can be tested against it; per seed a
sha256 of each cell's games, so the same seeds with no change in rules, data or code must match
exactly. Short containers sit on one line so a baseline update reads well in a diff.

A baseline is untrusted input: :func:`load` checks every field of it on its own (types, ranges,
the game's metric families) and :func:`check_against` checks that it belongs to the suite about to
be played (game, cells, seeds, games per cell), both before any game; every refusal is one line
naming the file, the field's full key path (``cells[3].metrics.end_reasons.vp``) and what is allowed.
"""

from __future__ import annotations

import json
import math
import re
from pathlib import Path
from typing import Any

from regress.cells import cell_key, cell_label
from regress.metrics import families
from sim.files import parse_json, read_bounded, unwritable, write_atomic
from sim.games import GAMES

FORMAT = "playtest-regress-baseline"
VERSION = 1
TOP = {"format": str, "version": int, "suite": str, "game": str, "code_version": str, "core_digest": str,
       "spec_digest": str,
       "seeds": list, "games_per_cell": int, "sweep": dict, "cells": list}
OPTIONAL = {"record_columns": dict}   # {column: type}; baselines written before it lack it
CELL = {"id": str, "values": dict, "config": str, "rules": str, "data": str, "games": dict, "records": dict,
        "metrics": dict}
MAX_BYTES = 64 * 2**20        # the nightly baseline is ~11 KB; a file this size is not a baseline
MAX_GAMES_PER_CELL = 10**12  # as cluster.spec allows
MAX_SEED = 2**64 - 1          # master seeds are unsigned 64-bit (cluster.spec)
MAX_COUNT = 2**63 - 1         # counts are DuckDB BIGINTs; larger ones would overflow the tests' floats
SHA256 = re.compile(r"[0-9a-f]{64}")
REBUILD = "re-create it with --update-baseline"
ALLOWED = {   # what each key holds, as an error says it
    "format": repr(FORMAT), "version": str(VERSION), "suite": "text (the suite's name)",
    "game": "text (the game's name)", "code_version": "text", "core_digest": "text", "spec_digest": "text",
    "seeds": f"a non-empty list of distinct integers from 0 to {MAX_SEED}",
    "games_per_cell": f"an integer from 1 to {MAX_GAMES_PER_CELL}", "sweep": "an object (the suite's [sweep] table)",
    "cells": "a non-empty list of cell objects", "record_columns": "an object of column: type",
    "id": "text (a cell id such as 'c000')", "values": "an object (the cell's varied keys)",
    "config": "text (a digest)", "rules": "text (a digest)", "data": "text (a digest)",
    "games": "an object of seed: games played", "records": "an object of seed: sha256 of the games",
    "metrics": "an object of metric family: {key: counts}",
}
TYPE_NAMES = {str: "text", int: "an integer", list: "a list", dict: "an object", bool: "true or false",
              float: "a number", type(None): "null"}


class BaselineError(ValueError):
    """A missing, unreadable or malformed baseline; the message names the file and the key."""


def from_snapshot(snap: dict[str, Any]) -> dict[str, Any]:
    """The baseline of a run: its snapshot less what belongs to the machine (paths, timings, thresholds)."""
    out = {"format": FORMAT, "version": VERSION}
    out.update({k: snap[k] for k in TOP if k not in out})
    out.update({k: snap[k] for k in OPTIONAL if k in snap})
    out["cells"] = [{k: c[k] for k in CELL} for c in snap["cells"]]
    return out


ONE_PER_LINE = {"record_columns"}   # long objects whose entries change one at a time


def _dumps(obj: Any, indent: int = 0, expand: bool = False) -> str:
    flat = json.dumps(obj, sort_keys=False)
    values = obj.values() if isinstance(obj, dict) else obj if isinstance(obj, list) else ()
    scalars = all(not isinstance(v, (dict, list)) or (isinstance(v, list) and len(v) <= 2) for v in values)
    if not isinstance(obj, (dict, list)) or len(flat) + indent <= 110 or (scalars and not expand):
        return flat
    pad, inner = " " * indent, " " * (indent + 2)
    if isinstance(obj, list):
        return "[\n" + ",\n".join(inner + _dumps(v, indent + 2) for v in obj) + "\n" + pad + "]"
    return ("{\n" + ",\n".join(f"{inner}{json.dumps(k)}: {_dumps(v, indent + 2, k in ONE_PER_LINE)}"
                               for k, v in obj.items())
            + "\n" + pad + "}")


def write(baseline: dict[str, Any], path: str | Path) -> None:
    """Write the baseline atomically."""
    write_atomic(path, _dumps(baseline) + "\n")


def check_writable(path: str | Path) -> None:
    """Refuse, before any game, a baseline path that --update-baseline could not write."""
    problem = unwritable(path)
    if problem:
        raise BaselineError(f"{path}: {problem} (--update-baseline writes the baseline JSON file there)")


# ---------------------------------------------------------------------------------------------------------
# checking

def show(value: Any, limit: int = 60) -> str:
    """A value as the message shows it: its repr, cut to ``limit`` characters, always on one line."""
    try:
        text = repr(value) if isinstance(value, str) else json.dumps(value, ensure_ascii=True)
    except (TypeError, ValueError, RecursionError):   # not JSON (a TOML date): its repr, made printable
        text = ascii(value)
    return cut(text, limit)


def cut(text: str, limit: int = 120) -> str:
    """Text on one line (controls escaped) and at most ``limit`` characters."""
    if not text.isprintable():
        text = "".join(c if c.isprintable() else repr(c)[1:-1] for c in text)
    return text if len(text) <= limit else text[:limit - 3] + "..."


def key_path(prefix: str, key: Any) -> str:
    """``cells[3].metrics`` + ``end_reasons`` -> ``cells[3].metrics.end_reasons``; odd keys are quoted."""
    k = str(key)
    if re.fullmatch(r"[A-Za-z0-9_\-]+", k):
        return f"{prefix}.{k}" if prefix else k
    return f"{prefix}[{show(k)}]"


def _int(value: Any) -> bool:
    return isinstance(value, int) and not isinstance(value, bool)


MAX_DEPTH = 32                # a baseline nests 6 deep, a suite about 4: deeper is not one, and would
                              # overflow the recursion of json.dumps in the digests and the report


def depth(value: Any) -> int:
    """How deeply lists and objects nest in ``value`` (a scalar: 0), without recursion."""
    most, stack = 0, [(value, 1)]
    while stack:
        node, d = stack.pop()
        kids = node.values() if isinstance(node, dict) else node if isinstance(node, list) else None
        if kids is None:
            continue
        most = max(most, d)
        if most > MAX_DEPTH:
            return most
        stack.extend((k, d + 1) for k in kids)
    return most


class _Checker:
    def __init__(self, path: Path):
        self.path = path

    def bad(self, field: str, value: Any, expected: str) -> BaselineError:
        return BaselineError(f"{self.path}: corrupt baseline: {field} = {show(value)} is not allowed; "
                             f"expected {expected}")

    def typed(self, obj: dict, spec: dict[str, type], where: str) -> None:
        for key in spec:
            if key not in obj:
                raise BaselineError(f"{self.path}: corrupt baseline: missing key {key_path(where, key)} "
                                    f"({ALLOWED[key]})")
        for key in obj:
            if key not in spec and (where or key not in OPTIONAL):
                valid = list(spec) + ([] if where else list(OPTIONAL))
                raise BaselineError(f"{self.path}: corrupt baseline: unknown key {key_path(where, key)}; "
                                    f"valid: {', '.join(valid)}")
        for key, kind in spec.items():
            value = obj[key]
            if not isinstance(value, kind) or isinstance(value, bool):
                raise self.bad(key_path(where, key), value, ALLOWED[key])

    def int_range(self, field: str, value: Any, lo: int, hi: int, why: str = "") -> int:
        if not _int(value) or not lo <= value <= hi:
            raise self.bad(field, value, f"an integer from {lo} to {hi}{why}")
        return value

    def seeds(self, value: list) -> list[int]:
        what = f"a non-empty list of distinct integers from 0 to {MAX_SEED}"
        if not value:
            raise self.bad("seeds", value, what)
        for i, s in enumerate(value):
            self.int_range(f"seeds[{i}]", s, 0, MAX_SEED, " (a master seed)")
        if len(set(value)) != len(value):
            raise self.bad("seeds", value, what + " (a seed is repeated)")
        return value

    def per_seed(self, cell: dict, key: str, where: str, seeds: list[int]) -> None:
        """``games`` and ``records`` hold exactly one entry per seed of the baseline."""
        want = {str(s) for s in seeds}
        got = cell[key]
        for k in got:
            if k not in want:
                raise BaselineError(f"{self.path}: corrupt baseline: unknown key {key_path(where + key, k)}: "
                                    f"not a seed of this baseline; expected one entry per seed of "
                                    f"seeds = {show(seeds)}")
        for k in (str(s) for s in seeds):
            if k not in got:
                raise BaselineError(f"{self.path}: corrupt baseline: missing key {key_path(where + key, k)}: "
                                    f"expected one entry per seed of seeds = {show(seeds)}")

    def metrics(self, metrics: dict, where: str, fams: dict[str, Any], game: str) -> None:
        for name, per in metrics.items():
            field = key_path(where, name)
            if name not in fams:
                raise BaselineError(f"{self.path}: corrupt baseline: unknown metric family {field}; "
                                    f"{game} has {', '.join(fams)}")
            kind = fams[name].kind
            if not isinstance(per, dict) or not per:
                raise self.bad(field, per, "a non-empty object of key: " +
                               ("[k, n]" if kind == "rate" else "count") + " (a run never writes an empty family)")
            for key, v in per.items():
                f = key_path(field, key)
                if kind == "rate":
                    if not (isinstance(v, list) and len(v) == 2 and all(_int(x) for x in v)
                            and 0 <= v[0] <= v[1] and 1 <= v[1] <= MAX_COUNT):
                        raise self.bad(f, v, f"[k, n]: k of n, integers with 0 <= k <= n and 1 <= n <= "
                                             f"{MAX_COUNT} (a rate of no games is never written and tests nothing)")
                else:
                    if kind == "ordinal":
                        try:
                            number = float(key)
                        except ValueError:
                            number = math.nan
                        if not math.isfinite(number):
                            raise BaselineError(f"{self.path}: corrupt baseline: {f}: the key {show(key)} is not "
                                                f"allowed; expected a number ({name} counts games per value)")
                    self.int_range(f, v, 0, MAX_COUNT, " (games)")
            if kind != "rate" and sum(per.values()) == 0:
                raise self.bad(field, per, "counts of at least one game (a distribution of no games tests "
                                           "nothing)")


def parse(data: Any, path: str | Path) -> dict[str, Any]:
    """Check a parsed baseline on its own: every key, type and range; the game's metric families."""
    path = Path(path)
    ck = _Checker(path)
    if depth(data) > MAX_DEPTH:
        raise BaselineError(f"{path}: corrupt baseline: lists and objects nest more than {MAX_DEPTH} deep")
    if not isinstance(data, dict):
        raise BaselineError(f"{path}: corrupt baseline: expected a JSON object at the top, got "
                            f"{TYPE_NAMES.get(type(data), type(data).__name__)}")
    if "format" not in data:
        raise BaselineError(f"{path}: not a regression baseline: missing key format (expected {FORMAT!r})")
    if data["format"] != FORMAT:
        raise BaselineError(f"{path}: not a regression baseline: format = {show(data['format'])}, "
                            f"expected {FORMAT!r}")
    if "version" not in data:
        raise BaselineError(f"{path}: corrupt baseline: missing key version (expected {VERSION})")
    version = data["version"]
    if not _int(version) or version != VERSION:
        raise BaselineError(f"{path}: baseline version {show(version)} is not supported; this playtest "
                            f"reads version {VERSION} ({REBUILD})")
    ck.typed(data, TOP, "")
    game = data["game"]
    if game not in GAMES.names():
        raise ck.bad("game", game, f"one of {', '.join(GAMES.names())}")
    seeds = ck.seeds(data["seeds"])
    gpc = ck.int_range("games_per_cell", data["games_per_cell"], 1, MAX_GAMES_PER_CELL)
    cols = data.get("record_columns", {})
    if not isinstance(cols, dict):
        raise ck.bad("record_columns", cols, "an object of column: type")
    for k, v in cols.items():
        if not isinstance(v, str):
            raise ck.bad(key_path("record_columns", k), v, "a column type as text")
    cells = data["cells"]
    if not cells:
        raise ck.bad("cells", cells, "a non-empty list of cells (every sweep has at least one)")
    fams = {f.name: f for f in families(game)}
    ids: dict[str, int] = {}
    values: dict[str, int] = {}
    for i, cell in enumerate(cells):
        where = f"cells[{i}]"
        if not isinstance(cell, dict):
            raise ck.bad(where, cell, "an object with keys " + ", ".join(CELL))
        ck.typed(cell, CELL, where)
        if not cell["id"]:
            raise ck.bad(f"{where}.id", cell["id"], "a cell id such as 'c000'")
        if cell["id"] in ids:
            raise ck.bad(f"{where}.id", cell["id"], f"a cell id of its own (cells[{ids[cell['id']]}] has it)")
        ids[cell["id"]] = i
        ckey = cell_key(cell["values"])
        if ckey in values:
            raise ck.bad(f"{where}.values", cell["values"], f"values of a cell of its own (cells[{values[ckey]}] "
                                                            f"has them)")
        values[ckey] = i
        ck.per_seed(cell, "games", where + ".", seeds)
        for s, n in cell["games"].items():
            if not _int(n) or n != gpc:
                raise ck.bad(key_path(f"{where}.games", s), n, f"{gpc} (games_per_cell: every seed plays every "
                                                               f"cell that many games)")
        ck.per_seed(cell, "records", where + ".", seeds)
        for s, d in cell["records"].items():
            if not isinstance(d, str) or not SHA256.fullmatch(d):
                raise ck.bad(key_path(f"{where}.records", s), d, "a sha256 (64 hex digits, lower case)")
        if not cell["metrics"]:   # every game counts in its end reason and length: a cell has metrics
            raise ck.bad(f"{where}.metrics", cell["metrics"], f"an object of metric family: counts "
                                                              f"({game} has {', '.join(fams)})")
        ck.metrics(cell["metrics"], f"{where}.metrics", fams, game)
    return data


def read_json(path: Path, what: str, error: type[ValueError], limit: int = MAX_BYTES) -> Any:
    """The JSON value in ``path``: its size checked before reading; every failure one ``error`` line."""
    if not path.exists():
        raise error(f"{path}: no such {what} file" + (" (write one with --update-baseline)"
                                                      if what == "baseline" else ""))
    blob = read_bounded(path, f"{what} file", error, limit)

    def no_constant(name: str) -> Any:
        raise ValueError(f"{name} is not a JSON number")

    # not UTF-8, not JSON, NaN/Infinity, an integer of thousands of digits, nested deeper than MAX_DEPTH: one line
    return parse_json(blob, str(path), error, MAX_DEPTH, what=f"corrupt {what}", parse_constant=no_constant)


def load(path: str | Path) -> dict[str, Any]:
    """Read and check a baseline; a missing or malformed one is a BaselineError naming file and key."""
    path = Path(path)
    return parse(read_json(path, "baseline", BaselineError), path)


def check_against(data: dict[str, Any], path: str | Path, suite: Any, *, seeds_given: bool = False) -> None:
    """Refuse a (checked) baseline that is not of ``suite``: another game, cells, games per cell or seeds.

    Such a baseline can only be compared by rebuilding it, so it is refused before any game; what the
    regression reports (changed rules, card data, setup or code in the same cells) is left to the run.
    Seeds are checked only when the suite's own are played: ``--seeds`` plays other seeds on purpose.
    """
    other = f"the baseline is for another suite; {REBUILD}"
    if data["game"] != suite.game:
        raise BaselineError(f"{path}: game = {show(data['game'])} but {suite.path} plays sweep.game = "
                            f"{show(suite.game)}: {other}")
    if data["games_per_cell"] != suite.games_per_cell:
        raise BaselineError(f"{path}: games_per_cell = {data['games_per_cell']} but {suite.path} plays "
                            f"sweep.games_per_cell = {suite.games_per_cell}: {other}")
    if not seeds_given and sorted(data["seeds"]) != sorted(suite.seeds):
        raise BaselineError(f"{path}: seeds = {show(data['seeds'])} but {suite.path} plays seeds = "
                            f"{show(list(suite.seeds))}: {other} (or pick seeds with --seeds)")
    spec = suite.spec(suite.seeds[0])
    mine = {cell_key(c.values): c for c in spec.cells}
    theirs = {cell_key(c["values"]): (i, c) for i, c in enumerate(data["cells"])}
    for k, (i, c) in theirs.items():
        if k not in mine:
            raise BaselineError(f"{path}: cells[{i}].values = {show(c['values'])} ({cell_label(c['values'])}) is "
                                f"not a cell of {suite.path}: {other}")
    for k, c in mine.items():
        if k not in theirs:
            raise BaselineError(f"{path}: cells: no cell with values {show(c.values)}; {suite.path} plays "
                                f"{c.id} ({cell_label(c.values)}): {other}")
