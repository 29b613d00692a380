# The engine kit's learned bots (docs/learned-bots.md): a linear policy over each option's features and a
# linear value head over each seat's features, both declared once per game (sim/<game>/bots/features.py)
# and computed by the game's hooks; a network model adds to each score a small network's (one hidden layer
# of ReLU units, float32 weights, evaluated here with no Python per decision). Its input is the option's
# features and the state as the deciding seat sees it: every seat's features, from the deciding seat round
# the table (seats the game does not have are zeros), so the network sees only what the linear model sees.
# The state's part of the hidden layer is worked out once per decision (learned_state_part), each option
# adding its own (its features are few and mostly zero). A learned seat takes the option its policy scores highest (the first
# listed on ties: deterministic, no draw); a search bot with a model plays its simulations with the
# learned policy, expands first the untried option the policy prefers, and rates a simulation cut off by
# the depth cap with the value head.
#
# Contract: the including module defines ``Game`` (with ``bots[s].model``, ``n_opt``), ``MAXP``,
# ``N_POLICY``, ``N_VALUE`` (its feature counts, at most MAXFEAT), cimports Model (core/kit/types.pxd)
# and exp (libc.math), and defines these hooks (nogil, noexcept):
#
#   void learned_option_features(Game* g, int seat, int k, double* f)
#                                          option k's features for ``seat`` (N_POLICY values), from what
#                                          the seat can see
#   void learned_seat_features(Game* g, int seat, double* f)
#                                          seat ``seat``'s features (N_VALUE values), from what every
#                                          player can see
#   int learned_teams(Game* g)             1 if seats 0, 2 and 1, 3 play as two teams (the value head's
#                                          chance of a team is the sum of its seats')
#   bint learned_forbidden(Game* g, int forbid, int k)
#                                          restricted play: listed option k is of the kind ``forbid`` (a
#                                          Weights.forbid, 0: none) names, by the rule the game's heuristic
#                                          asks (its ``forbidden``)
#
# and, for a model's decisions block (the game's decisions other than the top-level ones, each with
# features of its own), a Python dict ``LEARNED_DECISIONS`` {kind name: (decision kind, feature count)}
# (empty: the game takes no block) and the hooks (nogil, noexcept):
#
#   int learned_decision_size(int kind)    decision kind ``kind``'s feature count (0: none)
#   void learned_decision_prepare(Game* g, int seat, int kind)
#                                          before scoring a decision's options (the heuristic's pick)
#   void learned_decision_features(Game* g, int seat, int kind, int k, double* f)
#                                          option k's features at a pending decision of that kind
#                                          (learned_decision_size values), from what the seat can see


cdef double LEARNED_FORBIDDEN = -1e300    # a forbidden option's score: below every score a model gives


cdef inline double model_dot(const double* w, const double* f, int n) noexcept nogil:
    cdef double s = 0
    cdef int i
    for i in range(n):
        s += w[i] * f[i]
    return s


# -- the network's weights: one float32 block, in this order (sim/kit/network.py writes it so) ------------
#   policy hidden layer: (n_policy + n_state) rows of `hidden` (an input's weights to every unit), then
#   `hidden` biases, then `hidden` output weights; value hidden layer: n_state rows of `hidden`, `hidden`
#   biases, `hidden` output weights.
cdef inline int net_policy_rows(const Model* m) noexcept nogil:
    return m.n_policy + m.n_state


cdef inline const float* net_policy_bias(const Model* m) noexcept nogil:
    return m.net + net_policy_rows(m) * m.hidden


cdef inline const float* net_value_w1(const Model* m) noexcept nogil:
    return m.net + (net_policy_rows(m) + 2) * m.hidden


cdef inline int net_size(int n_policy, int n_value, int n_state, int hidden) noexcept nogil:
    return (n_policy + n_state + 2) * hidden + (n_state + 2) * hidden


