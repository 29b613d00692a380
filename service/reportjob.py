"""A finished job's report (service/steps.py ``report RESULTS OWN``, :func:`run`), built in a child process by the functions
``playtest report`` calls (measures.answers.measure_sections, then queries.report.build, or the measure's page alone),
into OWN/report.html, with the text summary (OWN/report.txt) and the verdict card's facts (OWN/verdict.json)."""

from __future__ import annotations

import json
import os
import sys
from pathlib import Path

from measures.answers import measure_sections
from queries import errors, sources
from queries import report as rep
from measures.answers import measure_page
from sim.files import write_atomic
from infra.storage import is_uri


def build(results: str, own: Path, **options) -> list[str]:
    """Write the page, the summary and the verdict's facts; returns the summary's lines. ``options``: the report's
    own (``shortest``, ``longest``, ``behind_after``, ``command``: queries.report.build's)."""
    page = own / "report.html"
    manifest = sources.read_manifest(results)
    sections, alone, lines = measure_sections(results)
    facts = {"code_version": manifest.get("code_version"), "spec_digest": manifest.get("spec_digest"),
             "games": 0, "cells": [], "measure": lines}
    if alone:        # a restricted-play or card-worth folder: the page is the measure's answer
        write_atomic(page, measure_page(f"playtest report: {Path(results).name}", sections, results, ""))
        summary = lines
    else:
        r = rep.build(results, page, sections=sections, **options)
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
