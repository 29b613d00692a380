# Shared helpers of the Tales are Real core: option lists, teams, a creature's numbers. Mirrors
# sim/tales/state.py. Every random draw goes through die() and below() and every decision through ask():
# core/kit/draws.pxi and core/tales/draws.pxi in the engine, core/tales/script.pxi in the scenario tests'
# module. Card lists (pop16, shuffle16) are the engine kit's (core/kit/lists.pxi).

# -- one decision's options (ask() chooses among them) ------------------------------------------------
cdef inline void opt_clear(Game* g) noexcept nogil:
    g.n_opt = 0


cdef inline void opt_add(Game* g, int a, int b, int c, int d) noexcept nogil:
    if g.n_opt >= MAXOPT:
        g.error = 1
        return
    g.opt_a[g.n_opt] = a
    g.opt_b[g.n_opt] = b
    g.opt_c[g.n_opt] = c
    g.opt_d[g.n_opt] = d
    g.n_opt += 1


# -- seats and teams --------------------------------------------------------------------------------
cdef inline int member(Game* g, int team, int k) noexcept nogil:
    """The seat of ``team`` that makes the k-th pick of a turn (team members alternate)."""
    return g.team_seats[team][k % g.n_team_seats[team]]


cdef int ready_list(Game* g, int team, Pos* out) noexcept nogil:
    """(seat, slot) of the team's ready creatures, seats then slots ascending; returns how many."""
    cdef int i, s, k, n = 0
    cdef Seat* st
    for i in range(g.n_team_seats[team]):
        s = g.team_seats[team][i]
        st = &g.seats[s]
        for k in range(g.army):
            if st.slot[k] != EMPTY and not st.exhausted[k]:
                out[n].seat = s
                out[n].slot = k
                n += 1
    return n


cdef inline bint any_ready(Game* g, int team) noexcept nogil:
    cdef int i, k
    cdef Seat* st
    for i in range(g.n_team_seats[team]):
        st = &g.seats[g.team_seats[team][i]]
        for k in range(g.army):
            if st.slot[k] != EMPTY and not st.exhausted[k]:
                return 1
    return 0


cdef int seat_on_field(Game* g, int seat) noexcept nogil:
    cdef int k, n = 0
    cdef Seat* st = &g.seats[seat]
    for k in range(g.army):
        if st.slot[k] != EMPTY:
            n += 1
    return n


cdef int on_field(Game* g, int team) noexcept nogil:
    cdef int i, n = 0
    for i in range(g.n_team_seats[team]):
        n += seat_on_field(g, g.team_seats[team][i])
    return n


cdef bint a_seat_is_empty(Game* g, int team) noexcept nogil:
    """Some player of the team has no creature on the field."""
    cdef int i
    for i in range(g.n_team_seats[team]):
        if seat_on_field(g, g.team_seats[team][i]) == 0:
            return 1
    return 0


# -- a creature on the field ------------------------------------------------------------------------
cdef inline const CreatureSpec* card(Game* g, Pos p) noexcept nogil:
    return &g.cre[g.seats[p.seat].slot[p.slot]]


cdef inline int life_max(Game* g, Pos p) noexcept nogil:
    cdef Seat* st = &g.seats[p.seat]
    cdef int i, v = g.cre[st.slot[p.slot]].life
    for i in range(st.n_gear[p.slot]):
        v += g.eq[st.gear[p.slot][i]].life
    return v


cdef inline int life_left(Game* g, Pos p) noexcept nogil:
    return life_max(g, p) - g.seats[p.seat].damage[p.slot]


cdef inline bint has_potion(Game* g, Pos p, int effect) noexcept nogil:
    cdef Seat* st = &g.seats[p.seat]
    return st.potion_effect[p.slot] == effect and st.potion_left[p.slot] > 0


cdef inline int potion_bonus(Game* g, Pos p, int effect) noexcept nogil:
    return g.seats[p.seat].potion_amount[p.slot] if has_potion(g, p, effect) else 0


cdef inline int attack(Game* g, Pos p) noexcept nogil:
    """Damage the creature inflicts: its own, its gear's and a Strength potion's."""
    cdef Seat* st = &g.seats[p.seat]
    cdef int i, v = g.cre[st.slot[p.slot]].damage
    for i in range(st.n_gear[p.slot]):
        v += g.eq[st.gear[p.slot][i]].damage
    return v + potion_bonus(g, p, E_STRENGTH)


cdef inline int gear_armor(Game* g, Pos p) noexcept nogil:
    """The equipment step of damage reduction: gear armor and an Armor potion."""
    cdef Seat* st = &g.seats[p.seat]
    cdef int i, v = 0
    for i in range(st.n_gear[p.slot]):
        v += g.eq[st.gear[p.slot][i]].armor
    return v + potion_bonus(g, p, E_ARMOR)


cdef inline bint sure_first_strike(Game* g, Pos p) noexcept nogil:
    """First Strike that needs no roll: a ranged weapon or a First Strike potion."""
    cdef Seat* st = &g.seats[p.seat]
    cdef int i
    for i in range(st.n_gear[p.slot]):
        if g.eq[st.gear[p.slot][i]].kind == K_RANGED:
            return 1
    return has_potion(g, p, E_FIRST_STRIKE)


cdef inline bint elite(Game* g, int creature_id) noexcept nogil:
    return g.cre[creature_id].tier >= g.r.elite_min_tier


cdef inline int loss_weight(Game* g, int creature_id) noexcept nogil:
    return g.r.loss_elite if elite(g, creature_id) else g.r.loss_normal


cdef int team_losses(Game* g, int team) noexcept nogil:
    cdef int i, v = 0
    for i in range(g.n_team_seats[team]):
        v += g.seats[g.team_seats[team][i]].losses
    return v


cdef inline bint is_champion(Game* g, Pos p) noexcept nogil:
    return g.seats[p.seat].slot[p.slot] == g.seats[p.seat].champion


cdef inline Pos pos(int seat, int slot) noexcept nogil:
    cdef Pos p
    p.seat = seat
    p.slot = slot
    return p
