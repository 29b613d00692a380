"""Differential configurations generated from the declarations (sim.kit.contract): every rule parameter of every
registered game at its minimum, its maximum and beside its default, on both engines, in every configuration
``playtest bench`` measures, with the default bots and with random bots. A parameter is covered the moment it is
declared; a core that ignores one (e.g. ``respawn_items``) fails here.

The fast test plays 2 games of each variation in one context (rotating); the slow one about 60 games of each
variation, spread over every context, and still runs in CI."""

import math

import pytest

from sim.games import GAMES
from sim.kit.contract import check_variation, contexts, variations

CASES = [(name, over) for name in GAMES.names() for over in variations(GAMES[name])[0]]
IDS = [f"{name}:{','.join(f'{k}={v}' for k, v in over.items())}" for name, over in CASES]


@pytest.mark.parametrize("name", GAMES.names())
def test_every_parameter_has_a_value_away_from_its_default(name):
    found, stuck = variations(GAMES[name])
    assert stuck == [], f"{name}: no value away from the default is accepted for {stuck}"
    declared = {f for over in found for f in over}
    from sim.params import fields
    assert declared == {f.name for f in fields(GAMES[name].resolve().rules)}


@pytest.mark.parametrize("name, overrides", CASES, ids=IDS)
def test_core_equals_reference_for_every_declared_value(name, overrides):
    assert check_variation(GAMES[name], overrides, seed=29, games=2, only=IDS.index(
        f"{name}:{','.join(f'{k}={v}' for k, v in overrides.items())}")) == []


@pytest.mark.slow
@pytest.mark.parametrize("name, overrides", CASES, ids=IDS)
def test_core_equals_reference_for_every_declared_value_in_every_context(name, overrides):
    game = GAMES[name]
    per = math.ceil(60 / len(contexts(game)))
    assert check_variation(game, overrides, seed=2029, games=per) == []
