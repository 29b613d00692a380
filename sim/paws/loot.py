"""§4 Looting and §5 monster fights: chests, forests, and claiming homes and mansions."""

from __future__ import annotations

from sim.paws import knockout, winning
from sim.paws.combat import fight
from sim.paws.items import card_names, draw_items, enforce_hand_limit
from sim.paws.kinds import Buff, Tile
from sim.paws.record import MONSTER_COUNTERS
from sim.paws.state import NOBODY, Fight, Game

FIGHTS, BEATEN = MONSTER_COUNTERS.index("fights"), MONSTER_COUNTERS.index("beaten")


def monsters_needed(g: Game, cell: int) -> int:
    return g.rules.mansion_monsters if g.tile[cell] == Tile.MANSION else 1


def barred(g: Game, seat: int, cell: int) -> bool:
    """§11: nobody but the player who placed it can loot or invade a barricaded tile."""
    return g.barricade[cell] not in (NOBODY, seat)


def lootable(g: Game, seat: int) -> bool:
    """Can ``seat`` loot the tile it stands on now?"""
    cell = g.players[seat].pos
    kind = g.tile[cell]
    if kind in (Tile.EMPTY, Tile.DESERT) or barred(g, seat, cell):
        return False
    if kind in (Tile.CHEST, Tile.FOREST):
        return g.brick[cell] == NOBODY
    return (g.owner[cell] == NOBODY and g.building_fights_left > 0
            and len(g.monster_deck) >= monsters_needed(g, cell))


def loot(g: Game, seat: int) -> None:
    """Spend the loot action on the tile you stand on."""
    p = g.players[seat]
    cell = p.pos
    kind = g.tile[cell]
    if kind == Tile.CHEST:
        g.brick[cell] = seat
        drawn = draw_items(g, seat, g.rules.chest_cards)
        g.emit("loot", f"{g.seat_name(seat)} loots {g.at(cell)}: draws {card_names(g, drawn)}", seat, 1)
        enforce_hand_limit(g, seat)
    elif kind == Tile.FOREST:
        g.brick[cell] = seat
        p.barricades += g.rules.forest_barricades
        g.emit("loot", f"{g.seat_name(seat)} loots {g.at(cell)}: takes {g.rules.forest_barricades} barricade"
                       f"{'s' if g.rules.forest_barricades != 1 else ''}", seat, 1)
    else:
        claim_building(g, seat, cell)


def claim_building(g: Game, seat: int, cell: int) -> None:
    """§5: fight the home's monster (a mansion's two, one after the other, HP carrying over)."""
    p = g.players[seat]
    g.building_fights_left -= 1
    g.building_fights += 1
    mansion = g.tile[cell] == Tile.MANSION
    bonus = g.rules.mansion_monster_hp_bonus if mansion else 0
    beaten: list[int] = []
    for _ in range(monsters_needed(g, cell)):
        m = g.monster_deck.pop()
        card = g.cards.monsters[m]
        f = Fight("monster", [seat, NOBODY], monster_hp=card.hp + bonus, monster=card.name)
        g.fight = f
        g.emit("monster", f"{g.seat_name(seat)} fights {card.name} (HP {card.hp + bonus}) for {g.at(cell)}", seat, 1)
        ko = fight(g, f, (g.rules.player_dice, g.rules.monster_dice), (g.buff(seat, Buff.FIGHT_SCORE), 0),
                   g.rules.max_fight_rolls)
        beaten.append(m)
        g.count_monster(seat, m, FIGHTS)
        if ko == 1:
            g.count_monster(seat, m, BEATEN)
        if ko != 1:  # lost, ran or hit the cap: unclaimed, monsters to the bottom of the deck
            g.monster_deck[0:0] = reversed(beaten)
            g.emit("unclaimed", f"{g.at(cell)[0].upper()}{g.at(cell)[1:]} stays unclaimed; "
                                f"{len(beaten)} monster card{'s' if len(beaten) > 1 else ''} to the bottom of the deck",
                   seat, 1)
            if ko == 0:
                knockout.knock_out(g, seat, NOBODY, scores=False)
            return
    g.owner[cell] = g.brick[cell] = seat
    p.monsters.extend(beaten)
    p.active.extend([False] * len(beaten))  # buffs work from the start of your next turn
    g.emit("claim", f"{g.seat_name(seat)} claims {g.at(cell)} with "
                    f"{' and '.join(g.cards.monsters[m].name for m in beaten)} ({g.vp(seat)} VP)", seat, 1)
    winning.check_vp(g, seat)
