"""Benchmark (not a test): time every canned query over a large result set, as ``playtest query`` runs it.

``python -m queries.bench --results results/rl9m --results results/team1m --out bench/sql.json`` times
every canned query of the records' game(s) over those sweeps' results as they are (connection, manifest
check and the ``seat_outcomes`` view included), ``--repeat`` times each, and writes the best, median and
first wall times and rows/s to ``--out`` (JSON, and a Markdown table beside it).

``python -m queries.bench --base results/round-limit --base results/team-vp-target --rows 10000000``
instead links the parts of the base sweeps again and again under new cell names (``r<copy>_<cell>``, a
loose folder without a manifest) until the set holds at least ``--rows`` game rows.
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

from queries import connection, errors, sqlfiles


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


def _games(results: list[str]) -> set[str]:
    con = connection.connect(results)
    try:
        return {g for (g,) in con.execute("SELECT DISTINCT game FROM games").fetchall()}
    finally:
        con.close()


def time_queries(results: list[str], rows: int, repeat: int, threads: int | None,
                 only: list[str] | None = None) -> list[dict]:
    """Each canned query of the records' game(s), ``repeat`` times, from opening the connection to the
    last answer row (the view ``seat_outcomes`` made when the query reads it, as ``playtest query`` does)."""
    games = _games(results)
    out = []
    for q in sqlfiles.available():
        if (q.game != "any" and q.game not in games) or (only and q.name not in only):
            continue
        times, skipped = [], None
        for _ in range(repeat):
            t0 = time.perf_counter()
            con = connection.connect(results, threads=threads)
            try:
                if sqlfiles.uses_seat_outcomes(q):
                    connection.add_seat_outcomes(con, results)
                _, answer = connection.answer(con, q, sqlfiles.bind(q, None), results)
            except errors.QueryError as e:       # a table these results do not have (cards), ...
                skipped = str(e)
                break
            finally:
                con.close()
            times.append(time.perf_counter() - t0)
        if skipped:
            out.append({"query": q.name, "skipped": skipped})
            continue
        best = min(times)
        out.append({"query": q.name, "rows_in": rows, "rows_out": len(answer), "first_s": round(times[0], 3),
                    "best_s": round(best, 3), "median_s": round(statistics.median(times), 3),
                    "rows_per_s": round(rows / best)})
    return out


def _rows(results: list[str]) -> int:
    con = connection.connect(results)
    try:
        return con.execute("SELECT count(*) FROM games").fetchone()[0]
    finally:
        con.close()


def main(argv: list[str] | None = None) -> dict:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--results", action="append", default=[], help="a results DIR to time as it is (repeatable)")
    ap.add_argument("--base", action="append", default=[], help="a sweep's results DIR to link copies of (repeatable)")
    ap.add_argument("--rows", type=int, default=10_000_000, help="with --base: game rows to build")
    ap.add_argument("--repeat", type=int, default=3)
    ap.add_argument("--threads", type=int, default=None, help="DuckDB threads (default: all cores)")
    ap.add_argument("--query", action="append", default=None, help="only this canned query (repeatable)")
    ap.add_argument("--out", type=Path, default=Path("bench/queries.json"))
    args = ap.parse_args(argv)
    if bool(args.results) == bool(args.base):
        ap.error("give --results DIR (time these results) or --base DIR (build linked copies), not both")
    with tempfile.TemporaryDirectory(prefix="playtest-bench-") as tmp:
        if args.base:
            rows = build(args.base, args.rows, Path(tmp))
            roots = [tmp]
        else:
            roots = [str(r) for r in args.results]
            rows = _rows(roots)
        files = [p for r in roots for p in Path(r).rglob("*.parquet") if ".quarantine" not in p.parts]
        size = sum(p.stat().st_size for p in files)
        load = os.getloadavg()[0]
        results = time_queries(roots, rows, args.repeat, args.threads, args.query)
    report = {"rows": rows, "parts": len(files), "bytes": size, "threads": args.threads or os.cpu_count(),
              "machine": f"{platform.machine()}, {os.cpu_count()} cores", "load_avg_1m_before": round(load, 2),
              "bases": args.base, "results": args.results, "queries": results}
    args.out.parent.mkdir(parents=True, exist_ok=True)
    args.out.write_text(json.dumps(report, indent=1))
    lines = [f"{rows:,} game rows in {len(files)} Parquet files ({size / 2**20:.0f} MiB), {report['machine']}, "
             f"load average {load:.1f} before", "",
             "| query | best s | median s | first s | rows/s | answer rows |", "|---|---|---|---|---|---|"]
    lines += [f"| {r['query']} | {r['best_s']:.2f} | {r['median_s']:.2f} | {r['first_s']:.2f} | {r['rows_per_s']:,} | "
              f"{r['rows_out']} |" for r in results if "skipped" not in r]
    lines += ["", *(f"not timed: {r['skipped']}" for r in results if "skipped" in r)]
    args.out.with_suffix(".md").write_text("\n".join(lines) + "\n")
    print("\n".join(lines))
    return report


if __name__ == "__main__":
    main()
