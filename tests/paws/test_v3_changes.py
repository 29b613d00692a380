"""Each row of the rulebook's "Changes from V3" table, played with preset("v3") (and "v3-ap3")."""

import pytest
from scenario import (Ask, CARDS, Pick, beast_names, begin_turn, deck_top_first, item, item_deck, make_game,
                      monster, monster_deck, names, own, place, reference_only, script)

from sim.paws import invade, knockout, loot, raid, winning
from sim.paws.actions import apply_action, legal_actions
from sim.paws.kinds import Action, Decision, Tile
from sim.paws.knockout import ITEM, MONSTER
from sim.paws.rules import preset

V3 = preset("v3")
LOOT = (Action.LOOT, -1, -1)


def test_v3_monsters_roll_three_dice():
    """P0 (10 HP) loots home 1: Wild Boar (6 HP) rolls 3 dice.
    roll 1 P0 6+5 = 11 vs 3+3 (of 3,3,2) = 6 -> boar 6 -> 1; roll 2 boar 6+6 (of 6,6,6) = 12 vs 2+2 = 4
    -> P0 10 -> 2; roll 3 P0 4+4 = 8 vs 4+3 (of 4,3,1) = 7 -> boar beaten."""
    g = make_game(rules=V3)
    place(g, 0, pos=1)
    monster_deck(g, "Wild Boar")
    g.building_fights_left = 1
    with script(g, [6, 5, 1, 1], [3, 3, 2], [6, 6, 6], [2, 2, 1, 1], [4, 4, 1, 1], [4, 3, 1]):
        loot.claim_building(g, 0, 1)
    assert (g.owner[1], g.players[0].hp) == (0, 2)


def test_v3_mansion_monsters_have_their_printed_hp():
    """No +1 HP in V3: Field Mouse (3 HP) falls to 5+4 = 9 vs 3+3 = 6 (3 damage), then Grumpy Toad
    (3 HP) to 12 vs 6."""
    g = make_game(rules=V3)
    place(g, 0, pos=3)
    monster_deck(g, "Field Mouse", "Grumpy Toad")
    g.building_fights_left = 1
    with script(g, [5, 4, 1, 1], [3, 3, 1], [6, 6, 1, 1], [3, 3, 3]):
        loot.claim_building(g, 0, 3)
    assert g.owner[3] == 0


def test_v3_loot_as_many_homes_as_you_like_in_a_turn():
    g = make_game(rules=V3)
    place(g, 0, pos=1)
    monster_deck(g, "Field Mouse", "Grumpy Toad")
    assert begin_turn(g, 0)
    with script(g, [6, 6, 1, 1], [1, 1, 1]):
        apply_action(g, 0, LOOT)
    apply_action(g, 0, (Action.MOVE, 2, -1))
    assert LOOT in legal_actions(g, 0)
    with script(g, [6, 6, 1, 1], [1, 1, 1]):
        apply_action(g, 0, LOOT)
    assert (g.owner[1], g.owner[2], g.ap) == (0, 0, 2)


def test_v3_raid_is_a_fight_to_a_knockout_no_edge_no_grabs_killer_scores_and_takes_three():
    """P0 raids P1 (10 HP): no +1 for P1, no card grabs, and it goes past three rolls.
    roll 1 P0 2+1 = 3 vs 2+1 = 3 -> nothing; roll 2 P1 1+1 = 2 vs 1+1 = 2 -> nothing;
    roll 3 P0 3+2 = 5 vs 2+1 = 3 -> P1 10 -> 8 (no grab); roll 4 P1 2 vs 2 -> nothing;
    roll 5 P0 6+6 = 12 vs 2+1 = 3 -> 9 damage, P1 at 0.
    Knockout: 1 VP for P0; no monster kept (not asked); P0 takes 3 cards: Angry Crow, Pack Rat,
    Tailwind; Shortcut and Scavenge are discarded, Old Owl goes under the monster deck."""
    g = make_game(rules=V3)
    place(g, 0, pos=4)
    place(g, 1, pos=4, hand=["Tailwind", "Shortcut", "Scavenge", "Pack Rat"], beasts=["Angry Crow", "Old Owl"])
    item_deck(g, "Log Pile", "Beaver Dam", "Sugar Rush")
    monster_deck(g, "Badger")
    g.raids_left = 1
    crow, owl = monster("Angry Crow"), monster("Old Owl")
    tw, sc, sv, pr = (item(n) for n in ("Tailwind", "Shortcut", "Scavenge", "Pack Rat"))
    with script(g, [2, 1, 1, 1], [2, 1, 1, 1], [1, 1, 1, 1], [1, 1, 1, 1], [3, 2, 1, 1], [2, 1, 1, 1],
                [1, 1, 1, 1], [1, 1, 1, 1], [6, 6, 1, 1], [2, 1, 1, 1],
                Ask(0, Decision.TAKE_CARD, (MONSTER, crow),
                    options=[(ITEM, tw), (ITEM, sc), (ITEM, sv), (ITEM, pr), (MONSTER, crow), (MONSTER, owl)]),
                Ask(0, Decision.TAKE_CARD, (ITEM, pr),
                    options=[(ITEM, tw), (ITEM, sc), (ITEM, sv), (ITEM, pr), (MONSTER, owl)]),
                Ask(0, Decision.TAKE_CARD, (ITEM, tw))):
        raid.raid(g, 0, 1)
    p0, p1 = g.players
    assert g.vp(0) == 1 and p0.knockout_vp == 1
    assert names(p0.items) == ["Pack Rat", "Tailwind"] and beast_names(p0.monsters) == ["Angry Crow"]
    assert p1.monsters == []
    assert names(g.item_discard) == ["Shortcut", "Scavenge"]
    assert deck_top_first(g) == ["Badger", "Old Owl"]
    assert (p1.lives, p1.hp, p1.pos) == (1, 10, 0)
    assert names(p1.items) == ["Log Pile", "Beaver Dam", "Sugar Rush"]


