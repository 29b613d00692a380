"""Tales are Real bots. A seat's bot is named by a spec: ``random``, ``heuristic`` or
``heuristic:aggression=3:caution=1`` (weights after colons)."""

from __future__ import annotations

from sim.params import RuleError, parse_assignments, with_overrides
from sim.tales.bots.heuristic import HeuristicBot, HeuristicWeights
from sim.tales.bots.random_bot import RandomBot

BOT_KINDS = ("random", "heuristic")


def parse_bot(spec: str):
    """Build one bot from its spec; unknown kinds or weights are refused with the valid ones."""
    kind, *weights = spec.strip().split(":")
    if kind not in BOT_KINDS:
        raise RuleError(f"bot {spec!r}: unknown bot {kind!r}; valid bots: {', '.join(BOT_KINDS)}")
    if kind == "random":
        if weights:
            raise RuleError(f"bot {spec!r}: the random bot takes no weights")
        return RandomBot()
    w = with_overrides(HeuristicWeights(), parse_assignments(weights, where=f"bot {spec!r}"),
                       where=f"bot {spec!r}", what="weight")
    return HeuristicBot(w)


def make_bots(specs) -> list:
    """One bot per seat."""
    return [parse_bot(s) for s in specs]
