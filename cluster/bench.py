"""Sweep benchmark (not a test): a whole sweep on Ray against the single-core engine, measured in the same run.

    python -m cluster.bench examples/million.toml --out results/million --report bench/sweep.json
    python -m cluster.bench examples/smoke.toml --out results/smoke --report bench/sweep-smoke.json --compare-ray

Plays a sample of every cell on one core in a separate process (before and after the sweep), runs the
sweep in this process, and writes wall time, games/s, efficiency against ``workers`` x the single-core
rate and the driver's peak memory to the report (.json, and a .md table beside it). The sweep runs as
``playtest sweep`` does (the driver plays at once, Ray only when it pays: ``cluster.local``); ``--ray``
starts Ray at once instead, and ``--compare-ray`` runs the sweep both ways in the same run (the second
into ``OUT-ray``, Ray at once: the behaviour before driver play) and reports both.
"""

from __future__ import annotations

import argparse
import json
import multiprocessing
import os
import platform
import resource
import time
from pathlib import Path


def _single_core(spec_path: str, sample: int) -> tuple[float, float]:
    """(games per second, games per CPU second) of the engine on one core over the first ``sample`` games of
    every cell, Arrow records included."""
    from cluster.spec import load_spec
    spec = load_spec(spec_path)
    for cell in spec.cells:                  # warm up: imports, card data, core inputs
        cell.match.play_batch(spec.seed, 0, 10, spec.engine)
    t, cpu = time.perf_counter(), time.process_time()
    for cell in spec.cells:
        cell.match.play_batch(spec.seed, 0, min(sample, spec.games_per_cell), spec.engine)
    games = len(spec.cells) * min(sample, spec.games_per_cell)
    return games / (time.perf_counter() - t), games / (time.process_time() - cpu)


def single_core_rate(spec_path: str, sample: int) -> tuple[float, float]:
    """:func:`_single_core` in a fresh process, so the driver's own memory is not touched by it."""
    with multiprocessing.get_context("spawn").Pool(1) as pool:
        return pool.apply(_single_core, (spec_path, sample))


TICK = os.sysconf("SC_CLK_TCK")


def descendants_cpu() -> dict[int, tuple[str, float]]:
    """CPU seconds (user + system) of every process below this one, by pid, with its command (from /proc)."""
    parent, cpu, name = {}, {}, {}
    for d in Path("/proc").iterdir():
        if not d.name.isdigit():
            continue
        try:
            stat = (d / "stat").read_text()
            cmd = (d / "cmdline").read_bytes().split(b"\0")[0].decode(errors="replace")
        except OSError:
            continue
        fields = stat[stat.rindex(")") + 2:].split()
        pid = int(d.name)
        parent[pid], cpu[pid], name[pid] = int(fields[1]), (int(fields[11]) + int(fields[12])) / TICK, cmd
    me, out = os.getpid(), {}
    for pid in cpu:
        p = parent.get(pid)
        while p and p != me:
            p = parent.get(p)
        if p == me:
            out[pid] = (name[pid], cpu[pid])
    return out