cdef void learned_state(Game* g, const Model* m, int seat, double* st) noexcept nogil:
    """The state as ``seat`` sees it: every seat's features, ``seat`` first and the others round the table
    (m.n_state values; seats the game does not have are zeros)."""
    cdef int r, i, n = search_seats(g), nv = m.n_value
    for i in range(m.n_state):
        st[i] = 0
    for r in range(n):
        learned_seat_features(g, (seat + r) % n, st + r * nv)


cdef inline void net_add(float* z, const float* row, float x, int hidden) noexcept nogil:
    """z += x * row (a unit's inputs, float32 as the weights: the compiler does several units at once)."""
    cdef int h
    for h in range(hidden):
        z[h] += x * row[h]


cdef inline double net_out(const float* z, const float* out, int hidden) noexcept nogil:
    """The output: the ReLU units weighted by the output weights."""
    cdef double s = 0
    cdef int h
    for h in range(hidden):
        if z[h] > 0:
            s += <double>z[h] * out[h]
    return s


cdef void learned_state_part(Game* g, const Model* m, int seat, float* acc) noexcept nogil:
    """The policy network's hidden layer before any option's features: its biases plus the state's part
    (nothing for a linear model)."""
    cdef double st[MAXP * MAXFEAT]
    cdef int i, h, hidden = m.hidden
    if m.net == NULL:
        return
    memcpy(acc, net_policy_bias(m), sizeof(float) * hidden)
    learned_state(g, m, seat, st)
    for i in range(m.n_state):
        if st[i] != 0:
            net_add(acc, m.net + (m.n_policy + i) * hidden, <float>st[i], hidden)


cdef double net_option(const Model* m, const double* f, const float* acc) noexcept nogil:
    """The policy network's score of an option with features ``f``, the decision's state part in ``acc``."""
    cdef float z[MAXHIDDEN]
    cdef int i, hidden = m.hidden
    memcpy(z, acc, sizeof(float) * hidden)
    for i in range(m.n_policy):
        if f[i] != 0:
            net_add(z, m.net + i * hidden, <float>f[i], hidden)
    return net_out(z, net_policy_bias(m) + hidden, hidden)


cdef double learned_score(Game* g, const Model* m, int seat, int k, const float* acc) noexcept nogil:
    """The policy's score of option k of the listed options (``acc``: learned_state_part's, for a network)."""
    cdef double f[MAXFEAT]
    learned_option_features(g, seat, k, f)
    if m.net != NULL:
        return model_dot(m.policy, f, m.n_policy) + net_option(m, f, acc)
    return model_dot(m.policy, f, m.n_policy)


cdef int learned_choose(Game* g, const Model* m, int seat, int forbid) noexcept nogil:
    """The listed option the policy scores highest; the first listed on ties. Restricted play (``forbid``,
    0: none): an option of the forbidden kind scores below every other and is not scored (the heuristic's
    rule: taken only when every option listed is forbidden, then the first listed)."""
    cdef float acc[MAXHIDDEN]
    cdef int k, best = 0
    cdef double s, best_score = 0
    learned_state_part(g, m, seat, acc)
    for k in range(g.n_opt):
        s = LEARNED_FORBIDDEN if forbid and learned_forbidden(g, forbid, k) else learned_score(g, m, seat, k, acc)
        if k == 0 or s > best_score:
            best, best_score = k, s
    return best


cdef inline bint learned_decides(const Model* m, int kind) noexcept nogil:
    """The model's decisions block holds weights for decision kind ``kind`` (so its seat decides it)."""
    return m.decisions != NULL and 0 <= kind < MAXKINDS and (m.decided >> kind) & 1


cdef int learned_choose_decision(Game* g, const Model* m, int seat, int kind) noexcept nogil:
    """A decision of kind ``kind`` (not a top-level one; its options listed) by the decisions block: the
    option whose features' weighted sum is highest, the first listed on ties."""
    cdef double f[MAXFEAT]
    cdef const double* w = m.decisions + kind * MAXFEAT
    cdef int k, best = 0, n = learned_decision_size(kind)
    cdef double s, best_score = 0
    learned_decision_prepare(g, seat, kind)
    for k in range(g.n_opt):
        learned_decision_features(g, seat, kind, k, f)
        s = model_dot(w, f, n)
        if k == 0 or s > best_score:
            best, best_score = k, s
    return best


