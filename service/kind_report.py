"""The report job kind: a done run's results reported again with the report's own options (``playtest report DIR
--target SHORTEST-LONGEST --behind-after ROUND``) into the job's own page, summary and verdict card. The options are
checked by the command's own readers (queries.report.parse_target, check_source), in one line, nothing stored on a
refusal. Its step (service/steps.py ``re-report RESULTS OWN SHORTEST LONGEST BEHIND``, :func:`run`) builds the page
with the functions ``playtest report`` calls (service.reportjob). It plays no game and has no results folder of its
own."""

from __future__ import annotations

import shlex
import sys
import urllib.parse
from pathlib import Path
from typing import Any

from cluster.spec import SpecError
from service import kinds
from service.kind_compare import done_run, results_at
from service.kinds import Checked, Context, Field, Kind, Step, text_of


def _check(inputs: dict[str, Any], ctx: Context) -> Checked:
    from queries import report as rep
    row = done_run(inputs, "run", ctx, "run")
    target = text_of(inputs, "target", 20, label="target") or "5-15"
    try:
        shortest, longest = rep.parse_target(target)
    except ValueError as e:
        raise SpecError(str(e)) from None
    behind = text_of(inputs, "behind_after", 20, label="behind_after") or "3"
    if not behind.isdigit() or not 1 <= int(behind) <= rep.MAX_BEHIND_AFTER:
        raise SpecError(f"--behind-after {behind[:20]!r}: expected an integer from 1 to {rep.MAX_BEHIND_AFTER}")
    try:
        rep.check_source(str(ctx.results(row["id"])))
    except rep.ReportError:
        raise SpecError(f"run: run {row['id']}'s results cannot be reported") from None
    params = {"run": row["id"], "shortest": shortest, "longest": longest, "behind_after": int(behind),
              "at": row.get("results") or ""}
    return Checked(kind="report", name=f"report of {row['id']}", game=row["game"], cells=row["cells"], games=0,
                   text=command(params), params=params, rule_set=row.get("rule_set") or "")


def command(p: dict) -> str:
    return shlex.join(["playtest", "report", f"runs/{p['run']}", "--target", f"{p['shortest']}-{p['longest']}",
                       "--behind-after", str(p["behind_after"])])


def _steps(row: dict, paths: dict[str, Path], opts) -> list[Step]:
    p = row["params"]
    results = results_at(paths["own"].parent.parent, p["run"], p.get("at", ""))
    return [Step("re-report", (str(results), str(paths["own"]), str(p["shortest"]), str(p["longest"]),
                               str(p["behind_after"])))]


def run(source: str, own: Path, shortest: int, longest: int, behind_after: int) -> int:
    """The step: the run's page, summary and verdict card with the report's options; an error is one line, exit 2."""
    from queries import errors
    from queries import report as rep
    from service import reportjob
    own = own.resolve()
    results = reportjob.from_root(source)
    run = Path(urllib.parse.urlsplit(results).path).name     # the run's id: runs/ID or .../runs/ID?query
    p = {"run": run, "shortest": shortest, "longest": longest, "behind_after": behind_after}
    try:
        lines = reportjob.build(results, own, shortest=p["shortest"], longest=p["longest"],
                                behind_after=p["behind_after"], command=command(p))
    except (rep.ReportError, errors.QueryError, errors.ResultsError, OSError) as e:
        print(f"error: {' '.join(str(e).replace(str(Path.cwd()), '').split())}", file=sys.stderr)
        return 2
    for line in lines:
        print(line)
    return 0


kinds.register(Kind(
    name="report", title="a report",
    about="Report a done run again with the report's options (playtest report --target --behind-after): its own "
          "page, summary and verdict card; the run is not played again.",
    fields=(Field("run", "Run (its id, from its address /runs/ID)", "run"),
            Field("target", "Target game length in rounds, SHORTEST-LONGEST", default="5-15"),
            Field("behind_after", "A comeback: the winner was behind after this round", "number", default="3")),
    check=_check, steps=_steps, pages=(("report", "report.html", "Open the report"),), results=False))
