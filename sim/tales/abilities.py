"""Special Abilities and the people abilities, each a small rule with its own die (Dice Chance).

A dice chance ``n`` succeeds on a roll of ``n`` or higher; chance 0 means the ability needs no roll.
Every function here rolls at most one die, and only in the situation its docstring names.
"""

from __future__ import annotations

from sim.tales.kinds import Ability, People
from sim.tales.state import Game


def succeeds(g: Game, chance: int) -> bool:
    """One commander's roll against a dice chance (0: no roll, always)."""
    return chance == 0 or g.rng.die() >= chance


def first_strike(g: Game, pos: tuple[int, int]) -> bool:
    """First Strike from a ranged weapon or potion (no roll), else from the creature (its roll, if any)."""
    if g.sure_first_strike(pos):
        return True
    c = g.card(pos)
    return c.ability == Ability.FIRST_STRIKE and succeeds(g, c.ability_chance)


def provokes(g: Game, pos: tuple[int, int]) -> bool:
    """Provoke: a creature that begins the turn lets its commander choose the opposing creature."""
    c = g.card(pos)
    return c.ability == Ability.PROVOKE and succeeds(g, c.ability_chance)


def evades(g: Game, pos: tuple[int, int]) -> bool:
    """Evade (stand-in creature ability): wards off a hit on its roll."""
    c = g.card(pos)
    return c.ability == Ability.EVADE and succeeds(g, c.ability_chance)


def death_blow(g: Game, pos: tuple[int, int]) -> bool:
    """Death Blow: after a hit, on its roll the target is destroyed whatever its life."""
    c = g.card(pos)
    return c.ability == Ability.DEATH_BLOW and succeeds(g, c.ability_chance)


def area_damage(g: Game, pos: tuple[int, int]) -> int:
    """Area Damage dealt to each neighbour of a hit target (0: none, or its roll failed)."""
    c = g.card(pos)
    if c.ability == Ability.AREA_DAMAGE and succeeds(g, c.ability_chance):
        return c.ability_amount
    return 0


def creature_armor(g: Game, pos: tuple[int, int], damage: int) -> int:
    """The creature-ability step of damage reduction (Armor, stand-in); rolls only when there is damage."""
    c = g.card(pos)
    if damage > 0 and c.ability == Ability.ARMOR and succeeds(g, c.ability_chance):
        return max(0, damage - c.ability_amount)
    return damage


def shadow_form(g: Game, pos: tuple[int, int], damage: int) -> int:
    """The Schatten: before damage, on the people chance, halve it (rounded down); rolls only on damage."""
    c = g.card(pos)
    if damage > 0 and c.people == People.SCHATTEN and g.rng.die() >= c.people_chance:
        g.emit("shadow_form", f"{g.name(pos)} takes Shadow Form: {damage} damage halved to {damage // 2}", pos[0], 3)
        return damage // 2
    return damage


def regeneration(g: Game, pos: tuple[int, int], damage: int) -> bool:
    """The Animalis: after damage that left it alive, on the people chance, fully regenerate."""
    c = g.card(pos)
    if damage > 0 and c.people == People.ANIMALIS and g.rng.die() >= c.people_chance:
        g.seats[pos[0]].damage[pos[1]] = 0
        g.emit("regeneration", f"{g.name(pos)} regenerates fully", pos[0], 3)
        return True
    return False
