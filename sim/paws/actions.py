"""§3 Turn actions: the canonical list of legal actions, and move, buy, barricade, place a tile.

Legal actions are listed in one fixed order (END_TURN, MOVE by direction, LOOT, BUY, RAID by seat,
INVADE, BARRICADE by cell, PLACE_TILE by kind then cell, PLAY_ITEM by hand position then target);
a random bot's choice is an index into this list, so both engines must list them identically.
"""

from __future__ import annotations

from sim.paws.board import NO_CELL, cell_name
from sim.paws.invade import invadable, invade
from sim.paws.items import (can_draw, card_names, draw_items, enforce_hand_limit, play_turn_card,
                            turn_card_options)
from sim.paws.kinds import Action, Decision, Effect, Tile
from sim.paws.knockout import MONSTER
from sim.paws.loot import loot, lootable
from sim.paws.raid import raid, raid_targets
from sim.paws.state import EXPLORER_KINDS, NOBODY, Game

END_TURN = (Action.END_TURN, -1, -1)


def placement_cells(g: Game) -> list[int]:
    """Explorer: empty cells within the board radius touching a tile already on the table (§4)."""
    return [c for c, t in enumerate(g.tile)
            if t == Tile.EMPTY and any(m != NO_CELL and g.tile[m] != Tile.EMPTY for m in g.nbrs[c])]


def barricade_cells(g: Game, seat: int) -> list[int]:
    """§11: tiles you own or that hold your brick, not yet barricaded."""
    return [c for c in range(len(g.tile))
            if (g.owner[c] == seat or g.brick[c] == seat) and g.barricade[c] == NOBODY]


def legal_actions(g: Game, seat: int) -> list[tuple[int, int, int]]:
    """Every legal action as (Action, a, b), in the canonical order."""
    p = g.players[seat]
    acts = [END_TURN]
    if g.ap >= 1:
        acts.extend((Action.MOVE, m, -1) for m in g.neighbours(p.pos))
        if lootable(g, seat):
            acts.append((Action.LOOT, -1, -1))
        if can_draw(g):
            acts.append((Action.BUY, -1, -1))
        acts.extend((Action.RAID, t, -1) for t in raid_targets(g, seat))
        if invadable(g, seat):
            acts.append((Action.INVADE, -1, -1))
        if p.barricades > 0:
            acts.extend((Action.BARRICADE, c, -1) for c in barricade_cells(g, seat))
        if g.setup.board == "explorer" and any(p.tiles):
            cells = placement_cells(g)
            for k in range(4):
                if p.tiles[k] > 0:
                    acts.extend((Action.PLACE_TILE, k, c) for c in cells)
    acts.extend((Action.PLAY_ITEM, i, t) for i, t in turn_card_options(g, seat))  # §10: Anytime needs no AP
    return acts


def place_tile(g: Game, seat: int, kind_index: int, cell: int) -> None:
    """Put one of your Explorer tiles on the table."""
    g.players[seat].tiles[kind_index] -= 1
    g.tile[cell] = EXPLORER_KINDS[kind_index]
    g.board_changed()
    g.emit("place", f"{g.seat_name(seat)} places {g.at(cell)}", seat, 1)


def apply_action(g: Game, seat: int, act: tuple[int, int, int]) -> None:
    """Carry out one legal action (its AP cost is paid first; item cards are free)."""
    kind, a, b = act
    if kind != Action.PLAY_ITEM:
        g.ap -= 1
    if kind == Action.MOVE:
        g.players[seat].pos = a
        g.emit("move", f"{g.seat_name(seat)} moves to {g.at(a)}", seat, 1)
    elif kind == Action.LOOT:
        loot(g, seat)
    elif kind == Action.BUY:
        drawn = draw_items(g, seat, 1)
        g.emit("buy", f"{g.seat_name(seat)} buys an item card: {card_names(g, drawn)}", seat, 1)
        enforce_hand_limit(g, seat)
    elif kind == Action.RAID:
        raid(g, seat, a)
    elif kind == Action.INVADE:
        invade(g, seat)
    elif kind == Action.BARRICADE:
        g.players[seat].barricades -= 1
        g.barricade[a] = seat
        g.emit("barricade", f"{g.seat_name(seat)} places a barricade on {g.at(a)}", seat, 1)
    elif kind == Action.PLACE_TILE:
        place_tile(g, seat, a, b)
    elif kind == Action.PLAY_ITEM:
        play_turn_card(g, seat, a, b)


def option_words(g: Game, seat: int, kind, option) -> str:
    """One option of a decision in the book's words (search notes and trace errors name options so): a turn
    action ("raid Player 3", "move to the chest at A3", "play Grenade on B2"), a card by its name, a cell."""
    if kind == Decision.ACTION:
        act, a, b = option
        if act == Action.END_TURN:
            return "end turn"
        if act == Action.MOVE:
            return f"move to {g.at(a)}"
        if act == Action.RAID:
            return f"raid {g.seat_name(a)}"
        if act == Action.BARRICADE:
            return f"barricade {g.at(a)}"
        if act == Action.PLACE_TILE:
            return f"place a {Tile(EXPLORER_KINDS[a]).name.lower()} at {cell_name(b)}"
        if act == Action.PLAY_ITEM:
            card = g.cards.items[g.players[seat].items[a]]
            if b == NOBODY:
                return f"play {card.name}"
            on = g.seat_name(b) if card.effect in (Effect.SNARE, Effect.POISON) else g.at(b)
            return f"play {card.name} on {on}"
        return Action(act).name.lower().replace("_", " ")
    if kind == Decision.COMBAT_CARD:
        i, dest = option
        if i == NOBODY:
            return "pass"
        name = g.cards.items[g.players[seat].items[i]].name
        return f"play {name}" + (f" to {g.at(dest)}" if dest != NOBODY else "")
    if kind in (Decision.DEFENDER, Decision.KEEP_MONSTER):
        return g.cards.monsters[option].name
    if kind == Decision.DISCARD:
        return f"discard {g.cards.items[option].name}"
    if kind == Decision.TAKE_CARD:
        what, card = option
        return g.cards.monsters[card].name if what == MONSTER else g.cards.items[card].name
    if kind == Decision.PLACE_FREE:
        return f"a tile at {cell_name(option)}"
    return str(option)
