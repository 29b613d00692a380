"""``playtest compare``: A vs B, two result folders or one sweep split by a parameter (queries/compare.py)."""

from __future__ import annotations

import json
import shlex
import sys
from pathlib import Path
from typing import Annotated, Optional

import typer

from cli.common import FORMATS, err, fail, fit_table, plain, render, warn
from measures.answers import PER_GAME
from queries import compare as cmp
from queries import errors, sources
from sim.files import unwritable


def compare(a: Annotated[str, typer.Argument(help="results A: a sweep's results DIR, a Parquet file or a glob "
                                                  "(with --by: the one sweep to split)")],
            b: Annotated[Optional[str], typer.Argument(help="results B (left out with --by)")] = None,
            by: Annotated[Optional[str], typer.Option(help="split one sweep by this setup column or rule "
                                                           "parameter: each value against the first")] = None,
            baseline: Annotated[Optional[str], typer.Option(help="with --by: compare each value against this "
                                                                 "one instead of the first")] = None,
            where: Annotated[Optional[str], typer.Option(
                help="filter the games first: one boolean expression over their columns, "
                     "e.g. \"board = 'explorer' AND players = 4\"")] = None,
            fmt: Annotated[str, typer.Option("--format", help="table, csv, json or markdown")] = "table",
            html: Annotated[Optional[Path], typer.Option(help="also write DIR/compare.html: the page with "
                                                              "plots")] = None,
            adjust: Annotated[str, typer.Option(help="multiple-comparison adjustment across every metric and "
                                                     "cell: holm (family-wise) or bh (false discovery rate)")]
            = "holm") -> None:
    """A vs B per matched cell: every balance metric as A, B, B-A with a 95% interval, an adjusted p-value and
    a verdict in words; paired on the games both sides played (the same seed and game index)."""
    if fmt not in FORMATS:
        fail(f"--format {fmt!r} is not available; expected one of {', '.join(FORMATS)}")
    if by is None and b is None:
        fail("give two results to compare (playtest compare A B), or one sweep and --by PARAM")
    if by is not None and b is not None:
        fail(f"--by {by} splits one sweep; give one results folder, not two ({a}, {b})")
    if baseline is not None and by is None:
        fail("--baseline VALUE goes with --by PARAM (the value to compare the others against)")
    if html is not None and (why := unwritable(html, folder=True)):
        fail(f"--html {html}: {why}")
    try:
        report = (cmp.compare_by(a, by, baseline, where, adjust, PER_GAME) if by is not None
                  else cmp.compare_folders(a, b, where, adjust, PER_GAME))
        for line in sources.sweep_notes([a] + ([b] if b else [])):
            warn(line)
    except (cmp.CompareError, errors.QueryError, errors.ResultsError) as e:
        fail(str(e))
    report.command = "playtest compare " + " ".join(shlex.quote(x) for x in sys.argv[2:]) \
        if len(sys.argv) > 2 and sys.argv[1] == "compare" else ""
    if fmt == "json":
        typer.echo(json.dumps(report.as_dict(), default=str))
    elif fmt == "csv":
        columns, rows = cmp.records(report)
        typer.echo(render("compare", columns, rows, "csv"))
    elif fmt == "markdown":
        typer.echo(cmp.markdown(report))
    else:
        head, cells = cmp.table(report)
        lines = [f"A vs B: A = {report.a}, B = {report.b}"] + [f"  {h}" for h in report.header]
        lines += ["verdicts:"] + [f"  {s}" for s in cmp.summary(report)]
        lines += [f"not compared: {u}" for u in report.unmatched]
        typer.echo("\n".join(lines))
        typer.echo(fit_table("A vs B", head, cells))
    if html is not None:
        try:
            html.mkdir(parents=True, exist_ok=True)
            out = html / "compare.html"
            out.write_text(cmp.page(report))
        except OSError as e:
            fail(f"--html {html}: cannot write the page ({e.strerror or e})")
        err.print(f"page: {plain(str(out))}", highlight=False, soft_wrap=True)


COMMANDS = {"compare": compare}
