"""Rule parameters: presets built from the change table, validated overrides, clear refusals."""

import dataclasses

import pytest

from sim.params import RuleError, as_dict, digest, parse_assignments, with_overrides
from sim.paws.rules import V3, V3_AP3, V4, PawsRules, PawsSetup, preset


def test_v4_defaults_are_the_rulebooks_numbers():
    r = preset("v4")
    assert (r.vp_target, r.vp_target_2p_explorer, r.team_vp_target) == (4, 3, 5)       # §13
    assert (r.lives, r.start_hp, r.max_hp, r.respawn_hp, r.starting_items) == (2, 10, 12, 10, 3)  # §2, §8
    assert (r.ap_per_turn, r.building_fights_per_turn, r.desert_heal) == (5, 1, 2)      # §3, §9
    assert (r.monster_dice, r.mansion_monster_hp_bonus, r.defender_edge, r.leader_rule) == (4, 1, 1, True)
    assert (r.raid_rolls, r.knockout_cards_taken, r.keep_one_monster, r.vp_per_knockout) == (3, 1, True, 0)
    assert (r.hand_limit, r.item_deck, r.round_limit) == (5, "v4", 0)
    # the book's words, not the engine's old readings (docs/rules-interpretation.md)
    assert (r.invasion_knockout_scores, r.knockout_cancels_effects_on_victim, r.out_of_game_takes_card) == \
        (True, False, False)


def test_v3_differs_from_v4_exactly_by_the_change_table():
    diff = {k for k, v in as_dict(V3).items() if v != getattr(V4, k)}
    assert diff == {"ruleset", "monster_dice", "mansion_monster_hp_bonus", "building_fights_per_turn",
                    "raid_rolls", "raid_grabs_cards", "defender_edge", "leader_rule", "desert_heal",
                    "vp_per_knockout", "knockout_cards_taken", "keep_one_monster", "vp_target",
                    "vp_target_2p_explorer", "team_vp_target", "item_deck"}
    assert (V3.monster_dice, V3.raid_rolls, V3.vp_per_knockout, V3.knockout_cards_taken) == (3, 0, 1, 3)
    assert (V3.vp_target, V3.team_vp_target, V3.item_deck, V3.ap_per_turn) == (5, 7, "v3", 5)
    assert V3_AP3.ap_per_turn == 3 and dataclasses.replace(V3_AP3, ruleset="v3", ap_per_turn=5) == V3


def test_overrides_are_typed_and_the_result_frozen():
    r = preset("v4", {"round_limit": "20", "leader_rule": "off"})
    assert r.round_limit == 20 and r.leader_rule is False and r.ruleset == "v4"
    with pytest.raises(dataclasses.FrozenInstanceError):
        r.round_limit = 3
    assert digest(r) != digest(V4) and digest(preset("v4")) == digest(V4)


@pytest.mark.parametrize("overrides, needle", [
    ({"round_limt": 20}, "unknown rule parameter 'round_limt' (did you mean 'round_limit'?); valid rule parameters: "
                         "ap_per_turn,"),
    ({"respwan_items": 2}, "unknown rule parameter 'respwan_items' (did you mean 'respawn_items'?); valid"),
    ({"zzz": 2}, "unknown rule parameter 'zzz'; valid rule parameters: ap_per_turn,"),
    ({"round_limit": -1}, "round_limit = -1 is not allowed; expected an integer from 0 to 500"),
    ({"round_limit": "soon"}, "round_limit = 'soon' is not allowed"),
    ({"leader_rule": "maybe"}, "leader_rule = 'maybe' is not allowed; expected true or false"),
    ({"item_deck": "v5"}, "item_deck = 'v5' is not allowed; expected one of v3, v4"),
    ({"beginner_homes": 5}, "must be 18 (the two rings around the Desert), got 19"),
    ({"start_hp": 13}, "start_hp and respawn_hp must not exceed max_hp (12)"),
    ({"round_limit": 200}, "round_limit (200) must not exceed max_rounds (100)"),
])
def test_bad_overrides_are_refused_with_the_allowed_values(overrides, needle):
    with pytest.raises(RuleError) as e:
        preset("v4", overrides, where="--set")
    assert needle in str(e.value) and str(e.value).startswith("--set")


def test_unknown_preset_and_bad_assignment():
    with pytest.raises(RuleError, match="unknown Paws in Peril rule set 'v5'; valid rule sets: v3, v3-ap3, v4"):
        preset("v5")
    with pytest.raises(RuleError, match="'round_limit' is not of the form name=value"):
        parse_assignments(["round_limit"])
    assert parse_assignments(["a=1", " b = x=y "]) == {"a": "1", "b": "x=y"}


