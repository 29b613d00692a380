"""§4 Looting and §5 monster fights: chests, forests, and claiming homes and mansions."""

from __future__ import annotations

from sim.paws import knockout, winning
from sim.paws.combat import NO_KNOCKOUT, fight
from sim.paws.items import gain_items
from sim.paws.kinds import Buff, Tile
from sim.paws.state import NOBODY, Fight, Game


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
        g.say(f"  P{seat} loots the chest")
        gain_items(g, seat, g.rules.chest_cards)
    elif kind == Tile.FOREST:
        g.brick[cell] = seat
        p.barricades += g.rules.forest_barricades
        g.say(f"  P{seat} loots the forest: a barricade")
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
        g.say(f"  P{seat} fights {card.name} (HP {card.hp + bonus}) for the {'mansion' if mansion else 'home'}")
        f = Fight("monster", [seat, NOBODY], monster_hp=card.hp + bonus)
        ko = fight(g, f, (g.rules.player_dice, g.rules.monster_dice), (g.buff(seat, Buff.FIGHT_SCORE), 0),
                   g.rules.max_fight_rolls)
        beaten.append(m)
        if ko != 1:  # lost, ran or hit the cap: unclaimed, monsters to the bottom of the deck
            g.monster_deck[0:0] = reversed(beaten)
            if ko == 0:
                knockout.knock_out(g, seat, NOBODY, scores=False)
            return
    g.owner[cell] = g.brick[cell] = seat
    p.monsters.extend(beaten)
    p.active.extend([False] * len(beaten))  # buffs work from the start of your next turn
    g.say(f"  P{seat} claims the {'mansion' if mansion else 'home'} ({g.vp(seat)} VP)")
    winning.check_vp(g, seat)
