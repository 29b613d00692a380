# Tales are Real's hooks for the engine kit's search bots (core/kit/search.pxi, whose contract is at the
# top of that file; docs/search-bots.md). The search decides an mcts or flat seat's top-level decisions
# (core/tales/game.pxi): a recruitment return, an equipment action or a swap's discard, a battle turn's
# attacker and defender (or, provoked, target). The Champion's choice is setup's and the potions stay
# inside a fight: the heuristic takes them, with the seat's weights (ask, core/tales/draws.pxi).
#
# What a commander cannot see (the rulebook, tales-are-real.txt): the other commanders' Champions until
# all armies are set up in round 1 ("the commanders now also reveal their Champion cards"), every
# creature deck's order (its own too: only the creatures it returned under its deck are known, at the
# bottom), the other commanders' drawn creatures while they choose which to return, every equipment
# deck's order and the other commanders' hands. The field (creatures, damage, gear, lasting potions),
# the graveyards and the losses are face up.

cdef enum:
    MAXP = MAXSEATS               # the kit's seat capacity (its per-seat reward arrays)


cdef inline int search_seats(Game* g) noexcept nogil:
    return g.n


cdef inline int search_to_move(Game* g) noexcept nogil:
    return g.seat


cdef inline int search_options(Game* g) noexcept nogil:
    legal_actions(g, g.seat)
    return g.n_opt


cdef inline uint64_t search_key_field(int x) noexcept nogil:
    return <uint64_t>(<uint32_t>(x + 1) & 0xFFF)


cdef uint64_t search_option_key(Game* g, int k) noexcept nogil:
    """(decision kind, what the option does): a card by its id, not its place in a hand or on a
    creature's gear; a creature on the field by (seat, slot), which every commander sees."""
    cdef Seat* st = &g.seats[g.seat]
    cdef int a = g.opt_a[k], b = g.opt_b[k], c = g.opt_c[k], d = g.opt_d[k]
    cdef int x0 = a, x1 = b, x2 = c, x3 = d
    if g.asking == D_EQUIP:
        if a == ACT_EQUIP:
            x1 = st.hand[b]                       # (act, card, target seat, slot)
        elif a == ACT_UNEQUIP:
            x1, x2, x3 = g.seats[b].gear[c][d], b, c   # (act, card, its seat, slot)
    elif g.asking == D_DISCARD:
        x0 = st.hand[a]
    return ((<uint64_t>g.asking << 60) | (search_key_field(x0) << 48) | (search_key_field(x1) << 36)
            | (search_key_field(x2) << 24) | (search_key_field(x3) << 12))


cdef inline void search_take(Game* g, int k) noexcept nogil:
    take_option(g, k)


cdef bint search_advance(Game* g, int64_t n) noexcept nogil:
    """Play on with the game's bots, at most ``n`` more top-level decisions (n < 0: to the end)."""
    g.stop_at = g.decisions + n if n >= 0 else -1
    return play_from(g)


cdef void search_copy(Game* dst, const Game* src) noexcept nogil:
    """copy_game without the option list past the listed options (four fifths of the struct)."""
    cdef size_t opts_at = <size_t>(<const char*>&src.opt_a[0] - <const char*>src)
    memcpy(dst, src, opts_at)
    memcpy(dst.opt_a, src.opt_a, sizeof(int) * src.n_opt)
    memcpy(dst.opt_b, src.opt_b, sizeof(int) * src.n_opt)
    memcpy(dst.opt_c, src.opt_c, sizeof(int) * src.n_opt)
    memcpy(dst.opt_d, src.opt_d, sizeof(int) * src.n_opt)
    dst.dtrace = NULL                 # a simulation's choices are not the game's
    dst.samples = NULL
    dst.vtrace = NULL                 # nor are its win chances


cdef inline bint searched(int kind) noexcept nogil:
    """The decision kinds a search seat searches: the top-level ones (not D_CHAMPION, D_POTION)."""
    return kind != D_CHAMPION and kind != D_POTION


