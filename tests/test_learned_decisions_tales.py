"""A Tales learned model's decisions block: the potions (3. Battle, step 1) and the Champion's choice (Game Setup),
which the policy leaves to the heuristic (sim/tales/bots/features.py DECISIONS, core/tales/learned.pxi,
docs/learned-bots.md "Tales decisions block").

Held here: the core computes the declared features and they equal a Python mirror on the reference engine's
state at every such decision of whole games (replayed through their decision traces); a block of the
heuristic-equivalent weights plays exactly the heuristic's games, and tales-3 with it plays tales-3's; a planted
absurd weight changes exactly the decisions of its kind; the block sees nothing its commander cannot (re-dealing
the hidden piles, the other Champions before they are revealed, and reseeding the dice change no feature and no
choice); restricted play keeps its rule; a game with a block replays through its trace; bad blocks are refused in
one line (tests/test_decision_block_files.py, for both games); training a block twice gives the same bytes.
"""

from __future__ import annotations

import dataclasses
import json
import re
from pathlib import Path

import pytest
from typer.testing import CliRunner

from cli.main import app
import decision_blocks as blocks
from decision_blocks import write
from sim import games as registry
from sim.kit import trace
from sim.kit.learned import Model, read_model
from sim.tales.bots.features import DECISIONS, FEATURES
from sim.tales.bots.heuristic import HeuristicBot, creature_value
from sim.tales.kinds import Ability, Decision, Effect, Kind, People

runner = CliRunner()
KINDS = {d.kind: Decision[d.kind.upper()] for d in DECISIONS}
MODES = ("standard", "2v2")


def block_model(decisions: dict[str, dict[str, float]] | None = None, name: str = "block",
                policy: dict | None = None) -> Model:
    return blocks.block_model(FEATURES, "tests/test_learned_decisions_tales.py", decisions, name, policy)


def opinions(seed: int) -> dict[str, dict[str, float]]:
    return blocks.opinions(FEATURES, seed)


@pytest.fixture(scope="module")
def models(tmp_path_factory) -> dict[str, Path]:
    root = tmp_path_factory.mktemp("models")
    tales3 = read_model(registry.get("tales").models_dir / "tales-3.json", FEATURES)
    return {
        "heuristic": write(root / "heuristic.json", block_model()),
        "tales3h": write(root / "tales3h.json", dataclasses.replace(
            tales3, name="tales3h", decisions=FEATURES.heuristic_decisions(), decision_features=FEATURES.decisions_id)),
        "mixed": write(root / "mixed.json", block_model(opinions(5), "mixed", {"heuristic_score": 1.0,
                                                                               "attacker_destroys": 1.5})),
        "no_potion": write(root / "no-potion.json", block_model({"potion": {"none": 1.0}}, "no-potion")),
        "any_potion": write(root / "any-potion.json", block_model({"potion": {"none": -1.0}}, "any-potion")),
        "short_life": write(root / "short-life.json", block_model({"champion": {"life": -1.0}}, "short-life")),
    }


def match(bots: str, mode: str = "standard", overrides: dict | None = None):
    return registry.get("tales").resolve(None, overrides or {}, {"mode": mode, "bots": bots}, {})


def probe(m, seed: int, index: int, redeals: tuple = ()):
    """core.tales_scenario.decision_probe on game ``index`` of ``m``: (the decisions asked, the record)."""
    from core.tales_scenario import decision_probe
    from sim.tales.core_engine import core_inputs
    return decision_probe(core_inputs(m.setup, m.rules, m.data), seed, index, redeals)


# -- the declarations ---------------------------------------------------------------------------------------
def test_the_core_computes_the_declared_decision_features():
    from core.tales_engine import LEARNED_DECISIONS
    from core.tales_scenario import LEARNED_DECISIONS as SCENARIO
    assert LEARNED_DECISIONS == SCENARIO == {d.kind: (int(KINDS[d.kind]), len(d.features)) for d in DECISIONS}
    assert registry.get("tales").features.decisions == DECISIONS
    for d in DECISIONS:
        assert d.features[-1][0] == "heuristic_pick" and len({n for n, _ in d.features}) == len(d.features)
        assert 5 <= len(d.features) <= 12 and d.weights() == tuple([0.0] * (len(d.features) - 1) + [1.0])
    assert FEATURES.decisions_id.startswith("tales-decisions-2@") and FEATURES.id.startswith("tales-features-2@")


