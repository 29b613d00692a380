"""§7 Raids, hand-worked: 1 AP, once a turn, a player on your tile; three rolls (raider, raided,
raider); the raided player adds 1 every roll; after each roll the higher scorer takes a random item
card from the other (tie: nobody); someone at 0 HP ends the raid with a knockout. Raids never score.
The random grab is a below(hand size) draw: Pick(n, k) takes the k-th card of the n in hand.
"""

from scenario import Ask, Pick, beast_names, deck_top_first, item, item_deck, make_game, monster, monster_deck, \
    names, place, script

from sim.paws import raid
from sim.paws.actions import apply_action, legal_actions
from sim.paws.kinds import Action, Decision
from sim.paws.knockout import ITEM, MONSTER


def test_three_rolls_a_random_grab_after_each_roll_won_and_none_on_a_tie():
    """P0 raids P1 on the chest (cell 4), both at 10 HP.

    roll 1 P0: 6+5 = 11 vs 4+3 +1 = 8 -> P1 10 -> 7; P0 grabs card 1 of P1's 3 (Pack Rat)
    roll 2 P1: 5+5 +1 = 11 vs 6+4 = 10 -> P0 10 -> 9; P1 grabs card 0 of P0's 3 (Tailwind)
    roll 3 P0: 4+3 = 7 vs 3+3 +1 = 7 -> tie: no damage, no grab (the +1 made the tie). The raid ends.
    """
    g = make_game()
    place(g, 0, pos=4, hp=10, hand=["Tailwind", "Shortcut"])
    place(g, 1, pos=4, hp=10, hand=["Scavenge", "Pack Rat", "Log Pile"])
    g.ap, g.raids_left = 5, 1
    assert raid.raid_targets(g, 0) == [1]
    with script(g, [6, 5, 2, 1], [4, 3, 1, 1], Pick(3, 1),
                [5, 5, 1, 1], [6, 4, 1, 1], Pick(3, 0),
                [4, 3, 1, 1], [3, 3, 1, 1]):
        apply_action(g, 0, (Action.RAID, 1, -1))
    p, q = g.players
    assert (p.hp, q.hp) == (9, 7)
    assert names(p.items) == ["Shortcut", "Pack Rat"]
    assert names(q.items) == ["Scavenge", "Log Pile", "Tailwind"]
    assert g.ap == 4
    assert (g.vp(0), g.vp(1)) == (0, 0)
    # once a turn
    assert raid.raid_targets(g, 0) == []
    assert not any(a[0] == Action.RAID for a in legal_actions(g, 0))


def test_raid_only_a_player_on_your_tile():
    g = make_game()
    place(g, 0, pos=4)
    place(g, 1, pos=5)  # adjacent, not the same tile
    g.ap, g.raids_left = 5, 1
    assert raid.raid_targets(g, 0) == []


def test_raid_ends_early_at_zero_hp_with_a_knockout_that_scores_nothing():
    """P0 raids P1 (3 HP, 2 lives). roll 1 P0: 6+6 = 12 vs 2+2 +1 = 5 -> 7 damage, P1 at 0.

    The grab for that roll still happens (our reading: "after each roll" includes the last): P0 takes
    card 0 of P1's 2 (Scavenge). The raid ends (no more dice). §8: P1 keeps Field Mouse, then P0 takes
    Pack Rat; Old Owl goes to the bottom of the monster deck; P1 back on the Desert, 10 HP, 3 new cards.
    No VP for the knockout.
    """
    g = make_game()
    place(g, 0, pos=4, hp=10, hand=["Tailwind"])
    place(g, 1, pos=4, hp=3, hand=["Scavenge", "Pack Rat"], beasts=["Old Owl", "Field Mouse"])
    monster_deck(g, "Badger")
    item_deck(g, "Shortcut", "Log Pile", "Beaver Dam", "Sugar Rush")
    g.raids_left = 1
    with script(g, [6, 6, 1, 1], [2, 2, 1, 1], Pick(2, 0),
                Ask(1, Decision.KEEP_MONSTER, monster("Field Mouse")),
                Ask(0, Decision.TAKE_CARD, (ITEM, item("Pack Rat")),
                    options=[(ITEM, item("Pack Rat")), (MONSTER, monster("Old Owl"))])):
        raid.raid(g, 0, 1)
    p, q = g.players
    assert names(p.items) == ["Tailwind", "Scavenge", "Pack Rat"]
    assert p.hp == 10 and p.monsters == []
    assert (q.lives, q.hp, q.pos) == (1, 10, 0)
    assert names(q.items) == ["Shortcut", "Log Pile", "Beaver Dam"]
    assert beast_names(q.monsters) == ["Field Mouse"]
    assert deck_top_first(g) == ["Badger", "Old Owl"]
    assert (g.vp(0), p.knockouts_dealt, q.knockouts) == (0, 1, 1)


def test_raider_can_be_knocked_out_by_the_raided_player():
    """P0 (2 HP) raids P1. roll 1 P0: 2+1 = 3 vs 1+1 +1 = 3 -> tie; roll 2 P1: 4+4 +1 = 9 vs 3+3 = 6 ->
    3 damage, P0 at 0: P1 grabs P0's only card (Pick(1, 0)), then P0 is knocked out by P1 (no cards
    left to take: nobody is asked) and comes back with the top 3 item cards."""
    g = make_game()
    place(g, 0, pos=4, hp=2, hand=["Tailwind"])
    place(g, 1, pos=4, hp=10)
    item_deck(g, "Shortcut", "Log Pile", "Beaver Dam")
    g.raids_left = 1
    with script(g, [2, 1, 1, 1], [1, 1, 1, 1], [4, 4, 1, 1], [3, 3, 1, 1], Pick(1, 0)):
        raid.raid(g, 0, 1)
    p, q = g.players
    assert names(q.items) == ["Tailwind"] and q.hp == 10
    assert (p.lives, p.hp, p.pos) == (1, 10, 0)
    assert names(p.items) == ["Shortcut", "Log Pile", "Beaver Dam"]


def test_teams_no_raid_on_a_partner():
    """Teams (0+2 v 1+3): on chest 4 with P1 and partner P2, P0 may raid P1 only."""
    g = make_game(players=4, mode="teams")
    for seat in (0, 1, 2):
        place(g, seat, pos=4)
    g.ap, g.raids_left = 5, 1
    assert raid.raid_targets(g, 0) == [1]
    assert [a for a in legal_actions(g, 0) if a[0] == Action.RAID] == [(Action.RAID, 1, -1)]
