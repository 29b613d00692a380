"""§13 Winning (and §1): the first to 4 VP wins the moment it is reached; 3 VP in a 2-player Explorer
game; 5 team VP in Teams; or the last player (team) with lives left. The round limit is an open point
of the rulebook ("after round 20, the player with the most VP wins"), off by default.
"""

from scenario import NOBODY, Ask, item_deck, make_game, monster_deck, own, place, script

from sim.paws import knockout, loot, winning
from sim.paws.kinds import Action, Decision, Tile
from sim.paws.rules import preset
from sim.paws.turn import take_turn

LOOT = (Action.LOOT, -1, -1)
WIN_DICE = ([6, 6, 1, 1], [1, 1, 1, 1])  # one roll: 12 vs 2, any monster of up to 10 HP is beaten


def test_four_vp_wins_the_moment_it_is_reached_mid_turn():
    """P0 owns homes 1, 2, 7 (3 VP: no win yet) and loots home 8 with 4 AP left after it: the game is
    over at once, no further action is asked."""
    g = make_game()
    own(g, 0, 1, 2, 7)
    winning.check_vp(g, 0)
    assert not g.over
    place(g, 0, pos=8)
    monster_deck(g, "Field Mouse")
    with script(g, Ask(0, Decision.ACTION, LOOT), WIN_DICE):
        take_turn(g, 0)
    assert (g.over, g.winner_seat, g.winner_team, g.end_reason) == (True, 0, NOBODY, "vp")
    assert g.vp(0) == 4 and g.ap == 4


def test_two_player_explorer_wins_at_three_vp():
    g = make_game(board="explorer", layout={1: Tile.HOME, 2: Tile.HOME, 3: Tile.HOME})
    own(g, 0, 1, 2)
    place(g, 0, pos=3)
    monster_deck(g, "Field Mouse")
    with script(g, WIN_DICE):
        loot.claim_building(g, 0, 3)
    assert (g.over, g.winner_seat, g.end_reason) == (True, 0, "vp")


def test_three_vp_is_not_enough_with_three_players_on_explorer_or_two_on_beginner():
    g = make_game(players=3, board="explorer", layout={1: Tile.HOME, 2: Tile.HOME, 3: Tile.HOME})
    own(g, 0, 1, 2, 3)
    winning.check_vp(g, 0)
    assert not g.over
    g = make_game(players=2)
    own(g, 0, 1, 2, 3)
    winning.check_vp(g, 0)
    assert not g.over


def test_teams_win_at_five_team_vp():
    """Teams: P0 owns home 1 and mansion 3, P2 (P0's partner) homes 7 and 8: team 0 has 4. P0 claims
    home 2: 5 team VP, team 0 wins (no winning seat)."""
    g = make_game(players=4, mode="teams")
    own(g, 0, 1, 3)
    own(g, 2, 7, 8)
    place(g, 0, pos=2)
    monster_deck(g, "Field Mouse")
    with script(g, WIN_DICE):
        loot.claim_building(g, 0, 2)
    assert (g.over, g.winner_team, g.winner_seat, g.end_reason) == (True, 0, NOBODY, "vp")


def test_teams_four_vp_alone_does_not_win():
    """P1 owns mansions 9, 10, 11 and claims home 7: 4 VP, which would win free-for-all, but team 1
    has only 4 of the 5 it needs."""
    g = make_game(players=4, mode="teams")
    own(g, 1, 9, 10, 11)
    place(g, 1, pos=7)
    monster_deck(g, "Field Mouse")
    with script(g, WIN_DICE):
        loot.claim_building(g, 1, 7)
    assert g.vp(1) == 4 and not g.over


def test_last_player_with_lives_wins():
    """3 players, P2 already out; P1 loses its last life to P0 (no cards to take): P0 wins."""
    g = make_game(players=3)
    place(g, 2, lives=0)
    place(g, 1, hp=0, lives=1)
    knockout.knock_out(g, 1, 0, scores=True)
    assert (g.over, g.winner_seat, g.end_reason) == (True, 0, "last_alive")


