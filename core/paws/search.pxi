# Paws in Peril's hooks for the engine kit's search bots (core/kit/search.pxi; docs/search-bots.md).
# The search decides the top-level decisions: the ACTION decision of a turn (the next action). Every
# other decision of an mcts or flat seat (combat cards, defenders, cards to keep, take or discard) is
# the heuristic's, with the seat's weights (the defaults, or preset=).

cdef inline int search_seats(Game* g) noexcept nogil:
    return g.n


cdef inline int search_to_move(Game* g) noexcept nogil:
    return g.seat


cdef inline int search_options(Game* g) noexcept nogil:
    legal_actions(g, g.seat)
    return g.n_opt


cdef inline uint64_t search_option_key(Game* g, int k) noexcept nogil:
    """(action, a, b), with a card played named by its card id, not its place in the hand."""
    cdef int kind = g.opt_a[k], a = g.opt_b[k], b = g.opt_c[k]
    if kind == A_PLAY_ITEM:
        a = g.players[g.seat].items[a]
    return (<uint64_t>kind << 40) | (<uint64_t>(<uint32_t>(a + 1) & 0xFFFFF) << 20) | (<uint32_t>(b + 1) & 0xFFFFF)


cdef inline void search_take(Game* g, int k) noexcept nogil:
    take_option(g, k)


cdef bint search_advance(Game* g, int64_t n) noexcept nogil:
    """Play on with the game's bots, at most ``n`` more top-level decisions (n < 0: to the end)."""
    cdef RowBuffer sink               # a copy's standings rows are not kept: a failed buffer takes none
    sink.data = NULL
    sink.n = sink.cap = 0
    sink.row_size = sizeof(Standings)
    sink.failed = 1
    g.stop_at = g.decisions + n if n >= 0 else -1
    return play_from(g, &sink)


cdef void search_copy(Game* dst, const Game* src) noexcept nogil:
    """copy_game without the scratch space: the distance rings past the ones in use and the option
    list past the listed options (together nine tenths of the struct)."""
    cdef size_t rings_at = <size_t>(<const char*>&src.rings[0] - <const char*>src)
    cdef size_t after_rings = <size_t>(<const char*>&src.dist_cells - <const char*>src)
    cdef size_t opts_at = <size_t>(<const char*>&src.opt_a[0] - <const char*>src)
    cdef int k, used = 0
    for k in range(src.n_tiled):
        used += src.n_rings[src.tiled[k]]
    memcpy(dst, src, rings_at)
    memcpy(&dst.rings[0], &src.rings[0], sizeof(Cells) * used)
    memcpy(<char*>dst + after_rings, <const char*>src + after_rings, opts_at - after_rings)
    memcpy(dst.opt_a, src.opt_a, sizeof(int) * src.n_opt)
    memcpy(dst.opt_b, src.opt_b, sizeof(int) * src.n_opt)
    memcpy(dst.opt_c, src.opt_c, sizeof(int) * src.n_opt)
    dst.dtrace = NULL                 # a simulation's choices are not the game's
    dst.samples = NULL
    dst.vtrace = NULL                 # nor are its win chances


cdef void sort_ids(int16_t* a, int n, int bound) noexcept nogil:
    """Card ids (0 <= id < bound <= MAXCARDS) in ascending order, by counting."""
    cdef int count[MAXCARDS]
    cdef int i, k = 0, c
    for c in range(bound):
        count[c] = 0
    for i in range(n):
        count[a[i]] += 1
    for c in range(bound):
        for i in range(count[c]):
            a[k] = <int16_t>c
            k += 1


cdef void shuffle_ids(int16_t* a, int n, pcg32_t* rng) noexcept nogil:
    cdef int i, j
    cdef int16_t t
    for i in range(n - 1, 0, -1):
        j = <int>pcg32_below(rng, <uint32_t>(i + 1))
        t = a[i]
        a[i] = a[j]
        a[j] = t


