# 1. Recruitment (sim/tales/recruitment.py): round 1 draws first_draw, returns the extras under the deck
# (RETURN decisions), places the rest left to right and the Champion in the middle; later rounds (not
# Survive!) refill empty slots left to right from the deck top.
#
# Each return is a top-level decision (core/tales/game.pxi): the seat being served (g.serving) and the
# creatures it drew and keeps so far (g.drawn) are state, so finish_recruitment() goes on from it alone.

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


cdef void recruit_step(Game* g, int s) noexcept nogil:
    """While seat ``s`` holds more drawn creatures than it places, its next return is pending; then the
    rest go on the field left to right and the Champion in the middle (g.seat = NOBODY)."""
    cdef int i = 0, k
    if g.n_drawn > g.r.first_place:
        g.seat = s
        g.asking = D_RETURN
        return
    g.seat = NOBODY
    for k in range(g.army):
        if k == g.middle:
            continue
        if i >= g.n_drawn:
            break
        place(g, s, k, g.drawn[i])
        i += 1
    place(g, s, g.middle, g.seats[s].champion)


cdef void begin_first_recruitment(Game* g, int s) noexcept nogil:
    """Round 1: seat ``s`` draws first_draw creatures (into g.drawn), then returns the extras."""
    cdef Seat* st = &g.seats[s]
    cdef int i
    cdef int take = min(g.r.first_draw, st.n_deck)
    g.n_drawn = 0
    for i in range(take):
        st.n_deck -= 1
        g.drawn[g.n_drawn] = st.deck[st.n_deck]
        g.n_drawn += 1
    recruit_step(g, s)


cdef void return_options(Game* g) noexcept nogil:
    cdef int i
    opt_clear(g)
    for i in range(g.n_drawn):
        opt_add(g, g.drawn[i], 0, 0, 0)


cdef void take_return(Game* g, int choice) noexcept nogil:
    """The chosen creature is "placed under the creature deck"."""
    cdef Seat* st = &g.seats[g.seat]
    cdef int j, back = pop16(g.drawn, &g.n_drawn, choice)
    for j in range(st.n_deck, 0, -1):
        st.deck[j] = st.deck[j - 1]
    st.deck[0] = <int16_t>back
    st.n_deck += 1
    recruit_step(g, g.seat)


cdef void refill(Game* g, int s) noexcept nogil:
    cdef Seat* st = &g.seats[s]
    cdef int k
    for k in range(g.army):
        if st.slot[k] == EMPTY and st.n_deck > 0:
            st.n_deck -= 1
            place(g, s, k, st.deck[st.n_deck])


cdef void begin_recruitment(Game* g) noexcept nogil:
    """Round 1: the first seat draws (its returns are pending); later rounds (not Survive!): every seat
    refills, which asks nothing."""
    cdef int s
    g.stage = ST_RECRUIT
    g.seat = NOBODY
    if g.round == 1:
        g.serving = 0
        begin_first_recruitment(g, 0)
        return
    g.serving = g.n
    if not g.r.survive:
        for s in range(g.n):
            refill(g, s)


cdef bint finish_recruitment(Game* g) noexcept nogil:
    """The rest of round 1's recruitment from the state: the seat being served (g.serving, its drawn
    creatures in g.drawn), then the seats after it. True if it stopped at decision g.stop_at."""
    while g.serving < g.n:
        if decide_all(g):
            return True
        g.serving += 1
        if g.serving < g.n:
            begin_first_recruitment(g, g.serving)
    return False


cdef void recruitment(Game* g) noexcept nogil:
    begin_recruitment(g)
    finish_recruitment(g)