def test_last_player_with_lives_wins_even_against_more_vp():
    """P1 owns 3 homes; P1 is knocked out of its last life by a monster: P0 (0 VP) wins."""
    g = make_game()
    own(g, 1, 1, 2, 7)
    place(g, 1, hp=0, lives=1)
    knockout.knock_out(g, 1, NOBODY, scores=False)
    assert (g.over, g.winner_seat, g.end_reason) == (True, 0, "last_alive")


def test_last_team_with_lives_wins():
    """Teams: P1 is out; P3 (P1's partner) loses its last life: team 0 wins, though P0 and P2 are on
    different lives."""
    g = make_game(players=4, mode="teams")
    place(g, 1, lives=0)
    place(g, 3, hp=0, lives=1)
    place(g, 2, lives=1)
    knockout.knock_out(g, 3, NOBODY, scores=False)
    assert (g.over, g.winner_team, g.end_reason) == (True, 0, "last_alive")


def test_teams_one_partner_out_the_team_plays_on():
    g = make_game(players=4, mode="teams")
    place(g, 1, hp=0, lives=1)
    item_deck(g)
    knockout.knock_out(g, 1, NOBODY, scores=False)
    assert not g.over


def test_round_limit_most_vp_wins():
    """round_limit 20: after round 19 nothing happens; after round 20 the most VP (P0, 2 v 1) wins."""
    g = make_game(rules=preset("v4", {"round_limit": 20}), players=3)
    own(g, 0, 1, 2)
    own(g, 1, 7)
    g.round = 19
    winning.check_round_end(g)
    assert not g.over
    g.round = 20
    winning.check_round_end(g)
    assert (g.over, g.winner_seat, g.end_reason) == (True, 0, "round_limit")


def test_round_limit_tie_is_a_draw():
    """Our tie rule (sim/paws/winning.py; the rulebook's open point gives none): a tie for the most VP
    at the round limit is a draw, no winner, even though P2 trails."""
    g = make_game(rules=preset("v4", {"round_limit": 20}), players=3)
    own(g, 0, 1, 2)
    own(g, 1, 7, 8)
    own(g, 2, 3)
    g.round = 20
    winning.check_round_end(g)
    assert (g.over, g.winner_seat, g.winner_team, g.end_reason) == (True, NOBODY, NOBODY, "round_limit")


def test_round_limit_teams_compare_team_vp_and_tie_is_a_draw():
    g = make_game(rules=preset("v4", {"round_limit": 20}), players=4, mode="teams")
    own(g, 0, 1)
    own(g, 2, 2)
    own(g, 1, 7, 8)
    g.round = 20
    winning.check_round_end(g)
    assert (g.over, g.winner_team, g.end_reason) == (True, NOBODY, "round_limit")
    g = make_game(rules=preset("v4", {"round_limit": 20}), players=4, mode="teams")
    own(g, 0, 1)
    own(g, 2, 2)
    own(g, 1, 7, 8, 9)  # team VP: team 1 has 3, team 0 has 1 + 1 = 2
    g.round = 20
    winning.check_round_end(g)
    assert (g.over, g.winner_team, g.winner_seat) == (True, 1, NOBODY)


def test_no_round_limit_by_default():
    g = make_game()
    own(g, 0, 1)
    g.round = 20
    winning.check_round_end(g)
    assert not g.over


def test_safety_cap_a_game_with_no_winner_by_max_rounds_is_stalled():
    """Not a rulebook rule: our cap (rules.py max_rounds, 100). Round 99 ends with nothing; round 100
    ends the game as stalled, with no winner even for the VP leader."""
    g = make_game()
    own(g, 0, 1)
    g.round = 99
    winning.check_round_end(g)
    assert not g.over
    g.round = 100
    winning.check_round_end(g)
    assert (g.over, g.winner_seat, g.winner_team, g.end_reason) == (True, NOBODY, NOBODY, "stalled")
