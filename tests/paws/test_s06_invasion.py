"""§6 Home invasion, hand-worked: the owner picks one of their monsters to defend (none: the top of the
monster deck), it rolls 4 dice and adds the defender's edge (+1) every roll, except when the owner is
the sole VP leader; beat it and the home and that card are yours; lose and the owner knocks you out.
The owner never loses HP. Attacker's dice are drawn first each roll.
"""

from scenario import (Ask, beast_names, deck_top_first, item, item_deck, make_game, monster, monster_deck,
                      names, own, place, script)

from sim.paws import invade
from sim.paws.actions import apply_action, legal_actions
from sim.paws.kinds import Action, Decision
from sim.paws.knockout import ITEM, MONSTER


def test_owner_chooses_the_defender_which_gets_the_defenders_edge():
    """P0 owns home 1, P1 owns home 2 (1 VP each: no sole leader, so the +1 applies).

    P0 invades home 2 (1 AP). P1 picks Field Mouse (3 HP) over Wild Boar.
    roll 1 P0: 5+4 = 9 vs 4+4 +1 = 9 -> nothing (without the edge: 1 damage)
    roll 2 mouse: 3+3 +1 = 7 vs 3+2 = 5 -> P0 10 -> 8
    roll 3 P0: 6+6 = 12 vs 2+1 +1 = 4 -> 8 damage, the mouse is beaten.
    P0 takes home 2 and the Field Mouse card; P1 keeps the boar and is never hurt.
    """
    g = make_game()
    own(g, 0, 1)
    own(g, 1, 2)
    place(g, 0, pos=2, hp=10)
    place(g, 1, pos=5, hp=10, beasts=["Wild Boar", "Field Mouse"], active=[True, True])
    g.ap, g.building_fights_left = 5, 1
    assert (Action.INVADE, -1, -1) in legal_actions(g, 0)
    with script(g, Ask(1, Decision.DEFENDER, monster("Field Mouse"),
                       options=[monster("Wild Boar"), monster("Field Mouse")]),
                [5, 4, 1, 1], [4, 4, 1, 1], [3, 3, 1, 1], [3, 2, 1, 1], [6, 6, 1, 1], [2, 1, 1, 1]):
        apply_action(g, 0, (Action.INVADE, -1, -1))
    assert g.ap == 4
    assert (g.owner[2], g.brick[2]) == (0, 0)
    assert beast_names(g.players[0].monsters) == ["Field Mouse"] and g.players[0].active == [False]
    assert beast_names(g.players[1].monsters) == ["Wild Boar"] and g.players[1].active == [True]
    assert (g.players[0].hp, g.players[1].hp) == (8, 10)
    assert (g.vp(0), g.vp(1), g.over) == (2, 0, False)
    assert g.building_fights_left == 0 and (Action.INVADE, -1, -1) not in legal_actions(g, 0)


def test_leader_rule_no_edge_for_the_sole_vp_leaders_monster():
    """P1 owns homes 2 and 7 (2 VP), P0 none: P1 is the sole leader, so the defender gets no +1.

    P1 picks Field Mouse (3 HP). roll 1 P0: 6+5 = 11 vs 4+4 = 8 -> 3 damage, beaten in one roll
    (with the +1 it would be 2 damage and the fight would go on, past the scripted dice).
    """
    g = make_game()
    own(g, 1, 2, 7)
    place(g, 0, pos=2, hp=10)
    place(g, 1, pos=0, beasts=["Field Mouse", "Grumpy Toad"])
    g.building_fights_left = 1
    with script(g, Ask(1, Decision.DEFENDER, monster("Field Mouse")), [6, 5, 1, 1], [4, 4, 1, 1]):
        invade.invade(g, 0)
    assert g.owner[2] == 0 and g.owner[7] == 1
    assert beast_names(g.players[0].monsters) == ["Field Mouse"]
    assert beast_names(g.players[1].monsters) == ["Grumpy Toad"]
    assert (g.vp(0), g.vp(1)) == (1, 1)


