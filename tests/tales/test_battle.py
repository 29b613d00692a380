"""3. Battle: who begins, attacker and defender choice, Provoke, the round/exhaust cycle, 2 vs. 2 turns."""

from tales_scenario import Ask, Decision, both_engines, creature_deck, field, make_game, script

from sim.tales.battle import battle, take_turn, who_begins
from sim.tales.game import play_round

pytestmark = both_engines


def test_higher_die_begins_and_ties_roll_again():
    g = make_game()
    with script(g, 3, 3, 2, 5):
        assert who_begins(g) == 1


def test_defender_is_chosen_by_the_other_side():
    g = make_game()
    field(g, 0, "Thornback Hedgehog", "Moss Wolf")
    field(g, 1, "Murk Rat", "Veil Hound")
    # Hedgehog 1 on the Rat: Shadow Form fails (1); the Rat's 1 is taken by the Hedgehog's Armor 1
    with script(g, Ask(0, Decision.ATTACKER, (0, 0), options=[(0, 0), (0, 1)]),
                Ask(1, Decision.DEFENDER, (1, 0), options=[(1, 0), (1, 1)]), 1):
        take_turn(g, 0)
    assert g.seats[0].exhausted[:2] == [1, 0] and g.seats[1].exhausted[:2] == [1, 0]
    assert g.seats[1].damage[0] == 1 and g.seats[0].damage[0] == 0
    assert g.turns == 1 and g.fights == 1


def test_provoke_lets_the_attacking_side_choose_the_opposing_creature():
    g = make_game()
    field(g, 0, "Badger Warden", "Moss Wolf")
    field(g, 1, "Murk Rat", "Veil Hound")
    with script(g, Ask(0, Decision.ATTACKER, (0, 0)), Ask(0, Decision.PROVOKE, (1, 1), options=[(1, 0), (1, 1)]),
                1, 1):              # Warden 1 on the Hound: Shadow Form fails; Hound's 3: Regeneration fails
        take_turn(g, 0)
    assert g.seats[1].exhausted[:2] == [0, 1]
    assert g.seats[0].damage[0] == 3 and g.seats[1].damage[1] == 1


def test_provoke_with_a_dice_chance_needs_its_roll():
    g = make_game()
    field(g, 0, "Tusk Warrior")
    field(g, 1, "Murk Rat", "Veil Hound")
    # Provoke 4+ fails on 3: the Schatten commander chooses; Tusk 3 on the Rat (Shadow Form 4+: 4 halves to
    # 1), the Rat's 1 on the Tusk (Regeneration 6+: fails on 5)
    with script(g, 3, Ask(1, Decision.DEFENDER, (1, 0)), 4, 5):
        take_turn(g, 0)
    assert g.seats[1].damage[0] == 1 and g.seats[0].damage[0] == 1


def test_round_ends_when_one_side_has_no_ready_creature_and_the_next_round_readies_all():
    g = make_game()
    field(g, 0, "Thornback Hedgehog", "Thornback Hedgehog", "Thornback Hedgehog")
    field(g, 1, "Murk Rat", "Mist Weaver")
    # team 0 begins (5 vs 2). Fight 1: P0 slot 0 on the Rat (Shadow Form fails; the Rat's 1 is absorbed by
    # Armor 1). Team 1's turn: its only ready creature, the Weaver, attacks without a choice; P0 picks slot 1
    # (the Hedgehog's 1: Evade fails, Shadow Form fails). Team 0's turn: nobody on team 1 is ready.
    with script(g, 5, 2, Ask(0, Decision.ATTACKER, (0, 0)), Ask(1, Decision.DEFENDER, (1, 0)), 1,
                Ask(0, Decision.DEFENDER, (0, 1), options=[(0, 1), (0, 2)]), 1, 1):
        battle(g)
    assert g.turns == 2 and g.first_side == 0
    assert g.seats[0].exhausted[:3] == [1, 1, 0]      # P0's third creature never fought: the round is over
    assert g.seats[1].exhausted[:2] == [1, 1]
    assert g.seats[1].damage[:2] == [1, 1]
    creature_deck(g, 0)
    creature_deck(g, 1)
    # round 2: every creature is ready again (nothing to refill, no equipment); team 1 begins (1 vs 6)
    with script(g, 1, 6, Ask(1, Decision.ATTACKER, (1, 0), options=[(1, 0), (1, 1)]),
                Ask(0, Decision.DEFENDER, (0, 2), options=[(0, 0), (0, 1), (0, 2)]), 1,
                Ask(0, Decision.ATTACKER, (0, 0), options=[(0, 0), (0, 1)]), 1, 1):
        play_round(g)
    assert g.round == 2 and g.turns == 4 and g.first_side == 0
    assert g.seats[1].damage[:2] == [2, 2]


def test_2v2_two_fights_per_turn_with_team_members_taking_turns_to_choose():
    g = make_game("2v2")
    field(g, 0, "Thornback Hedgehog", "Thornback Hedgehog")
    field(g, 2, "Thornback Hedgehog")
    field(g, 1, "Murk Rat")
    field(g, 3, "Murk Rat")
    # pick 1: P0 (team 0's first member) sends P2's creature, P1 answers with P3's Rat; pick 2: P2 chooses
    # among P0's creatures; P1's Rat is the only one left, so P3 is not asked. Each Rat: Shadow Form fails.
    with script(g, Ask(0, Decision.ATTACKER, (2, 0), options=[(0, 0), (0, 1), (2, 0)]),
                Ask(1, Decision.DEFENDER, (3, 0), options=[(1, 0), (3, 0)]), 1,
                Ask(2, Decision.ATTACKER, (0, 1), options=[(0, 0), (0, 1)]), 1):
        take_turn(g, 0)
    assert g.turns == 1 and g.fights == 2
    assert [g.seats[s].exhausted[0] for s in range(4)] == [0, 1, 1, 1] and g.seats[0].exhausted[1] == 1
    assert g.seats[1].damage[0] == 1 and g.seats[3].damage[0] == 1
