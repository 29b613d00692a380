"""Bot specs shared by every game: ``random``, ``heuristic`` or ``heuristic:aggression=3:caution=1``
(a heuristic bot's weights after colons), the random bot, and each game's roster of bot classes."""

from __future__ import annotations

from dataclasses import dataclass

from sim.params import RuleError, parse_assignments, with_overrides

BOT_KINDS = ("random", "heuristic")


class RandomBot:
    """The random legal bot: every decision uniform over its options, drawn from the game's own stream."""

    name = "random"

    def decide(self, g, seat: int, kind, options: list) -> int:
        return g.rng.below(len(options))


def best(scores: list[int]) -> int:
    """Index of the highest score, the first one on ties (how every heuristic bot picks)."""
    return scores.index(max(scores))


@dataclass(frozen=True)
class BotRoster:
    """A game's bots: the shared :class:`RandomBot`, and its heuristic bot with the frozen weights it takes."""

    heuristic: type
    weights: type

    def parse(self, spec: str):
        """The bot a spec names; an unknown kind or weight is refused with the valid ones."""
        kind, *assigned = spec.strip().split(":")
        if kind not in BOT_KINDS:
            raise RuleError(f"bot {spec!r}: unknown bot {kind!r}; valid bots: {', '.join(BOT_KINDS)}")
        if kind == "random":
            if assigned:
                raise RuleError(f"bot {spec!r}: the random bot takes no weights")
            return RandomBot()
        w = with_overrides(self.weights(), parse_assignments(assigned, where=f"bot {spec!r}"),
                           where=f"bot {spec!r}", what="weight")
        return self.heuristic(w)

    def make(self, specs) -> list:
        """One bot per seat."""
        return [self.parse(s) for s in specs]
