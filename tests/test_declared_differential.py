"""Differential configurations generated from the declarations (sim.kit.contract): every rule parameter of every
registered game at its minimum, its maximum and beside its default, on both engines, with the default bots and
with random bots. A parameter is covered the moment it is declared; a core that ignores one (e.g.
``respawn_items``) or derives it from another (right for the presets, wrong for an override) fails here.

The fast test plays 2 games of each variation in the few contexts that cover every kind of game the parameter
can change (its ``relevant`` declaration: ``team_vp_target`` in Teams games), every rule preset and both kinds of
bots (sim.kit.contract.fast_cases); a parameter played where it cannot act must change no game. The slow one
plays about 60 games of each variation, spread over every context, and still runs in CI."""

import dataclasses
import types

import pytest
from budget import thin

from sim.games import GAMES
from sim.kit.contract import (ContractError, check_idle, check_relevance, check_variation, coverage,
                              differential_contexts, fast_cases, idle_cases, reach, variations)
from sim.params import fields


def _id(name, over):
    return f"{name}:{','.join(f'{k}={v}' for k, v in over.items())}"


CASES = [(name, over) for name in GAMES.names() for over in variations(GAMES[name])[0]]
IDS = [_id(name, over) for name, over in CASES]
FAST = [(name, over, played) for name in GAMES.names() for over, played in fast_cases(GAMES[name])]
IDLE = [(name, over, i) for name in GAMES.names() for over, i in idle_cases(GAMES[name])]


@pytest.mark.parametrize("name", GAMES.names())
def test_every_parameter_has_a_value_away_from_its_default(name):
    found, stuck = variations(GAMES[name])
    assert stuck == [], f"{name}: no value away from the default is accepted for {stuck}"
    declared = {f for over in found for f in over}
    assert declared == {f.name for f in fields(GAMES[name].resolve().rules)}


@pytest.mark.parametrize("name", GAMES.names())
def test_every_parameter_is_played_in_every_kind_of_game_it_can_change(name):
    game = GAMES[name]
    assert coverage(game, fast_cases(game)) == []
    assert [over for n, over, _ in FAST if n == name] == variations(game)[0]


@pytest.mark.parametrize("name", GAMES.names())
def test_the_coverage_check_names_what_a_plan_leaves_out(name):
    """Cases played by position, as the fast test once did (one context each, rotating), leave kinds of game out;
    a parameter without a case is named."""
    game = GAMES[name]
    n = len(differential_contexts(game))
    rotating = [(over, (k % n,)) for k, over in enumerate(variations(game)[0])]
    missing = coverage(game, rotating)
    assert missing and all(": no case where it acts in " in m for m in missing)
    first = fields(game.resolve().rules)[1].name
    assert f"{first}: no case" in coverage(game, [(o, p) for o, p in fast_cases(game) if next(iter(o)) != first])


def test_paws_target_and_tile_cases_play_where_their_branch_is_taken():
    """team_vp_target in Teams games on both boards; the 3-4 player Explorer tile counts with three players and
    in Teams; vp_target never where it cannot win a game; a rule that only matters beside a rule of one preset
    under that preset."""
    game = GAMES["paws"]
    ctx = differential_contexts(game)
    kinds = {}
    for over, played in fast_cases(game):
        kinds.setdefault(next(iter(over)), set()).update(ctx[i].kind for i in played)
    assert kinds["team_vp_target"] == {"beginner teams 4", "explorer teams 4"}
    assert kinds["explorer_mansions"] == {"explorer ffa 3", "explorer ffa 4", "explorer teams 4"}
    assert kinds["vp_target"] == {"beginner ffa 2", "beginner ffa 3", "beginner ffa 4", "explorer ffa 3",
                                  "explorer ffa 4"}
    assert kinds["hand_limit"] == {c.kind for c in ctx}
    # §6.4's scoring invasion knockout scores vp_per_knockout: V3's 1, V4's 0; the V3 preset has no leader rule
    scores = next(r for r in reach(game) if r.parameter == "invasion_knockout_scores")
    assert {ctx[i].rules for i in scores.acts} == {"v3"} and {ctx[i].rules for i in scores.idle} == {"v4"}
    leader = next(r for r in reach(game) if r.parameter == "leader_rule")
    assert {ctx[i].rules for i in leader.acts} == {"v4"} and leader.idle == ()


def _declared(monkeypatch, game_name, parameter, relevant):
    """A fresh instance of the game (nothing cached for it) whose ``parameter`` is declared ``relevant``."""
    game = type(GAMES[game_name])()
    f = next(f for f in dataclasses.fields(game.resolve().rules) if f.name == parameter)
    monkeypatch.setattr(f, "metadata", types.MappingProxyType({**f.metadata, "relevant": relevant}))
    return game


@pytest.mark.parametrize("relevant, needle", [
    (({"mode": ("team",)},), "team_vp_target: relevant mode \\['team'\\]: no differential context plays it"),
    (({"teams": (True,)},), "team_vp_target: relevant names 'teams', neither a setup value nor another rule"),
    (({"team_vp_target": (5,)},), "team_vp_target: relevant names 'team_vp_target'"),
    (({"vp_target": (99,)},), "team_vp_target: changes no game in any context"),
])
def test_the_contract_refuses_a_relevant_declaration_that_names_nothing_played(monkeypatch, relevant, needle):
    game = _declared(monkeypatch, "paws", "team_vp_target", relevant)
    with pytest.raises(ContractError, match=needle):
        check_relevance(game)


def test_a_declaration_narrower_than_the_engine_shows_in_the_idle_cases(monkeypatch):
    """hand_limit declared to act on the Explorer board only: played on the Beginner board, it changes games."""
    game = _declared(monkeypatch, "paws", "hand_limit", ({"board": ("explorer",)},))
    idle = [(over, i) for over, i in idle_cases(game) if next(iter(over)) == "hand_limit"]
    assert {differential_contexts(game)[i].kind for _, i in idle} == {"beginner ffa 2", "beginner ffa 3",
                                                                      "beginner ffa 4", "beginner teams 4"}
    found = [check_idle(game, over, i, seed=31, games=12) for over, i in idle]
    assert any(f is not None and "where its declaration says it cannot change a game" in f for f in found)


@pytest.mark.parametrize("name, overrides, played", thin(FAST), ids=[_id(n, o) for n, o, _ in FAST])
def test_core_equals_reference_where_each_parameter_acts(name, overrides, played):
    assert check_variation(GAMES[name], overrides, seed=29, games=2, only=played) == []


@pytest.mark.parametrize("name, overrides, context", thin(IDLE),
                         ids=[f"{_id(n, o)}@{differential_contexts(GAMES[n])[i].label}" for n, o, i in IDLE])
def test_a_parameter_changes_no_game_where_it_cannot_act(name, overrides, context):
    assert check_idle(GAMES[name], overrides, context, seed=31, games=12) is None


@pytest.mark.slow
@pytest.mark.parametrize("name, overrides", CASES, ids=IDS)
def test_core_equals_reference_for_every_declared_value_in_every_context(name, overrides):
    game = GAMES[name]
    per = max(1, 60 // len(differential_contexts(game)))
    assert check_variation(game, overrides, seed=2029, games=per) == []