def test_the_docs_tables_name_every_declared_feature_in_order():
    text = (Path(__file__).parent.parent / "docs" / "learned-bots.md").read_text()
    section = text.split("### Tales decisions block", 1)[1].split("\n## ", 1)[0]
    for d in DECISIONS:
        table = section.split(f"`{d.kind}` ({len(d.features)}):", 1)[1].split("\n\n", 2)[1]
        named = [n for row in table.splitlines()[2:] for n in re.findall(r"`(\w+)`", row.split("|")[2])]
        assert named == [n for n, _ in d.features]


# -- the features: the core's equal a Python mirror on the reference engine's state ----------------------------
def roll(chance: int) -> float:
    return 1.0 if chance <= 0 else min(1.0, max(0.0, (7 - chance) / 6.0))


def fighter(g, p) -> dict:
    """core/tales/learned.pxi fighter_of, on the reference engine's state."""
    st, c = g.seats[p[0]], g.card(p)
    unblocked, sure_first = 1.0, g.has_potion(p, Effect.FIRST_STRIKE)
    attack, armor, life = c.damage, 0, c.life - st.damage[p[1]]
    for e in g.gear_cards(p):
        attack, armor, life = attack + e.damage, armor + e.armor, life + e.life
        if e.kind == Kind.SHIELD:
            unblocked *= 1.0 - roll(e.block)
        if e.kind == Kind.RANGED:
            sure_first = True
    chance = roll(c.ability_chance)
    return {"attack": attack + g.potion_bonus(p, Effect.STRENGTH), "armor": armor + g.potion_bonus(p, Effect.ARMOR),
            "life": max(1, life), "first": 1.0 if sure_first else (chance if c.ability == Ability.FIRST_STRIKE else 0.0),
            "block": 1.0 - unblocked * (1.0 - (chance if c.ability == Ability.EVADE else 0.0)),
            "death_blow": chance if c.ability == Ability.DEATH_BLOW else 0.0,
            "armor_chance": chance if c.ability == Ability.ARMOR else 0.0,
            "armor_amount": c.ability_amount if c.ability == Ability.ARMOR else 0,
            "shadow": roll(c.people_chance) if c.people == People.SCHATTEN else 0.0}


def kill_chance(by: dict, t: dict) -> float:
    d0, lethal = max(0, by["attack"] - t["armor"]), 0.0
    for a in range(2):
        pa = t["armor_chance"] if a else 1.0 - t["armor_chance"]
        d1 = max(0, d0 - t["armor_amount"]) if a and d0 > 0 else d0
        for h in range(2):
            ph = t["shadow"] if h else 1.0 - t["shadow"]
            d2 = d1 // 2 if h and d1 > 0 else d1
            if d2 >= t["life"]:
                lethal += pa * ph
    return (1.0 - t["block"]) * (by["death_blow"] + (1.0 - by["death_blow"]) * lethal)


def foresee(att: dict, dfn: dict) -> tuple[float, float]:
    """(the chance the attacker falls, the chance the defender falls)."""
    ka, kd = kill_chance(att, dfn), kill_chance(dfn, att)
    both = att["first"] * dfn["first"] + (1 - att["first"]) * (1 - dfn["first"])
    att_only, dfn_only = att["first"] * (1 - dfn["first"]), (1 - att["first"]) * dfn["first"]
    return (both + dfn_only) * kd + att_only * (1 - ka) * kd, (both + att_only) * ka + dfn_only * (1 - kd) * ka


def potion_fight(g, me, equipment_id: int) -> tuple[float, float]:
    """(the chance ``me`` falls, the chance its foe falls) with the potion drunk (-1: none), as drink() would."""
    st = g.seats[me[0]]
    kept = (st.damage[me[1]], list(st.potion[me[1]]))
    if equipment_id >= 0:
        e = g.cards.equipment[equipment_id]
        if e.effect == Effect.HEAL:
            st.damage[me[1]] = max(0, st.damage[me[1]] - e.amount)
        else:
            st.potion[me[1]] = [int(e.effect), e.amount, 1]
    att, dfn = g.fight
    foe = dfn if tuple(att) == tuple(me) else att
    fm, ff = fighter(g, me), fighter(g, foe)
    st.damage[me[1]], st.potion[me[1]] = kept
    if tuple(att) == tuple(me):
        return foresee(fm, ff)
    falls_foe, falls_me = foresee(ff, fm)
    return falls_me, falls_foe


