"""Tales are Real bots. A seat's bot is named by a spec: ``random``, ``heuristic`` or
``heuristic:aggression=3:caution=1`` (weights after colons), ``heuristic:preset=tuned``.
The spec parsing and the random bot are shared: ``sim/kit/bots.py``."""

from __future__ import annotations

from pathlib import Path

from sim.kit.bots import BOT_KINDS, BotRoster, RandomBot, load_weight_presets
from sim.tales.bots.features import FEATURES
from sim.tales.bots.heuristic import HeuristicBot, HeuristicWeights

__all__ = ["BOT_KINDS", "HeuristicBot", "HeuristicWeights", "MODELS_DIR", "WEIGHT_PRESETS_PATH", "RandomBot", "ROSTER", "make_bots", "parse_bot"]

# named weight sets: ``heuristic:preset=NAME`` (presets.toml beside this file; ``default`` is the declared one)
WEIGHT_PRESETS_PATH = Path(__file__).with_name("presets.toml")
# shipped learned models (playtest train-bot tales writes one; learned:model=NAME picks it)
MODELS_DIR = Path(__file__).with_name("models")
ROSTER = BotRoster(HeuristicBot, HeuristicWeights, load_weight_presets(WEIGHT_PRESETS_PATH, HeuristicWeights),
                   FEATURES, MODELS_DIR)
parse_bot = ROSTER.parse
make_bots = ROSTER.make
