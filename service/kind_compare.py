"""The compare job kind: two finished runs A vs B (or one run split ``--by`` a parameter), as ``playtest compare``
compares two results folders (queries/compare.py): every balance metric per matched cell, B - A with its interval, an
adjusted p-value and a verdict in words. Its step (service/steps.py ``compare OWN``, :func:`run`) writes the page
(OWN/compare.html) and the answer (OWN/compare.json) with the library functions the command calls; the sides are named
by their run ids, never by a server path. The job plays no game and has no results folder of its own.

The check refuses, in one line and before anything is stored: a run id that is not a run of this service, a run that
is not done or has no results, runs of two games, ``--by`` with two runs, a ``--where`` filter the library refuses,
an ``--adjust`` it does not know and a ``--by`` that is no setup column or rule parameter of the run's records."""

from __future__ import annotations

import json
import re
import sys
from pathlib import Path
from typing import Any

from cluster.spec import SpecError
from service import kinds
from service.kinds import Checked, Context, Field, Kind, Step, has_manifest, text_of

RUN_ID = re.compile(r"[0-9a-f]{12}")
PAGE, ANSWER, INPUTS = "compare.html", "compare.json", "compare-inputs.json"
MAX_WHERE = 2000


def done_run(inputs: dict[str, Any], name: str, ctx: Context, label: str) -> dict:
    """The catalog row of the finished run whose id is ``inputs[name]``, with results to read; else a SpecError of
    one line naming the field."""
    value = text_of(inputs, name, 40, label=label)
    if not value:
        raise SpecError(f"{label}: give a run id (12 hexadecimal digits, as in the run's address /runs/ID)")
    if not RUN_ID.fullmatch(value):
        raise SpecError(f"{label}: {value[:40]!r} is not a run id; expected 12 hexadecimal digits, as in the run's "
                        "address /runs/ID")
    row = ctx.job(value)
    if row is None:
        raise SpecError(f"{label}: no run {value} on this service")
    if row["state"] != "done":
        raise SpecError(f"{label}: run {value} is {row['state']}; only a done run can be read")
    out = ctx.results(value)
    if not has_manifest(out):
        raise SpecError(f"{label}: run {value} has no results folder (a {row.get('kind', 'sweep')} job); give a "
                        "sweep's or a ladder's run")
    return row


def results_at(root: Path, job: str, at: str) -> str:
    """A run's results as a step reads them: ``runs/ID`` under the service's root, or its URI on object storage
    (``at``: the run's results root, the catalog's ``results``)."""
    return kinds.child_uri(at, f"runs/{job}") if at else str(root / "runs" / job)


def _check(inputs: dict[str, Any], ctx: Context) -> Checked:
    from queries import compare as cmp
    from queries import connection, errors
    a = done_run(inputs, "a", ctx, "run A")
    b_id = text_of(inputs, "b", 40, label="run B")
    by = text_of(inputs, "by", 64, label="by")
    baseline = text_of(inputs, "baseline", 200, label="baseline")
    where = text_of(inputs, "where", MAX_WHERE, label="where")
    adjust = text_of(inputs, "adjust", 10, label="adjust") or "holm"
    if adjust not in cmp.METHODS:
        raise SpecError(f"adjust {adjust[:20]!r} is not available; expected one of {', '.join(cmp.METHODS)}")
    if not by and not b_id:
        raise SpecError("run B: give a second run to compare with run A, or a parameter to split run A by (by)")
    if by and b_id:
        raise SpecError(f"by {by}: splits one run; leave run B empty (or give run B and no by)")
    if baseline and not by:
        raise SpecError("baseline: goes with by (the value to compare the others against)")
    b = done_run(inputs, "b", ctx, "run B") if b_id else None
    if b is not None and b["id"] == a["id"]:
        raise SpecError(f"run B: the same run as run A ({a['id']}); give two runs, or one with by")
    if b is not None and b["game"] != a["game"]:
        raise SpecError(f"run B: run {b['id']} is of {b['game']}, run A of {a['game']}; compare runs of one game")
    results = [str(ctx.results(a["id"]))] + ([str(ctx.results(b["id"]))] if b else [])
    try:                                 # the filter and the --by column, checked by the library (no game is read)
        con = connection.connect(results, where or None)
        try:
            columns = [r[0] for r in con.execute("DESCRIBE games").fetchall()]
        finally:
            con.close()
    except (errors.QueryError, errors.ResultsError) as e:
        raise SpecError(_scrub(str(e), results, [a["id"]] + ([b["id"]] if b else []))) from None
    if by:
        from sim.games import GAMES
        cands = cmp._candidates(a["game"], columns) if a["game"] in GAMES else []
        data_keys = list(GAMES[a["game"]].data_keys) if a["game"] in GAMES else []
        if by not in cands and by not in data_keys:
            raise SpecError(f"by {by!r} is not a setup column or rule parameter of run {a['id']}'s {a['game']} "
                            f"records; expected one of {', '.join(cands + data_keys)}")
    params = {"a": a["id"], "b": b["id"] if b else "", "by": by, "baseline": baseline, "where": where,
              "adjust": adjust, "a_at": a.get("results") or "", "b_at": (b.get("results") or "") if b else ""}
    name = f"compare {a['id']} vs {b['id']}" if b else f"compare {a['id']} by {by}"
    return Checked(kind="compare", name=name, game=a["game"], cells=0, games=0, text=command(params), params=params)