def mirror(g, seat: int, kind: Decision, options: list) -> list[list[float]]:
    """The declared features of each option, worked out from the reference engine's state."""
    h = HeuristicBot()
    pick = h.decide(g, seat, kind, options)
    n = len(next(d for d in DECISIONS if KINDS[d.kind] == kind).features)
    out = []
    for k, o in enumerate(options):
        f = [0.0] * n
        if kind == Decision.POTION:
            att, dfn = g.fight
            me = att if att[0] == seat else dfn
            if o < 0:
                f[0] = 1.0
            else:
                e = g.cards.equipment[g.seats[seat].hand[o]]
                f[1:5] = [float(e.effect == x) for x in (Effect.HEAL, Effect.STRENGTH, Effect.ARMOR, Effect.FIRST_STRIKE)]
                f[5] = e.amount / 5.0
                f[6] = min(e.amount, g.seats[me[0]].damage[me[1]]) / 5.0 if e.effect == Effect.HEAL else 0.0
                with_it, without = potion_fight(g, me, e.id), potion_fight(g, me, -1)
                f[7], f[8] = with_it[0] - without[0], with_it[1] - without[1]
                f[9] = float(h.is_champion(g, me))
            f[10] = h.potion_score(g, seat, o) / 10.0
        else:
            c = g.cards.creatures[o]
            f[:7] = [c.damage / 10.0, c.life / 10.0, c.tier / 3.0, float(c.ability != Ability.NONE),
                     roll(c.ability_chance) if c.ability != Ability.NONE else 0.0, c.points / 5.0,
                     creature_value(g, o, h.w) / 20.0]
        f[-1] = float(k == pick)
        out.append(f)
    return out


class Mirrored:
    """A seat's bot in a trace's replay that also works out the mirror's features at every potion and Champion
    decision asked."""

    def __init__(self, bot, seen: list):
        self.bot, self.seen, self.name = bot, seen, getattr(bot, "name", "")

    def decide(self, g, seat: int, kind, options: list) -> int:
        if kind in (Decision.POTION, Decision.CHAMPION) and len(options) > 1:
            self.seen.append((seat, int(kind), mirror(g, seat, kind, options)))
        return self.bot.decide(g, seat, kind, options)


def mirrored(m, seed: int, index: int) -> list:
    _, blob = trace.core_game(m, seed, index)
    run = trace.TraceReplay(trace.decode(blob), m.definition.bot_specs(m.setup), m.definition.reference_bots(m.setup),
                            m.definition.option_words)
    seen: list = []
    m.play_one(seed, index, None, bots=[Mirrored(b, seen) for b in run.bots])
    run.finish()
    return seen


@pytest.mark.parametrize("mode, bots", [
    ("standard", "learned:model={mixed},heuristic"),
    ("2v2", "heuristic,learned:model={mixed},random,learned:model={mixed}"),
    ("survive", "learned:model={mixed},learned:model={mixed}"),
])
def test_the_cores_decision_features_equal_the_mirror_on_the_reference_engines_state(models, mode, bots):
    m = match(bots.format(mixed=models["mixed"]), mode)
    random_seats = {s for s, spec in enumerate(bots.split(",")) if spec == "random"}
    kinds: dict[int, int] = {}
    moved = 0
    for index in range(10):
        core_seen, record = probe(m, 7, index)
        assert record["winner_team"] == m.play_batch(7, index, 1)["games"].to_pylist()[0]["winner_team"]
        # a random seat's features are not compared: its core bot carries no heuristic weights to rate options with
        assert ([(e["seat"], e["kind"], e["features"]) for e in core_seen if e["seat"] not in random_seats]
                == [s for s in mirrored(m, 7, index) if s[0] not in random_seats])
        for e in core_seen:
            kinds[e["kind"]] = kinds.get(e["kind"], 0) + 1
            moved += sum(abs(f[7]) + abs(f[8]) > 1e-9 for f in e["features"]) if e["kind"] == Decision.POTION else 0
    assert kinds.get(int(Decision.POTION), 0) >= 40 and kinds.get(int(Decision.CHAMPION), 0) >= 10
    assert moved >= 10                                  # some potions change the foreseen fight


