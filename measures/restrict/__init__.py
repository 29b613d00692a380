"""Restricted play: what each kind of option is worth to a bot (``playtest restrict``; docs/restricted-play.md).

Played as a sweep (sweep.py: a base cell a line-up and one cell per option and seat), answered from its folder
(answer.py), shown as a page or the report's section (page.py), checked on known answers (cases.py)."""

from __future__ import annotations

from measures.protocol import Measure
from measures.restrict import sweep
from measures.restrict.answer import restricted_play, verdict
from measures.restrict.page import restrict_page, restrict_section

__all__ = ["MEASURE", "restricted_play", "verdict"]

MEASURE = Measure("restrict", "restricted play", "docs/restricted-play.md", command="restrict", sweep=sweep,
                  answer=restricted_play, sentences=sweep.sentences, section=restrict_section, page=restrict_page,
                  alone=True, cases="measures.restrict.cases")
