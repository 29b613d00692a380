"""The value heads of the shipped models on held-out seeds, in every configuration of both games and under two
kinds of play (bench/learned-network-calibration.{json,md}; docs/learned-bots.md "Network models").

Run from the repository root: ``nice -n 5 .venv/bin/python bench/learned-network-calibration.py [GAMES]``
(default 1,000 games a configuration). Every configuration of each game (Paws in Peril: v3 and v4, Beginner and
Explorer, 2, 3 and 4 players and Teams; Tales are Real: standard, 2 vs. 2, Survive! and Survive! 2 vs. 2), played
two ways: the heuristic in every seat, and the game's strongest shipped model (a network) in every seat. Each
oracle (the models index's default oracle and the strongest model) rates every turn's start; its raw calibration
(expected calibration error in ten bins and Brier score, against who won) and the one tension and the win_prob
readers use, recalibrated per configuration by cross-fitting (measures/tension/calibration.py), with the
uninformed forecast's Brier score. Held-out seed 2^63 + 45, checked against every model's provenance. A
configuration passes when the recalibrated ECE is under 0.03 and its Brier score beats the uninformed one.
"""
import json
import sys
import time

from cluster.strength import check_unseen, evaluation_seed
from measures.tension.calibration import MAX_ECE
from measures.tension.trace import tension_of_batch
from sim.games import GAMES
from sim.kit.learned import indexed_model

SEED = 45
GAMES_PER = int(sys.argv[1]) if len(sys.argv) > 1 else 1000
# every configuration of each game, as the game declares them (Game.configurations)
CONFIGURATIONS = {game: [(c.label, c.rules, dict(c.setup)) for c in GAMES[game].configurations] for game in ("paws", "tales")}


def one(game: str, label: str, rules, setup: dict, bots: str, oracle: str) -> dict:
    g = GAMES[game]
    m = g.resolve(rules, {}, {**setup, "bots": bots}, tables=("games", "win_prob"),
                  options={"win_prob": {"oracle": oracle}})
    t0 = time.perf_counter()
    a = tension_of_batch(game, m.play_batch(evaluation_seed(SEED), 0, GAMES_PER))
    c = a["calibration"]
    passed = c["ece"] is not None and c["ece"] < MAX_ECE and c["brier"] < c["uninformed_brier"]
    return {"game": game, "config": label, "bots": bots, "oracle": oracle, "seed": evaluation_seed(SEED),
            "seed_given": SEED, "games": GAMES_PER, "won": c["won_games"], "raw_ece": c["raw_ece"],
            "raw_brier": c["raw_brier"], "ece": c["ece"], "brier": c["brier"], "uninformed": c["uninformed_brier"],
            "refused": a["refused"], "passed": bool(passed), "seconds": round(time.perf_counter() - t0, 1)}


def fmt(x) -> str:
    return "-" if x is None else f"{x:.3f}"


def main() -> None:
    rows = []
    for game, configs in CONFIGURATIONS.items():
        g = GAMES[game]
        strongest = indexed_model(g.models_dir, "strongest", game)
        oracles = sorted({indexed_model(g.models_dir, "oracle", game), strongest})
        lineups = ("heuristic", f"learned:model={strongest}")
        check_unseen(game, [f"learned:model={o}" for o in oracles], evaluation_seed(SEED))
        for label, rules, setup in configs:
            for bots in lineups:
                for oracle in oracles:
                    rows.append(one(game, label, rules, setup, bots, oracle))
                    print(json.dumps(rows[-1]), flush=True)
    with open("bench/learned-network-calibration.json", "w") as f:
        json.dump(rows, f, indent=1)
        f.write("\n")
    lines = ["# The value heads' calibration in every configuration (held-out seed 2^63 + 45)", "",
             f"`nice -n 5 .venv/bin/python bench/learned-network-calibration.py {GAMES_PER}`: {GAMES_PER:,} games a "
             "configuration and line-up (every seat the same bot); each oracle's raw chances at every turn's start and "
             "the chances recalibrated per configuration by cross-fitting (what tension and the win_prob readers use). "
             f"Passes: recalibrated ECE under {MAX_ECE} and a Brier score below the uninformed forecast's.", "",
             "| game | configuration | bots | oracle | won games | raw ECE | raw Brier | ECE | Brier | uninformed | passes |",
             "|---|---|---|---|---:|---:|---:|---:|---:|---:|---|"]
    for r in rows:
        lines.append(f"| {r['game']} | {r['config']} | {r['bots']} | {r['oracle']} | {r['won']:,} | {fmt(r['raw_ece'])} | "
                     f"{fmt(r['raw_brier'])} | {fmt(r['ece'])} | {fmt(r['brier'])} | {fmt(r['uninformed'])} | "
                     f"{'yes' if r['passed'] else 'no: ' + (r['refused'] or 'over the bounds')} |")
    passed = sum(r["passed"] for r in rows)
    lines += ["", f"{passed} of {len(rows)} (configuration, bots, oracle) rows pass."]
    with open("bench/learned-network-calibration.md", "w") as f:
        f.write("\n".join(lines) + "\n")


if __name__ == "__main__":
    main()