# -- the heuristic-equivalent weights; a model without a block -------------------------------------------------
@pytest.mark.parametrize("mode", MODES)
def test_the_heuristic_equivalent_weights_play_the_heuristics_games(models, mode):
    n = 4 if mode == "2v2" else 2
    ours = match(",".join([f"learned:model={models['heuristic']}"] * n), mode).play_batch(4, 0, 200)["games"]
    theirs = match("heuristic", mode).play_batch(4, 0, 200)["games"]
    assert ours.drop(["bots"]).equals(theirs.drop(["bots"]))
    seats = [f"learned:model={models['tales3h']}", "heuristic"] * (n // 2)
    with_block = match(",".join(seats), mode).play_batch(4, 0, 200)["games"]
    without = match(",".join(s.replace(str(models["tales3h"]), "tales-3") for s in seats), mode).play_batch(4, 0, 200)
    assert with_block.drop(["bots"]).equals(without["games"].drop(["bots"]))


def test_a_model_without_a_block_keeps_its_digest_and_its_file_and_a_block_changes_the_digest(models):
    path = registry.get("tales").models_dir / "tales-3.json"
    tales3 = read_model(path, FEATURES)
    assert tales3.decisions == () and json.loads(tales3.to_json()) == {**json.loads(path.read_text()),
                                                                       "provenance": tales3.provenance}
    with_block = read_model(models["tales3h"], FEATURES)
    assert with_block.decisions == FEATURES.heuristic_decisions() and with_block.digest != tales3.digest


# -- a planted absurd weight changes exactly the decisions of its kind ------------------------------------------
@pytest.mark.parametrize("name, kind", [("no_potion", Decision.POTION), ("any_potion", Decision.POTION),
                                        ("short_life", Decision.CHAMPION)])
def test_a_planted_absurd_weight_changes_exactly_the_decisions_of_its_kind(models, name, kind):
    m = match(f"learned:model={models[name]},heuristic")
    changed = 0
    for index in range(40):
        seen, _ = probe(m, 3, index)
        for e in seen:
            if e["seat"] != 0 or e["kind"] != kind:
                assert e["choice"] == e["pick"], e
                continue
            if name == "no_potion":             # no potion, listed first
                assert e["choice"] == 0
            elif name == "any_potion":          # the first potion listed
                assert e["choice"] == 1
            else:                               # the Champion of the least life, the first on ties
                life = [f[1] for f in e["features"]]
                assert e["choice"] == life.index(min(life))
            changed += e["choice"] != e["pick"]
    assert changed >= 5
    planted = m.play_batch(3, 0, 200)["games"].drop(["bots"])
    assert planted != match(f"learned:model={models['heuristic']},heuristic").play_batch(3, 0, 200)["games"].drop(
        ["bots"])


def test_restricted_play_keeps_its_rule_with_a_block(models):
    """``forbid=potion``: a block that would drink every potion drinks none, and plays the same games as the
    heuristic-equivalent block does under the same rule."""
    eager = match(f"learned:model={models['any_potion']}:forbid=potion,heuristic")
    plain = match(f"learned:model={models['heuristic']}:forbid=potion,heuristic")
    seen_potions = 0
    for index in range(10):
        seen, _ = probe(eager, 5, index)
        for e in seen:
            if e["seat"] == 0 and e["kind"] == Decision.POTION:
                assert e["choice"] == 0
                seen_potions += 1
    assert seen_potions >= 5
    assert eager.play_batch(5, 0, 100)["games"].drop(["bots"]).equals(
        plain.play_batch(5, 0, 100)["games"].drop(["bots"]))


# -- no peeking -------------------------------------------------------------------------------------------------
@pytest.mark.parametrize("mode", MODES)
def test_re_dealing_what_the_commander_cannot_see_and_reseeding_the_dice_change_no_feature_and_no_choice(models,
                                                                                                       mode):
    n = 4 if mode == "2v2" else 2
    m = match(",".join([f"learned:model={models['mixed']}"] * n), mode)
    checked: dict[int, int] = {}
    hidden_changed = 0
    for index in range(15):
        seen, _ = probe(m, 9, index, (1, 2))
        for e in seen:
            for other in e["redealt"]:
                hidden_changed += other["hidden_changed"]
                assert other["options"] == e["options"]
                assert other["features"] == e["features"]
                assert other["choice"] == e["choice"]
            checked[e["kind"]] = checked.get(e["kind"], 0) + 1
    assert checked.get(int(Decision.POTION), 0) >= 20 and checked.get(int(Decision.CHAMPION), 0) >= 15
    # every redeal changed something hidden, the other Champions chosen before too (all but the first commander's)
    assert hidden_changed >= 2 * sum(checked.values()) - 2 * 15


# -- replays, copies ---------------------------------------------------------------------------------------------
def test_a_game_with_a_block_replays_alone_and_through_its_trace(models):
    m = match(f"learned:model={models['mixed']},heuristic,random,learned:model={models['any_potion']}", "2v2")
    batch = m.play_batch(9, 0, 40)["games"].to_pylist()
    for i in (0, 17, 39):
        assert m.play_batch(9, i, 1)["games"].to_pylist()[0] == batch[i]
        record, blob = trace.core_game(m, 9, i)
        replayed = trace.replay(m, 9, i, blob, [])
        assert {k: replayed[k] for k in record} == record


def test_a_search_with_a_model_plays_its_simulations_potions_by_the_block(models, tmp_path):
    """The search's simulations play every seat by the model, its block included: the heuristic-equivalent block
    searches exactly as the same model without a block, a planted block otherwise."""
    unblocked = write(tmp_path / "unblocked.json", dataclasses.replace(block_model(), decisions=(), decision_features=""))
    g = "mcts:iterations=8:depth=4:model={},heuristic"
    planted = match(g.format(models["no_potion"])).play_batch(3, 0, 12)["games"]
    same = match(g.format(models["heuristic"])).play_batch(3, 0, 12)["games"]
    assert same.drop(["bots"]).equals(match(g.format(unblocked)).play_batch(3, 0, 12)["games"].drop(["bots"]))
    assert planted.drop(["bots"]).to_pylist() != same.drop(["bots"]).to_pylist()


# -- training the block -------------------------------------------------------------------------------------------
def test_train_bot_decisions_takes_tales_kinds_and_refuses_others_in_one_line(tmp_path, monkeypatch):
    from cluster.train_decisions import decision_kinds
    game = registry.get("tales")
    assert decision_kinds(game, "all") == ("potion", "champion") and decision_kinds(game, "champion") == ("champion",)
    monkeypatch.chdir(tmp_path)
    res = runner.invoke(app, ["train-bot", "tales", "--decisions", "discard", "--start", "tales-3"])
    lines = [x for x in res.stderr.splitlines() if x.strip()]
    assert res.exit_code == 2 and len(lines) == 1 and re.search(
        r"--decisions 'discard': expected all or some of potion, champion$", lines[0]), res.output
    assert not list(tmp_path.iterdir())


@pytest.mark.slow
def test_training_a_block_twice_gives_the_same_bytes(tmp_path, models, ray_local):
    from cluster.train_decisions import DecisionsRun, DecisionsSpec, train_decisions
    spec = DecisionsSpec("tales", "tiny", "tales-3", ("potion", "champion"), seed=7, improve=2, population=4,
                         improve_games=3, improve_sigma=0.5, eval_games=4)
    a = train_decisions(DecisionsRun(spec, tmp_path / "a.json", tmp_path / "a.work"))
    train_decisions(DecisionsRun(spec, tmp_path / "b.json", tmp_path / "b.work"))
    assert (tmp_path / "a.json").read_bytes() == (tmp_path / "b.json").read_bytes()
    start = read_model(registry.get("tales").models_dir / "tales-3.json", FEATURES)
    assert a.policy == start.policy and a.value == start.value and a.network == start.network and a.name == "tiny"
    assert [k for k, _ in a.decisions] == ["potion", "champion"] and a.decisions != FEATURES.heuristic_decisions()
    trained = a.provenance["decisions_training"]
    assert [r["generation"] for r in trained["rows"]] == [1, 2] and trained["ladder"]["seed"] == 3007
    assert read_model(tmp_path / "a.json", FEATURES) == a
