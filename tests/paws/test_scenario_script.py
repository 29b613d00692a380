"""The script itself, on both engines: a draw or decision that is not the next scripted entry fails.

One raid (P0 raids P1 on chest 4, both hands empty: no grabs, no card windows) needs exactly three
rolls of 4 + 4 dice; one purchase over the hand limit needs exactly one DISCARD decision.
"""

import pytest
from scenario import Ask, Pick, ScriptError, item, item_deck, make_game, place, script

from sim.paws import raid
from sim.paws.actions import apply_action
from sim.paws.kinds import Action, Decision

ROLLS = [[1, 1, 1, 1]] * 6   # 2 vs 2 + 1 each roll: only P1's attack (roll 2) hurts, P0 10 -> 9
FIVE = ["Tailwind", "Shortcut", "Scavenge", "Pack Rat", "Log Pile"]


def raid_game():
    g = make_game()
    place(g, 0, pos=4)
    place(g, 1, pos=4)
    g.raids_left = 1
    return g


def over_the_limit_game():
    g = make_game()
    place(g, 0, pos=4, hand=FIVE)
    item_deck(g, "Beaver Dam")
    g.ap = 5
    return g


def test_exactly_the_scripted_dice_are_used():
    g = raid_game()
    with script(g, ROLLS) as s:
        raid.raid(g, 0, 1)
    assert len(s.used) == 24 and (g.players[0].hp, g.players[1].hp) == (9, 10)


def test_a_die_short_fails():
    g = raid_game()
    with pytest.raises(ScriptError, match="exhausted"):
        with script(g, ROLLS[:-1], [1, 1, 1]):
            raid.raid(g, 0, 1)


def test_a_die_left_over_fails():
    g = raid_game()
    with pytest.raises(ScriptError, match="did not use all"):
        with script(g, ROLLS, 6):
            raid.raid(g, 0, 1)


def test_a_pick_where_a_die_is_rolled_fails():
    g = raid_game()
    with pytest.raises(ScriptError, match=r"the script expects Pick\(n=3, k=0\)"):
        with script(g, Pick(3, 0), ROLLS):
            raid.raid(g, 0, 1)


def test_a_pick_of_another_range_fails():
    """The reshuffle of a 2-card discard pile draws below(2); a Pick(3, ...) there fails."""
    g = make_game()
    place(g, 0, pos=4)
    g.item_discard = [item("Tailwind"), item("Shortcut")]
    g.ap = 5
    with pytest.raises(ScriptError, match=r"below\(2\)"):
        with script(g, Pick(3, 1)):
            apply_action(g, 0, (Action.BUY, -1, -1))


def test_a_decision_of_another_seat_or_kind_fails():
    for wrong in (Ask(1, Decision.DISCARD, item("Tailwind")), Ask(0, Decision.KEEP_MONSTER, item("Tailwind"))):
        g = over_the_limit_game()
        with pytest.raises(ScriptError, match="but the script expects Ask"):
            with script(g, wrong):
                apply_action(g, 0, (Action.BUY, -1, -1))


def test_a_choice_not_among_the_options_fails():
    g = over_the_limit_game()
    with pytest.raises(ScriptError, match="not among"):
        with script(g, Ask(0, Decision.DISCARD, item("Grenade"))):
            apply_action(g, 0, (Action.BUY, -1, -1))


def test_the_options_asked_are_checked():
    g = over_the_limit_game()
    wrong = [item(n) for n in FIVE]  # the bought Beaver Dam is missing
    with pytest.raises(ScriptError, match="options"):
        with script(g, Ask(0, Decision.DISCARD, item("Tailwind"), options=wrong)):
            apply_action(g, 0, (Action.BUY, -1, -1))
