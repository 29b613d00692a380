"""``playtest tension`` (measures/tension/; docs/tension.md) as a sweep with the win_prob table.

Held here: the command end to end (the sweep's folder verifies, its answer, the JSON beside the parts, the page in
headless Chromium), --from reads the same answer from the folder, --resume finishes a sweep whose part was lost
with the same answer, the answer is the per-game definition over the stored curves (measures/tension/trace.py), and bad
input in one line, exit 2, before any game. The measures on hand-worked curves and the SQL against the
definition: tests/queries/test_tension_measures.py; the core's chances against Python's: tests/test_win_prob.py.
"""

from __future__ import annotations

import json
import re

import numpy as np
import pyarrow.dataset as ds
import pytest
from typer.testing import CliRunner

from cli.main import app
from measures.tension import trace as tq

runner = CliRunner()


def _curves(out) -> dict[int, tuple[np.ndarray, int, np.ndarray, np.ndarray]]:
    """Per game of a Tales standard sweep (two sides, one seat each): (its side curve over the turns, the winning
    side, each turn's round, the side whose turn begins), read from the parts with pyarrow."""
    wp = sorted(ds.dataset(out / "win_prob").to_table().to_pylist(), key=lambda r: (r["game_index"], r["turn"]))
    games = {g["game_index"]: g["winner_side"] for g in ds.dataset(out / "games").to_table(
        columns=["game_index", "winner_side"]).to_pylist()}
    rows: dict[int, list] = {}
    for r in wp:
        if r["seat"] >= 0:
            rows.setdefault(r["game_index"], []).append((r["chances"], r["round"], r["seat"]))
    return {gi: (np.array([c for c, _, _ in t], dtype=float), games[gi], np.array([x for _, x, _ in t], dtype=float),
                 np.array([s for _, _, s in t], dtype=np.int64)) for gi, t in rows.items()}


def recalibrated(curves: dict) -> dict[int, np.ndarray]:
    """The won games' curves as tension reads them: the oracle's chances recalibrated over all the cell's won games
    at once by the cross-fit (measures/tension/calibration.py, tested in tests/known/), game by game in Python (``curves``:
    game index -> (curve, winner, rounds, movers), one side per seat)."""
    from measures.tension.calibration import crossfit
    won = [gi for gi, (c, w, _, _) in sorted(curves.items()) if w >= 0 and len(c)]
    p = np.concatenate([curves[gi][0] for gi in won])
    rounds = np.concatenate([curves[gi][2] for gi in won])
    mover = np.concatenate([curves[gi][3] for gi in won])
    winner = np.concatenate([np.full(len(curves[gi][0]), curves[gi][1]) for gi in won])
    game = np.concatenate([np.full(len(curves[gi][0]), gi) for gi in won])
    q, check = crossfit(p, rounds, mover, winner, game, len(won))
    assert q is not None and check.passed, check.refusal
    return {gi: q[game == gi] for gi in won}


