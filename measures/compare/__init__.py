"""``playtest compare`` (queries/compare.py): B differs, the same within the margin, or not enough games to say;
the command's own answer; this package holds its known answers (cases.py)."""

from __future__ import annotations

from measures.protocol import Measure

MEASURE = Measure("compare", "compare", "docs/compare.md", cases="measures.compare.cases")
