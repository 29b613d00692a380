"""Shared helpers of the regress, tune and nightly service tests: a tiny regress suite, a baseline that passes its
checks without a game played (its digests and counts made up), a real one from ``playtest regress
--update-baseline``, a regress result as a finished job leaves it, and a nightly project."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

from service.runner import layout

PROJECT = Path(__file__).resolve().parents[2]
TINY_SUITE = """name = "tiny-nightly"
seeds = [1]
[sweep]
game = "paws"
rules = "v4"
games_per_cell = 60
[sweep.setup]
bots = "heuristic"
[sweep.grid]
players = [2, 3]
"""
TINY_TUNE = """name = "tiny-tune"
game = "paws"
rules = "v4"
seed = 1
batch = 100
max_games_per_candidate = 200
confidence = 0.9
[setup]
bots = "heuristic"
[space]
explorer_mansions_2p = [1, 3]
[hold]
board = ["explorer"]
players = [2]
[objective]
metric = "first_player_share:decided"
target = 0.5
"""


def made_up_baseline(first_wins: int = 30) -> str:
    """A baseline of TINY_SUITE that its checks accept (the cells, seeds and games per cell match; digests and
    counts made up): a run compared with it is a regression."""
    cells = [{"id": f"c00{i}", "values": {"players": p}, "config": "x", "rules": "x", "data": "x",
              "games": {"1": 60}, "records": {"1": "0" * 64},
              "metrics": {"seat_win_rate": {"first player": [first_wins, 60]}}} for i, p in enumerate((2, 3))]
    return json.dumps({"format": "playtest-regress-baseline", "version": 1, "suite": "tiny-nightly", "game": "paws",
                       "code_version": "x", "core_digest": "x", "spec_digest": "x", "seeds": [1],
                       "games_per_cell": 60, "sweep": {}, "cells": cells})


def real_baseline(folder: Path) -> str:
    """TINY_SUITE's baseline written by ``playtest regress --update-baseline`` (about 10 s)."""
    folder.mkdir(parents=True, exist_ok=True)
    (folder / "suite.toml").write_text(TINY_SUITE)
    r = subprocess.run([sys.executable, "-c", "from cli.main import app; app()", "regress", str(folder / "suite.toml"),
                        "--baseline", str(folder / "base.json"), "--update-baseline", "--report",
                        str(folder / "report"), "--quiet"], cwd=PROJECT, capture_output=True, text=True, timeout=300,
                       env={**os.environ, "RAY_ENABLE_WINDOWS_OR_OSX_CLUSTER": "0"})
    assert r.returncode == 0, r.stderr
    return (folder / "base.json").read_text()


def fake_result(app, job: str, *, code: str, first_share: float, flagged: bool = False) -> None:
    """The result.json a finished regress job leaves in its own folder (the first player's share in both cells)."""
    tests = []
    for cell, label in (("c000", "players=2"), ("c001", "players=3")):
        k = round(first_share * 60)
        tests.append({"cell": cell, "label": label, "family": "seat_win_rate", "kind": "rate", "key": "first player",
                      "baseline": [30, 60], "current": [k, 60], "effect": k / 60 - 0.5, "p": 0.5, "min_effect": 0.02,
                      "p_adj": 0.5, "flagged": flagged and cell == "c001", "name": "seat_win_rate first player"})
        tests.append({"cell": cell, "label": label, "family": "game_length", "kind": "ordinal", "key": "",
                      "baseline": {"4": 60}, "current": {"4": 30, "6": 30}, "effect": 1.0, "p": 0.5,
                      "min_effect": 0.5, "p_adj": 0.5, "flagged": False, "name": "game_length"})
    result = {"verdict": "regression" if flagged else "pass", "reasons": [], "suite_changes": [], "unmatched": [],
              "skipped": [], "thresholds": {}, "baseline": {"code_version": "base"},
              "current": {"code_version": code}, "tests": tests,
              "cells": [{"cell": "c000", "label": "players=2", "status": "same", "detail": "identical", "seeds": ["1"]},
                        {"cell": "c001", "label": "players=3", "status": "same", "detail": "identical", "seeds": ["1"]}]}
    own = layout(app.state.root, job)["own"]
    own.mkdir(parents=True, exist_ok=True)
    (own / "result.json").write_text(json.dumps(result))
    (own / "report.html").write_text("<!doctype html><title>r</title><h3 id='cell-c001'>c001</h3>")
