"""Tension: is the game tense to the end, or decided early? (``playtest tension``; docs/tension.md).

Played as a sweep that asks for the ``win_prob`` table (sweep.py), answered from its folder (answer.py), drawn as a
page of its own (page.py), checked on known answers (cases.py). The per-cell reading of the table is
queries/tension.py's, since the report and ``playtest compare`` read it per cell too: so the report shows tension
its own way (no section here)."""

from __future__ import annotations

from measures.protocol import Measure
from measures.tension import sweep
from measures.tension.answer import answer_of
from measures.tension.page import tension_page
from queries.tension import sentences

__all__ = ["MEASURE", "answer_of"]

MEASURE = Measure("tension", "tension", "docs/tension.md", command="tension", sweep=sweep, answer=answer_of,
                  sentences=sentences, page=tension_page, cases="measures.tension.cases")