def test_every_parameter_is_documented_and_ranged():
    from sim.params import fields
    for f in fields(PawsRules):
        m = f.metadata
        assert m["help"], f.name
        kind = f.type if isinstance(f.type, str) else f.type.__name__
        assert kind == "bool" or m["choices"] or (m["min"] is not None and m["max"] is not None), f.name
    with_overrides(V4, {f.name: getattr(V4, f.name) for f in fields(PawsRules)})  # the defaults validate


@pytest.mark.parametrize("kwargs, needle", [
    (dict(board="hex"), "board 'hex' is not allowed; expected one of beginner, explorer"),
    (dict(mode="coop"), "mode 'coop' is not allowed; expected one of ffa, teams"),
    (dict(players=5, bots=("random",) * 5), "players = 5 is not allowed; expected 2, 3 or 4"),
    (dict(mode="teams", players=3, bots=("random",) * 3), "mode teams needs players = 4"),
    (dict(players=2), "bots: 4 given for 2 players; give one per seat"),
])
def test_bad_setups_are_refused(kwargs, needle):
    with pytest.raises(RuleError, match=needle):
        PawsSetup(**kwargs)


def test_team_of_seats_partners_opposite():
    s = PawsSetup(mode="teams")
    assert [s.team_of(i) for i in range(4)] == [0, 1, 0, 1]
    assert [PawsSetup().team_of(i) for i in range(4)] == [-1] * 4


def test_bot_specs_are_validated():
    from sim.paws.bots import parse_bot
    assert parse_bot("heuristic:aggression=4:heal_threshold=7").w.aggression == 4
    with pytest.raises(RuleError, match="unknown bot 'smart'; valid bots: random, heuristic"):
        parse_bot("smart")
    with pytest.raises(RuleError, match="unknown weight 'bravery'; valid weights: aggression"):
        parse_bot("heuristic:bravery=3")
    with pytest.raises(RuleError, match="the random bot takes no weights"):
        parse_bot("random:x=1")


def test_an_engine_option_counts_in_the_digests_only_away_from_its_default():
    """dice_stream (an engine option added after results were written) leaves the rules digest and the
    match digest as they were before it existed while at its default, and changes both when set."""
    import hashlib
    import json

    from sim.games import get
    from sim.params import as_dict, digest, option_defaults, provenance
    v4 = preset("v4")
    assert option_defaults(v4) == {"dice_stream": "classic"} == option_defaults(type(v4))
    before = {k: v for k, v in as_dict(v4).items() if k != "dice_stream"}
    assert provenance(v4) == before
    assert digest(v4) == hashlib.sha256(json.dumps(before, sort_keys=True).encode()).hexdigest()[:16]
    table = preset("v4", {"dice_stream": "table"})
    assert provenance(table) == as_dict(table) and digest(table) != digest(v4)
    paws = get("paws")
    classic_match, table_match = paws.resolve(rules="v4"), paws.resolve(rules="v4", overrides={"dice_stream": "table"})
    assert classic_match.digest != table_match.digest
    assert classic_match.describe()["rules"]["dice_stream"] == "classic"      # described in full all the same


def test_where_a_parameter_acts_follows_its_relevant_declaration():
    """§1: the free-for-all target acts on the Beginner board and with 3-4 players on the Explorer board; the
    Teams target in Teams games; §6.2's leader rule only while there is a defender's edge to take away."""
    from sim.params import AtLeast, acts, fields
    by = {f.name: f for f in fields(PawsRules)}

    def where(name, rules=V4, **setup):
        return acts(by[name], rules, {"board": "beginner", "mode": "ffa", "players": 4, **setup})
    assert where("vp_target") and where("vp_target", board="explorer", players=3)
    assert not where("vp_target", board="explorer", players=2) and not where("vp_target", mode="teams")
    assert where("vp_target_2p_explorer", board="explorer", players=2) and not where("vp_target_2p_explorer")
    assert where("team_vp_target", mode="teams") and not where("team_vp_target")
    assert where("leader_rule") and not where("leader_rule", rules=V3)
    assert where("hand_limit", board="explorer", mode="teams")          # no declaration: everywhere
    assert 1 in AtLeast(1) and 5 in AtLeast(1) and 0 not in AtLeast(1) and True not in AtLeast(1)
    assert repr(AtLeast(1)) == "AtLeast(1)"
