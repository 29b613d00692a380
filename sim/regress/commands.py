"""``playtest regress``: the nightly balance regression (docs/regress.md)."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated, Optional

import typer

from sim.cli import err, fail

COMMANDS = ("regress",)


def _seeds(text: str) -> tuple[int, ...]:
    try:
        seeds = tuple(int(s) for s in text.split(",") if s.strip())
    except ValueError:
        seeds = ()
    if not seeds or any(s < 0 for s in seeds):
        fail(f"--seeds {text!r} is not allowed; expected comma-separated integers >= 0, e.g. 1,2")
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
    from cluster.sweep import SweepError
    from sim.regress.regression import regress as run
    if workers is not None and workers < 1:
        fail(f"--workers {workers} is not allowed; expected at least 1")
    try:
        out = run(suite, baseline, report, work=work, update_baseline=update_baseline,
                  seeds=_seeds(seeds) if seeds is not None else None, workers=workers, address=address,
                  progress=not quiet)
    except (ValueError, OSError, SweepError) as e:  # suite, baseline, spec, rule and query errors: ValueErrors
        fail(str(e))
    if out.baseline_written:
        err.print(f"baseline written: {baseline}")
    cmp = out.comparison
    if cmp is None:
        return
    colour = "red" if cmp.verdict == "regression" else "green"
    err.print(f"[bold {colour}]{cmp.verdict.upper()}[/]: {len(cmp.flagged)} flagged metric(s) of {len(cmp.tests)}, "
              f"{len(cmp.changed)} changed cell(s) of {len(cmp.cells)}"
              + (f" ({'; '.join(cmp.reasons)})" if cmp.reasons else ""), highlight=False)
    err.print("report: " + ", ".join(str(f) for f in out.files), highlight=False)
    if cmp.verdict == "regression" and not update_baseline:
        raise typer.Exit(code=1)
