"""§5 Monsters and their buffs (and the monster fights of §4 looting), hand-worked with scripted dice.

A monster rolls 4 dice; a mansion's monsters have 1 more HP each, are fought one after the other with
the player's HP carrying over, and the player attacks first in both; win and the card is yours with
its buff working from the start of your next turn; lose (or run) and the building stays unclaimed
and the monster goes to the bottom of the deck. Attacker's dice are drawn before the defender's.
"""

from scenario import (NOBODY, Ask, beast_names, begin_turn, deck_top_first, make_game, monster_deck, item_deck,
                      names, place, script)

from sim.paws import loot, raid
from sim.paws.items import PASS
from sim.paws.kinds import Buff, Decision


def test_home_fight_won_card_and_home_are_yours():
    """P0 (10 HP) loots home 1: Grey Wolf (7 HP).

    roll 1 P0: 6+6 = 12 vs 3+2 = 5 -> 7 damage: the wolf (7 HP) is beaten at once.
    """
    g = make_game()
    place(g, 0, pos=1, hp=10)
    monster_deck(g, "Grey Wolf", "Badger")
    g.building_fights_left = 1
    with script(g, [6, 6, 1, 1], [3, 2, 1, 1]):
        loot.claim_building(g, 0, 1)
    p = g.players[0]
    assert (g.owner[1], g.brick[1], p.hp, g.vp(0)) == (0, 0, 10, 1)
    assert beast_names(p.monsters) == ["Grey Wolf"] and p.active == [False]
    assert deck_top_first(g) == ["Badger"]
    assert g.building_fights_left == 0


def test_home_fight_lost_knocked_out_home_unclaimed_monster_to_the_bottom():
    """P0 (3 HP, 2 lives) loots home 1: Grey Wolf (7 HP) on top of Field Mouse, Badger.

    roll 1 P0: 3+2 = 5 vs 4+4 = 8 -> nothing; roll 2 wolf: 6+5 = 11 vs 2+2 = 4 -> 7 damage, P0 at 0.
    Knocked out by a monster (§8): 1 life left, keeps their only monster (Old Owl, not asked: one
    option), both items to the discard pile, back on the Desert at 10 HP with the top 3 item cards.
    The wolf goes under Field Mouse and Badger.
    """
    g = make_game()
    place(g, 0, pos=1, hp=3, hand=["Running Shoes", "Log Pile"], beasts=["Old Owl"])
    monster_deck(g, "Grey Wolf", "Field Mouse", "Badger")
    item_deck(g, "Treasure Map", "Scavenge", "Tailwind", "Shortcut")
    g.building_fights_left = 1
    with script(g, [3, 2, 1, 1], [4, 4, 1, 1], [6, 5, 1, 1], [2, 2, 1, 1]):
        loot.claim_building(g, 0, 1)
    p = g.players[0]
    assert (g.owner[1], g.brick[1]) == (NOBODY, NOBODY)
    assert deck_top_first(g) == ["Field Mouse", "Badger", "Grey Wolf"]
    assert (p.lives, p.hp, p.pos) == (1, 10, 0)
    assert names(p.items) == ["Treasure Map", "Scavenge", "Tailwind"]
    assert beast_names(p.monsters) == ["Old Owl"]
    assert names(g.item_discard) == ["Running Shoes", "Log Pile"]
    assert g.vp(0) == 0


