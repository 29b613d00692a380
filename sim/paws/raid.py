"""§7 Raids: a quick scuffle over item cards with a player on your tile (V3: a fight to a knockout)."""

from __future__ import annotations

from sim.paws import knockout
from sim.paws.combat import NO_KNOCKOUT, fight
from sim.paws.items import attackable
from sim.paws.kinds import Buff
from sim.paws.state import Fight, Game


def raid_targets(g: Game, seat: int) -> list[int]:
    """Players a raid may aim at: on your tile, opponents, attackable, while raids are left this turn."""
    if g.raids_left <= 0:
        return []
    pos = g.players[seat].pos
    return [t for t in range(g.n)
            if attackable(g, seat, t) and g.opponents(seat, t) and g.players[t].pos == pos]


def raid(g: Game, seat: int, target: int) -> None:
    """Raid ``target``: three rolls (V3: to a knockout), the raided player adds the defender's edge."""
    g.raids_left -= 1
    g.raids += 1
    g.emit("raid", f"{g.seat_name(seat)} raids {g.seat_name(target)}", seat, 1)
    r = g.rules
    rolls = r.raid_rolls if r.raid_rolls > 0 else r.max_fight_rolls
    edge = (g.buff(seat, Buff.FIGHT_SCORE) + g.buff(seat, Buff.RAID_SCORE),
            g.buff(target, Buff.FIGHT_SCORE) + g.buff(target, Buff.RAID_SCORE) + r.defender_edge)
    f = Fight("raid", [seat, target])
    ko = fight(g, f, (r.player_dice, r.player_dice), edge, rolls, grabs=r.raid_grabs_cards)
    if ko != NO_KNOCKOUT:
        victim, by = f.seats[ko], f.seats[1 - ko]
        knockout.knock_out(g, victim, by, scores=True)
        # reflected damage can drop the other side too
        if g.players[by].hp == 0 and g.players[by].alive and not g.over:
            knockout.knock_out(g, by, victim, scores=True)
