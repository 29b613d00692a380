"""2. Equipment: free hands, equipment points, rearranging, the 3-for-1 swap, Survive!'s seven cards, and
2 vs. 2 (shared deck per pairing, equipping a teammate's creatures)."""

from tales_scenario import (EQUIPMENT, Ask, Decision, both_engines, equipment_deck, field, gear_names, hand,
                            make_game, script)

from sim.tales.equipment import PASS, SWAP, can_carry, can_take_off, equip_seat, equipment, options
from sim.tales.kinds import Act

pytestmark = both_engines


def E(name):
    return EQUIPMENT[name]


def test_two_handed_weapon_fills_both_hands():
    g = make_game()
    field(g, 0, "Lion Warlord", gear={0: ["War Hammer"]})
    assert not can_carry(g, (0, 0), E("Short Sword")) and not can_carry(g, (0, 0), E("Buckler"))


def test_one_main_hand_and_one_off_hand():
    g = make_game()
    field(g, 0, "Lion Warlord", gear={0: ["Short Sword"]})
    assert not can_carry(g, (0, 0), E("Hand Axe"))               # a second main-hand card
    assert not can_carry(g, (0, 0), E("Short Bow"))              # two-handed
    assert can_carry(g, (0, 0), E("Buckler"))
    field(g, 0, "Lion Warlord", gear={0: ["Buckler"]})
    assert not can_carry(g, (0, 0), E("Wooden Shield"))          # off-hand cards: at most hands - 1
    g2 = make_game(hands=3)
    field(g2, 0, "Lion Warlord", gear={0: ["Buckler"]})
    assert can_carry(g2, (0, 0), E("Wooden Shield"))


def test_equipment_points_are_a_budget_or_a_threshold():
    g = make_game()
    field(g, 0, "Moss Wolf", gear={0: ["Short Sword"]})          # 2 points of the Wolf's 2
    assert not can_carry(g, (0, 0), E("Buckler"))
    assert not can_carry(g, (0, 0), E("Great Axe"))
    g2 = make_game(points_budget=False)
    field(g2, 0, "Moss Wolf", gear={0: ["Short Sword"]})
    assert can_carry(g2, (0, 0), E("Buckler"))                   # each card's 1 <= 2
    field(g2, 0, "Moss Wolf")
    assert not can_carry(g2, (0, 0), E("Great Axe"))             # 4 > 2


def test_potions_are_never_carried():
    g = make_game()
    field(g, 0, "Lion Warlord")
    assert not can_carry(g, (0, 0), E("Troll Blood"))


def test_gear_life_counts_and_cannot_be_taken_off_if_that_would_destroy():
    g = make_game()
    field(g, 0, "Moss Wolf", gear={0: ["Hunter's Spear"]}, damage={0: 4})
    assert g.life_left((0, 0)) == 1                              # 4 + 1 life - 4 damage
    assert not can_take_off(g, (0, 0), 0)
    field(g, 0, "Moss Wolf", gear={0: ["Hunter's Spear"]}, damage={0: 3})
    assert can_take_off(g, (0, 0), 0)


def test_options_are_listed_in_canonical_order_and_rearranging_works():
    g = make_game()
    field(g, 0, "Moss Wolf", "Swamp Newt", gear={1: ["Rusty Dagger"]})
    hand(g, 0, "Buckler", "Great Axe")
    assert options(g, 0) == [PASS, (Act.EQUIP, 0, 0, 0), (Act.UNEQUIP, 0, 1, 0)]
    # take the Dagger back, give it to the Wolf, then the Buckler (1 + 1 points of 2), then pass
    with script(g, Ask(0, Decision.EQUIP, (Act.UNEQUIP, 0, 1, 0)), Ask(0, Decision.EQUIP, (Act.EQUIP, 2, 0, 0)),
                Ask(0, Decision.EQUIP, (Act.EQUIP, 0, 0, 0)), Ask(0, Decision.EQUIP, PASS)):
        equip_seat(g, 0)
    assert gear_names(g.seats[0].gear[0]) == ["Rusty Dagger", "Buckler"] and g.seats[0].gear[1] == []
    assert gear_names(g.seats[0].hand) == ["Great Axe"]


