"""A small in-process stand-in for ``cluster.spec`` / ``cluster.sweep`` (the sweep contract), used by the
regression tests only while the real package is not in the tree. Same layout, same cells, no Ray."""

from __future__ import annotations

import itertools
import sys
import types
from dataclasses import dataclass
from pathlib import Path

KEYS = ("name", "game", "rules", "seed", "games_per_cell", "batch_size", "engine", "tables", "setup",
        "overrides", "data", "grid", "cells")


class SpecError(ValueError):
    pass


@dataclass(frozen=True)
class Cell:
    id: str
    values: dict
    match: object


@dataclass(frozen=True)
class SweepSpec:
    seed: int
    games_per_cell: int
    batch_size: int
    engine: str
    cells: list


def parse_spec(raw: dict, source: str = "<spec>") -> SweepSpec:
    from sim.games import get
    from sim.params import RuleError
    for k in raw:
        if k not in KEYS:
            raise SpecError(f"{source}: unknown key {k!r}; valid: {', '.join(KEYS)}")
    game = get(raw.get("game", "paws"))
    grid = raw.get("grid", {})
    combos = [dict(zip(grid, vs)) for vs in itertools.product(*grid.values())] if grid else [{}]
    combos += list(raw.get("cells", []))
    cells = []
    for i, values in enumerate(combos):
        setup = {**raw.get("setup", {}), **{k: v for k, v in values.items() if k in game.setup_keys}}
        over = {**raw.get("overrides", {}),
                **{k: v for k, v in values.items() if k not in game.setup_keys and k != "rules"}}
        try:
            m = game.resolve(values.get("rules", raw.get("rules")), over, setup, raw.get("data", {}))
        except (RuleError, ValueError) as e:
            raise SpecError(f"{source}: {e}") from None
        cells.append(Cell(f"c{i:03d}", dict(values), m))
    return SweepSpec(int(raw.get("seed", 0)), int(raw["games_per_cell"]), int(raw.get("batch_size", 0)) or 5000,
                     raw.get("engine", "core"), cells)


def run_sweep(spec: SweepSpec, out_dir, *, workers=None, address=None, resume=False, progress=True):
    from sim.output import write_parquet
    out = Path(out_dir)
    for cell in spec.cells:
        for b, lo in enumerate(range(0, spec.games_per_cell, spec.batch_size)):
            n = min(spec.batch_size, spec.games_per_cell - lo)
            t = cell.match.play_batch(spec.seed, lo, n, spec.engine)["games"]
            write_parquet([t], out / "games" / f"cell={cell.id}" / f"part-{b:05d}.parquet", t.schema)
    return types.SimpleNamespace(games=spec.games_per_cell * len(spec.cells))


def install() -> None:
    """Register this module as cluster.spec and cluster.sweep when the real ones are missing."""
    try:
        import cluster.spec  # noqa: F401
        import cluster.sweep  # noqa: F401
        return
    except ImportError:
        pass
    pkg = sys.modules.get("cluster") or types.ModuleType("cluster")
    pkg.__path__ = getattr(pkg, "__path__", [])
    me = sys.modules[__name__]
    sys.modules["cluster"] = pkg
    sys.modules["cluster.spec"] = me
    sys.modules["cluster.sweep"] = me
