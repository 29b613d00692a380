"""The random legal bot: every decision uniform over its options, drawn from the game's own stream."""

from __future__ import annotations


class RandomBot:
    name = "random"

    def decide(self, g, seat: int, kind, options: list) -> int:
        return g.rng.below(len(options))
