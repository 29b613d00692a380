"""`playtest train-bot --configurations all`: the self-play plays every configuration of the game (Paws v3 and v4,
both boards, 2, 3 and 4 players and Teams; Tales every mode), the samples hold each configuration's seats, the
default keeps the digests of runs from before the option existed, and a bad value is one line before any game."""

from __future__ import annotations

import json

import numpy as np
import pytest
from typer.testing import CliRunner

from cli.main import app
from cluster.train_bot import TrainSpec, _samples, check_spec, self_play_setups
from sim.games import GAMES
from sim.params import RuleError


def test_every_paws_configuration_is_in_the_self_play_once_and_the_skill_line_ups_lead():
    g = GAMES["paws"]
    setups = self_play_setups(g, "all")
    keys = [json.dumps([lu.rules, lu.overrides, lu.setup], sort_keys=True) for lu in setups]
    assert len(keys) == len(set(keys))
    assert setups[:len(g.skill_setups)] == tuple(g.skill_setups)
    assert self_play_setups(g, "skill") == tuple(g.skill_setups)
    seen = {(lu.rules, lu.setup.get("board"), lu.setup.get("mode", "ffa"), lu.setup.get("players")) for lu in setups}
    for rules in ("v3", "v4"):
        for board in ("beginner", "explorer"):
            for players in (2, 4):
                assert (rules, board, "ffa", players) in seen
    assert {(r, b) for r, b, mode, _ in seen if mode == "teams"} >= {("v4", "beginner"), ("v3", "beginner"),
                                                                     ("v4", "explorer")}
    assert {p for _, _, mode, p in seen if mode == "ffa"} == {2, 3, 4}


@pytest.mark.parametrize("game", ["paws", "tales"])
def test_the_self_play_plays_exactly_the_games_configurations_and_they_hold_every_other_line_up(game):
    g = GAMES[game]
    key = lambda lu: json.dumps([lu.rules, lu.overrides, lu.setup], sort_keys=True)   # noqa: E731
    every = {key(c) for c in g.configurations}
    assert len(every) == len(g.configurations) == {"paws": 16, "tales": 4}[game]
    assert {key(lu) for lu in self_play_setups(g, "all")} == every
    for lu in (*g.skill_setups, *g.bench_presets, *g.differential_setups):
        assert key(lu) in every or lu.overrides, lu.label        # a rule variant is not a configuration


def test_every_tales_mode_is_in_the_self_play():
    setups = self_play_setups(GAMES["tales"], "all")
    from sim.tales.plugin import MODES
    assert {lu.setup["mode"] for lu in setups} == set(MODES)


def test_the_default_keeps_the_digest_of_a_spec_from_before_the_option():
    spec = TrainSpec(game="paws", name="x")
    assert "configurations" not in spec.fields() and "configurations" not in spec.iteration_fields()
    everything = TrainSpec(game="paws", name="x", configurations="all")
    assert everything.fields()["configurations"] == "all"
    assert everything.digest() != spec.digest() and everything.improve_digest() != spec.improve_digest()


@pytest.mark.parametrize("index_of", ["v4 beginner 2p", "v4 beginner teams", "v4 beginner 3p"])
def test_a_configurations_samples_hold_its_own_seats(index_of):
    labels = [lu.label for lu in self_play_setups(GAMES["paws"], "all")]
    k = labels.index(index_of)
    out = _samples("paws", "all", k, "mcts:iterations=4:depth=3", None, 11, 0, 2)
    seats = out["seats"]
    per_decision = np.unique(seats["game"] * 1_000_000 + seats["decision"], return_counts=True)[1]
    expected = {"v4 beginner 2p": 2, "v4 beginner teams": 4, "v4 beginner 3p": 3}[index_of]
    assert len(per_decision) > 0 and set(per_decision.tolist()) == {expected}
    assert out["outcome"].shape == (2, expected)        # who won, a row a game, a column a seat


def test_a_bad_configurations_value_is_one_line_before_any_game(tmp_path):
    with pytest.raises(RuleError, match="--configurations 'every' is not allowed; expected one of skill, all"):
        check_spec(TrainSpec(game="paws", name="x", configurations="every"))
    r = CliRunner().invoke(app, ["train-bot", "paws", "--configurations", "every", "--out", str(tmp_path / "m.json")])
    assert r.exit_code == 2
    assert r.output.strip().splitlines()[-1].startswith("error: --configurations 'every' is not allowed")
    assert not (tmp_path / "m.json").exists() and not (tmp_path / "m.json.work").exists()
