"""The skill verdicts (queries/variants.py ``judge``: holds under stronger play, moves with skill): the report's
and ``playtest sweep --skill``'s own answer; this package holds their known answers (cases.py)."""

from __future__ import annotations

from measures.protocol import Measure

MEASURE = Measure("skill", "whether the answer holds under stronger play", "docs/skill.md",
                  cases="measures.skill.cases")
