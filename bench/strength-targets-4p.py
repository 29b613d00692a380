"""The 4-player target alone, at a larger size: the strongest Paws model's score minus
mcts:iterations=256:depth=20's on the same games, each taking every seat of both 4-player line-ups against three
heuristics (cluster.strength.paired), on a held-out seed (bench/strength-targets-4p.json).

Run from the repository root: ``nice -n 5 .venv/bin/python bench/strength-targets-4p.py [SEED] [GAMES_PER_SEAT]
[MODEL]`` (default 47, 150, the strongest shipped model): about 3 minutes at 150 a seat on one core.
"""
import json
import sys
import time
from pathlib import Path

from cluster.strength import paired
from sim.games import GAMES
from sim.kit.learned import indexed_model

seed = int(sys.argv[1]) if len(sys.argv) > 1 else 47
games = int(sys.argv[2]) if len(sys.argv) > 2 else 150
model = sys.argv[3] if len(sys.argv) > 3 else indexed_model(GAMES["paws"].models_dir, "strongest", "paws")
t = time.time()
out = paired("paws", "mcts:iterations=256:depth=20", f"learned:model={model}", seed, games)
out["seconds"] = round(time.time() - t)
Path("bench/strength-targets-4p.json").write_text(json.dumps(out, indent=1) + "\n")
for row in out["rows"]:
    print(row)
