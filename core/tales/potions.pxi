# 3. Battle, step 1: Use potions (sim/tales/potions.py). The attacker's commander first, then the
# defender's, each up to potions_per_fight on its own creature. A lasting potion works this fight only
# (potion_lasts = turn) or the card's duration in fights of the creature (card). No die.

cdef void drink(Game* g, Pos p, int hand_index) noexcept nogil:
    cdef Seat* st = &g.seats[p.seat]
    cdef int used = pop16(st.hand, &st.n_hand, hand_index)
    cdef const EquipSpec* e = &g.eq[used]
    card_to_graveyard(g, p.seat, used)
    if e.effect == E_HEAL:
        st.damage[p.slot] = max(0, st.damage[p.slot] - e.amount)
    else:
        st.potion_effect[p.slot] = e.effect
        st.potion_amount[p.slot] = e.amount
        # 1. Use potions: "they remain there until the creature's turn is finished"
        st.potion_left[p.slot] = e.duration if g.r.potion_lasts == POTION_LASTS_CARD else 1


cdef void use_potions(Game* g, Pos p) noexcept nogil:
    cdef Seat* st = &g.seats[p.seat]
    cdef int i, h, k, pts
    for i in range(g.r.potions_per_fight):
        pts = card(g, p).points
        opt_clear(g)
        opt_add(g, -1, 0, 0, 0)
        for h in range(st.n_hand):
            if g.eq[st.hand[h]].kind == K_POTION and g.eq[st.hand[h]].points <= pts:
                opt_add(g, h, 0, 0, 0)
        k = g.opt_a[ask(g, p.seat, D_POTION)]
        if k < 0:
            return
        drink(g, p, k)


cdef inline void wear_off(Game* g, Pos p) noexcept nogil:
    """After each fight of the creature its lasting potion has one fight fewer to go."""
    cdef Seat* st = &g.seats[p.seat]
    if st.potion_left[p.slot] > 0:
        st.potion_left[p.slot] -= 1
        if st.potion_left[p.slot] == 0:
            st.potion_effect[p.slot] = 0
            st.potion_amount[p.slot] = 0
