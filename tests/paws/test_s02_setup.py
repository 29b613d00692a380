"""§2 Setting up, with scripted shuffles (every swap is a Pick; no_shuffle keeps file order) and dice."""

from scenario import CARDS, make_game, names, no_shuffle, script

from sim.paws.game import setup_game
from sim.paws.kinds import Tile

MONSTER_COPIES = sum(m.copies for m in CARDS.monsters)


def test_beginner_setup_board_decks_hands_and_first_player_reroll_of_the_tied():
    """Beginner, 3 players. Unshuffled, the 18 tiles lie in the order 4 mansions, 4 homes, 6 chests,
    4 forests on cells 1..18 (ring 1 = cells 1..6, ring 2 = 7..18). Everyone starts on the Desert with
    2 lives, 10 HP and 3 cards from the top of the 78-copy V4 deck (file order: the last cards come
    first). First player: 3+4 = 7, 5+2 = 7, 2+3 = 5 -> P0 and P1 tie and roll again (P2 does not):
    2+2 = 4, 4+5 = 9 -> P1 goes first."""
    g = make_game(players=3)
    with script(g, no_shuffle(18), no_shuffle(MONSTER_COPIES), no_shuffle(78),
                [3, 4], [5, 2], [2, 3], [2, 2], [4, 5]):
        setup_game(g)
    assert g.tile[0] == Tile.DESERT
    assert g.tile[1:19] == [Tile.MANSION] * 4 + [Tile.HOME] * 4 + [Tile.CHEST] * 6 + [Tile.FOREST] * 4
    assert all(t == Tile.EMPTY for t in g.tile[19:])
    assert len(g.neighbours(0)) == 6
    for p in g.players:
        assert (p.pos, p.lives, p.hp, len(p.items)) == (0, 2, 10, 3)
    assert names(g.players[0].items) == ["Smoke Bomb", "Smoke Bomb", "Poison Dart"]
    assert names(g.players[1].items) == ["Poison Dart", "Snare", "Snare"]
    assert names(g.players[2].items) == ["Grenade", "Grenade", "Scavenge"]
    assert len(g.item_deck) == 78 - 9 and len(g.monster_deck) == MONSTER_COPIES
    assert g.first_seat == 1


def test_explorer_setup_only_the_desert_each_player_holds_tiles():
    """Explorer: only the Desert is on the table. 2 players: 1 mansion, 1 home, 2 chests, 2 forests
    each; 3 or 4 players: 1 mansion, 1 home, 2 chests, 1 forest each."""
    for players, held in ((2, [1, 1, 2, 2]), (4, [1, 1, 2, 1])):
        g = make_game(players=players, board="explorer")
        dice = [[6, 6]] + [[1, 1]] * (players - 1)
        with script(g, no_shuffle(MONSTER_COPIES), no_shuffle(78), dice):
            setup_game(g)
        assert g.tile_cells() == [0]
        assert [p.tiles for p in g.players] == [held] * players
        assert g.first_seat == 0
