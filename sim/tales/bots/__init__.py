"""Tales are Real bots. A seat's bot is named by a spec: ``random``, ``heuristic`` or
``heuristic:aggression=3:caution=1`` (weights after colons).
The spec parsing and the random bot are shared: ``sim/kit/bots.py``."""

from __future__ import annotations

from sim.kit.bots import BOT_KINDS, BotRoster, RandomBot
from sim.tales.bots.heuristic import HeuristicBot, HeuristicWeights

__all__ = ["BOT_KINDS", "HeuristicBot", "HeuristicWeights", "RandomBot", "ROSTER", "make_bots", "parse_bot"]

ROSTER = BotRoster(HeuristicBot, HeuristicWeights)
parse_bot = ROSTER.parse
make_bots = ROSTER.make
