"""A learned model's decisions block: every decision a Paws seat makes besides its turn's actions (combat cards,
defenders, monsters kept, cards taken, discards; sim/paws/bots/features.py DECISIONS, core/paws/learned.pxi,
docs/learned-bots.md).

Held here: the core computes the declared features (counts, kinds) and they equal a Python mirror on the reference
engine's state at every such decision of whole games (the games replayed through their decision traces); a block
of the heuristic-equivalent weights plays exactly the heuristic's games (the combat fast path included), and a
model without a block plays exactly as before; a planted absurd weight changes exactly the decisions of its kind;
the block sees nothing its seat cannot (re-dealing the hidden cards and reseeding the dice changes no feature and
no choice, at decisions of every kind); a game replays alone and through its trace; a paused game's copy keeps
its block; a search with a model plays its simulations' other decisions by the block; bad blocks are refused in
one line (tests/test_decision_block_files.py, for both games); records keep their invariants; training a block
twice gives the same bytes and names its seeds.
"""

from __future__ import annotations

import dataclasses
import json
import re
from pathlib import Path

import pytest
from typer.testing import CliRunner

from cli.main import app
from sim import games as registry
from sim.kit import trace
from sim.kit.learned import Model, read_model
import decision_blocks as blocks
from decision_blocks import write
from sim.paws.bots.features import DECISIONS, FEATURES
from sim.paws.bots.heuristic import HeuristicBot, item_value, monster_value
from sim.paws.kinds import Buff, Decision, Effect, Tile, Timing
from sim.paws.state import NOBODY
from tests.test_paws_invariants import check_record

runner = CliRunner()
KINDS = {d.kind: Decision[d.kind.upper()] for d in DECISIONS}


def block_model(decisions: dict[str, dict[str, float]] | None = None, name: str = "block",
                policy: dict | None = None) -> Model:
    return blocks.block_model(FEATURES, "tests/test_learned_decisions.py", decisions, name, policy)


def opinions(seed: int) -> dict[str, dict[str, float]]:
    return blocks.opinions(FEATURES, seed)


@pytest.fixture(scope="module")
def models(tmp_path_factory) -> dict[str, Path]:
    root = tmp_path_factory.mktemp("models")
    paws3 = read_model(registry.get("paws").models_dir / "paws-3.json", FEATURES)
    return {
        "heuristic": write(root / "heuristic.json", block_model()),
        "paws3h": write(root / "paws3h.json", dataclasses.replace(
            paws3, name="paws3h", decisions=FEATURES.heuristic_decisions(), decision_features=FEATURES.decisions_id)),
        "mixed": write(root / "mixed.json", block_model(opinions(5), "mixed",
                                                        {"heuristic_score": 2.0, "buy": 0.8, "raid": 1.5})),
        "discard_best": write(root / "discard-best.json", block_model({"discard": {"worth": 1.0}}, "discard-best")),
        "always_pass": write(root / "always-pass.json", block_model({"combat_card": {"pass": 1.0}}, "always-pass")),
    }


def match(bots: str, setup: dict | None = None):
    return registry.get("paws").resolve(None, {}, {**(setup or {}), "bots": bots}, {})


def probe(m, seed: int, index: int, redeals: tuple = ()):
    """core.paws_scenario.decision_probe on game ``index`` of ``m``: (the decisions asked, the record)."""
    from core.paws_scenario import decision_probe
    from sim.paws.core_engine import core_inputs
    return decision_probe(core_inputs(m.setup, m.rules, m.data), seed, index, redeals)


# -- the declarations ---------------------------------------------------------------------------------------
def test_the_core_computes_the_declared_decision_features():
    from core.paws_engine import LEARNED_DECISIONS
    from core.tales_engine import LEARNED_DECISIONS as TALES
    assert LEARNED_DECISIONS == {d.kind: (int(KINDS[d.kind]), len(d.features)) for d in DECISIONS}
    assert set(TALES) == {d.kind for d in registry.get("tales").features.decisions}   # tests/test_learned_decisions_tales.py
    for d in DECISIONS:
        assert d.features[-1][0] == "heuristic_pick" and len({n for n, _ in d.features}) == len(d.features)
        assert d.weights() == tuple([0.0] * (len(d.features) - 1) + [1.0])
    assert FEATURES.decisions_id.startswith("paws-decisions-1@") and FEATURES.id.startswith("paws-features-1@")


