"""``playtest report``: one self-contained HTML page for a sweep's results or a ``playtest run`` file
(queries/report.py builds it)."""

from __future__ import annotations

import shlex
import sys
import time
from pathlib import Path
from typing import Annotated, Optional

import typer

from cli.common import err, fail, plain
from measures.answers import write_report
from queries import errors, sources
from queries import report as rep
from queries.report import parse_target
from sim.files import unwritable

def report(results: Annotated[str, typer.Argument(help="a sweep's results DIR or a playtest run Parquet file")],
           out: Annotated[Optional[Path], typer.Option(help="the page to write (default: DIR/report.html, or "
                                                            "FILE.report.html beside a file)")] = None,
           target: Annotated[str, typer.Option(help="the game length a designer wants, in rounds: SHORTEST-LONGEST "
                                                    "(the share of games inside it is a designer metric)")] = "5-15",
           behind_after: Annotated[int, typer.Option(help="a comeback: the winner was behind after this round")]
           = 3,
           cards: Annotated[Optional[str], typer.Option(help="with a run file: the per-card file playtest run "
                                                             "--cards-out wrote beside it")] = None) -> None:
    """One self-contained HTML page for a sweep or run: summary, win shares, lengths, end reasons, standings per
    round, designer metrics and card statistics, per cell side by side."""
    try:
        shortest, longest = parse_target(target)
    except ValueError as e:
        fail(str(e))
    if not 1 <= behind_after <= rep.MAX_BEHIND_AFTER:
        fail(f"--behind-after {behind_after}: expected an integer from 1 to {rep.MAX_BEHIND_AFTER}")
    _not_a_skill_folder(results)
    try:
        rep.check_source(results)
    except rep.ReportError as e:
        fail(str(e))
    page = out or rep.default_out(results)
    why = unwritable(page)
    if why:
        fail(f"--out {page}: {why}")
    command = "playtest report " + " ".join(shlex.quote(x) for x in sys.argv[2:]) \
        if len(sys.argv) > 2 and sys.argv[1] == "report" else ""
    t0 = time.perf_counter()
    try:
        r, lines = write_report(results, page, shortest=shortest, longest=longest, behind_after=behind_after,
                                command=command, cards=cards)
    except (rep.ReportError, errors.QueryError, errors.ResultsError) as e:
        fail(str(e))
    except OSError as e:
        fail(f"--out {page}: cannot write the page ({e.strerror or e})")
    if r is None:     # a restricted-play or card-worth folder: its cells are the measure's variants
        for line in lines:
            typer.echo(line)
        err.print(plain(f"page: {page} ({page.stat().st_size / 1024:,.0f} KiB, the measure's answer; built in "
                        f"{time.perf_counter() - t0:.1f} s)"), highlight=False, soft_wrap=True)
        return
    for line in sources.sweep_notes([results]):
        err.print(f"[bold yellow]warning:[/] {plain(line)}", highlight=False, soft_wrap=True)
    for line in rep.text_summary(r) + lines:
        typer.echo(line)
    size = page.stat().st_size
    err.print(plain(f"page: {page} ({size / 1024:,.0f} KiB, {len(r.cells)} cells, {r.games:,} games, "
                    f"built in {time.perf_counter() - t0:.1f} s)"), highlight=False, soft_wrap=True)


def _not_a_skill_folder(results: str) -> None:
    """A skill run's folder holds one sweep per level, and its page answers one question: one line naming it."""
    from cluster.skill import read_plan
    from cluster.spec import SpecError
    if "://" in results or not Path(results).is_dir():
        return
    try:
        plan = read_plan(Path(results))
    except SpecError as e:
        fail(str(e))
    if plan is not None:
        fail(f"{results}: a skill run's folder (levels {', '.join(plan['levels'])}); its page answers one question "
             f"against the levels' strength: playtest query NAME --results {results} --html PAGE; one level's "
             f"report: playtest report {Path(results) / plan['folders'][0]}")


summary_lines = rep.summary_lines      # ``playtest run`` and ``playtest sweep`` print it (queries/report.py)


COMMANDS = {"report": report}
