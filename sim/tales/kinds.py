"""Tales are Real enumerations shared by the card data, the reference engine and the core.

The integer values are part of the contract with the engine core: change them in both places.
"""

from enum import IntEnum


class People(IntEnum):
    """A commander's people and its people ability (The Animalis, The Schatten)."""
    ANIMALIS = 0    # Regeneration: after non-lethal damage, on its dice chance, fully heal
    SCHATTEN = 1    # Shadow Form: before damage, on its dice chance, halve it (rounded down)


class Ability(IntEnum):
    """A creature's individual ability (Special Abilities); ``ability_chance`` 0 means no roll."""
    NONE = 0
    FIRST_STRIKE = 1    # strikes before its opponent (both: simultaneous)
    DEATH_BLOW = 2      # on its roll after a hit, the target is destroyed whatever its life
    AREA_DAMAGE = 3     # on a hit, the target's left and right neighbours take `ability_amount`
    PROVOKE = 4         # as attacker, its commander chooses the opposing creature
    ARMOR = 5           # stand-in: reduces damage taken by `ability_amount` (creature-ability step)
    EVADE = 6           # stand-in: wards off a hit on its roll (after any shield)


class Kind(IntEnum):
    """Type of an equipment card (Equipment Cards)."""
    MELEE = 0
    RANGED = 1      # gives First Strike
    SHIELD = 2      # blocks a hit on its block chance
    POTION = 3      # used in battle from the hand, never carried


class Hand(IntEnum):
    """How an equipment card is held."""
    NONE = 0        # potions
    MAIN = 1
    OFF = 2
    BOTH = 3


class Effect(IntEnum):
    """A potion's effect; it lasts this fight (rule `potion_lasts = turn`) or the card's `duration` fights of
    the creature that drank it (`card`)."""
    NONE = 0
    HEAL = 1            # removes `amount` damage at once
    STRENGTH = 2        # +`amount` damage
    ARMOR = 3           # reduces damage taken by `amount` (equipment step)
    FIRST_STRIKE = 4    # gives First Strike


class Decision(IntEnum):
    """Every choice a bot makes goes through one interface, keyed by this kind."""
    CHAMPION = 0    # options: champion creature ids (file order)
    RETURN = 1      # options: creature ids drawn in round 1 (draw order); the chosen goes under the deck
    EQUIP = 2       # options: equipment actions (sim/tales/equipment.py), canonical order
    DISCARD = 3     # the swap: options are hand positions; the chosen card goes to the graveyard
    ATTACKER = 4    # options: (seat, slot) of the active team's ready creatures
    DEFENDER = 5    # options: (seat, slot) of the defending team's ready creatures
    PROVOKE = 6     # options: as DEFENDER, but chosen by the attacking seat
    POTION = 7      # options: -1 (none) then hand positions of usable potions


class Act(IntEnum):
    """Equipment-phase actions, in the canonical order in which they are listed."""
    PASS = 0        # (PASS, -1, -1, -1): done equipping
    SWAP = 1        # (SWAP, -1, -1, -1): 3 hand cards to the graveyard for 1 new card
    EQUIP = 2       # (EQUIP, hand position, seat, slot)
    UNEQUIP = 3     # (UNEQUIP, seat, slot, position in the slot's equipment)


END_REASONS = ("champion_killed", "losses", "draw", "last_standing")
