"""Bot specs per seat, shared by every game; the spec parser, the random bot and each game's roster live in
:mod:`sim.kit.bots`."""

from __future__ import annotations

from typing import Any

from sim.kit.bots import BOT_KINDS

__all__ = ["BOT_KINDS", "bot_specs"]


def bot_specs(bots: Any, seats: int) -> tuple[str, ...]:
    """Bots as one spec per seat: a comma-separated string or a list; a single spec fills every seat."""
    if bots is None:
        bots = "heuristic"
    specs = [s.strip() for s in bots.split(",")] if isinstance(bots, str) else [str(s).strip() for s in bots]
    if len(specs) == 1:
        specs = specs * seats
    return tuple(specs)
