"""A model with a decisions block against the same model without it, on held-out seeds, paired
(docs/learned-bots.md "Which decisions"; the way bench/learned-network-strength.py measures a model against the one
before it).

Run from the repository root: ``nice -n 10 .venv/bin/python bench/learned-decisions-strength.py MODEL START
[GAMES_PER_SEAT] [SEED]`` (MODEL the model with the block, START the model it was trained from: shipped names or
model files). Writes bench/learned-decisions-strength.json:
  1. MODEL minus START on the same games, each taking every seat of both 4-player skill line-ups against three
     heuristics, GAMES_PER_SEAT (default 1,000) games a seat, on the held-out seed 2^63 + SEED (default 51;
     cluster.strength.paired, which refuses a seed either model's training played: check_unseen);
  2. the same for START with the heuristic-equivalent block minus START: exactly 0 on every game (the block
     alone changes nothing), the check that the difference in 1 is the trained weights';
  3. the share of each kind of decision MODEL's seat makes unlike the heuristic, on 200 games of v4 Beginner 4p
     (seat 0) of the same seed.
"""
import dataclasses
import json
import sys
import tempfile
import time
from pathlib import Path

from cluster.strength import evaluation_seed, paired
from sim import games as registry
from sim.kit.learned import resolve_model

model, start = sys.argv[1], sys.argv[2]
games = int(sys.argv[3]) if len(sys.argv) > 3 else 1000
seed = int(sys.argv[4]) if len(sys.argv) > 4 else 51
paws = registry.get("paws")
out: dict = {"model": model, "start": start}
t = time.time()
out["model minus start"] = paired("paws", f"learned:model={start}", f"learned:model={model}", seed, games)
out["model minus start seconds"] = round(time.time() - t)

base = resolve_model(paws.models_dir, paws.features, start, start)
same = dataclasses.replace(base, name="start-heuristic-block", decisions=paws.features.heuristic_decisions(),
                           decision_features=paws.features.decisions_id)
with tempfile.TemporaryDirectory() as tmp:
    path = Path(tmp) / "start-heuristic-block.json"
    path.write_text(same.to_json())
    out["heuristic block minus start"] = paired("paws", f"learned:model={start}", f"learned:model={path}", seed,
                                                min(games, 250))

    from core.paws_scenario import decision_probe
    from sim.paws.core_engine import core_inputs
    from sim.paws.kinds import Decision
    m = paws.resolve(None, {}, {"bots": f"learned:model={model},heuristic,heuristic,heuristic"}, {})
    inputs = core_inputs(m.setup, m.rules, m.data)
    counts: dict[str, list[int]] = {}
    for index in range(200):
        for e in decision_probe(inputs, evaluation_seed(seed), index)[0]:
            if e["seat"] == 0:
                c = counts.setdefault(Decision(e["kind"]).name.lower(), [0, 0])
                c[0] += 1
                c[1] += e["choice"] != e["pick"]
    out["decisions unlike the heuristic (seat 0, 200 games of v4 Beginner 4p, the same seed)"] = {
        k: {"decisions": n, "unlike": d, "share": round(d / n, 4)} for k, (n, d) in counts.items()}
Path("bench/learned-decisions-strength.json").write_text(json.dumps(out, indent=1) + "\n")
for key in ("model minus start", "heuristic block minus start"):
    for row in out[key]["rows"]:
        print(key, row)
print(out["decisions unlike the heuristic (seat 0, 200 games of v4 Beginner 4p, the same seed)"])