def test_mansion_two_monsters_in_a_row_hp_carries_over_and_plus_one_hp():
    """P0 (10 HP) loots mansion 3: Field Mouse then Grumpy Toad, each 3 + 1 = 4 HP in a mansion.

    Mouse (4 HP): roll 1 P0 6+3 = 9 vs 3+3 = 6 -> mouse 4 -> 1 (a 3 HP mouse would be beaten here);
                  roll 2 mouse 5+5 = 10 vs 2+2 = 4 -> P0 10 -> 4; roll 3 P0 12 vs 2 -> mouse beaten.
    Toad (4 HP), P0 attacks first again: roll 1 P0 2+1 = 3 vs 4+4 = 8 -> nothing (had the toad
                  attacked first, 8 - 3 = 5 would knock P0 out); roll 2 toad 3+2 = 5 vs 2+2 = 4 ->
                  P0 4 -> 3 (HP carried over); roll 3 P0 5+5 = 10 vs 1+1 = 2 -> toad beaten.
    """
    g = make_game()
    place(g, 0, pos=3, hp=10)
    monster_deck(g, "Field Mouse", "Grumpy Toad", "Badger")
    g.building_fights_left = 1
    with script(g,
                [6, 3, 1, 1], [3, 3, 1, 1], [5, 5, 1, 1], [2, 2, 1, 1], [6, 6, 1, 1], [1, 1, 1, 1],
                [2, 1, 1, 1], [4, 4, 1, 1], [3, 2, 1, 1], [2, 2, 1, 1], [5, 5, 1, 1], [1, 1, 1, 1]):
        loot.claim_building(g, 0, 3)
    p = g.players[0]
    assert (g.owner[3], p.hp, g.vp(0)) == (0, 3, 1)
    assert beast_names(p.monsters) == ["Field Mouse", "Grumpy Toad"]
    assert p.active == [False, False]
    assert deck_top_first(g) == ["Badger"]


def test_mansion_lost_on_the_second_monster_both_go_to_the_bottom():
    """P0 (5 HP) loots mansion 3: Field Mouse (4 HP) then Grumpy Toad (4 HP), Badger below them.

    Mouse: roll 1 P0 6+6 = 12 vs 2+1 = 3 -> 9 damage, beaten.
    Toad:  roll 1 P0 1+1 = 2 vs 3+3 = 6 -> nothing; roll 2 toad 6+6 = 12 vs 1+1 = 2 -> P0 at 0.
    The mansion stays unclaimed; both monsters go to the bottom. Our interpretation (the rulebook says
    "the monster goes to the bottom" for one): the beaten first monster goes too, each put under the
    deck in the order fought, so the deck reads Badger, Field Mouse, Grumpy Toad from the top.
    """
    g = make_game()
    place(g, 0, pos=3, hp=5)
    monster_deck(g, "Field Mouse", "Grumpy Toad", "Badger")
    item_deck(g, "Tailwind", "Shortcut", "Scavenge")
    g.building_fights_left = 1
    with script(g, [6, 6, 1, 1], [2, 1, 1, 1], [1, 1, 1, 1], [3, 3, 1, 1], [6, 6, 1, 1], [1, 1, 1, 1]):
        loot.claim_building(g, 0, 3)
    p = g.players[0]
    assert g.owner[3] == NOBODY and p.monsters == []
    assert deck_top_first(g) == ["Badger", "Field Mouse", "Grumpy Toad"]
    assert (p.lives, p.hp, p.pos) == (1, 10, 0)


def test_escaping_a_home_fight_with_smoke_bomb_unclaimed_monster_to_the_bottom():
    """P0 (10 HP, Smoke Bomb in hand) loots home 1: Grey Wolf (7 HP) over Field Mouse.

    roll 1: P0 passes; P0 2+1 = 3 vs 1+1 = 2 -> wolf 7 -> 6.
    roll 2 (the wolf attacks; only P0 has a card window): P0 plays Smoke Bomb to cell 2.
    §10: the fight ends, P0 moves to the adjacent tile and cannot be attacked until their next turn;
    the home stays unclaimed and the wolf goes to the bottom. It still was the turn's building fight.
    """
    g = make_game()
    place(g, 0, pos=1, hp=10, hand=["Smoke Bomb"])
    place(g, 1, pos=2)
    monster_deck(g, "Grey Wolf", "Field Mouse")
    g.building_fights_left = 1
    escape_opts = [PASS] + [(0, c) for c in (2, 0, 6, 18, 7, 8)]
    with script(g, Ask(0, Decision.COMBAT_CARD, PASS, options=escape_opts), [2, 1, 1, 1], [1, 1, 1, 1],
                Ask(0, Decision.COMBAT_CARD, (0, 2), options=escape_opts)):
        loot.claim_building(g, 0, 1)
    p = g.players[0]
    assert (g.owner[1], p.pos, p.hp, p.protected) == (NOBODY, 2, 10, True)
    assert deck_top_first(g) == ["Field Mouse", "Grey Wolf"]
    assert names(g.item_discard) == ["Smoke Bomb"]
    assert g.building_fights_left == 0
    g.raids_left = 1
    assert raid.raid_targets(g, 1) == []  # P1 on cell 2 cannot raid the smoke-bombed P0