def test_v3_a_knockout_vp_can_win_the_game():
    """P0 owns 4 buildings (4 VP: not a V3 win) and knocks P1 out in a raid: 5 VP wins.
    roll 1 P0 6+6 = 12 vs 1+1 = 2 -> 10 damage, P1 (10 HP) at 0; P1 has no cards: nothing to take."""
    g = make_game(rules=V3)
    own(g, 0, 1, 2, 3, 7)
    winning.check_vp(g, 0)
    assert not g.over
    place(g, 0, pos=4)
    place(g, 1, pos=4)
    item_deck(g, "Log Pile", "Beaver Dam", "Sugar Rush")
    g.raids_left = 1
    with script(g, [6, 6, 1, 1], [1, 1, 1, 1]):
        raid.raid(g, 0, 1)
    assert (g.vp(0), g.over, g.winner_seat, g.end_reason) == (5, True, 0, "vp")


def test_v3_invasion_defender_has_no_edge():
    """P1 owns home 2, P0 home 1 (a tie: the V4 edge would apply). V3: Field Mouse (3 HP, 3 dice) +0.
    roll 1 P0 5+4 = 9 vs 4+4 = 8 -> mouse 3 -> 2; roll 2 mouse 1+1 = 2 vs 1+1 = 2 -> nothing;
    roll 3 P0 2+2 = 4 vs 1+1 = 2 -> mouse beaten."""
    g = make_game(rules=V3)
    own(g, 0, 1)
    own(g, 1, 2)
    place(g, 0, pos=2)
    place(g, 1, pos=0, beasts=["Field Mouse"])
    g.building_fights_left = 1
    with script(g, [5, 4, 1, 1], [4, 4, 1], [1, 1, 1], [1, 1, 1, 1], [2, 2, 1, 1], [1, 1, 1]):
        invade.invade(g, 0)
    assert g.owner[2] == 0 and g.vp(0) == 2


@pytest.mark.parametrize("scores, owner_vp", [(True, 2), (False, 1)])
def test_v3_invasion_knockout_scores_a_vp(scores, owner_vp):
    """The change table's "A knockout scores 1 VP; the killer takes 3 cards", and §6.4 "you are knocked
    out by the owner": the owner who knocks out an invader scores the VP (the default) and takes 3
    cards. ``invasion_knockout_scores = off`` (the old reading: only raids score) gives the cards, no VP.
    roll 1 P0 1+1 = 2 vs 1+1 = 2 -> nothing; roll 2 mouse 6+6 = 12 vs 1+1 = 2 -> P0 (10 HP) at 0.
    P0's three cards all go to P1, who has home 2 and, by default, 1 knockout VP."""
    g = make_game(rules=preset("v3", {"invasion_knockout_scores": scores}))
    own(g, 1, 2)
    place(g, 0, pos=2, hand=["Tailwind", "Shortcut", "Scavenge"])
    place(g, 1, pos=0, beasts=["Field Mouse"])
    item_deck(g, "Log Pile", "Beaver Dam", "Sugar Rush")
    g.building_fights_left = 1
    with script(g, [1, 1, 1, 1], [1, 1, 1], [6, 6, 1], [1, 1, 1, 1],
                Ask(1, Decision.TAKE_CARD, (ITEM, item("Scavenge"))),
                Ask(1, Decision.TAKE_CARD, (ITEM, item("Tailwind")))):
        invade.invade(g, 0)
    assert names(g.players[1].items) == ["Scavenge", "Tailwind", "Shortcut"]
    assert (g.vp(1), g.players[1].knockout_vp) == (owner_vp, owner_vp - 1)


