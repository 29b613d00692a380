"""A second, larger run of the heads-up Paws target on a seed of its own (docs/learned-bots.md "Against the targets";
bench/strength-targets-heads-up.json): the first run (bench/strength-targets.py, seed 2^63 + 46, 150 deals a board)
left the 2-player Explorer lower bound 0.1 point short of 46%. This run is a new test, fixed before it was played,
not added to the first: 300 deals a board, seats swapped on each deal, on the held-out seed 2^63 + 48.

Run from the repository root: ``nice -n 10 .venv/bin/python bench/strength-targets-heads-up.py [PAWS_MODEL]``
(default: the strongest shipped Paws model). Target, as in the issue: at least 50% of the decided games against
mcts:iterations=256:depth=20, the lower 95% bound at least 46%. Both boards run at once (two processes).
"""
import functools
import importlib.util
import json
import sys
from concurrent.futures import ProcessPoolExecutor
from pathlib import Path

SEED, DEALS = 48, 300


@functools.cache
def _targets():
    """bench/strength-targets.py as a module, loaded once (the workers, forked after, inherit it)."""
    spec = importlib.util.spec_from_file_location("strength_targets", Path(__file__).with_name("strength-targets.py"))
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def one(model: str, board: str) -> dict:
    return _targets().heads_up("paws", model, {"board": board, "players": 2}, SEED, DEALS)


def main() -> None:
    model = sys.argv[1] if len(sys.argv) > 1 else _targets().strongest("paws")
    out: dict = {"paws_model": model, "search": _targets().MCTS, "seed_given": SEED, "deals": DEALS}
    with ProcessPoolExecutor(2) as pool:
        jobs = {board: pool.submit(one, model, board) for board in ("beginner", "explorer")}
        for board, job in jobs.items():
            out[f"heads-up paws {board} 2p"] = job.result()
            print(board, json.dumps(out[f"heads-up paws {board} 2p"]), flush=True)
    Path("bench/strength-targets-heads-up.json").write_text(json.dumps(out, indent=1) + "\n")


if __name__ == "__main__":
    main()
