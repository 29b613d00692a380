"""§4 Tiles and looting: a chest gives 3 item cards, a forest 1 barricade, each tile once; the looter's
brick stops everyone else; the Desert cannot be looted; a knocked-out player's chests and forests
reset, their homes stay theirs.
"""

from scenario import NOBODY, Ask, item, item_deck, items_top_first, make_game, names, own, place, script

from sim.paws import knockout
from sim.paws.actions import apply_action, legal_actions
from sim.paws.kinds import Action, Decision
from sim.paws.loot import loot, lootable

LOOT = (Action.LOOT, -1, -1)


def test_chest_draws_three_cards_and_takes_a_brick():
    g = make_game()
    place(g, 0, pos=4)
    place(g, 1, pos=4)
    item_deck(g, "Tailwind", "Shortcut", "Scavenge", "Pack Rat")
    g.ap = 5
    apply_action(g, 0, LOOT)
    assert names(g.players[0].items) == ["Tailwind", "Shortcut", "Scavenge"]
    assert items_top_first(g) == ["Pack Rat"]
    assert g.brick[4] == 0 and g.ap == 4
    assert not lootable(g, 0)        # once
    assert not lootable(g, 1)        # nobody else, brick on it
    assert LOOT not in legal_actions(g, 1)


def test_forest_gives_one_barricade_and_no_cards():
    g = make_game()
    place(g, 0, pos=5)
    item_deck(g, "Tailwind")
    loot(g, 0)
    assert g.players[0].barricades == 1 and g.players[0].items == []
    assert g.brick[5] == 0 and items_top_first(g) == ["Tailwind"]
    assert not lootable(g, 0)


def test_desert_cannot_be_looted():
    g = make_game()
    place(g, 0, pos=0)
    g.ap, g.building_fights_left = 5, 1
    assert not lootable(g, 0)
    assert LOOT not in legal_actions(g, 0)


def test_an_owned_home_cannot_be_looted_by_anyone_else():
    g = make_game()
    own(g, 0, 1)
    place(g, 1, pos=1)
    g.building_fights_left = 1
    assert not lootable(g, 1)


def test_chest_over_the_hand_limit_discards_at_once():
    """4 cards in hand + 3 from the chest = 7: the looter discards two, one at a time (their choice)."""
    g = make_game()
    place(g, 0, pos=4, hand=["Tailwind", "Shortcut", "Scavenge", "Pack Rat"])
    item_deck(g, "Log Pile", "Beaver Dam", "Sugar Rush")
    with script(g, Ask(0, Decision.DISCARD, item("Shortcut")), Ask(0, Decision.DISCARD, item("Log Pile"))):
        loot(g, 0)
    assert names(g.players[0].items) == ["Tailwind", "Scavenge", "Pack Rat", "Beaver Dam", "Sugar Rush"]
    assert names(g.item_discard) == ["Shortcut", "Log Pile"]


def test_knockout_resets_the_victims_chests_and_forests_not_their_homes():
    """P0 looted chest 4 and forest 5 and owns home 1; P1 looted chest 6. P0 is knocked out by a
    monster: chest 4 and forest 5 lose P0's brick and P1 may loot chest 4; home 1 stays P0's;
    P1's chest 6 keeps P1's brick."""
    g = make_game()
    own(g, 0, 1)
    g.brick[4] = g.brick[5] = 0
    g.brick[6] = 1
    item_deck(g, "Tailwind", "Shortcut", "Scavenge")
    knockout.knock_out(g, 0, NOBODY, scores=False)
    assert (g.brick[4], g.brick[5], g.brick[6]) == (NOBODY, NOBODY, 1)
    assert (g.owner[1], g.brick[1]) == (0, 0)
    place(g, 1, pos=4)
    assert lootable(g, 1)
