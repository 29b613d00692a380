"""``python -m service.estimate_bench``: the service's cost estimate against the time each example spec takes.

For each spec it takes the estimate a designer sees before pressing Start with no finished run to calibrate on
(``service.kinds.estimate_seconds``: a pilot of the first cell on one core, scaled to the workers, then
``calibrated`` with no history: the range) and then plays the spec as a sweep job does (its two steps, ``python -m
service.steps sweep SPEC --out DIR --workers N`` then ``report``), timing them from start to end. It
reports the range, the time taken and their ratio; the issue's target is "the examples within 2x". Writes
``OUT.md`` and ``OUT.json``. Plays on this machine only; every folder it writes is temporary."""

from __future__ import annotations

import argparse
import json
import platform
import subprocess
import tempfile
import time
from pathlib import Path

from cluster.spec import load_spec
from service.kinds import Options, calibrated, estimate_seconds, report_step, sweep_step
from service.runner import step_command

PROJECT = Path(__file__).resolve().parent.parent
EXAMPLES = ("smoke", "first_player", "hp_bonus", "watch_search", "team_vp_target", "round_limit", "tales")


def one(name: str, workers: int) -> dict:
    """Estimate, then play and report ``examples/NAME.toml``; the seconds of each."""
    path = PROJECT / "examples" / f"{name}.toml"
    spec = load_spec(path)
    seconds = estimate_seconds(spec, workers)
    est = calibrated(seconds, []) if seconds is not None else None
    with tempfile.TemporaryDirectory(prefix="playtest-estimate-") as tmp:
        paths = {"out": Path(tmp) / "runs" / "estimate", "own": Path(tmp) / "jobs" / "estimate"}   # a job's layout
        paths["own"].mkdir(parents=True)
        t0 = time.perf_counter()
        for step in (sweep_step({**paths, "own": path.parent}, Options(workers=workers), path.name),
                     report_step(paths)):
            subprocess.run(step_command(step), cwd=PROJECT, check=True, stdout=subprocess.DEVNULL,
                           stderr=subprocess.DEVNULL)
        took = time.perf_counter() - t0
    row = {"spec": f"examples/{name}.toml", "cells": len(spec.cells), "games": spec.total_games,
           "pilot_play_s": seconds, "took_s": round(took, 1)}
    if est is not None:
        mid = (est.low * est.high) ** 0.5
        row.update(low_s=round(est.low, 1), high_s=round(est.high, 1), shown=est.text(),
                   ratio=round(took / mid, 2), inside=est.low <= took <= est.high)
    return row


def markdown(rows: list[dict], workers: int) -> str:
    lines = [f"# The service's cost estimate against the time taken ({time.strftime('%Y-%m-%d')})", "",
             f"{platform.node()}, `--workers {workers}`; `python -m service.estimate_bench`. The estimate is the one "
             "shown before Start with no finished run to calibrate on (a pilot, x2 either way); the time is "
             "the sweep step plus the report step, as a sweep job runs them.", "",
             "| spec | cells | games | estimate shown | took | took / estimate's middle | inside the range |",
             "|---|---:|---:|---|---:|---:|---|"]
    for r in rows:
        lines.append(f"| {r['spec']} | {r['cells']} | {r['games']:,} | {r.get('shown', 'no pilot')} | "
                     f"{r['took_s']:.1f} s | {r.get('ratio', '')} | {'yes' if r.get('inside') else 'no'} |")
    return "\n".join(lines) + "\n"


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--examples", default=",".join(EXAMPLES), help="example spec names, comma-separated")
    ap.add_argument("--workers", type=int, default=2)
    ap.add_argument("--out", default="bench/service-estimates")
    a = ap.parse_args()
    rows = []
    for name in a.examples.split(","):
        rows.append(one(name.strip(), a.workers))
        print(json.dumps(rows[-1]), flush=True)
    Path(a.out).parent.mkdir(parents=True, exist_ok=True)
    Path(a.out + ".json").write_text(json.dumps({"workers": a.workers, "rows": rows}, indent=1) + "\n")
    Path(a.out + ".md").write_text(markdown(rows, a.workers))


if __name__ == "__main__":
    main()