cdef void search_sort(int16_t* a, int n) noexcept nogil:
    """Card ids (creature < MAXCRE, equipment < MAXEQ) in ascending order, by counting."""
    cdef int count[MAXCRE + MAXEQ]
    cdef int i, k = 0, c, bound = MAXCRE + MAXEQ
    for c in range(bound):
        count[c] = 0
    for i in range(n):
        count[a[i]] += 1
    for c in range(bound):
        for i in range(count[c]):
            a[k] = <int16_t>c
            k += 1


cdef inline void search_shuffle(int16_t* a, int n, pcg32_t* rng) noexcept nogil:
    """Sort, then shuffle: the deal depends on which cards are unseen and on ``rng``, never on where
    the hidden cards really are (the kit's contract)."""
    cdef int i, j
    cdef int16_t t
    search_sort(a, n)
    for i in range(n - 1, 0, -1):
        j = <int>pcg32_below(rng, <uint32_t>(i + 1))
        t = a[i]
        a[i] = a[j]
        a[j] = t


cdef int search_returned(Game* g, int s) noexcept nogil:
    """How many creatures seat ``s`` has returned under its deck (round 1's recruitment)."""
    cdef Seat* st = &g.seats[s]
    cdef int take = min(g.r.first_draw, g.n_people_deck[st.people])
    if st.champion != EMPTY and st.fielded[st.champion]:          # its recruitment is over
        return max(0, take - g.r.first_place)
    if g.round == 1 and g.stage == ST_RECRUIT and g.serving == s:
        return take - g.n_drawn
    return 0


