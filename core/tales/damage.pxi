# 3. Battle, steps 2-3 (sim/tales/damage.py): land the hit, then determine the damage. Dice: the
# target's shields (gear order) until one blocks, its Evade; the striker's Death Blow; the target's
# Armor, Shadow Form (only with damage left), Regeneration (after non-lethal damage); the striker's
# Area Damage (left neighbour, then right). The destroyed are only marked doomed here.

cdef void doom(Game* g, Pos p, Pos by) noexcept nogil:
    """Mark a creature destroyed (once) and credit the kill to ``by`` and the gear it carries."""
    cdef Seat* st = &g.seats[p.seat]
    cdef Seat* killer = &g.seats[by.seat]
    cdef int i
    if st.doomed[p.slot]:
        return
    st.doomed[p.slot] = 1
    killer.kills[killer.slot[by.slot]] += 1
    for i in range(killer.n_gear[by.slot]):
        killer.gear_kills[killer.gear[by.slot][i]] += 1


cdef bint blocked(Game* g, Pos p) noexcept nogil:
    """2. Land hits: every attack hits unless a shield's roll or the creature's Evade wards it off."""
    cdef Seat* st = &g.seats[p.seat]
    cdef const EquipSpec* e
    cdef int i
    for i in range(st.n_gear[p.slot]):
        e = &g.eq[st.gear[p.slot][i]]
        if e.kind == K_SHIELD and die(g) >= e.block:
            return 1
    return evades(g, p)


cdef inline int reduce_damage(Game* g, Pos p, int damage) noexcept nogil:
    """Damage reduction, always in this order: equipment, creature ability, people ability."""
    damage = max(0, damage - gear_armor(g, p))
    damage = creature_armor(g, p, damage)
    return shadow_form(g, p, damage)


cdef void strike(Game* g, Pos by, Pos target) noexcept nogil:
    """``by`` attacks ``target``: hit, Death Blow or reduced damage, Regeneration, Area Damage."""
    cdef Seat* st = &g.seats[target.seat]
    cdef int dmg, area, d, j
    if blocked(g, target):
        return
    if death_blow(g, by):
        doom(g, target, by)
    else:
        dmg = reduce_damage(g, target, attack(g, by))
        st.damage[target.slot] += dmg
        if life_left(g, target) <= 0:
            doom(g, target, by)
        else:
            regeneration(g, target, dmg)
    area = area_damage(g, by)
    if area:
        for d in range(2):                       # left, then right; cannot be reduced or avoided
            j = target.slot - 1 + 2 * d
            if 0 <= j < g.army and st.slot[j] != EMPTY:
                st.damage[j] += area
                if life_left(g, pos(target.seat, j)) <= 0:
                    doom(g, pos(target.seat, j), by)
