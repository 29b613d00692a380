# The engine kit's search bots: information-set Monte Carlo tree search (``mcts``) and flat Monte Carlo
# (``flat``) over a game's top-level decisions, simulated with the real rules on copies of the game
# (docs/search-bots.md, docs/engine-kit.md "Search bots").
#
# Contract: the including module defines ``Game`` (with a ``pcg32_t rng``), ``MAXP``, cimports
# ``Search`` (core/kit/types.pxd), pcg32_t, pcg32_seed, pcg32_next, pcg32_below, game_seed and
# splitmix64 (core/rng.pxd), malloc and free (libc.stdlib), log and sqrt (libc.math), and defines these hooks (nogil, noexcept), which are
# all that the search knows of a game. "A decision" is a top-level decision of the game (Paws in
# Peril: the next action of a turn); the search is only asked at one, with its options listed.
#
#   int search_options(Game* g)            list the options of the decision g is at; returns how many
#   uint64_t search_option_key(Game* g, int k)
#                                          option k's identity, the same in every determinization
#                                          (what it does, not where it sits in a list or a hand)
#   void search_take(Game* g, int k)       take option k of the listed ones as the decision
#   int search_to_move(Game* g)            the seat whose decision g is at
#   bint search_advance(Game* g, int64_t n)
#                                          play on with the game's bots, taking at most n more decisions
#                                          (n < 0: no limit); True when stopped at a decision, False when
#                                          the game is over
#   void search_copy(Game* dst, const Game* src)
#                                          a copy that plays on like src (it may leave out scratch space
#                                          that src does not use, but keeps the listed options)
#   void search_determinize(Game* g, int seat, pcg32_t* rng)
#                                          re-deal, with draws from rng, everything ``seat`` cannot see,
#                                          consistently with what it knows, and reseed g.rng from rng
#                                          (a copy must not know the game's future dice)
#   void search_rollout_bots(Game* g, int seat, int policy)
#                                          every seat of g is played by ``seat``'s rollout policy
#                                          (sim.kit.bots.ROLLOUTS: 0 random, 1 heuristic)
#   void search_reward(Game* g, double* out)
#                                          a finished game: out[s] in [0, 1] for each seat (win 1)
#   void search_evaluate(Game* g, double* out)
#                                          a game cut off by the depth cap: each seat's estimated reward
#   int search_seats(Game* g)              the number of seats
#
# The bot's own randomness (which untried option to expand, the determinizations, the reseeded dice)
# comes from its own stream, search_stream(master seed, game index, seat), never from the game's: a
# game with search bots replays alone from (master seed, game index).
#
# The tree (single-observer IS-MCTS, Cowling, Powley & Whitehouse 2012): nodes are reached by the
# options taken from the root, children are keyed by (seat to move, option key), so one node serves
# every determinization; a child counts how often it was available (its option legal) and the UCB
# term uses that count instead of the parent's visits. Each edge keeps the reward of the seat that
# took it (max^n: every seat picks by its own reward). Chance (dice, draws) is not in the tree: after
# an option, whatever the dice do, the next decision is the node's child (open loop). One node is
# added per iteration, then the simulation is played out by the rollout policy.

cdef enum:
    SEARCH_NO_NODE = -1

ctypedef struct SearchNode:
    uint64_t key                  # the option that leads here (search_option_key)
    int mover                     # the seat that took it
    int first_child               # SEARCH_NO_NODE or the first of the children, linked by next_sibling
    int next_sibling
    int visits                    # simulations through this edge
    int avail                     # simulations in which this edge's option was legal at its parent
    int stamp                     # the last iteration that found it available
    int option                    # ... and its option index in that iteration
    double reward                 # the mover's rewards summed over the visits


cdef inline uint64_t search_next64(pcg32_t* rng) noexcept nogil:
    return (<uint64_t>pcg32_next(rng) << 32) | pcg32_next(rng)


cdef inline void search_stream(pcg32_t* rng, uint64_t master, uint64_t index, int seat) noexcept nogil:
    """The search bot's own stream in game ``index`` of master seed ``master``, for ``seat``: apart from
    the game's stream (another seed and increment)."""
    cdef uint64_t s = splitmix64(game_seed(master, index) ^ 0x5EA2C4B075EA2C4BULL)
    pcg32_seed(rng, splitmix64(s + <uint64_t>seat), <uint64_t>(2 * seat + 1))


cdef inline void search_reseed(pcg32_t* game_rng, pcg32_t* rng) noexcept nogil:
    """Seed a copy's generator from the bot's stream."""
    cdef uint64_t seed = search_next64(rng)
    pcg32_seed(game_rng, seed, search_next64(rng) >> 1)


