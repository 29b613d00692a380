"""The reference engines' shared kit (sim/kit): bot specs, the random bot, the decision hook, card piles
and rule presets, each on its own and as both games use it."""

import dataclasses
from dataclasses import dataclass

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from budget import examples

from core.rng import CoreRng
from sim.kit.bots import BOT_KINDS, SEARCH_KINDS, BotRoster, LearnedBot, RandomBot, SearchBot, best, load_weight_presets
from sim.kit.learned import shipped_models
from sim.kit.decks import draw, put_under, reshuffle
from sim.kit.presets import pick_preset
from sim.kit.state import NOBODY, GameState
from sim.params import RuleError, as_dict, fields, param
from sim.paws import bots as paws_bots
from sim.paws.rules import PRESETS as PAWS_PRESETS
from sim.paws.rules import preset as paws_preset
from sim.rng import Rng
from sim.tales import bots as tales_bots
from sim.tales.rules import PRESETS as TALES_PRESETS
from sim.tales.rules import preset as tales_preset

ROSTERS = {"paws": paws_bots.ROSTER, "tales": tales_bots.ROSTER}


# -- bot specs -------------------------------------------------------------------------------------

def weight_text(roster: BotRoster) -> st.SearchStrategy[str]:
    """``name=value`` items: real weight names or not, values in range, out of range or not numbers."""
    names = st.sampled_from([f.name for f in fields(roster.weights)]) | st.text(max_size=8)
    choices = [c for f in fields(roster.weights) for c in (f.metadata["choices"] or ())]
    values = st.integers(-5, 40).map(str) | st.text(max_size=6) | st.sampled_from(choices)
    return st.builds(lambda n, v, eq: f"{n}={v}" if eq else f"{n}{v}", names, values,
                     st.sampled_from([True, True, True, False]))


def spec_text(roster: BotRoster) -> st.SearchStrategy[str]:
    """Anything a user might type as a bot: arbitrary text, or a kind with ``:``-separated items."""
    kinds = st.sampled_from(("heuristic",) * 3 + BOT_KINDS + ("", "Heuristic", "greedy")) | st.text(max_size=10)
    structured = st.builds(lambda k, items, pad: pad + ":".join([k, *items]) + pad, kinds,
                           st.lists(weight_text(roster), max_size=3), st.sampled_from(["", " ", "\t"]))
    return st.text() | structured


@pytest.mark.parametrize("game", sorted(ROSTERS))
@settings(max_examples=examples(400), deadline=None)
@given(data=st.data())
def test_any_bot_spec_is_a_bot_or_one_clear_error(game, data):
    roster = ROSTERS[game]
    spec = data.draw(spec_text(roster))
    try:
        bot = roster.parse(spec)
    except RuleError as e:
        assert str(e).startswith(f"bot {spec!r}: "), str(e)   # names the spec the user gave
        return
    kind = spec.strip().split(":")[0]
    if kind == "random":
        assert type(bot) is RandomBot and spec.strip() == "random"
    elif kind in SEARCH_KINDS:   # tests/test_search_bots.py holds their parameters
        assert type(bot) is SearchBot and bot.name == kind
    elif kind == "learned":      # tests/test_learned_bots.py holds their models; alone: the strongest shipped
        assert type(bot) is LearnedBot and bot.model.name in shipped_models(roster.models)
    else:
        assert kind == "heuristic" and type(bot) is roster.heuristic
        for f in fields(bot.w):   # every accepted weight is within its declared range or one of its choices
            if f.metadata["choices"]:
                assert getattr(bot.w, f.name) in f.metadata["choices"]
            else:
                assert f.metadata["min"] <= getattr(bot.w, f.name) <= f.metadata["max"]


@pytest.mark.parametrize("game", sorted(ROSTERS))
@settings(max_examples=examples(200), deadline=None)
@given(data=st.data())
def test_heuristic_specs_set_exactly_the_weights_named(game, data):
    roster = ROSTERS[game]
    chosen = data.draw(st.dictionaries(st.sampled_from(fields(roster.weights)),
                                       st.integers(0, 10), max_size=4))
    values = {f.name: (f.metadata["choices"][v % len(f.metadata["choices"])] if f.metadata["choices"]
                       else max(f.metadata["min"], min(f.metadata["max"], v))) for f, v in chosen.items()}
    spec = ":".join(["heuristic", *(f"{k}={v}" for k, v in values.items())])
    bot = roster.parse(spec)
    assert bot.w == dataclasses.replace(roster.weights(), **values)