cdef void search_determinize(Game* g, int seat, pcg32_t* rng) noexcept nogil:
    """Re-deal what ``seat`` cannot see (§2.3: both decks are face down; item hands are held), keeping
    what it knows: the other players' item cards and the item deck are one pool, shuffled and dealt
    back (each hand keeps its size), and the monster deck is shuffled. Face up stays: the board, every
    monster card owned, the discard pile, tiles held, HP, lives. Then the dice are reseeded.

    The pool and the monster deck are sorted before they are shuffled, so the world dealt depends only
    on what ``seat`` knows (which cards are unseen, how many each hand holds) and on ``rng``: never on
    where the hidden cards really are."""
    cdef int16_t pool[2 * MAXCARDS]
    cdef int n = 0, s, i
    cdef Player* p
    for s in range(g.n):
        if s != seat:
            p = &g.players[s]
            for i in range(p.n_items):
                pool[n] = p.items[i]
                n += 1
    for i in range(g.n_item_deck):
        pool[n] = g.item_deck[i]
        n += 1
    sort_ids(pool, n, MAXCARDS)
    shuffle_ids(pool, n, rng)
    n = 0
    for s in range(g.n):
        if s != seat:
            p = &g.players[s]
            for i in range(p.n_items):
                p.items[i] = pool[n]
                n += 1
            hand_tally(g, p)
    for i in range(g.n_item_deck):
        g.item_deck[i] = pool[n]
        n += 1
    sort_ids(g.monster_deck, g.n_monster_deck, MAXMON)
    shuffle_ids(g.monster_deck, g.n_monster_deck, rng)
    g.look_ok = 0
    search_reseed(&g.rng, rng)


cdef void search_rollout_bots(Game* g, int seat, int policy) noexcept nogil:
    """Every seat plays by ``seat``'s rollout policy: its model's (a search with model=), else random, or
    the heuristic with its weights."""
    cdef int s
    for s in range(g.n):
        if g.bots[seat].model.n_policy > 0:
            g.bots[s].kind = BOT_LEARNED
            g.bots[s].model = g.bots[seat].model
        else:
            g.bots[s].kind = BOT_HEURISTIC if policy == 1 else BOT_RANDOM
        g.bots[s].w = g.bots[seat].w


cdef void search_reward(Game* g, double* out) noexcept nogil:
    """A win is 1 for the winner (Teams: both of the team), 0 for the others; a game without a winner
    (a tie at the round limit, stalled, or void) is 1/n for every seat."""
    cdef int s
    for s in range(g.n):
        out[s] = 0
    if g.error or (g.winner_seat == NOBODY and g.winner_team == NOBODY):
        for s in range(g.n):
            out[s] = 1.0 / g.n
    elif g.teams:
        for s in range(g.n):
            out[s] = 1.0 if s % 2 == g.winner_team else 0.0
    else:
        out[g.winner_seat] = 1.0


cdef void search_evaluate(Game* g, double* out) noexcept nogil:
    """A game cut off by the depth cap: with a model (the rollouts are learned), its value head's chances
    (learned.pxi); else each seat's share of 1 + 4 * progress, where progress is its VP (Teams: its
    team's) over the VP target, at most 1; a seat out of lives (Teams: a team) has 0. So even standings
    give 1/n each, and the share grows with the progress to the target."""
    cdef double x[MAXP]
    cdef double total = 0, progress
    cdef int s, alive
    if g.bots[0].kind == BOT_LEARNED and g.bots[0].model.n_value > 0:
        learned_values(g, &g.bots[0].model, out)
        return
    for s in range(g.n):
        if g.teams:
            alive = g.players[s].lives > 0 or g.players[(s + 2) % 4].lives > 0
            progress = <double>team_vp(g, s % 2) / g.r.team_vp_target if g.r.team_vp_target > 0 else 0
        else:
            alive = g.players[s].lives > 0
            progress = <double>vp(g, s) / vp_goal(g) if vp_goal(g) > 0 else 0
        x[s] = (1 + 4 * min(progress, 1.0)) if alive else 0
        total += x[s]
    for s in range(g.n):
        out[s] = x[s] / total if total > 0 else 1.0 / g.n


cdef int search_decide(Game* g, int seat) noexcept nogil:
    """An mcts or flat seat's ACTION decision (the options listed in g.opt_*)."""
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
