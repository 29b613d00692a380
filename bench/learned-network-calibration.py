"""The value heads of paws-2 and paws-3 on held-out seeds, in every Paws configuration (bench/learned-network-
calibration.json; docs/learned-bots.md "Network models").

Run from the repository root: ``nice -n 5 .venv/bin/python bench/learned-network-calibration.py``. The heuristic in
every seat, 2,000 games a configuration on held-out seed 2^63 + 44 (checked against both models' provenance);
each oracle's raw calibration (expected calibration error and Brier score of its chances at every turn's
start, against who won) and the one tension uses, recalibrated per configuration by its cross-fit
(measures/tension/trace.py), with the uninformed forecast's Brier score.
"""
import json

from cluster.strength import check_unseen, evaluation_seed
from measures.tension.trace import tension_of_batch
from sim.games import GAMES

SEED = 44
CONFIGS = [("v4 Beginner 4p", "v4", {"board": "beginner", "players": 4}),
           ("v4 Explorer 4p", "v4", {"board": "explorer", "players": 4}),
           ("v4 Beginner 3p", "v4", {"board": "beginner", "players": 3}),
           ("v4 Beginner 2p", "v4", {"board": "beginner", "players": 2}),
           ("v4 Explorer 2p", "v4", {"board": "explorer", "players": 2}),
           ("v4 Beginner Teams", "v4", {"board": "beginner", "mode": "teams"}),
           ("v3 Beginner 4p", "v3", {"board": "beginner", "players": 4})]
rows = []
for oracle in ("paws-2", "paws-3"):
    check_unseen("paws", [f"learned:model={oracle}"], evaluation_seed(SEED))
    for label, rules, setup in CONFIGS:
        m = GAMES["paws"].resolve(rules, {}, {**setup, "bots": "heuristic"}, tables=("games", "win_prob"),
                                  options={"win_prob": {"oracle": oracle}})
        a = tension_of_batch("paws", m.play_batch(evaluation_seed(SEED), 0, 2000))
        c = a["calibration"]
        rows.append({"config": label, "oracle": oracle, "seed": evaluation_seed(SEED), "seed_given": SEED,
                     "won": c["won_games"], "raw_ece": c["raw_ece"], "raw_brier": c["raw_brier"], "ece": c["ece"],
                     "brier": c["brier"], "uninformed": c["uninformed_brier"], "refused": a["refused"]})
        print(rows[-1], flush=True)
with open("bench/learned-network-calibration.json", "w") as f:
    json.dump(rows, f, indent=1)
    f.write("\n")
