"""§8 Knockouts: lose a life; scores nothing (V4); a player who knocked you out takes 1 of your cards
(item or monster); with a life left you keep one monster card, chosen before they take theirs; the
rest are discarded; back on the Desert with 10 HP and 3 new item cards; your chests and forests
reset, homes stay; Snares you played stop; Explorer: place your held tiles free; out of lives: your
homes, mansions and barricades are cleared.
"""

from scenario import (NOBODY, Ask, beast_names, begin_turn, deck_top_first, item, item_deck, items_top_first,
                      make_game, monster, monster_deck, names, own, place, script)

from sim.paws import knockout
from sim.paws.kinds import Decision, Tile
from sim.paws.knockout import ITEM, MONSTER
from sim.paws.loot import lootable


def test_full_knockout_procedure_with_a_life_left():
    """P1 (2 lives) is knocked out by P0 in a player fight. P1 holds Tailwind, Shortcut, Scavenge and
    Angry Crow (active), Old Owl (active), Badger; owns home 7 with P1's barricade; looted chest 6 and
    forest 5; is poisoned; has snared P2 (2 AP), as has P0 (2 AP).

    Asked in order: P1 keeps Badger (options: all three monsters), then P0 takes Old Owl (options:
    the 3 items, then Crow and Owl). Tailwind, Shortcut, Scavenge to the discard pile; Angry Crow to the
    bottom of the monster deck (our reading of "discard pile" for monster cards, which have none).
    P1: 1 life, Desert, 10 HP, top 3 item cards, only Badger (its buff still off, as it was).
    Home 7 and its barricade stay; chest 6 and forest 5 reset; P1's poison ends; P1's snare on P2 stops,
    P0's does not: P2's next turn has 5 - 2 = 3 AP. P0 scores nothing.
    """
    g = make_game(players=3)
    own(g, 1, 7)
    g.barricade[7] = 1
    g.brick[6] = g.brick[5] = 1
    place(g, 0, pos=6, hand=["Log Pile"])
    place(g, 1, pos=6, hp=0, hand=["Tailwind", "Shortcut", "Scavenge"],
          beasts=["Angry Crow", "Old Owl", "Badger"], active=[True, True, False])
    g.players[1].poison_ticks, g.players[1].poisoner = 1, 0
    place(g, 2, pos=12)
    g.players[2].snared = [2, 2, 0]
    monster_deck(g, "Field Mouse")
    item_deck(g, "Pack Rat", "Treasure Map", "Magpie Trade", "Beaver Dam")
    crow, owl, badger = monster("Angry Crow"), monster("Old Owl"), monster("Badger")
    with script(g, Ask(1, Decision.KEEP_MONSTER, badger, options=[crow, owl, badger]),
                Ask(0, Decision.TAKE_CARD, (MONSTER, owl),
                    options=[(ITEM, item("Tailwind")), (ITEM, item("Shortcut")), (ITEM, item("Scavenge")),
                             (MONSTER, crow), (MONSTER, owl)])):
        knockout.knock_out(g, 1, 0, scores=True)
    p0, p1, p2 = g.players
    assert (p1.lives, p1.knockouts, p0.knockouts_dealt) == (1, 1, 1)
    assert (p1.pos, p1.hp) == (0, 10)
    assert names(p1.items) == ["Pack Rat", "Treasure Map", "Magpie Trade"]
    assert beast_names(p1.monsters) == ["Badger"] and p1.active == [False]
    assert names(p0.items) == ["Log Pile"]
    assert beast_names(p0.monsters) == ["Old Owl"] and p0.active == [False]
    assert names(g.item_discard) == ["Tailwind", "Shortcut", "Scavenge"]
    assert deck_top_first(g) == ["Field Mouse", "Angry Crow"]
    assert items_top_first(g) == ["Beaver Dam"]
    assert (g.owner[7], g.brick[7], g.barricade[7]) == (1, 1, 1)
    assert (g.brick[6], g.brick[5]) == (NOBODY, NOBODY)
    assert p1.poison_ticks == 0
    assert p2.snared == [2, 0, 0]
    assert (g.vp(0), g.vp(1)) == (0, 1)
    assert begin_turn(g, 2) and g.ap == 3


