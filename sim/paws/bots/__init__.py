"""Paws in Peril bots. A seat's bot is named by a spec: ``random``, ``heuristic`` or
``heuristic:aggression=3:heal_threshold=4`` (weights after colons; parsing in ``sim/bots.py``)."""

from __future__ import annotations

from sim.bots import BOT_KINDS, bot_parser
from sim.paws.bots.heuristic import HeuristicBot, HeuristicWeights
from sim.paws.bots.random_bot import RandomBot

__all__ = ["BOT_KINDS", "HeuristicBot", "HeuristicWeights", "RandomBot", "make_bots", "parse_bot"]

parse_bot = bot_parser(RandomBot, HeuristicBot, HeuristicWeights)


def make_bots(specs) -> list:
    """One bot per seat."""
    return [parse_bot(s) for s in specs]
