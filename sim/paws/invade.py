"""§6 Home invasion: take a home or mansion another player owns by beating its defending monster."""

from __future__ import annotations

from sim.paws import items, knockout, winning
from sim.paws.combat import fight
from sim.paws.kinds import Buff, Decision, Tile
from sim.paws.loot import barred
from sim.paws.record import MONSTER_COUNTERS
from sim.paws.state import NOBODY, Fight, Game

INVADED, DEFENDED, HELD, CAPTURED = (MONSTER_COUNTERS.index(c) for c in ("invaded", "defended", "held", "captured"))


def invadable(g: Game, seat: int) -> bool:
    """Can ``seat`` invade the building it stands on now?"""
    cell = g.players[seat].pos
    owner = g.owner[cell]
    return (g.tile[cell] in (Tile.HOME, Tile.MANSION) and owner != NOBODY and g.opponents(seat, owner)
            and not barred(g, seat, cell) and g.building_fights_left > 0
            and bool(g.players[owner].monsters or g.monster_deck))


def invade(g: Game, seat: int) -> None:
    """Invade: the owner picks a defender (or the deck's top card), which gets the defender's edge."""
    cell = g.players[seat].pos
    owner = g.owner[cell]
    q = g.players[owner]
    g.building_fights_left -= 1
    g.building_fights += 1
    g.invasions += 1
    from_deck = not q.monsters
    if from_deck:
        m, guard = g.monster_deck.pop(), 0
    else:
        i = g.ask(owner, Decision.DEFENDER, list(q.monsters))
        m = q.monsters[i]
        card = g.cards.monsters[m]
        guard = card.amount if card.buff == Buff.GUARD and q.active[i] else 0
    card = g.cards.monsters[m]
    hp = card.hp + (g.rules.mansion_monster_hp_bonus if g.tile[cell] == Tile.MANSION else 0)
    # §6.2: the defender's edge, except for the sole VP leader's monster (the leader rule)
    edge = g.rules.defender_edge
    if g.rules.leader_rule and g.sole_leader() == owner:
        edge = 0
    f = Fight("invasion", [seat, NOBODY], monster_hp=hp, monster=card.name)
    g.fight = f
    g.emit("invade", f"{g.seat_name(seat)} invades {g.seat_name(owner)}'s {g.at(cell)[4:]}: {card.name} (HP {hp}) "
                     f"defends{' from the monster deck' if from_deck else ''}, edge +{edge + guard}", seat, 1)
    ko = fight(g, f, (g.rules.player_dice, g.rules.monster_dice), (g.buff(seat, Buff.FIGHT_SCORE), edge + guard),
               g.rules.max_fight_rolls)
    g.count_monster(seat, m, INVADED)
    g.count_monster(owner, m, DEFENDED)
    if ko != 1:
        g.count_monster(owner, m, HELD)
    if ko == 1:  # §6.3: the home and that monster card are yours
        if not from_deck:
            g.count_monster(seat, m, CAPTURED)
            i = q.monsters.index(m)
            q.monsters.pop(i)
            q.active.pop(i)
            items.enforce_hand_limit(g, owner)  # §10: losing a hand-size buff means discarding at once
        g.owner[cell] = g.brick[cell] = seat
        g.players[seat].monsters.append(m)
        g.players[seat].active.append(False)
        g.emit("take_building", f"{g.seat_name(seat)} takes {g.at(cell)} and {card.name} ({g.vp(seat)} VP)", seat, 1)
        winning.check_vp(g, seat)
    else:
        g.emit("defended", f"{card.name} holds {g.at(cell)} for {g.seat_name(owner)}", owner, 1)
        if from_deck:
            g.monster_deck.insert(0, m)
        if ko == 0:  # §6.4: knocked out by the owner; the owner never loses HP
            # V3 "A knockout scores 1 VP": the owner's knockout scores like a raid's (§8.2 names both)
            knockout.knock_out(g, seat, owner, scores=g.rules.invasion_knockout_scores)