def test_invader_loses_and_is_knocked_out_by_the_owner():
    """P0 (4 HP) owns home 1, P1 owns mansion 3 (1 VP each: the +1 applies) and defends with Grumpy
    Toad: 3 + 1 = 4 HP in a mansion (§5).

    roll 1 P0: 4+3 = 7 vs 3+2 +1 = 6 -> toad 4 -> 3; roll 2 toad: 5+4 +1 = 10 vs 2+1 = 3 -> P0 at 0.
    §8 knocked out by the owner: P0 keeps Swift Hare (asked first), then P1 takes Old Owl from P0's
    cards; P0's items go to the discard pile; P0 returns to the Desert at 10 HP with 3 new cards.
    P1's HP, mansion and defending toad are untouched; the monster deck is untouched.
    """
    g = make_game()
    own(g, 0, 1)
    own(g, 1, 3)
    place(g, 0, pos=3, hp=4, hand=["Running Shoes", "Treasure Map"], beasts=["Old Owl", "Swift Hare"],
          active=[True, True])
    place(g, 1, pos=0, hp=10, beasts=["Wild Boar", "Field Mouse", "Grumpy Toad"])
    monster_deck(g, "Badger")
    item_deck(g, "Tailwind", "Shortcut", "Scavenge", "Pack Rat")
    g.building_fights_left = 1
    with script(g, Ask(1, Decision.DEFENDER, monster("Grumpy Toad")),
                [4, 3, 1, 1], [3, 2, 1, 1], [5, 4, 1, 1], [2, 1, 1, 1],
                Ask(0, Decision.KEEP_MONSTER, monster("Swift Hare")),
                Ask(1, Decision.TAKE_CARD, (MONSTER, monster("Old Owl")),
                    options=[(ITEM, item("Running Shoes")), (ITEM, item("Treasure Map")), (MONSTER, monster("Old Owl"))])):
        invade.invade(g, 0)
    p, q = g.players
    assert g.owner[3] == 1 and g.owner[1] == 0
    assert q.hp == 10
    assert beast_names(q.monsters) == ["Wild Boar", "Field Mouse", "Grumpy Toad", "Old Owl"]
    assert q.active == [False, False, False, False]
    assert (p.lives, p.hp, p.pos) == (1, 10, 0)
    assert beast_names(p.monsters) == ["Swift Hare"] and p.active == [True]
    assert names(p.items) == ["Tailwind", "Shortcut", "Scavenge"]
    assert names(g.item_discard) == ["Running Shoes", "Treasure Map"]
    assert deck_top_first(g) == ["Badger"]
    assert (g.vp(0), g.vp(1)) == (1, 1)


def test_owner_without_monsters_defends_with_the_top_of_the_deck():
    """P1 owns home 2 but holds no monster cards: P0 fights the top of the monster deck (Badger, 5 HP),
    with the defender's edge (P0 owns home 1: 1 VP each). P0 loses:
    roll 1 P0: 1+1 = 2 vs 1+1 +1 = 3 -> nothing; roll 2 badger: 6+6 +1 = 13 vs 1+1 = 2 -> P0 at 0.
    Knocked out by the owner, who takes P0's only card (one option: not asked). Our reading: the deck
    monster, like a lost home fight's, goes to the bottom of the deck.
    """
    g = make_game()
    own(g, 0, 1)
    own(g, 1, 2)
    place(g, 0, pos=2, hp=10, hand=["Scavenge"])
    monster_deck(g, "Badger", "Field Mouse")
    item_deck(g, "Tailwind", "Shortcut", "Log Pile")
    g.building_fights_left = 1
    with script(g, [1, 1, 1, 1], [1, 1, 1, 1], [6, 6, 1, 1], [1, 1, 1, 1]):
        invade.invade(g, 0)
    p, q = g.players
    assert g.owner[2] == 1
    assert names(q.items) == ["Scavenge"] and q.hp == 10
    assert (p.lives, p.pos, p.hp) == (1, 0, 10)
    assert deck_top_first(g) == ["Field Mouse", "Badger"]


def test_invasion_counts_as_the_building_fight_no_loot_after_it():
    """§3/§6: after invading (won) P0 may not loot an unclaimed home the same turn."""
    g = make_game()
    own(g, 1, 8)
    place(g, 0, pos=8, hp=10)
    place(g, 1, pos=0, beasts=["Field Mouse", "Grumpy Toad"])
    monster_deck(g, "Badger")
    g.ap, g.building_fights_left = 5, 1
    # 1 VP to 0: P1 is the sole leader, no edge. roll 1 P0 12 vs 4 -> 8 damage: the mouse is beaten.
    with script(g, Ask(1, Decision.DEFENDER, monster("Field Mouse")), [6, 6, 1, 1], [2, 2, 1, 1]):
        apply_action(g, 0, (Action.INVADE, -1, -1))
    assert g.owner[8] == 0
    apply_action(g, 0, (Action.MOVE, 1, -1))   # home 1, unclaimed
    assert g.ap == 3
    assert (Action.LOOT, -1, -1) not in legal_actions(g, 0)


