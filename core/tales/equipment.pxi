# 2. Equipment (sim/tales/equipment.py): draw, equip by free hands and points, rearrange, the swap.
# Options in canonical order: PASS; SWAP; EQUIP by hand position, target seat (own, then the
# teammate's), slot; UNEQUIP by seat, slot, gear position. No die; a random bot draws below(options).

cdef int draw_equipment(Game* g, int s, int count) noexcept nogil:
    """Draw up to ``count`` cards from the seat's pairing deck into its hand; returns how many."""
    cdef Seat* st = &g.seats[s]
    cdef int p = st.pairing, i
    cdef int k = min(count, g.n_eq_deck[p])
    for i in range(k):
        g.n_eq_deck[p] -= 1
        st.hand[st.n_hand] = g.eq_deck[p][g.n_eq_deck[p]]
        st.n_hand += 1
    return k


ctypedef struct Hands:
    int used            # hands used (two-handed = 2)
    int main            # main-hand or two-handed cards
    int off             # off-hand cards
    int points          # equipment points carried


cdef inline void hands_of(Game* g, Pos p, Hands* h) noexcept nogil:
    """What the creature's gear already takes: hands, main/off-hand cards, points."""
    cdef Seat* st = &g.seats[p.seat]
    cdef const EquipSpec* c
    cdef int i
    h.used = h.main = h.off = h.points = 0
    for i in range(st.n_gear[p.slot]):
        c = &g.eq[st.gear[p.slot][i]]
        h.used += 2 if c.hand == H_BOTH else 1
        h.main += c.hand == H_MAIN or c.hand == H_BOTH
        h.off += c.hand == H_OFF
        h.points += c.points


cdef inline bint fits(Game* g, const Hands* h, int creature_points, int equipment_id) noexcept nogil:
    """Free hands and enough equipment points for this card (potions are never carried)."""
    cdef const EquipSpec* e = &g.eq[equipment_id]
    if e.kind == K_POTION:
        return 0
    if h.used + (2 if e.hand == H_BOTH else 1) > g.r.hands:
        return 0
    if (e.hand == H_MAIN or e.hand == H_BOTH) and h.main >= 1:
        return 0
    if e.hand == H_OFF and h.off + 1 > g.r.hands - 1:
        return 0
    if g.r.points_budget:
        return h.points + e.points <= creature_points
    return e.points <= creature_points


cdef bint can_carry(Game* g, Pos p, int equipment_id) noexcept nogil:
    cdef Hands h
    hands_of(g, p, &h)
    return fits(g, &h, card(g, p).points, equipment_id)


cdef inline bint can_take_off(Game* g, Pos p, int index) noexcept nogil:
    """A card may go back to the hand unless losing its life bonus would destroy the creature."""
    return life_left(g, p) - g.eq[g.seats[p.seat].gear[p.slot][index]].life > 0


cdef int targets(Game* g, int s, int* out) noexcept nogil:
    """Seats whose creatures this commander may equip: its own, and in 2 vs. 2 its teammate's."""
    cdef int i, t, n = 1
    out[0] = s
    for i in range(g.n_team_seats[s % 2]):
        t = g.team_seats[s % 2][i]
        if t != s:
            out[n] = t
            n += 1
    return n


cdef void equip_options(Game* g, int s) noexcept nogil:
    cdef Seat* st = &g.seats[s]
    cdef int ts[MAXTEAMSEATS]
    cdef Hands hands[MAXTEAMSEATS][MAXARMY]     # each target's gear, worked out once per option list
    cdef int points[MAXTEAMSEATS][MAXARMY]
    cdef int nt = targets(g, s, ts), h, i, t, k
    for i in range(nt):
        for k in range(g.army):
            if g.seats[ts[i]].slot[k] != EMPTY:
                hands_of(g, pos(ts[i], k), &hands[i][k])
                points[i][k] = g.cre[g.seats[ts[i]].slot[k]].points
    opt_clear(g)
    opt_add(g, ACT_PASS, -1, -1, -1)
    if st.n_hand >= g.r.swap_cost and g.n_eq_deck[st.pairing] > 0:
        opt_add(g, ACT_SWAP, -1, -1, -1)
    for h in range(st.n_hand):
        for i in range(nt):
            t = ts[i]
            for k in range(g.army):
                if g.seats[t].slot[k] != EMPTY and fits(g, &hands[i][k], points[i][k], st.hand[h]):
                    opt_add(g, ACT_EQUIP, h, t, k)
    for i in range(nt):
        t = ts[i]
        for k in range(g.army):
            for h in range(g.seats[t].n_gear[k]):
                if can_take_off(g, pos(t, k), h):
                    opt_add(g, ACT_UNEQUIP, t, k, h)


cdef void swap(Game* g, int s) noexcept nogil:
    """Put ``swap_cost`` hand cards on the graveyard, then draw ``swap_gain``."""
    cdef Seat* st = &g.seats[s]
    cdef int i, h
    for i in range(g.r.swap_cost):
        opt_clear(g)
        for h in range(st.n_hand):
            opt_add(g, h, 0, 0, 0)
        card_to_graveyard(g, s, pop16(st.hand, &st.n_hand, ask(g, s, D_DISCARD)))
    draw_equipment(g, s, g.r.swap_gain)


cdef void apply_equip(Game* g, int s, int act, int a, int b, int c) noexcept nogil:
    cdef Seat* st = &g.seats[s]
    cdef Seat* tg
    cdef int e
    if act == ACT_SWAP:
        swap(g, s)
    elif act == ACT_EQUIP:
        e = pop16(st.hand, &st.n_hand, a)
        tg = &g.seats[b]
        tg.gear[c][tg.n_gear[c]] = <int16_t>e
        tg.n_gear[c] += 1
        tg.gear_used[e] = 1
    elif act == ACT_UNEQUIP:
        tg = &g.seats[a]
        e = pop16(tg.gear[b], &tg.n_gear[b], c)
        st.hand[st.n_hand] = <int16_t>e
        st.n_hand += 1


cdef void equip_seat(Game* g, int s) noexcept nogil:
    cdef int i, k
    for i in range(g.r.max_equip_actions):
        equip_options(g, s)
        if g.error:
            return
        k = ask(g, s, D_EQUIP)
        if g.opt_a[k] == ACT_PASS:
            return
        apply_equip(g, s, g.opt_a[k], g.opt_b[k], g.opt_c[k], g.opt_d[k])


cdef void equipment(Game* g) noexcept nogil:
    cdef int s
    if g.round > 1 and g.r.survive:
        return
    for s in range(g.n):
        draw_equipment(g, s, g.r.equipment_draw)
    for s in range(g.n):
        equip_seat(g, s)
