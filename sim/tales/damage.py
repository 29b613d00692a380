"""3. Battle, steps 2-3: one creature's strike on another: land the hit, then determine the damage.

Dice in order: each shield of the target (gear order) rolls its block chance until one blocks; the
target's Evade; on a hit, the striker's Death Blow; if no Death Blow, the target's Armor (only with
damage left), Shadow Form (Schatten, only with damage left), then Regeneration (Animalis, only after
non-lethal damage); last, the striker's Area Damage roll (if it has a chance), applied to the left
neighbour, then the right. A destroyed creature is only marked ``doomed`` here; it leaves the field
when the fight ends (see battle.end_fight), so a simultaneous strike still happens.
"""

from __future__ import annotations

from sim.tales import abilities
from sim.tales.kinds import Kind
from sim.tales.state import EMPTY, Game


def doom(g: Game, pos: tuple[int, int], by: tuple[int, int]) -> None:
    """Mark a creature destroyed (once) and credit the kill to ``by`` and the gear it carries."""
    st = g.seats[pos[0]]
    if st.doomed[pos[1]]:
        return
    st.doomed[pos[1]] = 1
    killer = g.seats[by[0]]
    killer.kills[killer.slot[by[1]]] += 1
    for e in killer.gear[by[1]]:
        killer.gear_kills[e] += 1
    g.emit("destroyed", f"{g.name(pos)} is destroyed", pos[0], 3)


def blocked(g: Game, pos: tuple[int, int]) -> bool:
    """2. Land hits: every attack hits unless a shield's roll or the creature's Evade wards it off."""
    for e in g.gear_cards(pos):
        if e.kind == Kind.SHIELD and g.rng.die() >= e.block:
            g.emit("block", f"{g.name(pos)} blocks with {e.name}", pos[0], 3)
            return True
    if abilities.evades(g, pos):
        g.emit("evade", f"{g.name(pos)} evades", pos[0], 3)
        return True
    return False


def reduce(g: Game, pos: tuple[int, int], damage: int) -> int:
    """Damage reduction, always in this order: equipment, creature ability, people ability."""
    damage = max(0, damage - g.gear_armor(pos))
    damage = abilities.creature_armor(g, pos, damage)
    return abilities.shadow_form(g, pos, damage)


def neighbours(g: Game, pos: tuple[int, int]) -> list[tuple[int, int]]:
    """The occupied slots directly left and right of ``pos`` in its own battle line."""
    s, k = pos
    return [(s, j) for j in (k - 1, k + 1) if 0 <= j < g.army and g.seats[s].slot[j] != EMPTY]


def strike(g: Game, by: tuple[int, int], target: tuple[int, int]) -> None:
    """``by`` attacks ``target``: hit, Death Blow or reduced damage, Regeneration, Area Damage."""
    if blocked(g, target):
        return
    st = g.seats[target[0]]
    if abilities.death_blow(g, by):
        g.emit("death_blow", f"{g.name(by)} deals a Death Blow", by[0], 3)
        doom(g, target, by)
    else:
        raw = g.attack(by)
        damage = reduce(g, target, raw)
        st.damage[target[1]] += damage
        g.emit("hit", f"{g.name(by)} hits {g.name(target)} for {damage}"
               + (f" (of {raw})" if damage != raw else "") + f", life left {g.life_left(target)}", by[0], 2)
        if g.life_left(target) <= 0:
            doom(g, target, by)
        else:
            abilities.regeneration(g, target, damage)
    area = abilities.area_damage(g, by)
    if area:
        for nb in neighbours(g, target):        # cannot be reduced or avoided; no people ability
            g.seats[nb[0]].damage[nb[1]] += area
            g.emit("area", f"Area Damage {area} to {g.name(nb)}, life left {g.life_left(nb)}", by[0], 3)
            if g.life_left(nb) <= 0:
                doom(g, nb, by)
