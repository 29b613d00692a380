"""What every design measure declares, so the report, the service and ``playtest validate`` read them alike
(docs/developing.md "Adding a measure").

A measure is one package under ``measures/``: how it is played (``sweep.py``: its sweep spec, played by
cluster.sweep like any sweep), how it is answered from a results folder (``answer.py``), its page and report
section (``page.py``; ``report.py`` where the report reads it per cell and ``playtest compare`` per game from
any sweep storing its table) and its known-answer cases (``cases.py``, registered with measures.known's
``@case``). Its ``__init__.py`` holds one :class:`Measure`; measures/registry.py lists them. A measure whose
answer is another room's own (the report's skill and first-player verdicts, the ladder's fit, ``playtest
compare``) declares its cases only.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from types import ModuleType
from typing import Callable


@dataclass(frozen=True)
class Measure:
    """One design measure: its names, how it is played, answered and shown, and where its known answers are."""

    name: str                      # as ``playtest validate MEASURE`` takes it and its cases name it
    title: str                     # in words: the report's label for its lines ("restricted play")
    doc: str                       # the document that defines it
    command: str | None = None     # the ``playtest`` command that plays it
    sweep: ModuleType | None = None                           # how it is played: the module with its sweep spec
    answer: Callable[[str | Path], dict | None] | None = None  # a results folder's answer; None: not laid out as one
    sentences: Callable[[dict], list[str]] | None = None      # the answer in words, a line each
    section: Callable[[dict, list[str]], str] | None = None   # its section of the report page (None: the report
    #                                                           shows it its own way, or not at all)
    page: Callable[..., str] | None = None                    # a page of its own (``--html``): page(answer, sentences)
    alone: bool = False            # a folder laid out as one is the measure's variants: the report is its page alone
    # read by the report per cell and by ``playtest compare`` per game from a table of any sweep's results
    # (queries.report.PerCell, queries.compare.PerGame), handed to them by measures/answers.py
    per_cell: object | None = None
    per_game: object | None = None
    # the module of its known-answer cases, imported when the cases are asked for (measures.known.cases): the
    # cases import the framework that lists them, so the package cannot import them itself
    cases: str | None = None


def points(x: float) -> str:
    """A share as signed points of win share, one decimal (never "-0.0")."""
    return f"{round(100 * x, 1) + 0.0:+.1f}"