def test_out_of_lives_homes_mansions_and_barricades_are_cleared():
    """P1 on its last life owns home 7 (barricaded) and mansion 9, looted chest 6, holds Tailwind,
    Angry Crow and Grumpy Toad. Knocked out by P0 (3 players: the game goes on). No monster is kept (no
    life left, not asked); P0 takes Angry Crow; Tailwind discarded, Toad to the bottom of the deck.
    P1 is out: no respawn (the item deck is untouched), home 7 and mansion 9 are unowned and can be
    looted again, the barricade is gone."""
    g = make_game(players=3)
    own(g, 1, 7, 9)
    g.barricade[7] = 1
    g.brick[6] = 1
    place(g, 1, pos=7, hp=0, lives=1, hand=["Tailwind"], beasts=["Angry Crow", "Grumpy Toad"])
    monster_deck(g, "Field Mouse", "Badger")
    item_deck(g, "Pack Rat")
    crow = monster("Angry Crow")
    with script(g, Ask(0, Decision.TAKE_CARD, (MONSTER, crow),
                       options=[(ITEM, item("Tailwind")), (MONSTER, crow), (MONSTER, monster("Grumpy Toad"))])):
        knockout.knock_out(g, 1, 0, scores=True)
    p0, p1, _ = g.players
    assert (p1.lives, p1.alive) == (0, False)
    assert p1.items == [] and p1.monsters == []
    assert beast_names(p0.monsters) == ["Angry Crow"]
    assert names(g.item_discard) == ["Tailwind"]
    assert deck_top_first(g) == ["Field Mouse", "Badger", "Grumpy Toad"]
    assert items_top_first(g) == ["Pack Rat"]
    assert (g.owner[7], g.brick[7], g.barricade[7]) == (NOBODY, NOBODY, NOBODY)
    assert (g.owner[9], g.brick[9], g.brick[6]) == (NOBODY, NOBODY, NOBODY)
    assert not g.over
    place(g, 2, pos=7)
    g.building_fights_left = 1
    assert lootable(g, 2)


def test_knocked_out_by_a_monster_nobody_takes_a_card_keep_one_monster():
    """A monster knockout: P0 keeps Old Owl (asked: two monsters), nobody takes anything; Field Mouse
    and both items are discarded (the mouse to the bottom of the monster deck)."""
    g = make_game()
    place(g, 0, pos=1, hp=0, hand=["Tailwind", "Shortcut"], beasts=["Field Mouse", "Old Owl"])
    item_deck(g, "Scavenge", "Pack Rat", "Log Pile")
    with script(g, Ask(0, Decision.KEEP_MONSTER, monster("Old Owl"))):
        knockout.knock_out(g, 0, NOBODY, scores=False)
    p = g.players[0]
    assert beast_names(p.monsters) == ["Old Owl"]
    assert names(p.items) == ["Scavenge", "Pack Rat", "Log Pile"]
    assert names(g.item_discard) == ["Tailwind", "Shortcut"]
    assert deck_top_first(g) == ["Field Mouse"]


def test_explorer_knockout_places_held_tiles_free():
    """§8.6 Explorer: P0 still holds a home and a forest tile; after the knockout both are placed free
    (the home first, then the forest), next to tiles on the table; AP is not touched."""
    g = make_game(board="explorer", layout={1: Tile.CHEST})
    g.players[0].tiles = [0, 1, 0, 1]
    item_deck(g, "Scavenge", "Pack Rat", "Log Pile")
    g.ap = 2
    with script(g, Ask(0, Decision.PLACE_FREE, 3, options=[2, 3, 4, 5, 6, 7, 8, 18]),
                Ask(0, Decision.PLACE_FREE, 11)):
        knockout.knock_out(g, 0, NOBODY, scores=False)
    assert (g.tile[3], g.tile[11]) == (Tile.HOME, Tile.FOREST)
    assert g.players[0].tiles == [0, 0, 0, 0] and g.ap == 2