cdef int mcts_choose(Game* g, int seat, const Search* p, pcg32_t* rng, int64_t* sims,
                     SearchNote* note) noexcept nogil:
    """The option (index into the listed options of g's decision) that IS-MCTS picks for ``seat``:
    the root child visited most (on ties the one with more reward, then the first listed); -1 if
    memory ran out. ``note`` (or NULL) gets the three options visited most, with their share of the
    visits of the listed options (trace.pxi)."""
    cdef Game* work = <Game*>malloc(sizeof(Game))
    cdef SearchNode* nodes = <SearchNode*>malloc(sizeof(SearchNode) * (p.iterations + 1))
    cdef int path[4096]
    cdef double reward[MAXP]
    cdef float prior_acc[MAXHIDDEN]      # a network model's state part of the prior's decision (learned.pxi)
    cdef int it, k, n, node, ch, mover, plen, n_nodes, untried, n_untried, best, found, choice = -1
    cdef int64_t visited
    cdef bint guided = g.bots[seat].model.n_policy > 0   # a search with a model (learned.pxi)
    cdef uint64_t key
    cdef double score, best_score, log_avail
    cdef bint live
    if work == NULL or nodes == NULL:
        free(work)
        free(nodes)
        return -1
    nodes[0].first_child = SEARCH_NO_NODE
    nodes[0].visits = 0
    n_nodes = 1
    for it in range(p.iterations):
        search_copy(work, g)
        search_determinize(work, seat, rng)
        search_rollout_bots(work, seat, p.rollout)
        node = 0
        plen = 0
        live = True
        while True:                        # selection, down to a node with an untried option
            n = search_options(work)
            if n == 1:                     # no choice: not a node of the tree
                search_take(work, 0)
                live = search_advance(work, 0)
                if not live:
                    break
                continue
            mover = search_to_move(work)
            untried = -1
            n_untried = 0
            for k in range(n):
                key = search_option_key(work, k)
                ch = nodes[node].first_child
                while ch != SEARCH_NO_NODE and (nodes[ch].key != key or nodes[ch].mover != mover):
                    ch = nodes[ch].next_sibling
                if ch == SEARCH_NO_NODE:
                    n_untried += 1
                    if guided:             # the prior: the untried option the learned policy prefers
                        if n_untried == 1:
                            learned_prepare(work, mover)
                            learned_state_part(work, &g.bots[seat].model, mover, prior_acc)
                        score = learned_score(work, &g.bots[seat].model, mover, k, prior_acc)
                        if n_untried == 1 or score > best_score:
                            untried, best_score = k, score
                    elif pcg32_below(rng, <uint32_t>n_untried) == 0:   # else one uniformly (reservoir of one)
                        untried = k
                elif nodes[ch].stamp != it:
                    nodes[ch].stamp = it
                    nodes[ch].avail += 1
                    nodes[ch].option = k
            if untried >= 0 and n_nodes <= p.iterations and plen < 4096:   # expansion
                ch = n_nodes
                n_nodes += 1
                nodes[ch].key = search_option_key(work, untried)
                nodes[ch].mover = mover
                nodes[ch].first_child = SEARCH_NO_NODE
                nodes[ch].next_sibling = nodes[node].first_child
                nodes[node].first_child = ch
                nodes[ch].visits = 0
                nodes[ch].avail = 1
                nodes[ch].stamp = it
                nodes[ch].option = untried
                nodes[ch].reward = 0
                path[plen] = ch
                plen += 1
                search_take(work, untried)
                break
            best = SEARCH_NO_NODE           # every option tried: UCB over the available children
            best_score = 0
            ch = nodes[node].first_child
            while ch != SEARCH_NO_NODE:
                if nodes[ch].stamp == it:
                    log_avail = log(<double>nodes[ch].avail)
                    score = (nodes[ch].reward / nodes[ch].visits
                             + p.c * sqrt(log_avail / nodes[ch].visits))
                    if best == SEARCH_NO_NODE or score > best_score:
                        best, best_score = ch, score
                ch = nodes[ch].next_sibling
            if best == SEARCH_NO_NODE or plen >= 4096:
                break                      # (cannot happen with n > 1; a guard on the path's length)
            path[plen] = best
            plen += 1
            search_take(work, nodes[best].option)
            node = best
            live = search_advance(work, 0)
            if not live:
                break
        if live:                           # the rollout, from the new node
            live = search_advance(work, p.depth if p.depth > 0 else -1)
        if live:
            search_evaluate(work, reward)
        else:
            search_reward(work, reward)
        sims[0] += 1
        nodes[0].visits += 1
        for k in range(plen):              # backpropagation: each edge, its mover's reward
            ch = path[k]
            nodes[ch].visits += 1
            nodes[ch].reward += reward[nodes[ch].mover]
    # the final move: the root child visited most; on a tie the one with more reward, then the first
    # listed (a budget below the number of options leaves many children at one visit each)
    n = search_options(g)
    found = -1
    best_score = 0
    visited = 0                            # the visits of the listed options' children
    if note != NULL:
        note.kind, note.n, note.budget = NOTE_VISITS, 0, p.iterations
    for k in range(n):
        key = search_option_key(g, k)
        ch = nodes[0].first_child
        while ch != SEARCH_NO_NODE and (nodes[ch].key != key or nodes[ch].mover != seat):
            ch = nodes[ch].next_sibling
        if note != NULL and note.shares != NULL:
            note.shares[k] = nodes[ch].visits if ch != SEARCH_NO_NODE else 0
        if ch != SEARCH_NO_NODE:
            visited += nodes[ch].visits
            if note != NULL:
                note_top(note, k, nodes[ch].visits)
        if ch != SEARCH_NO_NODE and (nodes[ch].visits > found
                                     or (nodes[ch].visits == found and nodes[ch].reward > best_score)):
            found = nodes[ch].visits
            best_score = nodes[ch].reward
            choice = k
    if note != NULL:
        if choice >= 0:                    # first: it has the most visits (ties: the most reward)
            note_first(note, choice, found)
        for k in range(note.n):
            note.value[k] = note.value[k] / visited if visited > 0 else 0
        if note.shares != NULL:
            for k in range(n):
                note.shares[k] = note.shares[k] / visited if visited > 0 else 0
    free(work)
    free(nodes)
    return choice if choice >= 0 else 0