def test_bot_spec_errors_name_the_valid_choices():
    parse = paws_bots.parse_bot
    with pytest.raises(RuleError, match=r"^bot 'greedy': unknown bot 'greedy'; valid bots: random, heuristic, mcts, "
                                        r"flat, learned$"):
        parse("greedy")
    with pytest.raises(RuleError, match=r"^bot 'random:seed=3': the random bot takes no weights$"):
        parse("random:seed=3")
    with pytest.raises(RuleError, match=r"^bot 'heuristic:aggression': 'aggression' is not of the form name=value$"):
        parse("heuristic:aggression")
    with pytest.raises(RuleError, match=r"^bot 'heuristic:aggression=11': aggression = '11' is not allowed; "
                                        r"expected an integer from 0 to 10$"):
        parse("heuristic:aggression=11")
    with pytest.raises(RuleError, match=r"unknown weight 'heal_threshold'; valid weights: aggression, caution"):
        tales_bots.parse_bot("heuristic:heal_threshold=3")   # a Paws weight is not a Tales weight


def test_weight_presets_start_a_heuristic_from_a_named_weight_set(tmp_path):
    path = tmp_path / "presets.toml"
    path.write_text('[bold]\nabout = "a test set"\naggression = 7\n[shy]\naggression = 0\ncaution = 2\n')
    roster = BotRoster(tales_bots.HeuristicBot, tales_bots.HeuristicWeights,
                       load_weight_presets(path, tales_bots.HeuristicWeights))
    assert list(roster.presets) == ["default", "bold", "shy"]
    assert roster.parse("heuristic:preset=bold").w == tales_bots.HeuristicWeights(aggression=7)
    assert roster.parse("heuristic:preset=shy:caution=1").w == tales_bots.HeuristicWeights(aggression=0, caution=1)
    assert roster.parse("heuristic:preset=default").w == tales_bots.HeuristicWeights()
    with pytest.raises(RuleError, match=r"^bot 'heuristic:preset=wild': unknown weight preset 'wild'; "
                                        r"valid presets: default, bold, shy$"):
        roster.parse("heuristic:preset=wild")
    path.write_text("[bad]\naggression = 99\n")
    with pytest.raises(RuleError, match=r"presets.toml \[bad\]: aggression = 99 is not allowed"):
        load_weight_presets(path, tales_bots.HeuristicWeights)
    assert list(load_weight_presets(tmp_path / "none.toml", tales_bots.HeuristicWeights)) == ["default"]


def test_make_bots_gives_one_bot_per_seat_in_seat_order():
    bots = tales_bots.make_bots(["random", " heuristic:caution=0 ", "heuristic"])
    assert [b.name for b in bots] == ["random", "heuristic", "heuristic"]
    assert bots[1].w.caution == 0 and bots[2].w == tales_bots.HeuristicWeights()


# -- the random bot and the decision hook -------------------------------------------------------------

class Recorder:
    """A bot that picks the last option and remembers what it was asked."""

    def __init__(self):
        self.asked = []

    def decide(self, g, seat, kind, options):
        self.asked.append((seat, kind, list(options)))
        return len(options) - 1


def test_random_bot_draws_below_the_option_count_from_the_game_stream():
    g = GameState(None, None, None, [RandomBot(), RandomBot()], Rng.for_game(2024, 5), None)
    sizes = [2, 3, 6, 7, 52, 2, 10]
    picks = [g.ask(k % 2, "any", list(range(n))) for k, n in enumerate(sizes)]
    assert picks == [0, 2, 5, 0, 49, 1, 7]
    core = CoreRng.for_game(2024, 5)                       # the core's random bot draws the same numbers
    assert picks == [core.below(n) for n in sizes]


def test_a_choice_of_one_is_not_asked_and_draws_nothing():
    rec = Recorder()
    g = GameState(None, None, None, [RandomBot(), rec], Rng(7), None)
    state = g.rng.state
    assert g.ask(0, "any", ["only"]) == 0 and g.rng.state == state
    assert g.choose(1, "any", [(3, 4)]) == (3, 4) and rec.asked == []
    assert g.choose(1, "kind", ["a", "b", "c"]) == "c"
    assert g.ask(1, "kind", ["a", "b"]) == 1
    assert rec.asked == [(1, "kind", ["a", "b", "c"]), (1, "kind", ["a", "b"])]


def test_say_keeps_a_log_only_when_given_one():
    g = GameState(None, None, None, [], Rng(1), [])
    g.say("P0 rolls 6")
    assert g.log == ["P0 rolls 6"]
    quiet = GameState(None, None, None, [], Rng(1), None)
    quiet.say("P0 rolls 6")
    assert quiet.log is None