def main(argv: list[str] | None = None) -> dict:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("spec")
    ap.add_argument("--out", required=True, help="results directory (new or empty)")
    ap.add_argument("--report", default="bench/sweep.json", help="where to write the numbers (.json, .md beside)")
    ap.add_argument("--workers", type=int, default=None, help="workers (default: all cores)")
    ap.add_argument("--sample", type=int, default=20_000, help="games per cell for the single-core rate")
    ap.add_argument("--ray", action="store_true", help="start Ray at once (no driver play)")
    ap.add_argument("--compare-ray", action="store_true", help="also run the sweep with Ray at once, same run")
    args = ap.parse_args(argv)

    from cluster.spec import load_spec
    from cluster.sweep import run_sweep
    from cluster.version import code_version
    spec = load_spec(args.spec)
    workers = args.workers or os.cpu_count() or 1
    load_before = os.getloadavg()
    before, before_cpu = single_core_rate(args.spec, args.sample)
    rss_start = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    runs = [("driver plays, Ray when it pays" if not args.ray else "Ray at once", not args.ray, args.out)]
    if args.compare_ray and not args.ray:
        runs.append(("Ray at once", False, args.out.rstrip("/") + "-ray"))
    measured = []
    for label, driver_plays, out_dir in runs:
        seen: dict[int, tuple[str, float]] = {}   # CPU s of Ray's processes, sampled as each part finishes
        driver_cpu = time.process_time()
        s = run_sweep(spec, out_dir, workers=workers, progress=False, driver_plays=driver_plays,
                      on_part=lambda c, b, seen=seen: seen.update(descendants_cpu()))
        driver_cpu = time.process_time() - driver_cpu
        measured.append((label, s, seen, driver_cpu))
    rss_peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    after, after_cpu = single_core_rate(args.spec, args.sample)
    one, one_cpu = (before + after) / 2, (before_cpu + after_cpu) / 2
    report = {"spec": args.spec, "spec_digest": spec.digest, "code_version": code_version(),
              "machine": platform.node(), "cpus": os.cpu_count(), "workers": workers,
              "load_avg_1m_before": round(load_before[0], 2),
              "single_core_games_per_s": {"before": round(before), "after": round(after), "mean": round(one)},
              "single_core_games_per_cpu_s": round(one_cpu),
              "driver_peak_rss_mib": round(rss_peak / 1024, 1), "driver_rss_before_sweep_mib": round(rss_start / 1024, 1),
              "runs": [_run_report(label, s, seen, driver_cpu, spec, workers, one, one_cpu)
                       for label, s, seen, driver_cpu in measured]}
    out = Path(args.report)
    out.parent.mkdir(parents=True, exist_ok=True)
    out.write_text(json.dumps(report, indent=1) + "\n")
    head = "\n".join(f"| {k} | {v} |" for k, v in report.items() if k != "runs")
    keys = list(report["runs"][0])
    table = "\n".join([f"| measure | {' | '.join(r['mode'] for r in report['runs'])} |",
                       "|---|" + "---|" * len(report["runs"])]
                      + [f"| {k} | {' | '.join(str(r[k]) for r in report['runs'])} |" for k in keys if k != "mode"])
    out.with_suffix(".md").write_text(f"# Sweep benchmark\n\n| measure | value |\n|---|---|\n{head}\n\n{table}\n")
    print(json.dumps(report, indent=1))
    return report


def _run_report(label, s, seen, driver_cpu, spec, workers, one, one_cpu) -> dict:
    """One sweep's numbers against the single-core rate ``one`` (games/s) and ``one_cpu`` (games per CPU s)."""
    is_worker = {pid: n.startswith("ray::") and not n.endswith("Agent") for pid, (n, _) in seen.items()}  # not
    worker_cpu = sum(c for pid, (_, c) in seen.items() if is_worker[pid])          # ray::DashboardAgent & co
    ray_cpu = sum(c for pid, (n, c) in seen.items() if not is_worker[pid] and "ray" in n)
    playing_cpu = worker_cpu   # the driver's forked players are ray-less children: counted below
    playing_cpu += sum(c for n, c in seen.values() if "ray" not in n and "reaper" not in n)
    return {
        "mode": label, "games": s.games, "driver_parts": s.driver_parts, "cells": len(spec.cells), "parts": s.parts, "batch_size": spec.batch_size,
        "output_bytes": s.bytes, "bytes_per_game": round(s.bytes / max(s.games, 1), 1),
        "wall_s": round(s.wall_s, 2), "ray_start_s": round(s.ray_start_s, 2), "play_s": round(s.play_s, 2),
        "games_per_s": round(s.games_per_s), "games_per_s_playing": round(s.games / s.play_s),
        "efficiency_end_to_end": round(s.games_per_s / (workers * one), 3),
        "efficiency_playing": round(s.games / s.play_s / (workers * one), 3),
        # CPU accounting: what the sweep costs whatever else runs on the machine
        "worker_cpu_s": round(worker_cpu, 1), "ray_services_cpu_s": round(ray_cpu, 1),
        "driver_cpu_s": round(driver_cpu, 1),
        "efficiency_per_playing_cpu_s": round(s.games / playing_cpu / one_cpu, 3) if playing_cpu else None,
    }


if __name__ == "__main__":
    main()
