"""Game Setup and 1. Recruitment: Champion face down, deck shuffles, draw 5 place 4, the Champion in the
middle, refill to five in later rounds, none in Survive!."""

from tales_scenario import (CARDS, CREATURE, Ask, Decision, both_engines, creature_deck, deck_top_first, field,
                            make_game, names, no_shuffle, script)

from sim.tales.recruitment import recruitment
from sim.tales.setup import setup_game

pytestmark = both_engines


def test_setup_champion_choice_then_shuffles_in_seat_order():
    g = make_game()
    a_champs, s_champs = CARDS.champions(0), CARDS.champions(1)
    with script(g, Ask(0, Decision.CHAMPION, CREATURE["Lion Warlord"], options=a_champs), no_shuffle(17),
                Ask(1, Decision.CHAMPION, CREATURE["Eclipse Dragon"], options=s_champs), no_shuffle(17),
                no_shuffle(40)):
        setup_game(g)
    assert g.seats[0].champion == CREATURE["Lion Warlord"]
    assert g.seats[0].deck == CARDS.creature_deck(0) and CREATURE["Lion Warlord"] not in g.seats[0].deck
    assert len(g.equipment_deck) == 1 and len(g.equipment_deck[0]) == 40


def test_2v2_has_one_equipment_deck_per_opposing_pairing():
    g = make_game("2v2")
    champs = [Ask(s, Decision.CHAMPION, CARDS.champions(s % 2)[0]) for s in range(4)]
    with script(g, [[c, no_shuffle(17)] for c in champs], no_shuffle(40), no_shuffle(40)):
        setup_game(g)
    assert len(g.equipment_deck) == 2 and all(len(d) == 40 for d in g.equipment_deck)
    assert [st.pairing for st in g.seats] == [0, 0, 1, 1] and [st.team for st in g.seats] == [0, 1, 0, 1]


def test_round_one_draws_five_returns_one_under_the_deck_and_places_the_champion_in_the_middle():
    g = make_game()
    deck = ["Moss Wolf", "Cliff Lynx", "Horned Ram", "Swamp Newt", "Dust Jackal", "Cave Bear"]
    creature_deck(g, 0, *deck)
    creature_deck(g, 1, "Murk Rat", "Veil Hound", "Gloom Wisp", "Dusk Imp", "Shade Crawler")
    g.seats[0].champion = CREATURE["Lion Warlord"]
    g.seats[1].champion = CREATURE["Eclipse Dragon"]
    with script(g, Ask(0, Decision.RETURN, CREATURE["Horned Ram"],
                       options=[CREATURE[n] for n in deck[:5]]),
                Ask(1, Decision.RETURN, CREATURE["Murk Rat"])):
        recruitment(g)
    assert names(g.seats[0].slot) == ["Moss Wolf", "Cliff Lynx", "Lion Warlord", "Swamp Newt", "Dust Jackal"]
    assert deck_top_first(g, 0) == ["Cave Bear", "Horned Ram"]          # the returned card is at the bottom
    assert names(g.seats[1].slot) == ["Veil Hound", "Gloom Wisp", "Eclipse Dragon", "Dusk Imp", "Shade Crawler"]
    assert g.seats[0].fielded[CREATURE["Lion Warlord"]] == 1 and g.seats[0].fielded[CREATURE["Horned Ram"]] == 0


def test_later_rounds_refill_empty_slots_left_to_right_until_five():
    g = make_game()
    g.round = 2
    field(g, 0, "Moss Wolf", None, "Lion Warlord", None, "Dust Jackal", damage={0: 2})
    field(g, 1, "Murk Rat", "Veil Hound", "Eclipse Dragon", "Dusk Imp", None)
    creature_deck(g, 0, "Cave Bear", "Horned Ram", "Swamp Newt")
    creature_deck(g, 1)                                                 # an empty deck: nothing to refill
    with script(g):
        recruitment(g)
    assert names(g.seats[0].slot) == ["Moss Wolf", "Cave Bear", "Lion Warlord", "Horned Ram", "Dust Jackal"]
    assert g.seats[0].damage[0] == 2                                    # damage persists across rounds
    assert deck_top_first(g, 0) == ["Swamp Newt"]
    assert names(g.seats[1].slot)[4] is None


def test_survive_recruits_in_round_one_only():
    g = make_game("survive")
    g.round = 2
    field(g, 0, "Moss Wolf", None, "Lion Warlord")
    field(g, 1, "Murk Rat")
    creature_deck(g, 0, "Cave Bear")
    with script(g):
        recruitment(g)
    assert names(g.seats[0].slot)[1] is None and deck_top_first(g, 0) == ["Cave Bear"]


def test_first_place_and_army_size_are_parameters():
    g = make_game(first_draw=4, first_place=2, army_size=3)
    creature_deck(g, 0, "Moss Wolf", "Cliff Lynx", "Horned Ram", "Swamp Newt")
    creature_deck(g, 1, "Murk Rat", "Veil Hound", "Gloom Wisp", "Dusk Imp")
    g.seats[0].champion = CREATURE["Lion Warlord"]
    g.seats[1].champion = CREATURE["Eclipse Dragon"]
    with script(g, Ask(0, Decision.RETURN, CREATURE["Moss Wolf"]), Ask(0, Decision.RETURN, CREATURE["Swamp Newt"]),
                Ask(1, Decision.RETURN, CREATURE["Murk Rat"]), Ask(1, Decision.RETURN, CREATURE["Veil Hound"])):
        recruitment(g)
    assert names(g.seats[0].slot) == ["Cliff Lynx", "Lion Warlord", "Horned Ram"]
    assert deck_top_first(g, 0) == ["Moss Wolf", "Swamp Newt"]         # each returned card goes to the bottom