@pytest.mark.browser
def test_the_command_plays_a_sweep_and_answers_from_its_folder(tmp_path):
    from test_report import open_page
    out, js, page = tmp_path / "t", tmp_path / "t.json", tmp_path / "t.html"
    res = runner.invoke(app, ["tension", "tales", "--games", "300", "--out", str(out), "--json", str(js),
                              "--html", str(page), "--quiet"])
    assert res.exit_code == 0, res.output
    answer = json.loads(js.read_text())
    assert json.loads((out / "tension.json").read_text()) == answer
    assert answer["games"] == 300 and answer["oracle"].startswith("tales-2@")
    assert answer["won"] + answer["undecided"]["count"] == 300
    curves = _curves(out)
    # the answer is the per-game definition over the curves recalibrated on these games ...
    cal = recalibrated(curves)
    ms = [tq.game_measures(c, curves[gi][1], 2) for gi, c in cal.items()]
    assert answer["won"] == len(ms) and answer["calibration"]["passed"]
    assert np.isclose(answer["lowest_chance_of_winner"]["mean"], np.mean([m["lowest"] for m in ms]))
    assert np.isclose(answer["leader_changes"]["mean"], np.mean([m["leader_changes"] for m in ms]))
    assert answer["decided_early"]["count"] == sum(m["decided_early"] for m in ms)
    assert answer["comebacks"]["count"] == sum(m["comeback"] for m in ms)
    # ... and, uncalibrated, over the stored curves as they are
    raw = [m for c, w, _, _ in curves.values() if (m := tq.game_measures(c, w, 2)) is not None]
    from queries import connection
    con = connection.connect([out])
    try:
        connection.add_seat_outcomes(con, [out])
        plain = tq.tension(con, calibrate=False)
    finally:
        con.close()
    assert plain["won"] == len(raw) and plain["calibration"] is None
    assert np.isclose(plain["lowest_chance_of_winner"]["mean"], np.mean([m["lowest"] for m in raw]))
    assert plain["decided_early"]["count"] == sum(m["decided_early"] for m in raw)
    assert runner.invoke(app, ["status", str(out), "--verify"]).exit_code == 0
    again = runner.invoke(app, ["tension", "tales", "--from", str(out)])
    assert again.exit_code == 0 and again.output.strip() and again.output.strip() in res.output
    found = open_page(page, tmp_path / "t.png")
    assert not found["errors"] and found["sections"] == ["answer"] and found["decoded"] == 1
    assert "Bots, not people" in found["text"] and "lowest chance" in found["text"]


def test_resume_replays_a_lost_part_to_the_same_answer(tmp_path):
    out = tmp_path / "t"
    args = ["tension", "paws", "--games", "400", "--out", str(out), "--quiet", "--players", "3"]
    first = runner.invoke(app, args)
    assert first.exit_code == 0, first.output
    before = (out / "tension.json").read_text()
    part = sorted((out / "win_prob").rglob("*.parquet"))[0]
    part.unlink()
    res = runner.invoke(app, args + ["--resume"])
    assert res.exit_code == 0, res.output
    assert (out / "tension.json").read_text() == before
    refused = runner.invoke(app, args)                      # the folder holds this sweep: --resume, or another --out
    assert refused.exit_code == 2 and "--resume" in refused.stderr


@pytest.mark.parametrize("args, message", [
    (["paws", "--out", "X", "--decided", "0.2"], r"--decided 0.2 is not allowed; expected a chance from 0.5 to below 1"),
    (["paws", "--out", "X", "--decided", "inf"], r"--decided inf is not allowed"),
    (["paws", "--out", "X", "--oracle", "tales-2"], r"tales-2"),
    (["paws", "--out", "X", "--setup", "board=moon"], r"board"),
    (["paws", "--out", "X", "--players", "0"], r"--players 0 is out of range"),
    (["paws", "--out", "X", "--games", "0"], r"--games 0 is out of range"),
    (["paws"], r"give --out DIR .* or --from DIR"),
    (["paws", "--out", "X", "--from", "Y"], r"not both"),
    (["paws", "--from", "nowhere"], r"nowhere"),
])
def test_bad_input_is_one_line_and_exit_2_before_any_game(args, message, tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    res = runner.invoke(app, ["tension", *args])
    lines = [x for x in res.stderr.splitlines() if x.strip()]
    assert res.exit_code == 2 and len(lines) == 1 and re.search(message, lines[0]), res.output
    assert not (tmp_path / "X").exists()


def test_a_folder_without_win_prob_is_refused_in_one_line(tmp_path):
    spec = tmp_path / "s.toml"
    spec.write_text('game = "paws"\nseed = 1\ngames_per_cell = 50\n')
    assert runner.invoke(app, ["sweep", str(spec), "--out", str(tmp_path / "plain")]).exit_code == 0
    res = runner.invoke(app, ["tension", "paws", "--from", str(tmp_path / "plain")])
    assert res.exit_code == 2 and "no win_prob table" in res.stderr
