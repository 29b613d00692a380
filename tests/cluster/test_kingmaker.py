"""Kingmaking (cluster/kingmaker.py, ``playtest kingmaker``; docs/kingmaking.md).

Held here: a game's counts worked out again by hand for single games (the first out decision's options
played to the end on copies); nobody out under a threshold of almost 0, so no kingmaking at all; every
decision tried when every seat is out from the start; the same seed gives the same answer; the counts nest
(kingmaker games <= games with a seat out <= games); 2-sided games, Tales and bad input are refused in one
line, exit 2, before any game.
"""

from __future__ import annotations

import json
import re

import numpy as np
import pytest
from typer.testing import CliRunner

from cli.main import app
from cluster import kingmaker as km
from sim.games import GAMES
from sim.kit.learned import model_path, read_model

runner = CliRunner()
PAWS = GAMES["paws"]
VALUE = list(read_model(model_path(PAWS.models_dir, "paws-2"), PAWS.features).value)
SETUP = {"players": 4, "bots": ["heuristic"] * 4}


def test_a_single_games_counts_are_the_ones_worked_by_hand():
    """For each of 12 games: replay it, find every decision of a seat the value head put under 0.05 (from
    then on), play each option to the end on a copy, and count as the batch does."""
    match = PAWS.resolve(None, {}, SETUP)
    games = PAWS.paused_game(match)
    new, winner_of = games.new, games.winner
    kings = outs = 0
    for index in range(12):
        got = km.kingmaker_batch("paws", None, {}, SETUP, 3, index, 1, 0.05, VALUE)
        pg = new(3, index, 0)
        gone, decisions, king_decisions, playouts = set(), 0, 0, 0
        while pg.paused:
            seats = np.array(pg.learned_features()[1]) @ np.array(VALUE)
            p = np.exp(seats - seats.max()) / np.exp(seats - seats.max()).sum()
            gone |= {s for s in range(4) if p[s] < 0.05}
            if pg.seat in gone:
                ends = []
                for k in range(len(pg.options())):
                    c = pg.copy()
                    c.take(k)
                    c.play_on(-1)
                    ends.append(winner_of(c.record()))
                decisions += 1
                playouts += len(ends)
                king_decisions += len({w for w in ends if w != pg.seat}) > 1
            pg.play_on(pg.decisions + 1)
        assert (got["out_decisions"], got["king_decisions"], got["playouts"]) == (decisions, king_decisions, playouts)
        assert got["out_games"] == int(bool(gone)) and got["king_games"] == int(king_decisions > 0)
        kings += got["king_games"]
        outs += got["out_games"]
    assert outs > 0


def test_nobody_out_means_no_kingmaking_and_everybody_out_tries_every_decision():
    none = km.kingmaker_batch("paws", None, {}, SETUP, 5, 0, 10, 1e-12, VALUE)
    assert none["out_games"] == none["king_games"] == none["out_decisions"] == none["playouts"] == 0
    every = km.kingmaker_batch("paws", None, {}, SETUP, 5, 0, 3, 0.999, VALUE)
    _, counts = PAWS.play_counted(PAWS.resolve(None, {}, SETUP), 5, 0, 3)
    assert every["out_games"] == every["games"] == 3
    assert every["out_decisions"] == counts["decisions"]          # every top-level decision of the 3 games
    assert every["king_games"] >= 1


def test_the_counts_nest_and_the_same_seed_gives_the_same_answer():
    a = km.kingmaker_batch("paws", None, {}, {"players": 3, "bots": ["heuristic"] * 3}, 9, 0, 30, 0.1, VALUE)
    b = km.kingmaker_batch("paws", None, {}, {"players": 3, "bots": ["heuristic"] * 3}, 9, 0, 30, 0.1, VALUE)
    assert a == b
    assert a["king_games"] <= a["out_games"] <= a["games"] == 30
    assert a["king_decisions"] <= a["out_decisions"] and sum(a["kinds"].values()) >= a["king_decisions"]
    s = km.summary(km.merge([a, b]), 0.1)
    assert s["games"] == 60 and s["kingmaker_games"]["count"] == 2 * a["king_games"]
    low, high = s["kingmaker_games"]["ci95"]
    assert low <= s["kingmaker_games"]["share"] <= high


def test_the_command_answers_in_words_and_json(tmp_path, ray_local):
    out = tmp_path / "k.json"
    res = runner.invoke(app, ["kingmaker", "paws", "--players", "3", "--games", "60", "--threshold", "0.1",
                              "--out", str(out)])
    assert res.exit_code == 0, res.output
    r = json.loads(out.read_text())
    assert r["games"] == 60 and r["oracle"].startswith("paws-2@") and r["bots"] == ["heuristic"] * 3
    assert "kingmaking: in" in res.stdout and "bots, not people" in res.stdout
    direct = km.summary(km.merge([km.kingmaker_batch("paws", None, {}, {"players": 3, "bots": ["heuristic"]}, 1,
                                                     lo, 50 if lo == 0 else 10, 0.1, VALUE) for lo in (0, 50)]), 0.1)
    assert r["kingmaker_games"] == direct["kingmaker_games"]


@pytest.mark.parametrize("args, message", [
    (["paws", "--players", "2"], r"played between 2 sides: kingmaking needs 3 or more"),
    (["paws", "--setup", "mode=teams"], r"played between 2 sides"),
    (["tales"], r"tales: kingmaking replays paused games|played between 2 sides"),
    (["paws", "--threshold", "0"], r"--threshold 0.0 is not allowed; expected a chance between 0 and 1"),
    (["paws", "--threshold", "nan"], r"--threshold nan is not allowed"),
    (["paws", "--oracle", "no-such-model"], r"no-such-model"),
    (["paws", "--setup", "bots=random"], r"give the bots with --bots"),
    (["paws", "--bots", "greedy"], r"unknown bot 'greedy'"),
    (["paws", "--games", "0"], r"--games 0 is out of range"),
])
def test_bad_input_is_one_line_and_exit_2_before_any_game(args, message):
    res = runner.invoke(app, ["kingmaker", *args])
    lines = [x for x in res.stderr.splitlines() if x.strip()]
    assert res.exit_code == 2 and len(lines) == 1 and re.search(message, lines[0]), res.output
