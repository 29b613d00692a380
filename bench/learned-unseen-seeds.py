"""The shipped learned bots measured on held-out seeds (bench/learned-unseen-seeds.md; docs/learned-bots.md).

Run from the repository root: ``nice -n 5 .venv/bin/python bench/learned-unseen-seeds.py`` (about 6 minutes on one
core of the 2-core development VM, most of it the two search bots); writes bench/learned-unseen-seeds.json.
Every seed is a held-out one (cluster.strength.evaluation_seed: 2^63 + n), checked against the models'
provenance (cluster.strength.check_unseen); "seed_given" is n.
"""
import json
import time

from cluster.strength import check_unseen, edge_summary, evaluation_seed, paired, results, strength
from cluster.train import edges
from measures.strength.cases import _words, called, head_to_head, verdict
from measures.tension.trace import tension_of_batch
from sim.games import GAMES

MCTS = "mcts:iterations=256:depth=20"
out: dict = {}
t = time.time()
# 1. against the heuristic in every other seat, each seat of each skill line-up in turn (4 x 2 seatings of
#    Paws, 500 games a seat; 2 x 2 of Tales, 1,000 games a seat): 4,000 games a seed, held-out seeds 1-4
out["paws-2"] = [strength("paws", "learned:model=paws-2", s, 500) for s in (1, 2, 3, 4)]
out["tales-2"] = [strength("tales", "learned:model=tales-2", s, 1000) for s in (1, 2, 3, 4)]
out["heuristic (paws, itself)"] = strength("paws", "heuristic", 1, 500)
out["heuristic (tales, itself)"] = strength("tales", "heuristic", 1, 1000)
# the same paws-2 measure on seed 1, its first self-play seed (what bench --strength --seed 1 used to play);
# strength() refuses it, so edges() directly
per = edges("paws", "learned:model=paws-2", "heuristic", 1, 500)
out["paws-2 on its training seed 1"] = {"seed": 1, **edge_summary(per), **results(per)}
out["strength seconds"] = round(time.time() - t)
# 2. paired: the search against paws-2 on the same 600 games (75 a seat of each line-up), held-out seed 5
t = time.time()
out["paired paws"] = paired("paws", "learned:model=paws-2", MCTS, 5, 75)
out["paired paws seconds"] = round(time.time() - t)
# 3. heads-up: each learned bot against the search, seats swapped on the same deals, held-out seed 6
for game, model, setup, rules, deals in [("tales", "learned:model=tales-2", {"mode": "standard"}, None, 150),
                                         ("paws", "learned:model=paws-2", {"board": "beginner", "players": 2}, "v4",
                                          100)]:
    seed = evaluation_seed(6)
    check_unseen(game, [model], seed)
    t = time.time()
    w, d = head_to_head(game, model, MCTS, seed, deals, setup=setup, rules=rules)
    r, e = verdict(w, d)
    out[f"heads-up {game}"] = {"a": model, "b": MCTS, "seed": seed, "deals": deals, "games": 2 * deals,
                               "decided": int(d.sum()), "a_wins": int(w.sum()), "share_of_decided": r,
                               "verdict": called(e), "ci95": [float(e.low) + 0.5, float(e.high) + 0.5],
                               "words": _words(model, MCTS, r, e, int(d.sum()), deals),
                               "seconds": round(time.time() - t)}
# 4. the value heads' calibration on held-out seeds 1 and 2: the oracle's own (raw) and recalibrated per
#    configuration by tension's cross-fit (measures/tension/trace.py), heuristic in every seat, 2,000 games
out["calibration"] = []
for game, label, rules, setup in [("paws", "Paws v4 Beginner 4p", "v4", {"board": "beginner", "players": 4}),
                                  ("paws", "Paws v4 Explorer 4p", "v4", {"board": "explorer", "players": 4}),
                                  ("paws", "Paws v4 Beginner 2p", "v4", {"board": "beginner", "players": 2}),
                                  ("paws", "Paws v4 Explorer 2p", "v4", {"board": "explorer", "players": 2}),
                                  ("paws", "Paws v4 Beginner Teams", "v4", {"board": "beginner", "mode": "teams"}),
                                  ("tales", "Tales standard (1v1)", None, {"mode": "standard"}),
                                  ("tales", "Tales 2v2", None, {"mode": "2v2"})]:
    oracle = {"paws": "paws-2", "tales": "tales-2"}[game]
    for s in (1, 2):
        check_unseen(game, [f"learned:model={oracle}"], evaluation_seed(s))
        m = GAMES[game].resolve(rules, {}, {**setup, "bots": "heuristic"}, tables=("games", "win_prob"),
                                options={"win_prob": {"oracle": oracle}})
        a = tension_of_batch(game, m.play_batch(evaluation_seed(s), 0, 2000))
        c = a["calibration"]
        out["calibration"].append({"config": label, "oracle": oracle, "seed": evaluation_seed(s), "seed_given": s,
                                   "won": c["won_games"], "ece": c["ece"], "raw_ece": c["raw_ece"],
                                   "brier": c["brier"], "raw_brier": c["raw_brier"],
                                   "uninformed": c["uninformed_brier"], "refused": a["refused"]})
with open("bench/learned-unseen-seeds.json", "w") as f:
    json.dump(out, f, indent=1)
    f.write("\n")
