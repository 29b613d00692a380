"""§3 Your turn: 5 AP, 1 AP per action (moving, looting, buying, raiding, invading, barricading,
placing a tile), item cards free; one building fight (loot or invasion of a home or mansion) a turn,
chests and forests do not count; unused AP is lost; knocked out on your own turn ends it at once.
"""

from scenario import Ask, begin_turn, item_deck, make_game, monster_deck, names, own, place, script

from sim.paws.actions import END_TURN, apply_action, legal_actions
from sim.paws.game import play_round
from sim.paws.kinds import Action, Decision, Tile
from sim.paws.turn import take_turn

LOOT = (Action.LOOT, -1, -1)


def test_five_ap_each_action_costs_one_item_cards_are_free_unused_ap_is_lost():
    """P0 starts on the Desert (10 HP -> 12, the rest). 5 AP:
    move to chest 4 (4 left), loot it: 3 cards (3), buy 1 card (2), play Tailwind +1 AP for free
    (2 -> 3), move to forest 5 (2), loot it: a barricade (1), barricade forest 5 (0). With 0 AP only
    END_TURN is legal, even with an On-your-turn card (Shortcut) in hand. Next turn: 5 AP again.
    """
    g = make_game()
    place(g, 0, pos=0, hp=10)
    item_deck(g, "Tailwind", "Shortcut", "Scavenge", "Pack Rat", "Log Pile")
    assert begin_turn(g, 0)
    assert g.ap == 5 and g.players[0].hp == 12
    apply_action(g, 0, (Action.MOVE, 4, -1))
    assert g.ap == 4
    apply_action(g, 0, LOOT)
    assert g.ap == 3 and names(g.players[0].items) == ["Tailwind", "Shortcut", "Scavenge"]
    apply_action(g, 0, (Action.BUY, -1, -1))
    assert g.ap == 2 and names(g.players[0].items)[-1] == "Pack Rat"
    apply_action(g, 0, (Action.PLAY_ITEM, 0, -1))  # Tailwind
    assert g.ap == 3
    apply_action(g, 0, (Action.MOVE, 5, -1))
    apply_action(g, 0, LOOT)
    assert g.ap == 1 and g.players[0].barricades == 1
    apply_action(g, 0, (Action.BARRICADE, 5, -1))
    assert g.ap == 0 and g.barricade[5] == 0
    assert legal_actions(g, 0) == [END_TURN]
    g.ap = 0
    assert begin_turn(g, 0) and g.ap == 5


def test_unused_ap_is_lost():
    g = make_game()
    place(g, 0, pos=4)
    g.ap = 3  # left over from the last turn
    assert begin_turn(g, 0) and g.ap == 5


def test_one_building_fight_a_turn_chests_and_forests_do_not_count():
    """P0 on home 1 loots it (Field Mouse: 6+6 = 12 vs 1+1 = 2, beaten; 4 AP left). Then, the same
    turn: move to P1's home 8 (3 AP) -> no INVADE; move to unclaimed home 7 (2 AP) -> no LOOT; move to
    forest 18 (1 AP) -> LOOT is offered (forests and chests do not count) and taken (0 AP). The next
    turn, back on home 7, LOOT is offered again.
    """
    g = make_game()
    own(g, 1, 8)
    place(g, 0, pos=1, hp=10)
    place(g, 1, pos=0, beasts=["Grumpy Toad"])
    monster_deck(g, "Field Mouse", "Badger")
    assert begin_turn(g, 0) and g.building_fights_left == 1
    with script(g, [6, 6, 1, 1], [1, 1, 1, 1]):
        apply_action(g, 0, LOOT)
    assert g.owner[1] == 0 and g.ap == 4
    apply_action(g, 0, (Action.MOVE, 8, -1))
    assert (Action.INVADE, -1, -1) not in legal_actions(g, 0)
    apply_action(g, 0, (Action.MOVE, 7, -1))
    assert g.tile[7] == Tile.HOME and g.owner[7] == -1
    assert LOOT not in legal_actions(g, 0)
    apply_action(g, 0, (Action.MOVE, 18, -1))
    assert g.ap == 1 and g.tile[18] == Tile.FOREST and LOOT in legal_actions(g, 0)
    apply_action(g, 0, LOOT)
    assert g.ap == 0 and g.players[0].barricades == 1
    g.players[0].pos = 7
    assert begin_turn(g, 0)
    assert LOOT in legal_actions(g, 0)


