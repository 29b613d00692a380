"""Benchmark (not a test): time every canned query over a large result set built from real sweep parts.

``python -m queries.bench --base results/round-limit --base results/team-vp-target --rows 10000000``
links the parts of the base sweeps again and again under new cell names (``r<copy>_<cell>``) until the
set holds at least ``--rows`` game rows, then runs each canned query ``--repeat`` times and writes the
wall times and rows/s to ``--out`` (JSON, and a Markdown table beside it).
"""

from __future__ import annotations

import argparse
import glob
import json
import os
import platform
import shutil
import statistics
import tempfile
import time
from pathlib import Path

import pyarrow.parquet as pq

from queries import library


def build(bases: list[str], rows: int, out: Path) -> int:
    """Hard-link (or copy) base parts into ``out/games/cell=r<k>_<cell>/`` until ``rows`` rows; returns rows."""
    parts = [(p, pq.read_metadata(p).num_rows) for b in bases for p in sorted(glob.glob(f"{b}/games/*/*.parquet"))]
    if not parts:
        raise SystemExit(f"no parts under {', '.join(bases)}/games/")
    total, copy = 0, 0
    while total < rows:
        for i, (path, n) in enumerate(parts):
            cell = Path(path).parent.name.split("=", 1)[1]
            dest = out / "games" / f"cell=r{copy:03d}_{i:03d}_{cell}" / Path(path).name
            dest.parent.mkdir(parents=True, exist_ok=True)
            try:
                os.link(path, dest)
            except OSError:
                shutil.copyfile(path, dest)
            total += n
            if total >= rows:
                break
        copy += 1
    return total


def time_queries(root: Path, rows: int, repeat: int, threads: int | None) -> list[dict]:
    out = []
    for q in library.available():
        times = []
        for _ in range(repeat):
            t0 = time.perf_counter()
            con = library.connect([str(root)], threads=threads)
            _, answer = library.execute(con, q.sql, library.bind(q, None), where=q.name)
            times.append(time.perf_counter() - t0)
            con.close()
        best = min(times)
        out.append({"query": q.name, "rows_in": rows, "rows_out": len(answer), "first_s": round(times[0], 3),
                    "best_s": round(best, 3), "median_s": round(statistics.median(times), 3),
                    "rows_per_s": round(rows / best)})
    return out


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--base", action="append", required=True, help="a sweep's results DIR (repeatable)")
    ap.add_argument("--rows", type=int, default=10_000_000)
    ap.add_argument("--repeat", type=int, default=3)
    ap.add_argument("--threads", type=int, default=None, help="DuckDB threads (default: all cores)")
    ap.add_argument("--out", type=Path, default=Path("bench/queries.json"))
    args = ap.parse_args()
    with tempfile.TemporaryDirectory(prefix="playtest-bench-") as tmp:
        rows = build(args.base, args.rows, Path(tmp))
        size = sum(p.stat().st_size for p in Path(tmp).rglob("*.parquet"))
        parts = len(list(Path(tmp).rglob("*.parquet")))
        results = time_queries(Path(tmp), rows, args.repeat, args.threads)
    report = {"rows": rows, "parts": parts, "bytes": size, "threads": args.threads or os.cpu_count(),
              "machine": f"{platform.machine()}, {os.cpu_count()} cores", "bases": args.base, "queries": results}
    args.out.parent.mkdir(parents=True, exist_ok=True)
    args.out.write_text(json.dumps(report, indent=1))
    lines = [f"{rows:,} game rows in {parts} parts ({size / 2**20:.0f} MiB), {report['machine']}", "",
             "| query | best s | median s | first s | rows/s | answer rows |", "|---|---|---|---|---|---|"]
    lines += [f"| {r['query']} | {r['best_s']:.2f} | {r['median_s']:.2f} | {r['first_s']:.2f} | {r['rows_per_s']:,} | "
              f"{r['rows_out']} |" for r in results]
    args.out.with_suffix(".md").write_text("\n".join(lines) + "\n")
    print("\n".join(lines))


if __name__ == "__main__":
    main()
