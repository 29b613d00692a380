"""A finished job's report (service/steps.py ``report RESULTS OWN``, :func:`run`), built in a child process by the functions
``playtest report`` calls (measures.answers.write_report: the full report, or the measure's page alone),
into OWN/report.html, with the text summary (OWN/report.txt) and the verdict card's facts (OWN/verdict.json)."""

from __future__ import annotations

import json
import os
import sys
from pathlib import Path

from measures.answers import write_report
from queries import errors, sources
from queries import report as rep
from sim.files import write_atomic
from infra.storage import is_uri


def build(results: str, own: Path, **options) -> list[str]:
    """Write the page, the summary and the verdict's facts; returns the summary's lines. ``options``: the report's
    own (``shortest``, ``longest``, ``behind_after``, ``command``: measures.answers.write_report's)."""
    page = own / "report.html"
    manifest = sources.read_manifest(results)
    # a measure's page alone names no command here, as the service has always written it
    r, lines = write_report(results, page, alone_command="", **options)
    facts = {"code_version": manifest.get("code_version"), "spec_digest": manifest.get("spec_digest"),
             "games": 0, "cells": [], "measure": lines}
    if r is None:    # a restricted-play or card-worth folder: the page is the measure's answer
        summary = lines
    else:
        summary = rep.text_summary(r) + lines
        facts["games"] = r.games
        facts["title"] = r.title
        for c in r.cells:
            facts["cells"].append({"id": c.id, "label": c.label, "games": c.games, "bots": c.bots,
                                   "headlines": rep.headlines(r, c),
                                   "ends": [[reason, n] for reason, n in c.ends], "no_winner": c.no_winner})
    write_atomic(own / "report.txt", "\n".join(summary) + "\n")
    write_atomic(own / "verdict.json", json.dumps(facts, indent=1, default=str))
    return summary


def from_root(results: str) -> str:
    """A run's results as a report step names them: a local run's folder as ``runs/ID`` from the service's root (the
    process moves there, so the page names no server path), a run on object storage by its URI."""
    if is_uri(results):
        return results
    os.chdir(Path(results).resolve().parent.parent)
    return f"runs/{Path(results).name}"


def run(source: str, own: Path) -> int:
    """The report step: the page, the summary and the verdict's facts; an error is one line, exit 2."""
    own = own.resolve()
    results = from_root(source)
    try:
        for line in build(results, own):
            print(line)
    except (rep.ReportError, errors.QueryError, errors.ResultsError, OSError) as e:
        print(f"error: {' '.join(str(e).split())}", file=sys.stderr)
        return 2
    return 0
