"""Bot specs shared by every game: ``random``, ``heuristic`` or ``heuristic:aggression=3:caution=1``
(a heuristic bot's weights after colons), ``heuristic:preset=tuned`` (a named weight set of the game,
then any weights after it), the random bot, and each game's roster of bot classes."""

from __future__ import annotations

import tomllib
from dataclasses import dataclass, field
from pathlib import Path
from typing import Mapping

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


def load_weight_presets(path: Path, weights: type) -> dict[str, object]:
    """A game's named heuristic weight sets: ``default`` (the declared defaults) and one per table of the
    TOML file at ``path`` (if there is one), each checked against the weights' ranges."""
    presets: dict[str, object] = {"default": weights()}
    if path.exists():
        with open(path, "rb") as f:
            tables = tomllib.load(f)
        for name, values in tables.items():
            if name == "default" or not isinstance(values, dict):
                raise RuleError(f"{path}: [{name}] must be a table of weights and not named 'default'")
            presets[name] = with_overrides(weights(), {k: v for k, v in values.items() if k != "about"},
                                           where=f"{path} [{name}]", what="weight")
    return presets


@dataclass(frozen=True)
class BotRoster:
    """A game's bots: the shared :class:`RandomBot`, and its heuristic bot with the frozen weights it takes
    (``presets``: named weight sets, ``default`` first)."""

    heuristic: type
    weights: type
    presets: Mapping[str, object] = field(default_factory=dict)

    def parse(self, spec: str):
        """The bot a spec names; an unknown kind or weight is refused with the valid ones."""
        kind, *assigned = spec.strip().split(":")
        if kind not in BOT_KINDS:
            raise RuleError(f"bot {spec!r}: unknown bot {kind!r}; valid bots: {', '.join(BOT_KINDS)}")
        if kind == "random":
            if assigned:
                raise RuleError(f"bot {spec!r}: the random bot takes no weights")
            return RandomBot()
        values = parse_assignments(assigned, where=f"bot {spec!r}")
        start = self.weights()
        if "preset" in values:
            name = values.pop("preset")
            presets = self.presets or {"default": start}
            if name not in presets:
                raise RuleError(f"bot {spec!r}: unknown weight preset {name!r}; valid presets: {', '.join(presets)}")
            start = presets[name]
        w = with_overrides(start, values, where=f"bot {spec!r}", what="weight")
        return self.heuristic(w)

    def make(self, specs) -> list:
        """One bot per seat."""
        return [self.parse(s) for s in specs]
