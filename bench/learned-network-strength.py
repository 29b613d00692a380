"""Network models measured on held-out seeds against the shipped linear models and the search
(bench/learned-network-strength.md; docs/learned-bots.md "Network models").

Run from the repository root: ``nice -n 5 .venv/bin/python bench/learned-network-strength.py MODEL [GAMES_PER_SEAT]
[TALES_MODEL]`` (MODEL a Paws model, TALES_MODEL a Tales model: shipped names or model files). Writes bench/learned-network-strength.json. Every seed is a held-out one
(cluster.strength.evaluation_seed: 2^63 + n, checked against the models' provenance by check_unseen):
  1. MODEL against paws-2 on the same games (paired), each taking every seat of both 4-player skill line-ups
     against three heuristics: held-out seed 41, GAMES_PER_SEAT (default 500) games a seat;
  2. MODEL against mcts:iterations=256:depth=20 on the same games the same way: held-out seed 42, 75 a seat;
  3. speed: every seat the same bot, 4-player Beginner, on one core (playtest bench --bots), heuristic,
     paws-2 and MODEL in the same run;
  4. TALES_MODEL against tales-2, paired, each seat of both line-ups against the heuristic, seed 41, 1,000 a seat;
     each of them heads-up against the search, seats swapped on the same 150 standard deals, seed 42.
"""
import json
import subprocess
import sys
import time
from pathlib import Path

from cluster.strength import evaluation_seed, paired
from measures.strength.cases import called, head_to_head, verdict

MCTS = "mcts:iterations=256:depth=20"
model = sys.argv[1]
games = int(sys.argv[2]) if len(sys.argv) > 2 else 500
spec = f"learned:model={model}"
out: dict = {"model": model}
t = time.time()
out["vs paws-2"] = paired("paws", "learned:model=paws-2", spec, 41, games)
out["vs paws-2 seconds"] = round(time.time() - t)
t = time.time()
out["vs mcts-256"] = paired("paws", spec, MCTS, 42, 75)
out["vs mcts-256 seconds"] = round(time.time() - t)
speed = Path("bench/learned-network-speed.json")
subprocess.run([sys.executable, "-c", "from cli.main import main; main()", "bench", "--game", "paws", "--bots", "heuristic", "--bots",
                "learned:model=paws-2", "--bots", spec, "--bot-games", "5000", "--no-profile", "--out", str(speed)],
               check=True)
out["speed"] = json.loads(speed.read_text())
tales = sys.argv[3] if len(sys.argv) > 3 else None
if tales:
    out["tales vs tales-2"] = paired("tales", "learned:model=tales-2", f"learned:model={tales}", 41, 1000)
    for who in ("tales-2", tales):
        w, d = head_to_head("tales", f"learned:model={who}", MCTS, evaluation_seed(42), 150, setup={"mode": "standard"})
        r, e = verdict(w, d)
        out[f"tales heads-up {who} vs mcts-256"] = {"deals": 150, "decided": int(d.sum()), "wins": int(w.sum()),
                                                   "share_of_decided": r, "verdict": called(e),
                                                   "ci95": [float(e.low) + 0.5, float(e.high) + 0.5]}
Path("bench/learned-network-strength.json").write_text(json.dumps(out, indent=1) + "\n")
for key in ("vs paws-2", "vs mcts-256", "tales vs tales-2"):
    for row in out.get(key, {"rows": []})["rows"]:
        print(key, row)
for key in out:
    if "heads-up" in key:
        print(key, out[key])
