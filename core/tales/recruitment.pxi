# 1. Recruitment (sim/tales/recruitment.py): round 1 draws first_draw, returns the extras under the deck
# (RETURN decisions), places the rest left to right and the Champion in the middle; later rounds (not
# Survive!) refill empty slots left to right from the deck top.

cdef void place(Game* g, int s, int k, int creature) noexcept nogil:
    cdef Seat* st = &g.seats[s]
    st.slot[k] = creature
    st.damage[k] = 0
    st.exhausted[k] = 0
    st.n_gear[k] = 0
    st.potion_effect[k] = 0
    st.potion_amount[k] = 0
    st.potion_left[k] = 0
    st.fielded[creature] = 1


cdef void first_recruitment(Game* g, int s) noexcept nogil:
    cdef Seat* st = &g.seats[s]
    cdef int16_t drawn[MAXPEOPLE]
    cdef int n_drawn = 0, i, j, k, back
    cdef int take = min(g.r.first_draw, st.n_deck)
    for i in range(take):
        st.n_deck -= 1
        drawn[n_drawn] = st.deck[st.n_deck]
        n_drawn += 1
    while n_drawn > g.r.first_place:
        opt_clear(g)
        for i in range(n_drawn):
            opt_add(g, drawn[i], 0, 0, 0)
        back = pop16(drawn, &n_drawn, ask(g, s, D_RETURN))
        for j in range(st.n_deck, 0, -1):          # "placed under the creature deck"
            st.deck[j] = st.deck[j - 1]
        st.deck[0] = <int16_t>back
        st.n_deck += 1
    i = 0
    for k in range(g.army):
        if k == g.middle:
            continue
        if i >= n_drawn:
            break
        place(g, s, k, drawn[i])
        i += 1
    place(g, s, g.middle, st.champion)


cdef void refill(Game* g, int s) noexcept nogil:
    cdef Seat* st = &g.seats[s]
    cdef int k
    for k in range(g.army):
        if st.slot[k] == EMPTY and st.n_deck > 0:
            st.n_deck -= 1
            place(g, s, k, st.deck[st.n_deck])


cdef void recruitment(Game* g) noexcept nogil:
    cdef int s
    if g.round == 1:
        for s in range(g.n):
            first_recruitment(g, s)
    elif not g.r.survive:
        for s in range(g.n):
            refill(g, s)