def command(p: dict) -> str:
    """The ``playtest compare`` command this job answers, over the service root's ``runs/ID`` folders."""
    import shlex
    words = ["playtest", "compare", f"runs/{p['a']}"] + ([f"runs/{p['b']}"] if p.get("b") else [])
    for flag in ("by", "baseline", "where"):
        if p.get(flag):
            words += [f"--{flag}", p[flag]]
    words += ["--adjust", p.get("adjust") or "holm", "--html", "."]
    return shlex.join(words)


def _prepare(row: dict, paths: dict[str, Path]) -> None:
    own = paths["own"]
    own.mkdir(parents=True, exist_ok=True)
    root = own.parent.parent
    p = row["params"]
    inputs = {**p, "a_results": results_at(root, p["a"], p.get("a_at", "")),
              "b_results": results_at(root, p["b"], p.get("b_at", "")) if p.get("b") else ""}
    (own / INPUTS).write_text(json.dumps(inputs), encoding="utf-8")


def _steps(row: dict, paths: dict[str, Path], opts) -> list[Step]:
    return [Step("compare", (str(paths["own"]),))]


def _finish(row: dict, paths: dict[str, Path]) -> dict:
    answer = json.loads((paths["own"] / ANSWER).read_text(encoding="utf-8"))
    rows = answer.get("rows", [])
    if any(r.get("differs") for r in rows):
        return {"verdict": "real difference"}
    # "the same" only by equivalence (queries.compare.MARGINS); an answer written before it had no "same"
    same = all(r.get("same", False) for r in rows)
    return {"verdict": "no real difference" if same else "not enough games to say"}


def _scrub(text: str, results: list[str], ids: list[str]) -> str:
    """A message without the server's paths: each results folder named ``run ID``."""
    for path, ident in zip(results, ids):
        text = text.replace(path, f"run {ident}")
    return " ".join(text.split())


def run(own: Path) -> int:
    """The step: compare as the inputs say, write the page and the answer; an error is one line, exit 2."""
    from measures.answers import PER_GAME
    from queries import compare as cmp
    from queries import errors
    from sim.files import write_atomic
    p = json.loads((own / INPUTS).read_text(encoding="utf-8"))
    results, ids = [p["a_results"]] + ([p["b_results"]] if p.get("b") else []), [p["a"]] + ([p["b"]] if p.get("b")
                                                                                           else [])
    try:
        report = (cmp.compare_by(p["a_results"], p["by"], p.get("baseline") or None, p.get("where") or None,
                                 p["adjust"], PER_GAME) if p.get("by") else
                  cmp.compare_folders(p["a_results"], p["b_results"], p.get("where") or None, p["adjust"],
                                      PER_GAME))
    except (cmp.CompareError, errors.QueryError, errors.ResultsError) as e:
        print(f"error: {_scrub(str(e), results, ids)}", file=sys.stderr)
        return 2
    report.a, report.b = (_scrub(report.a, results, ids), _scrub(report.b, results, ids))
    report.header = [_scrub(h, results, ids) for h in report.header]
    report.unmatched = [_scrub(u, results, ids) for u in report.unmatched]
    report.header.insert(0, f"A = {report.a}; B = {report.b}")
    report.command = command(p)
    write_atomic(own / PAGE, cmp.page(report))
    write_atomic(own / ANSWER, json.dumps(report.as_dict(), default=str, indent=1))
    for line in cmp.summary(report):
        print(line)
    return 0


kinds.register(Kind(
    name="compare", title="a comparison",
    about="Compare two finished runs, A vs B, cell by matched cell (or one run split by a parameter): every balance "
          "metric with its interval, an adjusted p-value and a verdict in words (playtest compare).",
    fields=(Field("a", "Run A (its id, from its address /runs/ID)", "run"),
            Field("b", "Run B (leave empty to split run A by a parameter)", "run"),
            Field("by", "By: split run A by this setup column or rule parameter (instead of run B)"),
            Field("baseline", "Baseline: with by, compare each value against this one (default: the first)"),
            Field("where", "Where: filter the games first, e.g. players = 4", "text"),
            Field("adjust", "Adjustment across metrics and cells", "select", options=("holm", "bh"),
                  default="holm")),
    check=_check, prepare=_prepare, steps=_steps, finish=_finish,
    pages=(("compare", PAGE, "Open the comparison"),), results=False))
