"""A model with a decisions block against the same model without it, on held-out seeds, paired
(docs/learned-bots.md "Which decisions" and "Tales decisions block"; the way bench/learned-network-strength.py
measures a model against the one before it).

Run from the repository root: ``nice -n 10 .venv/bin/python bench/learned-decisions-strength.py MODEL START
[GAMES_PER_SEAT] [SEED] [GAME]`` (MODEL the model with the block, START the model it was trained from: shipped names
or model files; GAME paws, the default, or tales). Writes bench/learned-decisions-strength.json (Paws) or
bench/learned-decisions-strength-tales.json:
  1. MODEL minus START on the same games, each taking every seat of the game's skill line-ups (Paws: both
     4-player boards against three heuristics; Tales: standard and survive against the heuristic), GAMES_PER_SEAT
     (default 1,000) games a seat, on the held-out seed 2^63 + SEED (default 51; cluster.strength.paired, which
     refuses a seed either model's training played: check_unseen);
  2. the same for START with the heuristic-equivalent block minus START: exactly 0 on every game (the block
     alone changes nothing), the check that the difference in 1 is the trained weights';
  3. the share of each kind of decision MODEL's seat makes unlike the heuristic, seat 0 of each skill line-up on
     200 games (Paws; Tales 300) of the same seed.
"""
import dataclasses
import importlib
import json
import sys
import time
from pathlib import Path

from cluster.strength import evaluation_seed, paired
from sim import games as registry
from sim.kit.learned import model_files, resolve_model

model, start = sys.argv[1], sys.argv[2]
games = int(sys.argv[3]) if len(sys.argv) > 3 else 1000
seed = int(sys.argv[4]) if len(sys.argv) > 4 else 51
game_name = sys.argv[5] if len(sys.argv) > 5 else "paws"
game = registry.get(game_name)
probe_games = {"paws": 200, "tales": 300}[game_name]
out: dict = {"game": game_name, "model": model, "start": start}
t = time.time()
out["model minus start"] = paired(game_name, f"learned:model={start}", f"learned:model={model}", seed, games)
out["model minus start seconds"] = round(time.time() - t)

base = resolve_model(game.models_dir, game.features, start, start)
same = dataclasses.replace(base, name="start-heuristic-block", decisions=game.features.heuristic_decisions(),
                           decision_features=game.features.decisions_id)
with model_files(same=same.to_json()) as files:
    out["heuristic block minus start"] = paired(game_name, f"learned:model={start}", f"learned:model={files['same']}",
                                                seed, min(games, 250))

decision_probe = importlib.import_module(f"core.{game_name}_scenario").decision_probe
core_inputs = importlib.import_module(f"sim.{game_name}.core_engine").core_inputs
Decision = importlib.import_module(f"sim.{game_name}.kinds").Decision
counts: dict[str, dict[str, list[int]]] = {}
for lu in game.skill_setups:
    others = ",".join(["heuristic"] * (lu.setup.get("players", 4 if game_name == "paws" else 2) - 1))
    m = game.resolve(lu.rules, lu.overrides, {**lu.setup, "bots": f"learned:model={model},{others}"}, {})
    inputs = core_inputs(m.setup, m.rules, m.data)
    mine = counts.setdefault(lu.label, {})
    for index in range(probe_games):
        for e in decision_probe(inputs, evaluation_seed(seed), index)[0]:
            if e["seat"] == 0:
                c = mine.setdefault(Decision(e["kind"]).name.lower(), [0, 0])
                c[0] += 1
                c[1] += e["choice"] != e["pick"]
key = f"decisions unlike the heuristic (seat 0, {probe_games} games of each skill line-up, the same seed)"
out[key] = {label: {k: {"decisions": n, "unlike": d, "share": round(d / n, 4)} for k, (n, d) in kinds.items()}
            for label, kinds in counts.items()}
name = "learned-decisions-strength.json" if game_name == "paws" else f"learned-decisions-strength-{game_name}.json"
Path("bench", name).write_text(json.dumps(out, indent=1) + "\n")
for k in ("model minus start", "heuristic block minus start"):
    for row in out[k]["rows"]:
        print(k, row)
print(out[key])