def test_monster_buff_works_from_the_start_of_the_owners_next_turn():
    """P0 claims home 1 with Angry Crow (+1 in every fight), then raids P1 the same turn: no +1 yet.

    claim, roll 1 P0: 6+6 = 12 vs 1+1 = 2 -> the crow (4 HP) is beaten.
    raid this turn (P1 gets the defender's +1; both hands empty, so no card is grabbed):
      roll 1 P0 4+3 = 7 vs 4+2 +1 = 7 -> nothing (with the crow's +1 it would be 1 damage);
      roll 2 P1 1+1 +1 = 3 vs 1+1 = 2 -> P0 10 -> 9;  roll 3 P0 2+1 = 3 vs 2+1 +1 = 4 -> nothing.
    next turn (P0 on cell 1, no Desert heal), same raid dice: roll 1 P0 7 +1 = 8 vs 7 -> P1 10 -> 9;
      roll 2 P1 1+1 +1 = 3 vs 1+1 +1 = 3 -> nothing; roll 3 P0 2+1 +1 = 4 vs 2+1 +1 = 4 -> nothing.
    """
    g = make_game()
    place(g, 0, pos=1, hp=10)
    place(g, 1, pos=1, hp=10)
    monster_deck(g, "Angry Crow")
    g.building_fights_left, g.raids_left = 1, 1
    with script(g, [6, 6, 1, 1], [1, 1, 1, 1]):
        loot.claim_building(g, 0, 1)
    assert g.buff(0, Buff.FIGHT_SCORE) == 0
    with script(g, [4, 3, 1, 1], [4, 2, 1, 1], [1, 1, 1, 1], [1, 1, 1, 1], [2, 1, 1, 1], [2, 1, 1, 1]):
        raid.raid(g, 0, 1)
    assert (g.players[0].hp, g.players[1].hp) == (9, 10)
    assert begin_turn(g, 0)
    assert g.players[0].active == [True] and g.buff(0, Buff.FIGHT_SCORE) == 1
    with script(g, [4, 3, 1, 1], [4, 2, 1, 1], [1, 1, 1, 1], [1, 1, 1, 1], [2, 1, 1, 1], [2, 1, 1, 1]):
        raid.raid(g, 0, 1)
    assert (g.players[0].hp, g.players[1].hp) == (9, 9)


def test_extra_ap_buff_counts_from_the_next_turn():
    """Swift Hare (+1 AP each turn) claimed on this turn gives 5 + 1 = 6 AP at the next turn start."""
    g = make_game()
    place(g, 0, pos=1, hp=10)
    monster_deck(g, "Swift Hare")
    assert begin_turn(g, 0) and g.ap == 5
    with script(g, [6, 6, 1, 1], [1, 1, 1, 1]):
        loot.claim_building(g, 0, 1)
    assert g.buff(0, Buff.EXTRA_AP) == 0
    assert begin_turn(g, 0) and g.ap == 6


def test_regen_buff_heals_at_the_start_of_the_turn_after_the_desert_rest_never_above_twelve():
    """Grumpy Toad (+1 HP at your turn start). On the Desert at 9 HP: rest 2 (11), then the toad (12).
    Off the Desert at 9 HP: the toad alone (10). At 12 on the Desert: still 12."""
    for pos, hp, after in ((0, 9, 12), (4, 9, 10), (0, 12, 12)):
        g = make_game()
        place(g, 0, pos=pos, hp=hp, beasts=["Grumpy Toad"])
        assert begin_turn(g, 0)
        assert g.players[0].hp == after, (pos, hp)
