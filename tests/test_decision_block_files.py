"""A model's decisions block as a file and as the core takes it, the same checks for both games (Paws: combat cards,
defenders, monsters kept, cards taken, discards; Tales: the potions and the Champion's choice; each game's
sim/<game>/bots/features.py DECISIONS): the core refuses a block it does not take; a bad block (an unknown kind, the
wrong length, a non-number, a huge or non-finite number, not a table, another version or game of the features) is
refused in one line by the reader and by the CLI; a block changed by hand is refused by its digest; one game's
block in the other game's model is refused. How each game plays its block: tests/test_learned_decisions.py and
tests/test_learned_decisions_tales.py."""

from __future__ import annotations

import importlib
import json
import re
from pathlib import Path

import pytest

import decision_blocks as blocks
from decision_blocks import write
from model_refusals import assert_refused_in_one_line
from sim import games as registry
from sim.kit.learned import Model, read_model
from sim.params import RuleError

GAMES = ("paws", "tales")
OTHER = {"paws": "tales", "tales": "paws"}


def features(game: str):
    return registry.get(game).features


def kinds(game: str) -> str:
    return ", ".join(d.kind for d in features(game).decisions)


def size(game: str, kind: str) -> int:
    return len(features(game).decision(kind).features)


def first_kind(game: str) -> str:
    return features(game).decisions[0].kind


def good(game: str, tmp_path: Path) -> dict:
    model = blocks.block_model(features(game), "tests/test_decision_block_files.py")
    return json.loads(write(tmp_path / "good.json", model).read_text())


@pytest.mark.parametrize("game", GAMES)
def test_the_core_refuses_a_block_it_does_not_take(game):
    scenario = importlib.import_module(f"core.{game}_scenario")
    core_inputs = importlib.import_module(f"sim.{game}.core_engine").core_inputs
    m = registry.get(game).resolve(None, {}, {"bots": "heuristic"}, {})
    inputs = core_inputs(m.setup, m.rules, m.data)
    model = blocks.block_model(features(game), "tests/test_decision_block_files.py")
    foreign, kind = first_kind(OTHER[game]), first_kind(game)
    for bad, message in (({foreign: [1.0]}, rf"a decisions block for '{foreign}'; this core takes {kinds(game)}$"),
                         ({kind: [1.0] * 3}, rf"a decisions block of 3 weights for {kind}; this core has "
                                             rf"{size(game, kind)}$")):
        bots = [(4, {}, {}, (list(model.policy), list(model.value), None, bad))] + inputs["bots"][1:]
        with pytest.raises(ValueError, match=message):
            scenario.PausedGame({**inputs, "bots": bots}, 1, 0, 0)


def _changes(game: str) -> list:
    """(change of a good file's dict, the one line expected) for ``game``."""
    kind, other = first_kind(game), first_kind(OTHER[game])
    n = size(game, kind)
    known = features(game).decisions_id
    version = known.split("@")[0]

    def at2(value):
        return lambda d: {**d, "decisions": {**d["decisions"], kind: [0, 0, value] + [0] * (n - 3)}}
    return [
        (lambda d: {**d, "decisions": {**d["decisions"], other: [1.0]}},
         rf": decisions\.{other}: no such decision kind; expected some of {kinds(game)}$"),
        (lambda d: {**d, "decisions": {**d["decisions"], kind: [1.0] * 3}},
         rf": decisions\.{kind}: expected a list of {n} numbers$"),
        (at2("x"), rf": decisions\.{kind}\[2\] = 'x': expected a finite number"),
        (at2(True), rf": decisions\.{kind}\[2\] = True: expected a finite number"),
        (at2(1e300), rf": decisions\.{kind}\[2\] = 1e\+300: expected a finite number from -1e6 to 1e6$"),
        (at2(float("nan")), rf": decisions\.{kind}\[2\] = nan: expected a finite number from -1e6 to 1e6$"),
        (lambda d: {**d, "decisions": [1, 2]}, rf": decisions must be a table of decision kinds \({kinds(game)}\)"),
        (lambda d: {**d, "decisions": kind}, rf": decisions must be a table of decision kinds \({kinds(game)}\)"),
        (lambda d: {**d, "decision_features": f"{game}-decisions-0@00000000"},
         rf": decision_features = '{game}-decisions-0@00000000'; {game} has {version}@[0-9a-f]{{8}} \(retrain"),
        (lambda d: {**d, "decision_features": f"{OTHER[game]}-decisions-1@00000000"},
         rf": decision_features = '{OTHER[game]}-decisions-1@00000000'; {game} has {version}@[0-9a-f]{{8}} \(retrain"),
        (lambda d: {k: v for k, v in d.items() if k != "decision_features"}, rf": decision_features = None; {game} has "),
    ]


@pytest.mark.parametrize("game, case", [(g, k) for g in GAMES for k in range(len(_changes(g)))])
def test_a_bad_decisions_block_is_refused_in_one_line(tmp_path, game, case):
    change, message = _changes(game)[case]
    changed = change(good(game, tmp_path))
    if isinstance(changed.get("decisions"), dict) and "decision_features" in changed:
        try:
            changed = blocks.redigest(changed)       # so the check under test is the block's, not the digest's
        except (TypeError, ValueError):
            pass
    bad = tmp_path / "bad.json"
    bad.write_text(json.dumps(changed))
    assert_refused_in_one_line(bad, message, features(game))


@pytest.mark.parametrize("game", GAMES)
def test_a_block_changed_by_hand_is_refused_by_its_digest(tmp_path, game):
    d = good(game, tmp_path)
    d["decisions"][first_kind(game)][0] = 1.5
    bad = tmp_path / "bad.json"
    bad.write_text(json.dumps(d))
    with pytest.raises(RuleError, match=r": digest = '[0-9a-f]{12}', but its weights digest to "):
        read_model(bad, features(game))


@pytest.mark.parametrize("game", GAMES)
def test_one_games_block_in_the_other_games_model_is_refused(tmp_path, game):
    host = features(OTHER[game])
    m = Model(host.game, "t", host.id, tuple([0.0] * len(host.policy)), tuple([0.0] * len(host.value)))
    mine = features(game)
    d = {**json.loads(m.to_json()), "decisions": {first_kind(game): [1.0] * size(game, first_kind(game))},
         "decision_features": mine.decisions_id}
    (tmp_path / "t.json").write_text(json.dumps(d))
    with pytest.raises(RuleError, match=rf": decision_features = '{re.escape(mine.decisions_id)}'; {host.game} has "
                                        rf"{re.escape(host.decisions_id.split('@')[0])}@"):
        read_model(tmp_path / "t.json", host)
