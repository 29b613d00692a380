"""The first player's edge (queries/first_player_advantage.sql, queries/first_player.py): the report's own
answer; this package holds its known answers (cases.py)."""

from __future__ import annotations

from measures.protocol import Measure

MEASURE = Measure("first-player", "the first player's edge", "docs/report.md", cases="measures.first_player.cases")
