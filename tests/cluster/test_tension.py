"""Tension (cluster/tension.py, ``playtest tension``; docs/tension.md).

Held here: each game measure on curves worked by hand; the progress rows; a replayed game's curve has one
row per top-level decision, each a distribution over the sides (teams: the sum of their seats'), and ends
with the winner the engine records for that game; the command end to end (answer, trace file, page in
headless Chromium); bad input in one line, exit 2.
"""

from __future__ import annotations

import json
import re

import numpy as np
import pyarrow.parquet as pq
import pytest
from typer.testing import CliRunner

from cli.main import app
from cluster import tension as tn
from sim.games import GAMES
from sim.kit.learned import model_path, read_model

runner = CliRunner()


def test_game_measures_on_curves_worked_by_hand():
    curve = np.array([[0.5, 0.5], [0.7, 0.3], [0.2, 0.8], [0.4, 0.6], [0.95, 0.05], [0.97, 0.03]])
    m = tn.game_measures(curve, 0, 2)
    # the winner (side 0) fell to 0.2 (under half its fair share, 0.25); the leader went 0 (tie: argmax 0), 0,
    # 1, 1, 0, 0: two changes; above 0.9 from decision 4 of 6 to the end
    assert m == {"lowest": 0.2, "comeback": True, "leader_changes": 2, "decisive": 4 / 6, "decided_early": False,
                 "leads_from": 4 / 6}
    early = np.array([[0.5, 0.5], [0.95, 0.05], [0.96, 0.04], [0.97, 0.03], [0.99, 0.01]])
    assert tn.game_measures(early, 0, 2) == {"lowest": 0.5, "comeback": False, "leader_changes": 0,
                                             "decisive": 0.2, "decided_early": True, "leads_from": 0.0}
    never = np.array([[0.3, 0.3, 0.4], [0.5, 0.2, 0.3]])
    assert tn.game_measures(never, 0, 3)["decisive"] == 1.0 and tn.game_measures(never, 0, 3)["leads_from"] == 0.5
    assert tn.game_measures(never, -1, 3) is None and tn.game_measures(np.zeros((0, 2)), 0, 2) is None


def test_progress_rows_take_the_chance_before_each_point_of_the_game():
    curve = np.array([[0.1, 0.5, 0.4], [0.2, 0.4, 0.4], [0.6, 0.2, 0.2], [0.9, 0.05, 0.05]])
    w, o = tn.progress_rows(curve, 0, steps=4)
    assert w.tolist() == [0.1, 0.2, 0.6, 0.9, 0.9] and o.tolist() == [0.45, 0.4, 0.2, 0.05, 0.05]


@pytest.mark.parametrize("game, setup", [("paws", {"players": 4, "bots": ["heuristic"] * 4}),
                                         ("paws", {"mode": "teams", "bots": ["heuristic"] * 4}),
                                         ("tales", {"mode": "2v2", "bots": ["heuristic"] * 4})])
def test_a_replayed_games_curve_rates_every_decision_and_ends_with_the_recorded_winner(game, setup):
    g = GAMES[game]
    match = g.resolve(None, {}, setup)
    games = g.paused_game(match)
    value = np.array(read_model(model_path(g.models_dir, f"{game}-2"), g.features).value)
    record = match.play_batch(7, 0, 6, "core")["games"].to_pylist()
    _, counts = g.play_counted(match, 7, 0, 6)
    rows = 0
    for index in range(6):
        curve, winner = tn.side_curve(games.new, games, 7, index, value)
        assert curve.shape[1] == games.sides and np.allclose(curve.sum(axis=1), 1.0)
        assert winner == g.winner(record[index])
        rows += len(curve)
    assert rows == counts["decisions"]


def test_the_command_answers_writes_its_trace_and_its_page(tmp_path, ray_local):
    from tests.test_report import open_page
    out, trace, page = tmp_path / "t.json", tmp_path / "t.parquet", tmp_path / "t.html"
    res = runner.invoke(app, ["tension", "tales", "--games", "120", "--out", str(out), "--trace", str(trace),
                              "--html", str(page)])
    assert res.exit_code == 0, res.output
    answer = json.loads(out.read_text())
    assert answer["games"] == 120 and answer["oracle"].startswith("tales-2@")
    assert answer["won"] + answer["undecided"]["count"] == 120
    t = pq.read_table(trace)
    assert t.num_rows == 120 and t.column("game_index").to_pylist() == list(range(120))
    chances = t.column("chances").to_pylist()
    assert all(len(c) % 2 == 0 and abs(sum(c[:2]) - 1) < 1e-3 for c in chances)
    direct = tn.summarise([tn.tension_batch("tales", None, {}, answer["setup"], 1, 0, 120,
                                            list(read_model(model_path(GAMES["tales"].models_dir, "tales-2"),
                                                            GAMES["tales"].features).value))])
    assert answer["lowest_chance_of_winner"] == direct["lowest_chance_of_winner"]
    found = open_page(page, tmp_path / "t.png")
    assert not found["errors"] and found["sections"] == ["answer"] and found["decoded"] == 1
    assert "Bots, not people" in found["text"] and "lowest chance" in found["text"]


@pytest.mark.parametrize("args, message", [
    (["paws", "--decided", "0.2"], r"--decided 0.2 is not allowed; expected a chance from 0.5 to below 1"),
    (["paws", "--decided", "inf"], r"--decided inf is not allowed"),
    (["paws", "--oracle", "tales-2"], r"tales-2"),
    (["paws", "--setup", "board=moon"], r"board"),
    (["paws", "--players", "0"], r"--players 0 is out of range"),
    (["paws", "--games", "0"], r"--games 0 is out of range"),
])
def test_bad_input_is_one_line_and_exit_2_before_any_game(args, message):
    res = runner.invoke(app, ["tension", *args])
    lines = [x for x in res.stderr.splitlines() if x.strip()]
    assert res.exit_code == 2 and len(lines) == 1 and re.search(message, lines[0]), res.output
