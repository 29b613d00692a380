"""The script itself, on both engines: a draw or decision that is not the next scripted entry fails.

One fight (Lion Warlord with War Hammer on Abyss Walker with Guard Blade, both without First Strike)
needs exactly two dice: the Walker's Shadow Form, then the Warlord's Regeneration. One turn of two
Hedgehogs against a Rat and a Hound needs an ATTACKER and a DEFENDER decision and one die.
"""

import pytest
from tales_scenario import CARDS, CREATURE, Ask, Decision, Pick, ScriptError, both_engines, field, make_game, script

from sim.tales.battle import fight, take_turn
from sim.tales.setup import setup_game

pytestmark = both_engines


def fight_game():
    g = make_game()
    field(g, 0, "Lion Warlord", gear={0: ["War Hammer"]})
    field(g, 1, "Abyss Walker", gear={0: ["Guard Blade"]})
    return g


def turn_game():
    g = make_game()
    field(g, 0, "Thornback Hedgehog", "Thornback Hedgehog")
    field(g, 1, "Murk Rat", "Veil Hound")
    return g


def test_exactly_the_scripted_dice_are_used():
    g = fight_game()
    with script(g, 5, 6) as s:
        fight(g, (0, 0), (1, 0))
    assert s.used == [5, 6] and g.seats[1].damage[0] == 3 and g.seats[0].damage[0] == 0


def test_a_die_short_fails():
    g = fight_game()
    with pytest.raises(ScriptError, match="exhausted"):
        with script(g, 5):
            fight(g, (0, 0), (1, 0))


def test_a_die_left_over_fails():
    g = fight_game()
    with pytest.raises(ScriptError, match="did not use all"):
        with script(g, 5, 6, 1):
            fight(g, (0, 0), (1, 0))


def test_a_pick_where_a_die_is_rolled_fails():
    g = fight_game()
    with pytest.raises(ScriptError, match=r"the script expects Pick\(n=3, k=0\)"):
        with script(g, Pick(3, 0), 5, 6):
            fight(g, (0, 0), (1, 0))


def test_a_pick_of_another_range_fails():
    """After its Champion, P0 shuffles its 17 other creatures: the first swap draws below(17)."""
    g = make_game()
    with pytest.raises(ScriptError, match=r"below\(17\)"):
        with script(g, Ask(0, Decision.CHAMPION, CARDS.champions(0)[0]), Pick(16, 0)):
            setup_game(g)


def test_a_decision_of_another_seat_or_kind_fails():
    for wrong in (Ask(1, Decision.ATTACKER, (0, 0)), Ask(0, Decision.DEFENDER, (0, 0))):
        g = turn_game()
        with pytest.raises(ScriptError, match="but the script expects Ask"):
            with script(g, wrong):
                take_turn(g, 0)


def test_a_choice_not_among_the_options_fails():
    g = turn_game()
    with pytest.raises(ScriptError, match="not among"):
        with script(g, Ask(0, Decision.ATTACKER, (1, 0))):
            take_turn(g, 0)


def test_the_options_asked_are_checked():
    g = turn_game()
    with pytest.raises(ScriptError, match="options"):
        with script(g, Ask(0, Decision.ATTACKER, (0, 0), options=[(0, 0), (0, 1), (0, 2)])):
            take_turn(g, 0)


def test_a_choice_of_one_is_not_asked():
    g = make_game()
    field(g, 0, "Thornback Hedgehog")
    field(g, 1, "Murk Rat")
    with script(g, 1) as s:             # no ATTACKER, no DEFENDER decision: only the Rat's Shadow Form
        take_turn(g, 0)
    assert s.used == [1] and g.seats[1].damage[0] == 1 and g.seats[0].graveyard == []
    assert g.seats[1].slot[0] == CREATURE["Murk Rat"]