def test_v3_no_desert_heal():
    g = make_game(rules=V3)
    place(g, 0, pos=0, hp=8)
    assert begin_turn(g, 0)
    assert g.players[0].hp == 8


def test_v3_five_vp_wins_seven_in_teams():
    g = make_game(rules=V3)
    own(g, 0, 1, 2, 3, 7)
    winning.check_vp(g, 0)
    assert not g.over
    own(g, 0, 8)
    winning.check_vp(g, 0)
    assert (g.over, g.winner_seat) == (True, 0)
    g = make_game(rules=V3, players=4, mode="teams")
    own(g, 0, 1, 2, 3)
    own(g, 2, 7, 8, 9)
    winning.check_vp(g, 0)
    assert not g.over
    own(g, 2, 10)
    winning.check_vp(g, 2)
    assert (g.over, g.winner_team) == (True, 0)


def test_v3_two_player_explorer_also_needs_five():
    """Our reading: the V3 column says "5 VP wins"; the 3-VP 2-player Explorer target is V4's."""
    g = make_game(rules=V3, board="explorer", layout={c: Tile.HOME for c in range(1, 6)})
    own(g, 0, 1, 2, 3, 4)
    winning.check_vp(g, 0)
    assert not g.over
    own(g, 0, 5)
    winning.check_vp(g, 0)
    assert g.over and g.winner_seat == 0


@reference_only  # card data only: no engine function to run
def test_v3_item_deck_62_cards_70_copies_without_the_v4_cards():
    for name, distinct, copies, has_v4 in (("v3", 62, 70, False), ("v4", 66, 78, True)):
        r = preset(name)
        deck = CARDS.item_deck(r.item_deck, r.unruled_cards)
        assert (len(set(deck)), len(deck)) == (distinct, copies)
        for card in ("Grenade", "Snare", "Poison Dart", "Smoke Bomb"):
            assert deck.count(item(card)) == (2 if has_v4 else 0)


def test_v3_ap_per_preset():
    """rules.py: v3 takes the AP section's 5, v3-ap3 the Beginner board card's 3; V4 says 5 on both."""
    for name, ap in (("v3", 5), ("v3-ap3", 3), ("v4", 5)):
        g = make_game(rules=preset(name))
        place(g, 0, pos=4)
        assert begin_turn(g, 0)
        assert g.ap == ap, name


@pytest.mark.parametrize("takes", [False, True])
def test_v3_a_player_out_of_the_game_neither_takes_nor_scores_with_reflected_damage(takes):
    """§8.7 "you are out of the game" (docs/rules-interpretation.md): P1, on its last life, plays Revenge
    Strike in P0's V3 raid. roll 1 P0 6+6 = 12 vs 1+1 = 2 -> 10 damage to P1 (9 HP -> 0) and the same
    10 to P0 (9 -> 0). P1 is knocked out first, by P0: out of the game (3 players: play goes on); P0 scores
    the knockout VP and finds nothing to take. Then P0 is knocked out "by" P1, who is out: P1 takes no
    card and scores no VP; Log Pile goes to the discard pile. ``out_of_game_takes_card`` (the old
    reading) gives P1 the card (the only one: not asked) and the VP."""
    g = make_game(rules=preset("v3", {"out_of_game_takes_card": takes}), players=3)
    place(g, 0, pos=4, hp=9, hand=["Log Pile"])
    place(g, 1, pos=4, hp=9, lives=1, hand=["Revenge Strike"])
    item_deck(g, "Tailwind", "Shortcut", "Scavenge")
    g.raids_left = 1
    with script(g, Ask(1, Decision.COMBAT_CARD, (0, -1), options=[(-1, -1), (0, -1)]),
                [6, 6, 1, 1], [1, 1, 1, 1]):
        raid.raid(g, 0, 1)
    p0, p1, _ = g.players
    assert (p1.lives, p1.alive, p0.lives, p0.hp, g.over) == (0, False, 1, 10, False)
    assert (p0.knockout_vp, p0.knockouts_dealt, p1.knockouts_dealt) == (1, 1, 1)
    assert names(p0.items) == ["Tailwind", "Shortcut", "Scavenge"]
    if takes:
        assert (names(p1.items), p1.knockout_vp, g.vp(1)) == (["Log Pile"], 1, 1)
        assert names(g.item_discard) == ["Revenge Strike"]
    else:
        assert (p1.items, p1.knockout_vp, g.vp(1)) == ([], 0, 0)
        assert names(g.item_discard) == ["Revenge Strike", "Log Pile"]
