"""The strongest shipped models against the strength and speed targets set for a fast bot (docs/learned-bots.md
"Against the targets"; bench/strength-targets.{json,md}).

Run from the repository root: ``nice -n 5 .venv/bin/python bench/strength-targets.py [PAWS_MODEL] [TALES_MODEL]``
(default: each game's strongest shipped model, sim/<game>/bots/models/index.toml). Every seed is held out
(cluster.strength.evaluation_seed: 2^63 + n, checked against the models' provenance by check_unseen):

1. 4-player Paws, Beginner and Explorer: the model's score minus mcts:iterations=256:depth=20's on the same games,
   each taking every seat against three heuristics, 75 games a seat (held-out seed 42, cluster.strength.paired).
   Target: the lower 95% bound at least -2 points.
2. Heads-up against mcts:iterations=256:depth=20 directly, seats swapped on the same deals: Paws 2-player
   Beginner and Explorer (seed 46, 150 deals each) and Tales 1v1 standard (seed 42, 150 deals). Target: at least
   50% of the decided games, the lower 95% bound at least 46%.
3. Speed on one core, every seat the same bot, start-up included (playtest bench --bots): 4-player Paws Beginner
   and Tales 1v1, the heuristic in the same run. Target: 5,000 and 10,000 games/s.

The three parts run in separate processes (two at a time); the speed part runs last, alone.
"""
import json
import subprocess
import sys
import time
from concurrent.futures import ProcessPoolExecutor
from pathlib import Path

MCTS = "mcts:iterations=256:depth=20"


def strongest(game: str) -> str:
    from sim.games import GAMES
    from sim.kit.learned import indexed_model
    return indexed_model(GAMES[game].models_dir, "strongest", game)


def four_players(model: str) -> dict:
    from cluster.strength import paired
    t = time.time()
    out = paired("paws", MCTS, f"learned:model={model}", 42, 75)
    out["seconds"] = round(time.time() - t)
    return out


def heads_up(game: str, model: str, setup: dict, seed: int, deals: int) -> dict:
    from cluster.strength import check_unseen, evaluation_seed
    from measures.strength.cases import called, head_to_head, verdict
    t = time.time()
    spec = f"learned:model={model}"
    check_unseen(game, [spec, MCTS], evaluation_seed(seed))
    w, d = head_to_head(game, spec, MCTS, evaluation_seed(seed), deals, setup=setup)
    r, e = verdict(w, d)
    low, high = float(e.low) + 0.5, float(e.high) + 0.5
    return {"game": game, "model": model, "setup": setup, "seed": evaluation_seed(seed), "seed_given": seed,
            "deals": deals, "decided": int(d.sum()), "wins": int(w.sum()), "share_of_decided": r,
            "ci95": [low, high], "verdict": called(e), "target_met": bool(r >= 0.5 and low >= 0.46),
            "seconds": round(time.time() - t)}


def speed(game: str, model: str, label: str) -> dict:
    path = Path(f"bench/strength-targets-speed-{game}.json")
    subprocess.run([sys.executable, "-c", "from cli.main import main; main()", "bench", "--game", game, "--bots",
                    "heuristic", "--bots", f"learned:model={model}", "--bot-games", "5000", "--no-profile",
                    "--out", str(path)], check=True, capture_output=True)
    return {"game": game, "configuration": label, **json.loads(path.read_text())}


def main() -> None:
    paws = sys.argv[1] if len(sys.argv) > 1 else strongest("paws")
    tales = sys.argv[2] if len(sys.argv) > 2 else strongest("tales")
    out: dict = {"paws_model": paws, "tales_model": tales, "search": MCTS}
    with ProcessPoolExecutor(2) as pool:
        jobs = {"4-player": pool.submit(four_players, paws),
                "heads-up paws beginner 2p": pool.submit(heads_up, "paws", paws, {"board": "beginner", "players": 2},
                                                         46, 150),
                "heads-up paws explorer 2p": pool.submit(heads_up, "paws", paws, {"board": "explorer", "players": 2},
                                                         46, 150),
                "heads-up tales 1v1": pool.submit(heads_up, "tales", tales, {"mode": "standard"}, 42, 150)}
        for key, job in jobs.items():
            out[key] = job.result()
            print(key, json.dumps(out[key])[:400], flush=True)
    out["speed paws"] = speed("paws", paws, "v4 beginner 4p")
    out["speed tales"] = speed("tales", tales, "tales standard (1v1)")
    Path("bench/strength-targets.json").write_text(json.dumps(out, indent=1) + "\n")
    Path("bench/strength-targets.md").write_text(report(out))


def report(out: dict) -> str:
    lines = [f"# Against the targets: {out['paws_model']} and {out['tales_model']} (held-out seeds)", "",
             "`nice -n 5 .venv/bin/python bench/strength-targets.py` (bench/strength-targets.json). Bots, not people.", "",
             "## 4-player Paws: the model's score minus mcts-256's, paired, each against three heuristics in every seat",
             "", "| line-up | games | model's edge | mcts-256's edge | model minus mcts-256 [95%] | target (lower bound >= -2) |",
             "|---|---:|---:|---:|---|---|"]
    for r in out["4-player"]["rows"]:
        low = 100 * r["ci95"][0]
        met = "met" if low >= -2 else f"missed by {-2 - low:.1f} points"
        lines.append(f"| {r['line_up']} | {r['games']:,} | {100 * r['b_edge']:+.1f} | {100 * r['a_edge']:+.1f} | "
                     f"{100 * r['b_minus_a']:+.1f} [{100 * r['ci95'][0]:+.1f}, {100 * r['ci95'][1]:+.1f}] | "
                     f"{met} |")
    lines += ["", f"Seed {out['4-player']['seed']} (given {out['4-player']['seed_given']}).", "",
              "## Heads-up against mcts-256, seats swapped on the same deals", "",
              "| game, configuration | deals | decided | model's share of decided [95%] | target (>= 50%, lower >= 46%) |",
              "|---|---:|---:|---|---|"]
    for key in ("heads-up paws beginner 2p", "heads-up paws explorer 2p", "heads-up tales 1v1"):
        r = out[key]
        met = "met" if r["target_met"] else f"missed: lower bound {100 * r['ci95'][0]:.1f}%"
        lines.append(f"| {key[8:]} ({r['model']}, seed {r['seed']}) | {r['deals']} | {r['decided']} | "
                     f"{100 * r['share_of_decided']:.1f}% [{100 * r['ci95'][0]:.1f}, {100 * r['ci95'][1]:.1f}] | {met} |")
    lines += ["", "## Speed, one core, every seat the same bot, start-up included", "",
              "| game, configuration | bots | games/s | decisions/s | target |", "|---|---|---:|---:|---|"]
    for key, target in (("speed paws", 5000), ("speed tales", 10000)):
        s = out[key]
        for row in s["bot_levels"]:
            gps = row["games_per_s"]
            mark = "" if row["bots"] == "heuristic" else ("met" if gps >= target else f"{target:,}: missed")
            lines.append(f"| {s['configuration']} | {row['bots']} | {gps:,.0f} | {row['decisions_per_s']:,.0f} | {mark} |")
    return "\n".join(lines) + "\n"


if __name__ == "__main__":
    main()
