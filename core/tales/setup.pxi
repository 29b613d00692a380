# Game Setup (sim/tales/setup.py): Champions face down, shuffled creature decks, one equipment deck per
# opposing pairing. Draws: per seat its CHAMPION decision then its deck shuffle; then per pairing its deck.

cdef void reset_seat(Game* g, int s) noexcept nogil:
    cdef Seat* st = &g.seats[s]
    cdef int k
    st.team = s % 2
    st.pairing = s // 2
    st.champion = EMPTY
    st.n_deck = 0
    st.n_hand = 0
    for k in range(MAXARMY):
        st.slot[k] = EMPTY
        st.damage[k] = 0
        st.exhausted[k] = 0
        st.n_gear[k] = 0
        st.potion_effect[k] = 0
        st.potion_amount[k] = 0
        st.potion_left[k] = 0
        st.doomed[k] = 0
    st.losses = 0
    memset(st.fielded, 0, sizeof(st.fielded))
    memset(st.kills, 0, sizeof(st.kills))
    memset(st.gear_used, 0, sizeof(st.gear_used))
    memset(st.gear_kills, 0, sizeof(st.gear_kills))


cdef void choose_champions(Game* g) noexcept nogil:
    """Each commander picks a Champion (face down, revealed in recruitment) and shuffles the rest."""
    cdef int s, i, p
    cdef Seat* st
    for s in range(g.n):
        st = &g.seats[s]
        p = st.people
        opt_clear(g)
        for i in range(g.n_champions[p]):
            opt_add(g, g.champions[p][i], 0, 0, 0)
        st.champion = g.opt_a[ask(g, s, D_CHAMPION)]
        st.n_deck = g.n_people_deck[p]
        for i in range(st.n_deck):
            st.deck[i] = <int16_t>g.people_deck[p][i]
        shuffle16(g, st.deck, st.n_deck)


cdef void shuffle_equipment(Game* g) noexcept nogil:
    cdef int p, i
    for p in range(g.n // 2):
        for i in range(g.n_eq_cards):
            g.eq_deck[p][i] = <int16_t>g.eq_cards[i]
        g.n_eq_deck[p] = g.n_eq_cards
        shuffle16(g, g.eq_deck[p], g.n_eq_cards)


cdef void setup_game(Game* g) noexcept nogil:
    cdef int s
    g.round = 0
    g.first_side = NOBODY
    g.active = NOBODY
    g.champion_fell[0] = 0
    g.champion_fell[1] = 0
    g.over = 0
    g.winner_team = NOBODY
    g.end_reason = -1
    g.error = 0
    memset(&g.rec, 0, sizeof(GameRecord))
    g.stage = ST_NONE
    g.seat = NOBODY
    g.turn_team = NOBODY
    g.decisions = 0
    for s in range(g.n):
        reset_seat(g, s)
    choose_champions(g)
    shuffle_equipment(g)