def test_knocked_out_on_your_own_turn_ends_the_turn_at_once():
    """take_turn: P0 (2 HP, on home 1) chooses LOOT with 5 AP: Field Mouse.
    roll 1 P0: 1+1 = 2 vs 1+1 = 2 -> nothing; roll 2 mouse: 6+6 = 12 vs 1+1 = 2 -> P0 at 0.
    P0 is back on the Desert with 4 AP unspent, but the turn is over: no further action is asked.
    """
    g = make_game()
    place(g, 0, pos=1, hp=2)
    monster_deck(g, "Field Mouse")
    item_deck(g, "Tailwind", "Shortcut", "Scavenge")
    with script(g, Ask(0, Decision.ACTION, LOOT), [1, 1, 1, 1], [1, 1, 1, 1], [6, 6, 1, 1], [1, 1, 1, 1]):
        take_turn(g, 0)
    p = g.players[0]
    assert (p.lives, p.pos, p.hp, g.ap) == (1, 0, 10, 4)
    assert g.seat == -1
    assert (g.turns, g.idle_turns) == (1, 0)     # it looted: an action taken, not an idle turn


def test_a_turn_with_no_action_is_idle_whatever_ended_it():
    """The record's idle_turns counts turns that end with no action taken: P0 ends its turn at once
    (idle); P1 moves once and ends (not idle); P0, poisoned at 1 HP, is knocked out by the tick at the
    start of its turn (idle: §10 Poison Dart, §3 the turn ends at once)."""
    g = make_game()
    place(g, 0, pos=4)
    place(g, 1, pos=5)
    with script(g, Ask(0, Decision.ACTION, END_TURN)):
        take_turn(g, 0)
    assert (g.turns, g.idle_turns) == (1, 1)
    with script(g, Ask(1, Decision.ACTION, (Action.MOVE, 4, -1)), Ask(1, Decision.ACTION, END_TURN)):
        take_turn(g, 1)
    assert (g.turns, g.idle_turns) == (2, 1)
    place(g, 0, hp=1)
    g.players[0].poison_ticks, g.players[0].poisoner = 1, 1
    take_turn(g, 0)
    assert g.players[0].lives == 1 and (g.turns, g.idle_turns) == (3, 2)


def test_explorer_place_a_tile_costs_one_ap_next_to_a_tile_on_the_table():
    """Explorer: the Desert alone on the table; P0 places its home (1 AP) on a cell touching it."""
    g = make_game(board="explorer")
    g.players[0].tiles = [1, 1, 2, 2]
    assert begin_turn(g, 0)
    places = [a for a in legal_actions(g, 0) if a[0] == Action.PLACE_TILE and a[1] == 1]
    assert sorted(a[2] for a in places) == [1, 2, 3, 4, 5, 6]
    apply_action(g, 0, (Action.PLACE_TILE, 1, 2))
    assert g.ap == 4 and g.tile[2] == Tile.HOME and g.players[0].tiles == [1, 0, 2, 2]
    assert (Action.MOVE, 2, -1) in legal_actions(g, 0)


def test_a_round_clockwise_from_the_first_player_skipping_players_out_of_lives():
    """3 players, P2 goes first, P1 is out of lives: P2 then P0 take a turn (each ends it at once), P1
    does not. The round's standings (VP per seat) are recorded; P0 owns home 1."""
    g = make_game(players=3)
    own(g, 0, 1)
    place(g, 1, lives=0)
    g.first_seat = 2
    with script(g, Ask(2, Decision.ACTION, END_TURN), Ask(0, Decision.ACTION, END_TURN)):
        play_round(g)
    assert (g.round, g.turns, g.seat, g.over) == (1, 2, -1, False)
    assert g.trace == [[1, 0, 0]]
