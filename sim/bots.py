"""Bot specs, shared by every game: ``random``, ``heuristic`` or ``heuristic:aggression=3:caution=1``
(a heuristic bot's weights after colons). Each game names its own bot classes (``sim/<game>/bots``)."""

from __future__ import annotations

from typing import Any, Callable

from sim.params import RuleError, parse_assignments, with_overrides

BOT_KINDS = ("random", "heuristic")


def bot_parser(random_bot: type, heuristic_bot: type, weights: type) -> Callable[[str], object]:
    """A game's ``parse_bot(spec)``: unknown kinds or weights are refused with the valid ones."""

    def parse_bot(spec: str):
        kind, *assigned = spec.strip().split(":")
        if kind not in BOT_KINDS:
            raise RuleError(f"bot {spec!r}: unknown bot {kind!r}; valid bots: {', '.join(BOT_KINDS)}")
        if kind == "random":
            if assigned:
                raise RuleError(f"bot {spec!r}: the random bot takes no weights")
            return random_bot()
        w = with_overrides(weights(), parse_assignments(assigned, where=f"bot {spec!r}"),
                           where=f"bot {spec!r}", what="weight")
        return heuristic_bot(w)

    return parse_bot


def bot_specs(bots: Any, seats: int) -> tuple[str, ...]:
    """Bots as one spec per seat: a comma-separated string or a list; a single spec fills every seat."""
    if bots is None:
        bots = "heuristic"
    specs = [s.strip() for s in bots.split(",")] if isinstance(bots, str) else [str(s).strip() for s in bots]
    if len(specs) == 1:
        specs = specs * seats
    return tuple(specs)
