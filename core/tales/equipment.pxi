# 2. Equipment (sim/tales/equipment.py): draw, equip by free hands and points, rearrange, the swap.
# Options in canonical order: PASS; SWAP; EQUIP by hand position, target seat (own, then the
# teammate's), slot; UNEQUIP by seat, slot, gear position. No die; a random bot draws below(options).
#
# Each action, and each discard of a swap, is a top-level decision (core/tales/game.pxi): the seat being
# served (g.serving), its actions so far (g.equip_actions) and a swap's discards to go (g.discards_left)
# are state, so finish_equipment() goes on from it alone.

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
        if g.eq[st.hand[h]].kind == K_POTION:    # never carried (fits): no target to try
            continue
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


cdef void discard_options(Game* g) noexcept nogil:
    """A swap's discard: any hand card, by position."""
    cdef int h
    opt_clear(g)
    for h in range(g.seats[g.seat].n_hand):
        opt_add(g, h, 0, 0, 0)


cdef void action_done(Game* g) noexcept nogil:
    """One equipment action of g.seat is done; after max_equip_actions its actions are over."""
    g.equip_actions += 1
    if g.equip_actions >= g.r.max_equip_actions:
        g.seat = NOBODY
    else:
        g.asking = D_EQUIP


cdef void take_discard(Game* g, int choice) noexcept nogil:
    """Swap: ``swap_cost`` hand cards go to the graveyard one by one (each a decision), then the seat
    draws ``swap_gain``: the swap is one action."""
    cdef Seat* st = &g.seats[g.seat]
    card_to_graveyard(g, g.seat, pop16(st.hand, &st.n_hand, choice))
    g.discards_left -= 1
    if g.discards_left <= 0:
        draw_equipment(g, g.seat, g.r.swap_gain)
        action_done(g)


cdef void take_equip(Game* g, int choice) noexcept nogil:
    """Option ``choice`` of equip_options(g, g.seat): Pass ends the seat's actions; a swap's discards
    are its next decisions; Equip and Unequip are one action each."""
    cdef Seat* st = &g.seats[g.seat]
    cdef Seat* tg
    cdef int act = g.opt_a[choice], a = g.opt_b[choice], b = g.opt_c[choice], c = g.opt_d[choice]
    cdef int e
    if act == ACT_PASS:
        g.seat = NOBODY
        return
    if act == ACT_SWAP:
        g.discards_left = g.r.swap_cost
        if g.discards_left > 0:
            g.asking = D_DISCARD
            return
        draw_equipment(g, g.seat, g.r.swap_gain)
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
    action_done(g)


cdef void begin_equip_seat(Game* g, int s) noexcept nogil:
    """Seat ``s``'s equipment actions begin: up to max_equip_actions, each a decision, until it passes."""
    g.equip_actions = 0
    g.discards_left = 0
    g.seat = s if g.r.max_equip_actions > 0 else NOBODY
    g.asking = D_EQUIP


cdef void equip_seat(Game* g, int s) noexcept nogil:
    """All of seat ``s``'s equipment actions, every decision by its bot."""
    begin_equip_seat(g, s)
    decide_all(g)


cdef void begin_equipment(Game* g) noexcept nogil:
    """Every seat draws, then the first seat's actions are pending (none in Survive! after round 1)."""
    cdef int s
    g.stage = ST_EQUIP
    g.seat = NOBODY
    g.serving = g.n
    if g.round > 1 and g.r.survive:
        return
    for s in range(g.n):
        draw_equipment(g, s, g.r.equipment_draw)
    g.serving = 0
    begin_equip_seat(g, 0)


cdef bint finish_equipment(Game* g) noexcept nogil:
    """The rest of the equipment phase from the state: the actions of the seat being served (g.serving,
    g.equip_actions, g.discards_left), then the seats after it. True if it stopped at decision
    g.stop_at."""
    while g.serving < g.n:
        if decide_all(g):
            return True
        g.serving += 1
        if g.serving < g.n:
            begin_equip_seat(g, g.serving)
    return False


cdef void equipment(Game* g) noexcept nogil:
    begin_equipment(g)
    finish_equipment(g)
