"""Paws in Peril reference engine: §2 setting up, the round loop, and the game record.

``play_game`` is the readable truth that the engine core (``core/paws_*.pyx``) must match record for
record. The random stream of game ``game_index`` depends only on (master seed, game index).
"""

from __future__ import annotations

from sim.paws.actions import option_words  # noqa: F401  (the game's option_words: Game.option_words)
from sim.paws.bots import make_bots
from sim.paws.cards import CardSet, load_cards
from sim.paws.items import gain_items
from sim.paws.kinds import Tile
from sim.paws.record import MONSTER_COUNTERS, RECORD_COLUMNS
from sim.paws.rules import PawsRules, PawsSetup
from sim.paws.state import Game
from sim.paws.turn import take_turn
from sim.paws.winning import check_round_end
from sim.record_schema import reference_record
from sim.rng import Rng


def build_board(g: Game) -> None:
    """§2.2: Beginner: the 18 tiles shuffled into two rings; Explorer: the Desert alone, tiles in hand."""
    r = g.rules
    g.tile[0] = Tile.DESERT
    if g.setup.board == "beginner":
        tiles = ([Tile.MANSION] * r.beginner_mansions + [Tile.HOME] * r.beginner_homes
                 + [Tile.CHEST] * r.beginner_chests + [Tile.FOREST] * r.beginner_forests)
        g.rng.shuffle(tiles)
        g.tile[1:19] = tiles
    else:
        held = list(r.explorer_tiles(g.n))
        for p in g.players:
            p.tiles = list(held)
    g.board_changed()


def first_player(g: Game) -> int:
    """§2.5: everyone rolls two dice; the highest goes first, the tied roll again."""
    contenders = list(range(g.n))
    while len(contenders) > 1:
        rolls = [g.rng.die() + g.rng.die() for _ in contenders]
        best = max(rolls)
        contenders = [s for s, roll in zip(contenders, rolls) if roll == best]
    return contenders[0]


def setup_game(g: Game) -> None:
    """§2 in a fixed order: board, monster deck, item deck, starting hands, first player."""
    build_board(g)
    g.monster_deck = g.cards.monster_deck()
    g.rng.shuffle(g.monster_deck)
    g.item_deck = g.cards.item_deck(g.rules.item_deck, g.rules.unruled_cards)
    g.rng.shuffle(g.item_deck)
    for seat in range(g.n):
        gain_items(g, seat, g.rules.starting_items)
    g.first_seat = first_player(g)
    mode = "Teams" if g.setup.mode == "teams" else "free-for-all"
    g.emit("setup", f"== Paws in Peril {g.rules.ruleset}, {g.setup.board.capitalize()} board, {mode}, {g.n} players "
                    f"({', '.join(f'{g.seat_name(s)}: {b}' for s, b in enumerate(g.setup.bots))}); "
                    f"{g.seat_name(g.first_seat)} goes first")
    if g.setup.mode == "teams":   # §1: partners sit opposite
        g.emit("teams", "Teams: " + "; ".join(
            f"{g.team_name(t)} = {' & '.join(g.seat_name(s) for s in range(g.n) if s % 2 == t)}" for t in (0, 1)))


def play_round(g: Game) -> None:
    """One round: each player with lives left takes a turn, clockwise from the first player."""
    g.round += 1
    g.emit("round", f"= Round {g.round}")
    for k in range(g.n):
        seat = (g.first_seat + k) % g.n
        if g.players[seat].alive:
            take_turn(g, seat)
        if g.over:
            break
    g.trace.append([g.vp(s) for s in range(g.n)])
    check_round_end(g)


def play_game(setup: PawsSetup, rules: PawsRules, master_seed: int, game_index: int,
              cards: CardSet | None = None, log: list | None = None, stats: list | None = None,
              bots: list | None = None) -> dict:
    """Play one whole game and return its record; pass a list as ``log`` to collect the event log, as
    ``stats`` to collect the game's cards table rows, and ``bots`` to seat other bots than the setup's
    (a decision trace's, sim/kit/trace.py)."""
    cards = cards or load_cards()
    bots = make_bots(setup.bots) if bots is None else bots
    g = Game(setup, rules, cards, bots, Rng.for_game(master_seed, game_index), log)
    setup_game(g)
    while not g.over:
        play_round(g)
    g.settle_events()
    if stats is not None:
        stats.extend(card_rows(g, master_seed, game_index))
    return record(g, master_seed, game_index)


def seat_won(g: Game, seat: int) -> bool:
    """The seat won the game (Teams: its team did)."""
    return g.winner_team == seat % 2 if g.setup.mode == "teams" else g.winner_seat == seat


def card_rows(g: Game, master_seed: int, game_index: int) -> list[dict]:
    """The game's rows of the cards table (sim/paws/record.py CARD_COLUMNS): per seat, the item cards it
    played, then the monster cards it has a counter for, each by card id."""
    rows = []
    zero = dict.fromkeys(MONSTER_COUNTERS, 0)
    for seat, p in enumerate(g.players):
        common = {"seed": master_seed, "game_index": game_index, "mode": g.setup.mode, "seat": seat,
                  "team": seat % 2 if g.setup.mode == "teams" else -1, "won": seat_won(g, seat)}
        for card in sorted(p.item_plays):
            rows.append({**common, "kind": "item", "card": g.cards.items[card].name,
                         "plays": p.item_plays[card], **zero})
        for card in sorted(p.monster_stats):
            rows.append({**common, "kind": "monster", "card": g.cards.monsters[card].name, "plays": 0,
                         **dict(zip(MONSTER_COUNTERS, p.monster_stats[card]))})
    return rows


def record(g: Game, master_seed: int, game_index: int) -> dict:
    """The game record: one row per game, the contract for everything downstream (sim/paws/record.py).

    The columns worked out here are listed; every other one is the Game's counter of the same name
    (per seat: the Player's), so a new counter kept under its column's name needs no line here."""
    n = g.n
    values = {
        "game": "paws", "ruleset": g.rules.ruleset, "board": g.setup.board, "mode": g.setup.mode, "players": n,
        "bots": list(g.setup.bots), "seed": master_seed, "game_index": game_index,
        "rounds": g.round,
        "vp": [g.vp(s) for s in range(n)],
        "buildings": [g.owner.count(s) for s in range(n)],
        "lives_left": [p.lives for p in g.players],
        "vp_trace": g.trace,
    }
    return reference_record(RECORD_COLUMNS, values, g, g.players, g.rules)