def test_both_games_decide_through_the_kit_hook():
    from sim.paws.state import NOBODY as PAWS_NOBODY
    from sim.paws.state import Game as PawsGame
    from sim.tales.state import NOBODY as TALES_NOBODY
    from sim.tales.state import Game as TalesGame
    for game in (PawsGame, TalesGame):
        assert game.ask is GameState.ask and game.choose is GameState.choose and game.say is GameState.say
    assert PAWS_NOBODY == TALES_NOBODY == NOBODY == -1


@settings(max_examples=examples(200), deadline=None)
@given(st.lists(st.integers(-50, 50), min_size=1, max_size=12))
def test_best_is_the_first_highest_score(scores):
    i = best(scores)
    assert scores[i] == max(scores) and all(s < scores[i] for s in scores[:i])


# -- card piles -------------------------------------------------------------------------------------

def test_draw_takes_cards_off_the_top_in_order_and_stops_when_the_pile_runs_out():
    pile = [10, 11, 12, 13]                                  # 13 is the top card
    assert draw(pile, 3) == [13, 12, 11] and pile == [10]
    assert draw(pile, 5) == [10] and pile == []
    assert draw(pile, 2) == []


def test_a_card_put_under_is_drawn_last():
    pile = [1, 2]
    put_under(pile, 9)
    assert draw(pile, 3) == [2, 1, 9]


def test_reshuffle_makes_the_pile_from_the_discard_pile_with_one_shuffle():
    rng, twin = Rng.for_game(3, 1), Rng.for_game(3, 1)
    pile, discard = [], [5, 6, 7, 8, 9]
    reshuffle(rng, pile, discard)
    expected = [5, 6, 7, 8, 9]
    twin.shuffle(expected)
    assert pile == expected == [8, 7, 6, 5, 9] and discard == []
    assert rng.state == twin.state                           # the same four draws, nothing more


# -- rule presets -----------------------------------------------------------------------------------

@dataclass(frozen=True)
class ToyRules:
    """A third game's rule set, to show the kit needs nothing of Paws or Tales."""
    ruleset: str = param("basic", "preset name", choices=("basic", "long"))
    rounds: int = param(3, "rounds in a game", min=1, max=9)
    bonus: bool = param(False, "a bonus die")


TOY = {"basic": ToyRules(), "long": ToyRules(ruleset="long", rounds=8)}


def test_pick_preset_gives_the_named_rule_set_with_validated_overrides():
    assert pick_preset(TOY, "long") == TOY["long"]
    assert pick_preset(TOY, "long", {"bonus": "yes", "rounds": "2"}) == ToyRules("long", 2, True)
    with pytest.raises(RuleError, match=r"^setup: unknown Toy rule set 'short'; valid rule sets: basic, long$"):
        pick_preset(TOY, "short", where="setup", title="Toy")
    with pytest.raises(RuleError, match=r"^rules: rounds = 12 is not allowed; expected an integer from 1 to 9$"):
        pick_preset(TOY, "basic", {"rounds": 12})
    with pytest.raises(RuleError, match=r"unknown rule parameter 'round' \(did you mean 'rounds'\?\); "
                                        r"valid rule parameters: bonus, rounds"):
        pick_preset(TOY, "basic", {"round": 4})


@pytest.mark.parametrize("preset, presets, title", [(paws_preset, PAWS_PRESETS, "Paws in Peril"),
                                                    (tales_preset, TALES_PRESETS, "Tales are Real")])
def test_each_game_picks_its_presets_through_the_kit(preset, presets, title):
    for name, rules in presets.items():
        assert preset(name) == rules and rules.ruleset == name
    with pytest.raises(RuleError, match=f"^--rules: unknown {title} rule set 'v5'; valid rule sets: "
                                        f"{', '.join(presets)}$"):
        preset("v5", where="--rules")


def test_game_presets_differ_from_the_default_only_where_the_rulebooks_say():
    v4, v3 = as_dict(PAWS_PRESETS["v4"]), as_dict(PAWS_PRESETS["v3"])
    assert {k for k in v4 if v4[k] != v3[k]} == {
        "ruleset", "monster_dice", "mansion_monster_hp_bonus", "building_fights_per_turn", "raid_rolls",
        "raid_grabs_cards", "defender_edge", "leader_rule", "desert_heal", "vp_per_knockout",
        "knockout_cards_taken", "keep_one_monster", "vp_target", "vp_target_2p_explorer", "team_vp_target",
        "item_deck"}
    std, surv = as_dict(TALES_PRESETS["standard"]), as_dict(TALES_PRESETS["survive"])
    assert {k: surv[k] for k in std if std[k] != surv[k]} == {"ruleset": "survive", "survive": True,
                                                               "equipment_draw": 7}
    assert tales_preset("2v2", {"game_rounds": 7}).game_rounds == 7
