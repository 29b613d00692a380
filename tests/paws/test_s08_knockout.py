"""§8 Knockouts: lose a life; scores nothing (V4); a player who knocked you out takes 1 of your cards
(item or monster); with a life left you keep one monster card, chosen before they take theirs; the
rest are discarded; back on the Desert with 10 HP and 3 new item cards; your chests and forests
reset, homes stay; Snares you played stop (but not the Snares and Poison Darts played on you); Explorer:
place your held tiles free; out of lives: your homes, mansions and barricades are cleared, and a card of
yours that knocks someone out later takes nothing for you.
"""

import pytest

from scenario import (NOBODY, Ask, beast_names, begin_turn, deck_top_first, item, item_deck, items_top_first,
                      make_game, monster, monster_deck, names, own, place, script)

from sim.paws import knockout
from sim.paws.kinds import Decision, Tile
from sim.paws.knockout import ITEM, MONSTER
from sim.paws.loot import lootable
from sim.paws import raid
from sim.paws.actions import apply_action
from sim.paws.kinds import Action
from sim.paws.rules import preset


def test_full_knockout_procedure_with_a_life_left():
    """P1 (2 lives) is knocked out by P0 in a player fight. P1 holds Tailwind, Shortcut, Scavenge and
    Angry Crow (active), Old Owl (active), Badger; owns home 7 with P1's barricade; looted chest 6 and
    forest 5; is poisoned; has snared P2 (2 AP), as has P0 (2 AP).

    Asked in order: P1 keeps Badger (options: all three monsters), then P0 takes Old Owl (options:
    the 3 items, then Crow and Owl). Tailwind, Shortcut, Scavenge to the discard pile; Angry Crow to the
    bottom of the monster deck (our reading of "discard pile" for monster cards, which have none).
    P1: 1 life, Desert, 10 HP, top 3 item cards, only Badger (its buff still off, as it was).
    Home 7 and its barricade stay; chest 6 and forest 5 reset; P1's poison goes on (§8.5 stops only the
    Snares P1 played); P1's snare on P2 stops, P0's does not: P2's next turn has 5 - 2 = 3 AP. P0 scores
    nothing.
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
    assert (p1.poison_ticks, p1.poisoner) == (1, 0)
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


# -- §8.5: what a knockout stops (rules-interpretation.md, "Knockouts: effects played on the victim") ------
@pytest.mark.parametrize("cancels", [False, True])
def test_snare_and_poison_played_on_the_victim_outlast_a_knockout(cancels):
    """§8.5 stops only "any Snare you played on other players": the Snare and Poison Dart P0 played on P1
    go on after P1's knockout (the book's words, the default). ``knockout_cancels_effects_on_victim``
    (the old reading) ends them with the knockout.

    P0 on the Desert snares P1 on chest 4 (2 AP), then darts P1 (3 -> 2 HP, two ticks to come). P2
    raids P1: roll 1 P2 6+6 = 12 vs 1+1 +1 = 3 -> P1 at 0 (no cards to grab or take); P1 is back on the
    Desert with 10 HP and 3 new cards. P1's next turn: rest 10 -> 12, then the poison tick -> 11, and
    5 - 2 = 3 AP; the turn after: rest -> 12, the last tick -> 11, 5 AP; then no more poison.
    Old reading: rest 10 -> 12, 5 AP, no poison."""
    g = make_game(rules=preset("v4", {"knockout_cancels_effects_on_victim": cancels}), players=3)
    place(g, 0, pos=0, hand=["Snare", "Poison Dart"])
    place(g, 1, pos=4, hp=3)
    place(g, 2, pos=4)
    item_deck(g, "Tailwind", "Shortcut", "Scavenge")
    g.ap = 5
    apply_action(g, 0, (Action.PLAY_ITEM, 0, 1))
    apply_action(g, 0, (Action.PLAY_ITEM, 0, 1))
    p1 = g.players[1]
    assert (p1.hp, p1.poison_ticks, p1.snared) == (2, 2, [2, 0, 0])
    g.raids_left = 1
    with script(g, [6, 6, 1, 1], [1, 1, 1, 1]):
        raid.raid(g, 2, 1)
    assert (p1.lives, p1.hp, p1.pos) == (1, 10, 0)
    if cancels:
        assert (p1.poison_ticks, p1.poisoner, p1.snared) == (0, NOBODY, [0, 0, 0])
        assert begin_turn(g, 1) and (p1.hp, g.ap) == (12, 5)
    else:
        assert (p1.poison_ticks, p1.poisoner, p1.snared) == (2, 0, [2, 0, 0])
        assert begin_turn(g, 1) and (p1.hp, g.ap) == (11, 3)
        assert begin_turn(g, 1) and (p1.hp, g.ap) == (11, 5)
    assert begin_turn(g, 1) and (p1.hp, g.ap, p1.poison_ticks) == (12, 5, 0)


# -- §8.7: out of the game (rules-interpretation.md, "Knockouts: a knocker out of the game") --------------
@pytest.mark.parametrize("takes", [False, True])
def test_a_player_out_of_the_game_takes_no_card_when_their_poison_knocks_someone_out(takes):
    """§8.7 "you are out of the game": P0 is, so when P0's earlier Poison Dart knocks P1 out nobody takes
    a card (the default; the knockout still counts as P0's). ``out_of_game_takes_card`` (the old reading)
    lets P0 take one as if still playing (§8.2, §10).

    P0 (last life, 5 HP) darts P1 on chest 4 (2 -> 1 HP, two ticks to come). P2 raids P0: roll 1 P2 6+6 = 12
    vs 1+1 +1 = 3 -> P0 at 0 (P0's hand is empty: no grab, nothing to take); P0 is out, 2 players are
    left. P1's turn starts (chest 4: no rest): the tick drops P1 to 0, knocked out "by" P0. P1's Pack
    Rat and Scavenge go to the discard pile after the dart; old reading: P0 takes Pack Rat (asked)."""
    g = make_game(rules=preset("v4", {"out_of_game_takes_card": takes}), players=3)
    place(g, 0, pos=4, hp=5, lives=1, hand=["Poison Dart"])
    place(g, 1, pos=4, hp=2, hand=["Pack Rat", "Scavenge"])
    place(g, 2, pos=4)
    item_deck(g, "Tailwind", "Shortcut", "Log Pile")
    g.ap = 5
    apply_action(g, 0, (Action.PLAY_ITEM, 0, 1))
    g.raids_left = 1
    with script(g, [6, 6, 1, 1], [1, 1, 1, 1]):
        raid.raid(g, 2, 0)
    p0, p1, p2 = g.players
    assert (p0.lives, p0.alive, p2.knockouts_dealt, g.over) == (0, False, 1, False)
    with script(g, *([Ask(0, Decision.TAKE_CARD, (ITEM, item("Pack Rat")))] if takes else [])):
        assert begin_turn(g, 1) is False
    assert (p1.lives, p1.hp, p1.pos, p0.knockouts_dealt) == (1, 10, 0, 1)
    assert names(p1.items) == ["Tailwind", "Shortcut", "Log Pile"]
    if takes:
        assert names(p0.items) == ["Pack Rat"] and names(g.item_discard) == ["Poison Dart", "Scavenge"]
    else:
        assert p0.items == [] and names(g.item_discard) == ["Poison Dart", "Pack Rat", "Scavenge"]
