"""Whether one rating per bot describes a ladder's games (queries/ratings.py, ``playtest ladder``): the ladder's
own answer; this package holds its known answers (cases.py)."""

from __future__ import annotations

from measures.protocol import Measure

MEASURE = Measure("ladder-fit", "the ladder's fit", "docs/ladder.md", cases="measures.ladder_fit.cases")
