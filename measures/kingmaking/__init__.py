"""Kingmaking: can a player who can no longer win decide who does? (``playtest kingmaker``; docs/kingmaking.md).

Each game's analysis is played in the engines (sim/kit/kingmaking.py: the ``kingmaking`` table, which the games'
plugins add to their batches); this package holds the sweep that asks for the table and its cost (sweep.py), the
answer read from a folder (answer.py: the options' excess over chance), the report's section (page.py) and the
known answers (cases.py)."""

from __future__ import annotations

from measures.kingmaking import sweep
from measures.kingmaking.answer import kingmaking, sentences
from measures.kingmaking.page import kingmaking_section
from measures.protocol import Measure

__all__ = ["MEASURE", "kingmaking", "sentences"]

MEASURE = Measure("kingmaking", "kingmaking", "docs/kingmaking.md", command="kingmaker", sweep=sweep,
                  answer=kingmaking, sentences=sentences, section=kingmaking_section,
                  cases="measures.kingmaking.cases")
