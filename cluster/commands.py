"""``playtest sweep`` and ``playtest status``: parameter sweeps on Ray and where a sweep stands."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated, Optional

import typer
from rich.console import Console

COMMANDS = ("sweep", "status")


def fail(message: str) -> None:
    """The CLI's user error (imported late: sim.cli imports this module to register its commands)."""
    from sim.cli import fail as cli_fail
    cli_fail(message)


def _size(n: float) -> str:
    for unit in ("B", "KiB", "MiB", "GiB"):
        if n < 1024 or unit == "GiB":
            return f"{n:,.1f} {unit}" if unit != "B" else f"{int(n)} B"
        n /= 1024
    return f"{n:,.1f} TiB"


def sweep(spec: Annotated[Path, typer.Argument(help="sweep spec (TOML; see docs/sweeps.md and examples/)")],
          out: Annotated[Path, typer.Option(help="results directory: hive-partitioned Parquet + manifest.json")],
          workers: Annotated[Optional[int], typer.Option(help="tasks run at once (default: all cores of this "
                                                              "machine, or of the cluster with --address)")] = None,
          address: Annotated[Optional[str], typer.Option(help="HOST:PORT of a running Ray cluster to join "
                                                              "(default: start Ray on this machine)")] = None,
          resume: Annotated[bool, typer.Option(help="finish a sweep already in --out: skip finished parts, "
                                                    "play the rest")] = False,
          progress: Annotated[bool, typer.Option(help="show a live progress bar")] = True) -> None:
    """Play every cell of a sweep spec on Ray; every game becomes a Parquet row under --out."""
    from cluster.manifest import ManifestError
    from cluster.spec import SpecError, load_spec
    from cluster.sweep import SweepError, SweepInterrupted, run_sweep
    if workers is not None and workers < 1:
        fail(f"--workers = {workers}: expected at least 1")
    try:
        s = load_spec(spec)
    except SpecError as e:
        fail(str(e))
    err = Console(stderr=True)
    err.print(f"sweep {s.name!r}: {len(s.cells)} cells x {s.games_per_cell:,} games = {s.total_games:,} games in "
              f"{s.total_parts:,} parts of {s.batch_size:,} -> {out}", highlight=False)
    try:
        r = run_sweep(s, out, workers=workers, address=address, resume=resume, progress=progress)
    except SweepInterrupted as e:
        r = e.summary
        err.print(f"[bold yellow]interrupted:[/] {r.games_done:,} of {r.games_total:,} games done "
                  f"({r.parts_done} of {r.parts_total} parts); only finished parts are in {out}.\n"
                  f"resume with: playtest sweep {spec} --out {out} --resume"
                  + (f" --address {address}" if address else ""), highlight=False)
        raise typer.Exit(code=130)
    except (SweepError, ManifestError) as e:
        fail(str(e))
    err.print(f"{r.games:,} games in {r.wall_s:.1f} s ({r.games_per_s:,.0f} games/s; playing {r.play_s:.1f} s, "
              f"Ray start {r.ray_start_s:.1f} s, {r.workers} workers), {r.parts} parts written"
              + (f", {r.parts_skipped} already done" if r.parts_skipped else "")
              + f"; sweep {r.games_done:,}/{r.games_total:,} games, {_size(r.bytes)} in {out}", highlight=False)


def status(out: Annotated[Path, typer.Argument(help="a sweep's results directory")],
           cells: Annotated[bool, typer.Option(help="one line per cell")] = True) -> None:
    """Report a sweep's state from its manifest: parts and games done per cell, digests, code version."""
    from rich.table import Table

    from cluster.manifest import DONE, ManifestError, counts, load_manifest
    from cluster.part import part_path
    try:
        m = load_manifest(out)
    except ManifestError as e:
        fail(str(e))
    if m is None:
        fail(f"{out}: no sweep here (no manifest.json)")
    c = counts(m)
    missing = [f"{cell['id']}/{p['batch']}" for cell in m["cells"] for p in cell["parts"] if p["state"] == DONE
               and not all(part_path(out, t, cell["id"], p["batch"]).exists() for t in m["tables"])]
    con = Console()
    pct = 100.0 * c["games_done"] / c["games"] if c["games"] else 0.0
    state = m["state"] + (" (or its driver was killed: --resume finishes it)" if m["state"] == "running" else "")
    con.print(f"sweep {m['name']!r} ({m['spec_file']}): [bold]{state}[/]\n"
              f"  {c['games_done']:,} of {c['games']:,} games ({pct:.1f}%), {c['parts_done']} of {c['parts']} parts, "
              f"{_size(c['bytes'])}\n"
              f"  {len(m['cells'])} cells x {m['games_per_cell']:,} games, batch {m['batch_size']:,}, seed "
              f"{m['seed']}, engine {m['engine']}, tables {', '.join(m['tables'])}\n"
              f"  spec digest {m['spec_digest']}, code {m['code_version']} (core {m['core_digest']}), "
              f"updated {m['updated']}", highlight=False)
    if m.get("error"):
        con.print(f"  [red]error:[/] {m['error']}", highlight=False)
    if missing:
        con.print(f"  [red]{len(missing)} finished parts are missing on disk[/] (e.g. {missing[0]}); "
                  "--resume plays them again", highlight=False)
    if cells:
        t = Table("cell", "values", "parts done", "games done")
        for cell in m["cells"]:
            done = [p for p in cell["parts"] if p["state"] == DONE]
            t.add_row(cell["id"], ", ".join(f"{k}={v}" for k, v in cell["values"].items()) or "(base)",
                      f"{len(done)}/{len(cell['parts'])}", f"{sum(p['rows'] for p in done):,}")
        con.print(t)
    if m["state"] != "done":
        con.print(f"resume with: playtest sweep {m['spec_file']} --out {out} --resume", highlight=False)