# -- the features: the core's equal a Python mirror on the reference engine's state ----------------------------
def mirror(g, seat: int, kind: Decision, options: list) -> list[list[float]]:
    """The declared features of each option, worked out from the reference engine's state."""
    h = HeuristicBot()
    pick = h.decide(g, seat, kind, options)
    p, r, items, mons = g.players[seat], g.rules, g.cards.items, g.cards.monsters
    n = len(next(d for d in DECISIONS if KINDS[d.kind] == kind).features)
    out = []
    for k, o in enumerate(options):
        f = [0.0] * n
        if kind == Decision.COMBAT_CARD and o[0] >= 0:
            card = items[p.items[o[0]]]
            e, fi = card.effect, g.fight
            f[1:6] = [float(e == x) for x in (Effect.ESCAPE, Effect.HEAL, Effect.FIGHT_BONUS, Effect.ROLL_BONUS,
                                              Effect.REFLECT)]
            f[6], f[7] = card.amount / 5, p.hp / r.max_hp
            f[8] = max(0, r.max_hp - p.hp) / r.max_hp if e == Effect.HEAL else 0.0
            other = fi.seats[1] if fi.seats[0] == seat else fi.seats[0]
            f[9], f[10], f[11] = float(fi.attacker == seat), float(fi.roll == 0), float(other == NOBODY)
            f[12] = (p.hp - (fi.monster_hp if other == NOBODY else g.players[other].hp)) / 10
            f[13] = h.combat_score(g, seat, o) / 100
        elif kind == Decision.COMBAT_CARD:
            f[0] = 1.0
        elif kind == Decision.DEFENDER:
            card, invader = mons[o], g.players[g.seat]
            guard = card.amount if card.buff == Buff.GUARD and p.active[k] else 0
            hp = card.hp + (r.mansion_monster_hp_bonus if g.tile[invader.pos] == Tile.MANSION else 0)
            f[:6] = [card.hp / 10, guard / 3, monster_value(g, o) / 10, float(bool(p.active[k])),
                     (hp - invader.hp) / 10, (10 * card.hp + (card.amount if card.buff == Buff.GUARD else 0)) / 100]
        elif kind == Decision.KEEP_MONSTER:
            card = mons[o]
            f[:3] = [card.hp / 10, monster_value(g, o) / 10, float(bool(p.active[k]))]
            if card.buff != Buff.NONE:
                f[3 + card.buff - Buff.FIGHT_SCORE] = card.amount / 3
        elif kind == Decision.TAKE_CARD and o[0] == 0:
            card = items[o[1]]
            combat = card.effect in (Effect.HEAL, Effect.FIGHT_BONUS, Effect.ROLL_BONUS, Effect.ESCAPE, Effect.REFLECT)
            f[0], f[2], f[4] = 1.0, item_value(g, o[1]) / 10, float(len(p.items) >= g.hand_limit(seat))
            f[5], f[7] = float(combat and card.timing != Timing.ON_TURN), item_value(g, o[1]) / 20
        elif kind == Decision.TAKE_CARD:
            f[1], f[3], f[6] = 1.0, monster_value(g, o[1]) / 10, mons[o[1]].hp / 10
            f[7] = (6 + monster_value(g, o[1])) / 20
        elif kind == Decision.DISCARD:
            card = items[o]
            e = card.effect
            combat = e in (Effect.HEAL, Effect.FIGHT_BONUS, Effect.ROLL_BONUS, Effect.ESCAPE, Effect.REFLECT)
            f[:9] = [item_value(g, o) / 10, float(combat and card.timing != Timing.ON_TURN),
                     float(card.timing != Timing.IN_COMBAT and e != Effect.WARD),
                     float(e in (Effect.GRENADE, Effect.SNARE, Effect.POISON)), float(e == Effect.HEAL),
                     max(0, r.max_hp - p.hp) / r.max_hp if e == Effect.HEAL else 0.0, float(e == Effect.WARD),
                     float(e == Effect.ESCAPE),
                     float(any(items[c].effect == e for i, c in enumerate(p.items) if i != k))]
        f[-1] = float(k == pick)
        out.append(f)
    return out


class Mirrored:
    """A seat's bot in a trace's replay that also works out the mirror's features at every decision asked that
    is not a turn's action or a free placement."""

    def __init__(self, bot, seen: list):
        self.bot, self.seen, self.name = bot, seen, getattr(bot, "name", "")

    def decide(self, g, seat: int, kind, options: list) -> int:
        if kind not in (Decision.ACTION, Decision.PLACE_FREE) and len(options) > 1:
            self.seen.append((seat, int(kind), mirror(g, seat, kind, options)))
        return self.bot.decide(g, seat, kind, options)


