"""What the win_prob table costs a learned-bot sweep (bench/learned-win-prob.md).

For each game, a sweep with the learned bot in every seat is played with ``tables = ["games"]`` and with
``tables = ["games", "win_prob"]``, alternately, ``--repeats`` times each, in the same run; and the core's
own rate (one process, ``Match.play_batch``, no Parquet) with and without the table. Prints a JSON report.

    .venv/bin/python -m cluster.win_prob_bench --games 20000 --repeats 3 --workers 2 > bench/learned-win-prob.json
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import tempfile
import time

from cluster.spec import parse_spec
from cluster.sweep import run_sweep
from cluster.version import code_version

SETUPS = {"paws": ({"rules": "v4", "setup": {"players": 4, "board": "beginner", "bots": "learned:model=paws-2"}},
                   "paws-2"),
          "tales": ({"setup": {"mode": "standard", "bots": "learned:model=tales-2"}}, "tales-2")}


def spec(game: str, games: int, with_table: bool) -> dict:
    base, oracle = SETUPS[game]
    raw = {"name": f"bench-{game}", "game": game, "seed": 2026, "games_per_cell": games, **base}
    if with_table:
        raw |= {"tables": ["games", "win_prob"], "oracle": oracle}
    return raw


def core_rate(game: str, games: int, with_table: bool) -> float:
    """Games/s of the core alone on one core (the tables built, nothing written)."""
    m = parse_spec(spec(game, games, with_table), "bench").cells[0].match
    m.play_batch(1, 0, 200)                         # warm: the model file and the core's first call
    t = time.perf_counter()
    m.play_batch(2026, 0, games)
    return games / (time.perf_counter() - t)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--games", type=int, default=20000)
    ap.add_argument("--repeats", type=int, default=3)
    ap.add_argument("--workers", type=int, default=2)
    ap.add_argument("--games-only", choices=sorted(SETUPS))
    args = ap.parse_args()
    report = {"code_version": code_version(), "cpus": os.cpu_count(), "games": args.games, "workers": args.workers,
              "load_before": os.getloadavg(), "results": {}}
    for game in [args.games_only] if args.games_only else list(SETUPS):
        runs: dict[str, list] = {"without": [], "with": []}
        core: dict[str, list] = {"without": [], "with": []}
        for _ in range(args.repeats):
            for label, with_table in (("without", False), ("with", True)):
                s = parse_spec(spec(game, args.games, with_table), f"bench-{game}.toml")
                out = tempfile.mkdtemp(prefix="wp-bench-")
                try:
                    t = time.perf_counter()
                    summary = run_sweep(s, out, workers=args.workers, progress=False)
                    wall = time.perf_counter() - t
                finally:
                    shutil.rmtree(out, ignore_errors=True)
                runs[label].append({"wall_s": round(wall, 3), "games_per_s": round(args.games / wall, 1),
                                    "play_s": round(summary.play_s, 3), "bytes": summary.bytes})
                core[label].append(round(core_rate(game, min(args.games, 5000), with_table), 1))
        best = {k: max(r["games_per_s"] for r in v) for k, v in runs.items()}
        med = {k: sorted(r["games_per_s"] for r in v)[len(v) // 2] for k, v in runs.items()}
        report["results"][game] = {"sweeps": runs, "core_games_per_s": core,
                                   "ratio_median": round(med["without"] / med["with"], 3),
                                   "ratio_best": round(best["without"] / best["with"], 3),
                                   "core_ratio_median": round(sorted(core["without"])[len(core["without"]) // 2]
                                                              / sorted(core["with"])[len(core["with"]) // 2], 3)}
    report["load_after"] = os.getloadavg()
    print(json.dumps(report, indent=1))


if __name__ == "__main__":
    main()