def test_guard_buff_adds_to_the_defender_only_when_active():
    """P0 owns home 1, P1 home 2 (1 VP each: the +1 applies). P1 defends with Badger (5 HP, guard +2).

    Not yet active (P1 won it this turn): roll 1 P0 6+4 = 10 vs 2+2 +1 = 5 -> 5 damage, the badger is
    beaten: home 2 and the card are P0's. Active: roll 1 10 vs 2+2 +1 +2 = 7 -> 3 damage (5 -> 2);
    roll 2 badger 6+6 +3 = 15 vs 1+1 = 2 -> P0 (10 HP) at 0, knocked out by P1 (no cards to take).
    """
    beaten = [[6, 4, 1, 1], [2, 2, 1, 1]]
    for active, dice in ((False, beaten), (True, beaten + [[6, 6, 1, 1], [1, 1, 1, 1]])):
        g = make_game()
        own(g, 0, 1)
        own(g, 1, 2)
        place(g, 0, pos=2, hp=10)
        place(g, 1, pos=0, beasts=["Badger"], active=[active])
        item_deck(g, "Tailwind", "Shortcut", "Scavenge")
        g.building_fights_left = 1
        with script(g, dice):
            invade.invade(g, 0)
        p, q = g.players
        if active:
            assert (g.owner[2], p.lives, p.hp, p.pos, q.knockouts_dealt) == (1, 1, 10, 0, 1)
            assert beast_names(q.monsters) == ["Badger"] and p.monsters == []
        else:
            assert (g.owner[2], p.lives, p.hp, g.vp(0), g.vp(1)) == (0, 2, 10, 2, 0)
            assert beast_names(p.monsters) == ["Badger"] and q.monsters == []


def test_teams_no_invasion_of_a_partners_home():
    """Teams (0+2 v 1+3): P2 owns home 1. P0, P2's partner, may not invade it; P1 may."""
    g = make_game(players=4, mode="teams")
    own(g, 2, 1)
    place(g, 0, pos=1)
    place(g, 1, pos=1)
    place(g, 2, pos=0, beasts=["Field Mouse"])
    g.ap, g.building_fights_left = 5, 1
    assert (Action.INVADE, -1, -1) not in legal_actions(g, 0)
    assert (Action.INVADE, -1, -1) in legal_actions(g, 1)


def test_owner_losing_a_hand_size_monster_discards_down_at_once():
    """P1 owns home 2 with Old Owl (active: hand limit 6) and holds 6 cards; P0 owns home 1 (1 VP each:
    the +1 applies). The owl is P1's only monster: it defends without a choice being asked.
    roll 1 P0: 6+6 = 12 vs 1+1 +1 = 3 -> 9 damage, the owl (4 HP) is beaten. P0 takes home 2 and the
    owl; P1's limit is back to 5, so P1 discards one card straight away (§10)."""
    six = ["Tailwind", "Shortcut", "Scavenge", "Pack Rat", "Log Pile", "Beaver Dam"]
    g = make_game()
    own(g, 0, 1)
    own(g, 1, 2)
    place(g, 0, pos=2)
    place(g, 1, pos=0, hand=six, beasts=["Old Owl"], active=[True])
    g.building_fights_left = 1
    with script(g, [6, 6, 1, 1], [1, 1, 1, 1], Ask(1, Decision.DISCARD, item("Log Pile"))):
        invade.invade(g, 0)
    p, q = g.players
    assert (g.owner[2], g.vp(0), g.vp(1)) == (0, 2, 0)
    assert beast_names(p.monsters) == ["Old Owl"] and q.monsters == []
    assert names(q.items) == ["Tailwind", "Shortcut", "Scavenge", "Pack Rat", "Beaver Dam"]
    assert names(g.item_discard) == ["Log Pile"]