def test_swap_three_cards_for_one():
    g = make_game()
    field(g, 0, "Moss Wolf")
    hand(g, 0, "Troll Cleaver", "Great Axe", "Claymore", "Troll Blood")
    equipment_deck(g, 0, "Sling", "Buckler")
    with script(g, Ask(0, Decision.EQUIP, SWAP), Ask(0, Decision.DISCARD, 0, options=[0, 1, 2, 3]),
                Ask(0, Decision.DISCARD, 0), Ask(0, Decision.DISCARD, 0, options=[0, 1]),
                Ask(0, Decision.EQUIP, PASS)):
        equip_seat(g, 0)
    assert gear_names(g.seats[0].hand) == ["Troll Blood", "Sling"]
    assert gear_names(g.seats[0].equipment_graveyard) == ["Troll Cleaver", "Great Axe", "Claymore"]
    assert gear_names(g.equipment_deck[0]) == ["Buckler"]


def test_no_swap_with_fewer_than_three_cards_or_an_empty_deck():
    g = make_game()
    field(g, 0, "Moss Wolf")
    hand(g, 0, "Troll Cleaver", "Great Axe")
    equipment_deck(g, 0, "Sling")
    assert SWAP not in options(g, 0)
    hand(g, 0, "Troll Cleaver", "Great Axe", "Claymore")
    equipment_deck(g, 0)
    assert SWAP not in options(g, 0)


def test_equipment_actions_are_capped():
    g = make_game(max_equip_actions=2)
    field(g, 0, "Moss Wolf")
    hand(g, 0, "Sling")
    with script(g, Ask(0, Decision.EQUIP, (Act.EQUIP, 0, 0, 0)), Ask(0, Decision.EQUIP, (Act.UNEQUIP, 0, 0, 0))):
        equip_seat(g, 0)                                          # no third ask


def test_each_commander_draws_three_from_the_shared_deck_in_seat_order():
    g = make_game()
    field(g, 0, "Moss Wolf")
    field(g, 1, "Murk Rat")
    deck = ["Sling", "Buckler", "Longsword", "Troll Blood", "Great Axe", "Claymore", "Javelin"]
    equipment_deck(g, 0, *deck)
    with script(g, Ask(0, Decision.EQUIP, PASS), Ask(1, Decision.EQUIP, PASS)):
        equipment(g)
    assert gear_names(g.seats[0].hand) == deck[:3] and gear_names(g.seats[1].hand) == deck[3:6]


def test_survive_draws_seven_in_round_one_and_never_again():
    g = make_game("survive")
    field(g, 0, "Moss Wolf")
    field(g, 1, "Murk Rat")
    equipment_deck(g, 0, *["Troll Cleaver"] * 20)
    with script(g, Ask(0, Decision.EQUIP, PASS), Ask(1, Decision.EQUIP, PASS)):
        equipment(g)
    assert len(g.seats[0].hand) == len(g.seats[1].hand) == 7
    g.round = 2
    with script(g):
        equipment(g)
    assert len(g.seats[0].hand) == 7 and len(g.equipment_deck[0]) == 6


def test_2v2_pairings_draw_from_their_own_deck_and_teammates_equip_each_other():
    g = make_game("2v2", equipment_draw=1)
    for s in range(4):
        field(g, s, "Moss Wolf" if s % 2 == 0 else "Murk Rat")
    equipment_deck(g, 0, "Sling", "Buckler")
    equipment_deck(g, 1, "Longsword", "Javelin")
    with script(g, Ask(0, Decision.EQUIP, (Act.EQUIP, 0, 2, 0), options=[PASS, (Act.EQUIP, 0, 0, 0),
                                                                          (Act.EQUIP, 0, 2, 0)]),
                Ask(0, Decision.EQUIP, PASS), Ask(1, Decision.EQUIP, PASS), Ask(2, Decision.EQUIP, PASS)):
        equipment(g)                    # P3's Rat (1 point) cannot carry the Javelin (2): P3 is not asked
    assert gear_names(g.seats[2].gear[0]) == ["Sling"]              # P0's card on its teammate's Wolf
    assert gear_names(g.seats[1].hand) == ["Buckler"]
    assert gear_names(g.seats[2].hand) == ["Longsword"] and gear_names(g.seats[3].hand) == ["Javelin"]
