"""Tuning the heuristic bot by self-play (cluster/train.py, ``playtest tune-bot``): how a seat is scored,
the paired gain and its interval, the preset file, and the command end to end on Ray."""

import json
import math

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from budget import examples
from typer.testing import CliRunner

from cli.main import app
from cluster.train import edges, gains, paired_gain, seat_scores, seatings, write_preset
from sim.games import GAMES
from sim.kit.bots import load_weight_presets

runner = CliRunner()


@pytest.mark.parametrize("seat", range(4))
def test_a_paws_seat_scores_its_wins_minus_the_fair_share(seat):
    match = GAMES["paws"].resolve("v4", {}, {"players": 4, "bots": "heuristic,random,heuristic,random"})
    games = match.play_batch(5, 0, 300)["games"]
    won = np.array(games.column("winner_seat").to_pylist()) == seat
    assert np.array_equal(seat_scores(match, seat, 5, 0, 300), won - 0.25)


def test_a_paws_teams_seat_scores_its_teams_wins():
    match = GAMES["paws"].resolve("v4", {}, {"mode": "teams", "players": 4})
    team = np.array(match.play_batch(6, 0, 200)["games"].column("winner_team").to_pylist())
    for seat in range(4):
        assert np.array_equal(seat_scores(match, seat, 6, 0, 200), (team == seat % 2) - 0.5)


def test_a_tales_seat_scores_a_draw_as_the_fair_share():
    match = GAMES["tales"].resolve(None, {}, {"mode": "standard", "bots": "random"})
    games = match.play_batch(3, 0, 400)["games"]
    team = np.array(games.column("winner_team").to_pylist())
    draw = np.array(games.column("end_reason").to_pylist()) == "draw"
    for seat in (0, 1):
        expect = np.where(draw, 0.0, (team == seat) - 0.5)
        assert np.array_equal(seat_scores(match, seat, 3, 0, 400), expect)


@pytest.mark.parametrize("game", ["paws", "tales"])
def test_the_default_bot_in_a_field_of_itself_has_no_edge_in_any_line_up(game):
    # every seating of a line-up is then the same match: the seats' edges in one game sum to zero
    # (one seat wins, or a draw shares the win), or to -1 where nobody won (a stalled game)
    per_seating = edges(game, "heuristic", "heuristic", 11, 200)
    by_line_up = {}
    for key, e in per_seating.items():
        by_line_up.setdefault(key.split(" / ")[0], []).append(e)
    for label, seats in by_line_up.items():
        total = np.sum(seats, axis=0)
        assert set(np.round(total, 9)) <= {0.0, -1.0} and (total == 0).mean() > 0.5, label
    assert [r.diff for r in gains(game, "heuristic", "heuristic", "heuristic", 11, 50)] == [0.0] * (len(by_line_up) + 1)


def test_every_line_up_seats_the_bot_under_test_in_each_seat_once():
    rows = seatings(GAMES["paws"], "random", "heuristic")
    assert [(label, seat) for label, seat, _ in rows] == [(f"v4 {b} 4p", s) for b in ("beginner", "explorer")
                                                           for s in range(4)]
    for _, seat, m in rows:
        assert m.setup.bots == tuple("random" if s == seat else "heuristic" for s in range(4))


def test_the_paired_gain_interval_covers_the_true_difference_95_percent_of_the_time():
    # tuned wins with p = 0.55, default with 0.5, correlated through shared deals; 1,000 data sets
    rng = np.random.default_rng(17)
    hits = 0
    for _ in range(1000):
        u = rng.random(400)
        tuned, default = (u < 0.55).astype(float), (u < 0.5).astype(float)
        flip = rng.random(400) < 0.3                      # some deals play out differently
        tuned[flip] = rng.random(flip.sum()) < 0.55
        g = paired_gain("x", tuned, default)
        hits += g.low <= 0.05 <= g.high
    # true difference: E[tuned] - E[default] = 0.55 - 0.5 = 0.05; 1,000 runs: 95% +- 2 percentage points
    assert 930 <= hits <= 970, hits


def test_a_preset_written_is_read_back_and_other_presets_are_kept(tmp_path):
    path = tmp_path / "presets.toml"
    weights = GAMES["tales"].bot_weights
    write_preset(path, "tuned", {"aggression": 3, "caution": 9}, 'a "quoted" note')
    write_preset(path, "bold", {"aggression": 9}, "x")
    write_preset(path, "tuned", {"aggression": 4}, "second run")
    presets = load_weight_presets(path, weights)
    assert list(presets) == ["default", "tuned", "bold"]
    assert presets["tuned"] == weights(aggression=4) and presets["bold"] == weights(aggression=9)
    assert list(tmp_path.iterdir()) == [path]


@settings(max_examples=examples(40), deadline=None)
@given(st.text(max_size=40))
def test_any_preset_name_is_taken_or_refused_in_one_line_before_any_game(name):
    res = runner.invoke(app, ["tune-bot", "tales", "--write-preset", name, "--field", "nobody"])
    assert res.exit_code == 2, res.output
    assert len(res.output.strip().splitlines()) == 1
    assert "--write-preset" in res.output or "--field 'nobody'" in res.output


@pytest.mark.parametrize("args, text", [
    (["chess"], "unknown game 'chess'"),
    (["paws", "--trials", "0"], "--trials 0 is out of range"),
    (["paws", "--games", "-1"], "--games -1 is out of range"),
    (["paws", "--field", "heuristic:aggression=99"], "aggression = '99' is not allowed"),
    (["tales", "--write-preset", "default"], "not 'default'"),
])
def test_bad_input_is_one_line_and_exit_2(args, text):
    res = runner.invoke(app, ["tune-bot", *args])
    assert res.exit_code == 2 and text in res.output and len(res.output.strip().splitlines()) == 1, res.output


def test_tune_bot_end_to_end_is_reproducible_and_writes_the_preset(ray_local, tmp_path, monkeypatch):
    tales = type(GAMES["tales"])
    monkeypatch.setattr(tales, "bot_presets_path", tmp_path / "presets.toml")
    outs = []
    for run in (1, 2):
        out = tmp_path / f"run{run}.json"
        res = runner.invoke(app, ["tune-bot", "tales", "--trials", "6", "--games", "60", "--seed", "9",
                                  "--out", str(out), "--write-preset", "tuned", "--quiet"])
        assert res.exit_code == 0, res.output
        outs.append(json.loads(out.read_text()))
    assert outs[0] == outs[1]
    r = outs[0]
    assert r["trials"] == 6 and r["default_spec"].startswith("heuristic:aggression=2:")
    # the chosen bot is the validation's best of the search's best
    assert r["best_spec"] == max(r["validation"], key=lambda v: v[1])[0]
    overall = r["gain"][-1]
    assert overall["low"] <= overall["diff"] <= overall["high"] and overall["games"] == 2 * 4 * 60 * 2
    presets = load_weight_presets(tmp_path / "presets.toml", GAMES["tales"].bot_weights)
    assert presets["tuned"] == GAMES["tales"].bot_weights(**r["best_weights"])
    assert "heuristic:preset=tuned" in res.output