cdef int flat_choose(Game* g, int seat, const Search* p, pcg32_t* rng, int64_t* sims,
                     SearchNote* note) noexcept nogil:
    """The option (index into the listed options of g's decision) with the best mean reward for ``seat``
    over p.rollouts rollouts each (the first listed on ties); -1 if memory ran out. Rollout j of every
    option starts from the same determinization and dice (common random numbers). ``note`` (or NULL)
    gets the three options of best mean reward, with it (trace.pxi)."""
    cdef Game* work = <Game*>malloc(sizeof(Game))
    cdef double* total
    cdef double reward[MAXP]
    cdef pcg32_t world0, world
    cdef int j, k, n = search_options(g), choice = 0
    if work == NULL:
        return -1
    total = <double*>malloc(sizeof(double) * n)
    if total == NULL:
        free(work)
        return -1
    for k in range(n):
        total[k] = 0
    for j in range(p.rollouts):
        search_reseed(&world0, rng)        # this rollout's world, the same for every option
        for k in range(n):
            world = world0
            search_copy(work, g)
            search_determinize(work, seat, &world)
            search_rollout_bots(work, seat, p.rollout)
            search_take(work, k)
            if search_advance(work, p.depth if p.depth > 0 else -1):
                search_evaluate(work, reward)
            else:
                search_reward(work, reward)
            total[k] += reward[seat]
            sims[0] += 1
    for k in range(1, n):
        if total[k] > total[choice]:
            choice = k
    if note != NULL:
        note.kind, note.n, note.budget = NOTE_REWARD, 0, p.rollouts
        for k in range(n):
            note_top(note, k, total[k] / p.rollouts)
            if note.shares != NULL:
                note.shares[k] = total[k] / p.rollouts
        note_first(note, choice, total[choice] / p.rollouts)
    free(total)
    free(work)
    return choice


cdef void begin_batch_game(Game* g, uint64_t master_seed, int64_t index, int64_t offset, DecisionTrace* dtrace,
                           int64_t* starts, Samples* samples) noexcept nogil:
    """Before game ``index`` (the batch's game ``offset``) is set up: the game's generator and each search
    bot's stream from (master seed, game index), the counters of its searches, and where its decision trace
    (trace.pxi) and training samples (learned.pxi) go, if asked for."""
    cdef int s
    pcg32_for_game(&g.rng, master_seed, <uint64_t>index)
    for s in range(search_seats(g)):
        search_stream(&g.bots[s].rng, master_seed, <uint64_t>index, s)
    g.searches = 0
    g.rollouts = 0
    g.dtrace = dtrace
    g.samples = samples
    if samples != NULL:
        samples.game = <int>offset
    if dtrace != NULL:
        starts[offset] = <int64_t>dtrace.n
        trace_begin(dtrace)
