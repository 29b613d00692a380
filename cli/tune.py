"""``playtest tune SPEC``: tune rule parameters toward a target by racing candidates on Ray (docs/tuning.md)."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated, Optional

import typer

from cli.common import err, fail, local_out, plain
from cluster.sweep import interrupts, workers_error
from cluster.tune import (REPORT_NAME, TuneError, answer_lines, load_tune_spec, next_step,  # noqa: F401
                          run_tune)


def tune(spec: Annotated[Path, typer.Argument(help="tune spec (TOML; see docs/tuning.md and examples/tune_*.toml)")],
         out: Annotated[str, typer.Option(help="results folder (local): the sweep's Parquet, manifest, tune.toml "
                                               "(the sweep it plays) and tune.json (the answer)")],
         workers: Annotated[Optional[int], typer.Option(help="tasks run at once (default: every core, or the "
                                                             "cluster's with --address)")] = None,
         address: Annotated[Optional[str], typer.Option(help="HOST:PORT of a running Ray cluster to join "
                                                             "(default: start Ray on this machine)")] = None,
         resume: Annotated[bool, typer.Option(help="finish a tune already in --out")] = False,
         progress: Annotated[bool, typer.Option(help="show the sweep's progress bar")] = False,
         quiet: Annotated[bool, typer.Option("--quiet", help="no round-by-round lines")] = False) -> None:
    """Find the rule parameter values that bring a metric to a target (or its min or max) in every hold cell,
    dropping candidates as soon as their intervals show them worse (racing)."""
    if (bad := workers_error(workers, address)) is not None:
        fail(bad)
    out = local_out(out, "a tune", "tune.toml and tune.json beside the sweep's parts")
    try:
        s = load_tune_spec(spec)
    except TuneError as e:
        fail(str(e))

    def log(line: str) -> None:
        if not quiet:
            err.print(plain(line), highlight=False, soft_wrap=True)

    with interrupts() as ints:      # Ctrl-C and SIGTERM: the sweep keeps its finished parts, then the hint
        try:
            a = run_tune(s, out, workers=workers, address=address, resume=resume, progress=progress, log=log)
        except TuneError as e:
            fail(str(e))
        except KeyboardInterrupt:
            err.print(plain(f"interrupted; resume with: playtest tune {spec} --out {out} --resume"), highlight=False)
            raise typer.Exit(code=128 + ints.signum)
        for line in answer_lines(a):
            print(line)
        where = " ".join(f"--results {f}" for f in a.folders)
        print(f"answer: {out / REPORT_NAME}; the games: playtest query seat_advantage {where}")


COMMANDS = {"tune": tune}