@pytest.mark.parametrize("setup, bots", [
    ({}, "learned:model={mixed},heuristic,learned:model={mixed},heuristic"),
    ({"board": "explorer", "players": 3}, "learned:model={mixed},heuristic,random"),
    ({"mode": "teams", "players": 4}, "heuristic,learned:model={mixed},heuristic,learned:model={mixed}"),
])
def test_the_cores_decision_features_equal_the_mirror_on_the_reference_engines_state(models, setup, bots):
    m = match(bots.format(mixed=models["mixed"]), setup)
    seen_kinds: dict[int, int] = {}
    for index in range(12):
        core_seen, record = probe(m, 7, index)
        assert record["winner_seat"] == m.play_batch(7, index, 1)["games"].to_pylist()[0]["winner_seat"]
        _, blob = trace.core_game(m, 7, index)
        run = trace.TraceReplay(trace.decode(blob), m.definition.bot_specs(m.setup),
                                m.definition.reference_bots(m.setup), m.definition.option_words)
        seen: list = []
        m.play_one(7, index, None, bots=[Mirrored(b, seen) for b in run.bots])
        run.finish()
        assert [(e["seat"], e["kind"], e["features"]) for e in core_seen] == seen
        for e in core_seen:
            seen_kinds[e["kind"]] = seen_kinds.get(e["kind"], 0) + 1
    assert seen_kinds.get(int(Decision.COMBAT_CARD), 0) >= 20 and seen_kinds.get(int(Decision.DISCARD), 0) >= 5
    assert sum(seen_kinds.values()) >= 60


def test_every_kind_of_decision_is_probed_and_mirrored_somewhere(models):
    """Over enough games every kind shows up (defenders and monsters kept are rare: invasions, knockouts with
    monsters), each equal to its mirror."""
    m = match(f"learned:model={models['mixed']},learned:model={models['mixed']},heuristic,heuristic")
    kinds: set[int] = set()
    for index in range(80):
        core_seen, _ = probe(m, 11, index)
        new = {e["kind"] for e in core_seen} - kinds
        if not new:
            continue
        kinds |= new
        _, blob = trace.core_game(m, 11, index)
        run = trace.TraceReplay(trace.decode(blob), m.definition.bot_specs(m.setup),
                                m.definition.reference_bots(m.setup), m.definition.option_words)
        seen: list = []
        m.play_one(11, index, None, bots=[Mirrored(b, seen) for b in run.bots])
        assert [(e["seat"], e["kind"], e["features"]) for e in core_seen] == seen
        if kinds == {int(KINDS[d.kind]) for d in DECISIONS}:
            break
    assert kinds == {int(KINDS[d.kind]) for d in DECISIONS}