cdef double net_value(const Model* m, const double* st) noexcept nogil:
    """The value network's score of the seat whose view of the state is ``st``."""
    cdef float z[MAXHIDDEN]
    cdef const float* w1 = net_value_w1(m)
    cdef const float* bias = w1 + m.n_state * m.hidden
    cdef int i, hidden = m.hidden
    memcpy(z, bias, sizeof(float) * hidden)
    for i in range(m.n_state):
        if st[i] != 0:
            net_add(z, w1 + i * hidden, <float>st[i], hidden)
    return net_out(z, bias + hidden, hidden)


cdef void learned_values(Game* g, const Model* m, double* out) noexcept nogil:
    """Each seat's chance to win by the value head: a softmax over the seats of their scores (Teams: each
    seat gets its team's chance, the sum of the two seats')."""
    cdef double f[MAXP * MAXFEAT]
    cdef double st[MAXP * MAXFEAT]
    cdef double z[MAXP]
    cdef double top = -1e300, total = 0, team[2]
    cdef int s, r, i, n = search_seats(g), nv = m.n_value
    for s in range(n):
        learned_seat_features(g, s, f + s * nv)
    for s in range(n):
        z[s] = model_dot(m.value, f + s * nv, nv)
        if m.net != NULL:
            for i in range(m.n_state):
                st[i] = 0
            for r in range(n):                       # the state as seat s sees it (learned_state)
                for i in range(nv):
                    st[r * nv + i] = f[((s + r) % n) * nv + i]
            z[s] += net_value(m, st)
        if z[s] > top:
            top = z[s]
    for s in range(n):
        z[s] = exp(z[s] - top)
        total += z[s]
    for s in range(n):
        out[s] = z[s] / total
    if learned_teams(g):
        team[0] = out[0] + out[2]
        team[1] = out[1] + out[3]
        for s in range(n):
            out[s] = team[s % 2]


cdef load_model(Model* m, object model, int n_policy, int n_value):
    """Fill ``m`` from (policy weights, value weights) or (policy weights, value weights, (hidden units, the
    network's weights as learned.pxi lays them out) or None[, decisions block: {kind name: weights}]); the
    lists must be the game's feature counts long (a decision's: LEARNED_DECISIONS). A network's block and a
    decisions block are allocated here: free_model frees them."""
    cdef int i, hidden = 0, n_state = MAXP * n_value, size, kind, decided = 0
    policy, value, *more = model
    decisions = more[1] if len(more) > 1 and more[1] else None
    if decisions is not None:
        for name, weights in decisions.items():
            if name not in LEARNED_DECISIONS:
                raise ValueError(f"a decisions block for {name!r}; this core takes "
                                 f"{', '.join(LEARNED_DECISIONS) or 'none'}")
            kind, size = LEARNED_DECISIONS[name]
            if len(weights) != size or not 0 <= kind < MAXKINDS or size > MAXFEAT:
                raise ValueError(f"a decisions block of {len(weights)} weights for {name}; this core has {size}")
            decided |= 1 << kind
    if len(policy) != n_policy or len(value) != n_value or n_policy > MAXFEAT or n_value > MAXFEAT:
        raise ValueError(f"a model of {len(policy)} option and {len(value)} seat features; this core has "
                         f"{n_policy} and {n_value}")
    network = more[0] if more else None
    if network is not None:
        hidden, weights = network
        size = net_size(n_policy, n_value, n_state, hidden)
        if not 0 < hidden <= MAXHIDDEN or len(weights) != size:
            raise ValueError(f"a network of {hidden} hidden units and {len(weights)} weights; this core takes "
                             f"1 to {MAXHIDDEN} units and, for {hidden}, {size} weights")
    free_model(m)
    m.n_policy, m.n_value = n_policy, n_value
    for i in range(n_policy):
        m.policy[i] = policy[i]
    for i in range(n_value):
        m.value[i] = value[i]
    m.n_state = n_state
    m.hidden = hidden
    if network is not None:
        m.net = <float*>malloc(sizeof(float) * size)
        if m.net == NULL:
            raise MemoryError()
        for i in range(size):
            m.net[i] = weights[i]
    if decisions is not None:
        m.decisions = <double*>calloc(MAXKINDS * MAXFEAT, sizeof(double))
        if m.decisions == NULL:
            raise MemoryError()
        m.decided = decided
        for name, weights in decisions.items():
            kind = LEARNED_DECISIONS[name][0]
            for i in range(len(weights)):
                m.decisions[kind * MAXFEAT + i] = weights[i]