cdef void search_determinize(Game* g, int seat, pcg32_t* rng) noexcept nogil:
    """Re-deal what ``seat`` cannot see, keeping what it knows: during round 1's recruitment another
    commander's Champion is any Champion of its people (the core places it in the middle when that
    commander's army is set up; the rulebook reveals it once all are); each other creature deck is
    shuffled with the creatures its commander is choosing among (their number kept); ``seat``'s own
    deck is shuffled above the creatures it returned; each pairing's equipment deck is one pool with
    the hands of the other commanders who draw from it, shuffled and dealt back (each hand keeps its
    size). A card taken off a teammate's creature into a hand is pooled with its holder's pairing (both
    decks hold the same cards). Every pool is sorted before it is shuffled (search_shuffle), so the
    world dealt depends only on what ``seat`` knows and on ``rng``. Then the dice are reseeded."""
    cdef int16_t pool[MAXEQDECK + MAXSEATS * MAXHAND]
    cdef int s, p, i, n, keep, c
    cdef Seat* st
    # "Once all armies are set up, the commanders now also reveal their Champion cards"
    cdef bint champions_hidden = g.round == 1 and g.stage == ST_RECRUIT
    for s in range(g.n):
        st = &g.seats[s]
        if s == seat:
            keep = min(search_returned(g, s), st.n_deck)
            search_shuffle(&st.deck[keep], st.n_deck - keep, rng)
            continue
        if champions_hidden and st.champion != EMPTY and g.n_champions[st.people] > 0:
            c = g.champions[st.people][pcg32_below(rng, <uint32_t>g.n_champions[st.people])]
            if st.fielded[st.champion] and st.slot[g.middle] == st.champion:     # set up face down
                st.fielded[st.champion] = 0
                st.fielded[c] = 1
                st.slot[g.middle] = c
            st.champion = c
        if g.stage == ST_RECRUIT and g.serving == s and g.round == 1:
            n = st.n_deck
            memcpy(pool, st.deck, sizeof(int16_t) * n)
            memcpy(&pool[n], g.drawn, sizeof(int16_t) * g.n_drawn)
            search_shuffle(pool, n + g.n_drawn, rng)
            memcpy(st.deck, pool, sizeof(int16_t) * n)
            memcpy(g.drawn, &pool[n], sizeof(int16_t) * g.n_drawn)
        else:
            search_shuffle(st.deck, st.n_deck, rng)
    for p in range(g.n // 2):
        n = g.n_eq_deck[p]
        memcpy(pool, g.eq_deck[p], sizeof(int16_t) * n)
        for s in range(g.n):
            if s != seat and g.seats[s].pairing == p:
                memcpy(&pool[n], g.seats[s].hand, sizeof(int16_t) * g.seats[s].n_hand)
                n += g.seats[s].n_hand
        search_shuffle(pool, n, rng)
        n = g.n_eq_deck[p]
        memcpy(g.eq_deck[p], pool, sizeof(int16_t) * n)
        for s in range(g.n):
            if s != seat and g.seats[s].pairing == p:
                memcpy(g.seats[s].hand, &pool[n], sizeof(int16_t) * g.seats[s].n_hand)
                n += g.seats[s].n_hand
    search_reseed(&g.rng, rng)


cdef void search_rollout_bots(Game* g, int seat, int policy) noexcept nogil:
    """Every seat plays by ``seat``'s rollout policy: its model's (a search with model=), else random, or
    the heuristic with its weights."""
    cdef int s
    if g.bots[seat].model.n_policy > 0:
        for s in range(g.n):
            g.bots[s].kind = BOT_LEARNED
            g.bots[s].model = g.bots[seat].model
            g.bots[s].w = g.bots[seat].w
        return
    for s in range(g.n):
        g.bots[s].kind = BOT_HEURISTIC if policy == 1 else BOT_RANDOM
        g.bots[s].w = g.bots[seat].w


cdef void search_reward(Game* g, double* out) noexcept nogil:
    """A win is 1 for each seat of the winning team, 0 for the others; a draw (or a void game) is 1/2
    for every seat: Tales is always played by two teams."""
    cdef int s
    for s in range(g.n):
        if g.error or g.winner_team == NOBODY:
            out[s] = 0.5
        else:
            out[s] = 1.0 if s % 2 == g.winner_team else 0.0


cdef void search_evaluate(Game* g, double* out) noexcept nogil:
    """A game cut off by the depth cap: each team's share of the two teams' standing, where a team's
    standing is 1 + its creatures on the field + the other team's weighted losses (the fewest losses
    win after the last round; Survive! ends when a side has no creature left). Even standings give 1/2
    each; each seat gets its team's share. With a model (the rollouts are learned): its value head."""
    cdef double x[2]
    cdef int t, s
    if g.bots[0].kind == BOT_LEARNED and g.bots[0].model.n_value > 0:
        learned_values(g, &g.bots[0].model, out)   # a search with a model: its value head (learned.pxi)
        return
    for t in range(2):
        x[t] = 1.0 + on_field(g, t) + team_losses(g, 1 - t)
    for s in range(g.n):
        out[s] = x[s % 2] / (x[0] + x[1])


cdef int search_decide(Game* g, int seat) noexcept nogil:
    """An mcts or flat seat's top-level decision (the options listed in g.opt_*)."""
    cdef Bot* b = &g.bots[seat]
    cdef SearchNote note
    cdef SearchNote* noted = &note if g.dtrace != NULL or g.samples != NULL else NULL   # notes what it saw
    cdef double* shares = NULL
    cdef int choice
    if g.samples != NULL:             # training samples: every option's share of the visits
        shares = <double*>malloc(sizeof(double) * g.n_opt)
        if shares == NULL:
            g.error = 1
            return 0
    note.shares = shares
    g.searches += 1
    if b.kind == BOT_MCTS:
        choice = mcts_choose(g, seat, &b.s, &b.rng, &g.rollouts, noted)
    else:
        choice = flat_choose(g, seat, &b.s, &b.rng, &g.rollouts, noted)
    if choice < 0:                    # out of memory: the game is void (g.error), not played on silently
        free(shares)
        g.error = 1
        return 0
    if g.dtrace != NULL:
        trace_note(g.dtrace, noted)   # before ask() writes the choice
    if g.samples != NULL:
        learned_samples(g, seat, choice, shares)
    free(shares)
    return choice