# -- the heuristic-equivalent weights; a model without a block -------------------------------------------------
@pytest.mark.parametrize("setup", [{}, {"board": "explorer", "players": 2}, {"mode": "teams", "players": 4}])
def test_the_heuristic_equivalent_weights_play_the_heuristics_games(models, setup):
    n = 2 if setup.get("players") == 2 else 4
    # a model of the heuristic's pick with the heuristic's block: the heuristic's games, combat fast path and all
    ours = match(",".join([f"learned:model={models['heuristic']}"] * n), setup).play_batch(4, 0, 300)["games"]
    theirs = match("heuristic", setup).play_batch(4, 0, 300)["games"]
    assert ours.drop(["bots"]).equals(theirs.drop(["bots"]))
    # paws-3 with the heuristic's block plays paws-3's games
    seats = [f"learned:model={models['paws3h']}", "heuristic"] * (n // 2)
    with_block = match(",".join(seats), setup).play_batch(4, 0, 300)["games"]
    without = match(",".join(s.replace(str(models["paws3h"]), "paws-3") for s in seats), setup).play_batch(4, 0, 300)
    assert with_block.drop(["bots"]).equals(without["games"].drop(["bots"]))


def test_a_model_without_a_block_keeps_its_digest_and_its_file_and_a_block_changes_the_digest(models):
    path = registry.get("paws").models_dir / "paws-3.json"
    paws3 = read_model(path, FEATURES)
    assert paws3.decisions == () and len(paws3.core()) == 3 and paws3.core()[2][0] == paws3.hidden
    assert json.loads(paws3.to_json()) == {**json.loads(path.read_text()), "provenance": paws3.provenance}
    with_block = read_model(models["paws3h"], FEATURES)
    assert with_block.decisions == FEATURES.heuristic_decisions() and with_block.digest != paws3.digest


# -- a planted absurd weight changes exactly the decisions of its kind ------------------------------------------
@pytest.mark.parametrize("name, kind", [("discard_best", Decision.DISCARD), ("always_pass", Decision.COMBAT_CARD)])
def test_a_planted_absurd_weight_changes_exactly_the_decisions_of_its_kind(models, name, kind):
    m = match(f"learned:model={models[name]},heuristic,heuristic,heuristic")
    changed = 0
    for index in range(40):
        seen, _ = probe(m, 3, index)
        for e in seen:
            if e["seat"] != 0 or e["kind"] != kind:
                assert e["choice"] == e["pick"], e
                continue
            if kind == Decision.DISCARD:        # the best card by the heuristic's worth, the first on ties
                worth = [f[0] for f in e["features"]]
                assert e["choice"] == worth.index(max(worth))
            else:                               # pass, listed first
                assert e["choice"] == 0
            changed += e["choice"] != e["pick"]
    assert changed >= 5
    planted = m.play_batch(3, 0, 200)["games"].drop(["bots"])
    assert planted != match("learned:model={},heuristic,heuristic,heuristic".format(models["heuristic"])).play_batch(
        3, 0, 200)["games"].drop(["bots"])


# -- no peeking -------------------------------------------------------------------------------------------------
@pytest.mark.parametrize("setup", [{}, {"board": "explorer", "players": 3}, {"mode": "teams", "players": 4}])
def test_re_dealing_what_the_seat_cannot_see_and_reseeding_the_dice_change_no_feature_and_no_choice(models, setup):
    n = setup.get("players", 4)
    m = match(",".join([f"learned:model={models['mixed']}"] * n), setup)
    checked: dict[int, int] = {}
    hidden_changed = 0
    for index in range(25):
        seen, _ = probe(m, 9, index, (1, 2))
        for e in seen:
            for other in e["redealt"]:
                hidden_changed += other["hidden_changed"]
                assert other["options"] == e["options"]
                assert other["features"] == e["features"]
                assert other["choice"] == e["choice"]
            checked[e["kind"]] = checked.get(e["kind"], 0) + 1
    assert checked.get(int(Decision.COMBAT_CARD), 0) >= 20 and checked.get(int(Decision.DISCARD), 0) >= 3
    assert len(checked) >= 3 and hidden_changed >= sum(checked.values())


# -- replays, copies ---------------------------------------------------------------------------------------------
def test_a_game_with_a_block_replays_alone_and_through_its_trace(models):
    m = match(f"learned:model={models['mixed']},heuristic,random,learned:model={models['discard_best']}")
    batch = m.play_batch(9, 0, 40)["games"].to_pylist()
    for i in (0, 17, 39):
        assert m.play_batch(9, i, 1)["games"].to_pylist()[0] == batch[i]
        record, blob = trace.core_game(m, 9, i)
        replayed = trace.replay(m, 9, i, blob, [])
        assert {k: replayed[k] for k in record} == record


def test_a_paused_games_copy_keeps_the_block(models):
    from core.paws_scenario import PausedGame
    from sim.paws.core_engine import core_inputs
    m = match(f"learned:model={models['discard_best']},heuristic,heuristic,heuristic")
    inputs = core_inputs(m.setup, m.rules, m.data)
    for index in range(6):
        whole = PausedGame(inputs, 3, index, -1).record()
        pg = PausedGame(inputs, 3, index, 20)
        copy = pg.copy()
        del pg                                  # the copy's block is its own
        copy.play_on()
        assert copy.record() == whole
        assert whole["winner_seat"] == m.play_batch(3, index, 1)["games"].to_pylist()[0]["winner_seat"]


def test_a_search_with_a_model_plays_its_simulations_other_decisions_by_the_block(models, tmp_path):
    """The search's simulations play every seat by the model, its block included: the heuristic-equivalent block
    searches exactly as the same model without a block, a planted block otherwise."""
    unblocked = write(tmp_path / "unblocked.json", dataclasses.replace(block_model(), decisions=(), decision_features=""))
    g = "mcts:iterations=8:depth=4:model={},heuristic,heuristic,heuristic"
    planted = match(g.format(models["always_pass"])).play_batch(3, 0, 12)["games"]
    same = match(g.format(models["heuristic"])).play_batch(3, 0, 12)["games"]
    assert same.drop(["bots"]).equals(match(g.format(unblocked)).play_batch(3, 0, 12)["games"].drop(["bots"]))
    assert planted.drop(["bots"]).to_pylist() != same.drop(["bots"]).to_pylist()
    assert match(g.format(models["always_pass"])).play_batch(3, 5, 1)["games"].to_pylist()[0] == planted.to_pylist()[5]


@pytest.mark.parametrize("setup", [{"players": 4}, {"board": "explorer", "players": 3}, {"mode": "teams"}])
def test_games_with_a_block_keep_the_record_invariants(models, setup):
    m = match(f"learned:model={models['mixed']}", setup)
    for rec in m.play_batch(2, 0, 1000)["games"].to_pylist():
        check_record(rec, m.setup)


# -- training the block -------------------------------------------------------------------------------------------
@pytest.mark.parametrize("args, message", [
    (["--decisions", "potion", "--start", "paws-3"], r"--decisions 'potion': expected all or some of combat_card, "
                                                     r"defender, keep_monster, take_card, discard$"),
    (["--decisions", "all"], r"--decisions trains a model's decisions block: name the model with --start$"),
    (["--decisions", "all", "--start", "nope"], r"no model 'nope' .* shipped models: "),
    (["--decisions", "all", "--start", "paws-3", "--iterations", "2"],
     r"--decisions trains the --start model's decisions block alone: leave out --iterations \(expert iteration's "),
    (["--decisions", "all", "--start", "paws-3", "--network", "0", "--iterations", "3"],   # the defaults, given
     r"block alone: leave out --iterations, --network \(expert iteration's options\)$"),
])
def test_train_bot_decisions_refuses_bad_input_in_one_line_before_any_game(tmp_path, monkeypatch, args, message):
    monkeypatch.chdir(tmp_path)
    res = runner.invoke(app, ["train-bot", "paws", *args])
    lines = [x for x in res.stderr.splitlines() if x.strip()]
    assert res.exit_code == 2 and len(lines) == 1 and re.search(message, lines[0]), res.output
    assert not list(tmp_path.iterdir())                     # nothing written


def test_the_block_as_a_vector_and_back(models):
    from cluster.train_decisions import decisions_vector, with_decisions_vector
    game = registry.get("paws")
    paws3 = read_model(game.models_dir / "paws-3.json", FEATURES)
    kinds = ("combat_card", "discard")
    v = decisions_vector(game, paws3, kinds)                 # no block yet: the heuristic-equivalent weights
    assert list(v) == list(FEATURES.decision("combat_card").weights()) + list(FEATURES.decision("discard").weights())
    v[0] = 0.5
    m = with_decisions_vector(game, paws3, kinds, v)
    assert [k for k, _ in m.decisions] == ["combat_card", "discard"] and m.decisions[0][1][0] == 0.5
    assert m.policy == paws3.policy and m.network == paws3.network and m.decision_features == FEATURES.decisions_id
    mixed = read_model(models["mixed"], FEATURES)
    assert with_decisions_vector(game, mixed, kinds, decisions_vector(game, mixed, kinds)) == mixed


@pytest.mark.slow
def test_training_a_block_twice_gives_the_same_bytes_and_names_its_seeds(tmp_path, models, ray_local):
    from cluster.strength import training_seeds
    from cluster.train_decisions import DecisionsRun, DecisionsSpec, train_decisions
    spec = DecisionsSpec("paws", "tiny", str(models["heuristic"]), ("combat_card", "discard"), seed=7, improve=2,
                         population=4, improve_games=3, improve_sigma=0.5, eval_games=4)
    a = train_decisions(DecisionsRun(spec, tmp_path / "a.json", tmp_path / "a.work"))
    b = train_decisions(DecisionsRun(spec, tmp_path / "b.json", tmp_path / "b.work"))
    assert (tmp_path / "a.json").read_bytes() == (tmp_path / "b.json").read_bytes()
    start = read_model(models["heuristic"], FEATURES)
    assert a.policy == start.policy and a.value == start.value and a.name == "tiny"
    assert [k for k, _ in a.decisions] == [d.kind for d in DECISIONS] and a.decisions != start.decisions
    trained = a.provenance["decisions_training"]
    assert [r["generation"] for r in trained["rows"]] == [1, 2] and trained["ladder"]["seed"] == 3007
    assert trained["ladder"]["games"] == 2 * 4 * 4
    assert {s: w for s, w in training_seeds(a.provenance).items()} == {
        2007: "the decisions block's training, generation 1", 2008: "the decisions block's training, generation 2",
        3007: "the decisions block's ladder"}
    assert read_model(tmp_path / "a.json", FEATURES) == a
