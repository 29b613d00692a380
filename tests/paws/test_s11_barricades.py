"""§11 Barricades: a forest gives one; 1 AP to put it on a tile you own or that has your brick on it
(you need not stand there); nobody else can loot or invade that tile for the rest of the game;
barricades do not block movement.
"""

from scenario import NOBODY, item_deck, make_game, own, place

from sim.paws import knockout
from sim.paws.actions import apply_action, barricade_cells, legal_actions
from sim.paws.invade import invadable
from sim.paws.kinds import Action
from sim.paws.loot import lootable


def test_barricade_on_an_owned_or_bricked_tile_from_afar_for_one_ap():
    """P0 owns home 1, looted chest 4, stands on the Desert with a barricade. P1 owns home 2 and
    chest 6 is unlooted. P0 may barricade cells 1 and 4 only."""
    g = make_game()
    own(g, 0, 1)
    own(g, 1, 2)
    g.brick[4] = 0
    place(g, 0, pos=0)
    g.players[0].barricades = 1
    g.ap = 5
    assert barricade_cells(g, 0) == [1, 4]
    acts = [a for a in legal_actions(g, 0) if a[0] == Action.BARRICADE]
    assert acts == [(Action.BARRICADE, 1, -1), (Action.BARRICADE, 4, -1)]
    apply_action(g, 0, (Action.BARRICADE, 1, -1))
    assert (g.ap, g.barricade[1], g.players[0].barricades) == (4, 0, 0)
    assert not any(a[0] == Action.BARRICADE for a in legal_actions(g, 0))


def test_nobody_else_can_invade_a_barricaded_home_but_may_walk_onto_it():
    g = make_game()
    own(g, 0, 1)
    g.barricade[1] = 0
    place(g, 0, pos=6, beasts=["Field Mouse"])
    place(g, 1, pos=0)
    g.ap, g.building_fights_left = 5, 1
    assert (Action.MOVE, 1, -1) in legal_actions(g, 1)
    apply_action(g, 1, (Action.MOVE, 1, -1))
    assert g.players[1].pos == 1
    assert not invadable(g, 1)
    assert (Action.INVADE, -1, -1) not in legal_actions(g, 1)
    g.barricade[1] = NOBODY  # control: without the barricade P1 could invade
    assert invadable(g, 1)


def test_barricaded_chest_stays_barred_to_others_after_its_brick_resets():
    """P0 looted and barricaded chest 4, then was knocked out (P0 still has a life): the brick resets
    (§8) but the barricade stays "for the rest of the game", so P1 cannot loot it. Our reading: the
    player who placed the barricade may loot the reset chest again."""
    g = make_game()
    g.brick[4] = 0
    g.barricade[4] = 0
    item_deck(g, "Tailwind", "Shortcut", "Scavenge")
    knockout.knock_out(g, 0, NOBODY, scores=False)
    assert g.brick[4] == NOBODY and g.barricade[4] == 0
    place(g, 1, pos=4)
    assert not lootable(g, 1)
    place(g, 0, pos=4)
    assert lootable(g, 0)
