"""Bot strength heads-up (cluster/strength.py, ``playtest train-bot``'s comparison): its answer is the training's
own; this package holds its known answers (cases.py)."""

from __future__ import annotations

from measures.protocol import Measure

MEASURE = Measure("strength", "bot strength", "docs/learned-bots.md", cases="measures.strength.cases")
