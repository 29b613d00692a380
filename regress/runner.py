"""Play a suite: one sweep per seed through the sweep machinery, then each cell's record digests and metrics."""

from __future__ import annotations

import os
import shutil
import time
from contextlib import contextmanager
from pathlib import Path
from typing import Any

from cluster.sweep import OBJECT_STORE_BYTES, run_sweep
from cluster.version import code_version, core_digest
from regress.digest import parts_digest, record_columns
from regress.metrics import compute
from regress.suite import Suite
from sim.games import get

WORK_MARK = ".regress-work"   # a work dir holding this file was made by a regression run and may be cleared


def prepare_work(work: Path) -> None:
    """An empty work dir: a fresh one, or one a previous regression run made (cleared); never anything else."""
    if work.exists() and any(work.iterdir()):
        if not (work / WORK_MARK).is_file():
            raise ValueError(f"--work {work}: the folder is not empty and was not made by playtest regress; "
                             f"give an empty or new folder")
        shutil.rmtree(work)
    work.mkdir(parents=True, exist_ok=True)
    (work / WORK_MARK).write_text("made by playtest regress; cleared at the start of each run\n")


@contextmanager
def ray_runtime(workers: int | None, address: str | None):
    """One Ray runtime for every seed of the suite (run_sweep uses a runtime it finds and leaves it running).

    With no address it is always a new local one (``address="local"``), never another user's instance.
    """
    import ray
    if address or ray.is_initialized():
        yield
        return
    ray.init(address="local", num_cpus=workers or os.cpu_count() or 1, include_dashboard=False,
             logging_level="ERROR", object_store_memory=OBJECT_STORE_BYTES)
    try:
        yield
    finally:
        ray.shutdown()


def play(suite: Suite, work: Path, *, workers: int | None = None, address: str | None = None,
         progress: bool = True) -> dict[str, Any]:
    """Run every seed of ``suite`` into ``work`` and return the run's snapshot (what a baseline stores)."""
    specs = {seed: suite.spec(seed) for seed in suite.seeds}
    game = get(suite.game)
    prepare_work(work)
    cells: dict[str, dict[str, Any]] = {}
    runs = []
    with ray_runtime(workers, address):
        for seed, spec in specs.items():
            out = work / f"seed-{seed}"
            t0 = time.perf_counter()
            run_sweep(spec, out, workers=workers, address=address, resume=False, progress=progress)
            runs.append({"seed": seed, "dir": str(out), "wall_s": round(time.perf_counter() - t0, 2)})
            for cell in spec.cells:
                m = cell.match
                digest, games = parts_digest((out / "games" / f"cell={cell.id}").glob("part-*.parquet"),
                                             m.schemas["games"], game.engine_options)
                c = cells.setdefault(cell.id, {"id": cell.id, "values": dict(cell.values), "config": m.digest,
                                               "rules": m.rules_digest, "data": m.data_digest,
                                               "games": {}, "records": {}})
                c["games"][str(seed)] = games
                c["records"][str(seed)] = digest
    per_cell = compute(suite.game, [r["dir"] for r in runs])
    for cid, c in cells.items():
        c["metrics"] = per_cell.get(cid, {})
    return {"suite": suite.name, "game": suite.game, "code_version": code_version(),
            "core_digest": core_digest(), "spec_digest": suite.digest,
            "record_columns": record_columns(game.schemas["games"], game.engine_options),
            "seeds": list(suite.seeds), "games_per_cell": suite.games_per_cell, "sweep": suite.sweep,
            "thresholds": suite.thresholds.as_dict(), "cells": list(cells.values()), "runs": runs}
