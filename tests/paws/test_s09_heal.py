"""§9 Healing (and §3 Rest): start your turn on the Desert and heal 2 HP first; never above 12 HP."""

import pytest
from scenario import begin_turn, make_game, place

from sim.paws.actions import apply_action
from sim.paws.kinds import Action


@pytest.mark.parametrize("hp, after", [(9, 11), (10, 12), (11, 12), (12, 12), (1, 3)])
def test_desert_heals_two_never_above_twelve(hp, after):
    g = make_game()
    place(g, 0, pos=0, hp=hp)
    assert begin_turn(g, 0)
    assert g.players[0].hp == after


def test_no_heal_off_the_desert():
    g = make_game()
    place(g, 0, pos=1, hp=9)
    assert begin_turn(g, 0)
    assert g.players[0].hp == 9


def test_arriving_on_the_desert_does_not_heal_only_starting_there():
    g = make_game()
    place(g, 0, pos=1, hp=9)
    assert begin_turn(g, 0)
    apply_action(g, 0, (Action.MOVE, 0, -1))
    assert g.players[0].hp == 9


def test_rest_heals_first_before_poison():
    """P0 at 1 HP on the Desert with a Poison Dart tick due: heal 2 first (3), then the tick (2).
    The other order would knock P0 out at the start of the turn."""
    g = make_game()
    place(g, 0, pos=0, hp=1)
    g.players[0].poison_ticks, g.players[0].poisoner = 1, 1
    assert begin_turn(g, 0)
    assert (g.players[0].hp, g.players[0].lives, g.players[0].poison_ticks) == (2, 2, 0)


def test_healing_cards_never_above_twelve():
    """Bandage Kit heals 3: at 11 HP it brings P0 to 12, not 14."""
    g = make_game()
    place(g, 0, pos=4, hp=11, hand=["Bandage Kit"])
    g.ap = 5
    apply_action(g, 0, (Action.PLAY_ITEM, 0, -1))
    assert g.players[0].hp == 12 and g.ap == 5
