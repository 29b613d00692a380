"""Tension: is the game tense to the end, or decided early? (``playtest tension``; docs/tension.md).

Played as a sweep that asks for the ``win_prob`` table (sweep.py), read from that table (trace.py, with the
chances' recalibration in calibration.py), answered from its folder (answer.py), drawn as a page of its own
(page.py), read per cell by the report and per game by ``playtest compare`` from any sweep that stores the
table (report.py), checked on known answers (cases.py). The report shows it per cell (no folder section)."""

from __future__ import annotations

from measures.protocol import Measure
from measures.tension import sweep
from measures.tension.answer import answer_of
from measures.tension.page import tension_page
from measures.tension.report import PER_CELL, PER_GAME
from measures.tension.trace import sentences

__all__ = ["MEASURE", "answer_of"]

MEASURE = Measure("tension", "tension", "docs/tension.md", command="tension", sweep=sweep, answer=answer_of,
                  sentences=sentences, page=tension_page, per_cell=PER_CELL, per_game=PER_GAME,
                  cases="measures.tension.cases")