cdef void free_model(Model* m) noexcept nogil:
    """Free a network's weights and a decisions block (a model that has none, or was zeroed, frees nothing)."""
    free(m.net)
    m.net = NULL
    m.hidden = 0
    free(m.decisions)
    m.decisions = NULL
    m.decided = 0


cdef void free_bot_models(Game* g) noexcept nogil:
    """Free every seat's network (g zeroed or configured)."""
    cdef int s
    for s in range(MAXP):
        free_model(&g.bots[s].model)


cdef int own_bot_models(Game* g) except -1:
    """After a byte copy of a Game that owns its networks and decisions blocks: give the copy blocks of its
    own, so each frees its own (a search's copies, freed with plain free, share the original's instead)."""
    cdef int s, size
    cdef Model* m
    cdef float* block
    cdef double* weights
    for s in range(MAXP):
        m = &g.bots[s].model
        if m.decisions != NULL:
            weights = <double*>malloc(sizeof(double) * MAXKINDS * MAXFEAT)
            if weights == NULL:
                m.decisions = NULL
                m.decided = 0
                m.net = NULL
                raise MemoryError()
            memcpy(weights, m.decisions, sizeof(double) * MAXKINDS * MAXFEAT)
            m.decisions = weights
        if m.net != NULL:
            size = net_size(m.n_policy, m.n_value, m.n_state, m.hidden)
            block = <float*>malloc(sizeof(float) * size)
            if block == NULL:
                m.net = NULL
                raise MemoryError()
            memcpy(block, m.net, sizeof(float) * size)
            m.net = block
    return 0


cdef object learned_features_at(Game* g, int n_policy, int n_value):
    """The features at g's pending decision, for the test-only modules' PausedGame: (one list per listed
    option for the deciding seat, one list per seat); the options must be listed."""
    cdef double f[MAXFEAT]
    cdef int k, i, s, seat = g.seat
    learned_prepare(g, seat)
    opts = []
    for k in range(g.n_opt):
        learned_option_features(g, seat, k, f)
        opts.append([f[i] for i in range(n_policy)])
    seats = []
    for s in range(search_seats(g)):
        learned_seat_features(g, s, f)
        seats.append([f[i] for i in range(n_value)])
    return opts, seats


cdef object learned_scores_at(Game* g):
    """The paused seat's model at g's pending decision, for the test-only modules' PausedGame: (its policy's
    score of each listed option, each seat's chance by its value head); the options must be listed."""
    cdef float acc[MAXHIDDEN]
    cdef double p[MAXP]
    cdef int k, s, seat = g.seat
    cdef Model* m = &g.bots[seat].model
    if m.n_policy == 0:
        raise ValueError(f"seat {seat}'s bot has no model")
    learned_prepare(g, seat)
    learned_state_part(g, m, seat, acc)
    scores = [learned_score(g, m, seat, k, acc) for k in range(g.n_opt)]
    learned_values(g, m, p)
    return scores, [p[s] for s in range(search_seats(g))]


cdef object learned_decision_features_at(Game* g, int seat, int kind):
    """The features of each listed option of a pending decision of kind ``kind`` (learned_decision_features),
    for the test-only modules."""
    cdef double f[MAXFEAT]
    cdef int k, i, n = learned_decision_size(kind)
    learned_decision_prepare(g, seat, kind)
    out = []
    for k in range(g.n_opt):
        learned_decision_features(g, seat, kind, k, f)
        out.append([f[i] for i in range(n)])
    return out
