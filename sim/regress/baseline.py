"""The baseline file: a small, versioned JSON of one run's record digests and metric counts.

Counts (k of n, histograms), not rates, so any later run can be tested against it; per seed a
sha256 of each cell's games, so the same seeds with no change in rules, data or code must match
exactly. Short containers sit on one line so a baseline update reads well in a diff.
"""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Any

FORMAT = "playtest-regress-baseline"
VERSION = 1
TOP = {"format": str, "version": int, "suite": str, "game": str, "code_version": str, "core_digest": str,
       "spec_digest": str,
       "seeds": list, "games_per_cell": int, "sweep": dict, "cells": list}
OPTIONAL = {"record_columns": dict}   # {column: type}; baselines written before it lack it
CELL = {"id": str, "values": dict, "config": str, "rules": str, "data": str, "games": dict, "records": dict,
        "metrics": dict}


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
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    tmp = path.with_name(f".{path.name}.tmp-{os.getpid()}")
    tmp.write_text(_dumps(baseline) + "\n")
    os.replace(tmp, path)


def _check(obj: dict, spec: dict[str, type], where: str, path: Path) -> None:
    for key, kind in spec.items():
        if key not in obj:
            raise BaselineError(f"{path}: corrupt baseline: missing key {where}{key}")
        if not isinstance(obj[key], kind) or isinstance(obj[key], bool):
            raise BaselineError(f"{path}: corrupt baseline: {where}{key} must be a {kind.__name__}, "
                                f"got {type(obj[key]).__name__}")


def _check_metrics(metrics: dict, where: str, path: Path) -> None:
    for fam, per in metrics.items():
        if not isinstance(per, dict):
            raise BaselineError(f"{path}: corrupt baseline: {where}{fam} must be an object of key: counts")
        for key, v in per.items():
            ok = (isinstance(v, int) and not isinstance(v, bool) and v >= 0) or (
                isinstance(v, list) and len(v) == 2 and all(isinstance(x, int) and not isinstance(x, bool)
                                                             for x in v) and 0 <= v[0] <= v[1])
            if not ok:
                raise BaselineError(f"{path}: corrupt baseline: {where}{fam}.{key} = {v!r}; expected a count "
                                    f"or [k, n] with 0 <= k <= n")


def load(path: str | Path) -> dict[str, Any]:
    """Read and check a baseline; a missing or malformed one is a BaselineError naming file and key."""
    path = Path(path)
    if not path.is_file():
        raise BaselineError(f"{path}: no such baseline file (write one with --update-baseline)")
    try:
        data = json.loads(path.read_text())
    except (json.JSONDecodeError, UnicodeDecodeError) as e:
        raise BaselineError(f"{path}: corrupt baseline: not valid JSON ({e})") from None
    if not isinstance(data, dict):
        raise BaselineError(f"{path}: corrupt baseline: expected a JSON object at the top")
    if data.get("format") != FORMAT:
        raise BaselineError(f"{path}: not a regression baseline: format = {data.get('format')!r}, "
                            f"expected {FORMAT!r}")
    if data.get("version") != VERSION:
        raise BaselineError(f"{path}: baseline version {data.get('version')!r} is not supported; this playtest "
                            f"reads version {VERSION} (rewrite it with --update-baseline)")
    _check(data, TOP, "", path)
    cols = data.get("record_columns", {})
    if not isinstance(cols, dict) or not all(isinstance(k, str) and isinstance(v, str) for k, v in cols.items()):
        raise BaselineError(f"{path}: corrupt baseline: record_columns must be an object of column: type")
    for i, cell in enumerate(data["cells"]):
        if not isinstance(cell, dict):
            raise BaselineError(f"{path}: corrupt baseline: cells[{i}] must be an object")
        _check(cell, CELL, f"cells[{i}].", path)
        for key in ("records",):
            for seed, d in cell[key].items():
                if not isinstance(d, str) or len(d) != 64:
                    raise BaselineError(f"{path}: corrupt baseline: cells[{i}].records.{seed} must be a sha256 "
                                        f"(64 hex digits)")
        _check_metrics(cell["metrics"], f"cells[{i}].metrics.", path)
    return data
