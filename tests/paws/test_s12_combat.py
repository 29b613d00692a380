"""§12 Combat, hand-worked with scripted dice: four dice a side, the two highest count, plus bonuses;
the attacker deals its score minus the defender's (0 or less: nobody is hurt); the roles swap each
roll; whoever started the fight attacks first.

Dice convention of the engine (the rulebook has both sides roll at once): each roll the attacker's
dice are drawn first, then the defender's. The scripts below list them in that order.
"""

from scenario import NOBODY, Ask, Pick, beast_names, make_game, monster_deck, names, place, script

from sim.paws import combat, loot, raid
from sim.paws.combat import NO_KNOCKOUT
from sim.paws.items import PASS
from sim.paws.kinds import Decision
from sim.paws.state import Fight


def test_top_two_dice_score_and_damage_is_the_difference_looter_first():
    """P0 loots the home on cell 1 (Wild Boar, 6 HP) at 10 HP.

    roll 1, P0 attacks: 6+5 (of 1,6,2,5) = 11 vs 3+3 (of 3,1,3,2) = 6 -> boar takes 5 (6 -> 1)
    roll 2, boar attacks: 6+6 = 12 vs 2+2 = 4 -> P0 takes 8 (10 -> 2)
    roll 3, P0 attacks: 4+4 = 8 vs 4+3 = 7 -> boar takes 1 (1 -> 0): the home is P0's.
    Summing all four dice or letting the monster attack first would end the fight at another roll
    and the script (exactly 24 dice) would not match.
    """
    g = make_game()
    place(g, 0, pos=1, hp=10)
    monster_deck(g, "Wild Boar", "Field Mouse")
    g.building_fights_left = 1
    with script(g, [1, 6, 2, 5], [3, 1, 3, 2], [6, 1, 6, 1], [2, 1, 2, 1], [4, 4, 4, 1], [4, 3, 1, 1]):
        loot.claim_building(g, 0, 1)
    assert g.players[0].hp == 2
    assert g.owner[1] == 0
    assert beast_names(g.players[0].monsters) == ["Wild Boar"]


def test_no_damage_when_the_attacker_does_not_outscore_and_roles_swap():
    """combat.fight directly, two rolls, P0 (10 HP) against a 5 HP monster.

    roll 1, P0 attacks: 2+1 = 3 vs 6+6 = 12 -> -9: nobody is hurt (the attacker is NOT hit back)
    roll 2, the monster attacks: 1+1 = 2 vs 6+6 = 12 -> -10: nobody is hurt.
    Both end untouched and, with no side at 0 HP, the fight reports no knockout.
    """
    g = make_game()
    place(g, 0, pos=1, hp=10)
    f = Fight("monster", [0, NOBODY], monster_hp=5)
    with script(g, [2, 1, 1, 1], [6, 6, 6, 6], [1, 1, 1, 1], [6, 6, 1, 1]):
        ko = combat.fight(g, f, (4, 4), (0, 0), max_rolls=2)
    assert ko == NO_KNOCKOUT
    assert g.players[0].hp == 10
    assert f.monster_hp == 5


def test_equal_scores_hurt_nobody():
    """A single roll 5+4 = 9 against 6+3 = 9: damage 0, nobody is hurt."""
    g = make_game()
    place(g, 0, pos=1, hp=10)
    f = Fight("monster", [0, NOBODY], monster_hp=3)
    with script(g, [5, 4, 1, 1], [6, 3, 2, 2]):
        ko = combat.fight(g, f, (4, 4), (0, 0), max_rolls=1)
    assert (ko, g.players[0].hp, f.monster_hp) == (NO_KNOCKOUT, 10, 3)


def test_bonuses_from_cards_buffs_and_the_defenders_edge():
    """P0 raids P1 on the chest (cell 4). Both 10 HP.

    P0: Angry Crow active (+1 in every fight); plays Sharp Claws (+1 for the rest of the fight) and
    Lucky Clover (+2 for the next roll only) before roll 1. P1: Red Fox active (+1 in raids) and the
    defender's edge (+1): +2 every roll. P1's only card is Running Shoes (On your turn: not playable
    in a fight, so P1 is never asked).

    roll 1, P0 attacks: 3+3 +1 crow +1 claws +2 clover = 10 vs 4+2 +2 = 8 -> P1 takes 2 (10 -> 8);
            P0 scored higher and grabs P1's only card (random pick among 1).
    roll 2, P1 attacks: 5+5 +2 = 12 vs 6+2 +1 crow +1 claws = 10 (clover is spent) -> P0 takes 2 (10 -> 8);
            P1 grabs it back.
    roll 3, P0 attacks: 2+2 +2 = 6 vs 3+1 +2 = 6 -> a tie: no damage, no card changes hands.
    """
    g = make_game()
    place(g, 0, pos=4, hp=10, hand=["Sharp Claws", "Lucky Clover"], beasts=["Angry Crow"], active=[True])
    place(g, 1, pos=4, hp=10, hand=["Running Shoes"], beasts=["Red Fox"], active=[True])
    g.raids_left = 1
    with script(g,
                Ask(0, Decision.COMBAT_CARD, (0, NOBODY), options=[PASS, (0, NOBODY), (1, NOBODY)]),
                Ask(0, Decision.COMBAT_CARD, (0, NOBODY), options=[PASS, (0, NOBODY)]),
                [3, 3, 2, 1], [4, 2, 2, 1], Pick(1, 0),
                [5, 5, 1, 1], [6, 2, 1, 1], Pick(1, 0),
                [2, 2, 1, 1], [3, 1, 1, 1]):
        raid.raid(g, 0, 1)
    assert (g.players[0].hp, g.players[1].hp) == (8, 8)
    assert names(g.players[0].items) == []
    assert names(g.players[1].items) == ["Running Shoes"]
    assert names(g.item_discard) == ["Sharp Claws", "Lucky Clover"]

