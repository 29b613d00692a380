"""``playtest regress``: the nightly balance regression (docs/regress.md)."""

from __future__ import annotations

import re
from pathlib import Path
from typing import Annotated, Optional

import typer

from cli.common import MAX_SEED, MAX_WORKERS, err, fail, plain   # fail: one line, user text escaped for Rich, exit 2
from cluster.sweep import SweepError
from regress.regression import regress as run


def _seeds(text: str) -> tuple[int, ...]:
    items = [s.strip() for s in text.split(",")]
    ok = len(text) <= 10_000 and all(re.fullmatch(r"[0-9]{1,20}", s, re.ASCII) for s in items)
    seeds = tuple(int(s) for s in items) if ok else ()
    shown = text if len(text) <= 60 else text[:57] + "..."
    if not seeds or any(s > MAX_SEED for s in seeds):
        fail(f"--seeds {shown!r} is not allowed; expected comma-separated integers from 0 to {MAX_SEED}, e.g. 1,2")
    if len(set(seeds)) != len(seeds):
        fail(f"--seeds {shown!r} repeats a seed; expected distinct seeds")
    return seeds


def regress(suite: Annotated[Path, typer.Argument(help="suite TOML: a sweep spec, seeds and thresholds "
                                                     "(docs/regress.md)")],
            baseline: Annotated[Path, typer.Option(help="baseline JSON to compare with (written by "
                                                        "--update-baseline)")],
            report: Annotated[Path, typer.Option(help="folder for report.md, report.html and result.json")]
            = Path("regress-report"),
            update_baseline: Annotated[bool, typer.Option("--update-baseline",
                                                          help="write this run as the new baseline")] = False,
            work: Annotated[Optional[Path], typer.Option(help="folder for the games (default: REPORT/work)")]
            = None,
            seeds: Annotated[Optional[str], typer.Option(help="play these master seeds instead of the suite's "
                                                              "(comma separated)")] = None,
            workers: Annotated[Optional[int], typer.Option(help="sweep workers (default: every core)")] = None,
            address: Annotated[Optional[str], typer.Option(help="Ray cluster address to run the sweep on")] = None,
            quiet: Annotated[bool, typer.Option("--quiet", help="no progress bar")] = False) -> None:
    """Play a fixed suite and compare with a baseline: exit 0 nothing moved, 1 regression, 2 error."""
    if workers is not None and not 1 <= workers <= MAX_WORKERS:
        fail(f"--workers {workers} is not allowed; expected at least 1 and at most {MAX_WORKERS}")
    try:
        out = run(suite, baseline, report, work=work, update_baseline=update_baseline,
                  seeds=_seeds(seeds) if seeds is not None else None, workers=workers, address=address,
                  progress=not quiet)
    except (ValueError, OSError, SweepError) as e:  # suite, baseline, spec, rule and query errors: ValueErrors
        fail(str(e))
    if out.note:
        err.print(f"note: {plain(out.note)}", highlight=False, soft_wrap=True)
    if out.baseline_written:
        err.print(f"baseline written: {plain(str(baseline))}", highlight=False, soft_wrap=True)
    cmp = out.comparison
    if cmp is None:
        return
    colour = "red" if cmp.verdict == "regression" else "green"
    err.print(f"[bold {colour}]{cmp.verdict.upper()}[/]: {len(cmp.flagged)} flagged metric(s) of {len(cmp.tests)}, "
              f"{len(cmp.changed)} changed cell(s) of {len(cmp.cells)}"
              + (f" ({plain('; '.join(cmp.reasons))})" if cmp.reasons else ""), highlight=False)
    err.print("report: " + plain(", ".join(str(f) for f in out.files)), highlight=False, soft_wrap=True)
    if cmp.verdict == "regression" and not update_baseline:
        raise typer.Exit(code=1)


COMMANDS = {"regress": regress}
