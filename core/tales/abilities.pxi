# Special Abilities and the people abilities (sim/tales/abilities.py): each rolls at most one die, and
# only in the situation its comment names. A dice chance n succeeds on n or higher; 0 means no roll.

cdef inline bint succeeds(Game* g, int chance) noexcept nogil:
    return chance == 0 or die(g) >= chance


cdef bint first_strike(Game* g, Pos p) noexcept nogil:
    """From a ranged weapon or potion (no roll), else from the creature (its roll, if any)."""
    cdef const CreatureSpec* c
    if sure_first_strike(g, p):
        return 1
    c = card(g, p)
    return c.ability == AB_FIRST_STRIKE and succeeds(g, c.ability_chance)


cdef bint provokes(Game* g, Pos p) noexcept nogil:
    cdef const CreatureSpec* c = card(g, p)
    return c.ability == AB_PROVOKE and succeeds(g, c.ability_chance)


cdef bint evades(Game* g, Pos p) noexcept nogil:
    cdef const CreatureSpec* c = card(g, p)
    return c.ability == AB_EVADE and succeeds(g, c.ability_chance)


cdef bint death_blow(Game* g, Pos p) noexcept nogil:
    cdef const CreatureSpec* c = card(g, p)
    return c.ability == AB_DEATH_BLOW and succeeds(g, c.ability_chance)


cdef int area_damage(Game* g, Pos p) noexcept nogil:
    """Area Damage dealt to each neighbour of a hit target (0: none, or its roll failed)."""
    cdef const CreatureSpec* c = card(g, p)
    if c.ability == AB_AREA_DAMAGE and succeeds(g, c.ability_chance):
        return c.ability_amount
    return 0


cdef int creature_armor(Game* g, Pos p, int damage) noexcept nogil:
    """The creature-ability step of damage reduction; rolls only when there is damage."""
    cdef const CreatureSpec* c = card(g, p)
    if damage > 0 and c.ability == AB_ARMOR and succeeds(g, c.ability_chance):
        return max(0, damage - c.ability_amount)
    return damage


cdef int shadow_form(Game* g, Pos p, int damage) noexcept nogil:
    """The Schatten: before damage, on the people chance, halve it (rounded down); rolls only on damage."""
    cdef const CreatureSpec* c = card(g, p)
    if damage > 0 and c.people == P_SCHATTEN and die(g) >= c.people_chance:
        return damage // 2
    return damage


cdef bint regeneration(Game* g, Pos p, int damage) noexcept nogil:
    """The Animalis: after damage that left it alive, on the people chance, fully regenerate."""
    cdef const CreatureSpec* c = card(g, p)
    if damage > 0 and c.people == P_ANIMALIS and die(g) >= c.people_chance:
        g.seats[p.seat].damage[p.slot] = 0
        return 1
    return 0
