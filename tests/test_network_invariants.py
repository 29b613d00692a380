"""The shipped network models' games keep the record invariants in every configuration of both games (Paws v3 and
v4, both boards, 2, 3, 4 players and Teams; Tales every mode), thousands of games each, every seat the network
and the network against the heuristic; each configuration's first and last games replay through their trace.

Slow (2,000 games a model and configuration: 1,000 a line-up; about a minute)."""

from __future__ import annotations

import pytest

from sim import games as registry
from sim.kit import trace
from sim.kit.learned import shipped_models
from tests.tales.test_invariants import check_record as tales_check
from tests.test_paws_invariants import check_record as paws_check
from configurations import PAWS, TALES

GAMES_PER = 1000


def _networks(game: str) -> list[str]:
    from sim.kit.learned import resolve_model
    g = registry.get(game)
    return [n for n in shipped_models(g.models_dir) if resolve_model(g.models_dir, g.features, n, n).hidden]


def _cases():
    for game, configs in (("paws", PAWS), ("tales", TALES)):
        for name in _networks(game):
            for rules, setup in configs:
                yield game, name, rules, setup


@pytest.mark.slow
@pytest.mark.parametrize("game, name, rules, setup", list(_cases()),
                         ids=lambda v: v if isinstance(v, str) else "-".join(str(x) for x in v.values())
                         if isinstance(v, dict) else str(v))
def test_a_network_models_games_keep_their_invariants_in_every_configuration(game, name, rules, setup):
    g = registry.get(game)
    seats = 4 if setup.get("mode") in ("teams", "2v2", "survive-2v2") else setup.get("players", 2)
    for bots in (f"learned:model={name}", ",".join([f"learned:model={name}"] + ["heuristic"] * (seats - 1))):
        m = g.resolve(rules, {}, {**setup, "bots": bots}, {})
        batch = m.play_batch(6, 0, GAMES_PER)["games"]
        for rec in batch.to_pylist():
            paws_check(rec, m.setup) if game == "paws" else tales_check(rec, m.rules, m.setup.seats)
        assert batch.column("bots")[0].as_py()[0].startswith(f"learned:model={name}@")
        for i in (0, GAMES_PER - 1):
            record, blob = trace.core_game(m, 6, i)
            replayed = trace.replay(m, 6, i, blob)            # once: the reference engine is slow
            assert {k: replayed[k] for k in record} == record


def test_every_game_ships_a_network_model_to_check():
    assert _networks("paws") and _networks("tales")
